//! Readers for the formats litnav ingests. Each turns a file into [`Item`]s — paper records, topic
//! records and citation edges — without deciding anything about identity; merging and
//! deduplication happen in [`crate::catalog`].

mod bibtex;
mod edges;
mod jsonl;
mod lines;
mod openalex;
mod records;
mod taxobench;
pub use openalex::for_each_work as for_each_openalex_work;
pub use taxobench::taxobench_topic_id;

use crate::error::{Error, Location, Result};
use crate::paper::{Paper, Topic};
use std::path::{Path, PathBuf};

/// The input formats litnav reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// JSON lines of papers in litnav/litbench shape (`id`, `title`, `abstract`, `year`, `venue`,
    /// `authors`, `citation_count`, `references`, …). AAN's and CiteSeer's `papers.jsonl` are this.
    Papers,
    /// litbench's `topics.jsonl`: surveys with `reference_ids` and an outline or taxonomy.
    LitbenchTopics,
    /// TaxoBench's public `data.jsonl`: `pdfs` (papers) and `gt` (the expert taxonomy).
    TaxoBench,
    /// OpenAlex works (snapshot JSON lines, plain or gzipped, or an API page with `results`).
    OpenAlex,
    /// BibTeX.
    Bibtex,
    /// A citation edge list: CSV with header `citing_id,cited_id`.
    Edges,
}

impl Format {
    /// All formats with the names the CLI accepts.
    pub const ALL: [(Format, &'static str); 6] = [
        (Format::Papers, "papers"),
        (Format::LitbenchTopics, "litbench-topics"),
        (Format::TaxoBench, "taxobench"),
        (Format::OpenAlex, "openalex"),
        (Format::Bibtex, "bibtex"),
        (Format::Edges, "edges"),
    ];

    /// The format's CLI name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(f, _)| *f == self).map(|(_, n)| *n).unwrap_or("?")
    }

    /// Parse a CLI name.
    pub fn from_name(name: &str) -> Option<Format> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }
}

/// A paper as one input record describes it, before merging.
#[derive(Debug, Clone)]
pub struct PaperRecord {
    /// The paper's fields; `paper.id` is empty when the source gave no id.
    pub paper: Paper,
    /// True when the source said explicitly whether this is a survey.
    pub survey_explicit: bool,
    /// References as the source names them (ids, DOIs, OpenAlex URLs), not yet resolved.
    pub references: Vec<String>,
    /// Where the record was read.
    pub at: Location,
}

/// A topic as one input record describes it, before its references are resolved.
#[derive(Debug, Clone)]
pub struct TopicRecord {
    /// The topic; `reference_ids` is filled during merging.
    pub topic: Topic,
    /// References named by id.
    pub reference_ids: Vec<String>,
    /// References named by title (TaxoBench), matched by title key.
    pub reference_titles: Vec<String>,
}

/// A citation edge as an edge list gives it.
#[derive(Debug, Clone)]
pub struct EdgeRecord {
    /// Id of the citing paper.
    pub citing: String,
    /// Id of the cited paper.
    pub cited: String,
    /// Where the edge was read.
    pub at: Location,
}

/// One unit of input. Papers and topics are boxed so that an edge — most of an edge list's
/// ingest, ten or more per paper — takes the size of an edge, not of a paper (measured with
/// heaptrack: unboxed, the items read from a 64,000-paper edge list peaked at 453 MB).
#[derive(Debug, Clone)]
pub enum Item {
    /// A paper record.
    Paper(Box<PaperRecord>),
    /// A topic record.
    Topic(Box<TopicRecord>),
    /// A citation edge.
    Edge(EdgeRecord),
}

/// What reading one file produced.
#[derive(Debug, Default)]
pub struct FileContents {
    /// The format the file was read as.
    pub format: Option<Format>,
    /// Records in file order.
    pub items: Vec<Item>,
    /// Records skipped because they were malformed (only with `skip_bad`).
    pub skipped: Vec<Error>,
}

/// How to read.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Skip malformed records (and report them) instead of failing on the first.
    pub skip_bad: bool,
}

/// Read one input file.
pub fn read_file(path: &Path, options: ReadOptions) -> Result<FileContents> {
    let mut items = Vec::new();
    let read = for_each_item(path, options, |item| {
        items.push(item);
        Ok(())
    })?;
    Ok(FileContents { format: Some(read.format), items, skipped: read.skipped })
}

/// What streaming one input file found besides its records.
#[derive(Debug)]
pub struct FileRead {
    /// The format it was read as.
    pub format: Format,
    /// Records skipped because they were malformed (only with `skip_bad`).
    pub skipped: Vec<Error>,
    /// Records handed on.
    pub items: usize,
}

