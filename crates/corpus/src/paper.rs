//! The records litnav keeps: papers and topics (an expert survey's reference list, and its
//! taxonomy or outline when the source has one).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a paper's id came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum IdOrigin {
    /// The input file gave the id (litbench, AAN, CiteSeer, any litnav JSONL). Two papers whose
    /// ids both came from a source are never merged by title: the source said they differ.
    #[default]
    Source,
    /// litnav derived it from the title (TaxoBench, OpenAlex, BibTeX records).
    Title,
}

/// A paper in a corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Paper {
    /// Stable id: the source's id, or one derived from the title (see [`IdOrigin`]).
    pub id: String,
    /// Where `id` came from.
    #[serde(default)]
    pub id_origin: IdOrigin,
    /// Title as first seen.
    pub title: String,
    /// Abstract text, when known.
    #[serde(rename = "abstract", default, skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<String>,
    /// Publication year, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    /// Publication date (`YYYY-MM-DD`), when the source gives one (OpenAlex's
    /// `publication_date`, a JSONL `date`); time windows use it when every dated paper has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Venue (journal, conference or hosting site), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    /// Author names in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// Citation count reported by the source (global, not only in-corpus), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation_count: Option<u64>,
    /// A survey or review. Set by the source when it says so (OpenAlex `type: review`, a JSONL
    /// `is_survey`), otherwise inferred from the title by [`looks_like_survey`].
    #[serde(default)]
    pub is_survey: bool,
    /// External ids: `doi` (lowercase, no resolver prefix), `openalex` (`W…`), `arxiv`,
    /// `bibtex` (citation key), `taxobench` (instance id), …
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ids: BTreeMap<String, String>,
    /// Other source ids that were merged into this paper (a duplicate's id keeps resolving).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Ids of in-corpus papers this paper cites, without duplicates, in first-seen order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// References to works outside the corpus, as the source named them (ids, DOIs, URLs).
    /// They are resolved into `references` when a later ingest adds the cited work.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub external_references: Vec<String>,
    /// Topic ids whose expert survey cites this paper (litbench's `sources`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// The source flagged the abstract as possibly belonging to another paper.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub abstract_suspect: bool,
    /// What kind of work it is, when the source says (OpenAlex's `type`: `article`, `preprint`,
    /// `review`, `book-chapter`, `paratext`, `erratum`, `retraction`, …; `paratext` also when
    /// OpenAlex sets `is_paratext`). Maps leave out [`NOT_RESEARCH`] by default.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub work_type: Option<String>,
    /// The source marks the work as retracted: shown wherever the paper is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
    /// The language of the work (ISO 639-1, `en`), when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

pub use litnav_core::work::NOT_RESEARCH;

impl Paper {
    /// Title and abstract joined as one passage (`"Title. Abstract"`; no extra period when the
    /// title already ends in punctuation): the text litnav embeds.
    pub fn text(&self) -> String {
        self.as_text().passage()
    }

    /// Whether a map keeps the paper: its type is among `include` when that names types, else it
    /// is not one of [`NOT_RESEARCH`]. A paper whose source gives no type is always kept.
    pub fn kept_in_maps(&self, include: Option<&[String]>) -> bool {
        self.work_type.as_deref().is_none_or(|work_type| type_kept_in_maps(work_type, include))
    }

    /// The paper as title and abstract, the view prompts and organizers read.
    pub fn as_text(&self) -> litnav_core::PaperText<'_> {
        litnav_core::PaperText::new(&self.title, self.abstract_text.as_deref())
    }
}

/// Whether a map keeps works of `work_type`: it is among `include` when that names types, else it
/// is not one of [`NOT_RESEARCH`].
pub fn type_kept_in_maps(work_type: &str, include: Option<&[String]>) -> bool {
    match include {
        Some(types) => types.iter().any(|t| t.eq_ignore_ascii_case(work_type)),
        None => !NOT_RESEARCH.contains(&work_type),
    }
}

/// A topic: an expert survey, its references in the corpus and, when known, its structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Topic {
    /// Stable id (`cs_01`, `taxobench:28`, …).
    pub id: String,
    /// The survey's title, which is also the topic query.
    pub title: String,
    /// Publication year of the survey, when known (the `--before` cut-off for leakage filters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    /// Which dataset the topic came from (`litbench`, `taxobench`).
    pub source: String,
    /// Corpus ids of the survey's references.
    #[serde(default)]
    pub reference_ids: Vec<String>,
    /// References that did not resolve to a corpus paper, as the source named them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved_references: Vec<String>,
    /// The expert taxonomy (TaxoBench interchange format), when the source has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taxonomy: Option<serde_json::Value>,
    /// The survey's outline (nested headings), when the source has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outline: Option<serde_json::Value>,
}

/// The title rule that marks a paper as a survey when its source does not say: the title contains
/// one of the words *survey*, *surveys*, *review*, *reviews*, *overview*, *meta-analysis* or the
/// phrase *state of the art* (as whole words, any case). ResearchArena excludes surveys from
/// discovery candidates; this rule errs towards flagging (a "peer review" study is flagged), which
/// for a leakage filter is the safe side.
pub fn looks_like_survey(title: &str) -> bool {
    let key = crate::normalize::title_key(title);
    let padded = format!(" {key} ");
    ["survey", "surveys", "review", "reviews", "overview", "meta analysis", "state of the art"]
        .iter()
        .any(|word| padded.contains(&format!(" {word} ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survey_titles_are_recognized() {
        assert!(looks_like_survey("A Survey on Vision Transformer"));
        assert!(looks_like_survey("Hepcidin and iron in health and disease: a review"));
        assert!(looks_like_survey("A Meta-Analysis of Priming"));
        assert!(!looks_like_survey("Surveying the landscape")); // not the whole word
        assert!(!looks_like_survey("Attention Is All You Need"));
    }

    #[test]
    fn text_joins_title_and_abstract() {
        let mut paper = Paper { title: "T".into(), ..Paper::default() };
        assert_eq!(paper.text(), "T");
        paper.abstract_text = Some("A".into());
        assert_eq!(paper.text(), "T. A");
        paper.title = "Why?".into();
        assert_eq!(paper.text(), "Why? A");
    }
}
