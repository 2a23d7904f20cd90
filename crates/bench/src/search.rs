//! The lexical search benchmark: index build throughput and query latency, on a real corpus and
//! on a larger one synthesized from it.
//!
//! The synthetic corpus replicates the real papers with fresh ids (`<id>~r<N>`) until it reaches
//! the requested size. Replication keeps the vocabulary and the length distribution real, while
//! every term's document frequency grows with the copies: the postings lists are those of a
//! corpus that size, so query cost scales as it would.

use crate::{Error, Result, median, percentile};
use litnav_corpus::{Catalog, MergeReport, Paper, ReadOptions, readers};
use litnav_search::{BuildOptions, LexicalIndex, SearchQuery};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// Paper files (any format litnav ingests).
    pub papers: Vec<PathBuf>,
    /// Query texts; when empty, titles sampled evenly from the corpus.
    pub queries: Vec<String>,
    /// How many queries to sample when `queries` is empty.
    pub sample_queries: usize,
    /// Size of the synthetic corpus (0 = skip).
    pub synthetic_size: usize,
    /// Index builds per corpus (the median is reported).
    pub build_repeats: usize,
    /// Passes over the query set (latencies of all passes are pooled).
    pub query_passes: usize,
    /// Hits per query.
    pub k: usize,
    /// Also run the Python peer (bm25s) on the same corpora and queries.
    pub peer: bool,
}

/// Build and query numbers for one corpus, litnav's or the peer's.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Measurement {
    /// Papers indexed.
    pub papers: usize,
    /// Median index build time, seconds.
    pub build_seconds: f64,
    /// Papers indexed per second (from the median build).
    pub docs_per_second: f64,
    /// Queries timed.
    pub queries: usize,
    /// Median query latency, milliseconds.
    pub p50_ms: f64,
    /// 99th percentile query latency, milliseconds.
    pub p99_ms: f64,
}

/// litnav's numbers for one corpus, with the peer's beside them when it ran.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusReport {
    /// Which corpus.
    pub name: String,
    /// litnav's numbers.
    #[serde(flatten)]
    pub litnav: Measurement,
    /// Mean query latency, milliseconds.
    pub mean_ms: f64,
    /// The Python peer's numbers on the same corpus, when it ran.
    pub peer: Option<PeerNumbers>,
}

/// The peer's numbers for one corpus and litnav's speed-up over it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct PeerNumbers {
    /// The peer's numbers.
    #[serde(flatten)]
    pub measured: Measurement,
    /// litnav build throughput ÷ peer build throughput (filled in by litnav).
    #[serde(default)]
    pub build_speedup: f64,
    /// Peer p50 ÷ litnav p50 (filled in by litnav).
    #[serde(default)]
    pub p50_speedup: f64,
}

/// The full report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The peer library and version, when the peer ran.
    pub peer_library: Option<String>,
    /// Hits per query.
    pub k: usize,
    /// Indexing threads.
    pub threads: usize,
    /// One entry per corpus.
    pub corpora: Vec<CorpusReport>,
}

/// Load papers from files through the same readers and merge rules as `litnav ingest`.
pub fn load_papers(files: &[PathBuf]) -> Result<Vec<Paper>> {
    let mut catalog = Catalog::default();
    let mut report = MergeReport::default();
    for file in files {
        let contents = readers::read_file(file, ReadOptions::default())?;
        catalog.merge(contents.items, &mut report)?;
    }
    Ok(catalog.into_parts()?.0)
}

/// `papers` replicated with fresh ids up to `size` papers.
pub fn synthesize(papers: &[Paper], size: usize) -> Vec<Paper> {
    (0..size)
        .map(|i| {
            let mut paper = papers[i % papers.len()].clone();
            let copy = i / papers.len();
            if copy > 0 {
                paper.id = format!("{}~r{copy}", paper.id);
            }
            paper
        })
        .collect()
}

/// Run the benchmark.
pub fn run(options: &Options) -> Result<Report> {
    let papers = load_papers(&options.papers)?;
    if papers.is_empty() {
        return Err(Error::input("the benchmark corpus holds no papers"));
    }
    let queries = if options.queries.is_empty() {
        let step = (papers.len() / options.sample_queries.max(1)).max(1);
        papers.iter().step_by(step).take(options.sample_queries).map(|p| p.title.clone()).collect()
    } else {
        options.queries.clone()
    };
    let mut corpora = vec![measure("real", &papers, &queries, options)?];
    if options.synthetic_size > 0 {
        let synthetic = synthesize(&papers, options.synthetic_size);
        corpora.push(measure("synthetic", &synthetic, &queries, options)?);
    }
    let mut peer_library = None;
    if options.peer {
        let (library, numbers) = run_peer(&papers, &queries, &corpora, options)?;
        peer_library = Some(library);
        for (corpus, mut peer) in corpora.iter_mut().zip(numbers) {
            peer.build_speedup = corpus.litnav.docs_per_second / peer.measured.docs_per_second.max(1e-9);
            peer.p50_speedup = peer.measured.p50_ms / corpus.litnav.p50_ms.max(1e-9);
            corpus.peer = Some(peer);
        }
    }
    Ok(Report { peer_library, k: options.k, threads: BuildOptions::default().threads, corpora })
}

