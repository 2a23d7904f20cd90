//! Co-citation and bibliographic coupling, the top k papers of every paper, as a plan.
//!
//! Both relations count the papers two steps away: co-citation goes from a paper to its citers
//! and on to their references, coupling from a paper to its references and on to their citers —
//! coupling is co-citation over the reversed edges, so one plan serves both with the edge columns
//! swapped. Through a "middle" paper with d onward links, the direct SQL form (edges joined with
//! edges on the middle) makes d² pairs: around a reference cited 10⁵ times that is 10¹⁰ rows
//! before any grouping, the skew of the CD issue again.
//!
//! The plan instead cuts the focal papers into groups (by node number modulo the group count)
//! and gives each group exactly what its papers' rankings read:
//!
//! - every middle linked to a focal paper of the group, with *all* its onward links (a middle
//!   is shipped to each group it serves: at most one copy per group, so at most `groups` × the
//!   edges in all);
//! - every onward paper's set size over the whole graph (its citers for co-citation, its
//!   references for coupling), for the Salton cosine.
//!
//! `litnav_related`, a scalar function, builds the group's adjacency and runs litnav's in-memory
//! ranking ([`litnav_graph::pairs::TwoSteps`]) for each focal paper, with local numbers in the
//! order of the global node numbers so that ties break as on the whole graph: the lists equal
//! `co_cited_with` / `coupled_with` on the in-memory CSR, counts and similarities to the bit.

use crate::Result;
use crate::engine::{Jobs, Session};
use crate::kernel;
use crate::tables::{footer_value, table_error, text_column, typed_column};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, ListArray, StructArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Float64Type, UInt32Type, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use litnav_graph::Node;
use litnav_graph::pairs::TwoSteps;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The name of the kernel function in SQL.
pub const KERNEL: &str = "litnav_related";

/// Which relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Papers cited together with the paper by a third.
    CoCitation,
    /// Papers citing a reference in common with the paper.
    Coupling,
}

impl Relation {
    /// The result table's file stem (`cocitation.parquet`, `coupling.parquet`) and the name in
    /// its footer.
    pub fn name(self) -> &'static str {
        match self {
            Relation::CoCitation => "cocitation",
            Relation::Coupling => "coupling",
        }
    }

    /// The relation a footer names.
    pub fn from_name(name: &str) -> Option<Relation> {
        [Relation::CoCitation, Relation::Coupling].into_iter().find(|r| r.name() == name)
    }

    /// The edge columns read as (middle, onward paper): a citer and what it cites for
    /// co-citation; a reference and what cites it for coupling.
    fn orientation(self) -> (&'static str, &'static str) {
        match self {
            Relation::CoCitation => ("citing", "cited"),
            Relation::Coupling => ("cited", "citing"),
        }
    }
}

/// What to compute and how to cut the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelatedPlan {
    /// The relation.
    pub relation: Relation,
    /// How many related papers each paper keeps.
    pub top: u32,
    /// How many groups the focal papers are cut into (at least 1).
    pub groups: u32,
    /// How many separate queries the groups run as, one after another (at least 1, at most the
    /// groups): more jobs bound memory and shuffle by a job's share of the groups, at the price
    /// of reading the edges once per job.
    pub jobs: u32,
}

