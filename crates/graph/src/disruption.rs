//! The CD disruption index (Funk & Owen-Smith 2017), as its authors' package computes it
//! (`cdindex` on PyPI, Funk's C code), its mCD and I-index companions, and the form SciNet prints.
//!
//! For a focal paper f published at t_f, with references R(f), and a window of Δ years (none:
//! unbounded), the papers that count are those published at t with `t_f < t ≤ t_f + Δ` — only
//! *later* work, and on a timeline of years not f's own year:
//! - n_i: counted papers citing f and none of R(f) (they cite f *instead of* its predecessors);
//! - n_j: counted papers citing f and at least one of R(f) (they cite f *alongside* them);
//! - n_k: counted papers citing at least one of R(f) but not f.
//!
//! `cd = (n_i − n_j) / (n_i + n_j + n_k)`; `cd_nok = (n_i − n_j) / (n_i + n_j)` is the form
//! printed in SciNet; the I-index is f's citers published up to t_f + Δ (earlier ones too, as the
//! package counts them) and `mcd = cd × I`. A paper whose time is unknown has no value; nor does
//! one nobody cites in the window (no counted paper, 0/0). As in the package, a paper without
//! references that later work cites has CD 1 (every citer is an n_i), and papers without a time
//! take no part at all — neither as citers nor as references — since the package's graph cannot
//! hold them. Times are years, or day numbers when the graph is dated ([`crate::Timeline`]).
//!
//! [`Reading::AllTime`] is the older reading (litnav before, `../shared/reference/aan_graph.json`):
//! every citing paper counts whatever its year (with a window, `year(f) ≤ year ≤ year(f) + Δ`,
//! f's own year included), and a paper without references has no value.

use crate::{Graph, Node};
use rayon::prelude::*;
use serde::Serialize;

/// Why a paper has no disruption value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undefined {
    /// The paper cites nothing in the corpus (all-time reading only).
    NoReferences,
    /// Nobody (in the window) cites the paper or its references: the denominator is 0.
    NoCitations,
    /// The paper's publication time is unknown, so later work cannot be told from earlier.
    NoYear,
}

impl Undefined {
    /// Every reason.
    pub const ALL: [Undefined; 3] = [Undefined::NoReferences, Undefined::NoCitations, Undefined::NoYear];

    /// The reason's name in files and JSON (as serde writes it).
    pub fn name(self) -> &'static str {
        match self {
            Undefined::NoReferences => "no_references",
            Undefined::NoCitations => "no_citations",
            Undefined::NoYear => "no_year",
        }
    }

    /// The reason of a name written by [`Undefined::name`].
    pub fn from_name(name: &str) -> Option<Undefined> {
        Undefined::ALL.into_iter().find(|why| why.name() == name)
    }

    /// The reason in words.
    pub fn describe(self) -> &'static str {
        match self {
            Undefined::NoReferences => "the paper cites nothing in the corpus",
            Undefined::NoCitations => "no later paper (in the window) cites it or its references",
            Undefined::NoYear => "its publication year is unknown, so later work cannot be told from earlier",
        }
    }
}

/// Which citing papers the counts take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reading {
    /// Papers published after the focal one, within the window (the index's definition, and
    /// what `cdindex` computes).
    #[default]
    Subsequent,
    /// Every citing paper, whatever its year (the older reading; see the module docs).
    AllTime,
}

/// How to compute the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CdOptions {
    /// The window Δ in years after the focal paper's publication (none: unbounded).
    pub window: Option<u32>,
    /// Which citing papers count.
    pub reading: Reading,
}

impl CdOptions {
    /// The default reading with a window of `years`.
    pub fn window(years: u32) -> CdOptions {
        CdOptions { window: Some(years), ..CdOptions::default() }
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
    /// The focal paper's references that took part.
    pub references: u64,
    /// Funk & Owen-Smith's CD index, (n_i − n_j) / (n_i + n_j + n_k).
    pub cd: Option<f64>,
    /// SciNet's form, (n_i − n_j) / (n_i + n_j).
    pub cd_nok: Option<f64>,
    /// The I-index: the paper's citers up to the window's end.
    pub i_index: u64,
    /// mCD = CD × I.
    pub mcd: Option<f64>,
    /// Why `cd` is missing, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<Undefined>,
}

impl Disruption {
    fn undefined(why: Undefined) -> Disruption {
        Disruption {
            n_i: 0,
            n_j: 0,
            n_k: 0,
            references: 0,
            cd: None,
            cd_nok: None,
            i_index: 0,
            mcd: None,
            undefined: Some(why),
        }
    }

