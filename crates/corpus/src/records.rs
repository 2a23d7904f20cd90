//! A generation's papers read from disk one at a time: what opening a corpus costs is what a
//! command touches, not what the corpus holds.
//!
//! `papers.jsonl` keeps one paper per line, as before. Beside it, `papers.index` (written with the
//! records) lets a reader find a paper's line without reading the others:
//!
//! ```text
//! magic     8 bytes   "LNRECIX1"
//! count     u64       papers
//! keys      u64       external ids indexed
//! offsets   (count + 1) × u64   where each paper's line starts in papers.jsonl; the last is its length
//! ids       count × (u64, u64)  (FNV-1a of the id, position), sorted
//! external  keys × (u64, u64)   (FNV-1a of "kind:value", position), sorted: DOI, OpenAlex, arXiv
//! ```
//!
//! `papers.facts` holds what filters read of every paper — its year and survey flag — so that a
//! reader filtering millions of papers (the dense index) reads eight bytes a paper instead of
//! every record: the magic `LNFACTS1`, the count (u64), then per paper its year (i32, `i32::MIN`
//! when unknown), its flags (bit 0: a survey) and three bytes of zeros.
//!
//! All numbers are little-endian. Reads are positioned reads (`pread`) through the page cache, so
//! a process holds no part of the corpus but the papers it decoded. A generation written before
//! the index existed, or one whose index does not match its records, gets the same index built
//! in memory from one pass over `papers.jsonl` (derived data is rebuilt, not reported; the
//! records themselves are checked as they are read).

use crate::error::{Result, damaged, io_at};
use crate::paper::Paper;
use litnav_core::bytes::fnv1a;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The records file of a generation.
pub const PAPERS: &str = "papers.jsonl";
/// The index beside it.
pub const INDEX: &str = "papers.index";
/// Every paper's year and survey flag, eight bytes a paper (see [`PaperFacts`]).
pub const FACTS: &str = "papers.facts";
const FACTS_MAGIC: &[u8; 8] = b"LNFACTS1";
/// A year unknown, in the facts file.
const NO_YEAR: i32 = i32::MIN;
const MAGIC: &[u8; 8] = b"LNRECIX1";
const HEADER: u64 = 24;
/// The external ids a paper can be looked up by (those the catalog matches duplicates by).
const EXTERNAL: [&str; 3] = ["doi", "openalex", "arxiv"];

/// Writes `papers.jsonl` and `papers.index` together, one paper at a time: the offsets are
/// counted as lines are written, and what the manifest counts is counted on the way.
pub struct PaperLines {
    path: PathBuf,
    index: PathBuf,
    writer: BufWriter<File>,
    at: u64,
    line: Vec<u8>,
    offsets: Vec<u64>,
    ids: Vec<(u64, u64)>,
    external: Vec<(u64, u64)>,
    facts: BufWriter<File>,
    facts_path: PathBuf,
    counts: Counts,
}

/// What the papers written hold, for the manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Papers.
    pub papers: usize,
    /// In-corpus citation edges.
    pub edges: usize,
    /// References to works outside the corpus.
    pub external_references: usize,
    /// Papers per work type, for those whose source gives one.
    pub types: BTreeMap<String, usize>,
}

impl PaperLines {
    /// Start the records of the generation in `dir`.
    pub(crate) fn create(dir: &Path) -> Result<PaperLines> {
        let path = dir.join(PAPERS);
        let file = File::create(&path).map_err(io_at(&path))?;
        let facts_path = dir.join(FACTS);
        let mut facts = BufWriter::with_capacity(1 << 20, File::create(&facts_path).map_err(io_at(&facts_path))?);
        // The count goes after the magic once it is known (see `finish`).
        facts.write_all(&[FACTS_MAGIC.as_slice(), &[0u8; 8]].concat()).map_err(io_at(&facts_path))?;
        Ok(PaperLines {
            facts,
            facts_path,
            writer: BufWriter::with_capacity(1 << 20, file),
            path,
            index: dir.join(INDEX),
            at: 0,
            line: Vec::new(),
            offsets: Vec::new(),
            ids: Vec::new(),
            external: Vec::new(),
            counts: Counts::default(),
        })
    }

