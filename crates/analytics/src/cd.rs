//! The CD index as a query plan, shaped for skewed citation graphs.
//!
//! The direct SQL form — edges joined with edges on the cited paper, distinct (focal, citer)
//! pairs — materializes Σ in-degree² pairs around every highly cited reference and did not
//! finish on a 1M-paper / 10M-edge power-law graph. This plan instead cuts the focal papers into
//! ranges of publication time and, for each range, gathers exactly the rows its window can count:
//!
//! - the range's focal papers with their times;
//! - their (timed) references;
//! - the citations *to* those focal papers (every timed citer up to the range's last window end:
//!   the I-index counts earlier citers too) and *to* their references (citers published after
//!   the range's first paper, up to its last window end).
//!
//! The edges are read once: a first pass joins every citation with both papers' times and files
//! it twice in a hidden directory, under the job whose focal papers cite it and under the job
//! whose focal papers it cites ([`Session::stage_split`]). Each job's literal time bounds then
//! select the files it needs (Parquet's row-group statistics), so a job reads its own share
//! and its window's, and no job joins the edges with the papers' times again.
//!
//! Those rows are gathered per range by `litnav_cd`, an aggregate function that builds
//! litnav's CSR over them and runs the in-memory kernel ([`litnav_graph::disruption`]) for each
//! focal paper: the counts and indices are therefore the CSR's to the bit (the same code and the
//! same floating-point operations), with the window's exact end (a date window ends on the same
//! day Δ years later) applied by the kernel, and the SQL bounds only a conservative superset.
//!
//! Cost: a citation is shipped to every range whose window can count it — about
//! (window + range width) / range width copies with a window, up to the number of ranges without
//! one. More ranges mean smaller groups (memory per task) and more copies (shuffle volume):
//! [`CdPlan::ranges`] sets the trade-off. Only the index's definition ([`Reading::Subsequent`],
//! what `cdindex` computes) is planned; the older all-time reading stays in memory.
//!
//! [`Reading::Subsequent`]: litnav_graph::disruption::Reading::Subsequent

use crate::Result;
use crate::engine::{Jobs, Session};
use crate::kernel;
use crate::tables::{footer_value, table_error, text_column, typed_column};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, StringArray, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, UInt64Type};
use litnav_graph::disruption::{self, Disruption};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

/// The name of the kernel function in SQL (an aggregate, `cd_kernel.rs`).
pub const KERNEL: &str = "litnav_cd";

/// The result table's file stem (`cd.parquet`).
pub const RESULT: &str = "cd";

/// What to compute and how to cut the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdPlan {
    /// The window Δ in years (None: unbounded).
    pub window: Option<u32>,
    /// How many ranges of publication time the focal papers are cut into (at least 1).
    pub ranges: u32,
    /// How many separate queries the ranges run as, one after another (at least 1, at most the
    /// ranges). One job holds every range's rows at once; more jobs bound memory and shuffle by
    /// a job's share, at the price of reading the edges once per job.
    pub jobs: u32,
}

