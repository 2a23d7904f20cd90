//! SciNet's path-wise and ego-centric scores of another system's retrieved papers, with a
//! corpus's citation graph as the ground truth.

use super::{field_str, field_strings, mean, read_json_lines};
use crate::error::{Context, Result};
use crate::relations::{Measure, MetricOptions};
use crate::session::CorpusSession;
use litnav_graph::Node;
use litnav_graph::paths;
use litnav_graph::percentile::{EgoScore, ego_score, top_k};
use serde::Serialize;
use std::path::Path;

/// One path query's scores.
#[derive(Debug, Clone, Serialize)]
pub struct PathQueryScore {
    /// Line of the query file.
    pub line: usize,
    /// The citing end.
    pub source: String,
    /// The cited end.
    pub target: String,
    /// The ground-truth path (given, or the maximum-citation path), when there is one.
    pub truth: Option<Vec<String>>,
    /// Retrieved ids that are not corpus papers.
    pub retrieved_not_in_corpus: usize,
    /// Share of the truth's inner papers retrieved.
    pub consistency: Option<f64>,
    /// Whether the retrieved papers link the endpoints by citations.
    pub connectivity: bool,
}

/// Path-wise scores over a query file.
#[derive(Debug, Clone, Serialize)]
pub struct PathScores {
    /// Queries scored.
    pub queries: usize,
    /// Queries without a ground-truth path within the hop limit.
    pub without_truth: usize,
    /// Mean Consistency (over queries with a truth).
    pub consistency: Option<f64>,
    /// Share of queries whose retrieved papers connect the endpoints.
    pub connectivity: Option<f64>,
    /// Per query.
    pub per_query: Vec<PathQueryScore>,
}

/// Score path queries: JSON lines with `source`, `target` (paper ids), `retrieved` (ids) and an
/// optional `truth` (the ground-truth path; default: the maximum-citation path within
/// `max_hops`).
pub fn score_paths(session: &CorpusSession, file: &Path, max_hops: usize) -> Result<PathScores> {
    let graph = &session.citations()?.graph;
    let mut rows = Vec::new();
    for (line, query) in read_json_lines(file)? {
        let at = |field: &str| format!("{}:{line}: field `{field}`", file.display());
        let source = session.node(field_str(&query, "source", file, line)?).context(|| at("source"))?;
        let target = session.node(field_str(&query, "target", file, line)?).context(|| at("target"))?;
        let retrieved_ids = field_strings(&query, "retrieved", file, line)?;
        let retrieved: Vec<Node> = retrieved_ids.iter().filter_map(|id| graph.find(id)).collect();
        let truth: Option<Vec<Node>> = if query.get("truth").is_some() {
            let ids = field_strings(&query, "truth", file, line)?;
            Some(ids.iter().map(|id| session.node(id)).collect::<Result<_>>().context(|| at("truth"))?)
        } else {
            paths::max_citation_path(graph, source, target, max_hops).map(|p| p.nodes)
        };
        rows.push(PathQueryScore {
            line,
            source: graph.id(source).to_string(),
            target: graph.id(target).to_string(),
            truth: truth.as_ref().map(|t| t.iter().map(|&n| graph.id(n).to_string()).collect()),
            retrieved_not_in_corpus: retrieved_ids.len() - retrieved.len(),
            consistency: truth.as_ref().map(|t| paths::consistency(&retrieved, t)),
            connectivity: paths::connectivity(graph, source, target, &retrieved),
        });
    }
    Ok(PathScores {
        queries: rows.len(),
        without_truth: rows.iter().filter(|r| r.truth.is_none()).count(),
        consistency: mean(rows.iter().filter_map(|r| r.consistency)),
        connectivity: mean(rows.iter().map(|r| if r.connectivity { 1.0 } else { 0.0 })),
        per_query: rows,
    })
}

/// One ego query's scores.
#[derive(Debug, Clone, Serialize)]
pub struct EgoQueryScore {
    /// Line of the query file.
    pub line: usize,
    /// The topic.
    pub topic: String,
    /// Papers of the field the truth is drawn from.
    pub field_papers: usize,
    /// SoS and Recall@k.
    pub score: EgoScore,
}

/// Ego-centric scores over a query file.
#[derive(Debug, Clone, Serialize)]
pub struct EgoScores {
    /// Queries scored.
    pub queries: usize,
    /// Mean SoS.
    pub sos: Option<f64>,
    /// Mean Recall@k.
    pub recall: Option<f64>,
    /// Per query.
    pub per_query: Vec<EgoQueryScore>,
}

/// Score ego queries: JSON lines with `topic` (a stored topic's id or title, or free text whose
/// `pool` best BM25 matches form the field) and `retrieved` (ids in rank order). The truth is the
/// field's `k` papers with the highest value of `measure`.
pub fn score_ego(session: &CorpusSession, file: &Path, measure: Measure, k: usize, pool: usize) -> Result<EgoScores> {
    let graph = &session.citations()?.graph;
    let scores = session.scores(measure, &MetricOptions::default(), false)?;
    let mut rows = Vec::new();
    for (line, query) in read_json_lines(file)? {
        let topic = field_str(&query, "topic", file, line)?;
        let mut retrieved = field_strings(&query, "retrieved", file, line)?;
        retrieved.truncate(k);
        let field = session.field(Some(topic), pool)?;
        let field_values: Vec<Option<f64>> = field.iter().map(|&n| scores.values[n as usize]).collect();
        let truth: Vec<&str> =
            top_k(&field_values, k, |i| session.tie_key(field[i])).into_iter().map(|i| graph.id(field[i])).collect();
        let retrieved_values: Vec<Option<f64>> =
            retrieved.iter().map(|id| graph.find(id).and_then(|n| scores.values[n as usize])).collect();
        let retrieved_ids: Vec<&str> = retrieved.iter().map(String::as_str).collect();
        let score = ego_score(&scores.table, &retrieved_ids, &retrieved_values, &truth);
        rows.push(EgoQueryScore { line, topic: topic.to_string(), field_papers: field.len(), score });
    }
    Ok(EgoScores {
        queries: rows.len(),
        sos: mean(rows.iter().filter_map(|r| r.score.sos)),
        recall: mean(rows.iter().map(|r| r.score.recall)),
        per_query: rows,
    })
}
