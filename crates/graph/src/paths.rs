//! Citation paths: SciNet's maximum-citation path, all shortest paths, reachability, and the
//! path-wise metrics (Consistency, Connectivity).
//!
//! A citation path goes from a paper to one it cites, hop by hop. The maximum-citation path
//! between S and T is, among all *simple* paths of at most L hops (default 4), the one with the
//! largest sum of in-corpus citation counts over every paper on it, endpoints included; ties go to
//! fewer hops, then to the lexicographically smallest sequence of ids (the definition in
//! `../shared/reference/aan_graph.json`). The search enumerates paths depth-first, pruned by each
//! paper's hop distance to T (a backward breadth-first search bounded by L), so it visits only
//! papers that can still reach T in the hops left.

use crate::{Graph, Node};
use serde::Serialize;
use std::collections::VecDeque;

/// The default hop limit of the maximum-citation path.
pub const DEFAULT_MAX_HOPS: usize = 4;

const UNREACHED: u32 = u32::MAX;

/// Which edges a path may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From a paper to one it cites.
    Cites,
    /// Either way along a citation.
    Either,
}

/// A path and its score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScoredPath {
    /// The papers on the path, from the source to the target.
    pub nodes: Vec<Node>,
    /// Sum of in-corpus citation counts over the path, endpoints included.
    pub total_in_degree: u64,
}

impl ScoredPath {
    /// Number of hops.
    pub fn hops(&self) -> usize {
        self.nodes.len().saturating_sub(1)
    }
}

/// Hop distances from `start` (up to `limit` hops) following `next`; unreached nodes hold
/// `UNREACHED`.
fn distances<'g>(graph: &'g Graph, start: Node, limit: usize, next: impl Fn(Node) -> Vec<&'g [Node]>) -> Vec<u32> {
    let mut distance = vec![UNREACHED; graph.len()];
    distance[start as usize] = 0;
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        let d = distance[node as usize];
        if d as usize >= limit {
            continue;
        }
        for neighbours in next(node) {
            for &neighbour in neighbours {
                if distance[neighbour as usize] == UNREACHED {
                    distance[neighbour as usize] = d + 1;
                    queue.push_back(neighbour);
                }
            }
        }
    }
    distance
}

fn forward<'g>(graph: &'g Graph, direction: Direction) -> impl Fn(Node) -> Vec<&'g [Node]> + 'g {
    move |node| match direction {
        Direction::Cites => vec![graph.references(node)],
        Direction::Either => vec![graph.references(node), graph.citers(node)],
    }
}

fn backward<'g>(graph: &'g Graph, direction: Direction) -> impl Fn(Node) -> Vec<&'g [Node]> + 'g {
    move |node| match direction {
        Direction::Cites => vec![graph.citers(node)],
        Direction::Either => vec![graph.references(node), graph.citers(node)],
    }
}

/// The maximum-citation path from `source` to `target` within `max_hops`, if one exists. The
/// path from a paper to itself is that paper alone.
pub fn max_citation_path(graph: &Graph, source: Node, target: Node, max_hops: usize) -> Option<ScoredPath> {
    let weight = |node: Node| graph.in_degree(node) as u64;
    if source == target {
        return Some(ScoredPath { nodes: vec![source], total_in_degree: weight(source) });
    }
    let to_target = distances(graph, target, max_hops, backward(graph, Direction::Cites));
    if to_target[source as usize] == UNREACHED {
        return None;
    }
    let mut search = MaxPathSearch {
        graph,
        target,
        max_hops,
        to_target,
        on_path: vec![false; graph.len()],
        path: vec![source],
        best: None,
    };
    search.on_path[source as usize] = true;
    search.extend(weight(source));
    search.best
}

struct MaxPathSearch<'g> {
    graph: &'g Graph,
    target: Node,
    max_hops: usize,
    to_target: Vec<u32>,
    on_path: Vec<bool>,
    path: Vec<Node>,
    best: Option<ScoredPath>,
}

