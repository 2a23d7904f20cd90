//! Knowledge Navigator's clustering scores (seed 004, §5.1, Table 1) of any clustering against
//! gold clusters: ARI and NMI (scikit-learn's, over each document's first cluster), and the
//! relevance-based Rc@p and Rv@p averaged over the gold clusters, beside the paper's random
//! baseline (the same cluster sizes, documents dealt to them at random).
//!
//! Both files are either JSON lines — `{"id": ..., "cluster": ...}` with a string or number
//! cluster, where a later line for the same id lists a secondary membership — or a litnav map
//! (JSON), whose leaves are the clusters (`paper_ids`) and whose `also` lists are secondary
//! memberships. ARI and NMI need a partition and read first memberships only; Rc@p and Rv@p
//! count every membership (a document reached through a second cluster is covered). Only
//! documents present in both files are scored; the others are counted.

use super::{mean, read_json_lines};
use litnav_eval::clustering::{TopicCoverage, coverage_by_topic, rand_index_and_mutual_information};
use litnav_organize::MapNode;
use litnav_session::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What to compute.
#[derive(Debug, Clone, Copy)]
pub struct ClusterOptions {
    /// Coverage of Rc@p and Rv@p (0.8 in the seed).
    pub coverage: f64,
    /// Random assignments averaged for the baseline.
    pub random_runs: usize,
    /// Seed of the first random assignment (run i uses seed + i).
    pub seed: u64,
}

/// The seed's coverage p of Rc@p and Rv@p, in percent as the faces take it.
pub const DEFAULT_COVERAGE_PERCENT: f64 = 80.0;

/// Random assignments the baseline averages by default.
pub const DEFAULT_RANDOM_RUNS: usize = 10;

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            coverage: DEFAULT_COVERAGE_PERCENT / 100.0,
            random_runs: DEFAULT_RANDOM_RUNS,
            seed: litnav_core::DEFAULT_SEED,
        }
    }
}

/// One clustering's four numbers.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct ClusterNumbers {
    /// Adjusted Rand Index.
    pub ari: f64,
    /// Normalized mutual information (arithmetic mean of the entropies).
    pub nmi: f64,
    /// Mean over gold clusters of the clusters needed to cover p of it.
    pub rc: f64,
    /// Mean over gold clusters of the share of documents those clusters hold.
    pub rv: f64,
}

/// One gold cluster's relevance measures.
#[derive(Debug, Clone, Serialize)]
pub struct GoldCluster {
    /// Its label.
    pub cluster: String,
    /// Documents it holds (among those scored).
    pub documents: usize,
    /// Clusters needed to cover p of it.
    pub rc: usize,
    /// Share of all documents those clusters hold.
    pub rv: f64,
}

/// The scores of a clustering.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterScores {
    /// Documents scored (in both files).
    pub documents: usize,
    /// Gold clusters among them.
    pub gold_clusters: usize,
    /// Predicted clusters among them.
    pub predicted_clusters: usize,
    /// Secondary memberships of the predicted clustering that were counted.
    pub secondary_memberships: usize,
    /// Documents only the gold file has (not scored).
    pub only_in_gold: usize,
    /// Documents only the predicted file has (not scored).
    pub only_in_predicted: usize,
    /// The coverage p.
    pub coverage: f64,
    /// The clustering's scores.
    pub scores: ClusterNumbers,
    /// The random baseline's mean scores (none when no random run was asked for).
    pub random: Option<ClusterNumbers>,
    /// Random assignments averaged.
    pub random_runs: usize,
    /// Each gold cluster.
    pub per_cluster: Vec<GoldCluster>,
    /// Lines that could not be read (file:line: field: why); the rest was scored.
    pub problems: Vec<String>,
}

/// A cluster's name as scikit-learn orders labels (`np.unique`): numbers by value when every
/// cluster of the clustering was given as a number, else text by code point.
#[derive(Debug, Clone, PartialEq)]
pub enum Label {
    /// A cluster given as a number (its value, and its text as given).
    Number(f64, String),
    /// A cluster given as text.
    Text(String),
}

impl Label {
    /// Its name as the answers print it.
    pub fn name(&self) -> &str {
        match self {
            Label::Number(_, text) | Label::Text(text) => text,
        }
    }

    /// The places of `labels` in scikit-learn's order: by value when all are numbers, else by
    /// their text.
    fn order(labels: &[Label]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..labels.len()).collect();
        if labels.iter().all(|l| matches!(l, Label::Number(..))) {
            let value = |l: &Label| if let Label::Number(v, _) = l { *v } else { 0.0 };
            order.sort_by(|&a, &b| {
                value(&labels[a]).total_cmp(&value(&labels[b])).then_with(|| labels[a].name().cmp(labels[b].name()))
            });
        } else {
            order.sort_by(|&a, &b| labels[a].name().cmp(labels[b].name()));
        }
        order
    }
}

