//! The CD disruption index (Funk & Owen-Smith 2017), and the form SciNet prints.
//!
//! For a focal paper f with in-corpus references R(f):
//! - n_i: papers citing f and none of R(f) (they cite f *instead of* its predecessors);
//! - n_j: papers citing f and at least one of R(f) (they cite f *alongside* its predecessors);
//! - n_k: papers citing at least one of R(f) but not f (f itself excluded).
//!
//! `cd = (n_i − n_j) / (n_i + n_j + n_k)` is Funk & Owen-Smith's index; `cd_nok = (n_i − n_j) /
//! (n_i + n_j)` is the form printed in SciNet. Both lie in [−1, 1]. A paper with no in-corpus
//! references has no value (every citer would count as "disruptive" however derivative the paper
//! is), nor does one whose denominator is 0; the reason is reported instead of a number.
//!
//! Time window (optional, `w` years): a paper counts towards n_i, n_j, n_k only when its year and
//! f's are known and `year(f) ≤ year(paper) ≤ year(f) + w`. Without a window every paper in the
//! corpus counts, whatever its year (as in `../shared/reference/aan_graph.json`).

use crate::{Graph, Node};
use rayon::prelude::*;
use serde::Serialize;

/// Why a paper has no disruption value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undefined {
    /// The paper cites nothing in the corpus.
    NoReferences,
    /// Nobody (in the window) cites the paper or its references: the denominator is 0.
    NoCitations,
    /// A time window was asked for and the paper's year is unknown.
    NoYear,
}

impl Undefined {
    /// The reason in words.
    pub fn describe(self) -> &'static str {
        match self {
            Undefined::NoReferences => "the paper cites nothing in the corpus",
            Undefined::NoCitations => "no paper cites it or its references (in the window)",
            Undefined::NoYear => "its publication year is unknown, so the time window cannot be applied",
        }
    }
}

/// The disruption counts and indices of one paper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Disruption {
    /// Papers citing the focal paper and none of its references.
    pub n_i: u64,
    /// Papers citing the focal paper and at least one of its references.
    pub n_j: u64,
    /// Papers citing at least one of its references but not the focal paper.
    pub n_k: u64,
    /// Funk & Owen-Smith's CD index, (n_i − n_j) / (n_i + n_j + n_k).
    pub cd: Option<f64>,
    /// SciNet's form, (n_i − n_j) / (n_i + n_j).
    pub cd_nok: Option<f64>,
    /// Why `cd` is missing, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<Undefined>,
}

/// Reusable per-thread marks: one stamp per node, so no clearing between focal papers (only
/// when the stamps wrap around). 16-bit stamps keep the marks of a 20,000-paper corpus in L1.
#[derive(Debug, Clone)]
pub struct Scratch {
    marks: Vec<u16>,
    stamp: u16,
}

impl Scratch {
    /// Marks for a graph of `n` nodes.
    pub fn new(n: usize) -> Scratch {
        Scratch { marks: vec![0; n], stamp: 0 }
    }

