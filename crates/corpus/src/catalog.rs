//! The catalog: papers and topics with the indexes that merge new records into them.
//!
//! ## Identity and deduplication
//! A record is merged into an existing paper, checked in this order, when:
//! 1. its source id equals the paper's id or one of its aliases (re-ingesting a file is a no-op);
//! 2. it shares an external id with the paper (`doi`, `openalex`, `arxiv`);
//! 3. its [`title_key`] equals the paper's and the years are compatible (equal, within one year —
//!    preprint versus publication — or either unknown), unless both ids came from a source: two
//!    records a source gave different ids are different papers (AAN has 125 titles shared by
//!    distinct papers, e.g. yearly "SemEval task" reports).
//!
//! Otherwise the record becomes a new paper with its source id or, lacking one, the litbench-style
//! [`title_id`] (salted with the year, then a counter, if that id is taken by a different paper).
//!
//! Merging fills what the paper lacks and never overwrites: the first-seen title, abstract, year,
//! venue and authors stay; the citation count becomes the maximum; external ids, aliases, topics
//! and references are unioned; a survey flag from either side sticks.
//!
//! References are resolved when the papers are read out ([`Catalog::for_each`]), for all papers:
//! a reference that names an in-corpus paper (by id, alias, DOI or OpenAlex id) moves into
//! `references`; the rest stay in `external_references` and are retried by later ingests.
//!
//! ## Memory
//! An ingest may merge millions of papers, more than a machine holds as [`Paper`]s. What deciding
//! a merge needs is kept in memory in a compact form — every paper's id (one string arena), its
//! id's origin and its year, and the lookup tables, whose keys are 128-bit digests of the id, the
//! title key or the external id (SHA-1's first 16 bytes: two keys collide with a probability
//! below 10⁻²² for a billion papers) — about 100 bytes a paper. The papers themselves are kept
//! in memory ([`Catalog::default`]) or, for an ingest, in a spill file
//! ([`Catalog::on_disk`]) read back one at a time: a paper a record merges into is read, filled
//! and written again at the file's end.

use crate::error::{Result, damaged, io_at};
use crate::normalize::{hashed_id, title_id, title_key};
use crate::paper::{IdOrigin, Paper, Topic, looks_like_survey};
use crate::readers::{EdgeRecord, Item, PaperRecord, TopicRecord};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// External-id kinds used for matching.
const MATCHING_IDS: [&str; 3] = ["doi", "openalex", "arxiv"];
/// The spill file's bytes kept in memory before they are written out.
const SPILL_BUFFER: usize = 8 << 20;

/// Papers and topics with lookup indexes.
#[derive(Debug, Default)]
pub struct Catalog {
    shelf: Shelf,
    /// Per paper, what a title match checks, so that finding a duplicate reads no paper.
    facts: Vec<Facts>,
    ids: Ids,
    /// Papers by id (a later paper with an id already taken replaces the earlier in this table).
    by_id: Table<u32>,
    /// Papers by an alias or the id of a record merged into them (the first paper wins; an id in
    /// `by_id` wins over both).
    by_alias: Table<u32>,
    /// The first and last paper with a title key; `next_same_title` chains the others in order.
    by_title: Table<(u32, u32)>,
    next_same_title: Vec<u32>,
    by_external: Table<u32>,
    topics: Vec<Topic>,
    /// References given by edge records, per citing paper, resolved with the paper's own.
    edge_references: HashMap<u32, Vec<String>>,
    /// Topics whose references name a paper, per paper, in the order the topics were merged.
    memberships: HashMap<u32, Vec<String>>,
}

/// Edge and topic records taken while files are read, waiting for every paper
/// ([`Catalog::take`], [`Catalog::settle`]).
#[derive(Debug, Default)]
pub struct Waiting {
    edges: Vec<EdgeRecord>,
    topics: Vec<TopicRecord>,
}

/// Counts from one ingest.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct MergeReport {
    /// Paper records read.
    pub paper_records: usize,
    /// New papers added.
    pub papers_added: usize,
    /// Paper records merged into an existing paper.
    pub papers_merged: usize,
    /// Topics added.
    pub topics_added: usize,
    /// Topics replaced by a newer record with the same id.
    pub topics_replaced: usize,
    /// Edge records read.
    pub edge_records: usize,
    /// Edges whose citing paper is not in the corpus (dropped).
    pub edges_dropped_unknown_citing: usize,
    /// Up to five examples of dropped edges, as `citing -> cited (file:line)`.
    pub dropped_examples: Vec<String>,
}

