//! litnav's citation graph and the scientometrics SciNet (seed 003) retrieves by.
//!
//! - [`Graph`]: papers as nodes, "cites" as directed edges, stored as compressed sparse rows in
//!   both directions (who a paper cites, who cites it), built from a corpus's resolved references
//!   and saved next to it as a binary artifact that loads in milliseconds ([`store`]).
//! - Ego-centric: the CD disruption index ([`disruption`]), Uzzi-style novelty against a seeded
//!   degree-preserving null ([`novelty`]), percentile ranks against the corpus ([`percentile`]).
//! - Pair-wise: co-citation, bibliographic coupling ([`pairs`]); citation contexts, co-mention in a
//!   paragraph and citation sentiment ([`contexts`]); the truth of SciNet's pair-wise metrics
//!   ([`evidence`]).
//! - Path-wise: the maximum-citation path, all shortest paths, reachability, and SciNet's path
//!   metrics ([`paths`]).
//!
//! Nodes are numbered in ascending id order (byte order of the UTF-8 id, which is code-point
//! order), so "smallest id" rules compare node numbers.

pub mod contexts;
pub mod disruption;
pub mod evidence;
pub mod layout;
pub mod novelty;
pub mod pairs;
pub mod paths;
pub mod percentile;
pub mod store;
pub mod synthetic;

use litnav_corpus::Paper;
use std::collections::HashMap;

/// What a graph stores (everything but its derived timeline).
pub(crate) struct Parts {
    pub(crate) ids: Vec<String>,
    pub(crate) index: HashMap<String, Node>,
    pub(crate) years: Vec<Option<i32>>,
    pub(crate) dates: Vec<Option<i32>>,
    pub(crate) venues: Vec<Option<u32>>,
    pub(crate) venue_names: Vec<String>,
    pub(crate) external: Vec<u32>,
    pub(crate) cites: Csr,
    pub(crate) cited_by: Csr,
}

/// A node number: the paper's rank in ascending id order.
pub type Node = u32;

/// Errors of the graph crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An id that names no paper in the graph.
    #[error("no paper with id `{0}` in the citation graph")]
    UnknownPaper(String),
    /// The saved graph file cannot be read.
    #[error("{path}: {message}", path = path.display())]
    Damaged {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A citation-context file has a bad record.
    #[error("{0}")]
    Input(String),
    /// The corpus holding the graph could not be read.
    #[error(transparent)]
    Corpus(#[from] litnav_corpus::Error),
}

impl litnav_core::HasKind for Error {
    fn kind(&self) -> litnav_core::ErrorKind {
        use litnav_core::ErrorKind;
        match self {
            Error::UnknownPaper(_) => ErrorKind::NotFound,
            Error::Damaged { .. } => ErrorKind::Internal,
            Error::Io { source, .. } => litnav_core::io_kind(source),
            Error::Input(_) => ErrorKind::Input,
            Error::Corpus(e) => e.kind(),
        }
    }
}

/// Result alias for the graph crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Adjacency in compressed sparse rows: the neighbours of node `i` are
/// `targets[offsets[i]..offsets[i + 1]]`, sorted ascending and without duplicates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<Node>,
}