    /// Append one paper.
    pub fn push(&mut self, paper: &Paper) -> Result<()> {
        let position = self.offsets.len() as u64;
        self.offsets.push(self.at);
        self.line.clear();
        serde_json::to_writer(&mut self.line, paper).map_err(|e| io_at(&self.path)(e.into()))?;
        self.line.push(b'\n');
        self.writer.write_all(&self.line).map_err(io_at(&self.path))?;
        self.at += self.line.len() as u64;
        self.ids.push((id_hash(&paper.id), position));
        self.external.extend(external_hashes(&paper.ids).map(|hash| (hash, position)));
        let mut fact = [0u8; 8];
        fact[..4].copy_from_slice(&paper.year.unwrap_or(NO_YEAR).to_le_bytes());
        fact[4] = u8::from(paper.is_survey);
        self.facts.write_all(&fact).map_err(io_at(&self.facts_path))?;
        let counts = &mut self.counts;
        counts.papers += 1;
        counts.edges += paper.references.len();
        counts.external_references += paper.external_references.len();
        if let Some(work_type) = &paper.work_type {
            *counts.types.entry(work_type.clone()).or_insert(0) += 1;
        }
        Ok(())
    }

    /// Write the index beside the lines; what was written.
    pub(crate) fn finish(mut self) -> Result<Counts> {
        self.offsets.push(self.at);
        self.writer.flush().map_err(io_at(&self.path))?;
        self.ids.sort_unstable();
        self.external.sort_unstable();
        write_index(&self.index, &self.offsets, &self.ids, &self.external)?;
        let mut facts = self.facts.into_inner().map_err(|e| io_at(&self.facts_path)(e.into_error()))?;
        facts.flush().map_err(io_at(&self.facts_path))?;
        facts.write_all_at(&(self.counts.papers as u64).to_le_bytes(), 8).map_err(io_at(&self.facts_path))?;
        Ok(self.counts)
    }
}

/// Write `records` to `path` as JSON, one per line; returns where each line starts and, last, the
/// file's length.
pub(crate) fn write_lines<T: serde::Serialize>(path: &Path, records: &[T]) -> Result<Vec<u64>> {
    let file = File::create(path).map_err(io_at(path))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let mut offsets = Vec::with_capacity(records.len() + 1);
    let (mut at, mut line) = (0u64, Vec::new());
    for record in records {
        offsets.push(at);
        line.clear();
        serde_json::to_writer(&mut line, record).map_err(|e| io_at(path)(e.into()))?;
        line.push(b'\n');
        writer.write_all(&line).map_err(io_at(path))?;
        at += line.len() as u64;
    }
    offsets.push(at);
    writer.flush().map_err(io_at(path))?;
    Ok(offsets)
}

fn write_index(path: &Path, offsets: &[u64], ids: &[(u64, u64)], external: &[(u64, u64)]) -> Result<()> {
    let file = File::create(path).map_err(io_at(path))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let pairs = ids.iter().chain(external).flat_map(|&(h, p)| [h, p]);
    let numbers = [ids.len() as u64, external.len() as u64].into_iter().chain(offsets.iter().copied()).chain(pairs);
    writer.write_all(MAGIC).map_err(io_at(path))?;
    for number in numbers {
        writer.write_all(&number.to_le_bytes()).map_err(io_at(path))?;
    }
    writer.flush().map_err(io_at(path))
}

fn id_hash(id: &str) -> u64 {
    fnv1a(id.as_bytes())
}

/// The hashes of a paper's external ids (those of [`EXTERNAL`] it has).
fn external_hashes(ids: &BTreeMap<String, String>) -> impl Iterator<Item = u64> + '_ {
    EXTERNAL.iter().filter_map(|kind| ids.get(*kind).map(|value| external_hash(kind, value)))
}

fn external_hash(kind: &str, value: &str) -> u64 {
    fnv1a(format!("{kind}:{value}").as_bytes())
}

/// Every paper's year and survey flag, in corpus order: what filters read, without the papers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaperFacts {
    /// Years (`None`: unknown).
    pub years: Vec<Option<i32>>,
    /// Survey flags.
    pub surveys: Vec<bool>,
}

