//! Whether a corpus covers a map's topic. A corpus that holds a field answers its topic with
//! papers close to it that speak its words; a corpus that does not still answers — with the
//! nearest of its other fields — and a map of those looks like a map of the topic. So every map
//! retrieved from a corpus carries its evidence and a verdict: how close the topic's nearest
//! retrieved papers are (mean cosine of the topic to its ten closest), how many of the most
//! relevant papers use the topic's own words, and how much of what was retrieved the score floor
//! kept. The verdict's rule and thresholds are measured by `litnav bench coverage` (each of the
//! litbench surveys mapped from the corpus with and without its references; BENCHMARKS.md).

use litnav_organize::Doc;
use serde::{Deserialize, Serialize};

/// The closest retrieved papers whose cosine to the topic is averaged.
pub const CLOSEST: usize = 10;

/// The most relevant papers whose words are looked at.
pub const MOST_RELEVANT: usize = 20;

/// The verdict's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CoverageRule {
    /// The least mean cosine of the topic to its closest papers for a covered topic.
    pub closeness: f32,
    /// The least share of the topic's words' uses among the most relevant papers.
    pub term_support: f32,
}

impl CoverageRule {
    /// The verdict on this evidence: covered when both are at or above their floors.
    pub fn covers(&self, closeness: f32, term_support: f32) -> bool {
        closeness >= self.closeness && term_support >= self.term_support
    }
}

/// The rule maps use: the best on the 19 litbench surveys under the field protocol of `litnav bench
/// coverage` (BENCHMARKS.md), rounded.
pub const COVERAGE_RULE: CoverageRule = CoverageRule { closeness: 0.48, term_support: 0.33 };

/// A map's coverage: the verdict and the evidence beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Whether the corpus covers the topic.
    pub covered: bool,
    /// Mean cosine of the topic to its closest retrieved papers.
    pub closeness: f32,
    /// For each of the topic's words, the share of the most relevant papers that use it, averaged.
    pub term_support: f32,
    /// The topic's words that at most one of the most relevant papers uses.
    pub missing_terms: Vec<String>,
    /// Each of the topic's words (stemmed) with the share of the most relevant papers using it.
    pub terms: Vec<(String, f32)>,
    /// Papers the map keeps.
    pub kept: usize,
    /// Papers retrieved.
    pub retrieved: usize,
    /// The rule the verdict applied.
    pub rule: CoverageRule,
    /// One line for a person: the verdict, its evidence, and what to do.
    pub message: String,
}

/// Words of a survey title that name no field.
const GENERIC: &[&str] = &[
    "survey",
    "review",
    "overview",
    "comprehensive",
    "systematic",
    "recent",
    "advances",
    "advance",
    "towards",
    "toward",
    "study",
    "studies",
    "introduction",
    "tutorial",
    "perspective",
    "perspectives",
    "trends",
    "challenges",
    "future",
    "directions",
    "state",
    "art",
    "literature",
    "progress",
    "new",
    "approaches",
];

/// The coverage of `topic` by `docs` (the kept papers, most relevant first) out of `retrieved`.
pub fn assess(topic: &str, topic_vector: &[f32], docs: &[Doc], retrieved: usize, rule: CoverageRule) -> Coverage {
    let mut cosines: Vec<f32> = docs.iter().map(|d| litnav_core::vector::dot(topic_vector, &d.vector)).collect();
    cosines.sort_by(|a, b| b.total_cmp(a));
    let closest = &cosines[..cosines.len().min(CLOSEST)];
    let closeness = if closest.is_empty() { 0.0 } else { closest.iter().sum::<f32>() / closest.len() as f32 };
    let relevant: Vec<std::collections::HashSet<String>> = docs
        .iter()
        .take(MOST_RELEVANT)
        .map(|d| words(&format!("{} {}", d.title, d.abstract_text.as_deref().unwrap_or(""))).collect())
        .collect();
    let terms: Vec<String> = topic_terms(topic);
    let support: Vec<f32> = terms
        .iter()
        .map(|t| relevant.iter().filter(|w| w.contains(t)).count() as f32 / relevant.len().max(1) as f32)
        .collect();
    let term_support = if support.is_empty() { 1.0 } else { support.iter().sum::<f32>() / support.len() as f32 };
    let missing_terms: Vec<String> = terms
        .iter()
        .zip(&support)
        .filter(|(_, s)| **s * relevant.len() as f32 <= 1.0)
        .map(|(t, _)| t.clone())
        .collect();
    let covered = rule.covers(closeness, term_support);
    let message = message(topic, covered, closeness, &missing_terms, docs.len(), retrieved);
    let terms = terms.into_iter().zip(support).collect();
    Coverage { covered, closeness, term_support, missing_terms, terms, kept: docs.len(), retrieved, rule, message }
}

