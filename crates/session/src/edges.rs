//! A citation graph handed over as lists — paper ids with their years (and venues), and
//! `(citing, cited)` pairs — with the measures a corpus's own graph offers: the CD index, novelty
//! and citation paths, computed on the same graph type by the same code (the Python face's
//! `cd_index` and `CitationGraph`).

use crate::error::{Error, Result};
use crate::relations::{self, MetricOptions, PaperRef, PathReport};
use litnav_graph::disruption::{CdOptions, Disruption, Reading, disruption_all};
use litnav_graph::novelty::{self, Novelty};
use litnav_graph::{Graph, Node, NodeInfo};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;

/// A citation graph built from lists. Nodes are numbered in the order of their ids as text, as a
/// corpus's graph numbers them, so that seeded measures (novelty's null graphs) give the same
/// values on the same papers; answers come back in the order the papers were given.
#[derive(Debug)]
pub struct EdgeGraph {
    graph: Graph,
    /// The node of each paper, in the order the papers were given.
    given: Vec<Node>,
}

/// The papers of an edge list: ids (distinct), with a year and optionally a venue each.
pub struct Papers<'a, K> {
    /// Paper ids.
    pub ids: &'a [K],
    /// Publication year per paper (`None`: unknown).
    pub years: &'a [Option<i32>],
    /// Venue per paper (novelty's units), when known.
    pub venues: Option<&'a [Option<String>]>,
}

impl EdgeGraph {
    /// The graph of `papers` and the edges `citing[i]` → `cited[i]`. Every id an edge names must
    /// be one of the papers; self-citations and repeated edges are dropped. Errors name the
    /// position of the offending paper or edge (`times[i]`, `edges[i]`).
    pub fn build<K: Eq + Hash + Display + Sync>(papers: Papers<'_, K>, citing: &[K], cited: &[K]) -> Result<EdgeGraph> {
        let Papers { ids, years, venues } = papers;
        if years.len() != ids.len() || venues.is_some_and(|v| v.len() != ids.len()) {
            return Err(Error::input("times: every paper needs one year (and one venue, when venues are given)"));
        }
        if citing.len() != cited.len() {
            return Err(Error::input(format!(
                "edges: {} citing ids but {} cited ids (a ragged edge list)",
                citing.len(),
                cited.len()
            )));
        }
        let texts: Vec<String> = ids.par_iter().map(ToString::to_string).collect();
        let mut by_text: Vec<usize> = (0..ids.len()).collect();
        by_text.par_sort_unstable_by(|&a, &b| texts[a].cmp(&texts[b]));
        let mut given = vec![0 as Node; ids.len()];
        for (node, &i) in by_text.iter().enumerate() {
            given[i] = node as Node;
        }
        // foldhash rather than SipHash, and the edges looked up on every core: a million papers'
        // ten million edges are twenty million lookups.
        let mut index: HashMap<&K, Node, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(ids.len(), Default::default());
        for (i, id) in ids.iter().enumerate() {
            if index.insert(id, given[i]).is_some() {
                return Err(Error::input(format!("times[{i}]: paper {:?} is given twice", id.to_string())));
            }
        }
        let found: Vec<Option<(Node, Node)>> = citing
            .par_iter()
            .zip(cited)
            .with_min_len(1 << 14)
            .map(|(from, to)| Some((*index.get(from)?, *index.get(to)?)))
            .collect();
        if let Some(i) = found.iter().position(Option::is_none) {
            let unknown = if index.contains_key(&citing[i]) { &cited[i] } else { &citing[i] };
            return Err(Error::input(format!("edges[{i}]: paper {:?} has no time", unknown.to_string())));
        }
        let pairs: Vec<(Node, Node)> = found.into_iter().flatten().filter(|(from, to)| from != to).collect();
        let mut texts: Vec<Option<String>> = texts.into_iter().map(Some).collect();
        let nodes = by_text
            .iter()
            .map(|&i| NodeInfo {
                id: texts[i].take().unwrap_or_default(),
                year: years[i],
                date: None,
                venue: venues.and_then(|v| v[i].clone()),
                external_references: 0,
            })
            .collect();
        Ok(EdgeGraph { graph: Graph::from_numbered_edges(nodes, &pairs), given })
    }

    /// Papers in the graph.
    pub fn len(&self) -> usize {
        self.given.len()
    }

    /// Whether it holds no paper.
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }

    /// Citation edges kept (self-citations and repeats dropped).
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Per paper, in the order given: its CD counts and index within `window` years after it (none:
    /// unbounded), counting the citing papers `reading` takes.
    pub fn disruption(&self, window: Option<u32>, reading: Reading) -> Vec<Disruption> {
        let values = disruption_all(&self.graph, CdOptions { window, reading });
        self.given.iter().map(|&node| values[node as usize]).collect()
    }

    /// Per paper, in the order given: Uzzi novelty under `metric`'s units, null graphs and seed.
    pub fn novelty(&self, metric: &MetricOptions) -> Result<Vec<Novelty>> {
        let options =
            novelty::Options { units: metric.units, nulls: metric.nulls, seed: metric.seed, ..Default::default() };
        let values = novelty::novelty_all(&self.graph, &options)?;
        Ok(self.given.iter().map(|&node| values[node as usize]).collect())
    }

    /// The maximum-citation path from `from` (citing) to `to` (cited), the shortest paths (at
    /// most `shortest_limit`) and the distances, as a corpus's `relations path` reports them.
    pub fn path(&self, from: &str, to: &str, max_hops: usize, shortest_limit: usize) -> Result<PathReport> {
        let node =
            |id: &str| self.graph.find(id).ok_or_else(|| Error::not_found(format!("no paper `{id}` in the graph")));
        let ends = (node(from)?, node(to)?);
        let paper = |node: Node| {
            Ok(PaperRef {
                id: self.graph.id(node).to_string(),
                title: None,
                year: self.graph.year(node),
                cited_by: self.graph.in_degree(node),
                retracted: false,
            })
        };
        relations::path_between(&self.graph, (from, to), ends, max_hops, shortest_limit, &paper)
    }
}