impl MaxPathSearch<'_> {
    fn extend(&mut self, score: u64) {
        let here = *self.path.last().expect("the path starts at the source");
        let hops_left = self.max_hops - (self.path.len() - 1);
        for &next in self.graph.references(here) {
            let score = score + self.graph.in_degree(next) as u64;
            if next == self.target {
                self.path.push(next);
                self.offer(score);
                self.path.pop();
            } else if !self.on_path[next as usize] && (self.to_target[next as usize] as usize) < hops_left {
                self.on_path[next as usize] = true;
                self.path.push(next);
                self.extend(score);
                self.path.pop();
                self.on_path[next as usize] = false;
            }
        }
    }

    /// Keep the current path if it beats the best so far: higher score, then fewer hops, then the
    /// smaller node sequence (node order is id order).
    fn offer(&mut self, score: u64) {
        let better = match &self.best {
            None => true,
            Some(best) => {
                (std::cmp::Reverse(score), self.path.len(), &self.path)
                    < (std::cmp::Reverse(best.total_in_degree), best.nodes.len(), &best.nodes)
            }
        };
        if better {
            self.best = Some(ScoredPath { nodes: self.path.clone(), total_in_degree: score });
        }
    }
}

/// Every shortest path from `source` to `target` (following `direction`), in ascending node
/// sequence order, at most `limit` of them. Empty when `target` is unreachable.
pub fn shortest_paths(graph: &Graph, source: Node, target: Node, direction: Direction, limit: usize) -> Vec<Vec<Node>> {
    let from_source = distances(graph, source, usize::MAX, forward(graph, direction));
    let length = from_source[target as usize];
    if length == UNREACHED {
        return Vec::new();
    }
    let to_target = distances(graph, target, length as usize, backward(graph, direction));
    let mut paths = Vec::new();
    let mut path = vec![source];
    collect_shortest(graph, direction, target, &to_target, &mut path, &mut paths, limit);
    paths
}

fn collect_shortest(
    graph: &Graph,
    direction: Direction,
    target: Node,
    to_target: &[u32],
    path: &mut Vec<Node>,
    paths: &mut Vec<Vec<Node>>,
    limit: usize,
) {
    let here = *path.last().expect("non-empty");
    if here == target {
        paths.push(path.clone());
        return;
    }
    let mut next: Vec<Node> = forward(graph, direction)(here).into_iter().flatten().copied().collect();
    next.sort_unstable();
    next.dedup();
    for node in next {
        if paths.len() >= limit {
            return;
        }
        if to_target[node as usize] != UNREACHED && to_target[node as usize] + 1 == to_target[here as usize] {
            path.push(node);
            collect_shortest(graph, direction, target, to_target, path, paths, limit);
            path.pop();
        }
    }
}

/// Hop distance from `source` to `target`, if reachable.
pub fn distance(graph: &Graph, source: Node, target: Node, direction: Direction) -> Option<usize> {
    let d = distances(graph, source, usize::MAX, forward(graph, direction))[target as usize];
    (d != UNREACHED).then_some(d as usize)
}

/// SciNet's Consistency: the share of the ground-truth path's papers that the retrieved papers
/// include. The endpoints are given in the query, so only the papers between them count; a
/// one-hop truth has nothing between its endpoints and scores 1.
pub fn consistency(retrieved: &[Node], truth: &[Node]) -> f64 {
    let middle = if truth.len() > 2 { &truth[1..truth.len() - 1] } else { &[][..] };
    if middle.is_empty() {
        return 1.0;
    }
    middle.iter().filter(|node| retrieved.contains(node)).count() as f64 / middle.len() as f64
}

