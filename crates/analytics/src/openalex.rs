//! An OpenAlex snapshot as the columnar corpus: the snapshot's partitioned works
//! (`works/updated_date=…/part_*.gz`, JSON lines) read file by file in parallel — each file
//! streamed into its own Parquet part of `papers/` and `edges/`, so memory stays at a batch per
//! thread whatever the snapshot's size. Abstracts are rebuilt from their inverted indexes,
//! publication dates kept as dates, and every referenced work kept as an edge (references to
//! works outside the snapshot are ignored by the analytics). A work's `node` is the number of its
//! id (`W2741809807` → 2741809807).
//!
//! OpenAlex writes each work into the partition of its last update; a work found in two files
//! is refused by the in-memory engine's loader and counted twice by SQL, so a snapshot is taken
//! as OpenAlex publishes it, not merged with another.

use crate::export::PaperRows;
use crate::tables::{BATCH_ROWS, TableWriter, edges_batch};
use crate::{Error, Result, io_error, schema};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What a snapshot held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Ingested {
    /// Snapshot files read.
    pub files: u64,
    /// Works written.
    pub works: u64,
    /// Reference edges written.
    pub edges: u64,
}

/// The works files of a snapshot: `DIR/data/works`, `DIR/works` or `DIR` itself, each holding
/// `updated_date=…/part_*.gz` (or `.json`/`.jsonl`) files. Sorted, so part numbers are stable.
pub fn works_files(snapshot: &Path) -> Result<Vec<PathBuf>> {
    let root = [snapshot.join("data/works"), snapshot.join("works")]
        .into_iter()
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| snapshot.to_path_buf());
    let mut files = Vec::new();
    for partition in std::fs::read_dir(&root).map_err(io_error(&root))? {
        let partition = partition.map_err(io_error(&root))?.path();
        let is_partition = partition.file_name().is_some_and(|n| n.to_string_lossy().starts_with("updated_date="));
        if !partition.is_dir() || !is_partition {
            continue;
        }
        for file in std::fs::read_dir(&partition).map_err(io_error(&partition))? {
            let file = file.map_err(io_error(&partition))?.path();
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with("part_")
                && (name.ends_with(".gz") || name.ends_with(".json") || name.ends_with(".jsonl"))
            {
                files.push(file);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::Table {
            path: root,
            message: "no works here: expected updated_date=…/part_*.gz files (an OpenAlex snapshot's data/works)"
                .into(),
        });
    }
    Ok(files)
}

/// The number of an OpenAlex work id (`W2741809807`, or its URL).
pub fn work_number(id: &str) -> Option<i64> {
    let short = id.trim().rsplit('/').next()?;
    let digits = short.strip_prefix('W').or_else(|| short.strip_prefix('w'))?;
    digits.parse().ok().filter(|&n: &i64| n > 0)
}

/// Read every works file of `snapshot` on `threads` threads into `out` (`papers/` and `edges/`,
/// one part per snapshot file). The tables appear whole or not at all: they are written into a
/// temporary directory beside `out`, renamed into place at the end.
pub fn ingest_snapshot(snapshot: &Path, out: &Path, threads: usize) -> Result<Ingested> {
    let files = works_files(snapshot)?;
    if out.exists() && std::fs::read_dir(out).map_err(io_error(out))?.next().is_some() {
        return Err(Error::Table {
            path: out.to_path_buf(),
            message: "exists and is not empty; choose a new directory".into(),
        });
    }
    let partial = out.with_file_name(format!(
        ".{}.partial",
        out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "tables".into())
    ));
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(io_error(&partial))?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::Cluster(format!("cannot start {threads} threads: {e}")))?;
    let parts: Vec<Result<Ingested>> = pool.install(|| {
        use rayon::prelude::*;
        files.par_iter().enumerate().map(|(i, file)| ingest_file(file, &partial, i)).collect()
    });
    let mut total = Ingested::default();
    for part in parts {
        let part = part?;
        total.files += part.files;
        total.works += part.works;
        total.edges += part.edges;
    }
    if out.exists() {
        std::fs::remove_dir(out).map_err(io_error(out))?;
    }
    std::fs::rename(&partial, out).map_err(io_error(out))?;
    Ok(total)
}

/// One snapshot file into part `part` of the papers and edges tables.
fn ingest_file(file: &Path, dir: &Path, part: usize) -> Result<Ingested> {
    let stem = format!("part-{part:05}");
    let mut papers = TableWriter::create(&dir.join(schema::PAPERS), &stem, schema::papers())?;
    let mut edges = TableWriter::create(&dir.join(schema::EDGES), &stem, schema::edges())?;
    let mut rows = PaperRows::default();
    let (mut citing, mut cited) = (Vec::with_capacity(BATCH_ROWS), Vec::with_capacity(BATCH_ROWS));
    let mut counts = Ingested { files: 1, ..Ingested::default() };
    let mut failure: Option<Error> = None;
    let outcome = litnav_corpus::readers::for_each_openalex_work(file, |paper, references| {
        let id = paper.ids.get("openalex").cloned().unwrap_or_default();
        let Some(node) = work_number(&id) else {
            return Err(litnav_corpus::Error::BadFile {
                file: file.to_path_buf(),
                message: format!(
                    "work {} has the id `{id}`, not an OpenAlex work id (W followed by digits)",
                    counts.works + 1
                ),
            });
        };
        rows.push_with_id(Some(node), &id, &paper);
        counts.works += 1;
        for reference in references.iter().filter_map(|r| work_number(r)) {
            citing.push(node);
            cited.push(reference);
            counts.edges += 1;
        }
        let flushed = (|| -> Result<()> {
            if rows.len() >= BATCH_ROWS {
                papers.write(&rows.finish()?)?;
            }
            if citing.len() >= BATCH_ROWS {
                edges.write(&edges_batch(std::mem::take(&mut citing), std::mem::take(&mut cited))?)?;
            }
            Ok(())
        })();
        flushed.map_err(|e| {
            failure = Some(e);
            // Stops the reading; the failure above is what is reported.
            litnav_corpus::Error::BadFile { file: file.to_path_buf(), message: "writing its tables failed".into() }
        })
    });
    if let Some(failure) = failure {
        return Err(failure);
    }
    outcome?;
    if rows.len() > 0 {
        papers.write(&rows.finish()?)?;
    }
    if !citing.is_empty() {
        edges.write(&edges_batch(citing, cited)?)?;
    }
    papers.finish()?;
    edges.finish()?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_numbers() {
        assert_eq!(work_number("W2741809807"), Some(2_741_809_807));
        assert_eq!(work_number("https://openalex.org/W12"), Some(12));
        for bad in ["A123", "W", "Wx1", "", "W-5", "W0"] {
            assert_eq!(work_number(bad), None, "{bad}");
        }
    }
}
