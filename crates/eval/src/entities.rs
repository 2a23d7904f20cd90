//! ResearchArena's Heading Entity Recall: the share of the entities named in a reference
//! mind-map's headings that the predicted mind-map's headings also name.
//!
//! The paper (after STORM) extracts entities with FLAIR's named-entity tagger. litnav stays offline
//! and uses a documented extractor instead, tuned for survey headings rather than news text:
//! - a heading is split into runs of content words ([`litnav_core::text::content_runs`]: no stop
//!   word, number or punctuation inside a run), and the generic words of outlines
//!   ([`GENERIC_HEADING_WORDS`]: "introduction", "methods", "future directions", …) also end a run;
//! - a run of two words or more is an entity ("vision transformer", "domain generalization");
//! - a single word is an entity only when it is written as a name: an acronym or a mixed-case or
//!   alphanumeric token ("BERT", "ViT", "NLRP3", "GPT-4"), never a plain word ("Robustness");
//! - entities compare lower-cased with each word's plural reduced ("transformers" = "transformer"),
//!   and a reference entity counts as named when a predicted entity holds it as whole words
//!   ("vision transformer" is named by "vision transformer backbones", not by "transformer"): the
//!   extractor finds phrases, where a tagger finds bare names, so exact phrase identity would ask
//!   for more than the paper's metric does.
//!
//! The root of a tree is the topic itself, so it is not a heading on either side. A reference
//! whose headings name no entity has no Heading Entity Recall (`None`), rather than 0 or 1.

use crate::tree::Tree;
use litnav_core::text::content_runs;
use std::collections::BTreeSet;

/// Words that name the parts of any outline, not its subject: they never belong to an entity.
pub const GENERIC_HEADING_WORDS: &[&str] = &[
    "introduction",
    "conclusion",
    "conclusions",
    "concluding",
    "remarks",
    "background",
    "preliminaries",
    "preliminary",
    "overview",
    "summary",
    "discussion",
    "discussions",
    "future",
    "directions",
    "direction",
    "challenges",
    "challenge",
    "open",
    "problems",
    "issues",
    "outlook",
    "perspectives",
    "perspective",
    "related",
    "work",
    "works",
    "methods",
    "method",
    "applications",
    "application",
    "taxonomy",
    "definitions",
    "definition",
    "appendix",
    "references",
    "acknowledgments",
    "acknowledgements",
    "limitations",
    "other",
    "others",
    "miscellaneous",
    "general",
    "part",
    "section",
    "chapter",
];

/// The entities of one heading, normalized (lower case, plurals reduced), in heading order.
pub fn heading_entities(heading: &str) -> Vec<String> {
    let mut entities = Vec::new();
    for run in content_runs(heading) {
        let mut current: Vec<&str> = Vec::new();
        for word in run.into_iter().chain(std::iter::once("")) {
            if word.is_empty() || GENERIC_HEADING_WORDS.contains(&word.to_lowercase().as_str()) {
                if let Some(entity) = entity_of(&current) {
                    entities.push(entity);
                }
                current.clear();
            } else {
                current.push(word);
            }
        }
    }
    entities
}

/// A run of words as an entity, when it is one.
fn entity_of(words: &[&str]) -> Option<String> {
    match words {
        [] => None,
        [word] if !written_as_name(word) => None,
        _ => Some(words.iter().map(|w| singular(&w.to_lowercase())).collect::<Vec<_>>().join(" ")),
    }
}

/// An acronym, a mixed-case token or one mixing letters and digits.
fn written_as_name(word: &str) -> bool {
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    let upper = letters.iter().filter(|c| c.is_uppercase()).count();
    let has_digit = word.chars().any(|c| c.is_ascii_digit());
    let mixed_case = letters.iter().skip(1).any(|c| c.is_uppercase());
    !letters.is_empty() && (upper >= 2 || mixed_case || has_digit)
}

