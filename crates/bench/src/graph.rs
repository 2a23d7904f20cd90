//! Citation-graph benchmark: the CD index for every paper of a real corpus (AAN) against its
//! authors' own package (`cdindex`, C; every value at three windows, and the time) and against
//! the plain Python implementation (dict of sets) on the same machine in the same run, and CD
//! plus novelty on a synthetic preferential-attachment graph of any size, with time and peak
//! memory.

use crate::peer::run_python;
use crate::{Error, Result};
use litnav_graph::disruption::{CdOptions, Disruption, disruption_all};
use litnav_graph::novelty::{self, novelty_all};
use litnav_graph::synthetic::preferential_attachment;
use litnav_graph::{Graph, NodeInfo};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// Timed repetitions on the real corpus, for litnav and for the peer (median reported).
const REPEATS: usize = 7;

const PEER_SCRIPT: &str = include_str!("../peers/graph_cd_peer.py");
const CDINDEX_SCRIPT: &str = include_str!("../peers/graph_cdindex_peer.py");

/// The windows compared with `cdindex`, in years (1000 reaches past every paper).
const CDINDEX_WINDOWS: [u32; 3] = [5, 10, 1000];

/// Timings on a real corpus.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusReport {
    /// Papers.
    pub papers: usize,
    /// Citation edges.
    pub edges: usize,
    /// Building the graph from the parsed records, seconds.
    pub build_seconds: f64,
    /// CD for every paper on one thread, seconds (median of 7 runs).
    pub cd_seconds_one_thread: f64,
    /// CD for every paper on every core, seconds.
    pub cd_seconds_all_threads: f64,
    /// Novelty (10 null graphs) for every paper on every core, seconds.
    pub novelty_seconds: f64,
    /// Papers with a CD value.
    pub cd_defined: usize,
    /// The Python peer, when run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<PeerReport>,
    /// Python CD seconds / litnav one-thread CD seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup_one_thread: Option<f64>,
    /// Python CD seconds / litnav all-threads CD seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup_all_threads: Option<f64>,
    /// The `cdindex` package beside litnav, when it ran (or why it did not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cdindex: Option<std::result::Result<CdindexComparison, String>>,
}

/// The CD index's authors' package against litnav on every paper.
#[derive(Debug, Clone, Serialize)]
pub struct CdindexComparison {
    /// The package and its version.
    pub package: String,
    /// Building the package's graph, seconds.
    pub build_seconds: f64,
    /// Per window.
    pub windows: Vec<CdindexWindow>,
    /// Papers whose mCD (first window) differs by more than 1e-9.
    pub mcd_differing: usize,
    /// Papers whose I-index (first window) differs.
    pub i_index_differing: usize,
}

/// One window of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct CdindexWindow {
    /// Δ in years.
    pub delta: u32,
    /// Papers compared.
    pub papers: usize,
    /// Papers with a value in the package.
    pub defined: usize,
    /// Papers whose value differs by more than 1e-12, or is defined on one side only.
    pub differing: usize,
    /// Largest |litnav − package| over papers both define.
    pub max_difference: f64,
    /// The package: CD for every paper, seconds (median).
    pub package_seconds: f64,
    /// litnav on one thread, seconds (median).
    pub litnav_seconds: f64,
    /// package ÷ litnav.
    pub speedup: f64,
}

#[derive(Debug, Deserialize)]
struct CdindexPeer {
    package: String,
    build_seconds: f64,
    ids: Vec<String>,
    windows: Vec<PeerWindow>,
    mcd: Vec<Option<f64>>,
    /// The package returns the I-index as a float.
    i_index: Vec<f64>,
}

#[derive(Debug, Deserialize)]
struct PeerWindow {
    delta: u32,
    seconds: f64,
    cd: Vec<Option<f64>>,
}

/// What the Python peer reported.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PeerReport {
    /// Building its dicts of sets, seconds.
    pub build_seconds: f64,
    /// CD for every paper, seconds (median of 7 runs).
    pub cd_seconds: f64,
    /// Papers with a CD value.
    pub defined: usize,
    /// Sum of CD values (checked against litnav's).
    pub cd_sum: f64,
    /// Sum of n_i + n_j + n_k (checked exactly).
    pub count_sum: u64,
}