/// Put `labels` (distinct) in scikit-learn's order; returns each label's new number by its old one.
pub fn sort_labels(labels: &mut Vec<Label>) -> Vec<usize> {
    let order = Label::order(labels);
    let mut renumber = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = new;
    }
    let sorted: Vec<Label> = order.iter().map(|&old| labels[old].clone()).collect();
    *labels = sorted;
    renumber
}

/// A clustering read from a file: each document's clusters, first membership first.
#[derive(Debug, Default)]
pub struct Assignment {
    memberships: BTreeMap<String, Vec<String>>,
    /// Whether every cluster was given as a number (JSON numbers), which orders them by value.
    numbers: bool,
}

impl Assignment {
    /// Read a JSON-lines assignment or a litnav map, collecting unreadable lines in `problems`.
    pub fn read(file: &Path, problems: &mut Vec<String>) -> Result<Assignment> {
        let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, &e))?;
        if let Ok(map) = serde_json::from_str::<MapNode>(&text) {
            return Ok(Assignment::from_map(&map));
        }
        let mut assignment = Assignment { numbers: true, ..Assignment::default() };
        for (line, record) in read_json_lines(file)? {
            let at = |field: &str, why: &str| format!("{}:{line}: field `{field}`: {why}", file.display());
            let Some(id) = record["id"].as_str() else {
                problems.push(at("id", "expected a string"));
                continue;
            };
            let cluster = match &record["cluster"] {
                Value::String(s) => {
                    assignment.numbers = false;
                    s.clone()
                }
                Value::Number(n) => n.to_string(),
                Value::Null => {
                    problems.push(at("cluster", "missing"));
                    continue;
                }
                _ => {
                    problems.push(at("cluster", "expected a string or a number"));
                    continue;
                }
            };
            assignment.add(id, &cluster);
        }
        if assignment.memberships.is_empty() {
            return Err(Error::input(format!("{}: no readable assignment", file.display())));
        }
        Ok(assignment)
    }

    /// A map's leaves as clusters (named by node id); `also` lists as secondary memberships.
    pub fn from_map(map: &MapNode) -> Assignment {
        fn walk(node: &MapNode, primary: &mut Vec<(String, String)>, secondary: &mut Vec<(String, String)>) {
            primary.extend(node.paper_ids.iter().map(|id| (id.clone(), node.id.clone())));
            secondary.extend(node.also.iter().map(|m| (m.id.clone(), node.id.clone())));
            node.subtopics.iter().for_each(|c| walk(c, primary, secondary));
        }
        let (mut primary, mut secondary) = (Vec::new(), Vec::new());
        walk(map, &mut primary, &mut secondary);
        Assignment::from_pairs(primary.iter().chain(&secondary).map(|(id, cluster)| (id.as_str(), cluster.as_str())))
    }

    /// An assignment from (document, cluster) pairs, first memberships first; clusters are text.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Assignment {
        let mut assignment = Assignment::default();
        for (id, cluster) in pairs {
            assignment.add(id, cluster);
        }
        assignment
    }

    /// An assignment from (document, cluster) pairs whose clusters are all numbers (their text).
    pub fn from_numbered_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Assignment {
        Assignment { numbers: true, ..Assignment::from_pairs(pairs) }
    }

    /// List `cluster` among `id`'s clusters (after those it has; once).
    fn add(&mut self, id: &str, cluster: &str) {
        let clusters = self.memberships.entry(id.to_string()).or_default();
        if !clusters.iter().any(|c| c == cluster) {
            clusters.push(cluster.to_string());
        }
    }

    /// Each of `ids`' clusters as numbers in label order ([`sort_labels`]), and the labels.
    fn numbered(&self, ids: &[&str]) -> (Memberships, Vec<Label>) {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut labels = Vec::new();
        let mut memberships = Memberships::default();
        for id in ids {
            memberships.push(self.memberships[*id].iter().map(|cluster| {
                *index.entry(cluster.as_str()).or_insert_with(|| {
                    labels.push(match cluster.parse::<f64>() {
                        Ok(value) if self.numbers => Label::Number(value, cluster.clone()),
                        _ => Label::Text(cluster.clone()),
                    });
                    labels.len() - 1
                })
            }));
        }
        memberships.renumber(&sort_labels(&mut labels));
        (memberships, labels)
    }
}

/// Each document's clusters in one block, the first primary: numbers into its clustering's
/// sorted labels.
#[derive(Debug, Default, Clone)]
pub struct Memberships {
    /// Where each document's clusters end in `clusters`.
    ends: Vec<usize>,
    clusters: Vec<usize>,
}