/// A lower-case word with a regular English plural reduced ("studies" → "study",
/// "transformers" → "transformer"; "analysis", "bias", "class" stay).
fn singular(word: &str) -> String {
    let n = word.chars().count();
    if NOT_PLURALS.contains(&word) {
        return word.to_string();
    }
    if n > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..word.len() - 3]);
    }
    let keeps = ["ss", "us", "is", "ics"].iter().any(|end| word.ends_with(end));
    if n > 3 && word.ends_with('s') && !keeps {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// Words ending in "s" that are not plurals of a word without it.
const NOT_PLURALS: &[&str] =
    &["bias", "gas", "lens", "series", "species", "news", "atlas", "canvas", "alias", "whereas"];

/// The entities of every heading of a tree below its root.
pub fn tree_entities(tree: &Tree) -> BTreeSet<String> {
    tree.labels().into_iter().skip(1).flat_map(heading_entities).collect()
}

/// Heading Entity Recall of `predicted` against `reference` (`None` when the reference's headings
/// name no entity).
pub fn heading_entity_recall(reference: &Tree, predicted: &Tree) -> Option<f64> {
    let wanted = tree_entities(reference);
    if wanted.is_empty() {
        return None;
    }
    let found: Vec<String> = tree_entities(predicted).into_iter().map(|e| format!(" {e} ")).collect();
    let named = wanted.iter().filter(|e| found.iter().any(|f| f.contains(&format!(" {e} ")))).count();
    Some(named as f64 / wanted.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_of_survey_headings() {
        assert_eq!(
            heading_entities("3.2 Vision Transformers for Dense Prediction"),
            ["vision transformer", "dense prediction"]
        );
        assert_eq!(heading_entities("Introduction"), Vec::<String>::new());
        assert_eq!(heading_entities("Future Directions and Open Challenges"), Vec::<String>::new());
        assert_eq!(heading_entities("Robustness"), Vec::<String>::new(), "a plain word is not a name");
        assert_eq!(heading_entities("BERT and GPT-4"), ["bert", "gpt-4"]);
        assert_eq!(heading_entities("ViT variants"), ["vit variant"]);
        assert_eq!(heading_entities("Applications of Graph Neural Networks"), ["graph neural network"]);
        assert_eq!(heading_entities("NLRP3 inflammasome activation"), ["nlrp3 inflammasome activation"]);
        assert_eq!(heading_entities("Bias analysis: ranking models"), ["bias analysis", "ranking model"]);
        assert_eq!(heading_entities("Time series; Battery Chemistries"), ["time series", "battery chemistry"]);
    }

    #[test]
    fn recall_by_hand() {
        let reference = Tree::node(
            "Topic",
            vec![
                Tree::leaf("Vision Transformers", vec![]),
                Tree::node("Methods", vec![Tree::leaf("Self-Supervised Learning", vec![]), Tree::leaf("BERT", vec![])]),
            ],
        );
        // Reference entities: vision transformer, self-supervised learning, bert.
        let predicted = Tree::node(
            "Topic",
            vec![
                Tree::leaf("Vision transformer backbones", vec![]),
                Tree::leaf("self-supervised learning", vec![]),
                Tree::leaf("Transformers", vec![]),
                Tree::leaf("ROBERTA", vec![]),
            ],
        );
        assert_eq!(heading_entity_recall(&reference, &predicted), Some(2.0 / 3.0), "whole words only: not BERT");
        let bare = Tree::node("Topic", vec![Tree::leaf("Transformer models", vec![])]);
        assert_eq!(heading_entity_recall(&reference, &bare), Some(0.0), "a broader phrase does not name it");
        assert_eq!(heading_entity_recall(&reference, &reference), Some(1.0));
        let generic = Tree::node("Vision Transformers", vec![Tree::leaf("Introduction", vec![])]);
        assert_eq!(heading_entity_recall(&generic, &reference), None, "the root is the topic, not a heading");
    }
}
