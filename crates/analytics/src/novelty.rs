//! Uzzi-style novelty as a plan, against the expected null
//! ([`litnav_graph::novelty::expected`]): the null's mean and variance of every unit pair's count
//! in closed form from each year's reference totals and each unit's share of them, so nothing
//! is randomized and every step is a join or a grouping that distributes. (Edge switching, the
//! in-memory default, is a sequential Markov chain over the whole graph: it does not.)
//!
//! Steps: the timed edges with each reference's unit (its venue, or the paper itself); per
//! citing year the totals (references, Σ k(k−1)/2, Σ k(k−1)(k−2)) and each unit's references;
//! every reference pair of every paper (Σ k²/2 rows — reference lists are short, so no skew
//! blow-up); the distinct unit pairs with their observed counts, joined with the two units'
//! shares in the years both are cited and summed into the null's moments; z per unit pair,
//! joined back to the reference pairs; per paper the 10th percentile and median of its z by
//! `litnav_novelty`, litnav's own quantile code.
//!
//! The values equal the in-memory computation up to the order in which the per-year terms are
//! summed (DataFusion adds partial sums in partition order): tested within 1e-9.
//!
//! Units are numbered in SQL as the node for a paper and −(venue rank) for a venue, so node
//! numbers must not be negative (every litnav and OpenAlex table satisfies this).

use crate::Result;
use crate::engine::Session;
use crate::tables::{footer_value, table_error, text_column, typed_column};
use datafusion::arrow::array::{Array, AsArray, Float64Array, StringArray, StructArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Float64Type, UInt64Type};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use litnav_graph::novelty::{self, Novelty, Units};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

/// The name of the per-paper quantile function in SQL.
pub const KERNEL: &str = "litnav_novelty";

/// The result table's file stem (`novelty.parquet`).
pub const RESULT: &str = "novelty";

/// Footer key naming the units a result was computed with.
pub const UNITS_KEY: &str = "litnav.novelty.units";
/// Footer key naming the null model (`expected`).
pub const NULL_KEY: &str = "litnav.novelty.null";

/// What a run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoveltySummary {
    /// Papers written (one row each).
    pub papers: u64,
    /// The units (`venues` or `references`).
    pub units: &'static str,
    /// The null model.
    pub null: &'static str,
}

pub(crate) fn metadata(units: Units) -> Vec<(String, String)> {
    vec![(UNITS_KEY.to_string(), units.name().to_string()), (NULL_KEY.to_string(), "expected".to_string())]
}

/// Stage 1: every in-corpus reference with its citing paper's year group and its unit.
fn references_sql(units: Units) -> String {
    let unit = match units {
        Units::Venues => "CASE WHEN v.number IS NULL THEN p.node ELSE -v.number END",
        Units::References => "p.node",
    };
    format!(
        "WITH linked AS (
            SELECT DISTINCT e.citing, e.cited
            FROM edges e JOIN papers a ON e.citing = a.node JOIN papers b ON e.cited = b.node
            WHERE e.citing <> e.cited
        ),
        venues AS (
            SELECT venue, CAST(row_number() OVER (ORDER BY venue) AS BIGINT) AS number
            FROM (SELECT DISTINCT venue FROM papers WHERE venue IS NOT NULL)
        ),
        units AS (
            SELECT p.node, {unit} AS unit, coalesce(CAST(p.year AS BIGINT), CAST(-9223372036854775807 AS BIGINT)) AS grp
            FROM papers p LEFT JOIN venues v ON p.venue = v.venue
        )
        SELECT l.citing, l.cited, c.grp, u.unit
        FROM linked l JOIN units c ON l.citing = c.node JOIN units u ON l.cited = u.node"
    )
}

/// Every reference pair of every paper as its unit pair (over the stage-1 table).
const SLOT_PAIRS: &str = "slot_pairs AS (
        SELECT a.citing, least(a.unit, b.unit) AS u, greatest(a.unit, b.unit) AS v
        FROM novelty_refs a JOIN novelty_refs b ON a.citing = b.citing AND a.cited < b.cited
    )";

