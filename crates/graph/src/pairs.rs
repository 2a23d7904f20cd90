//! Pair-wise relations read off the graph: citation in either direction, co-citation (two papers
//! cited together by a third) and bibliographic coupling (two papers citing a common third).
//!
//! Similarities are Salton's cosine, `shared / sqrt(size_a × size_b)` over the two citer sets
//! (co-citation) or the two reference sets (coupling), and 0 when either set is empty.

use crate::{Graph, Node};
use serde::Serialize;

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
    TwoSteps::new(graph.len()).co_cited(graph, paper, k)
}

/// Papers sharing references with `paper` (bibliographic coupling), most shared first.
pub fn coupled_with(graph: &Graph, paper: Node, k: usize) -> Vec<Related> {
    TwoSteps::new(graph.len()).coupled(graph, paper, k)
}

/// Counts the papers two steps away from a paper — through its citers to their references
/// (co-citation) or through its references to their citers (coupling) — and ranks them.
///
/// One counter serves many papers (a dense count per node and the list of nodes touched, reset
/// after each paper), which is what computing the relation for every paper of a graph needs; the
/// graph may also be a part of a larger one, with the sizes taken from the whole.
pub struct TwoSteps {
    counts: Vec<u32>,
    touched: Vec<Node>,
}

impl TwoSteps {
    /// A counter for graphs of up to `nodes` nodes.
    pub fn new(nodes: usize) -> TwoSteps {
        TwoSteps { counts: vec![0; nodes], touched: Vec::new() }
    }

    /// [`co_cited_with`] with this counter.
    pub fn co_cited(&mut self, graph: &Graph, paper: Node, k: usize) -> Vec<Related> {
        self.top_k(graph.citers(paper), |citer| graph.references(citer), paper, k, |n| graph.in_degree(n))
    }

    /// [`coupled_with`] with this counter.
    pub fn coupled(&mut self, graph: &Graph, paper: Node, k: usize) -> Vec<Related> {
        self.top_k(graph.references(paper), |reference| graph.citers(reference), paper, k, |n| graph.out_degree(n))
    }

    /// The `k` nodes reached most often from `paper` through `middles` and then `onward`, most
    /// first (ties: higher Salton similarity, then smaller node), `paper` itself left out. `size`
    /// gives a node's set size for the similarity (its citers for co-citation, its references
    /// for coupling).
    pub fn top_k<'g>(
        &mut self,
        middles: &[Node],
        onward: impl Fn(Node) -> &'g [Node],
        paper: Node,
        k: usize,
        size: impl Fn(Node) -> usize,
    ) -> Vec<Related> {
        for &middle in middles {
            for &other in onward(middle) {
                if other != paper {
                    let count = &mut self.counts[other as usize];
                    if *count == 0 {
                        self.touched.push(other);
                    }
                    *count += 1;
                }
            }
        }
        let own = size(paper);
        let mut related: Vec<Related> = self
            .touched
            .drain(..)
            .map(|node| {
                let count = std::mem::take(&mut self.counts[node as usize]) as usize;
                Related { node, count, similarity: salton(count, own, size(node)) }
            })
            .collect();
        let order = |a: &Related, b: &Related| {
            b.count.cmp(&a.count).then(b.similarity.total_cmp(&a.similarity)).then(a.node.cmp(&b.node))
        };
        // The order is total (nodes differ), so selecting the first k before sorting them gives
        // the same list as sorting everything.
        if k < related.len() {
            if k == 0 {
                return Vec::new();
            }
            related.select_nth_unstable_by(k - 1, order);
            related.truncate(k);
        }
        related.sort_by(order);
        related
    }
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

    /// The ranking by brute force: every reachable paper counted in a map, everything sorted.
    fn ranked_by_brute_force(graph: &Graph, paper: Node, k: usize, co_citation: bool) -> Vec<(Node, usize, f64)> {
        let mut counts = std::collections::HashMap::new();
        let size = |node: Node| if co_citation { graph.in_degree(node) } else { graph.out_degree(node) };
        let middles = if co_citation { graph.citers(paper) } else { graph.references(paper) };
        for &middle in middles {
            let onward = if co_citation { graph.references(middle) } else { graph.citers(middle) };
            for &other in onward.iter().filter(|&&o| o != paper) {
                *counts.entry(other).or_insert(0usize) += 1;
            }
        }
        let mut all: Vec<(Node, usize, f64)> =
            counts.into_iter().map(|(node, count)| (node, count, salton(count, size(paper), size(node)))).collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
        all.truncate(k);
        all
    }

    #[test]
    fn top_k_by_selection_equals_sorting_everything() {
        let graph = crate::synthetic::preferential_attachment(3_000, 8, 7);
        for paper in graph.nodes().step_by(7) {
            for k in [0, 1, 3, 10, 10_000] {
                let as_tuples =
                    |list: Vec<Related>| list.into_iter().map(|r| (r.node, r.count, r.similarity)).collect::<Vec<_>>();
                assert_eq!(as_tuples(co_cited_with(&graph, paper, k)), ranked_by_brute_force(&graph, paper, k, true));
                assert_eq!(as_tuples(coupled_with(&graph, paper, k)), ranked_by_brute_force(&graph, paper, k, false));
            }
        }
    }
}