/// Timings on a synthetic graph.
#[derive(Debug, Clone, Serialize)]
pub struct SyntheticReport {
    /// Papers.
    pub papers: usize,
    /// Citation edges.
    pub edges: usize,
    /// Generating the graph, seconds.
    pub generate_seconds: f64,
    /// CD for every paper on every core, seconds.
    pub cd_seconds: f64,
    /// Papers per second for CD.
    pub cd_papers_per_second: f64,
    /// Novelty for every paper (units = references, `nulls` null graphs), seconds; absent when skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub novelty_seconds: Option<f64>,
    /// Peak resident memory of the process after generating the graph and computing CD, MiB
    /// (Linux VmHWM).
    pub peak_memory_mib_after_cd: Option<f64>,
    /// Peak resident memory after novelty too, MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_memory_mib_after_novelty: Option<f64>,
    /// Resident memory when novelty started (the graph and what CD left), MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_mib_before_novelty: Option<f64>,
    /// Peak resident memory during novelty alone (the high-water mark reset when it started), MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_memory_mib_during_novelty: Option<f64>,
    /// How novelty laid out its pair counts under its budgets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub novelty_layout: Option<novelty::Layout>,
}

fn in_pool<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

/// Nodes and (citing, cited) id pairs.
type Records = (Vec<NodeInfo>, Vec<(String, String)>);

/// Read a corpus's papers (their id, year and venue) and a `citing_id,cited_id` edge list with
/// litnav's own readers.
fn read_corpus(papers: &Path, citations: &Path) -> Result<Records> {
    use litnav_corpus::readers::{Item, read_file};
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for file in [papers, citations] {
        for item in read_file(file, litnav_corpus::ReadOptions::default())?.items {
            match item {
                Item::Paper(record) => nodes.push(NodeInfo {
                    date: record.paper.date.as_deref().and_then(litnav_core::date::Date::parse).map(|d| d.days()),
                    id: record.paper.id,
                    year: record.paper.year,
                    venue: record.paper.venue,
                    external_references: 0,
                }),
                Item::Edge(edge) => edges.push((edge.citing, edge.cited)),
                Item::Topic(_) => {}
            }
        }
    }
    Ok((nodes, edges))
}