/// The facts file at `path` for `count` papers: `None` when it is missing or was written for
/// another count (then derived again from the records); an error when it cannot be read.
fn read_facts(path: &Path, count: usize) -> Result<Option<PaperFacts>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_at(path)(e)),
    };
    let fits = bytes.len() == 16 + 8 * count && bytes.starts_with(FACTS_MAGIC) && u64_of(&bytes[8..]) == count as u64;
    if !fits {
        return Ok(None);
    }
    let mut facts = PaperFacts { years: Vec::with_capacity(count), surveys: Vec::with_capacity(count) };
    for fact in bytes[16..].chunks_exact(8) {
        let year = i32::from_le_bytes([fact[0], fact[1], fact[2], fact[3]]);
        facts.years.push((year != NO_YEAR).then_some(year));
        facts.surveys.push(fact[4] & 1 == 1);
    }
    Ok(Some(facts))
}

/// Where the offsets and the id table are: the index file, or memory for a generation without one.
#[derive(Debug)]
enum Index {
    File { file: File, external: u64 },
    Memory { offsets: Vec<u64>, ids: Vec<(u64, u64)>, external: Vec<(u64, u64)> },
}

/// The two sorted tables of an index.
#[derive(Clone, Copy)]
enum Table {
    Ids,
    External,
}

/// The papers of one generation, read by position or id from disk.
#[derive(Debug)]
pub struct Records {
    path: PathBuf,
    file: File,
    /// The records file's length: no line read from it ends past it.
    length: u64,
    count: usize,
    index: Index,
}

impl Records {
    /// Open the records of the generation in `dir`, which its manifest says hold `count` papers.
    pub fn open(dir: &Path, count: usize) -> Result<Records> {
        let path = dir.join(PAPERS);
        let file = File::open(&path).map_err(io_at(&path))?;
        let length = file.metadata().map_err(io_at(&path))?.len();
        let index = match open_index(&dir.join(INDEX), count, length) {
            Some((file, external)) => Index::File { file, external },
            None => index_in_memory(&path, &file)?,
        };
        let records = Records { path, file, length, count, index };
        if let Index::Memory { ids, .. } = &records.index
            && ids.len() != count
        {
            // A file cut at a line boundary still parses: the manifest's count catches it.
            let message = format!("holds {} records, manifest.json says {count} were written", ids.len());
            return Err(damaged(&records.path, message));
        }
        Ok(records)
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The paper at `position` (in ingest order), decoded from its line.
    pub fn get(&self, position: usize) -> Result<Paper> {
        if position >= self.count {
            return Err(damaged(&self.path, format!("has no record {} (it holds {})", position + 1, self.count)));
        }
        let (start, end) = (self.offset(position)?, self.offset(position + 1)?);
        if end <= start || end > self.length {
            let message = format!("the index places line {} at bytes {start}..{end} of {}", position + 1, self.length);
            return Err(damaged(&self.path, message));
        }
        // The byte before the line is read too: a line starts after a line feed and ends with one,
        // so an index whose offsets were damaged is caught here rather than read as another paper.
        let from = start.saturating_sub(1);
        let mut bytes = vec![0u8; (end - from) as usize];
        self.file.read_exact_at(&mut bytes, from).map_err(io_at(&self.path))?;
        let line = if start == 0 { &bytes[..] } else { &bytes[1..] };
        if (start > 0 && bytes[0] != b'\n') || line.last() != Some(&b'\n') {
            let message = format!("the index places line {} at bytes {start}..{end}, not a whole line", position + 1);
            return Err(damaged(&self.path, message));
        }
        decode(&self.path, position, line)
    }

    /// Every paper's year and survey flag: from the facts file written with the records (one
    /// read of eight bytes a paper), or, for a generation written before it, from one pass over
    /// the records.
    pub fn facts(&self) -> Result<PaperFacts> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        if let Some(facts) = read_facts(&dir.join(FACTS), self.count)? {
            return Ok(facts);
        }
        let mut facts = PaperFacts { years: Vec::with_capacity(self.count), surveys: Vec::with_capacity(self.count) };
        self.scan(|_, paper| {
            facts.years.push(paper.year);
            facts.surveys.push(paper.is_survey);
            Ok(())
        })?;
        Ok(facts)
    }

