//! Partition agreement: Adjusted Rand Index, homogeneity, completeness, V-measure and NMI, as
//! scikit-learn computes them (TaxoBench reports sklearn's values).
//!
//! Labels are any ordered, hashable values; their order is the order of sklearn's sums (labels
//! numbered as `np.unique` numbers them), which makes every value sklearn's to the last bit.
//! Conventions follow sklearn:
//! - ARI from the pair-confusion matrix; two partitions that agree on every pair (including the
//!   degenerate cases of one cluster each, or all singletons each) score 1.
//! - Entropies use natural logarithms; homogeneity is 1 when the true labels have zero entropy,
//!   completeness is 1 when the predicted labels do; V-measure (β = 1) is 0 when both are 0.
//! - NMI uses the arithmetic mean of the two entropies (sklearn's default).

use std::hash::Hash;

/// Adjusted Rand Index of `predicted` against `truth`, scikit-learn's to the last bit.
pub fn adjusted_rand_index<A: Ord + Hash, B: Ord + Hash>(truth: &[A], predicted: &[B]) -> f64 {
    SortedTable::new(truth, predicted).adjusted_rand_index()
}

/// [`adjusted_rand_index`] and [`normalized_mutual_information`] from one contingency table.
pub fn rand_index_and_mutual_information<A: Ord + Hash, B: Ord + Hash>(truth: &[A], predicted: &[B]) -> (f64, f64) {
    let table = SortedTable::new(truth, predicted);
    (table.adjusted_rand_index(), table.normalized_mutual_information())
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
/// cells row by row, numpy's sums) — the public TaxoBench scorer's numbers to the last bit.
pub fn homogeneity_completeness_v<A: Ord + Hash, B: Ord + Hash>(truth: &[A], predicted: &[B]) -> (f64, f64, f64) {
    if truth.is_empty() {
        return (1.0, 1.0, 1.0);
    }
    let table = SortedTable::new(truth, predicted);
    let entropy_true = entropy_exact(&table.rows);
    let entropy_pred = entropy_exact(&table.cols);
    let mi = table.mutual_information();
    let homogeneity = if entropy_true != 0.0 { mi / entropy_true } else { 1.0 };
    let completeness = if entropy_pred != 0.0 { mi / entropy_pred } else { 1.0 };
    let v = if homogeneity + completeness == 0.0 {
        0.0
    } else {
        2.0 * homogeneity * completeness / (homogeneity + completeness)
    };
    (homogeneity, completeness, v)
}

/// Normalized mutual information with the arithmetic mean of the two entropies
/// (`normalized_mutual_info_score`'s default), in scikit-learn's order of operations as
/// [`homogeneity_completeness_v`]: its numbers to the last bit. One cluster each (or no
/// items) scores 1; no shared information scores 0.
pub fn normalized_mutual_information<A: Ord + Hash, B: Ord + Hash>(truth: &[A], predicted: &[B]) -> f64 {
    SortedTable::new(truth, predicted).normalized_mutual_information()
}

/// The contingency table of two labelings as scikit-learn builds it: classes and clusters
/// numbered in sorted label order (`np.unique`), the non-zero cells row by row.
struct SortedTable {
    /// Non-zero cells as ((row, column), count), row by row.
    cells: Vec<((usize, usize), i64)>,
    rows: Vec<i64>,
    cols: Vec<i64>,
    total: i64,
}

impl SortedTable {
    fn new<A: Ord + Hash, B: Ord + Hash>(truth: &[A], predicted: &[B]) -> SortedTable {
        assert_eq!(truth.len(), predicted.len(), "both labelings must cover the same items");
        let (row_of, row_count) = sorted_codes(truth);
        let (col_of, col_count) = sorted_codes(predicted);
        let mut cells: Vec<((usize, usize), i64)> = if row_count.saturating_mul(col_count) <= 4 * truth.len() + 64 {
            // A dense table is cheaper than hashing whenever it is not much larger than the items.
            let mut dense = vec![0i64; row_count * col_count];
            for (&r, &c) in row_of.iter().zip(&col_of) {
                dense[r * col_count + c] += 1;
            }
            dense
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, &n)| ((i / col_count, i % col_count), n))
                .collect()
        } else {
            let mut sparse: foldhash::HashMap<(usize, usize), i64> = foldhash::HashMap::default();
            for (&r, &c) in row_of.iter().zip(&col_of) {
                *sparse.entry((r, c)).or_default() += 1;
            }
            sparse.into_iter().collect()
        };
        cells.sort_unstable();
        let mut rows = vec![0i64; row_count];
        let mut cols = vec![0i64; col_count];
        for &((r, c), count) in &cells {
            rows[r] += count;
            cols[c] += count;
        }
        SortedTable { cells, rows, cols, total: truth.len() as i64 }
    }

    /// See [`adjusted_rand_index`]: sklearn's pair-confusion matrix of ordered pairs.
    fn adjusted_rand_index(&self) -> f64 {
        let n = i128::from(self.total);
        let square = |c: &i64| i128::from(*c) * i128::from(*c);
        let sum_squares: i128 = self.cells.iter().map(|(_, c)| square(c)).sum();
        let row_squares: i128 = self.rows.iter().map(square).sum();
        let col_squares: i128 = self.cols.iter().map(square).sum();
        let tp = sum_squares - n;
        let fp = row_squares - sum_squares;
        let fn_ = col_squares - sum_squares;
        let tn = n * n - fp - fn_ - sum_squares;
        if fn_ == 0 && fp == 0 {
            return 1.0;
        }
        // In whole numbers, each side rounded to a float once, as scikit-learn's Python integers are.
        let numerator = tp * tn - fn_ * fp;
        let denominator = (tp + fn_) * (fn_ + tn) + (tp + fp) * (fp + tn);
        2.0 * numerator as f64 / denominator as f64
    }

    /// See [`normalized_mutual_information`].
    fn normalized_mutual_information(&self) -> f64 {
        if self.rows.len() == self.cols.len() && self.rows.len() <= 1 {
            return 1.0;
        }
        let mi = self.mutual_information();
        if mi == 0.0 {
            return 0.0;
        }
        let normalizer = (entropy_exact(&self.rows) + entropy_exact(&self.cols)) / 2.0;
        mi / normalizer
    }

    /// The mutual information (nats) as `mutual_info_score` sums it from a contingency table:
    /// each cell's term from its share and logarithms, terms under machine epsilon set to 0,
    /// numpy's sum, clipped at 0. Zero when either labeling has one label.
    fn mutual_information(&self) -> f64 {
        if self.rows.len() == 1 || self.cols.len() == 1 {
            return 0.0;
        }
        let total = self.total as f64;
        let (ln_rows, ln_cols) =
            ((self.rows.iter().sum::<i64>() as f64).ln(), (self.cols.iter().sum::<i64>() as f64).ln());
        let terms: Vec<f64> = self
            .cells
            .iter()
            .map(|&((r, c), count)| {
                let share = count as f64 / total;
                let ln_outer = -((self.rows[r] * self.cols[c]) as f64).ln() + ln_rows + ln_cols;
                let term = share * ((count as f64).ln() - total.ln()) + share * ln_outer;
                if term.abs() < f64::EPSILON { 0.0 } else { term }
            })
            .collect();
        numpy_sum(&terms).max(0.0)
    }
}

