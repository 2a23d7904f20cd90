//! The corpus directory: versioned, written atomically, one writer at a time.
//!
//! ```text
//! DIR/
//!   manifest.json        format name, format version, current generation, counts
//!   .lock                held (flock) by the one process writing
//!   gen-000003/          the current generation
//!     papers.jsonl       one Paper per line, in ingest order
//!     papers.index       where each line starts and an id table (see [`crate::records`])
//!     papers.facts       every paper's year and survey flag, eight bytes a paper
//!     topics.jsonl       one Topic per line
//!     lexical/           the BM25 index (written by litnav-search)
//! ```
//!
//! A write builds the next generation in `gen-NNNNNN.staging/`, syncs it, renames it into place,
//! then atomically replaces `manifest.json` (write to a temporary file, sync, rename). Whatever
//! instant a writer is killed at, `manifest.json` names a complete generation: the previous one
//! or the new one.
//!
//! **Readers keep their generation.** Every generation holds a `.lease` file; a reader ([`Corpus`])
//! holds a shared `flock` on it for as long as it lives, so a long-running reader (a server, a
//! benchmark) keeps reading the generation it opened, whole, while writers commit newer ones — as
//! tantivy keeps segment files alive for open searchers. Superseded generations are collected by
//! writers (after each commit and when the next write begins) only when no reader holds them: the
//! collector takes the lease exclusively, renames the directory away (so no reader can open it
//! any more) and deletes it. A reader that lost the race to a collector finds its generation gone
//! once it gets the lock, and opens the current one instead.

use crate::error::{Error, Result, damaged, io_at};
use crate::paper::{Paper, Topic};
use crate::records::{self, Counts, PaperLines, Records};
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The corpus format this build reads and writes. Bump it whenever a file in a generation
/// changes meaning; older litnav builds then refuse the directory instead of misreading it.
pub const FORMAT_VERSION: u32 = 1;
const FORMAT_NAME: &str = "litnav-corpus";
const MANIFEST: &str = "manifest.json";
const TOPICS: &str = "topics.jsonl";
const LEASE: &str = ".lease";
/// How often a reader re-reads the manifest when collectors keep removing the generation it named.
const OPEN_ATTEMPTS: usize = 8;

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `litnav-corpus`.
    pub format: String,
    /// The format version ([`FORMAT_VERSION`] when written by this build).
    pub version: u32,
    /// The current generation number.
    pub generation: u64,
    /// The litnav version that wrote it.
    pub written_by: String,
    /// Number of papers.
    pub papers: usize,
    /// Number of topics.
    pub topics: usize,
    /// In-corpus citation edges.
    pub edges: usize,
    /// References to works outside the corpus.
    pub external_references: usize,
    /// Artifacts present in the generation besides the records (e.g. `lexical`).
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// Papers by their source's work type (`article`, `paratext`, …), for those that have one:
    /// what a map leaves out is counted from here, not from every record. Absent in manifests
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<std::collections::BTreeMap<String, usize>>,
}

/// A corpus opened from its directory: its manifest and topics read, its papers read from disk
/// when asked for (one by position or id, a streaming scan, or all at once for the commands that
/// need them all). It holds a [`Lease`] on its generation for as long as it lives.
pub struct Corpus {
    dir: PathBuf,
    manifest: Manifest,
    records: Records,
    /// Every paper, once a caller asked for them all.
    all: std::sync::OnceLock<Vec<Paper>>,
    /// The papers decoded one at a time, by position, kept for the corpus's life (a paper asked
    /// for twice is decoded once, and borrowed by callers).
    decoded: elsa::sync::FrozenMap<usize, Box<Paper>>,
    topics: Vec<Topic>,
    lease: Lease,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus").field("dir", &self.dir).field("manifest", &self.manifest).finish_non_exhaustive()
    }
}

/// A reader's hold on one generation: while any clone lives, writers do not delete the
/// generation's directory. Artifacts read lazily (the citation graph, say) come from the leased
/// generation, so a reader never mixes two generations.
#[derive(Debug, Clone)]
pub struct Lease {
    _file: std::sync::Arc<File>,
    generation: u64,
    dir: PathBuf,
}

