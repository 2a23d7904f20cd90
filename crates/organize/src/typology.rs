//! ResearchArena's clustering baseline for mind-maps (seed 002 §6.1), built as the paper builds it:
//! Ward's hierarchical clustering of every reference's vector, the whole dendrogram kept as the
//! typology, every node named by its most important TF-IDF phrase of one to three words.
//!
//! Choices the paper leaves open, fixed here:
//! - the vectors are the papers' own unit vectors (no centring), the distance Ward's on squared
//!   Euclidean distance ([`crate::cluster::Linkage::Ward`]);
//! - every merge of the dendrogram is a heading; a paper hangs, as a paper, under the merge that
//!   first takes it in; the root is named by the topic (it is the mind-map's topic, not a heading);
//! - TF-IDF is scikit-learn's default reading over the references as documents (smooth idf
//!   `ln((1 + n) / (1 + df)) + 1`, raw counts, each paper's vector L2-normalized), with the
//!   organizer's key-phrase candidates (no phrase spans a stop word or punctuation); a
//!   node's weight of a phrase is the sum over its papers, ties broken by the phrase's order.

use crate::Doc;
use crate::cluster::{Linkage, agglomerate};
use crate::label::phrases_of;
use litnav_eval::tree::Tree;
use std::collections::{BTreeMap, HashMap};

/// The Ward typology of `docs` under `topic`.
pub fn ward_typology(topic: &str, docs: &[Doc]) -> Tree {
    if docs.len() < 2 {
        return Tree::leaf(topic, docs.iter().map(|d| d.title.clone()).collect());
    }
    let vectors: Vec<Vec<f32>> = docs.iter().map(|d| d.vector.clone()).collect();
    let dendrogram = agglomerate(&vectors, Linkage::Ward);
    let (vocabulary, weights) = tfidf(docs);
    // Per cluster (points 0..n, merges n..): its phrase weights and its tree (merges only).
    let mut sums: Vec<BTreeMap<usize, f64>> = weights;
    let mut nodes: Vec<Option<Tree>> = (0..docs.len()).map(|_| None).collect();
    for &(a, b, _) in &dendrogram.merges {
        let mut sum = sums[a].clone();
        for (&term, &w) in &sums[b] {
            *sum.entry(term).or_insert(0.0) += w;
        }
        let mut node = Tree::node(vocabulary.best(&sum), Vec::new());
        for child in [a, b] {
            match nodes[child].take() {
                Some(tree) => node.children.push(tree),
                None => node.papers.push(docs[child].title.clone()),
            }
        }
        sums.push(sum);
        nodes.push(Some(node));
    }
    let mut root = nodes.pop().flatten().unwrap_or_else(|| Tree::node(topic, Vec::new()));
    root.name = topic.to_string();
    root
}

/// Phrases numbered in order of first appearance.
struct Vocabulary {
    phrases: Vec<String>,
}

impl Vocabulary {
    /// The phrase of highest weight (the earliest on ties); "" when there is none.
    fn best(&self, weights: &BTreeMap<usize, f64>) -> String {
        let mut best: Option<(usize, f64)> = None;
        for (&term, &w) in weights {
            if best.is_none_or(|(_, top)| w > top) {
                best = Some((term, w));
            }
        }
        best.map(|(term, _)| self.phrases[term].clone()).unwrap_or_default()
    }
}

/// The papers' vocabulary and each paper's TF-IDF vector over its numbering (scikit-learn's
/// defaults), each paper's phrases read once.
fn tfidf(docs: &[Doc]) -> (Vocabulary, Vec<BTreeMap<usize, f64>>) {
    let mut number: HashMap<String, usize> = HashMap::new();
    let mut phrases = Vec::new();
    let counts: Vec<BTreeMap<usize, f64>> = docs
        .iter()
        .map(|doc| {
            let text = litnav_core::PaperText::new(&doc.title, doc.abstract_text.as_deref()).passage();
            let mut tf = BTreeMap::new();
            phrases_of(&text, |phrase, _| {
                let next = phrases.len();
                let term = *number.entry(phrase).or_insert_with_key(|phrase| {
                    phrases.push(phrase.clone());
                    next
                });
                *tf.entry(term).or_insert(0.0) += 1.0;
            });
            tf
        })
        .collect();
    let mut df = vec![0usize; phrases.len()];
    for tf in &counts {
        tf.keys().for_each(|&t| df[t] += 1);
    }
    let n = docs.len() as f64;
    let weights = counts
        .into_iter()
        .map(|mut tf| {
            tf.iter_mut().for_each(|(&t, w)| *w *= ((1.0 + n) / (1.0 + df[t] as f64)).ln() + 1.0);
            let norm = tf.values().map(|w| w * w).sum::<f64>().sqrt();
            if norm > 0.0 {
                tf.values_mut().for_each(|w| *w /= norm);
            }
            tf
        })
        .collect();
    (Vocabulary { phrases }, weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(title: &str, vector: [f32; 2]) -> Doc {
        let norm = (vector[0] * vector[0] + vector[1] * vector[1]).sqrt();
        Doc {
            id: title.to_string(),
            title: title.to_string(),
            year: None,
            abstract_text: None,
            vector: vector.iter().map(|v| v / norm).collect(),
        }
    }

    #[test]
    fn the_whole_dendrogram_named_by_tfidf() {
        let docs = [
            doc("graph neural networks", [1.0, 0.0]),
            doc("graph attention networks", [0.99, 0.05]),
            doc("protein folding", [0.0, 1.0]),
            doc("protein structure prediction", [0.05, 0.99]),
        ];
        let tree = ward_typology("Topic", &docs);
        assert_eq!(tree.name, "Topic");
        // Three merges: the two pairs, then the root; every paper hangs under its first merge.
        assert_eq!(tree.children.len(), 2);
        let names: Vec<&str> = tree.children.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"networks") || names.contains(&"graph"), "{names:?}");
        assert!(names.contains(&"protein"), "{names:?}");
        assert!(tree.children.iter().all(|c| c.papers.len() == 2 && c.children.is_empty()));
        assert_eq!(ward_typology("T", &docs[..1]).papers, ["graph neural networks"]);
    }
}