/// What finding a duplicate by title checks of an existing paper.
#[derive(Debug, Clone, Copy)]
struct Facts {
    origin: IdOrigin,
    year: Option<i32>,
}

/// A 128-bit digest of a lookup key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key(u64, u64);

impl Key {
    /// The digest of `parts` joined by a unit separator.
    fn of(parts: &[&str]) -> Key {
        let mut sha = sha1_smol::Sha1::new();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                sha.update(b"\x1f");
            }
            sha.update(part.as_bytes());
        }
        let bytes = sha.digest().bytes();
        let half = |from: usize| u64::from_le_bytes(bytes[from..from + 8].try_into().unwrap_or_default());
        Key(half(0), half(8))
    }

    fn id(id: &str) -> Key {
        Key::of(&[id])
    }

    fn title(title: &str) -> Key {
        Key::of(&[&title_key(title)])
    }

    fn external(kind: &str, value: &str) -> Key {
        Key::of(&[kind, value])
    }
}

/// Keys are digests already: their first half is the table's hash.
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }
}

type Table<V> = HashMap<Key, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// Every paper's id, in one string.
#[derive(Debug, Default)]
struct Ids {
    text: String,
    ends: Vec<usize>,
}

impl Ids {
    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    fn get(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.text[start..self.ends[index]]
    }
}

/// Where a catalog keeps its papers.
#[derive(Debug)]
enum Shelf {
    Memory(Vec<Paper>),
    Disk(Spill),
}

impl Default for Shelf {
    fn default() -> Self {
        Shelf::Memory(Vec::new())
    }
}

impl Shelf {
    fn push(&mut self, paper: Paper) -> Result<()> {
        match self {
            Shelf::Memory(papers) => papers.push(paper),
            Shelf::Disk(spill) => spill.push(&paper)?,
        }
        Ok(())
    }

    fn get(&self, index: usize) -> Result<Cow<'_, Paper>> {
        match self {
            Shelf::Memory(papers) => Ok(Cow::Borrowed(&papers[index])),
            Shelf::Disk(spill) => spill.get(index).map(Cow::Owned),
        }
    }

    /// Change the paper at `index` in place (in memory) or as a new copy at the spill's end.
    fn update<T>(&mut self, index: usize, change: impl FnOnce(&mut Paper) -> T) -> Result<T> {
        match self {
            Shelf::Memory(papers) => Ok(change(&mut papers[index])),
            Shelf::Disk(spill) => {
                let mut paper = spill.get(index)?;
                let out = change(&mut paper);
                spill.replace(index, &paper)?;
                Ok(out)
            }
        }
    }
}

/// Papers as JSON lines appended to a file, each read back by where its latest copy starts.
#[derive(Debug)]
struct Spill {
    path: PathBuf,
    file: File,
    /// Where each paper's latest copy starts, and its length.
    spans: Vec<(u64, u32)>,
    /// Bytes appended but not yet written, which start at `written`.
    buffer: Vec<u8>,
    written: u64,
}

impl Spill {
    fn create(path: &Path) -> Result<Spill> {
        let file =
            File::options().read(true).write(true).create(true).truncate(true).open(path).map_err(io_at(path))?;
        Ok(Spill { path: path.to_path_buf(), file, spans: Vec::new(), buffer: Vec::new(), written: 0 })
    }

    fn append(&mut self, paper: &Paper) -> Result<(u64, u32)> {
        let start = self.buffer.len();
        serde_json::to_writer(&mut self.buffer, paper).map_err(|e| io_at(&self.path)(e.into()))?;
        let length = u32::try_from(self.buffer.len() - start)
            .map_err(|_| damaged(&self.path, format!("paper `{}` takes more than 4 GiB", paper.id)))?;
        let span = (self.written + start as u64, length);
        if self.buffer.len() >= SPILL_BUFFER {
            self.file.write_all_at(&self.buffer, self.written).map_err(io_at(&self.path))?;
            self.written += self.buffer.len() as u64;
            self.buffer.clear();
        }
        Ok(span)
    }

    fn push(&mut self, paper: &Paper) -> Result<()> {
        let span = self.append(paper)?;
        self.spans.push(span);
        Ok(())
    }

    fn replace(&mut self, index: usize, paper: &Paper) -> Result<()> {
        self.spans[index] = self.append(paper)?;
        Ok(())
    }