impl RelatedPlan {
    /// A plan with the default number of groups: four per core of this machine.
    pub fn new(relation: Relation, top: u32) -> RelatedPlan {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        RelatedPlan { relation, top, groups: 4 * cores, jobs: 1 }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelatedSummary {
    /// The relation.
    pub relation: Relation,
    /// Rows written (a paper and one of its related papers each).
    pub rows: u64,
    /// Related papers kept per paper.
    pub top: u32,
}

/// One job's SQL over the `papers` and `edges` tables: the rankings of the focal papers of the
/// groups in `groups`.
fn job_sql(plan: RelatedPlan, groups_of_job: std::ops::Range<i64>) -> String {
    let (middle, onward) = plan.relation.orientation();
    let groups = i64::from(plan.groups.max(1));
    let group_of = |column: &str| format!("((({column} % {groups}) + {groups}) % {groups})");
    let (target_group, own_group) = (group_of("target"), group_of("o.target"));
    format!(
        "WITH linked AS (
            SELECT DISTINCT e.citing, e.cited
            FROM edges e JOIN papers a ON e.citing = a.node JOIN papers b ON e.cited = b.node
            WHERE e.citing <> e.cited
        ),
        oriented AS (SELECT {middle} AS middle, {onward} AS target FROM linked),
        sizes AS (SELECT target AS node, count(*) AS size FROM oriented GROUP BY target),
        served AS (
            SELECT DISTINCT middle, {target_group} AS grp FROM oriented
            WHERE {target_group} >= {first_group} AND {target_group} < {end_group}
        ),
        kernel_rows AS (
            SELECT s.grp, o.middle, o.target, z.size, {own_group} = s.grp AS focal
            FROM served s JOIN oriented o ON o.middle = s.middle JOIN sizes z ON z.node = o.target
        ),
        per_group AS (
            SELECT {KERNEL}(array_agg(named_struct('middle', middle, 'target', target, 'size', size, 'focal', focal)),
                            {top}) AS answers
            FROM kernel_rows GROUP BY grp
        ),
        results AS (SELECT unnest(answers) AS r FROM per_group),
        flat AS (
            SELECT r['node'] AS node, r['rank'] AS rank, r['other'] AS other, r['count'] AS count,
                   r['similarity'] AS similarity
            FROM results
        )
        SELECT f.node, p.id, f.rank, f.other, q.id AS other_id, f.count, f.similarity
        FROM flat f JOIN papers p ON f.node = p.node JOIN papers q ON f.other = q.node",
        top = plan.top,
        first_group = groups_of_job.start,
        end_group = groups_of_job.end,
    )
}

/// The table the jobs' parts are registered as.
const PARTS: &str = "related_parts";

/// The top related papers of every paper of the session's tables, written as
/// `out/<relation>.parquet`: `node`, `id`, `rank` (1 = most related), `other`, `other_id`,
/// `count` (co-citations or shared references) and `similarity` (Salton's cosine). A paper
/// with no related paper has no row. The groups run as [`RelatedPlan::jobs`] separate queries
/// ([`Session::write_in_jobs`]).
pub fn compute(session: &Session, plan: RelatedPlan, out: &Path) -> Result<RelatedSummary> {
    let queries = kernel::shares(plan.groups, plan.jobs).into_iter().map(|groups| job_sql(plan, groups)).collect();
    let result = format!("SELECT * FROM {PARTS}");
    let jobs = Jobs { queries, shape: job_sql(plan, 0..1), parts: PARTS, result };
    let rows = session.write_in_jobs(jobs, out, plan.relation.name(), metadata(plan.relation, plan.top))?;
    Ok(RelatedSummary { relation: plan.relation, rows, top: plan.top })
}

/// Footer keys naming the relation and the list length of a result file.
pub const RELATION_KEY: &str = "litnav.related.relation";
/// See [`RELATION_KEY`].
pub const TOP_KEY: &str = "litnav.related.top";

pub(crate) fn metadata(relation: Relation, top: u32) -> Vec<(String, String)> {
    vec![(RELATION_KEY.to_string(), relation.name().to_string()), (TOP_KEY.to_string(), top.to_string())]
}

/// One related paper in a result file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelatedRow {
    /// The related paper's id.
    pub other: String,
    /// Co-citations or shared references.
    pub count: u64,
    /// Salton's cosine.
    pub similarity: f64,
}

/// A result file read back.
#[derive(Debug, Clone, PartialEq)]
pub struct RelatedResults {
    /// The relation.
    pub relation: Relation,
    /// The list length each paper was given.
    pub top: u32,
    /// Each paper id with its related papers, most related first.
    pub lists: HashMap<String, Vec<RelatedRow>>,
}

