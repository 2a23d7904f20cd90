//! Synthetic citation graphs for benchmarks and property tests.

use crate::{Graph, Node, NodeInfo};
use litnav_core::rng::SplitMix64;

/// A preferential-attachment citation graph in time order: paper `i` (id `S` + 8 digits, so id
/// order is time order; years spread evenly over 1950–2020) cites `min(i, refs)` distinct earlier
/// papers, each drawn with probability proportional to `refs` + its citations so far. That initial
/// attractiveness equal to the reference count gives the Barabási–Albert degree tail, P(k) ~ k⁻³,
/// the exponent Redner measured for citations; with an attractiveness of 1 the tail would be
/// ~k^(−2 − 1/refs), far heavier than real citation data. Seeded: the same arguments give the same
/// graph.
pub fn preferential_attachment(papers: usize, refs: usize, seed: u64) -> Graph {
    let mut rng = SplitMix64(seed);
    let attractiveness = refs.max(1) as f64;
    // Drawing uniformly from the cited ends of the edges made so far is drawing proportionally to
    // in-degree; drawing a uniform earlier paper adds the constant attractiveness.
    let mut pairs: Vec<(Node, Node)> = Vec::with_capacity(papers * refs);
    let mut chosen: Vec<Node> = Vec::with_capacity(refs);
    for paper in 0..papers as Node {
        chosen.clear();
        let wanted = refs.min(paper as usize);
        let uniform_share = attractiveness * paper as f64 / (attractiveness * paper as f64 + pairs.len() as f64);
        while chosen.len() < wanted {
            let cited = if rng.next_f64() < uniform_share {
                rng.below(paper as usize) as Node
            } else {
                pairs[rng.below(pairs.len())].1
            };
            if !chosen.contains(&cited) {
                chosen.push(cited);
            }
        }
        pairs.extend(chosen.iter().map(|&cited| (paper, cited)));
    }
    let nodes: Vec<NodeInfo> = (0..papers)
        .map(|i| NodeInfo {
            id: format!("S{i:08}"),
            year: Some(1950 + (i * 70 / papers.max(1)) as i32),
            ..NodeInfo::default()
        })
        .collect();
    Graph::from_numbered_edges(nodes, &pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_seeded_time_ordered_and_has_the_asked_size() {
        let g = preferential_attachment(500, 4, 1);
        assert_eq!(g, preferential_attachment(500, 4, 1));
        assert_ne!(g, preferential_attachment(500, 4, 2));
        assert_eq!(g.edge_count(), (0..500).map(|i: usize| i.min(4)).sum::<usize>());
        for paper in g.nodes() {
            assert!(g.references(paper).iter().all(|&r| r < paper));
        }
        // Rich get richer: the most cited paper is cited far more than the average.
        let max = g.nodes().map(|n| g.in_degree(n)).max().unwrap();
        assert!(max > 10 * 4, "{max}");
    }
}