/// SciNet's Connectivity: whether the retrieved papers, with the two endpoints, contain a
/// citation path from `source` to `target` (every hop a "cites" edge between papers of the set).
pub fn connectivity(graph: &Graph, source: Node, target: Node, retrieved: &[Node]) -> bool {
    let mut allowed = vec![false; graph.len()];
    for &node in retrieved.iter().chain([source, target].iter()) {
        allowed[node as usize] = true;
    }
    let mut seen = vec![false; graph.len()];
    seen[source as usize] = true;
    let mut stack = vec![source];
    while let Some(node) = stack.pop() {
        if node == target {
            return true;
        }
        for &next in graph.references(node) {
            if allowed[next as usize] && !seen[next as usize] {
                seen[next as usize] = true;
                stack.push(next);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    /// s → a → t, s → b → t, s → c → d → t, plus citers that raise in-degrees:
    /// in-degree: a 1+2 = 3, b 1+2 = 3, c 1, d 1+5 = 6, t 3.
    fn diamond() -> Graph {
        let mut ids: Vec<String> = ["s", "a", "b", "c", "d", "t"].map(String::from).to_vec();
        let mut edges: Vec<(String, String)> =
            [("s", "a"), ("s", "b"), ("s", "c"), ("a", "t"), ("b", "t"), ("c", "d"), ("d", "t")]
                .map(|(x, y)| (x.to_string(), y.to_string()))
                .to_vec();
        for (target, extra) in [("a", 2), ("b", 2), ("d", 5)] {
            for i in 0..extra {
                let citer = format!("z{target}{i}");
                ids.push(citer.clone());
                edges.push((citer, target.to_string()));
            }
        }
        let nodes = ids.into_iter().map(|id| NodeInfo { id, ..NodeInfo::default() }).collect();
        let borrowed: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        Graph::build(nodes, &borrowed)
    }

    fn ids(g: &Graph, nodes: &[Node]) -> Vec<String> {
        nodes.iter().map(|&n| g.id(n).to_string()).collect()
    }

    #[test]
    fn max_citation_path_prefers_weight_then_hops_then_ids() {
        let g = diamond();
        let (s, t) = (g.node("s").unwrap(), g.node("t").unwrap());
        // s-c-d-t: 0 + 1 + 6 + 3 = 10 beats s-a-t and s-b-t (0 + 3 + 3 = 6).
        let best = max_citation_path(&g, s, t, 4).unwrap();
        assert_eq!(ids(&g, &best.nodes), ["s", "c", "d", "t"]);
        assert_eq!(best.total_in_degree, 10);
        // Within 2 hops, s-a-t and s-b-t tie: the smaller id sequence wins.
        let short = max_citation_path(&g, s, t, 2).unwrap();
        assert_eq!(ids(&g, &short.nodes), ["s", "a", "t"]);
        assert_eq!(max_citation_path(&g, s, t, 1), None);
        assert_eq!(max_citation_path(&g, t, s, 4), None);
    }

    #[test]
    fn shortest_paths_distance_and_path_metrics() {
        let g = diamond();
        let [s, a, b, c, d, t] = ["s", "a", "b", "c", "d", "t"].map(|id| g.node(id).unwrap());
        assert_eq!(shortest_paths(&g, s, t, Direction::Cites, 10), vec![vec![s, a, t], vec![s, b, t]]);
        assert_eq!(shortest_paths(&g, s, t, Direction::Cites, 1), vec![vec![s, a, t]]);
        assert!(shortest_paths(&g, t, s, Direction::Cites, 10).is_empty());
        assert_eq!(shortest_paths(&g, t, s, Direction::Either, 10).len(), 2);
        assert_eq!(distance(&g, s, d, Direction::Cites), Some(2));
        assert_eq!(distance(&g, d, s, Direction::Cites), None);
        assert_eq!(distance(&g, d, s, Direction::Either), Some(2));
        let truth = [s, c, d, t];
        assert_eq!(consistency(&[c, a], &truth), 0.5);
        assert_eq!(consistency(&[], &[s, t]), 1.0);
        assert!(connectivity(&g, s, t, &[c, d]));
        assert!(!connectivity(&g, s, t, &[c]));
        assert!(connectivity(&g, s, t, &[b]));
    }
}
