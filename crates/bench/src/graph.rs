//! Citation-graph benchmark: the CD index for every paper of a real corpus (AAN) against the plain
//! Python implementation (dict of sets) on the same machine in the same run, and CD plus novelty
//! on a synthetic preferential-attachment graph of any size, with time and peak memory.

use crate::peer::run_python;
use crate::{Error, Result};
use litnav_graph::disruption::disruption_all;
use litnav_graph::novelty::{self, novelty_all};
use litnav_graph::synthetic::preferential_attachment;
use litnav_graph::{Graph, NodeInfo};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// Timed repetitions on the real corpus, for litnav and for the peer (median reported).
const REPEATS: usize = 7;

const PEER_SCRIPT: &str = include_str!("../peers/graph_cd_peer.py");

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

/// CD (and novelty) for every paper of the corpus in `papers` + `citations`, against the Python
/// peer when `python` is given. The two must agree on every count; a disagreement is an error.
pub fn corpus(papers: &Path, citations: &Path, python: Option<&Path>) -> Result<CorpusReport> {
    let (nodes, edges) = read_corpus(papers, citations)?;
    let started = Instant::now();
    let borrowed: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let graph = Graph::build(nodes, &borrowed);
    let build_seconds = started.elapsed().as_secs_f64();
    // Median of REPEATS runs: one pass over AAN takes milliseconds, well within a noisy box's jitter.
    let timed = |threads: usize| {
        let mut seconds = Vec::new();
        let mut values = Vec::new();
        for _ in 0..REPEATS {
            let started = Instant::now();
            values = in_pool(threads, || disruption_all(&graph, None));
            seconds.push(started.elapsed().as_secs_f64());
        }
        seconds.sort_by(f64::total_cmp);
        (seconds[REPEATS / 2], values)
    };
    let (cd_seconds_one_thread, values) = timed(1);
    let (cd_seconds_all_threads, _) = timed(rayon::current_num_threads());
    let started = Instant::now();
    novelty_all(&graph, &novelty::Options::default());
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
    })
}

/// CD (and, unless `nulls` is 0, novelty) on a seeded preferential-attachment graph.
pub fn synthetic(papers: usize, refs: usize, nulls: usize, seed: u64) -> SyntheticReport {
    let started = Instant::now();
    let graph = preferential_attachment(papers, refs, seed);
    let generate_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let values = disruption_all(&graph, None);
    let cd_seconds = started.elapsed().as_secs_f64();
    drop(values);
    let peak_memory_mib_after_cd = peak_memory_mib();
    let novelty_seconds = (nulls > 0).then(|| {
        let options = novelty::Options { units: novelty::Units::References, nulls, ..novelty::Options::default() };
        let started = Instant::now();
        novelty_all(&graph, &options);
        started.elapsed().as_secs_f64()
    });
    SyntheticReport {
        papers: graph.len(),
        edges: graph.edge_count(),
        generate_seconds,
        cd_seconds,
        cd_papers_per_second: graph.len() as f64 / cd_seconds,
        novelty_seconds,
        peak_memory_mib_after_cd,
        peak_memory_mib_after_novelty: novelty_seconds.and_then(|_| peak_memory_mib()),
    }
}

/// Peak resident set size of this process in MiB, from /proc (Linux only).
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
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
        if let Some(s) = &self.synthetic {
            writeln!(f, "synthetic: {} papers, {} edges, generated in {:.2} s", s.papers, s.edges, s.generate_seconds)?;
            writeln!(f, "  CD for every paper: {:.2} s ({:.0} papers/s)", s.cd_seconds, s.cd_papers_per_second)?;
            if let Some(mib) = s.peak_memory_mib_after_cd {
                writeln!(f, "  peak memory of the process after CD: {mib:.0} MiB")?;
            }
            if let Some(seconds) = s.novelty_seconds {
                writeln!(f, "  novelty ({} null graphs, references as units): {seconds:.2} s", self.synthetic_nulls)?;
            }
            if let Some(mib) = s.peak_memory_mib_after_novelty {
                writeln!(f, "  peak memory after novelty: {mib:.0} MiB")?;
            }
        }
        Ok(())
    }
}
