//! Dense retrieval benchmark: exact search versus the IVF index on a corpus's real vectors —
//! recall@10 of IVF against exact, and per-query latency of both.

use crate::{Result, percentile};
use litnav_search::Filter;
use litnav_search::dense::DenseIndex;
use litnav_search::ivf::{IvfIndex, IvfOptions};
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
}

/// Measure with `queries` (unit vectors) and IVF `options`.
pub fn run(index: &DenseIndex, queries: &[Vec<f32>], options: IvfOptions) -> Result<Report> {
    let started = Instant::now();
    let ivf = IvfIndex::build(index, options);
    let build_seconds = started.elapsed().as_secs_f64();
    let (mut exact_ms, mut ivf_ms, mut recall) = (Vec::new(), Vec::new(), 0.0);
    for query in queries {
        let t = Instant::now();
        let exact = index.search(query, 10, Filter::default());
        exact_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let approximate = ivf.search(index, query, 10, Filter::default());
        ivf_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let truth: HashSet<&str> = exact.iter().map(|h| h.id.as_str()).collect();
        recall +=
            approximate.iter().filter(|h| truth.contains(h.id.as_str())).count() as f64 / truth.len().max(1) as f64;
    }
    exact_ms.sort_by(f64::total_cmp);
    ivf_ms.sort_by(f64::total_cmp);
    Ok(Report {
        papers: index.len(),
        lists: ivf.lists(),
        probes: options.probes,
        build_seconds,
        queries: queries.len(),
        recall_at_10: recall / queries.len().max(1) as f64,
        exact_p50_ms: percentile(&exact_ms, 50.0),
        ivf_p50_ms: percentile(&ivf_ms, 50.0),
    })
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
        )
    }
}

/// IVF against exact search on a session's paper vectors, with `queries` titles sampled evenly
/// from the corpus as queries; `lists` and `probes` override the defaults for its size.
pub fn run_session(
    workspace: &litnav_app::Workspace,
    session: &litnav_app::CorpusSession,
    queries: usize,
    lists: Option<usize>,
    probes: Option<usize>,
) -> Result<Report> {
    let encoder = workspace.encoder(&litnav_app::Quiet)?;
    let retriever = session.dense(encoder, &litnav_app::Quiet)?;
    let index = retriever.dense_index().ok_or_else(|| crate::Error::input("no paper vectors"))?;
    let papers = session.papers();
    let step = (papers.len() / queries.max(1)).max(1);
    let titles: Vec<&str> = papers.iter().step_by(step).take(queries).map(|p| p.title.as_str()).collect();
    let query_vectors = encoder.embed(&titles);
    let mut options = IvfOptions::for_size(index.len());
    if let Some(lists) = lists {
        options = IvfOptions::with_lists(lists);
    }
    if let Some(probes) = probes {
        options.probes = probes;
    }
    run(index, &query_vectors, options)
}