/// Each item's label as its number in sorted label order (`np.unique`'s inverse), and how many
/// distinct labels there are. Labels are numbered as first seen, then only the distinct ones are
/// sorted.
fn sorted_codes<L: Ord + Hash>(labels: &[L]) -> (Vec<usize>, usize) {
    let mut first_seen: foldhash::HashMap<&L, usize> = foldhash::HashMap::default();
    let codes: Vec<usize> = labels
        .iter()
        .map(|label| {
            let next = first_seen.len();
            *first_seen.entry(label).or_insert(next)
        })
        .collect();
    let mut distinct: Vec<(&L, usize)> = first_seen.into_iter().collect();
    distinct.sort_unstable();
    let mut rank = vec![0; distinct.len()];
    for (position, &(_, code)) in distinct.iter().enumerate() {
        rank[code] = position;
    }
    (codes.into_iter().map(|code| rank[code]).collect(), distinct.len())
}

/// A labeling's entropy from its class sizes in sorted label order, as scikit-learn sums it.
fn entropy_exact(counts: &[i64]) -> f64 {
    if counts.len() <= 1 {
        return 0.0;
    }
    let sizes: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
    let total = numpy_sum(&sizes);
    let terms: Vec<f64> = sizes.iter().map(|&size| (size / total) * (size.ln() - total.ln())).collect();
    -numpy_sum(&terms)
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
    ClusterMembers::new(memberships.iter().map(AsRef::as_ref)).by_relevance(relevant, p)
}

