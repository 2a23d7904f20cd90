//! Dense retrieval benchmark: exact search versus the IVF index on a corpus's real vectors —
//! recall@10 of IVF against exact, and per-query latency of both — with the probed documents
//! scored in full precision and on int8 vectors with several numbers of rescored candidates
//! (what chose the default, [`litnav_search::ivf::RESCORED_AT_LEAST`]).

use crate::{Result, percentile};
use litnav_search::dense::DenseIndex;
use litnav_search::ivf::{IvfIndex, IvfOptions, Rescoring};
use litnav_search::{Filter, Hit};
use serde::Serialize;
use std::collections::HashSet;
use std::time::Instant;

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Papers indexed.
    pub papers: usize,
    /// IVF clusters.
    pub lists: usize,
    /// Clusters probed per query.
    pub probes: usize,
    /// IVF build time, seconds.
    pub build_seconds: f64,
    /// Queries.
    pub queries: usize,
    /// Mean recall@10 of IVF against exact search.
    pub recall_at_10: f64,
    /// Exact search p50, milliseconds.
    pub exact_p50_ms: f64,
    /// IVF p50, milliseconds.
    pub ivf_p50_ms: f64,
    /// Recall@10 and p50 of each way of scoring the probed documents.
    pub rescoring: Vec<RescoringRow>,
}

/// One way of scoring the probed documents, measured.
#[derive(Debug, Clone, Serialize)]
pub struct RescoringRow {
    /// `full precision`, or `int8, N rescored`.
    pub scoring: String,
    /// Mean recall@10 against exact search.
    pub recall_at_10: f64,
    /// p50, milliseconds.
    pub p50_ms: f64,
}

/// The scorings compared: full precision, then int8 with 10 (none beyond the hits), 20, 40 (the
/// default) and 80 candidates rescored.
const SCORINGS: [Rescoring; 5] = [
    Rescoring::FullPrecision,
    Rescoring::Candidates(10),
    Rescoring::Candidates(20),
    Rescoring::Default,
    Rescoring::Candidates(80),
];

/// Measure with `queries` (unit vectors) and IVF `options`.
pub fn run(index: &DenseIndex, queries: &[Vec<f32>], options: IvfOptions) -> Result<Report> {
    let started = Instant::now();
    let ivf = IvfIndex::build(index, options);
    let build_seconds = started.elapsed().as_secs_f64();
    let (truths, exact_p50_ms) = exact_truths(index, queries)?;
    let (recall_at_10, ivf_p50_ms) =
        measure(queries, &truths, |query| ivf.search(index, query, 10, Filter::default()))?;
    let mut rescoring = Vec::new();
    let mut ivf = ivf;
    for scoring in SCORINGS {
        ivf = ivf.with_rescoring(scoring);
        let (recall_at_10, p50_ms) =
            measure(queries, &truths, |query| ivf.search(index, query, 10, Filter::default()))?;
        let scoring = match scoring {
            Rescoring::FullPrecision => "full precision".to_string(),
            Rescoring::Default => format!("int8, {} rescored (default)", litnav_search::ivf::RESCORED_AT_LEAST),
            Rescoring::Candidates(n) => format!("int8, {n} rescored"),
        };
        rescoring.push(RescoringRow { scoring, recall_at_10, p50_ms });
    }
    Ok(Report {
        papers: index.len(),
        lists: ivf.lists(),
        probes: options.probes,
        build_seconds,
        queries: queries.len(),
        recall_at_10,
        exact_p50_ms,
        ivf_p50_ms,
        rescoring,
    })
}

/// Each query's exact top 10 (ids), and exact search's p50 in milliseconds.
pub fn exact_truths(index: &DenseIndex, queries: &[Vec<f32>]) -> Result<(Vec<HashSet<String>>, f64)> {
    let mut times = Vec::with_capacity(queries.len());
    let truths = queries
        .iter()
        .map(|query| {
            let started = Instant::now();
            let exact = index.search(query, 10, Filter::default())?;
            times.push(started.elapsed().as_secs_f64() * 1e3);
            Ok(exact.into_iter().map(|h| h.id).collect())
        })
        .collect::<Result<Vec<_>>>()?;
    times.sort_by(f64::total_cmp);
    Ok((truths, percentile(&times, 50.0)))
}

