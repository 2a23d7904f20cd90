//! The in-memory catalog: papers and topics with the indexes that merge new records into them.
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
//! References are resolved after every ingest, for all papers: a reference that names an
//! in-corpus paper (by id, alias, DOI or OpenAlex id) moves into `references`; the rest stay in
//! `external_references` and are retried by later ingests.

use crate::normalize::{hashed_id, title_id, title_key};
use crate::paper::{IdOrigin, Paper, Topic, looks_like_survey};
use crate::readers::{EdgeRecord, Item, PaperRecord, TopicRecord};
use std::collections::HashMap;

/// External-id kinds used for matching.
const MATCHING_IDS: [&str; 3] = ["doi", "openalex", "arxiv"];

/// Papers and topics with lookup indexes.
#[derive(Debug, Default)]
pub struct Catalog {
    papers: Vec<Paper>,
    topics: Vec<Topic>,
    by_id: HashMap<String, usize>,
    by_title: HashMap<String, Vec<usize>>,
    by_external: HashMap<(String, String), usize>,
    /// Raw references gathered during this ingest, per paper index.
    pending: HashMap<usize, Vec<String>>,
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

impl Catalog {
    /// A catalog holding existing papers and topics (as loaded from a corpus).
    pub fn new(papers: Vec<Paper>, topics: Vec<Topic>) -> Self {
        let mut catalog = Catalog { topics, ..Catalog::default() };
        for paper in papers {
            let index = catalog.papers.len();
            catalog.papers.push(paper);
            catalog.index_paper(index);
        }
        catalog
    }

    /// The papers, in first-ingested order.
    pub fn papers(&self) -> &[Paper] {
        &self.papers
    }

    /// The topics, in first-ingested order.
    pub fn topics(&self) -> &[Topic] {
        &self.topics
    }

    /// Take the contents out.
    pub fn into_parts(self) -> (Vec<Paper>, Vec<Topic>) {
        (self.papers, self.topics)
    }

    /// Merge items read from input files, then resolve every paper's references.
    pub fn merge(&mut self, items: Vec<Item>, report: &mut MergeReport) {
        let mut topics = Vec::new();
        let mut edges = Vec::new();
        for item in items {
            match item {
                Item::Paper(record) => {
                    report.paper_records += 1;
                    self.merge_paper(*record, report);
                }
                Item::Topic(topic) => topics.push(*topic),
                Item::Edge(edge) => edges.push(edge),
            }
        }
        for edge in edges {
            report.edge_records += 1;
            self.add_edge(edge, report);
        }
        self.resolve_references();
        for topic in topics {
            self.merge_topic(topic, report);
        }
    }

    /// The paper `record` was merged into (or became), by the rules a merge follows.
    pub fn paper_of(&self, record: &PaperRecord) -> Option<&Paper> {
        let mut record = record.clone();
        record.paper.title = record.paper.title.split_whitespace().collect::<Vec<_>>().join(" ");
        self.find_duplicate(&record).map(|index| &self.papers[index])
    }

    /// Find a paper by id, alias, DOI, OpenAlex id or arXiv id (URL prefixes are ignored).
    pub fn resolve(&self, reference: &str) -> Option<usize> {
        let reference = reference.trim();
        if let Some(&index) = self.by_id.get(reference) {
            return Some(index);
        }
        let (kind, value) = crate::normalize::identifier(reference)?;
        self.by_external.get(&(kind.to_string(), value)).copied()
    }

    /// Papers whose title key equals that of `title`.
    pub fn find_by_title(&self, title: &str) -> &[usize] {
        self.by_title.get(&title_key(title)).map_or(&[], Vec::as_slice)
    }

    fn index_paper(&mut self, index: usize) {
        let paper = &self.papers[index];
        self.by_id.insert(paper.id.clone(), index);
        for alias in &paper.aliases {
            self.by_id.entry(alias.clone()).or_insert(index);
        }
        self.by_title.entry(title_key(&paper.title)).or_default().push(index);
        for kind in MATCHING_IDS {
            if let Some(value) = paper.ids.get(kind) {
                self.by_external.entry((kind.to_string(), value.clone())).or_insert(index);
            }
        }
    }

    fn find_duplicate(&self, record: &PaperRecord) -> Option<usize> {
        let paper = &record.paper;
        let from_source = paper.id_origin == IdOrigin::Source;
        if from_source && let Some(&index) = self.by_id.get(&paper.id) {
            return Some(index);
        }
        for kind in MATCHING_IDS {
            if let Some(value) = paper.ids.get(kind)
                && let Some(&index) = self.by_external.get(&(kind.to_string(), value.clone()))
            {
                return Some(index);
            }
        }
        self.find_by_title(&paper.title).iter().copied().find(|&index| {
            let existing = &self.papers[index];
            let both_sourced = from_source && existing.id_origin == IdOrigin::Source;
            !both_sourced && years_compatible(existing.year, paper.year)
        })
    }