/// Stage 2: each co-cited unit pair's z against the expected null.
fn pair_scores_sql() -> String {
    format!(
        "WITH lengths AS (SELECT citing, grp, CAST(count(*) AS BIGINT) AS k FROM novelty_refs GROUP BY citing, grp),
        totals AS (
            SELECT grp, sum(k) AS slots, sum(k * (k - 1) / 2) AS pairs, sum(k * (k - 1) * (k - 2)) AS triples
            FROM lengths GROUP BY grp
        ),
        shares AS (SELECT grp, unit, count(*) AS n FROM novelty_refs GROUP BY grp, unit),
        {SLOT_PAIRS},
        observed AS (SELECT u, v, count(*) AS o FROM slot_pairs GROUP BY u, v),
        per_year AS (
            SELECT o.u, o.v, o.o, CAST(t.pairs AS DOUBLE) AS a, CAST(t.triples AS DOUBLE) AS b,
                   CAST(su.n AS DOUBLE) / CAST(t.slots AS DOUBLE) AS pu,
                   CAST(sv.n AS DOUBLE) / CAST(t.slots AS DOUBLE) AS pv
            FROM observed o JOIN shares su ON su.unit = o.u
                 JOIN shares sv ON sv.unit = o.v AND sv.grp = su.grp
                 JOIN totals t ON t.grp = su.grp
        ),
        terms AS (
            SELECT u, v, o, a, b,
                   CASE WHEN u = v THEN pu * pu ELSE 2.0 * pu * pv END AS q,
                   CASE WHEN u = v THEN pu * pu * pu ELSE pu * pv * (pu + pv) END AS r
            FROM per_year
        ),
        moments AS (
            SELECT u, v, max(o) AS o, sum(a * q) AS mean, sum(a * q * (1.0 - q) + b * (r - q * q)) AS variance
            FROM terms GROUP BY u, v
        )
        SELECT u, v, CASE WHEN variance > 0.0 THEN (CAST(o AS DOUBLE) - mean) / sqrt(variance) END AS z
        FROM moments"
    )
}

/// Stage 3: each paper's quantiles of its pairs' z.
fn papers_sql() -> String {
    format!(
        "WITH {SLOT_PAIRS},
        per_paper AS (
            SELECT s.citing, {KERNEL}(array_agg(z.z)) AS n
            FROM slot_pairs s JOIN novelty_pair_z z ON s.u = z.u AND s.v = z.v GROUP BY s.citing
        )
        SELECT p.node, p.id,
               coalesce(f.n['pairs'], CAST(0 AS BIGINT UNSIGNED)) AS pairs,
               f.n['p10'] AS p10, f.n['median'] AS median,
               CASE WHEN f.citing IS NULL THEN 'fewer_than_two_references' ELSE f.n['undefined'] END AS undefined
        FROM papers p LEFT JOIN per_paper f ON p.node = f.citing"
    )
}

/// Every paper's novelty against the expected null, written as `out/novelty.parquet`: `node`,
/// `id`, `pairs` (reference pairs with a z), `p10` (novelty: lower = more atypical), `median`
/// (conventionality) and `undefined` (why not). The plan runs in three stages whose tables wait
/// in a hidden directory of `out`, removed at the end.
pub fn compute(session: &Session, units: Units, out: &Path) -> Result<NoveltySummary> {
    std::fs::create_dir_all(out).map_err(crate::io_error(out))?;
    let work = tempfile::Builder::new().prefix(".novelty-stages-").tempdir_in(out).map_err(crate::io_error(out))?;
    session.stage(&references_sql(units), work.path(), "novelty_refs")?;
    session.stage(&pair_scores_sql(), work.path(), "novelty_pair_z")?;
    let papers = session.write(&papers_sql(), out, RESULT, metadata(units))?;
    Ok(NoveltySummary { papers, units: units.name(), null: "expected" })
}

/// A `novelty.parquet` read back.
#[derive(Debug, Clone, PartialEq)]
pub struct NoveltyResults {
    /// The units it was computed with.
    pub units: Units,
    /// Each paper id with its novelty.
    pub rows: Vec<(String, Novelty)>,
}

