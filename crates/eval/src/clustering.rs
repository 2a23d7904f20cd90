//! Partition agreement: Adjusted Rand Index, homogeneity, completeness, V-measure and NMI, as
//! scikit-learn computes them (TaxoBench reports sklearn's values).
//!
//! Labels are any hashable values; only equality matters. Conventions follow sklearn:
//! - ARI from the pair-confusion matrix; two partitions that agree on every pair (including the
//!   degenerate cases of one cluster each, or all singletons each) score 1.
//! - Entropies use natural logarithms; homogeneity is 1 when the true labels have zero entropy,
//!   completeness is 1 when the predicted labels do; V-measure (β = 1) is 0 when both are 0.
//! - NMI uses the arithmetic mean of the two entropies (sklearn's default).

use std::collections::HashMap;
use std::hash::Hash;

/// The contingency table of two labelings of the same items.
struct Contingency {
    n: usize,
    /// Non-zero cells as (row, column, count), sorted.
    cells: Vec<(usize, usize, usize)>,
    rows: Vec<usize>,
    cols: Vec<usize>,
}

impl Contingency {
    fn new<A: Hash + Eq, B: Hash + Eq>(truth: &[A], predicted: &[B]) -> Contingency {
        assert_eq!(truth.len(), predicted.len(), "both labelings must cover the same items");
        let mut row_ids: HashMap<&A, usize> = HashMap::new();
        let mut col_ids: HashMap<&B, usize> = HashMap::new();
        let mut cells: HashMap<(usize, usize), usize> = HashMap::new();
        for (a, b) in truth.iter().zip(predicted) {
            let r = row_ids.len();
            let r = *row_ids.entry(a).or_insert(r);
            let c = col_ids.len();
            let c = *col_ids.entry(b).or_insert(c);
            *cells.entry((r, c)).or_default() += 1;
        }
        let mut rows = vec![0; row_ids.len()];
        let mut cols = vec![0; col_ids.len()];
        let mut nonzero: Vec<((usize, usize), usize)> = cells.into_iter().collect();
        nonzero.sort_unstable();
        for &((r, c), count) in &nonzero {
            rows[r] += count;
            cols[c] += count;
        }
        Contingency {
            n: truth.len(),
            cells: nonzero.into_iter().map(|((r, c), count)| (r, c, count)).collect(),
            rows,
            cols,
        }
    }
}

/// Adjusted Rand Index of `predicted` against `truth`.
pub fn adjusted_rand_index<A: Hash + Eq, B: Hash + Eq>(truth: &[A], predicted: &[B]) -> f64 {
    let table = Contingency::new(truth, predicted);
    let n = table.n as i128;
    let sum_squares: i128 = table.cells.iter().map(|&(_, _, c)| (c as i128) * (c as i128)).sum();
    let row_squares: i128 = table.rows.iter().map(|&r| (r as i128) * (r as i128)).sum();
    let col_squares: i128 = table.cols.iter().map(|&c| (c as i128) * (c as i128)).sum();
    // sklearn's pair_confusion_matrix (ordered pairs).
    let tp = sum_squares - n;
    let fp = row_squares - sum_squares;
    let fn_ = col_squares - sum_squares;
    let tn = n * n - fp - fn_ - sum_squares;
    if fn_ == 0 && fp == 0 {
        return 1.0;
    }
    let (tp, fp, fn_, tn) = (tp as f64, fp as f64, fn_ as f64, tn as f64);
    2.0 * (tp * tn - fn_ * fp) / ((tp + fn_) * (fn_ + tn) + (tp + fp) * (fp + tn))
}

/// Homogeneity, completeness and V-measure (β = 1) of `predicted` against `truth`.
pub fn homogeneity_completeness_v<A: Hash + Eq, B: Hash + Eq>(truth: &[A], predicted: &[B]) -> (f64, f64, f64) {
    if truth.is_empty() {
        return (1.0, 1.0, 1.0);
    }
    let table = Contingency::new(truth, predicted);
    let h_true = entropy(&table.rows);
    let h_pred = entropy(&table.cols);
    let mi = mutual_information(&table);
    let homogeneity = if h_true == 0.0 { 1.0 } else { mi / h_true };
    let completeness = if h_pred == 0.0 { 1.0 } else { mi / h_pred };
    let v = if homogeneity + completeness == 0.0 {
        0.0
    } else {
        2.0 * homogeneity * completeness / (homogeneity + completeness)
    };
    (homogeneity, completeness, v)
}

