//! The public `taxobench` package's readings (repository KongLongGeFDU/TaxoBench, `score.py` and
//! `metrics/`), for `--similarity public`: every key it reports, to the last digit.
//!
//! Where they differ from litnav's seed reading ([`super::leaf_scores`], [`crate::hierarchy`]):
//! - **Paper keys** are the titles as written (leaf and retrieval metrics) or trimmed (Sem-Path),
//!   not normalized: two spellings of one title are two papers until alignment.
//! - **A paper listed twice** takes the *last* node that lists it for the leaf labels, while its key
//!   keeps its first place in the alignment order; retrieval counts every listing on both sides
//!   (a duplicate in the prediction lowers precision).
//! - **Clusters** are the nodes that hold at least one paper; nodes without papers take no label.
//! - **Sem-Path paths** hold the names of the nodes from the root down, leaving out empty names;
//!   the label similarity is the title similarity (normalized labels, containment → 1, else
//!   difflib's ratio); λ = 1; an instance without aligned papers scores 0 (litnav's seed reading
//!   leaves it out of the mean).
//! - **Fewer than two reference papers** score 0 on every leaf metric.

use super::{Title, align, harmonic_mean, ratio, title_similarity};
use crate::clustering::{adjusted_rand_index, homogeneity_completeness_v, numpy_sum};
use crate::hierarchy::chain_cost;
use crate::tree::{LabelSimilarity, Tree};
use std::collections::HashMap;

/// The public scorer's numbers for one instance, under its key names (`leaf_*`, `sem_path_*`,
/// `retrieval_*` in its per-survey output).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PublicScores {
    /// End-to-end ARI.
    pub leaf_ari: f64,
    /// End-to-end V-measure.
    pub leaf_v_measure: f64,
    /// End-to-end homogeneity.
    pub leaf_homogeneity: f64,
    /// End-to-end completeness.
    pub leaf_completeness: f64,
    /// ARI on aligned papers only (not a key of the public scorer; litnav's ARI∩ in its reading).
    pub leaf_ari_cap: f64,
    /// V-measure on aligned papers only (V∩, likewise).
    pub leaf_v_measure_cap: f64,
    /// Reference papers aligned (leaf view).
    pub leaf_n_aligned: usize,
    /// Distinct reference paper keys.
    pub leaf_n_reference: usize,
    /// Distinct predicted paper keys.
    pub leaf_n_prediction: usize,
    /// Sem-Path (0 when no paper aligned).
    pub sem_path_sem_path: f64,
    /// Papers Sem-Path aligned.
    pub sem_path_n_aligned: usize,
    /// Recall of the reference's paper listings.
    pub retrieval_recall: f64,
    /// Aligned listings over retrieved listings.
    pub retrieval_precision: f64,
    /// Harmonic mean of the two.
    pub retrieval_f1: f64,
    /// Reference listings aligned.
    pub retrieval_n_hits: usize,
    /// Reference listings.
    pub retrieval_n_reference: usize,
    /// Retrieved listings.
    pub retrieval_n_retrieved: usize,
}

/// Label similarity of the public Sem-Path: the title similarity of the normalized labels
/// ([`title_similarity`] of two [`Title`]s, for labels compared many times).
pub fn label_similarity(a: &str, b: &str) -> f64 {
    title_similarity(&Title::new(a), &Title::new(b))
}

/// Score one instance as the public scorer does; `retrieved`, when given and not empty, replaces
/// the tree's papers for the retrieval metrics (its `retrieved_papers`). `sim` is
/// [`label_similarity`], or a table of it.
pub fn score(
    reference: &Tree,
    predicted: &Tree,
    retrieved: Option<&[String]>,
    threshold: f64,
    sim: &dyn LabelSimilarity,
) -> PublicScores {
    let leaf = leaf(reference, predicted, threshold);
    let (sem_path_sem_path, sem_path_n_aligned) = sem_path(reference, predicted, threshold, sim);
    let reference_listings = listings(reference);
    let retrieved_listings = match retrieved {
        Some(titles) if !titles.is_empty() => titles.iter().filter(|t| !t.is_empty()).cloned().collect(),
        _ => listings(predicted),
    };
    let hits = align(&reference_listings, &retrieved_listings, threshold).iter().flatten().count();
    let recall = ratio(hits, reference_listings.len());
    let precision = ratio(hits, retrieved_listings.len());
    PublicScores {
        leaf_ari: leaf.ari,
        leaf_v_measure: leaf.v_measure,
        leaf_homogeneity: leaf.homogeneity,
        leaf_completeness: leaf.completeness,
        leaf_ari_cap: leaf.ari_cap,
        leaf_v_measure_cap: leaf.v_measure_cap,
        leaf_n_aligned: leaf.n_aligned,
        leaf_n_reference: leaf.n_reference,
        leaf_n_prediction: leaf.n_prediction,
        sem_path_sem_path,
        sem_path_n_aligned,
        retrieval_recall: recall,
        retrieval_precision: precision,
        retrieval_f1: harmonic_mean(precision, recall),
        retrieval_n_hits: hits,
        retrieval_n_reference: reference_listings.len(),
        retrieval_n_retrieved: retrieved_listings.len(),
    }
}

