//! Uzzi-style novelty (Uzzi, Mukherjee, Stringer & Jones 2013), as SciNet uses it.
//!
//! Every pair of references a paper cites together is a combination of two "units" (journals in
//! Uzzi's paper). How often each unit pair is co-cited across the corpus is compared with how
//! often it is co-cited in randomized citation graphs that keep every paper's number of references
//! and every paper's number of citations; z = (observed − mean of nulls) / sd of nulls. A paper's
//! novelty is the 10th percentile of its pairs' z-scores (low = atypical combination = novel), its
//! conventionality the median.
//!
//! Choices the papers leave open, made here:
//! - **Units.** [`Units::Venues`] (default): a reference's venue; a reference without a venue is
//!   its own unit. [`Units::References`]: every reference is its own unit (for corpora without
//!   venues). Pairs are unordered and a unit may pair with itself.
//! - **Counting.** Each pair of distinct reference slots in a paper adds one to its unit pair's
//!   count; the paper's z-scores are one per reference pair (a paper with k references has
//!   k(k−1)/2 of them).
//! - **Null model.** Markov-chain edge switching: two citation edges a→b and c→d made by papers of
//!   the same publication year (Uzzi's restriction; an unknown year is its own group) become a→d
//!   and c→b unless that would create a self-citation or a repeated edge. `swaps_per_edge` × the
//!   number of edges switches are attempted per null graph (default 5); `nulls` graphs (default 10)
//!   are drawn, null `i` seeded with the i-th output of SplitMix64(seed). Deterministic for a seed,
//!   whatever the thread count.
//! - **z.** Mean and sample standard deviation (n − 1) over the nulls. When the null sd is 0 the
//!   pair has no z-score and is left out of the paper's percentiles; a paper with no scored pair
//!   has no novelty (reason given).
//! - **Percentiles** interpolate linearly between order statistics (position (n − 1)·q), as
//!   NumPy's default.
//!
//! ## Memory, bounded by design
//! The distinct unit pairs of a large graph do not fit in memory with their counts (45 M pairs
//! on a 1 M-paper / 10 M-edge graph with references as units). They are counted in
//! **partitions** of the pair-key space, one partition at a time, each within
//! [`Options::memory_budget`]: a partition's pairs are collected from the real graph, sorted and
//! counted, then counted again in every null graph, and their z-scores are written to the pair
//! slots they came from. The null graphs are generated once; when they do not fit in
//! [`Options::null_budget`] they wait in anonymous temporary files (in `$TMPDIR`) and are read
//! back in pieces. A paper's percentiles are taken from its own slots at the end. Peak memory is
//! therefore about: the graph, plus 8 bytes per reference pair (Σ k(k−1)/2 over papers), plus the
//! two budgets, plus one copy of the edge targets per thread while the nulls are drawn — and the
//! results are identical, bit for bit, whatever the partitioning or where the nulls are kept
//! (tested against the direct computation).

pub mod expected;

use crate::{Error, Graph, Node, Result};
use litnav_core::rng::SplitMix64;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU32, Ordering};

/// What plays the role of Uzzi's journals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    /// A reference's venue (its own unit when it has none).
    #[default]
    Venues,
    /// Every reference is its own unit.
    References,
}

impl Units {
    /// Every choice.
    pub const ALL: [Units; 2] = [Units::Venues, Units::References];

    /// The choice's name in files, summaries and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Units::Venues => "venues",
            Units::References => "references",
        }
    }

    /// The choice of a name written by [`Units::name`].
    pub fn from_name(name: &str) -> Option<Units> {
        Units::ALL.into_iter().find(|units| units.name() == name)
    }
}

/// Parameters of the novelty computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// What a reference's "journal" is.
    pub units: Units,
    /// Number of randomized graphs.
    pub nulls: usize,
    /// Switch attempts per edge, per randomized graph.
    pub swaps_per_edge: usize,
    /// Seed of the randomization.
    pub seed: u64,
    /// Bytes the pair counts of one partition may take (the partition count follows from it).
    pub memory_budget: usize,
    /// Bytes the null graphs may take in memory; beyond it they are kept in temporary files.
    pub null_budget: usize,
}

