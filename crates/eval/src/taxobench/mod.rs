//! TaxoBench's retrieval and leaf-level metrics for one instance (seed 000 §3.2, §3.3.1).
//!
//! Choices, following TaxoBench's public scorer (and `shared/reference/taxobench_examples.json`):
//! - **Title normalization**: lowercase, every non-word character (not a letter, digit or `_`)
//!   replaced by a space, white space collapsed.
//! - **Similarity** of a reference and a predicted title: 1 when the normalized titles are equal
//!   or one contains the other, otherwise difflib's ratio (reference title as `a`).
//! - **Alignment**: greedy one-to-one in reference order — each reference paper takes the
//!   not-yet-taken predicted paper of highest similarity (the first such in prediction order), kept
//!   if the similarity is at least the threshold (0.92 by default).
//!   Note: the paper's Appendix describes a different rule (align at s = 1, or 0.6 ≤ s < 1 with
//!   containment, best candidate); litnav follows the public scorer, whose numbers the paper
//!   reports.
//! - **Leaf labels**: a paper's label is the node holding it (identified by its position in the
//!   tree, not its name, so two leaves named alike stay apart); a paper listed twice keeps its
//!   first position in preorder. Papers listed on internal nodes count as assigned to that node.
//! - **End-to-end view** (eq. 6): every reference paper is scored; one shared "unretrieved" label
//!   stands for all reference papers without an aligned prediction. **Intersection view** (ARI∩):
//!   only aligned reference papers.
//! - Retrieval: recall = aligned / reference papers, precision = aligned / distinct predicted
//!   papers, F1 their harmonic mean (0 when both are 0). A prediction's `retrieved_papers`, when
//!   given, are the predicted papers for these three (a system may retrieve more than it places).
//!
//! [`public`] follows the public scorer's readings where they differ; [`Reading`] chooses.

pub mod public;

use crate::clustering::{adjusted_rand_index, homogeneity_completeness_v};
use crate::difflib;
use crate::tree::{Tree, normalize_title};
use serde::Serialize;

/// A title (or label) normalized as TaxoBench compares them, and read once for difflib.
#[derive(Debug, Clone)]
pub struct Title {
    text: String,
    sequence: difflib::Sequence,
}

impl Title {
    /// Normalize `raw` ([`normalize_title`]) and read it for comparisons.
    pub fn new(raw: &str) -> Title {
        let text = normalize_title(raw);
        let sequence = difflib::Sequence::new(&text);
        Title { text, sequence }
    }

    /// The normalized text as difflib reads it.
    pub fn sequence(&self) -> &difflib::Sequence {
        &self.sequence
    }
}

/// Similarity of two normalized titles (0 when either is empty: a title of punctuation alone
/// matches nothing).
pub fn title_similarity(reference: &Title, predicted: &Title) -> f64 {
    title_similarity_at_least(reference, predicted, 0.0).unwrap_or(0.0)
}

/// [`title_similarity`] when it is at least `floor` (see [`difflib::ratio_at_least`]).
fn title_similarity_at_least(reference: &Title, predicted: &Title, floor: f64) -> Option<f64> {
    let (a, b) = (&reference.text, &predicted.text);
    if a.is_empty() || b.is_empty() {
        (0.0 >= floor).then_some(0.0)
    } else if a == b || a.contains(b.as_str()) || b.contains(a.as_str()) {
        (1.0 >= floor).then_some(1.0)
    } else {
        difflib::ratio_at_least(&reference.sequence, &predicted.sequence, floor)
    }
}

/// For each reference title, the index of its aligned predicted title.
pub fn align(reference: &[String], predicted: &[String], threshold: f64) -> Vec<Option<usize>> {
    let predicted: Vec<Title> = predicted.iter().map(|t| Title::new(t)).collect();
    let mut taken = vec![false; predicted.len()];
    reference
        .iter()
        .map(|title| {
            let title = Title::new(title);
            // Only candidates reaching the threshold can be kept, and any of them beats every
            // candidate below it, so the search may skip pairs that cannot reach the threshold —
            // or the best score so far (strictly: the first best wins ties).
            let mut best: Option<(usize, f64)> = None;
            for (j, candidate) in predicted.iter().enumerate() {
                if taken[j] {
                    continue;
                }
                let floor = best.map_or(threshold, |(_, s)| s.max(threshold));
                let Some(score) = title_similarity_at_least(&title, candidate, floor) else { continue };
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some((j, score));
                }
            }
            match best {
                Some((j, score)) if score >= threshold => {
                    taken[j] = true;
                    Some(j)
                }
                _ => None,
            }
        })
        .collect()
}

