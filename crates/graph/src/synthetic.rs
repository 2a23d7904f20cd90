//! Synthetic citation graphs for benchmarks and property tests.

use crate::{Graph, Node, NodeInfo};
use litnav_corpus::rng::SplitMix64;
use std::collections::HashMap;

/// A preferential-attachment citation graph in time order: paper `i` (id `S` + 8 digits, so id
/// order is time order; year spread evenly over 1950–2020) cites `min(i, refs)` distinct earlier
/// papers, each drawn with probability proportional to 1 + its citations so far. Seeded: the same
/// arguments give the same graph.
pub fn preferential_attachment(papers: usize, refs: usize, seed: u64) -> Graph {
    let mut rng = SplitMix64(seed);
    // Every paper appears once in `pool`, plus once per citation it has received: a uniform draw
    // from the pool is a draw proportional to 1 + in-degree.
    let mut pool: Vec<Node> = Vec::with_capacity(papers * (refs + 1));
    let mut pairs: Vec<(Node, Node)> = Vec::with_capacity(papers * refs);
    let mut chosen: Vec<Node> = Vec::with_capacity(refs);
    for paper in 0..papers as Node {
        chosen.clear();
        let wanted = refs.min(paper as usize);
        while chosen.len() < wanted {
            let cited = pool[rng.below(pool.len())];
            if !chosen.contains(&cited) {
                chosen.push(cited);
            }
        }
        for &cited in &chosen {
            pairs.push((paper, cited));
            pool.push(cited);
        }
        pool.push(paper);
    }
    let nodes: Vec<NodeInfo> = (0..papers)
        .map(|i| NodeInfo {
            id: format!("S{i:08}"),
            year: Some(1950 + (i * 70 / papers.max(1)) as i32),
            venue: None,
            external_references: 0,
        })
        .collect();
    let index: HashMap<String, Node> = nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as Node)).collect();
    Graph::from_numbered(nodes, vec![0; papers], index, &pairs)
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
