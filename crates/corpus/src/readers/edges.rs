//! Citation edge lists: CSV with a header naming the columns `citing_id` and `cited_id` (in any
//! order; other columns are ignored), one edge per row, as in `datasets/citations/*/citations.csv`.

use super::{EdgeRecord, Item, Sink, at};
use crate::error::{Error, Result};
use std::path::Path;

pub(crate) fn read(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    let text = super::lines::read_to_string(path)?;
    let mut reader = csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| Error::BadRecord { at: at(path, 1, None), message: format!("bad CSV header: {e}") })?;
    let column = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let (Some(citing), Some(cited)) = (column("citing_id"), column("cited_id")) else {
        return Err(Error::BadRecord {
            at: at(path, 1, None),
            message: format!(
                "the header must name the columns `citing_id` and `cited_id`, found `{}`",
                headers.iter().collect::<Vec<_>>().join(",")
            ),
        });
    };
    for row in reader.records() {
        let outcome = match row {
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                Err(Error::BadRecord { at: at(path, line, None), message: format!("bad CSV row: {e}") })
            }
            Ok(row) => {
                let line = row.position().map_or(0, |p| p.line() as usize);
                edge(path, line, row.get(citing), row.get(cited)).map(|e| vec![Item::Edge(e)])
            }
        };
        sink.take(outcome)?;
    }
    Ok(())
}

fn edge(path: &Path, line: usize, citing: Option<&str>, cited: Option<&str>) -> Result<EdgeRecord> {
    let need = |value: Option<&str>, field: &str| match value {
        Some(v) if !v.is_empty() => Ok(v.to_string()),
        _ => Err(Error::BadRecord {
            at: at(path, line, Some(field)),
            message: "is empty; an edge needs both ids".into(),
        }),
    };
    Ok(EdgeRecord { citing: need(citing, "citing_id")?, cited: need(cited, "cited_id")?, at: at(path, line, None) })
}