/// Retrieval and leaf-level scores of one instance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LeafScores {
    /// Distinct papers in the reference tree.
    pub n_reference: usize,
    /// Distinct papers in the predicted tree.
    pub n_prediction: usize,
    /// Reference papers with an aligned prediction.
    pub n_aligned: usize,
    /// End-to-end ARI (unretrieved papers labelled ⊥).
    pub ari: f64,
    /// End-to-end homogeneity.
    pub homogeneity: f64,
    /// End-to-end completeness.
    pub completeness: f64,
    /// End-to-end V-measure.
    pub v_measure: f64,
    /// ARI on aligned papers only.
    pub ari_cap: f64,
    /// V-measure on aligned papers only.
    pub v_measure_cap: f64,
    /// Aligned / reference.
    pub recall: f64,
    /// Aligned / predicted.
    pub precision: f64,
    /// Harmonic mean of recall and precision.
    pub f1: f64,
}

/// Score a predicted tree against the reference tree.
pub fn leaf_scores(reference: &Tree, predicted: &Tree, threshold: f64) -> LeafScores {
    let reference_papers = reference.paper_nodes();
    let predicted_papers = predicted.paper_nodes();
    let reference_titles: Vec<String> = reference_papers.iter().map(|(t, _)| t.clone()).collect();
    let predicted_titles: Vec<String> = predicted_papers.iter().map(|(t, _)| t.clone()).collect();
    let alignment = align(&reference_titles, &predicted_titles, threshold);
    const UNRETRIEVED: usize = usize::MAX;
    let truth: Vec<usize> = reference_papers.iter().map(|(_, node)| *node).collect();
    let end_to_end: Vec<usize> = alignment.iter().map(|a| a.map_or(UNRETRIEVED, |j| predicted_papers[j].1)).collect();
    let (homogeneity, completeness, v_measure) = homogeneity_completeness_v(&truth, &end_to_end);
    let aligned: Vec<usize> = (0..truth.len()).filter(|&i| alignment[i].is_some()).collect();
    let truth_cap: Vec<usize> = aligned.iter().map(|&i| truth[i]).collect();
    let predicted_cap: Vec<usize> = aligned.iter().map(|&i| end_to_end[i]).collect();
    let n_aligned = aligned.len();
    let recall = ratio(n_aligned, reference_papers.len());
    let precision = ratio(n_aligned, predicted_papers.len());
    LeafScores {
        n_reference: reference_papers.len(),
        n_prediction: predicted_papers.len(),
        n_aligned,
        ari: adjusted_rand_index(&truth, &end_to_end),
        homogeneity,
        completeness,
        v_measure,
        ari_cap: adjusted_rand_index(&truth_cap, &predicted_cap),
        v_measure_cap: homogeneity_completeness_v(&truth_cap, &predicted_cap).2,
        recall,
        precision,
        f1: harmonic_mean(recall, precision),
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// `2ab / (a + b)`, 0 when both are 0: F1 (the operand order is kept, for bit-equal results).
fn harmonic_mean(a: f64, b: f64) -> f64 {
    if a + b > 0.0 { 2.0 * a * b / (a + b) } else { 0.0 }
}

/// Everything `litnav eval taxobench` reports for one instance, under TaxoBench's key names.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct InstanceScores {
    /// Retrieval and leaf-level scores.
    #[serde(flatten)]
    pub leaf: LeafScores,
    /// Sem-Path (λ as given), `None` when no paper aligned.
    pub sem_path: Option<f64>,
    /// US-TED.
    pub us_ted: f64,
    /// US-NTED.
    pub us_nted: f64,
    /// Node soft recall.
    pub nsr: f64,
    /// Node soft precision.
    pub nsp: f64,
    /// Soft F1.
    pub soft_f1: f64,
}

/// Whose readings the scores follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// The seed paper's (this module's doc).
    Seed,
    /// The public `taxobench` package's ([`public`]); pair it with [`public::label_similarity`].
    Public,
}