/// The `(row, value)` entries filed by counting into `n` rows: where each row starts (and the
/// last ends) and the values, each row's in the order the entries came.
fn filed_by_row(n: usize, entries: impl Iterator<Item = (Node, Node)> + Clone) -> (Vec<u64>, Vec<Node>) {
    let mut starts = vec![0u64; n + 1];
    for (row, _) in entries.clone() {
        starts[row as usize + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
    let mut cursor = starts.clone();
    let mut values = vec![0; starts[n] as usize];
    for (row, value) in entries {
        values[cursor[row as usize] as usize] = value;
        cursor[row as usize] += 1;
    }
    (starts, values)
}

/// Move the distinct values of a sorted slice to its front, in order; how many there are.
fn distinct_first(sorted: &mut [Node]) -> usize {
    let mut write = 0;
    for read in 0..sorted.len() {
        if write == 0 || sorted[read] != sorted[write - 1] {
            sorted[write] = sorted[read];
            write += 1;
        }
    }
    write
}

/// Rows below this many entries in all are worked through by one core.
const ROWS_PER_TASK: usize = 1 << 15;

/// Call `each` with every row of `targets` (row `i` is `offsets[i]..offsets[i + 1]`, counted
/// from `offsets[0]`) and that row's slot of `per_row`, the rows split between the cores.
pub(crate) fn for_each_row<T: Send>(
    offsets: &[u64],
    targets: &mut [Node],
    per_row: &mut [T],
    each: &(impl Fn(&mut [Node], &mut T) + Sync),
) {
    let rows = per_row.len();
    if rows <= 1 || targets.len() <= ROWS_PER_TASK {
        let base = offsets[0];
        for (row, slot) in offsets.windows(2).zip(per_row) {
            each(&mut targets[(row[0] - base) as usize..(row[1] - base) as usize], slot);
        }
        return;
    }
    let middle = rows / 2;
    let (left, right) = targets.split_at_mut((offsets[middle] - offsets[0]) as usize);
    let (left_slots, right_slots) = per_row.split_at_mut(middle);
    rayon::join(
        || for_each_row(&offsets[..=middle], left, left_slots, each),
        || for_each_row(&offsets[middle..], right, right_slots, each),
    );
}

impl Csr {
    /// Build from `(from, to)` pairs over `n` nodes; duplicates are dropped. The pairs are filed
    /// by counting; each row is then sorted and made distinct on every core (a range of the CD
    /// plan builds graphs of tens of millions of pairs, and this was one core's work).
    fn from_pairs(n: usize, pairs: &[(Node, Node)]) -> Csr {
        let (starts, mut targets) = filed_by_row(n, pairs.iter().copied());
        // Each row sorted with its distinct targets first, how many in `kept`; then squeezed.
        let mut kept = vec![0u64; n];
        for_each_row(&starts, &mut targets, &mut kept, &|row, kept| {
            row.sort_unstable();
            *kept = distinct_first(row) as u64;
        });
        if kept.iter().sum::<u64>() == pairs.len() as u64 {
            return Csr { offsets: starts, targets };
        }
        let mut offsets = vec![0u64; n + 1];
        let mut write = 0usize;
        for (node, &count) in kept.iter().enumerate() {
            let start = starts[node] as usize;
            targets.copy_within(start..start + count as usize, write);
            write += count as usize;
            offsets[node + 1] = write as u64;
        }
        targets.truncate(write);
        targets.shrink_to_fit();
        Csr { offsets, targets }
    }

    /// The edges `(from, to)` over `n` nodes and their reverse, duplicates dropped.
    fn both_ways(n: usize, pairs: &[(Node, Node)]) -> (Csr, Csr) {
        let forward = Csr::from_pairs(n, pairs);
        let backward = forward.reversed();
        (forward, backward)
    }

    /// The reverse of these rows. Filing every edge under its target while reading the rows in
    /// order leaves each reversed row ascending and distinct already: no sort, no squeeze.
    fn reversed(&self) -> Csr {
        let n = self.offsets.len() - 1;
        let edges = (0..n as Node).flat_map(|from| self.neighbors(from).iter().map(move |&to| (to, from)));
        let (offsets, targets) = filed_by_row(n, edges);
        Csr { offsets, targets }
    }

    /// The neighbours of `node`, ascending.
    pub fn neighbors(&self, node: Node) -> &[Node] {
        let i = node as usize;
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of neighbours of `node`.
    pub fn degree(&self, node: Node) -> usize {
        let i = node as usize;
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }

    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.targets.len()
    }

    /// Rows and edges from their raw parts, checking every invariant (used when loading).
    fn from_parts(offsets: Vec<u64>, targets: Vec<Node>) -> std::result::Result<Csr, String> {
        if offsets.first() != Some(&0) || offsets.last().copied() != Some(targets.len() as u64) {
            return Err("row offsets do not span the edge list".into());
        }
        let n = offsets.len() - 1;
        for row in offsets.windows(2) {
            // A later offset may still decrease below the edge count: bound each row by it too.
            if row[0] > row[1] || row[1] > targets.len() as u64 {
                return Err("row offsets decrease".into());
            }
            let slice = &targets[row[0] as usize..row[1] as usize];
            if slice.iter().any(|&t| t as usize >= n) || slice.windows(2).any(|w| w[0] >= w[1]) {
                return Err("a row holds an out-of-range or unsorted neighbour".into());
            }
        }
        Ok(Csr { offsets, targets })
    }
}

/// What a node carries besides its edges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeInfo {
    /// The paper id.
    pub id: String,
    /// Publication year, when known.
    pub year: Option<i32>,
    /// Publication date as days since 1970-01-01, when the source gave one.
    pub date: Option<i32>,
    /// Venue, when known.
    pub venue: Option<String>,
    /// References to works outside the graph (counted, not linked).
    pub external_references: u32,
}

/// How a graph places papers in time (the timestamps of the CD index's windows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Timeline {
    /// Publication years: a window of Δ years ends Δ years after the focal paper's year.
    Years,
    /// Publication dates, used when every paper with a year also has a date: a window of Δ
    /// years ends on the same day Δ years later.
    Dates,
}

