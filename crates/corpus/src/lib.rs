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
//!     |_staging| Ok(vec![]),
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
pub use readers::{FileRead, Format, ReadOptions, for_each_item};
pub use records::{Counts, PaperFacts, PaperLines, PaperScan, Records};
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

/// Where [`ingest_files`]' artifact builder writes, and what it may read.
#[derive(Clone, Copy)]
pub struct Staging<'a> {
    /// The directory the next generation is built in.
    pub dir: &'a Path,
    /// The current generation's directory (`None` for a new corpus). It is read under the write
    /// lock, so artifacts carried over from it (citation contexts, say) cannot be lost to a
    /// concurrent ingest.
    pub previous: Option<&'a Path>,
    /// The topics of the next generation.
    pub topics: &'a [Topic],
    /// The papers of the next generation, as written, read from disk one at a time.
    pub records: &'a records::Records,
    /// The merge that made them: which paper a record became, a paper by identifier.
    pub catalog: &'a Catalog,
}

/// The catalog's spill file in the staging directory (removed before the commit).
const SPILL: &str = ".catalog.spill";

/// Read `files`, merge them into the corpus at `dir` (creating it if needed; waiting while another
/// process writes it) and commit a new generation. `build_artifacts` is called, under the corpus's
/// write lock, with the staging directory (and the current generation's), the papers written
/// and the merge's catalog, and returns the names of the artifacts it wrote there (the search
/// index, for instance); if it fails, nothing is committed and the corpus stays as it was.
///
/// Memory: the records are streamed from the files into a catalog that keeps its papers in a
/// spill file ([`Catalog::on_disk`]), then written one at a time; what stays in memory is the
/// catalog's lookup tables, the edge and topic records, and the records' index as it is built.
pub fn ingest_files(
    dir: &Path,
    files: &[PathBuf],
    options: ReadOptions,
    build_artifacts: impl FnOnce(Staging<'_>) -> Result<Vec<String>>,
) -> Result<IngestOutcome> {
    // Every file's format is told before the lock is taken: a file litnav cannot read fails fast.
    if options.format.is_none() {
        for file in files {
            readers::detect(file)?;
        }
    }
    // Another ingest into the same corpus finishes first; this one then builds on its result.
    let (mut writer, previous) = Writer::begin_waiting(dir)?;
    let topics = previous.as_ref().map(|corpus| corpus.topics().to_vec()).unwrap_or_default();
    let mut catalog = Catalog::on_disk(&writer.staging_dir().join(SPILL), topics)?;
    if let Some(previous) = previous {
        previous.scan(|_, paper| catalog.add_existing(paper.clone()))?;
    }
    let mut report = MergeReport::default();
    let (mut waiting, mut read) = (catalog::Waiting::default(), Vec::new());
    // Papers before edges and topics across files, so edge lists may precede their paper files.
    for file in files {
        let found = readers::for_each_item(file, options, |item| catalog.take(item, &mut waiting, &mut report))?;
        read.push((file.clone(), found.format, found.skipped));
    }
    catalog.settle(waiting, &mut report);
    let topics = catalog.topics().to_vec();
    writer.write_records(&topics, |lines| catalog.for_each(|_, paper| lines.push(&paper)))?;
    let records = records::Records::open(writer.staging_dir(), catalog.len())?;
    let staging = Staging {
        dir: writer.staging_dir(),
        previous: writer.previous_dir(),
        topics: &topics,
        records: &records,
        catalog: &catalog,
    };
    let artifacts = build_artifacts(staging)?;
    drop(records);
    // The spill file goes before the generation is synced and renamed into place.
    drop(catalog);
    for artifact in artifacts {
        writer.add_artifact(&artifact);
    }
    let manifest = writer.commit()?;
    Ok(IngestOutcome { manifest, report, files: read })
}