/// Read one input file, handing each record to `each` as it is read (memory: one record), and
/// stopping at the first error `each` returns.
pub fn for_each_item(path: &Path, options: ReadOptions, each: impl FnMut(Item) -> Result<()>) -> Result<FileRead> {
    let format = match options.format {
        Some(format) => format,
        None => detect(path)?,
    };
    let mut sink = Sink { each: Box::new(each), items: 0, skipped: Vec::new(), skip_bad: options.skip_bad };
    match format {
        Format::Papers => jsonl::read_papers(path, &mut sink)?,
        Format::LitbenchTopics => jsonl::read_topics(path, &mut sink)?,
        Format::TaxoBench => taxobench::read(path, &mut sink)?,
        Format::OpenAlex => openalex::read(path, &mut sink)?,
        Format::Bibtex => bibtex::read(path, &mut sink)?,
        Format::Edges => edges::read(path, &mut sink)?,
    }
    if sink.items == 0 && sink.skipped.is_empty() {
        return Err(Error::BadFile {
            file: path.to_path_buf(),
            message: format!("holds no {} records", format.name()),
        });
    }
    Ok(FileRead { format, skipped: sink.skipped, items: sink.items })
}

/// Hands records on, and either skips or propagates bad ones.
pub(crate) struct Sink<'a> {
    each: Box<dyn FnMut(Item) -> Result<()> + 'a>,
    items: usize,
    skipped: Vec<Error>,
    skip_bad: bool,
}

impl Sink<'_> {
    /// Accept a record, or handle its error according to the skip policy.
    pub(crate) fn take(&mut self, record: Result<Vec<Item>>) -> Result<()> {
        match record {
            Ok(items) => {
                self.items += items.len();
                items.into_iter().try_for_each(&mut self.each)
            }
            Err(error) if self.skip_bad && matches!(error, Error::BadRecord { .. }) => {
                self.skipped.push(error);
                Ok(())
            }
            Err(error) => Err(error),
        }
    }
}

/// Decide a file's format from its name and, where the name does not settle it, its first record.
pub fn detect(path: &Path) -> Result<Format> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    let stem = name.strip_suffix(".gz").unwrap_or(&name);
    if stem.ends_with(".bib") || stem.ends_with(".bibtex") {
        return Ok(Format::Bibtex);
    }
    if stem.ends_with(".csv") {
        return Ok(Format::Edges);
    }
    let first = lines::first_content(path)?;
    let trimmed = first.trim_start();
    if trimmed.starts_with('@') {
        return Ok(Format::Bibtex);
    }
    if trimmed.to_ascii_lowercase().starts_with("citing") {
        return Ok(Format::Edges);
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let value: serde_json::Value = match serde_json::from_str(trimmed) {
            Ok(value) => value,
            // A pretty-printed JSON document: read the whole file to sniff it.
            Err(_) => lines::whole_json(path)?,
        };
        return sniff_json(path, &value);
    }
    Err(unknown_format(path, "it is neither JSON, BibTeX nor a citing_id,cited_id CSV"))
}

fn sniff_json(path: &Path, value: &serde_json::Value) -> Result<Format> {
    let record = match value {
        serde_json::Value::Array(items) => items.first(),
        serde_json::Value::Object(map) => match map.get("results") {
            Some(serde_json::Value::Array(items)) => items.first(),
            _ => Some(value),
        },
        _ => None,
    };
    let Some(serde_json::Value::Object(map)) = record else {
        return Err(unknown_format(path, "its first record is not a JSON object"));
    };
    let has = |k: &str| map.contains_key(k);
    let openalex_id = map.get("id").and_then(|v| v.as_str()).is_some_and(|id| id.contains("openalex.org/"));
    if has("pdfs") || has("gt") {
        Ok(Format::TaxoBench)
    } else if has("reference_ids") && (has("outline") || has("taxonomy") || has("topic_id")) {
        Ok(Format::LitbenchTopics)
    } else if openalex_id || has("abstract_inverted_index") || has("display_name") || has("publication_year") {
        Ok(Format::OpenAlex)
    } else if has("title") {
        Ok(Format::Papers)
    } else {
        Err(unknown_format(
            path,
            "its first record has none of the fields litnav recognizes (`title`, `pdfs`, `display_name`, `reference_ids`)",
        ))
    }
}

fn unknown_format(path: &Path, why: &str) -> Error {
    let names: Vec<&str> = Format::ALL.iter().map(|(_, n)| *n).collect();
    Error::UnknownFormat {
        file: path.to_path_buf(),
        message: format!("unknown input format: {why}; the formats litnav reads are {}", names.join(", ")),
    }
}

/// A location in `file`.
pub(crate) fn at(file: &Path, line: usize, field: Option<&str>) -> Location {
    Location { file: PathBuf::from(file), line, field: field.map(str::to_string) }
}