impl Memberships {
    /// Add a document with `clusters` (a cluster listed twice counts once).
    pub fn push(&mut self, clusters: impl IntoIterator<Item = usize>) {
        let start = self.clusters.len();
        for cluster in clusters {
            if !self.clusters[start..].contains(&cluster) {
                self.clusters.push(cluster);
            }
        }
        self.ends.push(self.clusters.len());
    }

    /// How many documents there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each document's clusters, in document order.
    pub fn iter(&self) -> impl Iterator<Item = &[usize]> + Clone {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.clusters[start..end])
    }

    /// Each document's primary cluster.
    pub fn primary(&self) -> Vec<usize> {
        self.iter().map(|clusters| clusters[0]).collect()
    }

    /// Memberships beyond the primary ones.
    pub fn secondary(&self) -> usize {
        self.clusters.len() - self.ends.len()
    }

    /// Give every cluster number `n` the number `renumber[n]`.
    pub fn renumber(&mut self, renumber: &[usize]) {
        self.clusters.iter_mut().for_each(|number| *number = renumber[*number]);
    }
}

/// Two clusterings over the documents they share: each document's clusters (its first one
/// primary) as numbers into the sorted labels of its clustering.
#[derive(Debug, Default)]
pub struct Aligned {
    /// Per shared document, its gold clusters.
    pub gold: Memberships,
    /// Per shared document, its predicted clusters.
    pub predicted: Memberships,
    /// The gold clusters' labels, in order.
    pub gold_labels: Vec<Label>,
    /// How many predicted clusters there are.
    pub predicted_clusters: usize,
    /// Documents only the gold clustering has.
    pub only_in_gold: usize,
    /// Documents only the predicted clustering has.
    pub only_in_predicted: usize,
    /// Whether the documents are in id order (the random baseline deals them in that order).
    pub in_id_order: bool,
}

/// Score the clustering in `predicted` against the gold clusters in `gold` (files).
pub fn score_cluster_files(gold: &Path, predicted: &Path, options: ClusterOptions) -> Result<ClusterScores> {
    let mut problems = Vec::new();
    let gold = Assignment::read(gold, &mut problems)?;
    let predicted = Assignment::read(predicted, &mut problems)?;
    let mut scores = score_clusters(&gold, &predicted, options)?;
    scores.problems = problems;
    Ok(scores)
}

/// Score `predicted` against `gold`.
pub fn score_clusters(gold: &Assignment, predicted: &Assignment, options: ClusterOptions) -> Result<ClusterScores> {
    score_aligned(&Aligned::of(gold, predicted), options)
}

impl Aligned {
    /// The documents `gold` and `predicted` share, in id order.
    pub fn of(gold: &Assignment, predicted: &Assignment) -> Aligned {
        let ids: Vec<&str> =
            gold.memberships.keys().filter(|id| predicted.memberships.contains_key(*id)).map(String::as_str).collect();
        let (gold_clusters, gold_labels) = gold.numbered(&ids);
        let (predicted_clusters, predicted_labels) = predicted.numbered(&ids);
        Aligned {
            gold: gold_clusters,
            predicted: predicted_clusters,
            gold_labels,
            predicted_clusters: predicted_labels.len(),
            only_in_gold: gold.memberships.len() - ids.len(),
            only_in_predicted: predicted.memberships.len() - ids.len(),
            in_id_order: true,
        }
    }
}

/// Score two aligned clusterings. The random baseline deals documents in id order, so it needs
/// `in_id_order` unless no random run is asked for.
pub fn score_aligned(aligned: &Aligned, options: ClusterOptions) -> Result<ClusterScores> {
    if !(options.coverage > 0.0 && options.coverage <= 1.0) {
        return Err(Error::input(format!("coverage must be in (0, 1], not {}", options.coverage)));
    }
    if aligned.gold.is_empty() {
        return Err(Error::input("the two clusterings share no document"));
    }
    if options.random_runs > 0 && !aligned.in_id_order {
        return Err(Error::internal("the random baseline needs the documents in id order"));
    }
    let (measured, per_cluster) = measure(&aligned.gold, &aligned.predicted, &aligned.gold_labels, options.coverage);
    let random = (options.random_runs > 0)
        .then(|| random_baseline(&aligned.gold, &aligned.predicted, &aligned.gold_labels, options));
    Ok(ClusterScores {
        documents: aligned.gold.len(),
        gold_clusters: aligned.gold_labels.len(),
        predicted_clusters: aligned.predicted_clusters,
        secondary_memberships: aligned.predicted.secondary(),
        only_in_gold: aligned.only_in_gold,
        only_in_predicted: aligned.only_in_predicted,
        coverage: options.coverage,
        scores: measured,
        random,
        random_runs: options.random_runs,
        per_cluster,
        problems: Vec::new(),
    })
}