/// Default of [`Options::memory_budget`] and [`Options::null_budget`]: 256 MiB each.
pub const DEFAULT_BUDGET: usize = 256 << 20;

impl Default for Options {
    fn default() -> Self {
        Options {
            units: Units::Venues,
            nulls: 10,
            swaps_per_edge: 5,
            seed: litnav_core::DEFAULT_SEED,
            memory_budget: DEFAULT_BUDGET,
            null_budget: DEFAULT_BUDGET,
        }
    }
}

/// Why a paper has no novelty value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undefined {
    /// Fewer than two in-corpus references: no pair to score.
    FewerThanTwoReferences,
    /// Every pair's null distribution had zero spread.
    NoScoredPair,
}

impl Undefined {
    /// Every reason.
    pub const ALL: [Undefined; 2] = [Undefined::FewerThanTwoReferences, Undefined::NoScoredPair];

    /// The reason's name in files and JSON (as serde writes it).
    pub fn name(self) -> &'static str {
        match self {
            Undefined::FewerThanTwoReferences => "fewer_than_two_references",
            Undefined::NoScoredPair => "no_scored_pair",
        }
    }

    /// The reason of a name written by [`Undefined::name`].
    pub fn from_name(name: &str) -> Option<Undefined> {
        Undefined::ALL.into_iter().find(|why| why.name() == name)
    }

    /// The reason in words.
    pub fn describe(self) -> &'static str {
        match self {
            Undefined::FewerThanTwoReferences => "fewer than two in-corpus references, so no combination to score",
            Undefined::NoScoredPair => "no reference pair varies under the null model",
        }
    }
}

/// The novelty of one paper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Novelty {
    /// Reference pairs with a z-score.
    pub pairs: usize,
    /// 10th percentile of the pairs' z-scores (lower = more novel).
    pub p10: Option<f64>,
    /// Median z-score (higher = more conventional).
    pub median: Option<f64>,
    /// Why the values are missing, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<Undefined>,
}

/// How a novelty run was laid out in memory (what the budgets led to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Reference pairs over all papers (Σ k(k−1)/2): the slots z-scores are written to.
    pub pair_slots: u64,
    /// Distinct unit pairs co-cited in the real graph.
    pub distinct_pairs: u64,
    /// Partitions of the pair-key space counted one after the other.
    pub partitions: usize,
    /// Whether the null graphs were kept in temporary files.
    pub nulls_on_disk: bool,
}

/// Novelty of every paper, in node order. Fails only when the null graphs must wait in
/// temporary files and `$TMPDIR` cannot take them.
pub fn novelty_all(graph: &Graph, options: &Options) -> Result<Vec<Novelty>> {
    Ok(novelty_with_layout(graph, options)?.0)
}

/// Novelty of every paper, in node order, with the layout the budgets led to.
pub fn novelty_with_layout(graph: &Graph, options: &Options) -> Result<(Vec<Novelty>, Layout)> {
    let units = unit_of_each_node(graph, options.units);
    let slots = PairSlots::new(graph);
    let mut seeds = SplitMix64(options.seed);
    let seeds: Vec<u64> = (0..options.nulls).map(|_| seeds.next_u64()).collect();
    let nulls = NullGraphs::draw(graph, options, &seeds)?;
    let partitions = partition_count(slots.total, options.nulls, options.memory_budget);
    // z-score of every reference pair of every paper; NaN where the pair has none.
    let mut z = vec![f64::NAN; slots.total as usize];
    let mut distinct_pairs = 0;
    for part in 0..partitions {
        let which = Part { index: part as u64, of: partitions as u64 };
        let counted = PartCounts::observe(graph, &units, which);
        distinct_pairs += counted.keys.len() as u64;
        let null_counts: Vec<Vec<u32>> = (0..nulls.len()).map(|i| counted.recount(graph, &nulls, i, &units)).collect();
        let scores = counted.z_scores(&null_counts);
        counted.write_scores(graph, &units, &slots, &scores, &mut z);
    }
    let layout = Layout { pair_slots: slots.total, distinct_pairs, partitions, nulls_on_disk: nulls.on_disk() };
    Ok((papers_from_slots(graph, &slots, &z), layout))
}