    /// Another handle on the same records (its own file handles).
    pub fn reopen(&self) -> Result<Records> {
        Records::open(self.path.parent().unwrap_or(Path::new(".")), self.count)
    }

    /// The position of the paper with this id, if the corpus holds it.
    pub fn position(&self, id: &str) -> Result<Option<usize>> {
        self.find(Table::Ids, id_hash(id), |paper| paper.id == id)
    }

    /// The position of the paper with this external id (`kind` one of `doi`, `openalex`,
    /// `arxiv`; the value as [`crate::normalize::identifier`] gives it), if the corpus holds it.
    pub fn position_by(&self, kind: &str, value: &str) -> Result<Option<usize>> {
        self.find(Table::External, external_hash(kind, value), |paper| paper.ids.get(kind).is_some_and(|v| v == value))
    }

    /// The first position in `table` under `hash` whose paper passes `check` (hashes collide).
    fn find(&self, table: Table, hash: u64, check: impl Fn(&Paper) -> bool) -> Result<Option<usize>> {
        let entries = self.entries(table);
        let first = self.partition_point(table, entries, hash)?;
        for slot in first..entries {
            let (entry_hash, position) = self.entry(table, slot)?;
            if entry_hash != hash {
                break;
            }
            let position = usize::try_from(position).unwrap_or(usize::MAX);
            if position < self.count && check(&self.get(position)?) {
                return Ok(Some(position));
            }
        }
        Ok(None)
    }

    fn entries(&self, table: Table) -> usize {
        match (table, &self.index) {
            (Table::Ids, _) => self.count,
            (Table::External, Index::File { external, .. }) => *external as usize,
            (Table::External, Index::Memory { external, .. }) => external.len(),
        }
    }

    /// Every paper in order, decoded one at a time and handed to `each`; stops at its first error.
    /// Blank lines are passed over, as the index built in memory passes over them.
    pub fn scan(&self, mut each: impl FnMut(usize, Paper) -> Result<()>) -> Result<()> {
        let mut reader = BufReader::with_capacity(1 << 20, File::open(&self.path).map_err(io_at(&self.path))?);
        let (mut line, mut position) = (Vec::new(), 0);
        while position < self.count {
            line.clear();
            if reader.read_until(b'\n', &mut line).map_err(io_at(&self.path))? == 0 {
                let message = format!("ends after {position} records, manifest.json says {} were written", self.count);
                return Err(damaged(&self.path, message));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            each(position, decode(&self.path, position, &line)?)?;
            position += 1;
        }
        Ok(())
    }

    fn offset(&self, position: usize) -> Result<u64> {
        match &self.index {
            Index::Memory { offsets, .. } => offsets
                .get(position)
                .copied()
                .ok_or_else(|| damaged(&self.path, format!("has no record {}", position + 1))),
            Index::File { file, .. } => read_u64(file, HEADER + 8 * position as u64, &self.path),
        }
    }

    fn entry(&self, table: Table, slot: usize) -> Result<(u64, u64)> {
        match (&self.index, table) {
            (Index::Memory { ids, .. }, Table::Ids) => Ok(ids[slot]),
            (Index::Memory { external, .. }, Table::External) => Ok(external[slot]),
            (Index::File { file, .. }, table) => {
                let ids_start = HEADER + 8 * (self.count as u64 + 1);
                let start = match table {
                    Table::Ids => ids_start,
                    Table::External => ids_start + 16 * self.count as u64,
                };
                let mut bytes = [0u8; 16];
                file.read_exact_at(&mut bytes, start + 16 * slot as u64).map_err(io_at(&self.path))?;
                let (hash, position) = bytes.split_at(8);
                Ok((u64_of(hash), u64_of(position)))
            }
        }
    }

    /// The first slot of `table` (of `entries`) whose hash is not below `hash` (binary search
    /// over positioned reads).
    fn partition_point(&self, table: Table, entries: usize, hash: u64) -> Result<usize> {
        let (mut low, mut high) = (0, entries);
        while low < high {
            let middle = low + (high - low) / 2;
            if self.entry(table, middle)?.0 < hash {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        Ok(low)
    }
}

/// The index file and its number of external ids, when it exists and its header and size fit the
/// records it indexes.
fn open_index(path: &Path, count: usize, records_length: u64) -> Option<(File, u64)> {
    let file = File::open(path).ok()?;
    let mut header = [0u8; HEADER as usize];
    file.read_exact_at(&mut header, 0).ok()?;
    let (magic, numbers) = header.split_at(8);
    let (written, external) = (u64_of(&numbers[..8]), u64_of(&numbers[8..]));
    let expected = (HEADER + 8 * (count as u64 + 1) + 16 * count as u64).checked_add(external.checked_mul(16)?)?;
    let fits = magic == MAGIC
        && written == count as u64
        && file.metadata().ok()?.len() == expected
        && read_u64(&file, HEADER + 8 * count as u64, path).ok()? == records_length;
    fits.then_some((file, external))
}

/// Offsets and ids from one pass over the records (a generation written before `papers.index`).
fn index_in_memory(path: &Path, file: &File) -> Result<Index> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: String,
        #[serde(default)]
        ids: BTreeMap<String, String>,
    }
    let mut reader = BufReader::with_capacity(1 << 20, file.try_clone().map_err(io_at(path))?);
    let (mut offsets, mut ids, mut line, mut at) = (vec![], vec![], Vec::new(), 0u64);
    let mut external = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(io_at(path))?;
        if read == 0 {
            break;
        }
        number += 1;
        let start = at;
        at += read as u64;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: IdOnly =
            serde_json::from_slice(&line).map_err(|e| damaged(path, format!("line {number} is damaged: {e}")))?;
        let position = offsets.len() as u64;
        external.extend(external_hashes(&record.ids).map(|hash| (hash, position)));
        offsets.push(start);
        ids.push((id_hash(&record.id), position));
    }
    // A paper's bytes run to the next paper's start: blank lines between are white space to JSON.
    offsets.push(at);
    ids.sort_unstable();
    external.sort_unstable();
    Ok(Index::Memory { offsets, ids, external })
}