    fn get(&self, index: usize) -> Result<Paper> {
        let (start, length) = self.spans[index];
        let end = start + u64::from(length);
        let decode = |bytes: &[u8]| {
            serde_json::from_slice(bytes)
                .map_err(|e| damaged(&self.path, format!("the copy of paper {} does not decode: {e}", index + 1)))
        };
        if start >= self.written {
            let from = (start - self.written) as usize;
            return decode(&self.buffer[from..from + length as usize]);
        }
        let mut bytes = vec![0u8; length as usize];
        let on_disk = (end.min(self.written) - start) as usize;
        self.file.read_exact_at(&mut bytes[..on_disk], start).map_err(io_at(&self.path))?;
        bytes[on_disk..].copy_from_slice(&self.buffer[..length as usize - on_disk]);
        decode(&bytes)
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Catalog {
    /// An empty catalog keeping its papers in a spill file at `path` (created, and removed when
    /// the catalog is dropped), with `topics` already resolved (as loaded from a corpus).
    pub fn on_disk(path: &Path, topics: Vec<Topic>) -> Result<Catalog> {
        Ok(Catalog { shelf: Shelf::Disk(Spill::create(path)?), topics, ..Catalog::default() })
    }

    /// Add a paper as it is (one loaded from a corpus): indexed, not merged.
    pub fn add_existing(&mut self, paper: Paper) -> Result<()> {
        self.push(paper)
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// True when it holds no paper.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// The topics, in first-ingested order.
    pub fn topics(&self) -> &[Topic] {
        &self.topics
    }

    /// The id of the paper at `index`.
    pub fn id(&self, index: usize) -> &str {
        self.ids.get(index)
    }

    /// Merge items read from input files: papers first, then edges, then topics.
    pub fn merge(&mut self, items: Vec<Item>, report: &mut MergeReport) -> Result<()> {
        let mut waiting = Waiting::default();
        for item in items {
            self.take(item, &mut waiting, report)?;
        }
        self.settle(waiting, report);
        Ok(())
    }

    /// Take one item as files are read: a paper merges now; an edge or a topic waits in
    /// `waiting` until every paper is in ([`Catalog::settle`]), since an edge list may come
    /// before its papers' file and a topic cites papers of any file.
    pub fn take(&mut self, item: Item, waiting: &mut Waiting, report: &mut MergeReport) -> Result<()> {
        match item {
            Item::Paper(record) => self.merge_paper(*record, report)?,
            Item::Topic(topic) => waiting.topics.push(*topic),
            Item::Edge(edge) => waiting.edges.push(edge),
        }
        Ok(())
    }

    /// Merge what waited for the papers: the edges, then the topics.
    pub fn settle(&mut self, waiting: Waiting, report: &mut MergeReport) {
        self.merge_edges(waiting.edges, report);
        for topic in waiting.topics {
            self.merge_topic(topic, report);
        }
    }

    /// Merge one paper record.
    fn merge_paper(&mut self, mut record: PaperRecord, report: &mut MergeReport) -> Result<()> {
        report.paper_records += 1;
        // Titles arrive with line breaks and runs of spaces (PDF and BibTeX extraction).
        record.paper.title = collapse_spaces(&record.paper.title);
        if !record.survey_explicit {
            record.paper.is_survey = looks_like_survey(&record.paper.title);
        }
        let references = std::mem::take(&mut record.references);
        let Some(index) = self.find_duplicate(&record.paper) else {
            report.papers_added += 1;
            if record.paper.id.is_empty() {
                record.paper.id = self.fresh_title_id(&record.paper);
            }
            record.paper.external_references.extend(references);
            return self.push(record.paper);
        };
        report.papers_merged += 1;
        let record_id = record.paper.id.clone();
        let (year, externals) = self.shelf.update(index, |paper| {
            if record.paper_id_is_alias(paper) {
                paper.aliases.push(record_id.clone());
            }
            fill_missing(paper, record.paper);
            // Unresolved until read out, as every paper's references are.
            paper.external_references.extend(references);
            (paper.year, external_keys(paper))
        })?;
        self.facts[index].year = year;
        for key in externals {
            self.by_external.entry(key).or_insert(index as u32);
        }
        if !record_id.is_empty() && self.lookup_id(&record_id).is_none() {
            self.by_alias.insert(Key::id(&record_id), index as u32);
        }
        Ok(())
    }

    /// Merge edge records (after the papers they name).
    fn merge_edges(&mut self, edges: Vec<EdgeRecord>, report: &mut MergeReport) {
        for edge in edges {
            report.edge_records += 1;
            match self.resolve(&edge.citing) {
                Some(index) => self.edge_references.entry(index as u32).or_default().push(edge.cited),
                None => {
                    report.edges_dropped_unknown_citing += 1;
                    if report.dropped_examples.len() < 5 {
                        report.dropped_examples.push(format!("{} -> {} ({})", edge.citing, edge.cited, edge.at));
                    }
                }
            }
        }
    }

    /// The paper `record` was merged into (or became), by the rules a merge follows.
    pub fn position_of(&self, record: &PaperRecord) -> Option<usize> {
        let mut paper = record.paper.clone();
        paper.title = collapse_spaces(&paper.title);
        self.find_duplicate(&paper)
    }

    /// Find a paper by id, alias, DOI, OpenAlex id or arXiv id (URL prefixes are ignored).
    pub fn resolve(&self, reference: &str) -> Option<usize> {
        let reference = reference.trim();
        if let Some(index) = self.lookup_id(reference) {
            return Some(index);
        }
        let (kind, value) = crate::normalize::identifier(reference)?;
        self.by_external.get(&Key::external(kind, &value)).map(|&index| index as usize)
    }

    /// Papers whose title key equals that of `title`, in the order they were added.
    pub fn find_by_title(&self, title: &str) -> Vec<usize> {
        let mut found = Vec::new();
        let mut next = self.by_title.get(&Key::title(title)).map_or(u32::MAX, |&(first, _)| first);
        while next != u32::MAX {
            found.push(next as usize);
            next = self.next_same_title[next as usize];
        }
        found
    }

    /// Every paper as merged, its references resolved and its topics added, handed to `each` in
    /// the order the papers were first added (memory: one paper at a time for a spilled catalog).
    pub fn for_each(&self, mut each: impl FnMut(usize, Paper) -> Result<()>) -> Result<()> {
        for index in 0..self.len() {
            let paper = self.shelf.get(index)?.into_owned();
            each(index, self.settled(index, paper))?;
        }
        Ok(())
    }

    /// Take the contents out, as [`Catalog::for_each`] gives the papers.
    pub fn into_parts(self) -> Result<(Vec<Paper>, Vec<Topic>)> {
        let mut papers = Vec::with_capacity(self.len());
        self.for_each(|_, paper| {
            papers.push(paper);
            Ok(())
        })?;
        Ok((papers, self.topics))
    }

    /// A paper as it is read out: its references resolved, its topics added.
    fn settled(&self, index: usize, mut paper: Paper) -> Paper {
        let mut raw = std::mem::take(&mut paper.external_references);
        raw.extend(self.edge_references.get(&(index as u32)).into_iter().flatten().cloned());
        let mut external = Vec::new();
        let mut resolved = Vec::new();
        for reference in raw {
            match self.resolve(&reference) {
                Some(target) if target == index => {}
                Some(target) => resolved.push(self.id(target).to_string()),
                None => external.push(reference),
            }
        }
        push_unique(&mut paper.references, resolved);
        push_unique(&mut paper.external_references, external);
        if let Some(topics) = self.memberships.get(&(index as u32)) {
            push_unique(&mut paper.topics, topics.iter().cloned());
        }
        paper
    }

    fn lookup_id(&self, id: &str) -> Option<usize> {
        let key = Key::id(id);
        self.by_id.get(&key).or_else(|| self.by_alias.get(&key)).map(|&index| index as usize)
    }

    fn push(&mut self, paper: Paper) -> Result<()> {
        let index = self.len() as u32;
        self.ids.push(&paper.id);
        self.facts.push(Facts { origin: paper.id_origin, year: paper.year });
        self.by_id.insert(Key::id(&paper.id), index);
        for alias in &paper.aliases {
            self.by_alias.entry(Key::id(alias)).or_insert(index);
        }
        self.next_same_title.push(u32::MAX);
        match self.by_title.entry(Key::title(&paper.title)) {
            std::collections::hash_map::Entry::Occupied(mut entry) => {
                let (_, last) = entry.get_mut();
                self.next_same_title[*last as usize] = index;
                *last = index;
            }
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert((index, index));
            }
        }
        for key in external_keys(&paper) {
            self.by_external.entry(key).or_insert(index);
        }
        self.shelf.push(paper)
    }

    fn find_duplicate(&self, paper: &Paper) -> Option<usize> {
        let from_source = paper.id_origin == IdOrigin::Source;
        if from_source && let Some(index) = self.lookup_id(&paper.id) {
            return Some(index);
        }
        if let Some(&index) = external_keys(paper).iter().find_map(|key| self.by_external.get(key)) {
            return Some(index as usize);
        }
        self.find_by_title(&paper.title).into_iter().find(|&index| {
            let existing = self.facts[index];
            let both_sourced = from_source && existing.origin == IdOrigin::Source;
            !both_sourced && years_compatible(existing.year, paper.year)
        })
    }

    /// The litbench-style id for a paper without a source id, made unique if needed.
    fn fresh_title_id(&self, paper: &Paper) -> String {
        let plain = title_id(&paper.title);
        if self.lookup_id(&plain).is_none() {
            return plain;
        }
        let year = paper.year.map_or_else(|| "?".to_string(), |y| y.to_string());
        let salted = hashed_id(&format!("{}\u{1f}{year}", title_key(&paper.title)));
        (0..)
            .map(|n| if n == 0 { salted.clone() } else { format!("{salted}-{n}") })
            .find(|candidate| self.lookup_id(candidate).is_none())
            .unwrap_or(salted)
    }

    fn merge_topic(&mut self, record: TopicRecord, report: &mut MergeReport) {
        let mut topic = record.topic;
        let mut resolved = Vec::new();
        for reference in record.reference_ids {
            match self.resolve(&reference) {
                Some(index) => resolved.push(self.id(index).to_string()),
                None => topic.unresolved_references.push(reference),
            }
        }
        for title in record.reference_titles {
            match self.find_by_title(&title).first() {
                Some(&index) => resolved.push(self.id(index).to_string()),
                None => topic.unresolved_references.push(title),
            }
        }
        push_unique(&mut topic.reference_ids, resolved);
        for id in &topic.reference_ids {
            if let Some(index) = self.lookup_id(id) {
                self.memberships.entry(index as u32).or_default().push(topic.id.clone());
            }
        }
        match self.topics.iter_mut().find(|t| t.id == topic.id) {
            Some(existing) => {
                *existing = topic;
                report.topics_replaced += 1;
            }
            None => {
                self.topics.push(topic);
                report.topics_added += 1;
            }
        }
    }
}

/// The lookup keys of a paper's matching external ids.
fn external_keys(paper: &Paper) -> Vec<Key> {
    MATCHING_IDS.iter().filter_map(|kind| paper.ids.get(*kind).map(|value| Key::external(kind, value))).collect()
}

fn collapse_spaces(title: &str) -> String {
    title.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl PaperRecord {
    /// Whether this record's own id should become an alias of the paper it merged into.
    fn paper_id_is_alias(&self, into: &Paper) -> bool {
        self.paper.id_origin == IdOrigin::Source
            && !self.paper.id.is_empty()
            && self.paper.id != into.id
            && !into.aliases.contains(&self.paper.id)
    }
}

/// Years are compatible when equal, one year apart, or either unknown.
fn years_compatible(a: Option<i32>, b: Option<i32>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1,
        _ => true,
    }
}

fn fill_missing(paper: &mut Paper, other: Paper) {
    if paper.abstract_text.is_none() && other.abstract_text.is_some() {
        paper.abstract_text = other.abstract_text;
        paper.abstract_suspect = other.abstract_suspect;
    }
    paper.year = paper.year.or(other.year);
    paper.date = paper.date.take().or(other.date);
    if paper.venue.is_none() {
        paper.venue = other.venue;
    }
    if paper.authors.is_empty() {
        paper.authors = other.authors;
    }
    paper.citation_count = match (paper.citation_count, other.citation_count) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    paper.is_survey |= other.is_survey;
    paper.retracted |= other.retracted;
    paper.work_type = paper.work_type.take().or(other.work_type);
    paper.language = paper.language.take().or(other.language);
    for (kind, value) in other.ids {
        paper.ids.entry(kind).or_insert(value);
    }
    push_unique(&mut paper.topics, other.topics);
}

/// Append items not already present, keeping first-seen order.
fn push_unique(list: &mut Vec<String>, items: impl IntoIterator<Item = String>) {
    let mut seen: std::collections::HashSet<String> = list.iter().cloned().collect();
    for item in items {
        if seen.insert(item.clone()) {
            list.push(item);
        }
    }
}