/// [`ClusterMembers::by_relevance`] of every topic at once: `topics` lists each document's
/// topics (numbers below `topic_count`), `clusters` its clusters. Entry `t` of the answer is
/// topic `t`'s `(Rc@p, Rv@p)`, `None` when no document has it.
///
/// When every document sits in exactly one cluster, the clusters share no document, so what the
/// clusters taken for a topic hold is the sum of their sizes and of their overlaps with it: one
/// pass over the documents counts each topic's overlap with each cluster, where measuring each
/// topic on its own would walk every cluster's documents once per topic. With soft memberships
/// each topic is measured on its own ([`ClusterMembers::by_relevance`]), as distinct documents
/// must be counted.
pub fn coverage_by_topic<'a, T, C>(topics: T, clusters: C, topic_count: usize, p: f64) -> Vec<TopicCoverage>
where
    T: IntoIterator<Item = &'a [usize]> + Clone,
    C: IntoIterator<Item = &'a [usize]> + Clone,
{
    match Overlaps::of_hard(topics.clone(), clusters.clone(), topic_count) {
        Some(overlaps) => (0..topic_count)
            .map(|topic| TopicCoverage {
                documents: overlaps.topic_sizes[topic],
                clusters_and_share: overlaps.by_relevance(topic, p),
            })
            .collect(),
        None => {
            let members = ClusterMembers::new(clusters);
            let topic_members = ClusterMembers::new(topics);
            let mut relevant = vec![false; members.documents];
            (0..topic_count)
                .map(|topic| {
                    let documents = topic_members.documents_of(topic);
                    documents.iter().for_each(|&d| relevant[d] = true);
                    let clusters_and_share = members.by_relevance(&relevant, p);
                    documents.iter().for_each(|&d| relevant[d] = false);
                    TopicCoverage { documents: documents.len(), clusters_and_share }
                })
                .collect()
        }
    }
}

/// One topic's documents and, when it has any, its `(Rc@p, Rv@p)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicCoverage {
    /// How many documents have the topic.
    pub documents: usize,
    /// Rc@p and Rv@p ([`ClusterMembers::by_relevance`]); `None` when no document has the topic.
    pub clusters_and_share: Option<(usize, f64)>,
}

/// How many documents each topic shares with each cluster of a hard clustering (one cluster per
/// document), with the clusters' and topics' sizes.
struct Overlaps {
    /// Row `topic`, column `cluster`.
    shared: Vec<usize>,
    cluster_sizes: Vec<usize>,
    topic_sizes: Vec<usize>,
    documents: usize,
}