/// The four numbers and each gold cluster's Rc/Rv.
fn measure(
    gold: &Memberships,
    predicted: &Memberships,
    gold_labels: &[Label],
    coverage: f64,
) -> (ClusterNumbers, Vec<GoldCluster>) {
    let measured = coverage_by_topic(gold.iter(), predicted.iter(), gold_labels.len(), coverage);
    let per_cluster: Vec<GoldCluster> = (gold_labels.iter().zip(measured))
        .filter_map(|(name, TopicCoverage { documents, clusters_and_share })| {
            let (rc, rv) = clusters_and_share?;
            Some(GoldCluster { cluster: name.name().to_string(), documents, rc, rv })
        })
        .collect();
    // The labels are numbered in sorted order, so their numbers sort as scikit-learn's labels.
    let (ari, nmi) = rand_index_and_mutual_information(&gold.primary(), &predicted.primary());
    let numbers = ClusterNumbers {
        ari,
        nmi,
        rc: mean(per_cluster.iter().map(|c| c.rc as f64)).unwrap_or(0.0),
        rv: mean(per_cluster.iter().map(|c| c.rv)).unwrap_or(0.0),
    };
    (numbers, per_cluster)
}

/// The seed's "random cluster assignment": the predicted clusters' sizes kept, documents dealt to
/// them in a seeded random order (first memberships only), averaged over the runs.
fn random_baseline(
    gold: &Memberships,
    predicted: &Memberships,
    gold_labels: &[Label],
    options: ClusterOptions,
) -> ClusterNumbers {
    let mut sums = ClusterNumbers { ari: 0.0, nmi: 0.0, rc: 0.0, rv: 0.0 };
    let runs = options.random_runs;
    for run in 0..runs {
        let mut primary = predicted.primary();
        let mut rng = litnav_core::rng::SplitMix64(options.seed.wrapping_add(run as u64));
        litnav_core::rng::shuffle(&mut primary, &mut rng);
        let mut dealt = Memberships::default();
        primary.into_iter().for_each(|cluster| dealt.push([cluster]));
        let (n, _) = measure(gold, &dealt, gold_labels, options.coverage);
        sums = ClusterNumbers { ari: sums.ari + n.ari, nmi: sums.nmi + n.nmi, rc: sums.rc + n.rc, rv: sums.rv + n.rv };
    }
    let r = runs as f64;
    ClusterNumbers { ari: sums.ari / r, nmi: sums.nmi / r, rc: sums.rc / r, rv: sums.rv / r }
}

impl std::fmt::Display for ClusterScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = (100.0 * self.coverage).round();
        writeln!(
            f,
            "{} documents: {} gold clusters, {} predicted ({} secondary memberships)",
            self.documents, self.gold_clusters, self.predicted_clusters, self.secondary_memberships
        )?;
        if self.only_in_gold + self.only_in_predicted > 0 {
            writeln!(
                f,
                "  not scored: {} only in the gold file, {} only in the predicted one",
                self.only_in_gold, self.only_in_predicted
            )?;
        }
        writeln!(f, "                  ARI ↑    NMI ↑   Rc@{p} ↓  Rv@{p} ↓")?;
        for (name, n) in
            std::iter::once(("clustering", &self.scores)).chain(self.random.as_ref().map(|r| ("random", r)))
        {
            writeln!(f, "  {name:<12} {:>8.4} {:>8.4} {:>8.2} {:>7.1}%", n.ari, n.nmi, n.rc, 100.0 * n.rv)?;
        }
        if self.random.is_some() {
            writeln!(
                f,
                "  (random: the same cluster sizes, documents dealt at random, mean of {} runs)",
                self.random_runs
            )?;
        }
        for problem in &self.problems {
            writeln!(f, "  skipped: {problem}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_clustering_and_its_random_baseline() {
        let pairs: Vec<(String, String)> = (0..60).map(|i| (format!("d{i}"), format!("g{}", i / 20))).collect();
        let gold = Assignment::from_pairs(pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let scores = score_clusters(&gold, &gold, ClusterOptions::default()).unwrap();
        let n = scores.scores;
        assert_eq!((n.ari, n.rc, n.rv), (1.0, 1.0, 1.0 / 3.0));
        assert!((n.nmi - 1.0).abs() < 1e-12);
        // Dealt at random into three clusters of 20, covering 16 of a gold cluster's 20 takes
        // (nearly) every cluster.
        let random = scores.random.expect("random runs were asked for");
        assert!(random.ari.abs() < 0.1 && random.rc > 2.0, "{random:?}");
    }
}
