//! litnav's survey reader: a survey — expert or generated — as its outline, its sections with
//! paragraphs, sentences and the citation markers in each, and its bibliography. One reader for
//! every command that reads surveys (`litnav eval survey`, `litnav ingest --surveys`).
//!
//! Two layouts are read:
//! - **Bloom-Eval's directory layout** (`human/` or `llm/` of a topic): `content.json` (the text as
//!   Markdown with numbered markers), `outline.json` (`[level, heading]` pairs), `reference.json`
//!   (`reference_N` → title, date, authors, publication, citation_count, abs) and an article file
//!   (`expert_article.json` or `llm_article.json`: `context` by section and the `reference` list
//!   as printed) — see [`bloom`];
//! - **a Markdown file**, as generators write them: ATX or setext headings, numbered (`[3]`,
//!   `[3, 5–7]`) or author–year markers, a references section — see [`markdown`].
//!
//! Markers resolve to bibliography entries by number, or by first author and year — failing that,
//! to the only entry by that first author (a preprint and its publication often differ by a year,
//! and some entries carry none).
//!
//! Dangling markers, unused entries, duplicate entries and entries of an unknown style are
//! counted in [`Problems`], never fatal; a file that cannot be read, or malformed JSON, is an error
//! naming the file, line and field.

pub mod bloom;
pub mod markdown;
pub mod markers;
mod references;
pub mod text;

pub use markers::CitationId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Errors of the survey reader.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An input is malformed; the message names the file, line and field.
    #[error("{0}")]
    Input(String),
}

impl litnav_core::HasKind for Error {
    fn kind(&self) -> litnav_core::ErrorKind {
        match self {
            Error::Io { source, .. } => litnav_core::io_kind(source),
            Error::Input(_) => litnav_core::ErrorKind::Input,
        }
    }
}

/// Result alias of the survey reader.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    String::from_utf8(bytes).map_err(|e| {
        Error::Input(format!("{}: not valid UTF-8 (at byte {})", path.display(), e.utf8_error().valid_up_to()))
    })
}

/// A JSON file's syntax error, naming the file, line and column.
pub(crate) fn json_error(path: &Path, error: &serde_json::Error) -> Error {
    Error::Input(format!("{}:{}:{}: not valid JSON: {error}", path.display(), error.line(), error.column()))
}

/// A field of a JSON file that is not what it should be.
pub(crate) fn field_error(path: &Path, field: &str, expected: &str) -> Error {
    Error::Input(format!("{}: field `{field}`: expected {expected}", path.display()))
}

/// A JSON value as text: strings as they are, anything else as JSON.
pub(crate) fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// How a survey was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Bloom-Eval's directory of JSON files.
    BloomEval,
    /// One Markdown file.
    Markdown,
}

/// One heading of the outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    /// Depth: 0 for the survey's title, 1 for top-level sections, …
    pub level: usize,
    /// The heading as written (numbering included).
    pub text: String,
}

/// A bibliography entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Reference {
    /// Its key in the source (`reference_12`, or the printed number).
    pub key: String,
    /// The number markers cite it by, when numbered.
    pub number: Option<u32>,
    /// The author–year identifier markers cite it by, when one can be derived.
    pub author_year: Option<CitationId>,
    /// Title.
    pub title: String,
    /// Authors, when known.
    pub authors: Vec<String>,
    /// Year, when known.
    pub year: Option<String>,
    /// Venue, when known.
    pub venue: Option<String>,
    /// Citation count, when the source gives one.
    pub citation_count: Option<u64>,
    /// Abstract, when known.
    pub abstract_text: Option<String>,
    /// The entry as printed, when the source prints it.
    pub raw: Option<String>,
    /// The corpus paper it resolves to (set by the caller, see `resolve`).
    pub paper_id: Option<String>,
}

/// A sentence and what it cites.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sentence {
    /// The text.
    pub text: String,
    /// Citation markers in it.
    pub markers: Vec<CitationId>,
    /// The bibliography entries (indices) its markers resolve to.
    pub references: Vec<usize>,
}

/// A paragraph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paragraph {
    /// `s{section}-p{paragraph}`, both 1-based.
    pub id: String,
    /// The text.
    pub text: String,
    /// Its sentences.
    pub sentences: Vec<Sentence>,
}

impl Paragraph {
    /// The bibliography entries cited anywhere in the paragraph, in first-cited order.
    pub fn references(&self) -> Vec<usize> {
        let mut seen = BTreeSet::new();
        self.sentences.iter().flat_map(|s| s.references.iter().copied()).filter(|r| seen.insert(*r)).collect()
    }
}