impl Overlaps {
    /// The counts, or `None` when some document is in no cluster or in more than one.
    fn of_hard<'a>(
        topics: impl IntoIterator<Item = &'a [usize]>,
        clusters: impl IntoIterator<Item = &'a [usize]> + Clone,
        topic_count: usize,
    ) -> Option<Overlaps> {
        let mut cluster_count = 0;
        for of_document in clusters.clone() {
            let &[cluster] = of_document else { return None };
            cluster_count = cluster_count.max(cluster + 1);
        }
        let mut overlaps = Overlaps {
            shared: vec![0; topic_count * cluster_count],
            cluster_sizes: vec![0; cluster_count],
            topic_sizes: vec![0; topic_count],
            documents: 0,
        };
        for (of_document, cluster) in topics.into_iter().zip(clusters) {
            let cluster = cluster[0];
            overlaps.cluster_sizes[cluster] += 1;
            overlaps.documents += 1;
            for (at, &topic) in of_document.iter().enumerate() {
                if of_document[..at].contains(&topic) {
                    continue; // listed twice, counted once (as `ClusterMembers` counts it)
                }
                overlaps.topic_sizes[topic] += 1;
                overlaps.shared[topic * cluster_count + cluster] += 1;
            }
        }
        Some(overlaps)
    }

    /// [`ClusterMembers::by_relevance`] for `topic`: the clusters in the same order, their
    /// documents counted by size (no document is in two of them).
    fn by_relevance(&self, topic: usize, p: f64) -> Option<(usize, f64)> {
        let total_relevant = self.topic_sizes[topic];
        if total_relevant == 0 || self.documents == 0 {
            return None;
        }
        let row = &self.shared[topic * self.cluster_sizes.len()..][..self.cluster_sizes.len()];
        let mut clusters: Vec<(usize, usize, usize)> = (self.cluster_sizes.iter().zip(row).enumerate())
            .filter(|(_, (size, _))| **size > 0)
            .map(|(cluster, (&size, &shared))| (shared, size, cluster))
            .collect();
        clusters.sort_unstable_by_key(|&(shared, size, cluster)| taking_order(shared, size, cluster));
        let needed = relevant_needed(p, total_relevant);
        let (mut covered, mut documents, mut taken) = (0, 0, 0);
        for (shared, size, _) in clusters {
            if covered >= needed {
                break;
            }
            covered += shared;
            documents += size;
            taken += 1;
        }
        Some((taken, documents as f64 / self.documents as f64))
    }
}

/// The order a topic's clusters are taken in ([`clusters_by_relevance`]): most of the topic's
/// documents first, then the smaller cluster, then the lower label (labels differ, so the order
/// is total).
fn taking_order(relevant: usize, size: usize, label: usize) -> (std::cmp::Reverse<usize>, usize, usize) {
    (std::cmp::Reverse(relevant), size, label)
}

/// How many of a topic's `total` documents the clusters taken must hold to cover `p` of them.
fn relevant_needed(p: f64, total: usize) -> usize {
    (p * total as f64).ceil() as usize
}

/// Each cluster's documents (soft memberships), gathered once to measure many topics with
/// [`ClusterMembers::by_relevance`].
pub struct ClusterMembers {
    /// Per cluster label (dense, 0..max label), its distinct documents in document order.
    members: Vec<Vec<usize>>,
    documents: usize,
}