/// Every paper listing of a tree in preorder, empty titles left out, duplicates kept.
fn listings(tree: &Tree) -> Vec<String> {
    tree.listed_titles().into_iter().filter(|t| !t.is_empty()).collect()
}

/// Distinct paper titles in first-seen order, each with the last cluster (node holding papers)
/// that lists it.
fn cluster_labels(tree: &Tree) -> (Vec<String>, HashMap<String, usize>) {
    fn walk(node: &Tree, clusters: &mut usize, order: &mut Vec<String>, label: &mut HashMap<String, usize>) {
        let titles: Vec<&String> = node.papers.iter().filter(|t| !t.is_empty()).collect();
        if !titles.is_empty() {
            for title in titles {
                if label.insert(title.clone(), *clusters).is_none() {
                    order.push(title.clone());
                }
            }
            *clusters += 1;
        }
        for child in &node.children {
            walk(child, clusters, order, label);
        }
    }
    let (mut clusters, mut order, mut label) = (0, Vec::new(), HashMap::new());
    walk(tree, &mut clusters, &mut order, &mut label);
    (order, label)
}

struct Leaf {
    ari: f64,
    v_measure: f64,
    homogeneity: f64,
    completeness: f64,
    ari_cap: f64,
    v_measure_cap: f64,
    n_aligned: usize,
    n_reference: usize,
    n_prediction: usize,
}

fn leaf(reference: &Tree, predicted: &Tree, threshold: f64) -> Leaf {
    let (reference_titles, reference_label) = cluster_labels(reference);
    let (predicted_titles, predicted_label) = cluster_labels(predicted);
    let alignment = align(&reference_titles, &predicted_titles, threshold);
    const UNRETRIEVED: usize = usize::MAX;
    let truth: Vec<usize> = reference_titles.iter().map(|t| reference_label[t]).collect();
    let guess: Vec<usize> =
        alignment.iter().map(|a| a.map_or(UNRETRIEVED, |j| predicted_label[&predicted_titles[j]])).collect();
    let aligned: Vec<usize> = (0..truth.len()).filter(|&i| alignment[i].is_some()).collect();
    let truth_cap: Vec<usize> = aligned.iter().map(|&i| truth[i]).collect();
    let guess_cap: Vec<usize> = aligned.iter().map(|&i| guess[i]).collect();
    let (n_aligned, n_reference, n_prediction) = (aligned.len(), truth.len(), predicted_titles.len());
    if truth.len() < 2 {
        let zero = Leaf {
            ari: 0.0,
            v_measure: 0.0,
            homogeneity: 0.0,
            completeness: 0.0,
            ari_cap: 0.0,
            v_measure_cap: 0.0,
            n_aligned,
            n_reference,
            n_prediction,
        };
        return zero;
    }
    let (homogeneity, completeness, v_measure) = homogeneity_completeness_v(&truth, &guess);
    let (ari_cap, v_measure_cap) = if truth_cap.len() < 2 {
        (0.0, 0.0)
    } else {
        (adjusted_rand_index(&truth_cap, &guess_cap), homogeneity_completeness_v(&truth_cap, &guess_cap).2)
    };
    Leaf {
        ari: adjusted_rand_index(&truth, &guess),
        v_measure,
        homogeneity,
        completeness,
        ari_cap,
        v_measure_cap,
        n_aligned,
        n_reference,
        n_prediction,
    }
}

/// Trimmed paper title → every path of node names (root first, empty names left out) to a node
/// listing it; titles in first-seen order.
fn leaf_paths(tree: &Tree) -> (Vec<String>, HashMap<String, Vec<Vec<&str>>>) {
    fn walk<'a>(
        node: &'a Tree,
        path: &mut Vec<&'a str>,
        order: &mut Vec<String>,
        paths: &mut HashMap<String, Vec<Vec<&'a str>>>,
    ) {
        let name = node.name.trim();
        let named = !name.is_empty();
        if named {
            path.push(name);
        }
        for title in &node.papers {
            let title = title.trim();
            if title.is_empty() {
                continue;
            }
            let entry = paths.entry(title.to_string()).or_default();
            if entry.is_empty() {
                order.push(title.to_string());
            }
            entry.push(path.clone());
        }
        for child in &node.children {
            walk(child, path, order, paths);
        }
        if named {
            path.pop();
        }
    }
    let (mut order, mut paths) = (Vec::new(), HashMap::new());
    walk(tree, &mut Vec::new(), &mut order, &mut paths);
    (order, paths)
}