impl Lease {
    /// Take a lease on the current generation of the corpus at `dir`, and return it with the
    /// manifest that names it.
    pub fn acquire(dir: &Path) -> Result<(Lease, Manifest)> {
        for _ in 0..OPEN_ATTEMPTS {
            let (manifest, generation) = Corpus::locate(dir)?;
            let path = generation.join(LEASE);
            // Generations written before leases existed get their file now.
            let file = match File::options().read(true).write(true).create(true).truncate(false).open(&path) {
                Ok(file) => file,
                // The generation was collected between reading the manifest and opening the file.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_at(&path)(e)),
            };
            file.lock_shared().map_err(io_at(&path))?;
            if same_file(&file, &path) {
                return Ok((
                    Lease { _file: std::sync::Arc::new(file), generation: manifest.generation, dir: generation },
                    manifest,
                ));
            }
        }
        Err(Error::Busy { dir: dir.to_path_buf() })
    }

    /// The leased generation's number.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The leased generation's directory (where its artifacts are).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Whether the open `file` is still the one at `path` (a collector may have removed it).
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.ino() == named.ino() && open.dev() == named.dev(),
        _ => false,
    }
}

impl Corpus {
    /// Read a corpus's manifest and return it with the current generation's directory. Cheap:
    /// commands that need only an artifact (the search index) use this.
    pub fn locate(dir: &Path) -> Result<(Manifest, PathBuf)> {
        let manifest = read_manifest(dir)?;
        let generation = generation_dir(dir, manifest.generation);
        if !generation.is_dir() {
            let message = format!(
                "manifest.json names generation {} but {} is missing",
                manifest.generation,
                generation.display()
            );
            return Err(damaged(dir, message));
        }
        Ok((manifest, generation))
    }

    /// Open a corpus: its manifest, topics and the index of its papers in the current
    /// generation, which stays on disk for as long as the returned value (or a clone of its
    /// [`Lease`]) lives. No paper is read yet.
    pub fn open(dir: &Path) -> Result<Corpus> {
        let (lease, manifest) = Lease::acquire(dir)?;
        let records = Records::open(lease.dir(), manifest.papers)?;
        let topics: Vec<Topic> = read_jsonl(&lease.dir().join(TOPICS))?;
        // A file cut at a line boundary still parses: the manifest's counts catch it.
        if topics.len() != manifest.topics {
            let path = lease.dir().join(TOPICS);
            let message =
                format!("holds {} records, manifest.json says {} were written", topics.len(), manifest.topics);
            return Err(damaged(&path, message));
        }
        let (all, decoded) = (std::sync::OnceLock::new(), elsa::sync::FrozenMap::new());
        Ok(Corpus { dir: dir.to_path_buf(), manifest, records, all, decoded, topics, lease })
    }

