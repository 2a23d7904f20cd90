//! Uzzi-style novelty (Uzzi, Mukherjee, Stringer & Jones 2013), as SciNet uses it.
//!
//! Every pair of references a paper cites together is a combination of two "units" (journals in
//! Uzzi's paper). How often each unit pair is co-cited across the corpus is compared with how
//! often it is co-cited in randomized citation graphs that keep every paper's number of references
//! and every paper's number of citations; z = (observed − mean of nulls) / sd of nulls. A paper's
//! novelty is the 10th percentile of its pairs' z-scores (low = atypical combination = novel), its
//! conventionality the median.
//!
//! Choices the papers leave open, made here:
//! - **Units.** [`Units::Venues`] (default): a reference's venue; a reference without a venue is
//!   its own unit. [`Units::References`]: every reference is its own unit (for corpora without
//!   venues). Pairs are unordered and a unit may pair with itself.
//! - **Counting.** Each pair of distinct reference slots in a paper adds one to its unit pair's
//!   count; the paper's z-scores are one per reference pair (a paper with k references has
//!   k(k−1)/2 of them).
//! - **Null model.** Markov-chain edge switching: two citation edges a→b and c→d made by papers of
//!   the same publication year (Uzzi's restriction; an unknown year is its own group) become a→d
//!   and c→b unless that would create a self-citation or a repeated edge. `swaps_per_edge` × the
//!   number of edges switches are attempted per null graph (default 5); `nulls` graphs (default 10)
//!   are drawn, null `i` seeded with the i-th output of SplitMix64(seed). Deterministic for a seed,
//!   whatever the thread count.
//! - **z.** Mean and sample standard deviation (n − 1) over the nulls. When the null sd is 0 the
//!   pair has no z-score and is left out of the paper's percentiles; a paper with no scored pair
//!   has no novelty (reason given).
//! - **Percentiles** interpolate linearly between order statistics (position (n − 1)·q), as
//!   NumPy's default.

use crate::{Graph, Node};
use litnav_core::rng::SplitMix64;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// What plays the role of Uzzi's journals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    /// A reference's venue (its own unit when it has none).
    #[default]
    Venues,
    /// Every reference is its own unit.
    References,
}

/// Parameters of the novelty computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// What a reference's "journal" is.
    pub units: Units,
    /// Number of randomized graphs.
    pub nulls: usize,
    /// Switch attempts per edge, per randomized graph.
    pub swaps_per_edge: usize,
    /// Seed of the randomization.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { units: Units::Venues, nulls: 10, swaps_per_edge: 5, seed: litnav_core::DEFAULT_SEED }
    }
}

/// Why a paper has no novelty value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undefined {
    /// Fewer than two in-corpus references: no pair to score.
    FewerThanTwoReferences,
    /// Every pair's null distribution had zero spread.
    NoScoredPair,
}

impl Undefined {
    /// The reason in words.
    pub fn describe(self) -> &'static str {
        match self {
            Undefined::FewerThanTwoReferences => "fewer than two in-corpus references, so no combination to score",
            Undefined::NoScoredPair => "no reference pair varies across the randomized graphs",
        }
    }
}

/// The novelty of one paper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Novelty {
    /// Reference pairs with a z-score.
    pub pairs: usize,
    /// 10th percentile of the pairs' z-scores (lower = more novel).
    pub p10: Option<f64>,
    /// Median z-score (higher = more conventional).
    pub median: Option<f64>,
    /// Why the values are missing, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<Undefined>,
}

/// Novelty of every paper, in node order.
pub fn novelty_all(graph: &Graph, options: &Options) -> Vec<Novelty> {
    let units = unit_of_each_node(graph, options.units);
    let references: Vec<&[Node]> = graph.nodes().map(|n| graph.references(n)).collect();
    let observed = PairIndex::count(&references, &units);
    let mut seeds = SplitMix64(options.seed);
    let seeds: Vec<u64> = (0..options.nulls).map(|_| seeds.next_u64()).collect();
    // Per null graph, the count of every observed pair; then mean and sd per pair.
    let null_counts: Vec<Vec<u32>> = seeds
        .par_iter()
        .map(|&seed| {
            let rewired = randomized_references(graph, options.swaps_per_edge, seed);
            let slices: Vec<&[Node]> = rewired.iter().map(Vec::as_slice).collect();
            observed.recount(&slices, &units)
        })
        .collect();
    let z = observed.z_scores(&null_counts);
    graph.nodes().map(|node| paper_novelty(graph.references(node), &units, &observed, &z)).collect()
}

fn paper_novelty(references: &[Node], units: &[u32], index: &PairIndex, z: &[Option<f64>]) -> Novelty {
    if references.len() < 2 {
        return Novelty { pairs: 0, p10: None, median: None, undefined: Some(Undefined::FewerThanTwoReferences) };
    }
    let mut scores = Vec::new();
    for (i, &a) in references.iter().enumerate() {
        for &b in &references[i + 1..] {
            let pair = index.position(units[a as usize], units[b as usize]);
            if let Some(score) = pair.and_then(|p| z[p]) {
                scores.push(score);
            }
        }
    }
    if scores.is_empty() {
        return Novelty { pairs: 0, p10: None, median: None, undefined: Some(Undefined::NoScoredPair) };
    }
    scores.sort_by(f64::total_cmp);
    Novelty {
        pairs: scores.len(),
        p10: Some(quantile(&scores, 0.1)),
        median: Some(quantile(&scores, 0.5)),
        undefined: None,
    }
}