fn message(topic: &str, covered: bool, closeness: f32, missing: &[String], kept: usize, retrieved: usize) -> String {
    if covered {
        return format!("the corpus covers “{topic}”: its closest papers are at cosine {closeness:.2} to it");
    }
    let mut text =
        format!("the corpus may not cover “{topic}”: its closest papers are only at cosine {closeness:.2} to it");
    if !missing.is_empty() {
        text.push_str(&format!(", and “{}” is almost absent from the most relevant ones", missing.join("”, “")));
    }
    text.push_str(&format!(
        " ({kept} of {retrieved} papers kept), so this map may be of neighbouring fields; fetch the field from \
         OpenAlex into a corpus of its own, or name a narrower topic the corpus holds"
    ));
    text
}

/// The topic's words that name its field (stop words and survey words left out), stemmed.
pub fn topic_terms(topic: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for run in litnav_core::text::content_runs(topic) {
        // Split as the papers' words are split ("in-context" is "in" and "context" there).
        for word in run.iter().flat_map(|w| w.split(|c: char| !c.is_alphanumeric())) {
            let word = word.to_lowercase();
            if word.chars().count() < 2 || GENERIC.contains(&word.as_str()) || is_stop_word(&word) {
                continue;
            }
            let stem = stem(&word);
            if !terms.contains(&stem) {
                terms.push(stem);
            }
        }
    }
    terms
}

fn is_stop_word(word: &str) -> bool {
    litnav_core::text::STOP_WORDS.contains(&word)
}

/// A text's words, lowercased and stemmed as the topic's are.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| stem(&w.to_lowercase()))
}

/// A light stem: plural and common suffixes folded, so "networks" meets "network".
fn stem(word: &str) -> String {
    for suffix in ["ies", "es", "s"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
            && !word.ends_with("ss")
        {
            return if suffix == "ies" { format!("{stem}y") } else { stem.to_string() };
        }
    }
    word.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(title: &str, vector: Vec<f32>) -> Doc {
        Doc { id: title.into(), title: title.into(), year: None, abstract_text: None, vector }
    }

    #[test]
    fn the_topics_words_leave_out_survey_words_and_fold_plurals() {
        assert_eq!(topic_terms("A Survey on Graph Neural Networks"), ["graph", "neural", "network"]);
        assert_eq!(topic_terms("A Survey on In-context Learning"), ["context", "learning"]);
        assert_eq!(stem("studies"), "study");
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn far_papers_without_the_topics_words_are_not_coverage() {
        let rule = CoverageRule { closeness: 0.5, term_support: 0.3 };
        let near = vec![doc("Graph neural networks for molecules", vec![1.0, 0.0]); 12];
        let covered = assess("graph neural networks", &[1.0, 0.0], &near, 200, rule);
        assert!(covered.covered && covered.missing_terms.is_empty(), "{covered:?}");
        let far = vec![doc("Energy consumption of data centres", vec![0.3, 0.954]); 12];
        let uncovered = assess("graph neural networks", &[1.0, 0.0], &far, 200, rule);
        assert!(!uncovered.covered);
        assert_eq!(uncovered.missing_terms, ["graph", "neural", "network"]);
        assert!(uncovered.message.contains("fetch the field"), "{}", uncovered.message);
    }
}
