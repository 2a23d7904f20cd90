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
use std::sync::OnceLock;

/// Ranks whose discount is computed once ([`discount`]).
const TABULATED_DISCOUNTS: usize = 1024;

/// nDCG's discount of the 0-based rank `i`, `log₂(i + 2)`: looked up for the first ranks (the
/// same value, computed once: scoring a query asks for up to a few hundred of them per cut-off).
fn discount(i: usize) -> f64 {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    let computed = |i: usize| ((i + 2) as f64).log2();
    let table = TABLE.get_or_init(|| (0..TABULATED_DISCOUNTS).map(computed).collect());
    table.get(i).copied().unwrap_or_else(|| computed(i))
}

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
    let ideal: f64 = (0..k.min(relevant.len())).map(|i| 1.0 / discount(i)).sum();
    if ideal == 0.0 {
        return 0.0;
    }
    let dcg: f64 = top(ranking, k)
        .iter()
        .enumerate()
        .filter(|(_, id)| relevant.contains(*id))
        .map(|(i, _)| 1.0 / discount(i))
        .sum();
    dcg / ideal
}

/// One query's ranking seen through its documents' relevance grades, as trec_eval sees it: a
/// document is relevant when its grade is above 0, its gain is its grade, and the ideal ranking
/// orders the judged grades. Built once per query; every metric then reads numbers only, with
/// no document id (the Python binding ranks dictionaries of Python strings into this without
/// copying a string).
#[derive(Debug, Clone, PartialEq)]
pub struct GradedRanking {
    /// Grades of the ranking's first documents, best first (0 for an unjudged document).
    top: Vec<f64>,
    /// The 0-based rank of the first relevant document in the whole ranking.
    first_relevant: Option<usize>,
    /// The relevant grades, decreasing: the ideal ranking's gains (one per relevant document).
    ideal: Vec<f64>,
}

impl GradedRanking {
    /// `top`: the grades of the ranking's first distinct documents, best first, at least as many
    /// as the deepest cut-off asked (or all); `first_relevant`: where the first relevant document
    /// stands in the whole ranking; `judged`: the grade of every judged document of the query.
    pub fn new(top: Vec<f64>, first_relevant: Option<usize>, judged: impl IntoIterator<Item = f64>) -> Self {
        let mut ideal: Vec<f64> = judged.into_iter().filter(|g| *g > 0.0).collect();
        ideal.sort_by(|a, b| b.total_cmp(a));
        Self { top, first_relevant, ideal }
    }

    /// The grades of a ranking of ids (duplicates after the first occurrence ignored), kept to
    /// `depth`; `grades` holds every judged document.
    pub fn of(ranking: &[&str], grades: &std::collections::HashMap<&str, f64>, depth: usize) -> Self {
        let mut seen = HashSet::new();
        let graded = ranking.iter().filter(|id| seen.insert(**id)).map(|id| grades.get(id).copied().unwrap_or(0.0));
        let mut top = Vec::new();
        let mut first_relevant = None;
        for (rank, grade) in graded.enumerate() {
            if first_relevant.is_none() && grade > 0.0 {
                first_relevant = Some(rank);
            }
            if rank < depth {
                top.push(grade);
            } else if first_relevant.is_some() {
                break;
            }
        }
        Self::new(top, first_relevant, grades.values().copied())
    }

    /// How many judged documents are relevant (a query with none should not be averaged).
    pub fn relevant(&self) -> usize {
        self.ideal.len()
    }

    fn hits(&self, k: usize) -> usize {
        self.top.iter().take(k).filter(|g| **g > 0.0).count()
    }

    /// Fraction of the relevant documents found in the first `k` (0 with none relevant).
    pub fn recall_at(&self, k: usize) -> f64 {
        match self.relevant() {
            0 => 0.0,
            relevant => self.hits(k) as f64 / relevant as f64,
        }
    }

    /// Fraction of the first `k` slots holding a relevant document (empty slots are misses).
    pub fn precision_at(&self, k: usize) -> f64 {
        match k {
            0 => 0.0,
            k => self.hits(k) as f64 / k as f64,
        }
    }

    /// nDCG@k with the grades as gains (trec_eval's `ndcg_cut`): DCG of the first `k` over the
    /// DCG of the judged grades in decreasing order.
    pub fn ndcg_at(&self, k: usize) -> f64 {
        let discounted = |(i, g): (usize, &f64)| g.max(0.0) / discount(i);
        let ideal: f64 = self.ideal.iter().take(k).enumerate().map(discounted).sum();
        if ideal == 0.0 {
            return 0.0;
        }
        self.top.iter().take(k).enumerate().map(discounted).sum::<f64>() / ideal
    }

    /// Reciprocal rank of the first relevant document in the whole ranking, 0 when none.
    pub fn reciprocal_rank(&self) -> f64 {
        self.first_relevant.map_or(0.0, |i| 1.0 / (i + 1) as f64)
    }
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
    fn tabulated_discounts_are_the_computed_ones() {
        for i in [0, 1, 9, 99, TABULATED_DISCOUNTS - 1, TABULATED_DISCOUNTS, 5000] {
            assert_eq!(discount(i).to_bits(), ((i + 2) as f64).log2().to_bits(), "rank {i}");
        }
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
        let ranking = ["a", "x", "b", "y", "c", "a"];
        let relevant = set(&["a", "b", "c", "d"]);
        let grades: std::collections::HashMap<&str, f64> = relevant.iter().map(|d| (*d, 1.0)).collect();
        for depth in [0, 2, 5, 10] {
            let graded = GradedRanking::of(&ranking, &grades, depth);
            assert_eq!(graded.relevant(), 4);
            for k in 1..=depth {
                assert_eq!(graded.ndcg_at(k), ndcg_at(&ranking, &relevant, k), "ndcg@{k}");
                assert_eq!(graded.recall_at(k), recall_at(&ranking, &relevant, k), "recall@{k}");
                assert_eq!(graded.precision_at(k), precision_at(&ranking, &relevant, k), "precision@{k}");
            }
            assert_eq!(graded.reciprocal_rank(), reciprocal_rank(&ranking, &relevant, ranking.len()));
        }
        let late = GradedRanking::of(&["x", "y", "b"], &grades, 1);
        assert_eq!(late.reciprocal_rank(), 1.0 / 3.0, "the first relevant is found beyond the depth");
        let graded: std::collections::HashMap<&str, f64> = [("a", 1.0), ("b", 2.0), ("z", 0.0)].into();
        let ranking = GradedRanking::of(&["a", "x", "b"], &graded, 3);
        // DCG = 1 + 2/log2(4) = 2; IDCG = 2 + 1/log2(3); the grade-0 judgment is not relevant.
        assert!((ranking.ndcg_at(3) - 2.0 / (2.0 + 1.0 / 3f64.log2())).abs() < 1e-15);
        assert_eq!(ranking.relevant(), 2);
        let none = GradedRanking::new(vec![0.0], None, [0.0]);
        assert_eq!([none.recall_at(1), none.ndcg_at(1), none.reciprocal_rank()], [0.0; 3]);
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