/// Read a result file written by [`compute`] (or the in-memory engine).
pub fn read(path: &Path) -> Result<RelatedResults> {
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).map_err(crate::io_error(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
    let footer = |key: &str| footer_value(builder.metadata(), path, key, "a litnav co-citation or coupling result");
    let relation = footer(RELATION_KEY)?;
    let relation =
        Relation::from_name(&relation).ok_or_else(|| table_error(path, format!("`{RELATION_KEY}` is `{relation}`")))?;
    let top = footer(TOP_KEY)?;
    let top = top.parse().map_err(|_| table_error(path, format!("`{TOP_KEY}` is `{top}`")))?;
    let mut ranked: HashMap<String, Vec<(u32, RelatedRow)>> = HashMap::new();
    for batch in builder.build()? {
        let batch = batch?;
        let (ids, others) = (text_column(&batch, path, "id")?, text_column(&batch, path, "other_id")?);
        let ranks = typed_column::<UInt32Type>(&batch, path, "rank")?;
        let counts = typed_column::<UInt64Type>(&batch, path, "count")?;
        let similarities = typed_column::<Float64Type>(&batch, path, "similarity")?;
        for row in 0..batch.num_rows() {
            if [ids.is_null(row), others.is_null(row), ranks.is_null(row), counts.is_null(row)].contains(&true) {
                return Err(table_error(path, format!("row {row} of a batch has an empty value")));
            }
            let related = RelatedRow {
                other: others.value(row).to_string(),
                count: counts.value(row),
                similarity: similarities.value(row),
            };
            ranked.entry(ids.value(row).to_string()).or_default().push((ranks.value(row), related));
        }
    }
    let mut lists = HashMap::with_capacity(ranked.len());
    for (id, mut list) in ranked {
        list.sort_by_key(|(rank, _)| *rank);
        if list.iter().enumerate().any(|(i, (rank, _))| *rank as usize != i + 1) {
            return Err(table_error(path, format!("the ranks of `{id}` are not 1, 2, 3, …")));
        }
        lists.insert(id, list.into_iter().map(|(_, row)| row).collect());
    }
    Ok(RelatedResults { relation, top, lists })
}

/// The columns of a result file after `node` and `id` — shared by the kernel's rows and the
/// in-memory engine's writer.
pub(crate) fn value_fields() -> Vec<Field> {
    vec![
        Field::new("rank", DataType::UInt32, false),
        Field::new("other", DataType::Int64, false),
        Field::new("other_id", DataType::Utf8, false),
        Field::new("count", DataType::UInt64, false),
        Field::new("similarity", DataType::Float64, false),
    ]
}

/// The kernel's output row: a paper, the rank, the related paper, the count and similarity.
fn kernel_fields() -> Fields {
    Fields::from(vec![
        Field::new("node", DataType::Int64, false),
        Field::new("rank", DataType::UInt32, false),
        Field::new("other", DataType::Int64, false),
        Field::new("count", DataType::UInt64, false),
        Field::new("similarity", DataType::Float64, false),
    ])
}

fn kernel_item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(kernel_fields()), true))
}

/// `litnav_related(rows, top)`: the ranking over one group's rows (see the module docs). `rows`
/// is a list of `{middle, target, size, focal}`: a link from a middle paper to an onward paper
/// `target` whose set size over the whole graph is `size`; `focal` when `target` is one of the
/// group's papers.
#[derive(Debug, PartialEq, Eq, Hash)]
struct RelatedKernel {
    signature: Signature,
}

/// The kernel as a DataFusion function (registered by every engine's session).
pub fn kernel_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(RelatedKernel { signature: Signature::any(2, Volatility::Immutable) })
}

