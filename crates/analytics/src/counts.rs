//! Citation counts and their percentile ranks as a plan: each paper's in-corpus citations and
//! references (the edges the in-memory graph keeps: both ends in the papers table, no
//! self-citations, repeats once), and the percentile rank of its citations among every paper's
//! as SciPy's `percentileofscore(kind="mean")` gives it — the in-memory `PercentileTable`'s
//! formula, `50 × (below + at_or_below) / n`, with the same floating-point operations.
//!
//! The rank needs, for each count, how many papers have fewer and how many at most as many: the
//! plan takes them from the histogram of counts (one row per distinct count — thousands, not
//! millions), so no step orders all papers on one partition.

use crate::Result;
use crate::engine::Session;
use crate::tables::{table_error, text_column, typed_column};
use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use serde::Serialize;
use std::path::Path;

/// The result table's file stem (`counts.parquet`).
pub const RESULT: &str = "counts";

/// One paper's counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Counts {
    /// Papers of the corpus citing it.
    pub citations: i64,
    /// Papers of the corpus it cites.
    pub references: i64,
    /// Percentile rank of its citations among every paper's, in [0, 100].
    pub citation_percentile: f64,
}

const PLAN: &str = "WITH linked AS (
        SELECT DISTINCT e.citing, e.cited
        FROM edges e JOIN papers a ON e.citing = a.node JOIN papers b ON e.cited = b.node
        WHERE e.citing <> e.cited
    ),
    cited AS (SELECT cited AS node, count(*) AS citations FROM linked GROUP BY cited),
    citing AS (SELECT citing AS node, count(*) AS refs FROM linked GROUP BY citing),
    per_paper AS (
        SELECT p.node, p.id, coalesce(c.citations, 0) AS citations, coalesce(r.refs, 0) AS refs
        FROM papers p LEFT JOIN cited c ON p.node = c.node LEFT JOIN citing r ON p.node = r.node
    ),
    histogram AS (SELECT citations, count(*) AS papers FROM per_paper GROUP BY citations),
    cumulative AS (
        SELECT citations, papers,
               sum(papers) OVER (ORDER BY citations ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS at_or_below
        FROM histogram
    ),
    total AS (SELECT sum(papers) AS n FROM histogram)
    SELECT p.node, p.id, CAST(p.citations AS BIGINT) AS citations, CAST(p.refs AS BIGINT) AS \"references\",
           50.0 * CAST((h.at_or_below - h.papers) + h.at_or_below AS DOUBLE) / CAST(t.n AS DOUBLE)
               AS citation_percentile
    FROM per_paper p JOIN cumulative h ON p.citations = h.citations CROSS JOIN total t";

/// Every paper's counts from the session's tables, written as `out/counts.parquet` (`node`,
/// `id`, `citations`, `references`, `citation_percentile`); returns the papers written.
pub fn compute(session: &Session, out: &Path) -> Result<u64> {
    session.write(PLAN, out, RESULT, Vec::new())
}

/// Read a `counts.parquet`: each paper id with its counts.
pub fn read(path: &Path) -> Result<Vec<(String, Counts)>> {
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).map_err(crate::io_error(path))?;
    let mut rows = Vec::new();
    for batch in ParquetRecordBatchReaderBuilder::try_new(file)?.build()? {
        let batch = batch?;
        let ids = text_column(&batch, path, "id")?;
        let citations = typed_column::<Int64Type>(&batch, path, "citations")?;
        let references = typed_column::<Int64Type>(&batch, path, "references")?;
        let percentiles = typed_column::<Float64Type>(&batch, path, "citation_percentile")?;
        for row in 0..batch.num_rows() {
            if ids.is_null(row) || citations.is_null(row) || references.is_null(row) || percentiles.is_null(row) {
                return Err(table_error(path, format!("row {row} of a batch has an empty value")));
            }
            rows.push((
                ids.value(row).to_string(),
                Counts {
                    citations: citations.value(row),
                    references: references.value(row),
                    citation_percentile: percentiles.value(row),
                },
            ));
        }
    }
    Ok(rows)
}