    fn from_counts(n_i: u64, n_j: u64, n_k: u64, references: u64, i_index: u64) -> Disruption {
        let ratio = |denominator: u64| (denominator > 0).then(|| (n_i as f64 - n_j as f64) / denominator as f64);
        let cd = ratio(n_i + n_j + n_k);
        Disruption {
            n_i,
            n_j,
            n_k,
            references,
            cd,
            cd_nok: ratio(n_i + n_j),
            i_index,
            mcd: cd.map(|cd| cd * i_index as f64),
            undefined: cd.is_none().then_some(Undefined::NoCitations),
        }
    }
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

/// The disruption of `focal`.
pub fn disruption(graph: &Graph, focal: Node, options: CdOptions, scratch: &mut Scratch) -> Disruption {
    match options.reading {
        Reading::Subsequent => subsequent(graph, focal, options.window, scratch),
        Reading::AllTime => all_time(graph, focal, options.window, scratch),
    }
}

/// The disruption of every paper, in node order, computed in parallel.
pub fn disruption_all(graph: &Graph, options: CdOptions) -> Vec<Disruption> {
    let every: Vec<Node> = (0..graph.len() as Node).collect();
    disruption_of(graph, &every, options)
}

/// The disruption of each of `focals`, in their order, computed in parallel.
pub fn disruption_of(graph: &Graph, focals: &[Node], options: CdOptions) -> Vec<Disruption> {
    let by_time = (options.reading == Reading::Subsequent).then(|| CitersByTime::new(graph));
    focals
        .par_iter()
        .copied()
        .map_init(
            || Scratch::new(graph.len()),
            |scratch, node| match &by_time {
                Some(by_time) => subsequent_by_time(graph, by_time, node, options.window, scratch),
                None => disruption(graph, node, options, scratch),
            },
        )
        .collect()
}

/// Every paper's citers in time order (unknown times, `i32::MIN`, first), with their times in a
/// parallel array: the citers a window admits are then one contiguous run, found by binary search
/// on the times and read without a time test per citer (the citer array alone is streamed, 4
/// bytes a citer, as in the all-time loop). Built once for a whole corpus's CD.
struct CitersByTime {
    offsets: Vec<u64>,
    times: Vec<i32>,
    citers: Vec<Node>,
}

impl CitersByTime {
    fn new(graph: &Graph) -> CitersByTime {
        let stamps = graph.timestamps();
        let csr = &graph.cited_by;
        let mut citers = csr.targets.clone();
        // Every row on its own: the rows are sorted on every core (a row's citers are distinct,
        // so the order is the same as a stable sort's).
        let mut rows = vec![(); csr.offsets.len() - 1];
        crate::for_each_row(&csr.offsets, &mut citers, &mut rows, &|row, ()| {
            row.sort_unstable_by_key(|&c| (stamps[c as usize], c));
        });
        let times = citers.par_iter().map(|&c| stamps[c as usize]).collect();
        CitersByTime { offsets: csr.offsets.clone(), times, citers }
    }

    /// The citers of `node` published in `(start, end]`.
    fn window(&self, node: Node, start: i32, end: i32) -> &[Node] {
        let (from, to) = (self.offsets[node as usize] as usize, self.offsets[node as usize + 1] as usize);
        let times = &self.times[from..to];
        let first = times.partition_point(|&t| t <= start);
        let last = if end == i32::MAX { times.len() } else { times.partition_point(|&t| t <= end) };
        &self.citers[from + first..from + last]
    }