fn decode(path: &Path, position: usize, line: &[u8]) -> Result<Paper> {
    serde_json::from_slice(line).map_err(|e| damaged(path, format!("line {} is damaged: {e}", position + 1)))
}

fn read_u64(file: &File, at: u64, path: &Path) -> Result<u64> {
    let mut bytes = [0u8; 8];
    file.read_exact_at(&mut bytes, at).map_err(io_at(path))?;
    Ok(u64::from_le_bytes(bytes))
}

fn u64_of(bytes: &[u8]) -> u64 {
    let mut array = [0u8; 8];
    array.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(array)
}

/// Papers in ingest order that a caller reads in passes, one paper at a time: a slice in memory
/// or a corpus on disk, so code that streams over papers (the vector rows' keys, the dense
/// index's metadata) holds no more of a corpus than it keeps.
pub trait PaperScan {
    /// Number of papers.
    fn count(&self) -> usize;
    /// Hand every paper, in order, to `each`; stop at its first error.
    fn each_paper(&self, each: &mut dyn FnMut(usize, &Paper) -> Result<()>) -> Result<()>;
}

impl PaperScan for [Paper] {
    fn count(&self) -> usize {
        self.len()
    }

    fn each_paper(&self, each: &mut dyn FnMut(usize, &Paper) -> Result<()>) -> Result<()> {
        self.iter().enumerate().try_for_each(|(position, paper)| each(position, paper))
    }
}

impl PaperScan for Records {
    fn count(&self) -> usize {
        self.len()
    }

    fn each_paper(&self, each: &mut dyn FnMut(usize, &Paper) -> Result<()>) -> Result<()> {
        self.scan(|position, paper| each(position, &paper))
    }
}

impl PaperScan for crate::Corpus {
    fn count(&self) -> usize {
        self.len()
    }

    fn each_paper(&self, each: &mut dyn FnMut(usize, &Paper) -> Result<()>) -> Result<()> {
        self.scan(each)
    }
}
