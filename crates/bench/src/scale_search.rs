//! `litnav bench scale-search`: search and maps at the seeds' scale. ResearchArena searches 12.0M
//! papers; SciNet and Knowledge Navigator start from OpenAlex's 270M works. At each size a corpus
//! is made from the datasets' real papers with abstracts (litbench's, AAN's and CiteSeer's), as
//! `bench researcharena --distractors` makes its synthetic distractors — a real paper's title and
//! abstract with a share of its words swapped for another's, and as its vector the real paper's
//! MiniLM vector plus seeded noise, so that neighbourhoods look like real ones — written as a
//! papers file and a `.npy` of its vectors. Then each step runs as its own `litnav` process
//! reporting its peak resident memory — ingest (records and vectors), the dense index's build
//! (`litnav embed`), opening the corpus for one BM25 search, a map — and, in this process on the
//! corpus those steps built, BM25's latency over real titles and the approximate dense index's
//! recall@10 against exact search with both latencies, for the same titles encoded.

use crate::distractors::{Synthesizer, paper_line, real_distractors, real_vectors};
use crate::memory::{Measured, measure};
use crate::{Error, Result, percentile};
use litnav_app::{CorpusSession, Progress, Quiet, SearchRequest, Workspace};
use litnav_corpus::Paper;
use litnav_search::Filter;
use serde::Serialize;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The goals at every size, on a 2-core, 24 GiB machine.
pub mod goals {
    /// Ingest's peak resident memory, GiB.
    pub const INGEST_PEAK_GIB: f64 = 4.0;
    /// Opening a corpus (a process's whole run for one BM25 search), seconds.
    pub const OPEN_SECONDS: f64 = 2.0;
    /// Opening a corpus, peak resident memory, GiB.
    pub const OPEN_PEAK_GIB: f64 = 1.0;
    /// BM25's median latency, milliseconds.
    pub const BM25_P50_MS: f64 = 50.0;
    /// The approximate dense index's recall@10 against exact search.
    pub const DENSE_RECALL_AT_10: f64 = 0.95;
    /// The approximate dense index's median latency, milliseconds.
    pub const DENSE_P50_MS: f64 = 10.0;
    /// A map of 200 papers, seconds.
    pub const MAP_SECONDS: f64 = 10.0;
}

/// The topic of the map and the open step's search.
const TOPIC: &str = "statistical machine translation with neural language models";

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `litnav` binary each step runs.
    pub litnav: PathBuf,
    /// Corpus sizes in papers, ascending.
    pub sizes: Vec<usize>,
    /// Where the corpora are built (kept); a temporary directory when `None`.
    pub work: Option<PathBuf>,
    /// Queries (real titles) for the latencies and the recall.
    pub queries: usize,
    /// Seed of the synthetic papers and of the query sample.
    pub seed: u64,
}

/// One size, measured.
#[derive(Debug, Clone, Serialize)]
pub struct AtSize {
    /// Papers in the corpus.
    pub papers: usize,
    /// Seconds to write its papers file and vectors (not litnav's work; reported for scale).
    pub write_seconds: f64,
    /// `litnav ingest PAPERS --vectors VECTORS`.
    pub ingest: Measured,
    /// `litnav embed`: the rows file and the approximate index from the ingested vectors.
    pub index: Measured,
    /// `litnav search --mode bm25`: a process opening the corpus for one search.
    pub open: Measured,
    /// `litnav map --topic …` (up to 200 papers).
    pub map: Measured,
    /// BM25 median and 95th-percentile latency in an open session, milliseconds.
    pub bm25_p50_ms: f64,
    /// BM25's 95th percentile, milliseconds.
    pub bm25_p95_ms: f64,
    /// Mean recall@10 of the approximate dense index against exact search.
    pub dense_recall_at_10: f64,
    /// The approximate dense index's median latency, milliseconds.
    pub dense_p50_ms: f64,
    /// Exact dense search's median latency, milliseconds.
    pub exact_p50_ms: f64,
    /// The corpus directory's size on disk, MiB (records, indexes, vectors).
    pub disk_mib: f64,
}

