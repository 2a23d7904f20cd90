//! Pair-wise relations read off the graph: citation in either direction, co-citation (two papers
//! cited together by a third) and bibliographic coupling (two papers citing a common third).
//!
//! Similarities are Salton's cosine, `shared / sqrt(size_a × size_b)` over the two citer sets
//! (co-citation) or the two reference sets (coupling), and 0 when either set is empty.

use crate::{Graph, Node};
use serde::Serialize;
use std::collections::HashMap;

/// How two papers relate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairRelation {
    /// The first paper cites the second.
    pub cites: bool,
    /// The second paper cites the first.
    pub cited_by: bool,
    /// Papers citing both.
    pub co_citations: usize,
    /// Salton cosine of the two citer sets.
    pub co_citation_similarity: f64,
    /// References both cite.
    pub shared_references: usize,
    /// Salton cosine of the two reference sets.
    pub coupling_similarity: f64,
}

/// Size of the intersection of two ascending lists.
pub fn intersection_size(a: &[Node], b: &[Node]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

fn salton(shared: usize, a: usize, b: usize) -> f64 {
    if a == 0 || b == 0 { 0.0 } else { shared as f64 / ((a as f64) * (b as f64)).sqrt() }
}

/// Every pair-wise relation between `a` and `b`.
pub fn relation(graph: &Graph, a: Node, b: Node) -> PairRelation {
    let co_citations = intersection_size(graph.citers(a), graph.citers(b));
    let shared_references = intersection_size(graph.references(a), graph.references(b));
    PairRelation {
        cites: graph.cites(a, b),
        cited_by: graph.cites(b, a),
        co_citations,
        co_citation_similarity: salton(co_citations, graph.in_degree(a), graph.in_degree(b)),
        shared_references,
        coupling_similarity: salton(shared_references, graph.out_degree(a), graph.out_degree(b)),
    }
}

/// A paper related to a query paper, with the count and similarity that relate them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Related {
    /// The related paper.
    pub node: Node,
    /// Co-citations (or shared references).
    pub count: usize,
    /// Salton cosine.
    pub similarity: f64,
}

/// Papers co-cited with `paper`, most co-citations first (ties: higher similarity, then smaller
/// id), at most `k`.
pub fn co_cited_with(graph: &Graph, paper: Node, k: usize) -> Vec<Related> {
    let counts = count_two_steps(graph.citers(paper), |citer| graph.references(citer), paper);
    rank(counts, k, |other| salton_for(graph.in_degree(paper), graph.in_degree(other)))
}

/// Papers sharing references with `paper` (bibliographic coupling), most shared first.
pub fn coupled_with(graph: &Graph, paper: Node, k: usize) -> Vec<Related> {
    let counts = count_two_steps(graph.references(paper), |reference| graph.citers(reference), paper);
    rank(counts, k, |other| salton_for(graph.out_degree(paper), graph.out_degree(other)))
}

fn salton_for(a: usize, b: usize) -> impl Fn(usize) -> f64 {
    move |shared| salton(shared, a, b)
}

fn count_two_steps<'g>(first: &[Node], second: impl Fn(Node) -> &'g [Node], exclude: Node) -> HashMap<Node, usize> {
    let mut counts = HashMap::new();
    for &middle in first {
        for &other in second(middle) {
            if other != exclude {
                *counts.entry(other).or_insert(0) += 1;
            }
        }
    }
    counts
}

fn rank<S: Fn(usize) -> f64>(counts: HashMap<Node, usize>, k: usize, similarity: impl Fn(Node) -> S) -> Vec<Related> {
    let mut related: Vec<Related> =
        counts.into_iter().map(|(node, count)| Related { node, count, similarity: similarity(node)(count) }).collect();
    related.sort_by(|a, b| b.count.cmp(&a.count).then(b.similarity.total_cmp(&a.similarity)).then(a.node.cmp(&b.node)));
    related.truncate(k);
    related
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    #[test]
    fn co_citation_and_coupling_on_a_small_graph() {
        // p and q both cite x and y; r cites x only. x and y are co-cited twice (p, q).
        let nodes = ["p", "q", "r", "x", "y"].map(|id| NodeInfo { id: id.into(), ..NodeInfo::default() }).to_vec();
        let g = Graph::build(nodes, &[("p", "x"), ("p", "y"), ("q", "x"), ("q", "y"), ("r", "x")]);
        let [p, q, r, x, y] = ["p", "q", "r", "x", "y"].map(|id| g.node(id).unwrap());
        let xy = relation(&g, x, y);
        assert_eq!(xy.co_citations, 2);
        assert!((xy.co_citation_similarity - 2.0 / 6f64.sqrt()).abs() < 1e-15);
        assert!(!xy.cites && !xy.cited_by);
        let pq = relation(&g, p, q);
        assert_eq!((pq.shared_references, pq.coupling_similarity), (2, 1.0));
        assert!(relation(&g, p, x).cites && relation(&g, x, p).cited_by);
        let with_x = co_cited_with(&g, x, 10);
        assert_eq!(with_x.iter().map(|r| (r.node, r.count)).collect::<Vec<_>>(), vec![(y, 2)]);
        let with_p = coupled_with(&g, p, 10);
        assert_eq!(with_p.iter().map(|r| (r.node, r.count)).collect::<Vec<_>>(), vec![(q, 2), (r, 1)]);
    }
}