    /// The lease on this corpus's generation (clone it to keep the generation while reading its
    /// artifacts after the records are dropped).
    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// This corpus's generation directory (the one it was read from, kept while it lives).
    pub fn generation_dir(&self) -> PathBuf {
        self.lease.dir().to_path_buf()
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when the corpus holds no paper.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Every paper in ingest order, read from disk on the first call and kept: for commands that
    /// need them all (statistics, exports, ingest). Others read papers by id or position.
    pub fn papers(&self) -> Result<&[Paper]> {
        if let Some(all) = self.all.get() {
            return Ok(all);
        }
        let mut papers = Vec::with_capacity(self.records.len());
        self.records.scan(|_, paper| {
            papers.push(paper);
            Ok(())
        })?;
        Ok(self.all.get_or_init(|| papers))
    }

    /// The paper at `position` in ingest order.
    pub fn paper_at(&self, position: usize) -> Result<&Paper> {
        if let Some(all) = self.all.get()
            && let Some(paper) = all.get(position)
        {
            return Ok(paper);
        }
        if let Some(paper) = self.decoded.get(&position) {
            return Ok(paper);
        }
        let paper = self.records.get(position)?;
        Ok(self.decoded.insert(position, Box::new(paper)))
    }

    /// The position of the paper with this id, if the corpus holds it.
    pub fn position(&self, id: &str) -> Result<Option<usize>> {
        self.records.position(id)
    }

    /// Every paper's year and survey flag ([`Records::facts`]).
    pub fn facts(&self) -> Result<crate::records::PaperFacts> {
        self.records.facts()
    }

    /// Another handle on this generation's records, for a reader that outlives this borrow (hold
    /// [`Corpus::lease`] beside it, so that no writer collects the generation).
    pub fn records(&self) -> Result<Records> {
        self.records.reopen()
    }

    /// The position of the paper a person names by an identifier ([`crate::normalize::identifier`]:
    /// a DOI, an OpenAlex id, an arXiv id with or without its version), if the corpus holds it.
    pub fn position_of_identifier(&self, text: &str) -> Result<Option<usize>> {
        let Some((kind, value)) = crate::normalize::identifier(text) else { return Ok(None) };
        if let Some(position) = self.records.position_by(kind, &value)? {
            return Ok(Some(position));
        }
        let versionless = crate::normalize::arxiv_without_version(&value);
        if kind == "arxiv" && versionless != value {
            return self.records.position_by(kind, versionless);
        }
        Ok(None)
    }

    /// The paper with this id, if the corpus holds it.
    pub fn paper(&self, id: &str) -> Result<Option<&Paper>> {
        self.position(id)?.map(|position| self.paper_at(position)).transpose()
    }

    /// Every paper in ingest order, each handed to `each` and dropped after it (memory: one
    /// paper), unless all are already read.
    pub fn scan(&self, mut each: impl FnMut(usize, &Paper) -> Result<()>) -> Result<()> {
        match self.all.get() {
            Some(all) => all.iter().enumerate().try_for_each(|(position, paper)| each(position, paper)),
            None => self.records.scan(|position, paper| each(position, &paper)),
        }
    }

    /// Topics in ingest order.
    pub fn topics(&self) -> &[Topic] {
        &self.topics
    }

    /// How many papers a map leaves out by their type ([`Paper::kept_in_maps`]): counted from
    /// the manifest's types, or from every record for a corpus written before it kept them.
    pub fn left_out_of_maps(&self, include: Option<&[String]>) -> Result<usize> {
        if let Some(types) = &self.manifest.types {
            let left_out = types.iter().filter(|(work_type, _)| !crate::paper::type_kept_in_maps(work_type, include));
            return Ok(left_out.map(|(_, count)| count).sum());
        }
        let mut left_out = 0;
        self.scan(|_, paper| {
            left_out += usize::from(!paper.kept_in_maps(include));
            Ok(())
        })?;
        Ok(left_out)
    }
}

/// True when `dir` holds a corpus manifest (of any version).
pub fn exists(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
}

/// The single writer of a corpus directory, holding its lock until dropped or committed.
#[derive(Debug)]
pub struct Writer {
    dir: PathBuf,
    _lock: File,
    generation: u64,
    staging: PathBuf,
    previous: Option<PathBuf>,
    artifacts: Vec<String>,
    /// What [`Writer::write_records`] wrote: its counts, and the number of topics.
    written: Option<(Counts, usize)>,
}

impl Writer {
    /// Lock `dir` (creating it if needed) and prepare the next generation. Returns the corpus as
    /// it is now, if there is one. Fails with [`Error::Locked`] when another writer holds the
    /// lock.
    pub fn begin(dir: &Path) -> Result<(Writer, Option<Corpus>)> {
        Self::begin_with(dir, false)
    }

    /// [`Writer::begin`], waiting for another writer to finish instead of failing: two ingests
    /// into one corpus then run one after the other, the second building on the first's result.
    pub fn begin_waiting(dir: &Path) -> Result<(Writer, Option<Corpus>)> {
        Self::begin_with(dir, true)
    }