/// The measurements.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every size, ascending.
    pub sizes: Vec<AtSize>,
    /// Queries per latency.
    pub queries: usize,
    /// Real papers the synthetic ones are made from.
    pub pool: usize,
}

/// Run every size.
pub fn run(workspace: &Workspace, options: &Options, progress: &dyn Progress) -> Result<Report> {
    let datasets = workspace.settings().datasets()?.to_path_buf();
    let pool = pool(&datasets)?;
    let shared = workspace.settings().home.join("corpora").join("distractor-vectors.bin");
    let cache = real_vectors(workspace, &shared, &pool, progress)?;
    let encoder = workspace.encoder(progress)?;
    let titles = query_titles(&pool, options.queries, options.seed);
    let query_vectors = encoder.embed(&titles);
    let (work, _scratch) = crate::work_dir(options.work.as_deref())?;
    let mut sizes = Vec::new();
    for &size in &options.sizes {
        let dir = work.join(format!("n{size}"));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, &e))?;
        progress.stage(&format!("{size} papers: writing the papers file and their vectors"));
        let started = Instant::now();
        let (papers_file, vectors_file) = write_inputs(&dir, &pool, &cache, size, options.seed)?;
        let write_seconds = started.elapsed().as_secs_f64();
        let corpus = dir.join("corpus");
        let _ = std::fs::remove_dir_all(&corpus);
        let step = |name: &str, args: &[&str]| -> Measured {
            progress.stage(&format!("{size} papers: {name}"));
            let mut command = Command::new(&options.litnav);
            command.args(args).args(["--corpus", path(&corpus)]).env_remove("LITNAV_CORPUS");
            measure(command)
        };
        let model = litnav_embed::MODEL_NAME;
        let ingest =
            step("ingest", &["ingest", path(&papers_file), "--vectors", path(&vectors_file), "--vectors-model", model]);
        if let Some(failed) = &ingest.failed {
            return Err(Error::internal(format!("ingest of {size} papers failed: {failed}")));
        }
        // The inputs are not needed once ingested: the disk holds the corpus instead.
        let _ = std::fs::remove_file(&papers_file);
        let _ = std::fs::remove_file(&vectors_file);
        let index = step("dense index (litnav embed)", &["embed"]);
        let open = step("open and search (BM25)", &["search", "-q", TOPIC, "-k", "10", "--mode", "bm25"]);
        let map_file = dir.join("map.json");
        let map = step("map", &["map", "--topic", TOPIC, "--out", path(&map_file)]);
        progress.stage(&format!("{size} papers: latencies and recall over {} titles", titles.len()));
        let session = CorpusSession::open(&corpus)?;
        let (bm25_p50_ms, bm25_p95_ms) = bm25_latency(&session, &titles)?;
        let dense = dense_recall(&session, encoder, &query_vectors)?;
        sizes.push(AtSize {
            papers: session.len(),
            write_seconds,
            ingest,
            index,
            open,
            map,
            bm25_p50_ms,
            bm25_p95_ms,
            dense_recall_at_10: dense.recall_at_10,
            dense_p50_ms: dense.approximate_p50_ms,
            exact_p50_ms: dense.exact_p50_ms,
            disk_mib: disk_mib(&corpus),
        });
    }
    Ok(Report { sizes, queries: titles.len(), pool: pool.len() })
}

/// The real papers synthetic ones are made from: litbench's, AAN's and CiteSeer's that have an
/// abstract (a corpus of titles alone would make records, indexes and searches lighter than the
/// seeds' corpora of titles and abstracts).
fn pool(datasets: &Path) -> Result<Vec<Paper>> {
    let mut pool = crate::search::load_papers(&[datasets.join("litbench/corpus.jsonl")])?;
    pool.extend(real_distractors(datasets)?);
    pool.retain(|paper| paper.abstract_text.as_deref().is_some_and(|text| !text.trim().is_empty()));
    Ok(pool)
}