/// Median seconds of `REPEATS` runs of CD for every paper on `threads` threads, and the values.
fn timed_cd(graph: &Graph, options: CdOptions, threads: usize) -> (f64, Vec<Disruption>) {
    let mut seconds = Vec::new();
    let mut values = Vec::new();
    for _ in 0..REPEATS {
        let started = Instant::now();
        values = in_pool(threads, || disruption_all(graph, options));
        seconds.push(started.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    (seconds[REPEATS / 2], values)
}

/// litnav against `cdindex` in `python` on every paper, at each of [`CDINDEX_WINDOWS`].
fn against_cdindex(graph: &Graph, papers: &Path, citations: &Path, python: &Path) -> Result<CdindexComparison> {
    let job = serde_json::json!({
        "papers": papers, "citations": citations, "deltas": CDINDEX_WINDOWS, "repeats": 3,
    });
    let peer: CdindexPeer = run_python(python, CDINDEX_SCRIPT, &job, "pip install cdindex==1.0.20")?;
    let nodes: Vec<litnav_graph::Node> = peer
        .ids
        .iter()
        .map(|id| graph.node(id))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::unavailable(e.to_string()))?;
    let mut windows = Vec::new();
    let mut first = Vec::new();
    for window in &peer.windows {
        let (litnav_seconds, values) = timed_cd(graph, CdOptions::window(window.delta), 1);
        let (mut differing, mut max_difference) = (0, 0.0f64);
        for (&node, expected) in nodes.iter().zip(&window.cd) {
            match (values[node as usize].cd, expected) {
                (Some(a), Some(b)) => {
                    max_difference = max_difference.max((a - b).abs());
                    differing += usize::from((a - b).abs() > 1e-12);
                }
                (None, None) => {}
                _ => differing += 1,
            }
        }
        windows.push(CdindexWindow {
            delta: window.delta,
            papers: nodes.len(),
            defined: window.cd.iter().filter(|v| v.is_some()).count(),
            differing,
            max_difference,
            package_seconds: window.seconds,
            litnav_seconds,
            speedup: window.seconds / litnav_seconds,
        });
        if first.is_empty() {
            first = values;
        }
    }
    let mcd_differing = nodes
        .iter()
        .zip(&peer.mcd)
        .filter(|&(&node, expected)| match (first[node as usize].mcd, expected) {
            (Some(a), Some(b)) => (a - b).abs() > 1e-9,
            (a, b) => a.is_some() != b.is_some(),
        })
        .count();
    let i_index_differing = nodes
        .iter()
        .zip(&peer.i_index)
        .filter(|&(&node, &expected)| first[node as usize].i_index as f64 != expected)
        .count();
    Ok(CdindexComparison {
        package: peer.package,
        build_seconds: peer.build_seconds,
        windows,
        mcd_differing,
        i_index_differing,
    })
}

/// CD (and novelty) for every paper of the corpus in `papers` + `citations`, against the Python
/// peers when `python` is given: the dict-of-sets implementation must agree on every count (a
/// disagreement is an error); `cdindex`, when that Python has it, is compared value by value.
pub fn corpus(papers: &Path, citations: &Path, python: Option<&Path>) -> Result<CorpusReport> {
    let (nodes, edges) = read_corpus(papers, citations)?;
    let started = Instant::now();
    let borrowed: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let graph = Graph::build(nodes, &borrowed);
    let build_seconds = started.elapsed().as_secs_f64();
    // Median of REPEATS runs: one pass over AAN takes milliseconds, well within a noisy box's jitter.
    let (cd_seconds_one_thread, values) = timed_cd(&graph, CdOptions::default(), 1);
    let (cd_seconds_all_threads, _) = timed_cd(&graph, CdOptions::default(), rayon::current_num_threads());
    let started = Instant::now();
    novelty_all(&graph, &novelty::Options::default())?;
    let novelty_seconds = started.elapsed().as_secs_f64();
    let cd_defined = values.iter().filter(|d| d.cd.is_some()).count();
    let peer = match python {
        None => None,
        Some(python) => {
            let job = serde_json::json!({ "papers": papers, "citations": citations, "repeats": REPEATS });
            let report: PeerReport = run_python(python, PEER_SCRIPT, &job, "any Python 3")?;
            let count_sum: u64 = values.iter().filter(|d| d.undefined.is_none()).map(|d| d.n_i + d.n_j + d.n_k).sum();
            let cd_sum: f64 = values.iter().filter_map(|d| d.cd).sum();
            if report.defined != cd_defined || report.count_sum != count_sum || (report.cd_sum - cd_sum).abs() > 1e-6 {
                return Err(Error::unavailable(format!(
                    "the Python peer disagrees: {} defined / count sum {} / CD sum {} against litnav's {cd_defined} / {count_sum} / {cd_sum}",
                    report.defined, report.count_sum, report.cd_sum
                )));
            }
            Some(report)
        }
    };
    Ok(CorpusReport {
        papers: graph.len(),
        edges: graph.edge_count(),
        build_seconds,
        cd_seconds_one_thread,
        cd_seconds_all_threads,
        novelty_seconds,
        cd_defined,
        speedup_one_thread: peer.as_ref().map(|p| p.cd_seconds / cd_seconds_one_thread),
        speedup_all_threads: peer.as_ref().map(|p| p.cd_seconds / cd_seconds_all_threads),
        peer,
        cdindex: python.map(|python| against_cdindex(&graph, papers, citations, python).map_err(|e| e.to_string())),
    })
}

/// CD (and, unless `nulls` is 0, novelty within `budget` bytes per partition and for the null
/// graphs) on a seeded preferential-attachment graph.
pub fn synthetic(papers: usize, refs: usize, nulls: usize, budget: usize, seed: u64) -> Result<SyntheticReport> {
    use litnav_core::memory;
    let started = Instant::now();
    let graph = preferential_attachment(papers, refs, seed);
    let generate_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let values = disruption_all(&graph, CdOptions::default());
    let cd_seconds = started.elapsed().as_secs_f64();
    drop(values);
    let peak_memory_mib_after_cd = memory::peak_resident_mib();
    let mut report = SyntheticReport {
        papers: graph.len(),
        edges: graph.edge_count(),
        generate_seconds,
        cd_seconds,
        cd_papers_per_second: graph.len() as f64 / cd_seconds,
        novelty_seconds: None,
        peak_memory_mib_after_cd,
        peak_memory_mib_after_novelty: None,
        memory_mib_before_novelty: None,
        peak_memory_mib_during_novelty: None,
        novelty_layout: None,
    };
    if nulls > 0 {
        let options = novelty::Options {
            units: novelty::Units::References,
            nulls,
            memory_budget: budget,
            null_budget: budget,
            ..novelty::Options::default()
        };
        report.memory_mib_before_novelty = memory::resident_mib();
        let reset = memory::reset_peak();
        let started = Instant::now();
        let (_, layout) = novelty::novelty_with_layout(&graph, &options)?;
        report.novelty_seconds = Some(started.elapsed().as_secs_f64());
        report.novelty_layout = Some(layout);
        report.peak_memory_mib_during_novelty = memory::peak_resident_mib().filter(|_| reset);
        report.peak_memory_mib_after_novelty =
            memory::peak_resident_mib().map(|p| p.max(peak_memory_mib_after_cd.unwrap_or(0.0)));
    }
    Ok(report)
}

/// The graph benchmark: AAN against the peer, and the synthetic graph.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// AAN.
    pub aan: CorpusReport,
    /// The synthetic graph, when it ran.
    pub synthetic: Option<SyntheticReport>,
    /// Null graphs of novelty on the synthetic graph.
    #[serde(skip)]
    pub synthetic_nulls: usize,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = &self.aan;
        writeln!(f, "AAN: {} papers, {} edges; graph built in {:.3} s", a.papers, a.edges, a.build_seconds)?;
        writeln!(
            f,
            "  CD for every paper: {:.4} s on 1 thread, {:.4} s on all; {} papers have a value",
            a.cd_seconds_one_thread, a.cd_seconds_all_threads, a.cd_defined
        )?;
        writeln!(f, "  novelty (10 null graphs): {:.3} s", a.novelty_seconds)?;
        if let (Some(peer), Some(one), Some(all)) = (&a.peer, a.speedup_one_thread, a.speedup_all_threads) {
            writeln!(
                f,
                "  Python dict-of-sets: {:.3} s for CD (same values); litnav {one:.0}x faster on 1 thread, {all:.0}x on all",
                peer.cd_seconds
            )?;
        }
        match &a.cdindex {
            Some(Ok(c)) => {
                writeln!(
                    f,
                    "  {} (the CD index's authors' C code), graph built in {:.2} s:",
                    c.package, c.build_seconds
                )?;
                writeln!(
                    f,
                    "    {:>6} {:>8} {:>9} {:>10} {:>12} {:>10} {:>8}",
                    "Δ", "defined", "differing", "max |diff|", "cdindex s", "litnav s", "ratio"
                )?;
                for w in &c.windows {
                    writeln!(
                        f,
                        "    {:>6} {:>8} {:>9} {:>10.1e} {:>12.3} {:>10.4} {:>7.0}x",
                        w.delta,
                        w.defined,
                        w.differing,
                        w.max_difference,
                        w.package_seconds,
                        w.litnav_seconds,
                        w.speedup
                    )?;
                }
                writeln!(
                    f,
                    "    mCD differing: {}, I-index differing: {} (Δ = {})",
                    c.mcd_differing, c.i_index_differing, CDINDEX_WINDOWS[0]
                )?;
            }
            Some(Err(why)) => writeln!(f, "  cdindex not run: {why}")?,
            None => {}
        }
        if let Some(s) = &self.synthetic {
            writeln!(f, "synthetic: {} papers, {} edges, generated in {:.2} s", s.papers, s.edges, s.generate_seconds)?;
            writeln!(f, "  CD for every paper: {:.2} s ({:.0} papers/s)", s.cd_seconds, s.cd_papers_per_second)?;
            if let Some(mib) = s.peak_memory_mib_after_cd {
                writeln!(f, "  peak memory of the process after CD: {mib:.0} MiB")?;
            }
            if let Some(seconds) = s.novelty_seconds {
                writeln!(f, "  novelty ({} null graphs, references as units): {seconds:.2} s", self.synthetic_nulls)?;
            }
            if let Some(layout) = &s.novelty_layout {
                writeln!(
                    f,
                    "  novelty layout: {} reference pairs, {} distinct unit pairs, {} partition(s), null graphs {}",
                    layout.pair_slots,
                    layout.distinct_pairs,
                    layout.partitions,
                    if layout.nulls_on_disk { "in temporary files" } else { "in memory" }
                )?;
            }
            if let (Some(before), Some(peak)) = (s.memory_mib_before_novelty, s.peak_memory_mib_during_novelty) {
                writeln!(f, "  memory during novelty: {before:.0} MiB resident at its start, peak {peak:.0} MiB")?;
            }
            if let Some(mib) = s.peak_memory_mib_after_novelty {
                writeln!(f, "  peak memory of the process after novelty: {mib:.0} MiB")?;
            }
        }
        Ok(())
    }
}