/// The q-quantile of sorted `values`, interpolating linearly (NumPy's default).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = (sorted.len() - 1) as f64 * q;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let fraction = position - below as f64;
    sorted[below] + (sorted[above] - sorted[below]) * fraction
}

/// Unit number of every node: its venue number, or (venue count + node) when it has no venue
/// or units are references.
fn unit_of_each_node(graph: &Graph, units: Units) -> Vec<u32> {
    let own = |node: Node| graph.venue_count() as u32 + node;
    graph
        .nodes()
        .map(|node| match units {
            Units::Venues => graph.venue_index(node).unwrap_or_else(|| own(node)),
            Units::References => own(node),
        })
        .collect()
}

fn pair_key(a: u32, b: u32) -> u64 {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    ((low as u64) << 32) | high as u64
}

/// The unit pairs co-cited in the real graph, numbered, with their observed counts.
struct PairIndex {
    positions: HashMap<u64, usize>,
    observed: Vec<u32>,
}

impl PairIndex {
    fn count(references: &[&[Node]], units: &[u32]) -> PairIndex {
        let mut positions = HashMap::new();
        let mut observed = Vec::new();
        for_each_pair(references, units, |key| {
            let next = observed.len();
            let position = *positions.entry(key).or_insert(next);
            if position == next {
                observed.push(0);
            }
            observed[position] += 1;
        });
        PairIndex { positions, observed }
    }

    fn position(&self, a: u32, b: u32) -> Option<usize> {
        self.positions.get(&pair_key(a, b)).copied()
    }

    /// Counts of the observed pairs in another graph (pairs not observed are ignored).
    fn recount(&self, references: &[&[Node]], units: &[u32]) -> Vec<u32> {
        let mut counts = vec![0u32; self.observed.len()];
        for_each_pair(references, units, |key| {
            if let Some(&position) = self.positions.get(&key) {
                counts[position] += 1;
            }
        });
        counts
    }

    fn z_scores(&self, nulls: &[Vec<u32>]) -> Vec<Option<f64>> {
        let k = nulls.len() as f64;
        (0..self.observed.len())
            .map(|pair| {
                if nulls.len() < 2 {
                    return None;
                }
                let mean = nulls.iter().map(|c| c[pair] as f64).sum::<f64>() / k;
                let variance = nulls.iter().map(|c| (c[pair] as f64 - mean).powi(2)).sum::<f64>() / (k - 1.0);
                let sd = variance.sqrt();
                (sd > 0.0).then(|| (self.observed[pair] as f64 - mean) / sd)
            })
            .collect()
    }
}

fn for_each_pair(references: &[&[Node]], units: &[u32], mut visit: impl FnMut(u64)) {
    for refs in references {
        for (i, &a) in refs.iter().enumerate() {
            for &b in &refs[i + 1..] {
                visit(pair_key(units[a as usize], units[b as usize]));
            }
        }
    }
}

/// The citation edges (citing paper, slot in its reference list) made in one year.
type YearGroup = (Option<i32>, Vec<(Node, u32)>);

