//! Percentile ranks against the whole corpus, and the SciNet ego-centric scores built on them.
//!
//! SciNet turns raw novelty and disruption into percentile ranks against a reference corpus and
//! averages them over a system's retrieved papers (Novelty-SoS, Disruption-SoS), and measures
//! Recall@50 against the 50 best papers. Choices made here:
//! - A percentile rank is SciPy's `percentileofscore(kind="mean")`: the mean of the share of
//!   reference values strictly below and at-or-below, × 100. Ties share one rank.
//! - Orientation: a rank always means "better than this share of the corpus". Disruption ranks
//!   `cd` as is; novelty ranks the *negated* 10th-percentile z (lower z = more novel).
//! - Retrieved papers without a value (no references, not in the corpus) are left out of the
//!   mean; the count of those scored is reported alongside.

use serde::Serialize;

/// The sorted values a percentile rank is taken against.
#[derive(Debug, Clone)]
pub struct PercentileTable {
    sorted: Vec<f64>,
}

impl PercentileTable {
    /// A table of the defined values among `values`.
    pub fn new(values: impl IntoIterator<Item = Option<f64>>) -> PercentileTable {
        let mut sorted: Vec<f64> = values.into_iter().flatten().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        PercentileTable { sorted }
    }

    /// Number of values in the table.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// True when the table holds no value.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// Percentile rank of `value` in [0, 100], or `None` for an empty table.
    pub fn rank(&self, value: f64) -> Option<f64> {
        if self.sorted.is_empty() {
            return None;
        }
        let below = self.sorted.partition_point(|&v| v < value);
        let at_or_below = self.sorted.partition_point(|&v| v <= value);
        Some(50.0 * (below + at_or_below) as f64 / self.sorted.len() as f64)
    }
}

/// A SciNet ego-centric score of one retrieved list.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EgoScore {
    /// Mean percentile rank of the retrieved papers that have a value.
    pub sos: Option<f64>,
    /// How many retrieved papers had a value.
    pub scored: usize,
    /// Share of the ground-truth top papers that were retrieved.
    pub recall: f64,
}

/// Score `retrieved` (their values, `None` when undefined) and the ids of the ground-truth top
/// papers. `retrieved_ids` and `retrieved_values` are parallel.
pub fn ego_score(
    table: &PercentileTable,
    retrieved_ids: &[&str],
    retrieved_values: &[Option<f64>],
    truth: &[&str],
) -> EgoScore {
    let ranks: Vec<f64> = retrieved_values.iter().flatten().filter_map(|&v| table.rank(v)).collect();
    let sos = (!ranks.is_empty()).then(|| ranks.iter().sum::<f64>() / ranks.len() as f64);
    let found = truth.iter().filter(|t| retrieved_ids.contains(t)).count();
    let recall = if truth.is_empty() { 0.0 } else { found as f64 / truth.len() as f64 };
    EgoScore { sos, scored: ranks.len(), recall }
}

/// Indices of the `k` highest values (undefined ones never chosen), ties broken by `tie_key`
/// ascending: the ground truth "top papers" and litnav's own ranking.
pub fn top_k<K: Ord>(values: &[Option<f64>], k: usize, tie_key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut defined: Vec<(usize, f64)> = values.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v))).collect();
    defined.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| tie_key(a.0).cmp(&tie_key(b.0))));
    defined.into_iter().take(k).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_scipy_mean_kind() {
        // scipy.stats.percentileofscore([1, 2, 3, 3, 4], 3, kind="mean") == 60.0
        let table = PercentileTable::new([1.0, 2.0, 3.0, 3.0, 4.0, f64::NAN].map(Some).into_iter().chain([None]));
        assert_eq!(table.len(), 5);
        assert_eq!(table.rank(3.0), Some(60.0));
        assert_eq!(table.rank(0.0), Some(0.0));
        assert_eq!(table.rank(9.0), Some(100.0));
        assert_eq!(table.rank(2.5), Some(40.0));
        assert_eq!(PercentileTable::new([None]).rank(1.0), None);
    }

    #[test]
    fn ranks_are_monotone_and_bounded() {
        let table = PercentileTable::new((0..100).map(|i| Some(((i * 37) % 17) as f64)));
        let mut previous = -1.0;
        for step in -5..25 {
            let rank = table.rank(step as f64).unwrap();
            assert!((0.0..=100.0).contains(&rank) && rank >= previous);
            previous = rank;
        }
    }

    #[test]
    fn ego_score_and_top_k() {
        let values = [Some(0.5), None, Some(0.9), Some(0.9), Some(-1.0)];
        assert_eq!(top_k(&values, 2, |i| i), vec![2, 3]);
        assert_eq!(top_k(&values, 2, std::cmp::Reverse), vec![3, 2]);
        let table = PercentileTable::new(values);
        let score = ego_score(&table, &["c", "b"], &[Some(0.9), None], &["c", "d"]);
        assert_eq!(score.scored, 1);
        assert_eq!(score.sos, Some(75.0));
        assert_eq!(score.recall, 0.5);
    }
}