    fn next_stamp(&mut self) -> u16 {
        if self.stamp == u16::MAX {
            self.marks.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
        self.stamp
    }
}

/// The disruption of `focal`, with an optional time window in years after publication.
pub fn disruption(graph: &Graph, focal: Node, window: Option<u32>, scratch: &mut Scratch) -> Disruption {
    let references = graph.references(focal);
    let empty = |undefined| Disruption { n_i: 0, n_j: 0, n_k: 0, cd: None, cd_nok: None, undefined: Some(undefined) };
    if references.is_empty() {
        return empty(Undefined::NoReferences);
    }
    let span = match window {
        None => None,
        Some(w) => match graph.year(focal) {
            Some(year) => Some((year, year.saturating_add(w as i32))),
            None => return empty(Undefined::NoYear),
        },
    };
    let counts = |paper: Node| match span {
        None => true,
        Some((from, to)) => graph.year(paper).is_some_and(|y| (from..=to).contains(&y)),
    };
    // Mark every paper citing at least one reference, counting them. f cites each of its
    // references, so it is always among them and is taken out of the count afterwards.
    let stamp = scratch.next_stamp();
    let marks = &mut scratch.marks;
    let mut cite_references = 0u64;
    match span {
        None => {
            // The hot loop of the whole corpus's CD: branch-free, every citer list read in order.
            for &reference in references {
                for &citer in graph.citers(reference) {
                    let mark = &mut marks[citer as usize];
                    cite_references += u64::from(*mark != stamp);
                    *mark = stamp;
                }
            }
            cite_references -= 1;
        }
        Some(_) => {
            for &reference in references {
                for &citer in graph.citers(reference) {
                    if citer != focal && marks[citer as usize] != stamp && counts(citer) {
                        marks[citer as usize] = stamp;
                        cite_references += 1;
                    }
                }
            }
        }
    }
    let (mut n_i, mut n_j) = (0u64, 0u64);
    for &citer in graph.citers(focal) {
        if marks[citer as usize] == stamp {
            n_j += 1;
        } else if counts(citer) {
            n_i += 1;
        }
    }
    let n_k = cite_references - n_j;
    let ratio = |denominator: u64| (denominator > 0).then(|| (n_i as f64 - n_j as f64) / denominator as f64);
    let cd = ratio(n_i + n_j + n_k);
    Disruption {
        n_i,
        n_j,
        n_k,
        cd,
        cd_nok: ratio(n_i + n_j),
        undefined: cd.is_none().then_some(Undefined::NoCitations),
    }
}

/// The disruption of every paper, in node order, computed in parallel.
pub fn disruption_all(graph: &Graph, window: Option<u32>) -> Vec<Disruption> {
    (0..graph.len() as Node)
        .into_par_iter()
        .map_init(|| Scratch::new(graph.len()), |scratch, node| disruption(graph, node, window, scratch))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    fn node(id: &str, year: i32) -> NodeInfo {
        NodeInfo { id: id.into(), year: Some(year), ..NodeInfo::default() }
    }

    /// Ten papers, values worked out by hand below.
    ///
    /// r1, r2 (1990) are f's references; f (2000) is the focal paper.
    /// a (2001) cites f only → n_i. b (2002) cites f only → n_i. c (2003) cites f and r1 → n_j.
    /// d (2010) cites f and r2 → n_j. e (2004) cites r1 only → n_k. g (2005) cites r1, r2 → n_k.
    /// h (2006) cites nothing relevant (cites a).
    /// So n_i = 2, n_j = 2, n_k = 2: cd = 0/6 = 0, cd_nok = 0.
    /// With a 5-year window (2000..=2005): a, b → n_i = 2; c → n_j = 1 (d is 2010, outside);
    /// e, g → n_k = 2: cd = (2 − 1) / 5 = 0.2, cd_nok = 1/3.
    fn ten() -> Graph {
        Graph::build(
            vec![
                node("r1", 1990),
                node("r2", 1990),
                node("f", 2000),
                node("a", 2001),
                node("b", 2002),
                node("c", 2003),
                node("d", 2010),
                node("e", 2004),
                node("g", 2005),
                node("h", 2006),
            ],
            &[
                ("f", "r1"),
                ("f", "r2"),
                ("a", "f"),
                ("b", "f"),
                ("c", "f"),
                ("c", "r1"),
                ("d", "f"),
                ("d", "r2"),
                ("e", "r1"),
                ("g", "r1"),
                ("g", "r2"),
                ("h", "a"),
            ],
        )
    }

    #[test]
    fn hand_built_graph_matches_hand_computed_values() {
        let g = ten();
        let mut scratch = Scratch::new(g.len());
        let f = g.node("f").unwrap();
        let d = disruption(&g, f, None, &mut scratch);
        assert_eq!((d.n_i, d.n_j, d.n_k), (2, 2, 2));
        assert_eq!(d.cd, Some(0.0));
        assert_eq!(d.cd_nok, Some(0.0));
        let windowed = disruption(&g, f, Some(5), &mut scratch);
        assert_eq!((windowed.n_i, windowed.n_j, windowed.n_k), (2, 1, 2));
        assert_eq!(windowed.cd, Some(0.2));
        assert_eq!(windowed.cd_nok, Some(1.0 / 3.0));
        // `a` cites f; b, c, d cite f but not a (n_k = 3); its only citer h ignores f: n_i = 1.
        let a = disruption(&g, g.node("a").unwrap(), None, &mut scratch);
        assert_eq!((a.n_i, a.n_j, a.n_k), (1, 0, 3));
        assert_eq!(a.cd, Some(0.25));
        assert_eq!(a.cd_nok, Some(1.0));
    }

    #[test]
    fn papers_without_references_or_citations_are_flagged() {
        let g = ten();
        let mut scratch = Scratch::new(g.len());
        let r1 = disruption(&g, g.node("r1").unwrap(), None, &mut scratch);
        assert_eq!(r1.undefined, Some(Undefined::NoReferences));
        assert_eq!((r1.cd, r1.cd_nok), (None, None));
        // Nobody cites h, and a's only citer is h itself: every count is 0.
        let h = disruption(&g, g.node("h").unwrap(), None, &mut scratch);
        assert_eq!(h.undefined, Some(Undefined::NoCitations));
        let undated =
            Graph::build(vec![NodeInfo { id: "x".into(), ..NodeInfo::default() }, node("y", 1990)], &[("x", "y")]);
        let x = disruption(&undated, 0, Some(5), &mut Scratch::new(2));
        assert_eq!(x.undefined, Some(Undefined::NoYear));
    }

    #[test]
    fn every_value_lies_in_the_closed_unit_interval() {
        let g = crate::synthetic::preferential_attachment(3_000, 6, 7);
        for d in disruption_all(&g, None).iter().chain(disruption_all(&g, Some(3)).iter()) {
            for value in [d.cd, d.cd_nok].into_iter().flatten() {
                assert!((-1.0..=1.0).contains(&value), "{value}");
            }
            if d.undefined.is_none() {
                assert!(d.n_i + d.n_j + d.n_k > 0);
            }
        }
    }
}