impl ScalarUDFImpl for RelatedKernel {
    fn name(&self) -> &str {
        KERNEL
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> datafusion::error::Result<DataType> {
        Ok(DataType::List(kernel_item()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::error::Result<ColumnarValue> {
        let top = match &args.args[1] {
            ColumnarValue::Scalar(ScalarValue::Int64(Some(top))) if *top >= 0 => *top as usize,
            other => return Err(kernel_error(format!("`top` must be a non-negative int64 literal, not {other:?}"))),
        };
        let results = kernel::per_group(KERNEL, &args.args[0], args.number_rows, |rows| group_rankings(rows, top))?;
        Ok(ColumnarValue::Array(Arc::new(results_list(&results)?)))
    }
}

fn kernel_error(message: String) -> datafusion::error::DataFusionError {
    kernel::error(KERNEL, message)
}

/// One focal paper's ranking: (paper, related papers with count and similarity), global keys.
type Ranking = (i64, Vec<(i64, u64, f64)>);

/// One group's rows as two adjacency lists, and the ranking of each of its focal papers.
fn group_rankings(rows: &StructArray, top: usize) -> datafusion::error::Result<Vec<Ranking>> {
    let field = |name: &str| kernel::int64_field(KERNEL, rows, name);
    let (middles, targets, sizes) = (field("middle")?, field("target")?, field("size")?);
    let focal = rows.column_by_name("focal").ok_or_else(|| kernel_error("rows lack `focal`".into()))?;
    let focal = cast(focal, &DataType::Boolean)?;
    let focal: &BooleanArray = focal.as_boolean();
    // Onward papers numbered in the order of their keys, so ties break as on the whole graph.
    let mut keys: Vec<i64> = targets.values().to_vec();
    keys.sort_unstable();
    keys.dedup();
    let number = |key: i64| keys.binary_search(&key).map(|i| i as Node).unwrap_or(Node::MAX);
    let mut middle_numbers: HashMap<i64, u32> = HashMap::new();
    let mut size = vec![0usize; keys.len()];
    let mut is_focal = vec![false; keys.len()];
    let mut links: Vec<(u32, Node)> = Vec::with_capacity(rows.len());
    for row in 0..rows.len() {
        let next = middle_numbers.len() as u32;
        let middle = *middle_numbers.entry(middles.value(row)).or_insert(next);
        let target = number(targets.value(row));
        size[target as usize] =
            usize::try_from(sizes.value(row)).map_err(|_| kernel_error("a negative size".into()))?;
        is_focal[target as usize] |= focal.value(row);
        links.push((middle, target));
    }
    let onward = Adjacency::new(middle_numbers.len(), links.iter().copied());
    let into = Adjacency::new(keys.len(), links.iter().map(|&(middle, target)| (target, middle)));
    let mut counter = TwoSteps::new(keys.len());
    let mut rankings = Vec::new();
    for paper in (0..keys.len() as Node).filter(|&n| is_focal[n as usize]) {
        let list = counter.top_k(into.of(paper), |middle| onward.of(middle), paper, top, |n| size[n as usize]);
        if !list.is_empty() {
            let list = list.iter().map(|r| (keys[r.node as usize], r.count as u64, r.similarity)).collect();
            rankings.push((keys[paper as usize], list));
        }
    }
    Ok(rankings)
}

/// A compressed adjacency list: each node's neighbours, ascending and without repeats.
struct Adjacency {
    offsets: Vec<usize>,
    neighbours: Vec<Node>,
}

impl Adjacency {
    fn new(nodes: usize, pairs: impl Iterator<Item = (u32, Node)>) -> Adjacency {
        let mut pairs: Vec<(u32, Node)> = pairs.collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0usize; nodes + 1];
        for &(from, _) in &pairs {
            offsets[from as usize + 1] += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        Adjacency { offsets, neighbours: pairs.into_iter().map(|(_, to)| to).collect() }
    }

    fn of(&self, node: u32) -> &[Node] {
        &self.neighbours[self.offsets[node as usize]..self.offsets[node as usize + 1]]
    }
}

/// The kernel's answers as a list (one per group) of result structs.
fn results_list(results: &[Vec<Ranking>]) -> datafusion::error::Result<ListArray> {
    let entries =
        || results.iter().flatten().flat_map(|(node, list)| list.iter().enumerate().map(move |(i, r)| (*node, i, r)));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(entries().map(|(node, _, _)| node).collect::<Int64Array>()),
        Arc::new(entries().map(|(_, i, _)| i as u32 + 1).collect::<UInt32Array>()),
        Arc::new(entries().map(|(_, _, r)| r.0).collect::<Int64Array>()),
        Arc::new(entries().map(|(_, _, r)| r.1).collect::<UInt64Array>()),
        Arc::new(entries().map(|(_, _, r)| r.2).collect::<Float64Array>()),
    ];
    let structs = StructArray::try_new(kernel_fields(), columns, None)?;
    let lengths = results.iter().map(|group| group.iter().map(|(_, list)| list.len()).sum::<usize>());
    Ok(ListArray::try_new(kernel_item(), OffsetBuffer::from_lengths(lengths), Arc::new(structs), None)?)
}