/// numpy's sum of a float64 array (`np.sum`): pairwise, each block of at most 128 values summed by
/// eight interleaved accumulators. Summing in its order is what makes a score computed as
/// scikit-learn computes it equal to the last bit.
pub fn numpy_sum(values: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = values.len();
    if n < 8 {
        return values.iter().fold(0.0, |sum, v| sum + v);
    }
    if n <= BLOCK {
        let mut lanes = [0.0f64; 8];
        lanes.copy_from_slice(&values[..8]);
        let whole = n - n % 8;
        for chunk in values[8..whole].chunks_exact(8) {
            for (lane, v) in lanes.iter_mut().zip(chunk) {
                *lane += v;
            }
        }
        let mut sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        for v in &values[whole..] {
            sum += v;
        }
        return sum;
    }
    let half = n / 2 - (n / 2) % 8;
    numpy_sum(&values[..half]) + numpy_sum(&values[half..])
}

/// Homogeneity, completeness and V-measure (β = 1) with scikit-learn's order of operations
/// (`homogeneity_completeness_v_measure`: labels in sorted order, the contingency table's non-zero
/// cells row by row, numpy's sums) — the public TaxoBench scorer's numbers to the last bit, where
/// [`homogeneity_completeness_v`] may differ from them in the last one or two.
pub fn homogeneity_completeness_v_exact<A: Ord, B: Ord>(truth: &[A], predicted: &[B]) -> (f64, f64, f64) {
    use std::collections::BTreeMap;
    if truth.is_empty() {
        return (1.0, 1.0, 1.0);
    }
    let classes = sorted_numbers(truth);
    let clusters = sorted_numbers(predicted);
    let mut cells: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    for (t, p) in truth.iter().zip(predicted) {
        *cells.entry((classes[t], clusters[p])).or_default() += 1;
    }
    let mut rows = vec![0i64; classes.len()];
    let mut cols = vec![0i64; clusters.len()];
    for (&(r, c), &count) in &cells {
        rows[r] += count;
        cols[c] += count;
    }
    let entropy_true = entropy_exact(&rows);
    let entropy_pred = entropy_exact(&cols);
    let mi = if rows.len() == 1 || cols.len() == 1 {
        0.0
    } else {
        let total = truth.len() as f64;
        let (ln_rows, ln_cols) = ((rows.iter().sum::<i64>() as f64).ln(), (cols.iter().sum::<i64>() as f64).ln());
        let terms: Vec<f64> = cells
            .iter()
            .map(|(&(r, c), &count)| {
                let share = count as f64 / total;
                let ln_outer = -((rows[r] * cols[c]) as f64).ln() + ln_rows + ln_cols;
                let term = share * ((count as f64).ln() - total.ln()) + share * ln_outer;
                if term.abs() < f64::EPSILON { 0.0 } else { term }
            })
            .collect();
        numpy_sum(&terms).max(0.0)
    };
    let homogeneity = if entropy_true != 0.0 { mi / entropy_true } else { 1.0 };
    let completeness = if entropy_pred != 0.0 { mi / entropy_pred } else { 1.0 };
    let v = if homogeneity + completeness == 0.0 {
        0.0
    } else {
        2.0 * homogeneity * completeness / (homogeneity + completeness)
    };
    (homogeneity, completeness, v)
}

/// Each distinct label's number in sorted label order (`np.unique`'s inverse).
fn sorted_numbers<L: Ord>(labels: &[L]) -> std::collections::BTreeMap<&L, usize> {
    let distinct: std::collections::BTreeSet<&L> = labels.iter().collect();
    distinct.into_iter().enumerate().map(|(i, label)| (label, i)).collect()
}