impl CdPlan {
    /// A plan with the default number of ranges: four per core, so every core has work and no
    /// range holds much more than its share.
    pub fn new(window: Option<u32>) -> CdPlan {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        CdPlan { window, ranges: 4 * cores, jobs: 1 }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdSummary {
    /// Papers written (one row each).
    pub papers: u64,
    /// Papers with a publication time.
    pub timed: u64,
    /// Whether windows were measured on dates (else years).
    pub dated: bool,
    /// The ranges the focal papers were cut into.
    pub ranges: u32,
    /// The separate queries the ranges ran as.
    pub jobs: u32,
    /// The window, in years.
    pub window: Option<u32>,
}

/// The papers' timeline and time span, read from the papers table.
struct Timeline {
    dated: bool,
    first: i64,
    last: i64,
    timed: u64,
}

fn timeline(session: &Session) -> Result<Timeline> {
    // The graph's rule: dates when some paper has one and every paper with a year has one.
    let batches = session.collect(
        "SELECT count(date) AS dates, \
                count(CASE WHEN year IS NOT NULL AND date IS NULL THEN 1 END) AS undated FROM papers",
    )?;
    let counts = first_row(&batches, session)?;
    let dated = counts[0] > 0 && counts[1] == 0;
    let stamp = stamp_expression(dated);
    let batches = session.collect(&format!(
        "SELECT coalesce(min({stamp}), 0) AS first, coalesce(max({stamp}), 0) AS last, count({stamp}) AS timed FROM papers"
    ))?;
    let span = first_row(&batches, session)?;
    Ok(Timeline { dated, first: span[0], last: span[1], timed: span[2] as u64 })
}

/// The int64 values of the first row of an answer.
fn first_row(batches: &[datafusion::arrow::record_batch::RecordBatch], session: &Session) -> Result<Vec<i64>> {
    let batch = batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .ok_or_else(|| table_error(session.dir(), "the papers table gave no answer"))?;
    batch
        .columns()
        .iter()
        .map(|column| {
            let column = cast(column, &DataType::Int64)?;
            Ok(column.as_primitive::<Int64Type>().value(0))
        })
        .collect()
}

/// A paper's time stamp in SQL: days since 1970 on a dated timeline, else the year.
fn stamp_expression(dated: bool) -> &'static str {
    if dated { "CAST(date AS BIGINT)" } else { "CAST(year AS BIGINT)" }
}

/// The ranges' common width in stamp units.
fn range_width(plan: CdPlan, line: &Timeline) -> i64 {
    let ranges = i64::from(plan.ranges.max(1));
    (((line.last - line.first + 1) + ranges - 1) / ranges).max(1)
}

/// The staged edges, each in the file of the job whose focal papers cite it (by the citing
/// paper's time) ...
const BY_CITING: &str = "cd_edges_by_citing";
/// ... and in the file of the job whose focal papers it cites (by the cited paper's time).
const BY_CITED: &str = "cd_edges_by_cited";

/// The papers with a time stamp, as a CTE named `stamped`.
fn stamped_cte(line: &Timeline) -> String {
    let stamp = stamp_expression(line.dated);
    format!("stamped AS (SELECT node, {stamp} AS t FROM papers WHERE {stamp} IS NOT NULL)")
}

/// The one pass over the edges: every citation between two timed papers (a citation to itself
/// left out) with both papers' times. Every row a job counts is one of these: a reference needs
/// its cited paper's time, a citation its citing paper's. A paper's range is not staged: the
/// jobs compute it from the time (a column less to write and read twice).
fn staged_edges_sql(line: &Timeline) -> String {
    format!(
        "WITH {stamped}
        SELECT e.citing, e.cited, a.t AS t_citing, b.t AS t_cited
        FROM edges e JOIN stamped a ON e.citing = a.node JOIN stamped b ON e.cited = b.node
        WHERE e.citing <> e.cited",
        stamped = stamped_cte(line)
    )
}

/// One job's SQL: the values of the focal papers in `ranges`, from the `papers` table and the
/// staged edges. The job's literal time bounds select the staged files it reads: its references
/// and the citations to its references from the edges filed by citing paper (its own files and
/// those of its window), the citations to its focal papers (of any time up to the window's end:
/// the I-index counts earlier citers too) from the edges filed by cited paper (its own file).
/// A staged edge whose citing (cited) paper lies within the job's bounds cites (is cited by) one
/// of its focal papers, in the range of that paper's time, so neither needs a join with them.
///
/// `needed` lists, once per range, the references whose citations the range counts: every cited
/// paper except the range's own focal papers (their citations come through `focal_citations`),
/// told apart by the reference's time alone. A (range, paper) pair is one whole number, the
/// paper's node times the job's ranges plus the range's place among them (nodes are below 2³²,
/// a job's ranges far below 2³¹): DataFusion makes one whole-number column distinct through its
/// faster single-column path, where a pair of columns took 6% of a 10M / 100M run's CPU.
///
/// `needed` is empty for the corpus's first range (no earlier paper to cite), which Ballista's
/// static planner, the one litnav's client uses (`cluster::client`), runs as any other stage.
fn job_sql(plan: CdPlan, line: &Timeline, ranges: std::ops::Range<i64>) -> String {
    let width = range_width(plan, line);
    let first = line.first;
    let (job_first, job_last) = (first + ranges.start * width, first + ranges.end * width - 1);
    // A conservative window length in stamp units; the kernel applies the exact end.
    let reach = match plan.window {
        None => None,
        Some(years) if line.dated => Some(i64::from(years) * 366 + 1),
        Some(years) => Some(i64::from(years)),
    };
    let (upper, job_upper) = match reach {
        None => (String::new(), String::new()),
        Some(reach) => (
            format!("AND e.t_citing <= s.last + {reach}"),
            format!("AND e.t_citing <= {}", job_last.saturating_add(reach)),
        ),
    };
    let window = plan.window.map_or(-1, i64::from);
    format!(
        "WITH {stamped},
        focal AS (
            SELECT node, t, (t - {first}) / {width} AS range FROM stamped WHERE t BETWEEN {job_first} AND {job_last}
        ),
        spans AS (
            SELECT range, min(t) AS first, max(t) AS last FROM focal GROUP BY range
        ),
        refs AS (
            SELECT (e.t_citing - {first}) / {width} AS range, e.citing, e.cited, e.t_cited
            FROM {BY_CITING} e WHERE e.t_citing BETWEEN {job_first} AND {job_last}
        ),
        needed AS (
            SELECT DISTINCT r.cited * {span} + (r.range - {range0}) AS slot
            FROM refs r WHERE (r.t_cited - {first}) / {width} <> r.range
        ),
        focal_citations AS (
            SELECT s.range, e.citing, e.cited, e.t_citing
            FROM {BY_CITED} e JOIN spans s ON (e.t_cited - {first}) / {width} = s.range
            WHERE e.t_cited BETWEEN {job_first} AND {job_last} {upper} {job_upper}
        ),
        reference_citations AS (
            SELECT s.range, e.citing, e.cited, e.t_citing
            FROM needed n JOIN spans s ON {range0} + n.slot % {span} = s.range JOIN {BY_CITING} e ON e.cited = n.slot / {span}
            WHERE e.t_citing > s.first AND e.t_citing > {job_first} {upper} {job_upper}
        ),
        kernel_rows AS (
            SELECT range, CAST(2 AS BIGINT) AS kind, node AS x, CAST(0 AS BIGINT) AS y, t FROM focal
            UNION ALL SELECT range, CAST(0 AS BIGINT), citing, cited, t_cited FROM refs
            UNION ALL SELECT range, CAST(1 AS BIGINT), citing, cited, t_citing FROM focal_citations
            UNION ALL SELECT range, CAST(1 AS BIGINT), citing, cited, t_citing FROM reference_citations
        ),
        per_range AS (
            SELECT range,
                   {KERNEL}(kind, x, y, t, CAST({window} AS BIGINT), {dated}) AS answers
            FROM kernel_rows GROUP BY range
        ),
        results AS (
            SELECT unnest(answers) AS r FROM per_range
        )
        SELECT r['node'] AS node, r['n_i'] AS n_i, r['n_j'] AS n_j, r['n_k'] AS n_k,
               r['references'] AS \"references\", r['i_index'] AS i_index, r['cd'] AS cd,
               r['cd_nok'] AS cd_nok, r['mcd'] AS mcd, r['undefined'] AS undefined
        FROM results",
        stamped = stamped_cte(line),
        dated = line.dated,
        range0 = ranges.start,
        span = (ranges.end - ranges.start).max(1),
    )
}

/// The table the jobs' parts are registered as.
const PARTS: &str = "cd_parts";

/// The result: every paper with its values from the jobs' parts (`no_year` when it has no time).
fn result_sql() -> String {
    format!(
        "SELECT p.node, p.id,
               coalesce(f.n_i, CAST(0 AS BIGINT UNSIGNED)) AS n_i,
               coalesce(f.n_j, CAST(0 AS BIGINT UNSIGNED)) AS n_j,
               coalesce(f.n_k, CAST(0 AS BIGINT UNSIGNED)) AS n_k,
               coalesce(f.\"references\", CAST(0 AS BIGINT UNSIGNED)) AS \"references\",
               coalesce(f.i_index, CAST(0 AS BIGINT UNSIGNED)) AS i_index,
               f.cd, f.cd_nok, f.mcd,
               CASE WHEN f.node IS NULL THEN 'no_year' ELSE f.undefined END AS undefined
        FROM papers p LEFT JOIN {PARTS} f ON p.node = f.node"
    )
}

/// Compute the CD index of every paper of the session's tables and write `out/cd.parquet`:
/// `node`, `id`, `n_i`, `n_j`, `n_k`, `references`, `i_index` (uint64), `cd`, `cd_nok`, `mcd`
/// (float64, null when undefined) and `undefined` (why not: `no_citations` or `no_year`).
///
/// The ranges run as [`CdPlan::jobs`] separate queries, one after another; a last query joins
/// their papers' values with every paper ([`Session::write_in_jobs`]).
pub fn compute(session: &Session, plan: CdPlan, out: &Path) -> Result<CdSummary> {
    let line = timeline(session)?;
    let occupied = occupied_ranges(session, plan, &line)?;
    let shares: Vec<std::ops::Range<i64>> = kernel::shares(occupied.len() as u32, plan.jobs)
        .into_iter()
        .filter(|run| !occupied.is_empty() && !run.is_empty())
        .collect();
    // A staged edge's papers are timed, so their ranges are occupied ones; a range's job is the
    // share holding its place among them, looked up by the paper's time for every staged edge.
    let width = range_width(plan, &line);
    let job_by_range: Vec<usize> = (0..occupied.last().map_or(0, |&last| last + 1))
        .map(|range| shares.partition_point(|run| run.end <= occupied.partition_point(|&r| r < range) as i64))
        .collect();
    let job_of_time =
        |t: i64| usize::try_from((t - line.first) / width).ok().and_then(|r| job_by_range.get(r).copied());
    std::fs::create_dir_all(out).map_err(crate::io_error(out))?;
    let work = tempfile::Builder::new().prefix(".cd-stages-").tempdir_in(out).map_err(crate::io_error(out))?;
    let tables = [(BY_CITING, "t_citing"), (BY_CITED, "t_cited")];
    session.stage_split(&staged_edges_sql(&line), work.path(), &tables, job_of_time)?;
    let queries: Vec<String> = shares
        .iter()
        .map(|run| job_sql(plan, &line, occupied[run.start as usize]..occupied[run.end as usize - 1] + 1))
        .collect();
    let summary = CdSummary {
        papers: 0,
        timed: line.timed,
        dated: line.dated,
        ranges: plan.ranges.max(1),
        jobs: queries.len() as u32,
        window: plan.window,
    };
    let jobs = Jobs { queries, shape: job_sql(plan, &line, 0..1), parts: PARTS, result: result_sql() };
    let papers = session.write_in_jobs(jobs, out, RESULT, metadata(plan.window))?;
    Ok(CdSummary { papers, ..summary })
}

/// The ranges holding at least one focal paper, ascending (a corpus's years can leave gaps, and
/// the last ranges of a rounded-up width are empty).
fn occupied_ranges(session: &Session, plan: CdPlan, line: &Timeline) -> Result<Vec<i64>> {
    let stamp = stamp_expression(line.dated);
    let (first, width) = (line.first, range_width(plan, line));
    let batches = session.collect(&format!(
        "SELECT DISTINCT CAST(({stamp} - {first}) / {width} AS BIGINT) AS range FROM papers \
         WHERE {stamp} IS NOT NULL ORDER BY range"
    ))?;
    let mut ranges = Vec::new();
    for batch in &batches {
        let column = cast(batch.column(0), &DataType::Int64)?;
        ranges.extend(column.as_primitive::<Int64Type>().iter().flatten());
    }
    Ok(ranges)
}

/// The footer key naming the window a `cd.parquet` was computed with.
pub const WINDOW_KEY: &str = "litnav.cd.window";

/// A result file's footer: the window (`none` when unbounded).
pub(crate) fn metadata(window: Option<u32>) -> Vec<(String, String)> {
    vec![(WINDOW_KEY.to_string(), window.map_or_else(|| "none".to_string(), |w| w.to_string()))]
}

/// A `cd.parquet` read back: the window it was computed with and every paper's values.
#[derive(Debug, Clone, PartialEq)]
pub struct CdResults {
    /// The window in years (None: unbounded).
    pub window: Option<u32>,
    /// Each paper id with its disruption.
    pub rows: Vec<(String, Disruption)>,
}

/// Read a `cd.parquet` written by [`compute`] (or the in-memory engine).
pub fn read(path: &Path) -> Result<CdResults> {
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).map_err(crate::io_error(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
    let window = footer_value(builder.metadata(), path, WINDOW_KEY, "a litnav CD result")?;
    let window = match window.as_str() {
        "none" => None,
        years => Some(years.parse().map_err(|_| table_error(path, format!("`{WINDOW_KEY}` is `{years}`")))?),
    };
    let reader = builder.build()?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch?;
        let count = |name: &str| typed_column::<UInt64Type>(&batch, path, name);
        let value = |name: &str| typed_column::<Float64Type>(&batch, path, name);
        let ids = text_column(&batch, path, "id")?;
        let (n_i, n_j, n_k, references, i_index) =
            (count("n_i")?, count("n_j")?, count("n_k")?, count("references")?, count("i_index")?);
        let (cd, cd_nok, mcd) = (value("cd")?, value("cd_nok")?, value("mcd")?);
        let undefined = text_column(&batch, path, "undefined")?;
        for row in 0..batch.num_rows() {
            let optional = |array: &Float64Array| array.is_valid(row).then(|| array.value(row));
            let why = if undefined.is_valid(row) {
                Some(disruption::Undefined::from_name(undefined.value(row)).ok_or_else(|| {
                    table_error(path, format!("row {row}: `undefined` is `{}`", undefined.value(row)))
                })?)
            } else {
                None
            };
            rows.push((
                ids.value(row).to_string(),
                Disruption {
                    n_i: n_i.value(row),
                    n_j: n_j.value(row),
                    n_k: n_k.value(row),
                    references: references.value(row),
                    cd: optional(&cd),
                    cd_nok: optional(&cd_nok),
                    i_index: i_index.value(row),
                    mcd: optional(&mcd),
                    undefined: why,
                },
            ));
        }
    }
    Ok(CdResults { window, rows })
}

/// The value columns of a result (`n_i` … `undefined`), as [`value_columns`] builds them —
/// shared by the kernel's rows and the in-memory engine's result file.
pub(crate) fn value_fields() -> Vec<Field> {
    let count = |name: &str| Field::new(name, DataType::UInt64, false);
    let value = |name: &str| Field::new(name, DataType::Float64, true);
    vec![
        count("n_i"),
        count("n_j"),
        count("n_k"),
        count("references"),
        count("i_index"),
        value("cd"),
        value("cd_nok"),
        value("mcd"),
        Field::new("undefined", DataType::Utf8, true),
    ]
}

/// The value columns of a result (`n_i` … `undefined`), typed as [`value_fields`] — shared by
/// the kernel and the in-memory engine's writer.
pub(crate) fn value_columns(rows: &[&Disruption]) -> Vec<ArrayRef> {
    let counts =
        |get: fn(&Disruption) -> u64| -> ArrayRef { Arc::new(rows.iter().map(|d| get(d)).collect::<UInt64Array>()) };
    let floats = |get: fn(&Disruption) -> Option<f64>| -> ArrayRef {
        Arc::new(rows.iter().map(|d| get(d)).collect::<Float64Array>())
    };
    vec![
        counts(|d| d.n_i),
        counts(|d| d.n_j),
        counts(|d| d.n_k),
        counts(|d| d.references),
        counts(|d| d.i_index),
        floats(|d| d.cd),
        floats(|d| d.cd_nok),
        floats(|d| d.mcd),
        Arc::new(rows.iter().map(|d| d.undefined.map(disruption::Undefined::name)).collect::<StringArray>()),
    ]
}
