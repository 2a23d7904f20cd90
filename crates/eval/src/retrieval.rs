//! Ranked-retrieval metrics with binary relevance (ResearchArena's discovery and selection
//! tasks): Recall@k, Precision@k, nDCG@k and MRR.
//!
//! Conventions (stated because papers and toolkits differ):
//! - A ranking is a list of document ids, best first; duplicates after the first occurrence are
//!   ignored (a document is retrieved once).
//! - Precision@k divides by k even when fewer than k documents were returned (the IR convention:
//!   an empty slot is a miss).
//! - Recall@k divides by the number of relevant documents; with none, it is 0 (and so are nDCG and
//!   MRR), and callers should not average such queries.
//! - nDCG@k uses gain 1 for relevant documents and discount log₂(rank + 1); the ideal DCG places
//!   min(k, |relevant|) relevant documents first.
//! - MRR is the reciprocal rank of the first relevant document within the first k (use
//!   `k = ranking.len()` for the whole list), 0 when none.

use std::collections::HashSet;

/// The first `k` distinct ids of a ranking.
fn top<'a>(ranking: &'a [&'a str], k: usize) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    ranking.iter().copied().filter(|id| seen.insert(*id)).take(k).collect()
}

/// Relevant documents among the first `k`.
fn hits(ranking: &[&str], relevant: &HashSet<&str>, k: usize) -> usize {
    top(ranking, k).iter().filter(|id| relevant.contains(*id)).count()
}

/// Fraction of the relevant documents found in the first `k`.
pub fn recall_at(ranking: &[&str], relevant: &HashSet<&str>, k: usize) -> f64 {
    if relevant.is_empty() {
        return 0.0;
    }
    hits(ranking, relevant, k) as f64 / relevant.len() as f64
}

/// Fraction of the first `k` slots holding a relevant document.
pub fn precision_at(ranking: &[&str], relevant: &HashSet<&str>, k: usize) -> f64 {
    if k == 0 {
        return 0.0;
    }
    hits(ranking, relevant, k) as f64 / k as f64
}

/// Normalized discounted cumulative gain of the first `k`.
pub fn ndcg_at(ranking: &[&str], relevant: &HashSet<&str>, k: usize) -> f64 {
    let ideal: f64 = (0..k.min(relevant.len())).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
    if ideal == 0.0 {
        return 0.0;
    }
    let dcg: f64 = top(ranking, k)
        .iter()
        .enumerate()
        .filter(|(_, id)| relevant.contains(*id))
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .sum();
    dcg / ideal
}

/// nDCG@k with graded relevance, trec_eval's way: the gain of a document is its relevance grade
/// (linear, not 2^grade − 1), the discount log₂(rank + 1), the ideal ranking sorts all judged
/// grades in decreasing order.
pub fn ndcg_graded_at(ranking: &[&str], grades: &std::collections::HashMap<&str, f64>, k: usize) -> f64 {
    let mut ideal_grades: Vec<f64> = grades.values().copied().filter(|g| *g > 0.0).collect();
    ideal_grades.sort_by(|a, b| b.total_cmp(a));
    let ideal: f64 = ideal_grades.iter().take(k).enumerate().map(|(i, g)| g / ((i + 2) as f64).log2()).sum();
    if ideal == 0.0 {
        return 0.0;
    }
    let dcg: f64 = top(ranking, k)
        .iter()
        .enumerate()
        .map(|(i, id)| grades.get(id).copied().unwrap_or(0.0).max(0.0) / ((i + 2) as f64).log2())
        .sum();
    dcg / ideal
}

/// Reciprocal rank of the first relevant document within the first `k`.
pub fn reciprocal_rank(ranking: &[&str], relevant: &HashSet<&str>, k: usize) -> f64 {
    top(ranking, k).iter().position(|id| relevant.contains(*id)).map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set<'a>(ids: &[&'a str]) -> HashSet<&'a str> {
        ids.iter().copied().collect()
    }

    #[test]
    fn by_hand() {
        let ranking = ["a", "x", "b", "y", "c"];
        let relevant = set(&["a", "b", "c", "d"]);
        assert_eq!(recall_at(&ranking, &relevant, 3), 0.5);
        assert_eq!(precision_at(&ranking, &relevant, 3), 2.0 / 3.0);
        assert_eq!(precision_at(&ranking, &relevant, 10), 0.3, "missing slots count as misses");
        assert_eq!(reciprocal_rank(&["x", "y", "b"], &relevant, 10), 1.0 / 3.0);
        assert_eq!(reciprocal_rank(&["x", "y", "b"], &relevant, 2), 0.0);
        // DCG@5 = 1 + 1/log2(4) + 1/log2(6); IDCG@5 = 1 + 1/log2(3) + 1/log2(4) + 1/log2(5).
        let dcg = 1.0 + 0.5 + 1.0 / 6f64.log2();
        let idcg = 1.0 + 1.0 / 3f64.log2() + 0.5 + 1.0 / 5f64.log2();
        assert!((ndcg_at(&ranking, &relevant, 5) - dcg / idcg).abs() < 1e-15);
    }

    #[test]
    fn graded_equals_binary_for_binary_grades() {
        let ranking = ["a", "x", "b", "y", "c"];
        let relevant = set(&["a", "b", "c", "d"]);
        let grades: std::collections::HashMap<&str, f64> = relevant.iter().map(|d| (*d, 1.0)).collect();
        assert!((ndcg_graded_at(&ranking, &grades, 5) - ndcg_at(&ranking, &relevant, 5)).abs() < 1e-15);
        let graded: std::collections::HashMap<&str, f64> = [("a", 1.0), ("b", 2.0)].into();
        // DCG = 1 + 2/log2(4) = 2; IDCG = 2 + 1/log2(3).
        assert!((ndcg_graded_at(&["a", "x", "b"], &graded, 3) - 2.0 / (2.0 + 1.0 / 3f64.log2())).abs() < 1e-15);
    }

    #[test]
    fn laws() {
        let relevant = set(&["a", "b"]);
        // A perfect ranking scores 1 on every metric that can reach 1.
        assert_eq!(ndcg_at(&["a", "b", "x"], &relevant, 3), 1.0);
        assert_eq!(recall_at(&["b", "a"], &relevant, 2), 1.0);
        assert_eq!(reciprocal_rank(&["a"], &relevant, 1), 1.0);
        // Duplicates do not count twice.
        assert_eq!(recall_at(&["a", "a", "a"], &relevant, 3), 0.5);
        assert_eq!(precision_at(&["a", "a"], &relevant, 2), 0.5);
        // Nothing relevant: all zero, no NaN.
        let none = set(&[]);
        for value in [recall_at(&["a"], &none, 1), ndcg_at(&["a"], &none, 1), reciprocal_rank(&["a"], &none, 1)] {
            assert_eq!(value, 0.0);
        }
    }
}
