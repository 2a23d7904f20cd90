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
use crate::error::{Error, Result};
use litnav_eval::clustering::{adjusted_rand_index, clusters_by_relevance_soft, normalized_mutual_information};
use litnav_organize::MapNode;
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
    /// The random baseline's mean scores.
    pub random: ClusterNumbers,
    /// Random assignments averaged.
    pub random_runs: usize,
    /// Each gold cluster.
    pub per_cluster: Vec<GoldCluster>,
    /// Lines that could not be read (file:line: field: why); the rest was scored.
    pub problems: Vec<String>,
}

/// A clustering read from a file: each document's clusters, first membership first.
#[derive(Debug, Default)]
pub struct Assignment {
    memberships: BTreeMap<String, Vec<String>>,
}

impl Assignment {
    /// Read a JSON-lines assignment or a litnav map, collecting unreadable lines in `problems`.
    pub fn read(file: &Path, problems: &mut Vec<String>) -> Result<Assignment> {
        let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, &e))?;
        if let Ok(map) = serde_json::from_str::<MapNode>(&text) {
            return Ok(Assignment::from_map(&map));
        }
        let mut assignment = Assignment::default();
        for (line, record) in read_json_lines(file)? {
            let at = |field: &str, why: &str| format!("{}:{line}: field `{field}`: {why}", file.display());
            let Some(id) = record["id"].as_str() else {
                problems.push(at("id", "expected a string"));
                continue;
            };
            let cluster = match &record["cluster"] {
                Value::String(s) => s.clone(),
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

    /// An assignment from (document, cluster) pairs, first memberships first.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Assignment {
        let mut assignment = Assignment::default();
        for (id, cluster) in pairs {
            assignment.add(id, cluster);
        }
        assignment
    }

    /// List `cluster` among `id`'s clusters (after those it has; once).
    fn add(&mut self, id: &str, cluster: &str) {
        let clusters = self.memberships.entry(id.to_string()).or_default();
        if !clusters.iter().any(|c| c == cluster) {
            clusters.push(cluster.to_string());
        }
    }
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
    if !(options.coverage > 0.0 && options.coverage <= 1.0) {
        return Err(Error::input(format!("coverage must be in (0, 1], not {}", options.coverage)));
    }
    let ids: Vec<&str> =
        gold.memberships.keys().filter(|id| predicted.memberships.contains_key(*id)).map(String::as_str).collect();
    if ids.is_empty() {
        return Err(Error::input("the two clusterings share no document"));
    }
    let (gold_labels, gold_names) = numbered(gold, &ids);
    let (predicted_labels, predicted_names) = numbered(predicted, &ids);
    let (measured, per_cluster) = measure(&gold_labels, &predicted_labels, &gold_names, options.coverage);
    let random = random_baseline(&gold_labels, &predicted_labels, &gold_names, options);
    Ok(ClusterScores {
        documents: ids.len(),
        gold_clusters: gold_names.len(),
        predicted_clusters: predicted_names.len(),
        secondary_memberships: predicted_labels.iter().map(|l| l.len() - 1).sum(),
        only_in_gold: gold.memberships.len() - ids.len(),
        only_in_predicted: predicted.memberships.len() - ids.len(),
        coverage: options.coverage,
        scores: measured,
        random,
        random_runs: options.random_runs,
        per_cluster,
        problems: Vec::new(),
    })
}

/// The clusters of each of `ids` as numbers, and the cluster names in number order.
fn numbered<'a>(assignment: &'a Assignment, ids: &[&str]) -> (Vec<Vec<usize>>, Vec<&'a str>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut names = Vec::new();
    let labels = ids
        .iter()
        .map(|id| {
            assignment.memberships[*id]
                .iter()
                .map(|c| {
                    *index.entry(c.as_str()).or_insert_with(|| {
                        names.push(c.as_str());
                        names.len() - 1
                    })
                })
                .collect()
        })
        .collect();
    (labels, names)
}

/// The four numbers and each gold cluster's Rc/Rv.
fn measure(
    gold: &[Vec<usize>],
    predicted: &[Vec<usize>],
    gold_names: &[&str],
    coverage: f64,
) -> (ClusterNumbers, Vec<GoldCluster>) {
    let first = |ls: &[Vec<usize>]| -> Vec<usize> { ls.iter().map(|l| l[0]).collect() };
    let (gold_first, predicted_first) = (first(gold), first(predicted));
    let per_cluster: Vec<GoldCluster> = gold_names
        .iter()
        .enumerate()
        .filter_map(|(label, name)| {
            let relevant: Vec<bool> = gold.iter().map(|l| l.contains(&label)).collect();
            let (rc, rv) = clusters_by_relevance_soft(predicted, &relevant, coverage)?;
            Some(GoldCluster { cluster: name.to_string(), documents: relevant.iter().filter(|&&r| r).count(), rc, rv })
        })
        .collect();
    let numbers = ClusterNumbers {
        ari: adjusted_rand_index(&gold_first, &predicted_first),
        nmi: normalized_mutual_information(&gold_first, &predicted_first),
        rc: mean(per_cluster.iter().map(|c| c.rc as f64)).unwrap_or(0.0),
        rv: mean(per_cluster.iter().map(|c| c.rv)).unwrap_or(0.0),
    };
    (numbers, per_cluster)
}

/// The seed's "random cluster assignment": the predicted clusters' sizes kept, documents dealt to
/// them in a seeded random order (first memberships only), averaged over the runs.
fn random_baseline(
    gold: &[Vec<usize>],
    predicted: &[Vec<usize>],
    gold_names: &[&str],
    options: ClusterOptions,
) -> ClusterNumbers {
    let mut sums = ClusterNumbers { ari: 0.0, nmi: 0.0, rc: 0.0, rv: 0.0 };
    let runs = options.random_runs.max(1);
    for run in 0..runs {
        let mut dealt: Vec<Vec<usize>> = predicted.iter().map(|l| vec![l[0]]).collect();
        let mut rng = litnav_core::rng::SplitMix64(options.seed.wrapping_add(run as u64));
        litnav_core::rng::shuffle(&mut dealt, &mut rng);
        let (n, _) = measure(gold, &dealt, gold_names, options.coverage);
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
        for (name, n) in [("clustering", &self.scores), ("random", &self.random)] {
            writeln!(f, "  {name:<12} {:>8.4} {:>8.4} {:>8.2} {:>7.1}%", n.ari, n.nmi, n.rc, 100.0 * n.rv)?;
        }
        writeln!(
            f,
            "  (random: the same cluster sizes, documents dealt at random, mean of {} runs)",
            self.random_runs
        )?;
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
        assert!(scores.random.ari.abs() < 0.1 && scores.random.rc > 2.0, "{:?}", scores.random);
    }
}