/// The citation graph: "cites" edges in both directions, with years (and dates), venues and the
/// number of references that point outside the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// One per node, or empty when no node has one (an anonymous graph; see [`per_node`]).
    ids: Vec<String>,
    index: HashMap<String, Node>,
    /// One per node: `len` counts them.
    years: Vec<Option<i32>>,
    dates: Vec<Option<i32>>,
    /// One per node, or empty when no node has one.
    venues: Vec<Option<u32>>,
    venue_names: Vec<String>,
    /// One per node, or empty when no node has any.
    external: Vec<u32>,
    cites: Csr,
    cited_by: Csr,
    /// Derived: the timeline and each node's timestamp in it (`i32::MIN` when unknown).
    timeline: Timeline,
    stamps: Vec<i32>,
}

impl Graph {
    /// Build from nodes and `(citing, cited)` id pairs. Nodes are renumbered in id order; edges
    /// naming unknown ids are counted as external references of the citing paper (or ignored when
    /// the citing paper is unknown too); self-citations and repeated edges are dropped.
    pub fn build(mut nodes: Vec<NodeInfo>, edges: &[(&str, &str)]) -> Graph {
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        nodes.dedup_by(|a, b| a.id == b.id);
        let index: HashMap<String, Node> = nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as Node)).collect();
        let mut external: Vec<u32> = nodes.iter().map(|n| n.external_references).collect();
        let mut pairs = Vec::with_capacity(edges.len());
        for &(citing, cited) in edges {
            match (index.get(citing), index.get(cited)) {
                (Some(&from), Some(&to)) if from != to => pairs.push((from, to)),
                (Some(&from), None) => external[from as usize] += 1,
                _ => {}
            }
        }
        Graph::from_numbered(nodes, external, index, &pairs)
    }

    /// Build from edges between node numbers: node `i` is `nodes[i]` (ids must be distinct; their
    /// order is the caller's). Repeated edges are dropped. For callers that already hold numbered
    /// edges and would otherwise turn every number into an id and back.
    pub fn from_numbered_edges(nodes: Vec<NodeInfo>, pairs: &[(Node, Node)]) -> Graph {
        let index: HashMap<String, Node> = nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as Node)).collect();
        let external = nodes.iter().map(|n| n.external_references).collect();
        Graph::from_numbered(nodes, external, index, pairs)
    }

    /// A graph of papers known only by number and time: node `i` has `years[i]` and `dates[i]`
    /// (the two vectors are as long as each other), no id (`find` knows no paper, `id` is empty),
    /// no venue. Repeated edges are dropped. The analytics engine builds one such graph per range
    /// of a plan, for the kernel alone: naming its nodes would cost more than the kernel.
    pub fn anonymous(years: Vec<Option<i32>>, dates: Vec<Option<i32>>, pairs: &[(Node, Node)]) -> Graph {
        let n = years.len();
        let (cites, cited_by) = Csr::both_ways(n, pairs);
        // No per-node vector is filled for what the graph does not know (`per_node`): a range's
        // graph has millions of nodes, and these were 36 bytes each to write and free.
        Graph::assemble(Parts {
            ids: Vec::new(),
            index: HashMap::new(),
            years,
            dates,
            venues: Vec::new(),
            venue_names: Vec::new(),
            external: Vec::new(),
            cites,
            cited_by,
        })
    }

    /// Build from numbered edges over nodes already sorted by id (the synthetic generator and the
    /// loaders use this).
    fn from_numbered(
        nodes: Vec<NodeInfo>,
        external: Vec<u32>,
        index: HashMap<String, Node>,
        pairs: &[(Node, Node)],
    ) -> Graph {
        let n = nodes.len();
        let (cites, cited_by) = Csr::both_ways(n, pairs);
        let mut venue_index: HashMap<String, u32> = HashMap::new();
        let mut venue_names = Vec::new();
        let mut venues = Vec::with_capacity(n);
        let mut years = Vec::with_capacity(n);
        let mut dates = Vec::with_capacity(n);
        let mut ids = Vec::with_capacity(n);
        for node in nodes {
            years.push(node.year);
            dates.push(node.date);
            venues.push(node.venue.filter(|v| !v.trim().is_empty()).map(|venue| {
                *venue_index.entry(venue.clone()).or_insert_with(|| {
                    venue_names.push(venue);
                    venue_names.len() as u32 - 1
                })
            }));
            ids.push(node.id);
        }
        Graph::assemble(Parts { ids, index, years, dates, venues, venue_names, external, cites, cited_by })
    }

    /// The graph of its stored parts, with the timeline derived from its years and dates.
    pub(crate) fn assemble(parts: Parts) -> Graph {
        let Parts { ids, index, years, dates, venues, venue_names, external, cites, cited_by } = parts;
        let dated = dates.iter().any(Option::is_some)
            && years.iter().zip(&dates).all(|(year, date)| year.is_none() || date.is_some());
        let timeline = if dated { Timeline::Dates } else { Timeline::Years };
        let stamps = match timeline {
            Timeline::Dates => dates.iter().map(|d| d.unwrap_or(i32::MIN)).collect(),
            Timeline::Years => years.iter().map(|y| y.unwrap_or(i32::MIN)).collect(),
        };
        Graph { ids, index, years, dates, venues, venue_names, external, cites, cited_by, timeline, stamps }
    }

    /// The graph of a corpus: every paper a node, every resolved reference an edge, unresolved
    /// references counted per paper.
    pub fn from_papers(papers: &[Paper]) -> Graph {
        let mut nodes = Nodes::default();
        papers.iter().for_each(|paper| nodes.add(paper));
        nodes.graph()
    }

    /// [`Graph::from_papers`] of papers read one at a time (a corpus on disk): what is held is the
    /// nodes and the edges, not the papers.
    pub fn from_scan(papers: &(impl litnav_corpus::PaperScan + ?Sized)) -> litnav_corpus::Result<Graph> {
        let mut nodes = Nodes::default();
        papers.each_paper(&mut |_, paper| {
            nodes.add(paper);
            Ok(())
        })?;
        Ok(nodes.graph())
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.years.len()
    }

    /// True when the graph has no papers.
    pub fn is_empty(&self) -> bool {
        self.years.is_empty()
    }

    /// Number of in-corpus citation edges.
    pub fn edge_count(&self) -> usize {
        self.cites.edges()
    }

    /// Number of references to works outside the corpus, over all papers.
    pub fn external_count(&self) -> u64 {
        self.external.iter().map(|&e| e as u64).sum()
    }

    /// The node of paper `id`.
    pub fn node(&self, id: &str) -> Result<Node> {
        self.index.get(id).copied().ok_or_else(|| Error::UnknownPaper(id.to_string()))
    }

    /// The node of paper `id`, if it is in the graph.
    pub fn find(&self, id: &str) -> Option<Node> {
        self.index.get(id).copied()
    }

    /// The paper id of `node` (empty in an anonymous graph).
    pub fn id(&self, node: Node) -> &str {
        per_node(&self.ids, node).map_or("", String::as_str)
    }

    /// Publication year of `node`.
    pub fn year(&self, node: Node) -> Option<i32> {
        self.years[node as usize]
    }

    /// Publication date of `node` (days since 1970-01-01), when known.
    pub fn date(&self, node: Node) -> Option<i32> {
        self.dates[node as usize]
    }

    /// How the graph places papers in time.
    pub fn timeline(&self) -> Timeline {
        self.timeline
    }

    /// The timestamp time windows compare for `node` (a day number on a dated timeline, else
    /// the year), when known.
    pub fn timestamp(&self, node: Node) -> Option<i32> {
        Some(self.stamps[node as usize]).filter(|&t| t != i32::MIN)
    }

    /// Every node's timestamp, `i32::MIN` where unknown (for loops that test many).
    pub fn timestamps(&self) -> &[i32] {
        &self.stamps
    }

    /// The last timestamp at most `years` years after `stamp` (unbounded without a window).
    pub fn window_end(&self, stamp: i32, years: Option<u32>) -> i32 {
        let Some(years) = years else { return i32::MAX };
        let years = i32::try_from(years).unwrap_or(i32::MAX);
        match self.timeline {
            Timeline::Years => stamp.saturating_add(years),
            Timeline::Dates => litnav_core::date::Date::from_days(stamp).plus_years(years).days(),
        }
    }

    /// Venue of `node`, when known.
    pub fn venue(&self, node: Node) -> Option<&str> {
        self.venue_index(node).map(|v| self.venue_names[v as usize].as_str())
    }

    /// Venue number of `node` (an index into the graph's distinct venues), when known.
    pub fn venue_index(&self, node: Node) -> Option<u32> {
        per_node(&self.venues, node).copied().flatten()
    }

    /// Number of distinct venues.
    pub fn venue_count(&self) -> usize {
        self.venue_names.len()
    }

    /// Papers `node` cites (in the corpus), ascending.
    pub fn references(&self, node: Node) -> &[Node] {
        self.cites.neighbors(node)
    }

    /// Every node's references back to back (node order), and where each node's start:
    /// `references(n) == &targets[offsets[n]..offsets[n + 1]]`. For passes over all edges.
    pub fn reference_rows(&self) -> (&[u64], &[Node]) {
        (&self.cites.offsets, &self.cites.targets)
    }

    /// Papers citing `node`, ascending.
    pub fn citers(&self, node: Node) -> &[Node] {
        self.cited_by.neighbors(node)
    }

    /// In-corpus citation count of `node`.
    pub fn in_degree(&self, node: Node) -> usize {
        self.cited_by.degree(node)
    }

    /// Number of in-corpus references of `node`.
    pub fn out_degree(&self, node: Node) -> usize {
        self.cites.degree(node)
    }

    /// Number of references of `node` to works outside the corpus.
    pub fn external_references(&self, node: Node) -> u32 {
        per_node(&self.external, node).copied().unwrap_or(0)
    }

    /// True when `from` cites `to`.
    pub fn cites(&self, from: Node, to: Node) -> bool {
        self.references(from).binary_search(&to).is_ok()
    }

    /// Every edge as (citing, cited), in node order.
    pub fn edges(&self) -> impl Iterator<Item = (Node, Node)> + '_ {
        self.nodes().flat_map(move |from| self.references(from).iter().map(move |&to| (from, to)))
    }

    /// Every node, ascending.
    pub fn nodes(&self) -> impl Iterator<Item = Node> + '_ {
        0..self.len() as Node
    }
}