/// A section of the text (between two headings).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Its heading (empty for text before the first heading).
    pub heading: String,
    /// The heading's level.
    pub level: usize,
    /// Its paragraphs.
    pub paragraphs: Vec<Paragraph>,
}

/// What is odd about a survey's citations, counted.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Problems {
    /// Markers that no bibliography entry defines.
    pub dangling_markers: Vec<String>,
    /// Bibliography entries no marker cites (keys).
    pub unused_entries: Vec<String>,
    /// Entries defined twice (same number, or the same title).
    pub duplicate_entries: Vec<String>,
    /// Entries with neither a number nor an author–year key, so markers cannot reach them.
    pub unknown_style_entries: usize,
    /// Anything else worth knowing (a file that is missing but optional, an empty section).
    pub warnings: Vec<String>,
}

/// A survey as read.
#[derive(Debug, Clone, Serialize)]
pub struct Survey {
    /// The file or directory read.
    pub path: PathBuf,
    /// How it was stored.
    pub layout: Layout,
    /// Its title.
    pub title: String,
    /// The text as Markdown (whitespace normalized), as Bloom-Eval's text metrics read it.
    pub content: String,
    /// The outline.
    pub outline: Vec<Heading>,
    /// The body, section by section (the references section left out).
    pub sections: Vec<Section>,
    /// The bibliography.
    pub bibliography: Vec<Reference>,
    /// Identifiers cited in the body (Formatting Integrity's `C_cited`).
    pub cited: BTreeSet<CitationId>,
    /// Identifiers the bibliography defines (Formatting Integrity's `R_defined`).
    pub defined: BTreeSet<CitationId>,
    /// Where `defined` comes from: the article file's printed list, or the references section.
    pub defined_from: String,
    /// Counted problems.
    pub problems: Problems,
}

impl Survey {
    /// Read a survey: a Bloom-Eval directory (`human/`, `llm/`, or any directory holding
    /// `content.json`) or a Markdown file.
    pub fn read(path: &Path) -> Result<Survey> {
        if path.is_dir() {
            return bloom::read(path);
        }
        if !path.exists() {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            });
        }
        markdown::read(path)
    }

    /// Every sentence with at least one resolved citation, with its section and paragraph.
    pub fn citing_sentences(&self) -> impl Iterator<Item = (&Section, &Paragraph, &Sentence)> {
        self.sections.iter().flat_map(|section| {
            section.paragraphs.iter().flat_map(move |paragraph| {
                paragraph
                    .sentences
                    .iter()
                    .filter(|s| !s.references.is_empty())
                    .map(move |sentence| (section, paragraph, sentence))
            })
        })
    }

    /// The body text (sections' paragraphs, headings left out).
    pub fn body_text(&self) -> String {
        let paragraphs: Vec<&str> =
            self.sections.iter().flat_map(|s| s.paragraphs.iter().map(|p| p.text.as_str())).collect();
        paragraphs.join("\n\n")
    }

    /// How many times each bibliography entry is cited (by sentence markers).
    pub fn citation_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.bibliography.len()];
        for (_, _, sentence) in self.citing_sentences() {
            for &r in &sentence.references {
                counts[r] += 1;
            }
        }
        counts
    }
}