/// A labeling's entropy from its class sizes in sorted label order, as scikit-learn sums it.
fn entropy_exact(counts: &[i64]) -> f64 {
    if counts.len() == 1 {
        return 0.0;
    }
    let sizes: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
    let total = numpy_sum(&sizes);
    let terms: Vec<f64> = sizes.iter().map(|&size| (size / total) * (size.ln() - total.ln())).collect();
    -numpy_sum(&terms)
}

/// Normalized mutual information with arithmetic-mean normalization.
pub fn normalized_mutual_information<A: Hash + Eq, B: Hash + Eq>(truth: &[A], predicted: &[B]) -> f64 {
    let table = Contingency::new(truth, predicted);
    if table.rows.len() == table.cols.len() && (table.rows.len() <= 1) {
        return 1.0;
    }
    let mi = mutual_information(&table);
    let normalizer = (entropy(&table.rows) + entropy(&table.cols)) / 2.0;
    if normalizer == 0.0 { 1.0 } else { mi / normalizer }
}

/// Knowledge Navigator's relevance-based cluster measures for one gold topic at coverage `p`
/// (e.g. 0.8): `(Rc@p, Rv@p)`.
///
/// Clusters are taken in decreasing order of how many of the topic's documents they hold (ties:
/// smaller cluster first, then lower label) until they hold at least `p` of the topic's documents.
/// Rc@p is the number of clusters taken; Rv@p is the share of all clustered documents that those
/// clusters contain (the seed: "% of minimum number of documents needed to cover p% of relevant
/// documents"). `cluster_of[i]` is document i's cluster; `relevant[i]` says whether it belongs to
/// the topic. `None` when the topic has no documents.
pub fn clusters_by_relevance(cluster_of: &[usize], relevant: &[bool], p: f64) -> Option<(usize, f64)> {
    let memberships: Vec<[usize; 1]> = cluster_of.iter().map(|&c| [c]).collect();
    clusters_by_relevance_soft(&memberships, relevant, p)
}

/// [`clusters_by_relevance`] where a document may sit in several clusters (soft membership):
/// `memberships[i]` lists document i's clusters. A cluster holds every document listed in it;
/// coverage and Rv@p count distinct documents, so a document reached through two taken clusters
/// counts once. With one cluster per document this is [`clusters_by_relevance`].
pub fn clusters_by_relevance_soft<M: AsRef<[usize]>>(
    memberships: &[M],
    relevant: &[bool],
    p: f64,
) -> Option<(usize, f64)> {
    let total_relevant = relevant.iter().filter(|&&r| r).count();
    if total_relevant == 0 || memberships.is_empty() {
        return None;
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for (doc, clusters) in memberships.iter().enumerate() {
        for &c in clusters.as_ref() {
            let list = members.entry(c).or_default();
            if list.last() != Some(&doc) {
                list.push(doc);
            }
        }
    }
    let mut clusters: Vec<(usize, usize, Vec<usize>)> =
        members.into_iter().map(|(c, docs)| (c, docs.iter().filter(|&&d| relevant[d]).count(), docs)).collect();
    clusters.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.len().cmp(&b.2.len())).then(a.0.cmp(&b.0)));
    let needed = (p * total_relevant as f64).ceil() as usize;
    let mut seen = vec![false; memberships.len()];
    let (mut covered, mut documents, mut taken) = (0, 0, 0);
    for (_, _, docs) in clusters {
        if covered >= needed {
            break;
        }
        for d in docs {
            if !std::mem::replace(&mut seen[d], true) {
                documents += 1;
                covered += usize::from(relevant[d]);
            }
        }
        taken += 1;
    }
    Some((taken, documents as f64 / memberships.len() as f64))
}

/// Entropy (nats) of a labeling given its class sizes.
fn entropy(counts: &[usize]) -> f64 {
    let total: usize = counts.iter().sum();
    if total == 0 {
        return 1.0;
    }
    let total_ln = (total as f64).ln();
    -counts.iter().filter(|&&c| c > 0).map(|&c| (c as f64 / total as f64) * ((c as f64).ln() - total_ln)).sum::<f64>()
}