/// Every paper's novelty from the z-scores written to its reference pair slots, in node order.
fn papers_from_slots(graph: &Graph, slots: &PairSlots, z: &[f64]) -> Vec<Novelty> {
    (0..graph.len() as Node)
        .into_par_iter()
        .map(|node| paper_novelty(graph.out_degree(node), &z[slots.range(node)]))
        .collect()
}

/// A paper's novelty from the z-scores of its reference pairs (NaN: the pair has none), given
/// its number of references.
pub fn paper_novelty(references: usize, pair_scores: &[f64]) -> Novelty {
    if references < 2 {
        return Novelty { pairs: 0, p10: None, median: None, undefined: Some(Undefined::FewerThanTwoReferences) };
    }
    let mut scores: Vec<f64> = pair_scores.iter().copied().filter(|z| !z.is_nan()).collect();
    if scores.is_empty() {
        return Novelty { pairs: 0, p10: None, median: None, undefined: Some(Undefined::NoScoredPair) };
    }
    scores.sort_by(f64::total_cmp);
    Novelty {
        pairs: scores.len(),
        p10: Some(quantile(&scores, 0.1)),
        median: Some(quantile(&scores, 0.5)),
        undefined: None,
    }
}

/// The q-quantile of sorted `values`, interpolating linearly (NumPy's default).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = (sorted.len() - 1) as f64 * q;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let fraction = position - below as f64;
    sorted[below] + (sorted[above] - sorted[below]) * fraction
}

/// Unit number of every node: its venue number, or (venue count + node) when it has no venue
/// or units are references.
fn unit_of_each_node(graph: &Graph, units: Units) -> Vec<u32> {
    let own = |node: Node| graph.venue_count() as u32 + node;
    graph
        .nodes()
        .map(|node| match units {
            Units::Venues => graph.venue_index(node).unwrap_or_else(|| own(node)),
            Units::References => own(node),
        })
        .collect()
}

fn pair_key(a: u32, b: u32) -> u64 {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    ((low as u64) << 32) | high as u64
}

/// Where each paper's reference pairs are numbered: paper n's pairs (i < j over its reference
/// list, in order) are slots `start[n]..start[n + 1]`.
struct PairSlots {
    start: Vec<u64>,
    total: u64,
}

impl PairSlots {
    fn new(graph: &Graph) -> PairSlots {
        let mut start = Vec::with_capacity(graph.len() + 1);
        let mut total = 0u64;
        for node in graph.nodes() {
            start.push(total);
            let k = graph.out_degree(node) as u64;
            total += k * k.saturating_sub(1) / 2;
        }
        start.push(total);
        PairSlots { start, total }
    }

    fn range(&self, node: Node) -> std::ops::Range<usize> {
        self.start[node as usize] as usize..self.start[node as usize + 1] as usize
    }
}

/// Call `visit(slot within the list, key)` for every pair of `references` (in slot order).
fn for_each_pair_of(references: &[Node], units: &[u32], mut visit: impl FnMut(usize, u64)) {
    let mut slot = 0;
    for (i, &a) in references.iter().enumerate() {
        for &b in &references[i + 1..] {
            visit(slot, pair_key(units[a as usize], units[b as usize]));
            slot += 1;
        }
    }
}

/// Number of partitions so that one partition's counts fit in `budget`, taking every reference
/// pair as possibly distinct: per pair its key while sorting and in the index (~40 bytes with
/// the hash table's slack), its observed count, one count per null graph and its z-score.
fn partition_count(pair_slots: u64, nulls: usize, budget: usize) -> usize {
    let per_pair = 8 + 40 + 4 + 4 * nulls as u64 + 8 + 4;
    let need = pair_slots.saturating_mul(per_pair);
    need.div_ceil(budget.max(1) as u64).max(1) as usize
}

