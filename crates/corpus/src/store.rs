//! The corpus directory: versioned, written atomically, one writer at a time.
//!
//! ```text
//! DIR/
//!   manifest.json        format name, format version, current generation, counts
//!   .lock                held (flock) by the one process writing
//!   gen-000003/          the current generation
//!     papers.jsonl       one Paper per line, in ingest order
//!     topics.jsonl       one Topic per line
//!     lexical/           the BM25 index (written by litnav-search)
//! ```
//!
//! A write builds the next generation in `gen-NNNNNN.staging/`, syncs it, renames it into place,
//! then atomically replaces `manifest.json` (write to a temporary file, sync, rename). Whatever
//! instant a writer is killed at, `manifest.json` names a complete generation: the previous one
//! or the new one. Leftover staging directories and superseded generations are removed by the
//! next writer.

use crate::error::{Error, Result, io_at};
use crate::paper::{Paper, Topic};
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The corpus format this build reads and writes. Bump it whenever a file in a generation
/// changes meaning; older litnav builds then refuse the directory instead of misreading it.
pub const FORMAT_VERSION: u32 = 1;
const FORMAT_NAME: &str = "litnav-corpus";
const MANIFEST: &str = "manifest.json";
const PAPERS: &str = "papers.jsonl";
const TOPICS: &str = "topics.jsonl";

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
}

/// A corpus loaded from its directory.
#[derive(Debug)]
pub struct Corpus {
    dir: PathBuf,
    manifest: Manifest,
    papers: Vec<Paper>,
    topics: Vec<Topic>,
}

impl Corpus {
    /// Read a corpus's manifest and return it with the current generation's directory. Cheap:
    /// commands that need only an artifact (the search index) use this.
    pub fn locate(dir: &Path) -> Result<(Manifest, PathBuf)> {
        let manifest = read_manifest(dir)?;
        let generation = generation_dir(dir, manifest.generation);
        if !generation.is_dir() {
            return Err(Error::NotACorpus {
                dir: dir.to_path_buf(),
                message: format!(
                    "manifest.json names generation {} but {} is missing",
                    manifest.generation,
                    generation.display()
                ),
            });
        }
        Ok((manifest, generation))
    }

    /// Load a corpus: manifest, papers and topics.
    pub fn open(dir: &Path) -> Result<Corpus> {
        let (manifest, generation) = Self::locate(dir)?;
        let papers = read_jsonl(&generation.join(PAPERS))?;
        let topics = read_jsonl(&generation.join(TOPICS))?;
        Ok(Corpus { dir: dir.to_path_buf(), manifest, papers, topics })
    }

    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The current generation's directory.
    pub fn generation_dir(&self) -> PathBuf {
        generation_dir(&self.dir, self.manifest.generation)
    }

    /// Papers in ingest order.
    pub fn papers(&self) -> &[Paper] {
        &self.papers
    }

    /// Topics in ingest order.
    pub fn topics(&self) -> &[Topic] {
        &self.topics
    }

    /// Take the records out.
    pub fn into_parts(self) -> (Vec<Paper>, Vec<Topic>) {
        (self.papers, self.topics)
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
    artifacts: Vec<String>,
}

impl Writer {
    /// Lock `dir` (creating it if needed) and prepare the next generation. Returns the corpus as
    /// it is now, if there is one.
    pub fn begin(dir: &Path) -> Result<(Writer, Option<Corpus>)> {
        fs::create_dir_all(dir).map_err(io_at(dir))?;
        let lock_path = dir.join(".lock");
        let lock =
            File::options().create(true).truncate(false).write(true).open(&lock_path).map_err(io_at(&lock_path))?;
        if lock.try_lock().is_err() {
            return Err(Error::Locked { dir: dir.to_path_buf() });
        }
        let previous = if exists(dir) {
            Some(Corpus::open(dir)?)
        } else {
            // Refuse to write into a directory holding anything but litnav's own leftovers.
            let foreign = fs::read_dir(dir).map_err(io_at(dir))?.filter_map(|e| e.ok()).any(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name != ".lock"
                    && !name.starts_with("manifest.tmp")
                    && !(name.starts_with("gen-") && name.ends_with(".staging"))
            });
            if foreign {
                return Err(Error::NotACorpus {
                    dir: dir.to_path_buf(),
                    message: "is not empty and holds no litnav corpus (no manifest.json); use a new or empty directory"
                        .into(),
                });
            }
            None
        };
        remove_stale(dir, previous.as_ref().map(|c| c.manifest.generation))?;
        let generation = previous.as_ref().map_or(1, |c| c.manifest.generation + 1);
        let staging = dir.join(format!("{}.staging", generation_name(generation)));
        fs::create_dir_all(&staging).map_err(io_at(&staging))?;
        Ok((Writer { dir: dir.to_path_buf(), _lock: lock, generation, staging, artifacts: Vec::new() }, previous))
    }