/// Split `content` into sections, paragraphs and sentences, resolve each sentence's markers to
/// `bibliography` entries, and count dangling markers, unused and duplicate entries.
pub(crate) fn structure(content: &str, bibliography: &[Reference], problems: &mut Problems) -> Vec<Section> {
    let (body, _) = text::split_references(content);
    let by_number: HashMap<u32, usize> =
        bibliography.iter().enumerate().filter_map(|(i, r)| Some((r.number?, i))).collect();
    let by_author_year: HashMap<&CitationId, usize> =
        bibliography.iter().enumerate().filter_map(|(i, r)| Some((r.author_year.as_ref()?, i))).collect();
    // Entries by first author alone: a marker whose year matches no entry still resolves to the
    // only entry by that author (a preprint and its publication often differ by a year, and some
    // entries carry no year at all).
    let mut by_author: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, r) in bibliography.iter().enumerate() {
        let author = match &r.author_year {
            Some(CitationId::AuthorYear(author, _)) => Some(author.clone()),
            _ => r.authors.first().map(|a| markers::first_author_key(a)).filter(|a| !a.is_empty()),
        };
        if let Some(author) = author {
            by_author.entry(author).or_default().push(i);
        }
    }
    let resolve_author = |author: &str| by_author.get(author).filter(|list| list.len() == 1).map(|list| list[0]);
    let mut sections = vec![Section { heading: String::new(), level: 0, paragraphs: Vec::new() }];
    let mut paragraph = Vec::new();
    let numbered = !by_number.is_empty();
    let mut dangling = BTreeSet::new();
    let mut used = vec![false; bibliography.len()];
    let mut flush = |sections: &mut Vec<Section>, lines: &mut Vec<&str>| {
        let text = lines.join(" ").trim().to_string();
        lines.clear();
        if text.is_empty() {
            return;
        }
        let section_number = sections.len() - 1;
        let section = sections.last_mut().unwrap_or_else(|| unreachable!("one section at least"));
        let id = format!("s{}-p{}", section_number, section.paragraphs.len() + 1);
        let sentences = text::sentences(&text)
            .into_iter()
            .map(|sentence| {
                let markers: Vec<CitationId> = markers::cited_ids(&sentence).into_iter().collect();
                let mut references = Vec::new();
                for marker in &markers {
                    let found = match marker {
                        CitationId::Number(n) => by_number.get(n).copied(),
                        CitationId::AuthorYear(author, _) => {
                            by_author_year.get(marker).copied().or_else(|| resolve_author(author))
                        }
                    };
                    match found {
                        Some(i) => {
                            used[i] = true;
                            if !references.contains(&i) {
                                references.push(i);
                            }
                        }
                        // Only a numbered bibliography makes an unresolved number dangling (to an
                        // author–year survey, "(2017)" is a year); an author–year marker that
                        // resolves to nothing may be ordinary text with a year.
                        None if numbered && matches!(marker, CitationId::Number(_)) => {
                            dangling.insert(marker.to_string());
                        }
                        None => {}
                    }
                }
                Sentence { text: sentence, markers, references }
            })
            .collect();
        section.paragraphs.push(Paragraph { id, text, sentences });
    };
    let lines: Vec<&str> = body.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let setext = lines.get(i + 1).and_then(|next| text::setext_level(next)).filter(|_| !line.trim().is_empty());
        let heading = text::atx(line).or(setext.map(|level| (level, line.trim().to_string())));
        if let Some((level, heading)) = heading {
            flush(&mut sections, &mut paragraph);
            sections.push(Section { heading, level: level.saturating_sub(1), paragraphs: Vec::new() });
            i += if setext.is_some() && text::atx(line).is_none() { 2 } else { 1 };
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut sections, &mut paragraph);
        } else {
            paragraph.push(line.trim());
        }
        i += 1;
    }
    flush(&mut sections, &mut paragraph);
    if sections[0].paragraphs.is_empty() {
        sections.remove(0);
    }
    problems.dangling_markers = dangling.into_iter().collect();
    problems.unused_entries =
        bibliography.iter().zip(&used).filter(|(_, used)| !**used).map(|(r, _)| r.key.clone()).collect();
    problems.duplicate_entries = duplicates(bibliography);
    problems.unknown_style_entries =
        bibliography.iter().filter(|r| r.number.is_none() && r.author_year.is_none()).count();
    sections
}

/// Entries defined twice: the same number, or the same title (compared by its letters and digits).
fn duplicates(bibliography: &[Reference]) -> Vec<String> {
    let mut seen_numbers = BTreeMap::new();
    let mut seen_titles = BTreeMap::new();
    let mut out = Vec::new();
    for reference in bibliography {
        if let Some(n) = reference.number
            && seen_numbers.insert(n, ()).is_some()
        {
            out.push(format!("number {n} defined twice"));
        }
        let key = markers::lookup_key(&reference.title);
        if !key.is_empty()
            && let Some(first) = seen_titles.insert(key, reference.key.clone())
        {
            out.push(format!("{} repeats {first} ({:?})", reference.key, reference.title));
        }
    }
    out
}

/// The outline from a text's headings: ATX (`#` is level 0) and setext (`===` level 0, `---` 1),
/// the references section's heading left out.
pub(crate) fn outline_from_text(content: &str) -> Vec<Heading> {
    let lines: Vec<&str> = content.split('\n').collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let heading = text::atx(line).or_else(|| {
            let level = text::setext_level(lines.get(i + 1)?)?;
            (!line.trim().is_empty() && !line.trim_start().starts_with('#')).then(|| (level, line.trim().to_string()))
        });
        if let Some((level, text)) = heading
            && !text::REFERENCE_HEADINGS.contains(&text::normalize_heading(&text).as_str())
        {
            out.push(Heading { level: level - 1, text });
        }
    }
    out
}

/// Every text of at most `most` pieces (each piece any number of times, in any order), the empty
/// one first: inputs for comparing a rewritten reader with the one it replaced.
#[cfg(test)]
pub(crate) fn concatenations(pieces: &[&str], most: usize) -> Vec<String> {
    let mut texts = vec![String::new()];
    let mut longest = vec![String::new()];
    for _ in 0..most {
        longest = longest.iter().flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}"))).collect();
        texts.extend(longest.iter().cloned());
    }
    texts
}