/// One partition of the pair-key space.
#[derive(Clone, Copy)]
struct Part {
    index: u64,
    of: u64,
}

impl Part {
    /// The whole key space as one partition.
    const WHOLE: Part = Part { index: 0, of: 1 };

    fn holds(self, key: u64) -> bool {
        self.of == 1 || spread(key) % self.of == self.index
    }
}

/// A key mixed so that partitions and hash buckets get even shares (SplitMix64's finalizer).
fn spread(key: u64) -> u64 {
    let mut x = key;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Hashes a pair key with [`spread`] (the default SipHash costs several times more per lookup,
/// and these keys come from our own graph, not from an adversary).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        spread(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

type KeyIndex = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

/// The unit pairs of one partition co-cited in the real graph, numbered in key order, with their
/// observed counts.
struct PartCounts {
    which: Part,
    keys: Vec<u64>,
    positions: KeyIndex,
    observed: Vec<u32>,
}

impl PartCounts {
    fn observe(graph: &Graph, units: &[u32], which: Part) -> PartCounts {
        let mut all: Vec<u64> = (0..graph.len() as Node)
            .into_par_iter()
            .flat_map_iter(|node| {
                let mut keys = Vec::new();
                for_each_pair_of(graph.references(node), units, |_, key| {
                    if which.holds(key) {
                        keys.push(key);
                    }
                });
                keys
            })
            .collect();
        all.par_sort_unstable();
        let mut keys = Vec::new();
        let mut observed = Vec::new();
        for key in all {
            if keys.last() == Some(&key) {
                *observed.last_mut().expect("a count beside each key") += 1;
            } else {
                keys.push(key);
                observed.push(1u32);
            }
        }
        keys.shrink_to_fit();
        observed.shrink_to_fit();
        let mut positions = KeyIndex::with_capacity_and_hasher(keys.len(), Default::default());
        positions.extend(keys.iter().enumerate().map(|(i, &key)| (key, i as u32)));
        PartCounts { which, keys, positions, observed }
    }

    /// Counts of this partition's pairs in null graph `null` (pairs never observed are ignored).
    fn recount(&self, graph: &Graph, nulls: &NullGraphs, null: usize, units: &[u32]) -> Vec<u32> {
        let counts: Vec<AtomicU32> = (0..self.keys.len()).map(|_| AtomicU32::new(0)).collect();
        nulls.for_each_row(graph, null, |references| {
            for_each_pair_of(references, units, |_, key| {
                if self.which.holds(key)
                    && let Some(&position) = self.positions.get(&key)
                {
                    counts[position as usize].fetch_add(1, Ordering::Relaxed);
                }
            });
        });
        counts.into_iter().map(AtomicU32::into_inner).collect()
    }

    /// z-score per pair: (observed − mean of the nulls) / sample sd of the nulls; `None` with
    /// fewer than two nulls or no spread.
    fn z_scores(&self, nulls: &[Vec<u32>]) -> Vec<Option<f64>> {
        let k = nulls.len() as f64;
        (0..self.observed.len())
            .map(|pair| {
                if nulls.len() < 2 {
                    return None;
                }
                let mean = nulls.iter().map(|c| c[pair] as f64).sum::<f64>() / k;
                let variance = nulls.iter().map(|c| (c[pair] as f64 - mean).powi(2)).sum::<f64>() / (k - 1.0);
                let sd = variance.sqrt();
                (sd > 0.0).then(|| (self.observed[pair] as f64 - mean) / sd)
            })
            .collect()
    }

    /// Write this partition's z-scores into every real reference pair slot whose key it holds.
    fn write_scores(&self, graph: &Graph, units: &[u32], slots: &PairSlots, scores: &[Option<f64>], z: &mut [f64]) {
        // Each paper owns a disjoint run of slots: split `z` along them and fill in parallel.
        let mut rows: Vec<(Node, &mut [f64])> = Vec::with_capacity(graph.len());
        let mut rest = z;
        for node in graph.nodes() {
            let (row, tail) = rest.split_at_mut(slots.range(node).len());
            rows.push((node, row));
            rest = tail;
        }
        rows.par_iter_mut().for_each(|(node, row)| {
            for_each_pair_of(graph.references(*node), units, |slot, key| {
                if self.which.holds(key)
                    && let Some(score) = self.positions.get(&key).and_then(|&p| scores[p as usize])
                {
                    row[slot] = score;
                }
            });
        });
    }
}

/// The randomized graphs: each one's reference targets back to back in node order (the same row
/// lengths as the real graph), in memory or, beyond the budget, in anonymous temporary files.
enum NullGraphs {
    Memory(Vec<Vec<Node>>),
    Disk(Vec<std::fs::File>),
}

impl NullGraphs {
    fn draw(graph: &Graph, options: &Options, seeds: &[u64]) -> Result<NullGraphs> {
        let edges = EdgesByYear::new(graph);
        let bytes = seeds.len() as u64 * graph.edge_count() as u64 * 4;
        let draw = |&seed: &u64| randomized_targets(graph, &edges, options.swaps_per_edge, seed);
        if bytes <= options.null_budget as u64 {
            return Ok(NullGraphs::Memory(seeds.par_iter().map(draw).collect()));
        }
        // One null graph per thread in memory at a time; each is written out as soon as drawn.
        let files = seeds
            .par_iter()
            .map(|seed| {
                let targets = draw(seed);
                let mut bytes = Vec::with_capacity(targets.len() * 4);
                targets.iter().for_each(|t| bytes.extend_from_slice(&t.to_le_bytes()));
                drop(targets);
                let mut file = tempfile::tempfile().map_err(temp_error)?;
                file.write_all(&bytes).map_err(temp_error)?;
                Ok(file)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(NullGraphs::Disk(files))
    }

    fn len(&self) -> usize {
        match self {
            NullGraphs::Memory(graphs) => graphs.len(),
            NullGraphs::Disk(files) => files.len(),
        }
    }

    fn on_disk(&self) -> bool {
        matches!(self, NullGraphs::Disk(_))
    }

    /// Call `visit(references)` for every row of null graph `null`, rows in parallel.
    fn for_each_row(&self, graph: &Graph, null: usize, visit: impl Fn(&[Node]) + Sync) {
        let (offsets, _) = graph.reference_rows();
        match self {
            NullGraphs::Memory(graphs) => {
                let targets = &graphs[null];
                (0..graph.len()).into_par_iter().for_each(|n| {
                    visit(&targets[offsets[n] as usize..offsets[n + 1] as usize]);
                });
            }
            NullGraphs::Disk(files) => {
                // Blocks of about a million edges, read with positional reads (no shared cursor).
                let blocks = row_blocks(offsets, 1 << 20);
                blocks.par_iter().for_each(|&(first, end)| {
                    let (from, to) = (offsets[first], offsets[end]);
                    let mut bytes = vec![0u8; ((to - from) * 4) as usize];
                    // A file this process wrote and holds open: reading it back fails only if
                    // the disk does, which no caller could recover from either.
                    files[null].read_exact_at(&mut bytes, from * 4).expect("reading a null graph back from $TMPDIR");
                    let targets: Vec<Node> =
                        bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                    for n in first..end {
                        visit(&targets[(offsets[n] - from) as usize..(offsets[n + 1] - from) as usize]);
                    }
                });
            }
        }
    }
}

/// A temporary file for a null graph could not be made or written.
fn temp_error(source: std::io::Error) -> Error {
    Error::Io { path: std::env::temp_dir().join("(novelty's null graphs)"), source }
}

/// Consecutive row ranges `(first, end)` of about `edges` edges each.
fn row_blocks(offsets: &[u64], edges: u64) -> Vec<(usize, usize)> {
    let rows = offsets.len() - 1;
    let mut blocks = Vec::new();
    let mut first = 0;
    while first < rows {
        let mut end = first + 1;
        while end < rows && offsets[end] - offsets[first] < edges {
            end += 1;
        }
        blocks.push((first, end));
        first = end;
    }
    blocks
}

/// The citation edges grouped by the citing paper's year (an unknown year is its own group),
/// groups in year order, edges in node then slot order: (citing paper, index of the edge in the
/// flat target list).
struct EdgesByYear {
    groups: Vec<Vec<(Node, u32)>>,
}

impl EdgesByYear {
    fn new(graph: &Graph) -> EdgesByYear {
        let (offsets, targets) = graph.reference_rows();
        assert!(u32::try_from(targets.len()).is_ok(), "novelty numbers edges with 32 bits");
        let mut by_year: HashMap<Option<i32>, Vec<(Node, u32)>> = HashMap::new();
        for node in graph.nodes() {
            let group = by_year.entry(graph.year(node)).or_default();
            let (from, to) = (offsets[node as usize] as u32, offsets[node as usize + 1] as u32);
            group.extend((from..to).map(|edge| (node, edge)));
        }
        let mut years: Vec<Option<i32>> = by_year.keys().copied().collect();
        years.sort();
        EdgesByYear { groups: years.iter().filter_map(|year| by_year.remove(year)).collect() }
    }
}

/// One null graph's targets (flat, in the real graph's row layout) after degree-preserving edge
/// switching among papers of the same year (see the module documentation).
fn randomized_targets(graph: &Graph, edges: &EdgesByYear, swaps_per_edge: usize, seed: u64) -> Vec<Node> {
    let (offsets, targets) = graph.reference_rows();
    let mut targets = targets.to_vec();
    let mut rng = SplitMix64(seed);
    for group in &edges.groups {
        if group.len() < 2 {
            continue;
        }
        for _ in 0..group.len() * swaps_per_edge {
            let (a, edge_a) = group[rng.below(group.len())];
            let (c, edge_c) = group[rng.below(group.len())];
            let b = targets[edge_a as usize];
            let d = targets[edge_c as usize];
            let row_of = |node: Node| offsets[node as usize] as usize..offsets[node as usize + 1] as usize;
            let allowed = a != c
                && b != d
                && a != d
                && c != b
                && !targets[row_of(a)].contains(&d)
                && !targets[row_of(c)].contains(&b);
            if allowed {
                targets[edge_a as usize] = d;
                targets[edge_c as usize] = b;
            }
        }
    }
    targets
}

/// Every paper's references after degree-preserving edge switching among papers of the same
/// year (see the module documentation). Reference lists come back sorted.
pub fn randomized_references(graph: &Graph, swaps_per_edge: usize, seed: u64) -> Vec<Vec<Node>> {
    let targets = randomized_targets(graph, &EdgesByYear::new(graph), swaps_per_edge, seed);
    let (offsets, _) = graph.reference_rows();
    graph
        .nodes()
        .map(|n| {
            let mut list = targets[offsets[n as usize] as usize..offsets[n as usize + 1] as usize].to_vec();
            list.sort_unstable();
            list
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    #[test]
    fn reason_names_are_serdes_and_read_back() {
        for why in Undefined::ALL {
            assert_eq!(serde_json::to_value(why).unwrap(), why.name());
            assert_eq!(Undefined::from_name(why.name()), Some(why));
        }
        for units in Units::ALL {
            assert_eq!(Units::from_name(units.name()), Some(units));
        }
    }

    /// A random citation graph whose papers sit in 12 venues at random.
    fn random_graph(seed: u64) -> Graph {
        let base = crate::synthetic::preferential_attachment(2_000, 6, seed);
        let mut rng = SplitMix64(seed ^ 0xABCD);
        let nodes: Vec<NodeInfo> = base
            .nodes()
            .map(|n| NodeInfo {
                id: base.id(n).to_string(),
                year: base.year(n),
                venue: Some(format!("V{}", rng.below(12))),
                external_references: 0,
                ..NodeInfo::default()
            })
            .collect();
        let edges: Vec<(&str, &str)> = base.edges().map(|(a, b)| (base.id(a), base.id(b))).collect();
        Graph::build(nodes, &edges)
    }

    #[test]
    fn switching_keeps_every_degree_and_adds_no_self_or_repeated_citation() {
        let g = random_graph(3);
        let rewired = randomized_references(&g, 5, 9);
        let mut in_degree = vec![0usize; g.len()];
        let mut changed = 0;
        for node in g.nodes() {
            let list = &rewired[node as usize];
            assert_eq!(list.len(), g.out_degree(node));
            assert!(list.windows(2).all(|w| w[0] < w[1]), "repeated edge");
            assert!(!list.contains(&node), "self-citation");
            list.iter().for_each(|&r| in_degree[r as usize] += 1);
            changed += list.iter().filter(|&&r| !g.cites(node, r)).count();
        }
        assert!(g.nodes().all(|n| in_degree[n as usize] == g.in_degree(n)));
        assert!(changed > g.edge_count() / 2, "only {changed} edges moved");
    }

    #[test]
    fn a_randomly_rewired_graph_scores_near_zero() {
        // Rewire a random graph once: the result is itself a draw from the null model, so its
        // pairs should be neither atypical nor conventional on average.
        let g = random_graph(11);
        let rewired = randomized_references(&g, 5, 77);
        let nodes: Vec<NodeInfo> = g
            .nodes()
            .map(|n| NodeInfo {
                id: g.id(n).into(),
                year: g.year(n),
                venue: g.venue(n).map(str::to_string),
                external_references: 0,
                ..NodeInfo::default()
            })
            .collect();
        let g = &g;
        let edges: Vec<(&str, &str)> =
            g.nodes().flat_map(|n| rewired[n as usize].iter().map(move |&r| (g.id(n), g.id(r)))).collect();
        let null_like = Graph::build(nodes, &edges);
        let values = novelty_all(&null_like, &Options { nulls: 20, ..Options::default() }).unwrap();
        let medians: Vec<f64> = values.iter().filter_map(|v| v.median).collect();
        assert!(medians.len() > 1_500);
        let mean = medians.iter().sum::<f64>() / medians.len() as f64;
        assert!(mean.abs() < 0.25, "mean median z = {mean}");
    }

    #[test]
    fn a_planted_habit_is_conventional_and_its_breach_is_novel() {
        // Papers citing a venue-A paper almost always also cite a venue-B one; one paper pairs A
        // with venue C instead, which the randomized graphs produce more often than observed.
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let year = Some(2000);
        for i in 0..40 {
            for venue in ["A", "B", "C"] {
                nodes.push(NodeInfo {
                    id: format!("{venue}{i:02}"),
                    year: Some(1990),
                    venue: Some(venue.into()),
                    external_references: 0,
                    ..NodeInfo::default()
                });
            }
        }
        let ids: Vec<String> = (0..200).map(|i| format!("P{i:03}")).collect();
        for (i, id) in ids.iter().enumerate() {
            nodes.push(NodeInfo { id: id.clone(), year, venue: Some("X".into()), ..NodeInfo::default() });
            if i < 120 {
                edges.push((id.clone(), format!("A{:02}", i % 40)));
                edges.push((id.clone(), format!("B{:02}", (i * 7) % 40)));
            } else {
                edges.push((id.clone(), format!("C{:02}", i % 40)));
                edges.push((id.clone(), format!("C{:02}", (i + 13) % 40)));
            }
        }
        edges.push(("P000".into(), format!("C{:02}", 5)));
        let borrowed: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let g = Graph::build(nodes, &borrowed);
        let values = novelty_all(&g, &Options::default()).unwrap();
        let typical = values[g.node("P001").unwrap() as usize];
        let breach = values[g.node("P000").unwrap() as usize];
        assert!(typical.median.unwrap() > 2.0, "{typical:?}");
        assert!(breach.p10.unwrap() < 0.0, "{breach:?}");
        assert_eq!(values, novelty_all(&g, &Options::default()).unwrap(), "seeded");
        let few = values[g.node("A00").unwrap() as usize];
        assert_eq!(few.undefined, Some(Undefined::FewerThanTwoReferences));
        // The expected null reads the habit the same way.
        let expected = expected::novelty_all(&g, Units::Venues);
        let (typical, breach) =
            (expected[g.node("P001").unwrap() as usize], expected[g.node("P000").unwrap() as usize]);
        assert!(typical.median.unwrap() > 2.0, "{typical:?}");
        assert!(breach.p10.unwrap() < 0.0, "{breach:?}");
        assert_eq!(expected[g.node("A00").unwrap() as usize].undefined, Some(Undefined::FewerThanTwoReferences));
    }

    /// The computation as first written (every distinct pair in one hash map, every null graph
    /// in memory): what the partitioned one must equal bit for bit.
    fn direct_novelty(graph: &Graph, options: &Options) -> Vec<Novelty> {
        let units = unit_of_each_node(graph, options.units);
        let count = |lists: &[Vec<Node>]| {
            let mut counts: HashMap<u64, u32> = HashMap::new();
            for list in lists {
                for_each_pair_of(list, &units, |_, key| *counts.entry(key).or_default() += 1);
            }
            counts
        };
        let real: Vec<Vec<Node>> = graph.nodes().map(|n| graph.references(n).to_vec()).collect();
        let observed = count(&real);
        let mut seeds = SplitMix64(options.seed);
        let nulls: Vec<HashMap<u64, u32>> = (0..options.nulls)
            .map(|_| count(&randomized_references(graph, options.swaps_per_edge, seeds.next_u64())))
            .collect();
        let k = nulls.len() as f64;
        let z = |key: u64| -> Option<f64> {
            if nulls.len() < 2 {
                return None;
            }
            let c = |null: &HashMap<u64, u32>| null.get(&key).copied().unwrap_or(0) as f64;
            let mean = nulls.iter().map(c).sum::<f64>() / k;
            let variance = nulls.iter().map(|n| (c(n) - mean).powi(2)).sum::<f64>() / (k - 1.0);
            let sd = variance.sqrt();
            (sd > 0.0).then(|| (observed[&key] as f64 - mean) / sd)
        };
        real.iter()
            .map(|list| {
                let mut scores = Vec::new();
                for_each_pair_of(list, &units, |_, key| scores.push(z(key).unwrap_or(f64::NAN)));
                paper_novelty(list.len(), &scores)
            })
            .collect()
    }

    #[test]
    fn partitions_and_spilled_nulls_give_identical_results() {
        let g = random_graph(5);
        for units in [Units::Venues, Units::References] {
            let options = Options { units, nulls: 6, ..Options::default() };
            let expected = direct_novelty(&g, &options);
            assert!(expected.iter().filter(|n| n.p10.is_some()).count() > 1_000, "{units:?}");
            let (whole, layout) = novelty_with_layout(&g, &options).unwrap();
            assert_eq!((layout.partitions, layout.nulls_on_disk), (1, false));
            assert_eq!(whole, expected, "{units:?}, one partition");
            // A budget of a few KiB: many partitions, the null graphs in temporary files.
            let tight = Options { memory_budget: 64 << 10, null_budget: 1 << 10, ..options };
            let (split, layout) = novelty_with_layout(&g, &tight).unwrap();
            assert!(layout.partitions > 20 && layout.nulls_on_disk, "{layout:?}");
            assert_eq!(split, expected, "{units:?}, {layout:?}");
        }
    }

    #[test]
    fn row_blocks_cover_every_row_once() {
        let offsets = [0u64, 3, 3, 10, 11, 30, 31];
        let blocks = row_blocks(&offsets, 5);
        assert_eq!(blocks, vec![(0, 3), (3, 5), (5, 6)]);
        assert_eq!(row_blocks(&[0], 5), vec![]);
    }

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert!((quantile(&v, 0.1) - 1.4).abs() < 1e-12);
        assert_eq!(quantile(&[7.0], 0.1), 7.0);
    }
}