/// `count` titles of the pool in a seeded order: real titles, whose synthetic neighbours the
/// corpora hold.
fn query_titles(pool: &[Paper], count: usize, seed: u64) -> Vec<String> {
    let titles: Vec<String> = pool.iter().map(|p| p.title.clone()).filter(|t| !t.trim().is_empty()).collect();
    crate::seeded_order(titles, seed).into_iter().take(count).collect()
}

/// The papers file and the `.npy` of their vectors for a corpus of `size` synthetic papers, written
/// as they are made (memory: one paper).
fn write_inputs(
    dir: &Path,
    pool: &[Paper],
    cache: &litnav_embed::cache::VectorCache,
    size: usize,
    seed: u64,
) -> Result<(PathBuf, PathBuf)> {
    let papers_file = dir.join("papers.jsonl");
    let vectors_file = dir.join("vectors.npy");
    let create = |path: &Path| {
        std::fs::File::create(path).map(|f| BufWriter::with_capacity(1 << 20, f)).map_err(|e| Error::io(path, &e))
    };
    let (mut papers, mut vectors) = (create(&papers_file)?, create(&vectors_file)?);
    vectors.write_all(&litnav_embed::npy::header(size, litnav_embed::DIM)).map_err(|e| Error::io(&vectors_file, &e))?;
    let mut maker = Synthesizer::new(pool, cache, seed);
    for i in 0..size {
        let (paper, vector) = maker.paper(i)?;
        writeln!(papers, "{}", paper_line(&paper)).map_err(|e| Error::io(&papers_file, &e))?;
        let bytes: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
        vectors.write_all(&bytes).map_err(|e| Error::io(&vectors_file, &e))?;
    }
    papers.flush().map_err(|e| Error::io(&papers_file, &e))?;
    vectors.flush().map_err(|e| Error::io(&vectors_file, &e))?;
    Ok((papers_file, vectors_file))
}