/// How an instance is scored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Title-alignment threshold (0.92).
    pub threshold: f64,
    /// Sem-Path's penalty per unmatched ancestor (the public reading fixes it at 1).
    pub lambda: f64,
    /// Whose readings.
    pub reading: Reading,
}

impl Default for Options {
    /// TaxoBench's settings: threshold 0.92, λ = 1, the seed's readings.
    fn default() -> Options {
        Options { threshold: 0.92, lambda: 1.0, reading: Reading::Seed }
    }
}

/// Score one instance completely; `retrieved` (a prediction's `retrieved_papers`), when given and
/// not empty, is what the retrieval metrics score.
pub fn score_instance(
    reference: &Tree,
    predicted: &Tree,
    retrieved: Option<&[String]>,
    options: Options,
    sim: &dyn crate::tree::LabelSimilarity,
) -> InstanceScores {
    use crate::hierarchy::{nsr_nsp_soft_f1, sem_path, us_nted, us_ted};
    let (nsr, nsp, soft_f1) = nsr_nsp_soft_f1(reference, predicted, sim);
    let (leaf, sem_path) = match options.reading {
        Reading::Public => {
            let p = public::score(reference, predicted, retrieved, options.threshold, sim);
            let leaf = LeafScores {
                n_reference: p.leaf_n_reference,
                n_prediction: p.leaf_n_prediction,
                n_aligned: p.leaf_n_aligned,
                ari: p.leaf_ari,
                homogeneity: p.leaf_homogeneity,
                completeness: p.leaf_completeness,
                v_measure: p.leaf_v_measure,
                ari_cap: p.leaf_ari_cap,
                v_measure_cap: p.leaf_v_measure_cap,
                recall: p.retrieval_recall,
                precision: p.retrieval_precision,
                f1: p.retrieval_f1,
            };
            (leaf, Some(p.sem_path_sem_path))
        }
        Reading::Seed => {
            let mut leaf = leaf_scores(reference, predicted, options.threshold);
            if let Some(retrieved) = retrieved.filter(|r| !r.is_empty()) {
                leaf.rescore_retrieval(reference, retrieved, options.threshold);
            }
            let pairs = aligned_titles(reference, predicted, options.threshold);
            let pairs: Vec<(&str, &str)> = pairs.iter().map(|(r, p)| (r.as_str(), p.as_str())).collect();
            (leaf, sem_path(reference, predicted, &pairs, options.lambda, sim))
        }
    };
    InstanceScores {
        leaf,
        sem_path,
        us_ted: us_ted(reference, predicted, sim),
        us_nted: us_nted(reference, predicted, sim),
        nsr,
        nsp,
        soft_f1,
    }
}

/// (reference title, predicted title) of every aligned paper.
fn aligned_titles(reference: &Tree, predicted: &Tree, threshold: f64) -> Vec<(String, String)> {
    let reference_titles: Vec<String> = reference.paper_nodes().into_iter().map(|(t, _)| t).collect();
    let predicted_titles: Vec<String> = predicted.paper_nodes().into_iter().map(|(t, _)| t).collect();
    align(&reference_titles, &predicted_titles, threshold)
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.map(|j| (reference_titles[i].clone(), predicted_titles[j].clone())))
        .collect()
}

impl LeafScores {
    /// Recall, precision and F1 of `retrieved` (distinct by normalized title) instead of the
    /// tree's papers.
    fn rescore_retrieval(&mut self, reference: &Tree, retrieved: &[String], threshold: f64) {
        let mut seen = std::collections::HashSet::new();
        let retrieved: Vec<String> = retrieved.iter().filter(|t| seen.insert(normalize_title(t))).cloned().collect();
        let reference_titles: Vec<String> = reference.paper_nodes().into_iter().map(|(t, _)| t).collect();
        let hits = align(&reference_titles, &retrieved, threshold).iter().flatten().count();
        self.recall = ratio(hits, reference_titles.len());
        self.precision = ratio(hits, retrieved.len());
        self.f1 = harmonic_mean(self.recall, self.precision);
    }
}