/// The CD index of every paper of `times` (`id`, publication year) over `edges` (`citing`,
/// `cited`), within `window` years after each paper (none: unbounded), counting the citing papers
/// `reading` takes, in `times`' order; `None` where the index is undefined. Every id an edge names
/// must have a time.
pub fn cd_index(
    times: &[(String, Option<i32>)],
    edges: &[(String, String)],
    window: Option<u32>,
    reading: Reading,
) -> Result<Vec<(String, Option<f64>)>> {
    let (ids, years): (Vec<&str>, Vec<Option<i32>>) = times.iter().map(|(id, year)| (id.as_str(), *year)).unzip();
    let (citing, cited): (Vec<&str>, Vec<&str>) = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).unzip();
    let graph = EdgeGraph::build(Papers { ids: &ids, years: &years, venues: None }, &citing, &cited)?;
    let values = graph.disruption(window, reading);
    Ok(times.iter().zip(values).map(|((id, _), d)| (id.clone(), d.cd)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn a_paper_cited_without_its_references_is_disruptive_and_one_cited_with_them_consolidates() {
        let times: Vec<(String, Option<i32>)> = [("old", 2000), ("focal", 2001), ("a", 2002), ("b", 2003)]
            .iter()
            .map(|(i, y)| (i.to_string(), Some(*y)))
            .collect();
        let disruptive =
            cd_index(&times, &owned(&[("focal", "old"), ("a", "focal"), ("b", "focal")]), Some(5), Reading::Subsequent)
                .unwrap();
        assert_eq!(disruptive[1], ("focal".to_string(), Some(1.0)));
        let consolidating = cd_index(
            &times,
            &owned(&[("focal", "old"), ("a", "focal"), ("a", "old"), ("b", "focal"), ("b", "old")]),
            Some(5),
            Reading::Subsequent,
        )
        .unwrap();
        assert_eq!(consolidating[1].1, Some(-1.0));
        assert_eq!(consolidating[3].1, None, "nothing cites the newest paper");
    }

    #[test]
    fn an_edge_to_a_paper_without_a_time_is_refused_with_its_position() {
        let times = vec![("a".to_string(), Some(2000))];
        let error = cd_index(&times, &owned(&[("a", "b")]), None, Reading::Subsequent).unwrap_err();
        assert!(error.to_string().contains("edges[0]") && error.to_string().contains("\"b\""), "{error}");
    }

    #[test]
    fn numbered_ids_give_the_values_of_the_same_graph_written_as_text() {
        let ids = [30_i64, 4, 100, 7];
        let years = [Some(2000), Some(2001), Some(2002), Some(2003)];
        let (citing, cited) = ([4_i64, 100, 7, 7, 7], [30_i64, 4, 4, 30, 7]);
        let numbered = EdgeGraph::build(Papers { ids: &ids, years: &years, venues: None }, &citing, &cited).unwrap();
        let text = |list: &[i64]| list.iter().map(ToString::to_string).collect::<Vec<_>>();
        let written =
            EdgeGraph::build(Papers { ids: &text(&ids), years: &years, venues: None }, &text(&citing), &text(&cited))
                .unwrap();
        assert_eq!(numbered.edge_count(), 4, "the self-citation is dropped");
        let cd = |g: &EdgeGraph| g.disruption(Some(5), Reading::Subsequent).iter().map(|d| d.cd).collect::<Vec<_>>();
        assert_eq!(cd(&numbered), cd(&written));
        assert_eq!(cd(&numbered)[1], Some(0.0), "paper 4: one citer with its reference, one without");
        let path = numbered.path("7", "30", 5, 20).unwrap();
        assert_eq!(path.citation_distance, Some(1));
        assert_eq!(path.max_citation_path.unwrap().papers.len(), 3, "7 → 4 → 30 has the most citations");
    }

    #[test]
    fn a_ragged_edge_list_and_a_repeated_paper_are_refused() {
        let years = [Some(2000), Some(2001)];
        let ragged = EdgeGraph::build(Papers { ids: &[1_i64, 2], years: &years, venues: None }, &[1, 2], &[2]);
        assert!(ragged.unwrap_err().to_string().contains("ragged"));
        let twice = EdgeGraph::build(Papers { ids: &[1_i64, 1], years: &years, venues: None }, &[], &[]);
        assert!(twice.unwrap_err().to_string().contains("times[1]"));
    }
}