    fn begin_with(dir: &Path, wait: bool) -> Result<(Writer, Option<Corpus>)> {
        fs::create_dir_all(dir).map_err(io_at(dir))?;
        let lock_path = dir.join(".lock");
        let lock =
            File::options().create(true).truncate(false).write(true).open(&lock_path).map_err(io_at(&lock_path))?;
        if wait {
            lock.lock().map_err(io_at(&lock_path))?;
        } else if lock.try_lock().is_err() {
            return Err(Error::Locked { dir: dir.to_path_buf() });
        }
        let previous = if exists(dir) {
            Some(Corpus::open(dir)?)
        } else {
            // Refuse to write into a directory holding anything but litnav's own leftovers.
            let foreign = fs::read_dir(dir).map_err(io_at(dir))?.filter_map(|e| e.ok()).any(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name != ".lock"
                    && !is_leftover_manifest(&name)
                    && !(name.starts_with("gen-") && (name.ends_with(".staging") || name.ends_with(".trash")))
            });
            if foreign {
                let message =
                    "is not empty and holds no litnav corpus (no manifest.json); use a new or empty directory";
                return Err(Error::NotACorpus { dir: dir.to_path_buf(), message: message.into(), missing: false });
            }
            None
        };
        remove_stale(dir, previous.as_ref().map(|c| c.manifest.generation))?;
        // Above every generation left on disk (one a crashed writer renamed into place and a
        // reader still holds is kept by `remove_stale`), so the commit's target is always new.
        let left = highest_generation(dir)?.unwrap_or(0);
        let generation = previous.as_ref().map_or(1, |c| c.manifest.generation + 1).max(left + 1);
        let staging = dir.join(format!("{}.staging", generation_name(generation)));
        fs::create_dir_all(&staging).map_err(io_at(&staging))?;
        let lease = staging.join(LEASE);
        File::create(&lease).map_err(io_at(&lease))?;
        let previous_dir = previous.as_ref().map(Corpus::generation_dir);
        let writer = Writer {
            dir: dir.to_path_buf(),
            _lock: lock,
            generation,
            staging,
            previous: previous_dir,
            artifacts: Vec::new(),
            written: None,
        };
        Ok((writer, previous))
    }

    /// The directory the next generation is built in; artifact writers put their files here.
    pub fn staging_dir(&self) -> &Path {
        &self.staging
    }

    /// The current generation's directory, whose artifacts (read under this writer's lock) the
    /// next generation may carry over; `None` for a new corpus.
    pub fn previous_dir(&self) -> Option<&Path> {
        self.previous.as_deref()
    }

    /// Record that an artifact (a subdirectory of the staging directory) was written.
    pub fn add_artifact(&mut self, name: &str) {
        self.artifacts.push(name.to_string());
    }

    /// Write the records of the next generation: the papers `fill` hands to its [`PaperLines`]
    /// (written one at a time, with the index of their lines), and `topics`.
    pub fn write_records(&mut self, topics: &[Topic], fill: impl FnOnce(&mut PaperLines) -> Result<()>) -> Result<()> {
        let mut lines = PaperLines::create(&self.staging)?;
        fill(&mut lines)?;
        self.written = Some((lines.finish()?, topics.len()));
        records::write_lines(&self.staging.join(TOPICS), topics).map(|_| ())
    }

    /// Make the staged generation current, with the records [`Writer::write_records`] wrote.
    pub fn commit(self) -> Result<Manifest> {
        let Some((counts, topics)) = self.written.clone() else {
            return Err(internal(&self.dir, "a generation was committed before its records were written"));
        };
        sync_tree(&self.staging)?;
        let target = generation_dir(&self.dir, self.generation);
        if target.exists() {
            // Never replaced: a reader may hold it. `begin` chose a number above every one on
            // disk, so only a process that ignores the write lock can get here.
            return Err(Error::Busy { dir: self.dir.clone() });
        }
        fs::rename(&self.staging, &target).map_err(io_at(&target))?;
        sync_dir(&self.dir)?;
        let manifest = Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            generation: self.generation,
            written_by: format!("litnav {}", env!("CARGO_PKG_VERSION")),
            papers: counts.papers,
            topics,
            edges: counts.edges,
            external_references: counts.external_references,
            artifacts: self.artifacts.clone(),
            types: Some(counts.types),
        };
        let text = serde_json::to_string_pretty(&manifest).map_err(|e| internal(&self.dir, e))?;
        write_atomically(&self.dir.join(MANIFEST), text.as_bytes())?;
        remove_stale(&self.dir, Some(self.generation))?;
        Ok(manifest)
    }
}

/// A writer that stops before its commit (an input error, an artifact that failed) takes its
/// staging directory with it; one killed instead leaves it to the next writer, which removes it.
impl Drop for Writer {
    fn drop(&mut self) {
        if self.staging.exists() {
            let _ = fs::remove_dir_all(&self.staging);
        }
    }
}

/// The highest number of a generation directory in `dir` (not counting staging or trash).
fn highest_generation(dir: &Path) -> Result<Option<u64>> {
    let mut highest = None;
    for entry in fs::read_dir(dir).map_err(io_at(dir))? {
        let name = entry.map_err(io_at(dir))?.file_name();
        let number = name.to_str().and_then(|n| n.strip_prefix("gen-")).and_then(|n| n.parse::<u64>().ok());
        highest = highest.max(number);
    }
    Ok(highest)
}