/// Mean over aligned papers of the best `1 / (1 + cost)` of their paths, and the number aligned.
fn sem_path(reference: &Tree, predicted: &Tree, threshold: f64, sim: &dyn LabelSimilarity) -> (f64, usize) {
    let (reference_titles, reference_paths) = leaf_paths(reference);
    let (predicted_titles, predicted_paths) = leaf_paths(predicted);
    let alignment = align(&reference_titles, &predicted_titles, threshold);
    let mut scores = Vec::new();
    for (i, aligned) in alignment.iter().enumerate() {
        let Some(j) = aligned else { continue };
        let mut best = 0.0f64;
        for ours in &reference_paths[&reference_titles[i]] {
            for theirs in &predicted_paths[&predicted_titles[*j]] {
                best = best.max(1.0 / (1.0 + chain_cost(ours, theirs, 1.0, sim)));
            }
        }
        scores.push(best);
    }
    (numpy_mean(&scores), scores.len())
}

/// `numpy.mean` of a 1-D float64 array (0 for none): numpy's pairwise sum divided by the count.
fn numpy_mean(values: &[f64]) -> f64 {
    if values.is_empty() { 0.0 } else { numpy_sum(values) / values.len() as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(json: &str) -> Tree {
        Tree::from_json(&serde_json::from_str(json).unwrap()).unwrap()
    }

    #[test]
    fn duplicates_count_in_retrieval_and_take_the_last_cluster() {
        let reference =
            tree(r#"{"name":"R","subtopics":[{"name":"a","papers":["P1","P2"]},{"name":"b","papers":["P3","P4"]}]}"#);
        let predicted = tree(
            r#"{"name":"X","subtopics":[{"name":"a","papers":["P1","P3"]},{"name":"b","papers":["P2","P4","P1"]}]}"#,
        );
        let scores = score(&reference, &predicted, None, 0.92, &label_similarity);
        // Five listings retrieved, four of them hits.
        assert_eq!((scores.retrieval_n_hits, scores.retrieval_n_retrieved), (4, 5));
        assert!((scores.retrieval_precision - 0.8).abs() < 1e-15);
        // P1 labelled by its last node (b): predicted labels b, b, a, b against a, a, b, b.
        let expected = adjusted_rand_index(&[0, 0, 1, 1], &[1, 1, 0, 1]);
        assert_eq!(scores.leaf_ari, expected);
        assert_eq!(scores.leaf_n_prediction, 4);
    }

    #[test]
    fn sem_path_by_hand() {
        // Reference path [R, Alpha methods], prediction path [Alpha methods] (empty root name left out):
        // short = [Alpha methods] matches R? No: it takes the best ordered match, Alpha methods ↔
        // Alpha methods (cost 0), plus λ for the one unmatched name: 1 / (1 + 1) = 0.5.
        let reference = tree(r#"{"name":"R","subtopics":[{"name":"Alpha methods","papers":["A paper"]}]}"#);
        let predicted = tree(r#"{"name":"","subtopics":[{"name":"alpha methods!","papers":["A paper"]}]}"#);
        let scores = score(&reference, &predicted, None, 0.92, &label_similarity);
        assert_eq!((scores.sem_path_sem_path, scores.sem_path_n_aligned), (0.5, 1));
        let none = score(&reference, &tree(r#"{"name":"X","papers":["Other"]}"#), None, 0.92, &label_similarity);
        assert_eq!((none.sem_path_sem_path, none.sem_path_n_aligned), (0.0, 0));
    }

    #[test]
    fn retrieved_papers_replace_the_tree_for_retrieval_only() {
        let reference = tree(r#"{"name":"R","subtopics":[{"name":"a","papers":["P1","P2"]}]}"#);
        let predicted = tree(r#"{"name":"X","papers":["P1"]}"#);
        let retrieved = vec!["P1".to_string(), "P2".to_string(), "P9".to_string()];
        let scores = score(&reference, &predicted, Some(&retrieved), 0.92, &label_similarity);
        assert_eq!(scores.retrieval_recall, 1.0);
        assert!((scores.retrieval_precision - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(scores.leaf_n_aligned, 1);
    }

    #[test]
    fn numpy_mean_sums_pairwise() {
        let values: Vec<f64> = (0..300).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let naive = values.iter().sum::<f64>() / 300.0;
        assert!((numpy_mean(&values) - naive).abs() < 1e-15);
        assert_eq!(numpy_mean(&[]), 0.0);
    }
}