/// BM25's median and 95th-percentile latency over `titles`, milliseconds.
fn bm25_latency(session: &CorpusSession, titles: &[String]) -> Result<(f64, f64)> {
    let mut times = Vec::with_capacity(titles.len());
    for title in titles {
        let request = SearchRequest { k: 100, ..SearchRequest::new(title.clone()) };
        let started = Instant::now();
        session.search_lexical(&request)?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok((percentile(&times, 50.0), percentile(&times, 95.0)))
}

/// The approximate dense index against exact search.
struct DenseRecall {
    recall_at_10: f64,
    approximate_p50_ms: f64,
    exact_p50_ms: f64,
}

/// Recall@10 of the corpus's approximate index against exact search over every vector, and both
/// latencies, for `queries`.
fn dense_recall(session: &CorpusSession, encoder: &litnav_embed::Encoder, queries: &[Vec<f32>]) -> Result<DenseRecall> {
    let retriever = session.dense(encoder, &Quiet)?;
    let index = retriever.dense_index().ok_or_else(|| Error::input("the corpus has no paper vectors"))?;
    let ivf = retriever.ivf().ok_or_else(|| Error::input("the corpus has no approximate index"))?;
    let (truths, exact_p50_ms) = crate::dense::exact_truths(index, queries)?;
    let (recall_at_10, approximate_p50_ms) =
        crate::dense::measure(queries, &truths, |query| ivf.search(index, query, 10, Filter::default()))?;
    Ok(DenseRecall { recall_at_10, approximate_p50_ms, exact_p50_ms })
}

/// Bytes under `dir`, MiB.
fn disk_mib(dir: &Path) -> f64 {
    fn bytes(dir: &Path) -> u64 {
        std::fs::read_dir(dir).into_iter().flatten().flatten().fold(0, |sum, entry| {
            let size = match entry.file_type() {
                Ok(kind) if kind.is_dir() => bytes(&entry.path()),
                _ => entry.metadata().map_or(0, |m| m.len()),
            };
            sum + size
        })
    }
    bytes(dir) as f64 / (1 << 20) as f64
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// `value` against a goal it must stay under (or, `at_least`, reach).
fn verdict(value: Option<f64>, goal: f64, at_least: bool) -> &'static str {
    match value {
        None => "—",
        Some(v) if (at_least && v >= goal) || (!at_least && v <= goal) => "met",
        Some(_) => "missed",
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use goals::*;
        writeln!(
            f,
            "Search and maps at scale: synthetic papers made from {} real ones (their vectors from real MiniLM vectors), {} title queries",
            self.pool, self.queries
        )?;
        let gib = |m: &Measured| m.peak_mib.map(|mib| mib / 1024.0);
        let shown = |m: &Measured| match (&m.failed, m.peak_mib) {
            (Some(_), _) => "failed".to_string(),
            (None, Some(mib)) => format!("{:.1} s, {:.2} GiB", m.seconds, mib / 1024.0),
            (None, None) => format!("{:.1} s", m.seconds),
        };
        for size in &self.sizes {
            writeln!(
                f,
                "\n{} papers ({:.0} MiB on disk; inputs written in {:.0} s)",
                size.papers, size.disk_mib, size.write_seconds
            )?;
            let per_million = size.ingest.seconds / (size.papers as f64 / 1e6);
            let rows = [
                (
                    "ingest",
                    format!("{} ({per_million:.0} s per million)", shown(&size.ingest)),
                    verdict(gib(&size.ingest), INGEST_PEAK_GIB, false),
                    format!("peak ≤ {INGEST_PEAK_GIB} GiB"),
                ),
                ("dense index build", shown(&size.index), "", String::new()),
                (
                    "open + one BM25 search",
                    shown(&size.open),
                    if verdict(Some(size.open.seconds), OPEN_SECONDS, false) == "met" {
                        verdict(gib(&size.open), OPEN_PEAK_GIB, false)
                    } else {
                        "missed"
                    },
                    format!("≤ {OPEN_SECONDS} s and ≤ {OPEN_PEAK_GIB} GiB"),
                ),
                (
                    "BM25 (k 100)",
                    format!("p50 {:.1} ms, p95 {:.1} ms", size.bm25_p50_ms, size.bm25_p95_ms),
                    verdict(Some(size.bm25_p50_ms), BM25_P50_MS, false),
                    format!("p50 ≤ {BM25_P50_MS} ms"),
                ),
                (
                    "dense, approximate",
                    format!(
                        "recall@10 {:.3}, p50 {:.1} ms (exact {:.1} ms)",
                        size.dense_recall_at_10, size.dense_p50_ms, size.exact_p50_ms
                    ),
                    if verdict(Some(size.dense_recall_at_10), DENSE_RECALL_AT_10, true) == "met" {
                        verdict(Some(size.dense_p50_ms), DENSE_P50_MS, false)
                    } else {
                        "missed"
                    },
                    format!("recall ≥ {DENSE_RECALL_AT_10} at p50 ≤ {DENSE_P50_MS} ms"),
                ),
                (
                    "map (≤ 200 papers)",
                    shown(&size.map),
                    verdict(size.map.failed.is_none().then_some(size.map.seconds), MAP_SECONDS, false),
                    format!("≤ {MAP_SECONDS} s"),
                ),
            ];
            for (step, measured, verdict, goal) in rows {
                writeln!(f, "  {step:<24} {measured:<52} {verdict:<7} {goal}")?;
            }
            for (step, m) in
                [("ingest", &size.ingest), ("index", &size.index), ("open", &size.open), ("map", &size.map)]
            {
                if let Some(failed) = &m.failed {
                    let shown: String = failed.chars().take(300).collect();
                    writeln!(f, "  {step} failed: {shown}")?;
                }
            }
        }
        Ok(())
    }
}