/// Mean recall@10 of `search` against each query's exact top 10 (`truths`), and its p50 in
/// milliseconds.
pub fn measure(
    queries: &[Vec<f32>],
    truths: &[HashSet<String>],
    search: impl Fn(&[f32]) -> litnav_search::Result<Vec<Hit>>,
) -> Result<(f64, f64)> {
    let (mut times, mut recall) = (Vec::with_capacity(queries.len()), 0.0);
    for (query, truth) in queries.iter().zip(truths) {
        let t = Instant::now();
        let hits = search(query)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        recall += hits.iter().filter(|h| truth.contains(&h.id)).count() as f64 / truth.len().max(1) as f64;
    }
    times.sort_by(f64::total_cmp);
    Ok((recall / queries.len().max(1) as f64, percentile(&times, 50.0)))
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} papers, IVF {} lists / {} probes (built in {:.2} s): recall@10 {:.3} over {} queries; p50 exact {:.3} ms, IVF {:.3} ms",
            self.papers,
            self.lists,
            self.probes,
            self.build_seconds,
            self.recall_at_10,
            self.queries,
            self.exact_p50_ms,
            self.ivf_p50_ms
        )?;
        for row in &self.rescoring {
            writeln!(f, "  {:<32} recall@10 {:.3}, p50 {:.3} ms", row.scoring, row.recall_at_10, row.p50_ms)?;
        }
        Ok(())
    }
}

/// What `run_session` measures.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Queries: titles sampled evenly from the corpus, embedded.
    pub queries: usize,
    /// IVF lists (default for the size).
    pub lists: Option<usize>,
    /// Lists probed (default for the lists).
    pub probes: Option<usize>,
    /// Measure on this many synthetic vectors made from the corpus's ([`synthetic`]).
    pub synthetic: Option<usize>,
}

/// Standard deviation per dimension of the noise added to a real vector (before it is
/// normalized again): its neighbours stay near, as a paper's near-duplicates and follow-ups do.
pub const SYNTHETIC_NOISE: f32 = 0.02;

/// IVF against exact search on a session's paper vectors (or `shape.synthetic` vectors made from
/// them), with `shape.queries` titles sampled evenly from the corpus as queries.
pub fn run_session(
    workspace: &litnav_app::Workspace,
    session: &litnav_app::CorpusSession,
    shape: Shape,
) -> Result<Report> {
    let encoder = workspace.encoder(&litnav_app::Quiet)?;
    let retriever = session.dense(encoder, &litnav_app::Quiet)?;
    let index = retriever.dense_index().ok_or_else(|| crate::Error::input("no paper vectors"))?;
    let papers = session.papers()?;
    let step = (papers.len() / shape.queries.max(1)).max(1);
    let titles: Vec<&str> = papers.iter().step_by(step).take(shape.queries).map(|p| p.title.as_str()).collect();
    let query_vectors = encoder.embed(&titles);
    let made;
    let index = match shape.synthetic {
        Some(n) => {
            made = synthetic(index, n, litnav_core::DEFAULT_SEED);
            &made
        }
        None => index,
    };
    let mut options = IvfOptions::for_size(index.len());
    if let Some(lists) = shape.lists {
        options = IvfOptions::with_lists(lists);
    }
    if let Some(probes) = shape.probes {
        options.probes = probes;
    }
    run(index, &query_vectors, options)
}

/// `n` vectors made from `real`'s: row `i` is real row `i mod len` plus seeded Gaussian noise of
/// [`SYNTHETIC_NOISE`] per dimension, normalized; ids `s0`, `s1`, ….
pub fn synthetic(real: &DenseIndex, n: usize, seed: u64) -> DenseIndex {
    let dim = real.dim();
    let mut rng = litnav_core::rng::SplitMix64(seed);
    let mut floats = Vec::with_capacity(n * dim);
    let mut docs = Vec::with_capacity(n);
    for i in 0..n {
        floats.extend_from_slice(&near(real.vector(i % real.len().max(1)), &mut rng));
        docs.push(litnav_search::dense::DocMeta {
            id: format!("s{i}"),
            title: String::new(),
            year: None,
            is_survey: false,
        });
    }
    DenseIndex::from_parts(docs, floats, dim)
}

/// A unit vector near `source`: plus seeded Gaussian noise of [`SYNTHETIC_NOISE`] per dimension,
/// normalized again.
pub fn near(source: &[f32], rng: &mut litnav_core::rng::SplitMix64) -> Vec<f32> {
    let mut row: Vec<f32> = source.iter().map(|v| v + SYNTHETIC_NOISE * rng.gaussian() as f32).collect();
    litnav_core::vector::normalize(&mut row);
    row
}