    fn merge_paper(&mut self, mut record: PaperRecord, report: &mut MergeReport) {
        // Titles arrive with line breaks and runs of spaces (PDF and BibTeX extraction).
        record.paper.title = record.paper.title.split_whitespace().collect::<Vec<_>>().join(" ");
        if !record.survey_explicit {
            record.paper.is_survey = looks_like_survey(&record.paper.title);
        }
        let index = match self.find_duplicate(&record) {
            Some(index) => {
                report.papers_merged += 1;
                let record_id = record.paper.id.clone();
                if record.paper_id_is_alias(&self.papers[index]) {
                    self.papers[index].aliases.push(record_id.clone());
                }
                fill_missing(&mut self.papers[index], record.paper);
                self.reindex_externals(index);
                if !record_id.is_empty() {
                    self.by_id.entry(record_id).or_insert(index);
                }
                index
            }
            None => {
                report.papers_added += 1;
                if record.paper.id.is_empty() {
                    record.paper.id = self.fresh_title_id(&record.paper);
                }
                let index = self.papers.len();
                self.papers.push(record.paper);
                self.index_paper(index);
                index
            }
        };
        if !record.references.is_empty() {
            self.pending.entry(index).or_default().extend(record.references);
        }
    }

    fn reindex_externals(&mut self, index: usize) {
        for kind in MATCHING_IDS {
            if let Some(value) = self.papers[index].ids.get(kind) {
                self.by_external.entry((kind.to_string(), value.clone())).or_insert(index);
            }
        }
    }

    /// The litbench-style id for a paper without a source id, made unique if needed.
    fn fresh_title_id(&self, paper: &Paper) -> String {
        let plain = title_id(&paper.title);
        if !self.by_id.contains_key(&plain) {
            return plain;
        }
        let year = paper.year.map_or_else(|| "?".to_string(), |y| y.to_string());
        let salted = hashed_id(&format!("{}\u{1f}{year}", title_key(&paper.title)));
        (0..)
            .map(|n| if n == 0 { salted.clone() } else { format!("{salted}-{n}") })
            .find(|candidate| !self.by_id.contains_key(candidate))
            .unwrap_or(salted)
    }

    fn add_edge(&mut self, edge: EdgeRecord, report: &mut MergeReport) {
        match self.resolve(&edge.citing) {
            Some(index) => self.pending.entry(index).or_default().push(edge.cited),
            None => {
                report.edges_dropped_unknown_citing += 1;
                if report.dropped_examples.len() < 5 {
                    report.dropped_examples.push(format!("{} -> {} ({})", edge.citing, edge.cited, edge.at));
                }
            }
        }
    }

    /// Resolve this ingest's raw references and retry every paper's external references.
    fn resolve_references(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        for index in 0..self.papers.len() {
            let mut raw = std::mem::take(&mut self.papers[index].external_references);
            raw.extend(pending.remove(&index).unwrap_or_default());
            if raw.is_empty() {
                continue;
            }
            let mut external = Vec::new();
            let mut resolved = Vec::new();
            for reference in raw {
                match self.resolve(&reference) {
                    Some(target) if target == index => {}
                    Some(target) => resolved.push(self.papers[target].id.clone()),
                    None => external.push(reference),
                }
            }
            let paper = &mut self.papers[index];
            push_unique(&mut paper.references, resolved);
            push_unique(&mut paper.external_references, external);
        }
    }

    fn merge_topic(&mut self, record: TopicRecord, report: &mut MergeReport) {
        let mut topic = record.topic;
        let mut resolved = Vec::new();
        for reference in record.reference_ids {
            match self.resolve(&reference) {
                Some(index) => resolved.push(self.papers[index].id.clone()),
                None => topic.unresolved_references.push(reference),
            }
        }
        for title in record.reference_titles {
            match self.find_by_title(&title).first() {
                Some(&index) => resolved.push(self.papers[index].id.clone()),
                None => topic.unresolved_references.push(title),
            }
        }
        push_unique(&mut topic.reference_ids, resolved);
        for id in &topic.reference_ids {
            if let Some(&index) = self.by_id.get(id) {
                push_unique(&mut self.papers[index].topics, [topic.id.clone()]);
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