/// Mutual information (nats) of the two labelings in `table`, clipped at 0 (as sklearn does).
fn mutual_information(table: &Contingency) -> f64 {
    let n = table.n as f64;
    let mi: f64 = table
        .cells
        .iter()
        .map(|&(r, c, count)| {
            let p = count as f64 / n;
            p * ((count as f64).ln() + n.ln() - (table.rows[r] as f64).ln() - (table.cols[c] as f64).ln())
        })
        .sum();
    mi.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sklearn_values() {
        // Values printed by scikit-learn for the same inputs.
        assert!((adjusted_rand_index(&[0, 0, 1, 1], &[0, 0, 1, 2]) - 0.5714285714285714).abs() < 1e-15);
        let (h, c, v) = homogeneity_completeness_v(&[0, 0, 1, 1], &[0, 0, 1, 2]);
        assert!((h - 1.0).abs() < 1e-12 && (c - 0.6666666666666666).abs() < 1e-12 && (v - 0.8).abs() < 1e-12);
        assert!((adjusted_rand_index(&[0, 0, 0, 1, 1, 1], &[0, 1, 2, 0, 1, 2]) + 0.36363636363636365).abs() < 1e-15);
    }

    #[test]
    fn laws() {
        let labels = ["a", "b", "a", "c", "c", "b", "a"];
        let renamed = [7, 9, 7, 1, 1, 9, 7];
        assert_eq!(adjusted_rand_index(&labels, &renamed), 1.0, "ARI ignores label names");
        let (h, c, v) = homogeneity_completeness_v(&labels, &renamed);
        assert!((h - 1.0).abs() < 1e-12 && (c - 1.0).abs() < 1e-12 && (v - 1.0).abs() < 1e-12);
        assert!((normalized_mutual_information(&labels, &renamed) - 1.0).abs() < 1e-12);
        assert_eq!(adjusted_rand_index(&[1, 1, 1], &[2, 2, 2]), 1.0, "one cluster each");
        assert_eq!(adjusted_rand_index(&[1, 2, 3], &[4, 5, 6]), 1.0, "all singletons each");
    }

    #[test]
    fn relevance_coverage_by_hand() {
        // Topic docs: 0..5 (relevant); clusters: A = {0,1,2,6}, B = {3,7,8}, C = {4,9}.
        let cluster_of = [0, 0, 0, 1, 2, 0, 1, 1, 2, 2];
        let relevant = [true, true, true, true, true, false, false, false, false, false];
        // 80% of 5 = 4 relevant docs: A (3), then B (1; tied with C on relevance and size, lower
        // label first) → 2 clusters holding 4 + 3 of the 10 docs.
        assert_eq!(clusters_by_relevance(&cluster_of, &relevant, 0.8), Some((2, 0.7)));
        assert_eq!(clusters_by_relevance(&cluster_of, &relevant, 0.5), Some((1, 0.4)));
        assert_eq!(clusters_by_relevance(&cluster_of, &[false; 10], 0.8), None);
        // A relevant document also listed in the first cluster taken covers the topic sooner.
        let mut soft: Vec<Vec<usize>> = cluster_of.iter().map(|&c| vec![c]).collect();
        let hard = clusters_by_relevance_soft(&soft, &relevant, 0.8);
        assert_eq!(hard, clusters_by_relevance(&cluster_of, &relevant, 0.8));
        soft[3].push(0);
        // A now holds 4 of the 5 relevant documents: one cluster, documents 0, 1, 2, 3 and 5.
        assert_eq!(clusters_by_relevance_soft(&soft, &relevant, 0.8), Some((1, 0.5)));
    }

    #[test]
    fn random_partitions_score_near_zero() {
        // A fixed pseudo-random labeling (LCG) against a block labeling.
        let n = 4000;
        let truth: Vec<usize> = (0..n).map(|i| i / 400).collect();
        let mut state: u64 = 12345;
        let random: Vec<u64> = (0..n)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 33) % 10
            })
            .collect();
        assert!(adjusted_rand_index(&truth, &random).abs() < 0.01);
    }
}
