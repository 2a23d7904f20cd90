//! Agreement between two raters of the same items: Cohen's κ (TaxoBench reports it between its
//! LLM judge and human experts, seed 000 Appendix B) and Spearman's ρ (its Figure 4 correlates
//! two metrics with it).
//!
//! - **κ** as scikit-learn's `cohen_kappa_score`: the categories are the sorted union of both
//!   raters' scores; disagreement weights are 1 off the diagonal (unweighted), `|i − j|` (linear)
//!   or `(i − j)²` (quadratic) with i, j the categories' *positions* in that order;
//!   κ = 1 − Σ w·observed / Σ w·expected. Undefined (`None`) when the expected disagreement is 0.
//! - **ρ** as SciPy's `spearmanr`: Pearson's correlation of average ranks (ties share the mean of
//!   their ranks); undefined when either side is constant.

/// How κ weighs a disagreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KappaWeights {
    /// Every disagreement counts 1.
    #[default]
    Unweighted,
    /// By the distance between the categories.
    Linear,
    /// By the squared distance.
    Quadratic,
}

/// Cohen's κ of two raters' scores of the same items (equal lengths; `None` when undefined or
/// there are no items).
pub fn cohen_kappa(a: &[i64], b: &[i64], weights: KappaWeights) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let mut categories: Vec<i64> = a.iter().chain(b).copied().collect();
    categories.sort_unstable();
    categories.dedup();
    let k = categories.len();
    let position = |v: &i64| categories.binary_search(v).expect("a category");
    let mut observed = vec![0.0f64; k * k];
    for (x, y) in a.iter().zip(b) {
        observed[position(x) * k + position(y)] += 1.0;
    }
    let rows: Vec<f64> = (0..k).map(|i| (0..k).map(|j| observed[i * k + j]).sum()).collect();
    let columns: Vec<f64> = (0..k).map(|j| (0..k).map(|i| observed[i * k + j]).sum()).collect();
    let total: f64 = columns.iter().sum();
    let weight = |i: usize, j: usize| {
        let distance = i.abs_diff(j) as f64;
        match weights {
            KappaWeights::Unweighted => f64::from(u8::from(i != j)),
            KappaWeights::Linear => distance,
            KappaWeights::Quadratic => distance * distance,
        }
    };
    let (mut numerator, mut denominator) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            numerator += weight(i, j) * observed[i * k + j];
            denominator += weight(i, j) * rows[i] * columns[j] / total;
        }
    }
    (denominator != 0.0).then(|| 1.0 - numerator / denominator)
}

/// Average ranks (1-based; ties share the mean of their positions).
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// Pearson's correlation (`None` when either side is constant or there are fewer than 2 items).
pub fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 2 {
        return None;
    }
    let n = a.len() as f64;
    let (mean_a, mean_b) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let (dx, dy) = (x - mean_a, y - mean_b);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    (saa > 0.0 && sbb > 0.0).then(|| (sab / (saa * sbb).sqrt()).clamp(-1.0, 1.0))
}

/// Spearman's ρ.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    pearson(&average_ranks(a), &average_ranks(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_as_scikit_learn_computes_it() {
        // sklearn.metrics.cohen_kappa_score([1,2,3,3,2,5,4], [1,2,3,4,2,5,5]) and its weighted forms.
        let (a, b) = ([1, 2, 3, 3, 2, 5, 4], [1, 2, 3, 4, 2, 5, 5]);
        let close = |x: Option<f64>, y: f64| assert!((x.unwrap() - y).abs() < 1e-12, "{x:?} vs {y}");
        close(cohen_kappa(&a, &b, KappaWeights::Unweighted), 0.641025641025641);
        close(cohen_kappa(&a, &b, KappaWeights::Linear), 0.8157894736842105);
        close(cohen_kappa(&a, &b, KappaWeights::Quadratic), 0.9239130434782609);
        assert_eq!(cohen_kappa(&[3, 3], &[3, 3], KappaWeights::Unweighted), None);
    }

    #[test]
    fn spearman_with_ties_as_scipy() {
        // scipy.stats.spearmanr([1,2,2,4,5], [5,6,7,8,7]).statistic
        let rho = spearman(&[1.0, 2.0, 2.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((rho - 0.7631578947368421).abs() < 1e-12, "{rho}");
        assert_eq!(average_ranks(&[10.0, 20.0, 20.0, 5.0]), vec![2.0, 3.5, 3.5, 1.0]);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }
}