/// `node`'s entry in a vector of one entry per node that may be left empty when no node has
/// one (`None` then; a node beyond a filled vector still panics, as indexing does).
fn per_node<T>(values: &[T], node: Node) -> Option<&T> {
    (!values.is_empty()).then(|| &values[node as usize])
}

/// What a graph is built from, gathered one paper at a time.
#[derive(Default)]
struct Nodes {
    nodes: Vec<NodeInfo>,
    edges: Vec<(String, String)>,
}

impl Nodes {
    fn add(&mut self, paper: &Paper) {
        self.nodes.push(NodeInfo {
            id: paper.id.clone(),
            year: paper.year,
            date: paper.date.as_deref().and_then(litnav_core::date::Date::parse).map(|d| d.days()),
            venue: paper.venue.clone(),
            external_references: paper.external_references.len() as u32,
        });
        self.edges.extend(paper.references.iter().map(|cited| (paper.id.clone(), cited.clone())));
    }

    fn graph(self) -> Graph {
        let edges: Vec<(&str, &str)> = self.edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        Graph::build(self.nodes, &edges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn node(id: &str, year: i32) -> NodeInfo {
        NodeInfo { id: id.into(), year: Some(year), ..NodeInfo::default() }
    }

    #[test]
    fn row_offsets_beyond_the_edges_are_refused_not_sliced() {
        // Found by the fuzzer: a middle offset past the edge count, the last one back on it.
        assert!(Csr::from_parts(vec![0, 5, 1], vec![0]).is_err());
        assert!(Csr::from_parts(vec![0, 1, 1], vec![0]).is_ok());
    }

    #[test]
    fn builds_both_directions_sorted_and_deduplicated() {
        let g = Graph::build(
            vec![node("c", 2002), node("a", 2000), node("b", 2001)],
            &[("c", "a"), ("c", "b"), ("c", "a"), ("b", "a"), ("b", "b"), ("b", "zzz")],
        );
        assert_eq!(g.len(), 3);
        assert_eq!(g.edge_count(), 3);
        let (a, b, c) = (g.node("a").unwrap(), g.node("b").unwrap(), g.node("c").unwrap());
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(g.references(c), &[a, b]);
        assert_eq!(g.citers(a), &[b, c]);
        assert_eq!(g.in_degree(a), 2);
        assert_eq!(g.out_degree(b), 1);
        assert_eq!(g.external_references(b), 1);
        assert!(g.cites(c, b) && !g.cites(b, c));
        assert!(matches!(g.node("nope"), Err(Error::UnknownPaper(_))));
    }

    #[test]
    fn an_anonymous_graph_has_its_nodes_without_ids_venues_or_external_references() {
        let g = Graph::anonymous(vec![Some(2000), None, Some(2002)], vec![None; 3], &[(2, 0), (2, 1), (1, 0), (2, 0)]);
        assert_eq!((g.len(), g.edge_count(), g.nodes().count()), (3, 3, 3));
        assert_eq!(g.references(2), &[0, 1]);
        assert_eq!(g.year(1), None);
        for node in g.nodes() {
            assert_eq!((g.id(node), g.venue(node), g.external_references(node)), ("", None, 0));
        }
        assert_eq!((g.find(""), g.external_count(), g.venue_count()), (None, 0, 0));
    }

    #[test]
    fn rows_built_on_every_core_equal_rows_built_one_by_one() {
        // Enough pairs that the rows are split between tasks, a tenth of them repeated, some
        // nodes without any edge, and once no repeat at all (the squeeze is then skipped).
        let n = 50_000usize;
        let scramble = |i: u64, salt: u64| ((i ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) as usize;
        let unique: Vec<(Node, Node)> = {
            let mut seen = std::collections::BTreeSet::new();
            (0..300_000u64)
                .map(|i| ((scramble(i, 1) % (n - 500)) as Node, (scramble(i, 2) % n) as Node))
                .filter(|&pair| seen.insert(pair))
                .collect()
        };
        let repeated: Vec<(Node, Node)> = unique.iter().chain(unique.iter().step_by(10)).copied().collect();
        for pairs in [&unique, &repeated] {
            let (forward, backward) = Csr::both_ways(n, pairs);
            let mut expected: Vec<std::collections::BTreeSet<Node>> = vec![Default::default(); n];
            let mut expected_back = expected.clone();
            for &(from, to) in pairs.iter() {
                expected[from as usize].insert(to);
                expected_back[to as usize].insert(from);
            }
            for node in 0..n {
                let want: Vec<Node> = expected[node].iter().copied().collect();
                assert_eq!(forward.neighbors(node as Node), want.as_slice(), "row {node}");
                let want: Vec<Node> = expected_back[node].iter().copied().collect();
                assert_eq!(backward.neighbors(node as Node), want.as_slice(), "reversed row {node}");
            }
            assert_eq!((forward.edges(), backward.edges()), (unique.len(), unique.len()));
        }
    }
}