/// Read a `novelty.parquet` written by [`compute`] (or the in-memory engine).
pub fn read(path: &Path) -> Result<NoveltyResults> {
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).map_err(crate::io_error(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
    let units = footer_value(builder.metadata(), path, UNITS_KEY, "a litnav novelty result")?;
    let units = Units::from_name(&units).ok_or_else(|| table_error(path, format!("`{UNITS_KEY}` is `{units}`")))?;
    let mut rows = Vec::new();
    for batch in builder.build()? {
        let batch = batch?;
        let ids = text_column(&batch, path, "id")?;
        let pairs = typed_column::<UInt64Type>(&batch, path, "pairs")?;
        let (p10, median) =
            (typed_column::<Float64Type>(&batch, path, "p10")?, typed_column::<Float64Type>(&batch, path, "median")?);
        let undefined = text_column(&batch, path, "undefined")?;
        for row in 0..batch.num_rows() {
            let optional = |array: &Float64Array| array.is_valid(row).then(|| array.value(row));
            let why = if undefined.is_valid(row) {
                Some(novelty::Undefined::from_name(undefined.value(row)).ok_or_else(|| {
                    table_error(path, format!("row {row}: `undefined` is `{}`", undefined.value(row)))
                })?)
            } else {
                None
            };
            let value = Novelty {
                pairs: pairs.value(row) as usize,
                p10: optional(&p10),
                median: optional(&median),
                undefined: why,
            };
            rows.push((ids.value(row).to_string(), value));
        }
    }
    Ok(NoveltyResults { units, rows })
}

/// The value columns after `node` and `id`, shared with the in-memory engine's writer.
pub(crate) fn value_fields() -> Vec<Field> {
    vec![
        Field::new("pairs", DataType::UInt64, false),
        Field::new("p10", DataType::Float64, true),
        Field::new("median", DataType::Float64, true),
        Field::new("undefined", DataType::Utf8, true),
    ]
}

/// The value columns of `values`, typed as [`value_fields`].
pub(crate) fn value_columns(values: &[&Novelty]) -> Vec<Arc<dyn Array>> {
    vec![
        Arc::new(values.iter().map(|n| n.pairs as u64).collect::<UInt64Array>()),
        Arc::new(values.iter().map(|n| n.p10).collect::<Float64Array>()),
        Arc::new(values.iter().map(|n| n.median).collect::<Float64Array>()),
        Arc::new(values.iter().map(|n| n.undefined.map(novelty::Undefined::name)).collect::<StringArray>()),
    ]
}

/// `litnav_novelty(zs)`: a paper's novelty from the z-scores of its reference pairs (a list of
/// float64, null where a pair has none), as [`novelty::paper_novelty`] computes it.
#[derive(Debug, PartialEq, Eq, Hash)]
struct NoveltyKernel {
    signature: Signature,
}

/// The function as a DataFusion function (registered by every engine's session).
pub fn kernel_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(NoveltyKernel { signature: Signature::any(1, Volatility::Immutable) })
}

impl ScalarUDFImpl for NoveltyKernel {
    fn name(&self) -> &str {
        KERNEL
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> datafusion::error::Result<DataType> {
        Ok(DataType::Struct(Fields::from(value_fields())))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::error::Result<ColumnarValue> {
        let lists = args.args[0].to_array(args.number_rows)?;
        let lists =
            lists.as_list_opt::<i32>().ok_or_else(|| kernel_error("the argument must be a list of z-scores"))?;
        let mut values = Vec::with_capacity(lists.len());
        for paper in 0..lists.len() {
            let scores = lists.value(paper);
            let scores =
                scores.as_primitive_opt::<Float64Type>().ok_or_else(|| kernel_error("the z-scores must be float64"))?;
            let scores: Vec<f64> = scores.iter().map(|z| z.unwrap_or(f64::NAN)).collect();
            // A paper with a reference pair has at least two references.
            values.push(novelty::paper_novelty(2, &scores));
        }
        let values: Vec<&Novelty> = values.iter().collect();
        let structs = StructArray::try_new(Fields::from(value_fields()), value_columns(&values), None)?;
        Ok(ColumnarValue::Array(Arc::new(structs)))
    }
}

fn kernel_error(message: &str) -> datafusion::error::DataFusionError {
    crate::kernel::error(KERNEL, message)
}