fn generation_name(generation: u64) -> String {
    format!("gen-{generation:06}")
}

fn generation_dir(dir: &Path, generation: u64) -> PathBuf {
    dir.join(generation_name(generation))
}

fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        let message = if dir.is_dir() { "is not a litnav corpus (no manifest.json)" } else { "does not exist" };
        return Err(Error::NotACorpus { dir: dir.to_path_buf(), message: message.into(), missing: true });
    }
    let text = fs::read_to_string(&path).map_err(io_at(&path))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| damaged(dir, format!("manifest.json is damaged: {e}")))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT_NAME) {
        return Err(damaged(dir, "manifest.json does not describe a litnav corpus".into()));
    }
    let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
    if version != FORMAT_VERSION {
        let advice = if version > FORMAT_VERSION {
            "it was written by a newer litnav: upgrade litnav to read it"
        } else {
            "it was written by an older litnav: re-ingest its source files into a new directory"
        };
        return Err(Error::Version { dir: dir.to_path_buf(), found: version, supported: FORMAT_VERSION, advice });
    }
    serde_json::from_value(value).map_err(|e| damaged(dir, format!("manifest.json is damaged: {e}")))
}

fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let file = File::open(path).map_err(io_at(path))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let line = line.map_err(io_at(path))?;
        if line.is_empty() {
            continue;
        }
        let record =
            serde_json::from_str(&line).map_err(|e| damaged(path, format!("line {} is damaged: {e}", i + 1)))?;
        out.push(record);
    }
    Ok(out)
}

/// Write `bytes` to `path` so that readers see either the old file or the whole new one
/// ([`litnav_core::files::write_atomically`]), an error naming the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    litnav_core::files::write_atomically(path, bytes).map_err(io_at(path))
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(io_at(dir))
}

fn sync_tree(dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir).map_err(io_at(dir))? {
        let path = entry.map_err(io_at(dir))?.path();
        if path.is_dir() {
            sync_tree(&path)?;
        } else {
            File::open(&path).and_then(|f| f.sync_all()).map_err(io_at(&path))?;
        }
    }
    sync_dir(dir)
}

/// A temporary manifest a crash left (today's name, or the `manifest.tmp<pid>` of older versions).
fn is_leftover_manifest(name: &str) -> bool {
    name.starts_with("manifest.tmp") || litnav_core::files::is_temporary_of(name, MANIFEST)
}

/// Remove leftovers (temporary manifests, staging directories, half-deleted generations) and
/// the generations other than `keep` that no reader holds (call only under the write lock). A
/// generation a reader still leases stays, to be collected by a later writer.
fn remove_stale(dir: &Path, keep: Option<u64>) -> Result<()> {
    let keep = keep.map(generation_name);
    for entry in fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        let name = entry.file_name().to_string_lossy().to_string();
        let path = entry.path();
        if is_leftover_manifest(&name) {
            fs::remove_file(&path).map_err(io_at(&path))?;
        } else if name.starts_with("gen-") && (name.ends_with(".staging") || name.ends_with(".trash")) {
            fs::remove_dir_all(&path).map_err(io_at(&path))?;
        } else if name.starts_with("gen-") && Some(&name) != keep.as_ref() {
            collect_generation(&path)?;
        }
    }
    Ok(())
}

/// Delete a superseded generation unless a reader leases it.
fn collect_generation(path: &Path) -> Result<()> {
    let lease_path = path.join(LEASE);
    let lease = match File::options().read(true).write(true).create(true).truncate(false).open(&lease_path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_at(&lease_path)(e)),
    };
    if lease.try_lock().is_err() {
        return Ok(()); // a reader holds it
    }
    // Renamed away first, under the exclusive lock: a reader that opened the lease file before
    // this point finds it gone once it gets its lock, and no reader can open it after.
    let trash = path.with_extension("trash");
    fs::rename(path, &trash).map_err(io_at(path))?;
    fs::remove_dir_all(&trash).map_err(io_at(&trash))
}

fn internal(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.to_path_buf(), source: std::io::Error::other(e.to_string()) }
}
