//! litnav's corpus: the paper model, readers for the formats papers arrive in, deduplication by
//! title, and the versioned, atomically written corpus directory.
//!
//! ```no_run
//! use litnav_corpus::{ingest_files, ReadOptions};
//! # fn main() -> litnav_corpus::Result<()> {
//! let outcome = ingest_files(
//!     std::path::Path::new("my-corpus"),
//!     &["../shared/datasets/litbench/corpus.jsonl".into()],
//!     ReadOptions::default(),
//!     |_staging, _papers| Ok(vec![]),
//! )?;
//! println!("{} papers", outcome.manifest.papers);
//! # Ok(()) }
//! ```

pub mod catalog;
pub mod error;
mod json;
pub mod normalize;
pub mod paper;
pub mod readers;
pub mod records;
pub mod store;

pub use catalog::{Catalog, MergeReport};
pub use error::{Error, Location, Result};
pub use normalize::{title_id, title_key};
pub use paper::{IdOrigin, NOT_RESEARCH, Paper, Topic, looks_like_survey};
pub use readers::{Format, ReadOptions};
pub use records::PaperScan;
pub use store::{Corpus, FORMAT_VERSION, Lease, Manifest, Writer};

use std::path::{Path, PathBuf};

/// What [`ingest_files`] did.
#[derive(Debug)]
pub struct IngestOutcome {
    /// The manifest of the generation now current.
    pub manifest: Manifest,
    /// Merge counts.
    pub report: MergeReport,
    /// Per input file: its path, the format it was read as, and the malformed records skipped.
    pub files: Vec<(PathBuf, Format, Vec<Error>)>,
}

/// Where [`ingest_files`]' artifact builder writes, and what it may carry over.
#[derive(Debug, Clone, Copy)]
pub struct Staging<'a> {
    /// The directory the next generation is built in.
    pub dir: &'a Path,
    /// The current generation's directory (`None` for a new corpus). It is read under the write
    /// lock, so artifacts carried over from it (citation contexts, say) cannot be lost to a
    /// concurrent ingest.
    pub previous: Option<&'a Path>,
    /// The topics of the next generation.
    pub topics: &'a [Topic],
}

/// Read `files`, merge them into the corpus at `dir` (creating it if needed; waiting while another
/// process writes it) and commit a new generation. `build_artifacts` is called, under the corpus's
/// write lock, with the staging
/// directory (and the current generation's) and the final papers, and returns the names of the
/// artifacts it wrote there (the search index, for instance); if it fails, nothing is committed
/// and the corpus stays as it was.
pub fn ingest_files(
    dir: &Path,
    files: &[PathBuf],
    options: ReadOptions,
    build_artifacts: impl FnOnce(Staging<'_>, &[Paper]) -> Result<Vec<String>>,
) -> Result<IngestOutcome> {
    // Read everything before taking the lock: a bad file fails fast and touches nothing.
    let mut items = Vec::new();
    let mut read = Vec::new();
    for file in files {
        let mut contents = readers::read_file(file, options)?;
        if items.is_empty() {
            items = std::mem::take(&mut contents.items);
        } else {
            items.append(&mut contents.items);
        }
        read.push((file.clone(), contents.format.unwrap_or(Format::Papers), contents.skipped));
    }
    // Papers before edges and topics across files, so edge lists may precede their paper files.
    items.sort_by_key(|item| match item {
        readers::Item::Paper(_) => 0,
        readers::Item::Edge(_) => 1,
        readers::Item::Topic(_) => 2,
    });
    // Another ingest into the same corpus finishes first; this one then builds on its result.
    let (mut writer, previous) = Writer::begin_waiting(dir)?;
    let (papers, topics) = previous.map(Corpus::into_parts).transpose()?.unwrap_or_default();
    let mut catalog = Catalog::new(papers, topics);
    let mut report = MergeReport::default();
    catalog.merge(items, &mut report);
    let (papers, topics) = catalog.into_parts();
    writer.write_records(&papers, &topics)?;
    let staging = Staging { dir: writer.staging_dir(), previous: writer.previous_dir(), topics: &topics };
    for artifact in build_artifacts(staging, &papers)? {
        writer.add_artifact(&artifact);
    }
    let manifest = writer.commit(&papers, &topics)?;
    Ok(IngestOutcome { manifest, report, files: read })
}