    /// The directory the next generation is built in; artifact writers put their files here.
    pub fn staging_dir(&self) -> &Path {
        &self.staging
    }

    /// Record that an artifact (a subdirectory of the staging directory) was written.
    pub fn add_artifact(&mut self, name: &str) {
        self.artifacts.push(name.to_string());
    }

    /// Write the records of the next generation.
    pub fn write_records(&self, papers: &[Paper], topics: &[Topic]) -> Result<()> {
        write_jsonl(&self.staging.join(PAPERS), papers)?;
        write_jsonl(&self.staging.join(TOPICS), topics)
    }

    /// Make the staged generation current. `papers`/`topics` are the records written.
    pub fn commit(self, papers: &[Paper], topics: &[Topic]) -> Result<Manifest> {
        sync_tree(&self.staging)?;
        let target = generation_dir(&self.dir, self.generation);
        if target.exists() {
            fs::remove_dir_all(&target).map_err(io_at(&target))?;
        }
        fs::rename(&self.staging, &target).map_err(io_at(&target))?;
        sync_dir(&self.dir)?;
        let manifest = Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            generation: self.generation,
            written_by: format!("litnav {}", env!("CARGO_PKG_VERSION")),
            papers: papers.len(),
            topics: topics.len(),
            edges: papers.iter().map(|p| p.references.len()).sum(),
            external_references: papers.iter().map(|p| p.external_references.len()).sum(),
            artifacts: self.artifacts.clone(),
        };
        let text = serde_json::to_string_pretty(&manifest).map_err(|e| internal(&self.dir, e))?;
        write_atomically(&self.dir.join(MANIFEST), text.as_bytes())?;
        remove_stale(&self.dir, Some(self.generation))?;
        Ok(manifest)
    }
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
        let message = if dir.is_dir() {
            "is not a litnav corpus (no manifest.json); create one with `litnav ingest --corpus DIR FILE...`"
                .to_string()
        } else {
            "does not exist; create a corpus with `litnav ingest --corpus DIR FILE...`".to_string()
        };
        return Err(Error::NotACorpus { dir: dir.to_path_buf(), message });
    }
    let text = fs::read_to_string(&path).map_err(io_at(&path))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::NotACorpus { dir: dir.to_path_buf(), message: format!("manifest.json is damaged: {e}") })?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT_NAME) {
        return Err(Error::NotACorpus {
            dir: dir.to_path_buf(),
            message: "manifest.json does not describe a litnav corpus".into(),
        });
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
    serde_json::from_value(value)
        .map_err(|e| Error::NotACorpus { dir: dir.to_path_buf(), message: format!("manifest.json is damaged: {e}") })
}

fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let file = File::open(path).map_err(io_at(path))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let line = line.map_err(io_at(path))?;
        if line.is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line).map_err(|e| Error::NotACorpus {
            dir: path.to_path_buf(),
            message: format!("line {} is damaged: {e}", i + 1),
        })?;
        out.push(record);
    }
    Ok(out)
}

fn write_jsonl<T: Serialize>(path: &Path, records: &[T]) -> Result<()> {
    let file = File::create(path).map_err(io_at(path))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    for record in records {
        serde_json::to_writer(&mut writer, record).map_err(|e| internal(path, e))?;
        writer.write_all(b"\n").map_err(io_at(path))?;
    }
    writer.flush().map_err(io_at(path))
}

/// Write `bytes` to `path` so that readers see either the old file or the whole new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = File::create(&tmp).map_err(io_at(&tmp))?;
    file.write_all(bytes).map_err(io_at(&tmp))?;
    file.sync_all().map_err(io_at(&tmp))?;
    fs::rename(&tmp, path).map_err(io_at(path))?;
    // A bare file name has an empty parent: the current directory.
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => sync_dir(parent),
        _ => sync_dir(Path::new(".")),
    }
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

/// Remove staging directories and generations other than `keep` (call only under the lock).
fn remove_stale(dir: &Path, keep: Option<u64>) -> Result<()> {
    let keep = keep.map(generation_name);
    for entry in fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        let name = entry.file_name().to_string_lossy().to_string();
        let stale_tmp = name.starts_with("manifest.tmp");
        let stale_generation = name.starts_with("gen-") && Some(&name) != keep.as_ref();
        if stale_tmp {
            fs::remove_file(entry.path()).map_err(io_at(entry.path()))?;
        } else if stale_generation {
            fs::remove_dir_all(entry.path()).map_err(io_at(entry.path()))?;
        }
    }
    Ok(())
}

fn internal(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.to_path_buf(), source: std::io::Error::other(e.to_string()) }
}