    /// How many citers of `node` were published up to `end` (the I-index).
    fn published_by(&self, node: Node, end: i32) -> usize {
        let times = &self.times[self.offsets[node as usize] as usize..self.offsets[node as usize + 1] as usize];
        times.partition_point(|&t| t <= end) - times.partition_point(|&t| t == i32::MIN)
    }
}

/// [`subsequent`] over time-ordered citers: the same counts, read faster.
fn subsequent_by_time(
    graph: &Graph,
    by_time: &CitersByTime,
    focal: Node,
    window: Option<u32>,
    scratch: &mut Scratch,
) -> Disruption {
    let times = graph.timestamps();
    let Some(start) = graph.timestamp(focal) else { return Disruption::undefined(Undefined::NoYear) };
    let end = graph.window_end(start, window);
    let stamp = scratch.next_stamp();
    let marks = &mut scratch.marks;
    let (mut cite_references, mut references) = (0u64, 0u64);
    for &reference in graph.references(focal) {
        if times[reference as usize] == i32::MIN {
            continue;
        }
        references += 1;
        for &citer in by_time.window(reference, start, end) {
            let mark = &mut marks[citer as usize];
            cite_references += u64::from(*mark != stamp);
            *mark = stamp;
        }
    }
    let (citers, i_index) = (by_time.window(focal, start, end), by_time.published_by(focal, end));
    let n_j = citers.iter().filter(|&&c| marks[c as usize] == stamp).count() as u64;
    let n_i = citers.len() as u64 - n_j;
    Disruption::from_counts(n_i, n_j, cite_references - n_j, references, i_index as u64)
}

/// The index's definition: only papers published in `(t_f, t_f + Δ]` count.
fn subsequent(graph: &Graph, focal: Node, window: Option<u32>, scratch: &mut Scratch) -> Disruption {
    let times = graph.timestamps();
    let Some(start) = graph.timestamp(focal) else { return Disruption::undefined(Undefined::NoYear) };
    let end = graph.window_end(start, window);
    let counted = |paper: Node| {
        let t = times[paper as usize];
        (t > start) & (t <= end)
    };
    // Mark every counted paper citing at least one (timed) reference. The hot loop of the whole
    // corpus's CD: branch-free, every citer list read in order. f is never counted (t = t_f).
    let stamp = scratch.next_stamp();
    let marks = &mut scratch.marks;
    let (mut cite_references, mut references) = (0u64, 0u64);
    for &reference in graph.references(focal) {
        if times[reference as usize] == i32::MIN {
            continue;
        }
        references += 1;
        for &citer in graph.citers(reference) {
            let inside = counted(citer);
            let mark = &mut marks[citer as usize];
            cite_references += u64::from(inside & (*mark != stamp));
            *mark = if inside { stamp } else { *mark };
        }
    }
    let (mut n_i, mut n_j, mut i_index) = (0u64, 0u64, 0u64);
    for &citer in graph.citers(focal) {
        let t = times[citer as usize];
        i_index += u64::from((t != i32::MIN) & (t <= end));
        if marks[citer as usize] == stamp {
            n_j += 1;
        } else if counted(citer) {
            n_i += 1;
        }
    }
    Disruption::from_counts(n_i, n_j, cite_references - n_j, references, i_index)
}

/// The all-time reading: every citing paper counts (within `year(f) ..= year(f) + Δ` with a
/// window); no references, no value.
fn all_time(graph: &Graph, focal: Node, window: Option<u32>, scratch: &mut Scratch) -> Disruption {
    let references = graph.references(focal);
    if references.is_empty() {
        return Disruption::undefined(Undefined::NoReferences);
    }
    let span = match window {
        None => None,
        Some(w) => match graph.year(focal) {
            Some(year) => Some((year, year.saturating_add(w as i32))),
            None => return Disruption::undefined(Undefined::NoYear),
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
    Disruption::from_counts(n_i, n_j, cite_references - n_j, references.len() as u64, n_i + n_j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    fn node(id: &str, year: i32) -> NodeInfo {
        NodeInfo { id: id.into(), year: Some(year), ..NodeInfo::default() }
    }

    #[test]
    fn reason_names_are_serdes_and_read_back() {
        for why in Undefined::ALL {
            assert_eq!(serde_json::to_value(why).unwrap(), why.name());
            assert_eq!(Undefined::from_name(why.name()), Some(why));
        }
        assert_eq!(Undefined::from_name("no year"), None);
    }

    #[test]
    fn an_anonymous_graph_gives_each_focal_paper_the_named_graphs_value() {
        let named = crate::synthetic::preferential_attachment(3_000, 6, 11);
        let every: Vec<Node> = (0..named.len() as Node).collect();
        let years = every.iter().map(|&n| named.year(n)).collect();
        let dates = every.iter().map(|&n| named.date(n)).collect();
        let pairs: Vec<(Node, Node)> =
            every.iter().flat_map(|&n| named.references(n).iter().map(move |&r| (n, r))).collect();
        let anonymous = Graph::anonymous(years, dates, &pairs);
        assert_eq!(anonymous.edge_count(), named.edge_count());
        assert_eq!(anonymous.find(named.id(0)), None);
        // A few focal papers, out of order: each gets its own value, in the order asked.
        let focals: Vec<Node> = every.iter().rev().step_by(7).copied().collect();
        for window in [None, Some(3)] {
            let options = CdOptions { window, ..CdOptions::default() };
            let all = disruption_all(&named, options);
            let some = disruption_of(&anonymous, &focals, options);
            let expected: Vec<Disruption> = focals.iter().map(|&f| all[f as usize]).collect();
            assert_eq!(some, expected);
        }
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

    const ALL_TIME: CdOptions = CdOptions { window: None, reading: Reading::AllTime };

    #[test]
    fn hand_built_graph_matches_hand_computed_values() {
        let g = ten();
        let mut scratch = Scratch::new(g.len());
        let f = g.node("f").unwrap();
        // Every citer here is later than f, so both readings agree without a window.
        for options in [CdOptions::default(), ALL_TIME] {
            let d = disruption(&g, f, options, &mut scratch);
            assert_eq!((d.n_i, d.n_j, d.n_k, d.references), (2, 2, 2, 2));
            assert_eq!((d.cd, d.cd_nok), (Some(0.0), Some(0.0)));
        }
        let windowed = disruption(&g, f, CdOptions::window(5), &mut scratch);
        assert_eq!((windowed.n_i, windowed.n_j, windowed.n_k), (2, 1, 2));
        assert_eq!((windowed.cd, windowed.cd_nok), (Some(0.2), Some(1.0 / 3.0)));
        // I-index: a, b, c cite f by 2005 (d in 2010 does not); mCD = 0.2 · 3.
        assert_eq!((windowed.i_index, windowed.mcd), (3, Some(0.2 * 3.0)));
        // `a` cites f; b, c, d cite f but not a (n_k = 3); its only citer h ignores f: n_i = 1.
        let a = disruption(&g, g.node("a").unwrap(), CdOptions::default(), &mut scratch);
        assert_eq!((a.n_i, a.n_j, a.n_k), (1, 0, 3));
        assert_eq!((a.cd, a.cd_nok), (Some(0.25), Some(1.0)));
    }

    #[test]
    fn only_later_papers_count() {
        // f (2000) cites r (1990). x (2000, f's own year) cites f; y (1995, before f) cites r;
        // z (2005) cites f and r; w (2006) cites r.
        let g = Graph::build(
            vec![node("r", 1990), node("f", 2000), node("x", 2000), node("y", 1995), node("z", 2005), node("w", 2006)],
            &[("f", "r"), ("x", "f"), ("y", "r"), ("z", "f"), ("z", "r"), ("w", "r")],
        );
        let mut scratch = Scratch::new(g.len());
        let f = g.node("f").unwrap();
        // The index: x is not later than f, y is earlier: n_i = 0, n_j = 1 (z), n_k = 1 (w).
        let d = disruption(&g, f, CdOptions::default(), &mut scratch);
        assert_eq!((d.n_i, d.n_j, d.n_k), (0, 1, 1));
        assert_eq!(d.cd, Some(-0.5));
        // The I-index counts f's citers up to the window's end, x included.
        assert_eq!(d.i_index, 2);
        // The window's last year counts, the year after does not: z (2005) in, w (2006) out.
        let five = disruption(&g, f, CdOptions::window(5), &mut scratch);
        assert_eq!((five.n_i, five.n_j, five.n_k, five.cd), (0, 1, 0, Some(-1.0)));
        // The all-time reading counts x as n_i and y as n_k.
        let old = disruption(&g, f, ALL_TIME, &mut scratch);
        assert_eq!((old.n_i, old.n_j, old.n_k), (1, 1, 2));
    }

    #[test]
    fn dated_graphs_compare_days() {
        let day = |text: &str| litnav_core::date::Date::parse(text).unwrap().days();
        let dated = |id: &str, date: &str| NodeInfo {
            id: id.into(),
            year: Some(date[..4].parse().unwrap()),
            date: Some(day(date)),
            ..NodeInfo::default()
        };
        // f (June 2000) cites r; a (September 2000) cites f: later the same year, so it counts.
        // With Δ = 5, b on 2005-06-01 counts and c on 2005-06-02 does not.
        let g = Graph::build(
            vec![
                dated("r", "1999-01-01"),
                dated("f", "2000-06-01"),
                dated("a", "2000-09-01"),
                dated("b", "2005-06-01"),
                dated("c", "2005-06-02"),
            ],
            &[("f", "r"), ("a", "f"), ("b", "r"), ("c", "f")],
        );
        assert_eq!(g.timeline(), crate::Timeline::Dates);
        let d = disruption(&g, g.node("f").unwrap(), CdOptions::window(5), &mut Scratch::new(g.len()));
        assert_eq!((d.n_i, d.n_j, d.n_k), (1, 0, 1));
        // One undated paper with a year puts the whole graph back on years.
        let mixed = Graph::build(vec![dated("r", "1999-01-01"), node("f", 2000)], &[("f", "r")]);
        assert_eq!(mixed.timeline(), crate::Timeline::Years);
    }

    #[test]
    fn papers_without_references_or_citations_or_years() {
        let g = ten();
        let mut scratch = Scratch::new(g.len());
        // r1 cites nothing: the package gives CD 1 when later work cites it (f, c, e, g)...
        let r1 = disruption(&g, g.node("r1").unwrap(), CdOptions::default(), &mut scratch);
        assert_eq!((r1.n_i, r1.references, r1.cd, r1.undefined), (4, 0, Some(1.0), None));
        // ...the all-time reading gives no value.
        let r1 = disruption(&g, g.node("r1").unwrap(), ALL_TIME, &mut scratch);
        assert_eq!((r1.undefined, r1.cd, r1.cd_nok), (Some(Undefined::NoReferences), None, None));
        // Nobody cites h, and a's only citer is h itself: every count is 0.
        let h = disruption(&g, g.node("h").unwrap(), CdOptions::default(), &mut scratch);
        assert_eq!(h.undefined, Some(Undefined::NoCitations));
        // No year: no value; an undated reference takes no part (x's citer y cites only it).
        let undated = Graph::build(
            vec![NodeInfo { id: "u".into(), ..NodeInfo::default() }, node("x", 1990), node("y", 1995), node("z", 1996)],
            &[("u", "x"), ("x", "u"), ("y", "x"), ("z", "u")],
        );
        let mut scratch = Scratch::new(undated.len());
        let u = disruption(&undated, undated.node("u").unwrap(), CdOptions::default(), &mut scratch);
        assert_eq!(u.undefined, Some(Undefined::NoYear));
        let x = disruption(&undated, undated.node("x").unwrap(), CdOptions::default(), &mut scratch);
        assert_eq!((x.n_i, x.n_j, x.n_k, x.references), (1, 0, 0, 0));
    }

    #[test]
    fn every_value_lies_in_the_closed_unit_interval() {
        let g = crate::synthetic::preferential_attachment(3_000, 6, 7);
        let readings =
            [CdOptions::default(), CdOptions::window(3), ALL_TIME, CdOptions { window: Some(3), ..ALL_TIME }];
        let mut scratch = Scratch::new(g.len());
        for options in readings {
            let all = disruption_all(&g, options);
            // The whole-corpus path (time-ordered citers) and the single-paper path agree.
            for node in g.nodes() {
                assert_eq!(all[node as usize], disruption(&g, node, options, &mut scratch), "{options:?} {node}");
            }
            for d in all {
                for value in [d.cd, d.cd_nok].into_iter().flatten() {
                    assert!((-1.0..=1.0).contains(&value), "{value}");
                }
                if d.undefined.is_none() {
                    assert!(d.n_i + d.n_j + d.n_k > 0);
                    assert!(d.mcd.unwrap().abs() <= d.i_index as f64);
                }
            }
        }
    }
}