impl ClusterMembers {
    /// Document i's clusters are the i-th slice (labels are small whole numbers).
    pub fn new<'a>(memberships: impl IntoIterator<Item = &'a [usize]>) -> ClusterMembers {
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut documents = 0;
        for (doc, clusters) in memberships.into_iter().enumerate() {
            documents = doc + 1;
            for &c in clusters {
                if c >= members.len() {
                    members.resize_with(c + 1, Vec::new);
                }
                if members[c].last() != Some(&doc) {
                    members[c].push(doc);
                }
            }
        }
        ClusterMembers { members, documents }
    }

    /// The documents of cluster `label`, in order (none for a label no document has).
    pub fn documents_of(&self, label: usize) -> &[usize] {
        self.members.get(label).map_or(&[], Vec::as_slice)
    }

    /// [`clusters_by_relevance_soft`] for the topic `relevant`.
    pub fn by_relevance(&self, relevant: &[bool], p: f64) -> Option<(usize, f64)> {
        let total_relevant = relevant.iter().filter(|&&r| r).count();
        if total_relevant == 0 || self.documents == 0 {
            return None;
        }
        let mut clusters: Vec<(usize, usize, &[usize])> = (self.members.iter().enumerate())
            .filter(|(_, docs)| !docs.is_empty())
            .map(|(c, docs)| (c, docs.iter().filter(|&&d| relevant[d]).count(), docs.as_slice()))
            .collect();
        clusters.sort_unstable_by_key(|&(cluster, relevant, docs)| taking_order(relevant, docs.len(), cluster));
        let needed = relevant_needed(p, total_relevant);
        let mut seen = vec![false; self.documents];
        let (mut covered, mut documents, mut taken) = (0, 0, 0);
        for (_, _, docs) in clusters {
            if covered >= needed {
                break;
            }
            for &d in docs {
                if !std::mem::replace(&mut seen[d], true) {
                    documents += 1;
                    covered += usize::from(relevant[d]);
                }
            }
            taken += 1;
        }
        Some((taken, documents as f64 / self.documents as f64))
    }
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
    fn scikit_learn_to_the_last_bit() {
        // Printed by scikit-learn 1.9 for the same labels (numbers, so ordered by value; as text
        // its NMI is 0.029164241928475533).
        let truth: Vec<usize> = (0..2000).map(|i| (i * 7919 + 6) % 37).collect();
        let guess: Vec<usize> = (0..2000).map(|i| ((i * 104729 * 6) % 41 + (i % 3)) % 40).collect();
        assert_eq!(rand_index_and_mutual_information(&truth, &guess), (-0.014053452503325983, 0.02916424192847553));
        assert_eq!(
            homogeneity_completeness_v(&truth, &guess),
            (0.029465397483144015, 0.028869180103772523, 0.02916424192847553)
        );
        let as_text = |labels: &[usize]| labels.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(normalized_mutual_information(&as_text(&truth), &as_text(&guess)), 0.029164241928475533);
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
    fn coverage_by_topic_counts_as_each_topic_measured_alone() {
        // Hard clusterings take the counting path, soft ones the per-topic path; both must equal
        // `ClusterMembers::by_relevance` topic by topic, ties between clusters included.
        let mut rng = litnav_core::rng::SplitMix64(11);
        let mut below = |n: usize| rng.below(n);
        for case in 0..300 {
            let (documents, topic_count, cluster_count) = (1 + below(60), 1 + below(6), 1 + below(8));
            let topics: Vec<Vec<usize>> =
                (0..documents).map(|_| (0..1 + below(2)).map(|_| below(topic_count)).collect()).collect();
            let soft = case % 3 == 0;
            let clusters: Vec<Vec<usize>> = (0..documents)
                .map(|_| (0..if soft { 1 + below(3) } else { 1 }).map(|_| below(cluster_count)).collect())
                .collect();
            let members = ClusterMembers::new(clusters.iter().map(Vec::as_slice));
            let topic_members = ClusterMembers::new(topics.iter().map(Vec::as_slice));
            for p in [0.3, 0.8, 1.0, 1.7] {
                let found = coverage_by_topic(
                    topics.iter().map(Vec::as_slice),
                    clusters.iter().map(Vec::as_slice),
                    topic_count,
                    p,
                );
                for (topic, coverage) in found.into_iter().enumerate() {
                    let relevant: Vec<bool> = topics.iter().map(|t| t.contains(&topic)).collect();
                    let alone = members.by_relevance(&relevant, p);
                    let expected =
                        TopicCoverage { documents: topic_members.documents_of(topic).len(), clusters_and_share: alone };
                    assert_eq!(coverage, expected, "case {case}, topic {topic}, p {p}");
                }
            }
        }
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
