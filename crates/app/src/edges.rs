//! Measures of a citation graph handed over as an edge list with publication years (the Python
//! face's `cd_index`), computed on the same graph type and with the same code as a corpus's own
//! citations.

use crate::error::{Error, Result};
use litnav_graph::disruption::{CdOptions, Reading, disruption_all};
use litnav_graph::{Graph, NodeInfo};
use std::collections::HashSet;

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
    let mut seen = HashSet::new();
    for (i, (id, _)) in times.iter().enumerate() {
        if !seen.insert(id.as_str()) {
            return Err(Error::input(format!("times[{i}]: paper {id:?} is given twice")));
        }
    }
    for (i, (citing, cited)) in edges.iter().enumerate() {
        for id in [citing, cited] {
            if !seen.contains(id.as_str()) {
                return Err(Error::input(format!("edges[{i}]: paper {id:?} has no time")));
            }
        }
    }
    let nodes = times
        .iter()
        .map(|(id, year)| NodeInfo { id: id.clone(), year: *year, date: None, venue: None, external_references: 0 })
        .collect();
    let pairs: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let graph = Graph::build(nodes, &pairs);
    let options = CdOptions { window, reading };
    let values = disruption_all(&graph, options);
    Ok(times
        .iter()
        .map(|(id, _)| {
            let value = graph.find(id).and_then(|node| values[node as usize].cd);
            (id.clone(), value)
        })
        .collect())
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
}