fn measure(name: &str, papers: &[Paper], queries: &[String], options: &Options) -> Result<CorpusReport> {
    let mut build_times = Vec::new();
    let mut kept = None;
    for _ in 0..options.build_repeats.max(1) {
        let dir = tempfile::tempdir()?;
        let stats = LexicalIndex::build(dir.path(), papers, BuildOptions::default())?;
        build_times.push(stats.seconds);
        kept = Some(dir);
    }
    let dir = kept.ok_or_else(|| Error::input("no build ran"))?;
    let index = LexicalIndex::open(dir.path())?;
    let mut latencies = Vec::new();
    for pass in 0..options.query_passes.max(1) + 1 {
        for text in queries {
            let query = SearchQuery { k: options.k, ..SearchQuery::new(text.clone()) };
            let started = Instant::now();
            let hits = match index.search(&query) {
                Ok(hits) => hits,
                Err(litnav_search::Error::EmptyQuery { .. }) => continue,
                Err(e) => return Err(e.into()),
            };
            let elapsed = started.elapsed().as_secs_f64() * 1e3;
            std::hint::black_box(hits);
            // Pass 0 warms the page cache and the doc store; it is not timed.
            if pass > 0 {
                latencies.push(elapsed);
            }
        }
    }
    latencies.sort_by(f64::total_cmp);
    let build_seconds = median(&build_times);
    Ok(CorpusReport {
        name: name.to_string(),
        litnav: Measurement {
            papers: papers.len(),
            build_seconds,
            docs_per_second: papers.len() as f64 / build_seconds.max(1e-9),
            queries: latencies.len(),
            p50_ms: percentile(&latencies, 50.0),
            p99_ms: percentile(&latencies, 99.0),
        },
        mean_ms: latencies.iter().sum::<f64>() / latencies.len().max(1) as f64,
        peer: None,
    })
}

/// The peer script, shipped inside the binary so the benchmark runs from any directory.
const PEER_SCRIPT: &str = include_str!("../peers/bm25s_peer.py");

/// Run the Python peer on the same papers (replicated to the same sizes) and queries.
fn run_peer(
    papers: &[Paper],
    queries: &[String],
    corpora: &[CorpusReport],
    options: &Options,
) -> Result<(String, Vec<PeerNumbers>)> {
    use std::io::Write;
    let scratch = tempfile::tempdir()?;
    let papers_path = scratch.path().join("papers.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&papers_path)?);
    for paper in papers {
        let line = serde_json::json!({"title": paper.title, "abstract": paper.abstract_text});
        writeln!(file, "{line}")?;
    }
    file.flush()?;
    drop(file);
    let job = serde_json::json!({
        "papers": papers_path,
        "sizes": corpora.iter().map(|c| c.litnav.papers).collect::<Vec<_>>(),
        "queries": queries,
        "k": options.k,
        "builds": options.build_repeats.max(1),
        "passes": options.query_passes.max(1),
    });
    #[derive(serde::Deserialize)]
    struct PeerReport {
        library: String,
        corpora: Vec<PeerNumbers>,
    }
    let report: PeerReport =
        crate::peer::run_python(std::path::Path::new("python3"), PEER_SCRIPT, &job, "pip install bm25s PyStemmer")?;
    Ok((report.library, report.corpora))
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "lexical search benchmark (k = {}, {} indexing threads)", self.k, self.threads)?;
        writeln!(
            f,
            "{:<10} {:>8} {:>10} {:>12} {:>8} {:>9} {:>9}",
            "corpus", "papers", "build s", "papers/s", "queries", "p50 ms", "p99 ms"
        )?;
        let row = |name: &str, m: &Measurement| {
            format!(
                "{:<10} {:>8} {:>10.3} {:>12.0} {:>8} {:>9.3} {:>9.3}",
                name, m.papers, m.build_seconds, m.docs_per_second, m.queries, m.p50_ms, m.p99_ms
            )
        };
        for c in &self.corpora {
            writeln!(f, "{}", row(&c.name, &c.litnav))?;
        }
        if let Some(library) = &self.peer_library {
            writeln!(f, "peer: {library} (Python), same corpora and queries")?;
            for c in &self.corpora {
                if let Some(p) = &c.peer {
                    writeln!(
                        f,
                        "{}   litnav is {:.1}x faster to build, {:.1}x faster per query (p50)",
                        row(&c.name, &p.measured),
                        p.build_speedup,
                        p.p50_speedup
                    )?;
                }
            }
        }
        Ok(())
    }
}