/// Every paper's references after degree-preserving edge switching among papers of the same
/// year (see the module documentation). Reference lists come back sorted.
pub fn randomized_references(graph: &Graph, swaps_per_edge: usize, seed: u64) -> Vec<Vec<Node>> {
    let mut references: Vec<Vec<Node>> = graph.nodes().map(|n| graph.references(n).to_vec()).collect();
    // Edges as (citing paper, slot in its list), grouped by the citing paper's year.
    let mut groups: HashMap<Option<i32>, Vec<(Node, u32)>> = HashMap::new();
    for node in graph.nodes() {
        let group = groups.entry(graph.year(node)).or_default();
        group.extend((0..graph.out_degree(node) as u32).map(|slot| (node, slot)));
    }
    let mut groups: Vec<YearGroup> = groups.into_iter().collect();
    groups.sort_by_key(|(year, _)| *year);
    let mut rng = SplitMix64(seed);
    for (_, edges) in &groups {
        if edges.len() < 2 {
            continue;
        }
        for _ in 0..edges.len() * swaps_per_edge {
            let (a, slot_a) = edges[rng.below(edges.len())];
            let (c, slot_c) = edges[rng.below(edges.len())];
            let b = references[a as usize][slot_a as usize];
            let d = references[c as usize][slot_c as usize];
            let allowed = a != c
                && b != d
                && a != d
                && c != b
                && !references[a as usize].contains(&d)
                && !references[c as usize].contains(&b);
            if allowed {
                references[a as usize][slot_a as usize] = d;
                references[c as usize][slot_c as usize] = b;
            }
        }
    }
    for list in &mut references {
        list.sort_unstable();
    }
    references
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    /// A random citation graph whose papers sit in 12 venues at random.
    fn random_graph(seed: u64) -> Graph {
        let base = crate::synthetic::preferential_attachment(2_000, 6, seed);
        let mut rng = SplitMix64(seed ^ 0xABCD);
        let nodes: Vec<NodeInfo> = base
            .nodes()
            .map(|n| NodeInfo {
                id: base.id(n).to_string(),
                year: base.year(n),
                venue: Some(format!("V{}", rng.below(12))),
                external_references: 0,
                ..NodeInfo::default()
            })
            .collect();
        let edges: Vec<(&str, &str)> = base.edges().map(|(a, b)| (base.id(a), base.id(b))).collect();
        Graph::build(nodes, &edges)
    }

    #[test]
    fn switching_keeps_every_degree_and_adds_no_self_or_repeated_citation() {
        let g = random_graph(3);
        let rewired = randomized_references(&g, 5, 9);
        let mut in_degree = vec![0usize; g.len()];
        let mut changed = 0;
        for node in g.nodes() {
            let list = &rewired[node as usize];
            assert_eq!(list.len(), g.out_degree(node));
            assert!(list.windows(2).all(|w| w[0] < w[1]), "repeated edge");
            assert!(!list.contains(&node), "self-citation");
            list.iter().for_each(|&r| in_degree[r as usize] += 1);
            changed += list.iter().filter(|&&r| !g.cites(node, r)).count();
        }
        assert!(g.nodes().all(|n| in_degree[n as usize] == g.in_degree(n)));
        assert!(changed > g.edge_count() / 2, "only {changed} edges moved");
    }

    #[test]
    fn a_randomly_rewired_graph_scores_near_zero() {
        // Rewire a random graph once: the result is itself a draw from the null model, so its
        // pairs should be neither atypical nor conventional on average.
        let g = random_graph(11);
        let rewired = randomized_references(&g, 5, 77);
        let nodes: Vec<NodeInfo> = g
            .nodes()
            .map(|n| NodeInfo {
                id: g.id(n).into(),
                year: g.year(n),
                venue: g.venue(n).map(str::to_string),
                external_references: 0,
                ..NodeInfo::default()
            })
            .collect();
        let g = &g;
        let edges: Vec<(&str, &str)> =
            g.nodes().flat_map(|n| rewired[n as usize].iter().map(move |&r| (g.id(n), g.id(r)))).collect();
        let null_like = Graph::build(nodes, &edges);
        let values = novelty_all(&null_like, &Options { nulls: 20, ..Options::default() });
        let medians: Vec<f64> = values.iter().filter_map(|v| v.median).collect();
        assert!(medians.len() > 1_500);
        let mean = medians.iter().sum::<f64>() / medians.len() as f64;
        assert!(mean.abs() < 0.25, "mean median z = {mean}");
    }

    #[test]
    fn a_planted_habit_is_conventional_and_its_breach_is_novel() {
        // Papers citing a venue-A paper almost always also cite a venue-B one; one paper pairs A
        // with venue C instead, which the randomized graphs produce more often than observed.
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let year = Some(2000);
        for i in 0..40 {
            for venue in ["A", "B", "C"] {
                nodes.push(NodeInfo {
                    id: format!("{venue}{i:02}"),
                    year: Some(1990),
                    venue: Some(venue.into()),
                    external_references: 0,
                    ..NodeInfo::default()
                });
            }
        }
        let ids: Vec<String> = (0..200).map(|i| format!("P{i:03}")).collect();
        for (i, id) in ids.iter().enumerate() {
            nodes.push(NodeInfo { id: id.clone(), year, venue: Some("X".into()), ..NodeInfo::default() });
            if i < 120 {
                edges.push((id.clone(), format!("A{:02}", i % 40)));
                edges.push((id.clone(), format!("B{:02}", (i * 7) % 40)));
            } else {
                edges.push((id.clone(), format!("C{:02}", i % 40)));
                edges.push((id.clone(), format!("C{:02}", (i + 13) % 40)));
            }
        }
        edges.push(("P000".into(), format!("C{:02}", 5)));
        let borrowed: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let g = Graph::build(nodes, &borrowed);
        let values = novelty_all(&g, &Options::default());
        let typical = values[g.node("P001").unwrap() as usize];
        let breach = values[g.node("P000").unwrap() as usize];
        assert!(typical.median.unwrap() > 2.0, "{typical:?}");
        assert!(breach.p10.unwrap() < 0.0, "{breach:?}");
        assert_eq!(values, novelty_all(&g, &Options::default()), "seeded");
        let few = values[g.node("A00").unwrap() as usize];
        assert_eq!(few.undefined, Some(Undefined::FewerThanTwoReferences));
    }

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert!((quantile(&v, 0.1) - 1.4).abs() < 1e-12);
        assert_eq!(quantile(&[7.0], 0.1), 7.0);
    }
}
