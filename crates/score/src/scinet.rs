//! SciNet's path-wise and ego-centric scores (seed 003, §3 and §5) of another system's retrieved
//! papers, with a corpus's citation graph as the ground truth, and their LLM judgements:
//! Rationality for paths, Novelty-LLM and Disruption-LLM for ego queries.
//!
//! Lines that cannot be scored (unknown ids, missing or mistyped fields) are listed with file,
//! line and field; the rest is scored.

use super::{field_str, field_strings, mean, read_json_lines};
use litnav_core::PaperText;
use litnav_graph::Node;
use litnav_graph::paths;
use litnav_graph::percentile::{EgoScore, ego_score, top_k};
use litnav_llm::judges::{self, PaperProperty};
use litnav_session::error::Result;
use litnav_session::progress::Progress;
use litnav_session::relations::{Measure, MetricOptions};
use litnav_session::session::CorpusSession;
use serde::Serialize;
use std::path::Path;

/// One path query's scores.
#[derive(Debug, Clone, Serialize)]
pub struct PathQueryScore {
    /// Line of the query file.
    pub line: usize,
    /// The first endpoint as given.
    pub source: String,
    /// The second endpoint as given.
    pub target: String,
    /// True when the endpoints were given old → new (SciNet's order) and the path runs from
    /// `target` back to `source`.
    pub reversed: bool,
    /// The ground-truth path (given, or the maximum-citation path), citing end first.
    pub truth: Option<Vec<String>>,
    /// Retrieved ids that are not corpus papers.
    pub retrieved_not_in_corpus: usize,
    /// Share of the truth's inner papers retrieved.
    pub consistency: Option<f64>,
    /// Whether the retrieved papers link the endpoints by citations.
    pub connectivity: bool,
    /// The LLM's Rationality of the retrieved sequence (1–10), when judged.
    pub rationality: Option<u8>,
    /// The judge's reason.
    pub rationality_reason: Option<String>,
}

/// Path-wise scores over a query file.
#[derive(Debug, Clone, Serialize)]
pub struct PathScores {
    /// Queries scored.
    pub queries: usize,
    /// Hop limit of the ground-truth paths.
    pub max_hops: usize,
    /// Queries without a ground-truth path within the hop limit.
    pub without_truth: usize,
    /// Mean Consistency (over queries with a truth).
    pub consistency: Option<f64>,
    /// Share of queries whose retrieved papers connect the endpoints.
    pub connectivity: Option<f64>,
    /// Mean Rationality-LLM (1–10) over the judged queries.
    pub rationality: Option<f64>,
    /// Lines that could not be scored.
    pub problems: Vec<String>,
    /// Per query.
    pub per_query: Vec<PathQueryScore>,
}

/// Score path queries: JSON lines with `source`, `target` (paper ids, in either order: the path
/// is looked for from the first to the second, then the other way), `retrieved` (ids, in the
/// order the system gives the path) and an optional `truth` (the ground-truth path, citing end
/// first; default: the maximum-citation path within `max_hops`). With a client, the LLM judges
/// each retrieved sequence's Rationality.
pub fn score_paths(
    session: &CorpusSession,
    file: &Path,
    max_hops: usize,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn Progress,
) -> Result<PathScores> {
    let graph = &session.citations()?.graph;
    let (mut rows, mut problems) = (Vec::new(), Vec::new());
    let lines = read_json_lines(file)?;
    for (done, (line, query)) in lines.iter().enumerate() {
        match path_query(session, file, *line, query, max_hops) {
            Ok((mut row, retrieved)) => {
                if let Some(client) = llm.filter(|_| !retrieved.is_empty()) {
                    let ids: Vec<String> = retrieved.iter().map(|&n| graph.id(n).to_string()).collect();
                    let papers: Vec<PaperText<'_>> =
                        session.papers_of(&ids)?.into_iter().map(|p| p.as_text()).collect();
                    match judges::judge_path(client, &papers) {
                        Ok(verdict) => {
                            row.rationality = Some(verdict.score);
                            row.rationality_reason = Some(verdict.reason);
                        }
                        Err(e @ litnav_llm::Error::Invalid { .. }) => row.rationality_reason = Some(e.to_string()),
                        Err(e) => return Err(e.into()),
                    }
                    progress.advance(done + 1, lines.len());
                }
                rows.push(row);
            }
            Err(problem) => problems.push(problem),
        }
    }
    Ok(PathScores {
        queries: rows.len(),
        max_hops,
        without_truth: rows.iter().filter(|r| r.truth.is_none()).count(),
        consistency: mean(rows.iter().filter_map(|r| r.consistency)),
        connectivity: mean(rows.iter().map(|r| if r.connectivity { 1.0 } else { 0.0 })),
        rationality: mean(rows.iter().filter_map(|r| r.rationality.map(f64::from))),
        problems,
        per_query: rows,
    })
}

/// One path query scored without the LLM, with its retrieved corpus papers; or why it cannot be.
fn path_query(
    session: &CorpusSession,
    file: &Path,
    line: usize,
    query: &serde_json::Value,
    max_hops: usize,
) -> std::result::Result<(PathQueryScore, Vec<Node>), String> {
    let graph = &session.citations().map_err(|e| e.to_string())?.graph;
    let at = |field: &str, message: &str| format!("{}:{line}: field `{field}`: {message}", file.display());
    let node = |field: &str| -> std::result::Result<Node, String> {
        let id = field_str(query, field, file, line).map_err(|e| e.to_string())?;
        graph.find(id).ok_or_else(|| at(field, &format!("`{id}` is not a paper of the corpus")))
    };
    let (source, target) = (node("source")?, node("target")?);
    let retrieved_ids = field_strings(query, "retrieved", file, line).map_err(|e| e.to_string())?;
    let retrieved: Vec<Node> = retrieved_ids.iter().filter_map(|id| graph.find(id)).collect();
    let (truth, reversed) = if query.get("truth").is_some() {
        let ids = field_strings(query, "truth", file, line).map_err(|e| e.to_string())?;
        let nodes = ids
            .iter()
            .map(|id| graph.find(id).ok_or_else(|| at("truth", &format!("`{id}` is not a paper of the corpus"))))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let reversed = nodes.first() == Some(&target);
        (Some(nodes), reversed)
    } else {
        match paths::max_citation_path(graph, source, target, max_hops) {
            Some(path) => (Some(path.nodes), false),
            None => match paths::max_citation_path(graph, target, source, max_hops) {
                Some(path) => (Some(path.nodes), true),
                None => (None, false),
            },
        }
    };
    let (from, to) = if reversed { (target, source) } else { (source, target) };
    let connectivity = paths::connectivity(graph, from, to, &retrieved)
        || (truth.is_none() && paths::connectivity(graph, to, from, &retrieved));
    let row = PathQueryScore {
        line,
        source: graph.id(source).to_string(),
        target: graph.id(target).to_string(),
        reversed,
        truth: truth.as_ref().map(|t| t.iter().map(|&n| graph.id(n).to_string()).collect()),
        retrieved_not_in_corpus: retrieved_ids.len() - retrieved.len(),
        consistency: truth.as_ref().map(|t| paths::consistency(&retrieved, t)),
        connectivity,
        rationality: None,
        rationality_reason: None,
    };
    Ok((row, retrieved))
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
    /// Mean LLM rating (1–10) of the retrieved corpus papers, when judged.
    pub llm_score: Option<f64>,
    /// Retrieved papers the LLM rated.
    pub llm_rated: usize,
}

/// Ego-centric scores over a query file.
#[derive(Debug, Clone, Serialize)]
pub struct EgoScores {
    /// The measure asked for.
    pub measure: Measure,
    /// Size of the truth and of the lists scored.
    pub k: usize,
    /// Queries scored.
    pub queries: usize,
    /// Mean SoS.
    pub sos: Option<f64>,
    /// Mean Recall@k.
    pub recall: Option<f64>,
    /// Mean Novelty-LLM or Disruption-LLM (1–10), when judged.
    pub llm_score: Option<f64>,
    /// Lines that could not be scored.
    pub problems: Vec<String>,
    /// Per query.
    pub per_query: Vec<EgoQueryScore>,
}

/// Score ego queries: JSON lines with `topic` (a stored topic's id or title, or free text whose
/// `pool` best BM25 matches form the field) and `retrieved` (ids in rank order). The truth is the
/// field's `k` papers with the highest value of `measure`. With a client, the LLM rates every
/// retrieved corpus paper on the measure's property from its title and abstract.
pub fn score_ego(
    session: &CorpusSession,
    file: &Path,
    measure: Measure,
    k: usize,
    pool: usize,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn Progress,
) -> Result<EgoScores> {
    let graph = &session.citations()?.graph;
    let scores = session.scores(measure, &MetricOptions::default(), false)?;
    let (mut rows, mut problems) = (Vec::new(), Vec::new());
    for (line, query) in read_json_lines(file)? {
        let (topic, mut retrieved) =
            match (field_str(&query, "topic", file, line), field_strings(&query, "retrieved", file, line)) {
                (Ok(topic), Ok(retrieved)) => (topic.to_string(), retrieved),
                (Err(e), _) | (_, Err(e)) => {
                    problems.push(e.to_string());
                    continue;
                }
            };
        retrieved.truncate(k);
        let field = session.field(Some(&topic), pool)?;
        let field_values: Vec<Option<f64>> = field.iter().map(|&n| scores.values[n as usize]).collect();
        let truth: Vec<&str> =
            top_k(&field_values, k, |i| session.tie_key(field[i])).into_iter().map(|i| graph.id(field[i])).collect();
        let retrieved_values: Vec<Option<f64>> =
            retrieved.iter().map(|id| graph.find(id).and_then(|n| scores.values[n as usize])).collect();
        let retrieved_ids: Vec<&str> = retrieved.iter().map(String::as_str).collect();
        let score = ego_score(&scores.table, &retrieved_ids, &retrieved_values, &truth);
        let (llm_score, llm_rated) = match llm {
            Some(client) => rate_papers(session, client, measure, &retrieved_ids, progress)?,
            None => (None, 0),
        };
        rows.push(EgoQueryScore { line, topic, field_papers: field.len(), score, llm_score, llm_rated });
    }
    Ok(EgoScores {
        measure,
        k,
        queries: rows.len(),
        sos: mean(rows.iter().filter_map(|r| r.score.sos)),
        recall: mean(rows.iter().map(|r| r.score.recall)),
        llm_score: mean(rows.iter().filter_map(|r| r.llm_score)),
        problems,
        per_query: rows,
    })
}

/// The mean LLM rating of the corpus papers among `ids` on `measure`'s property, and how many
/// were rated (an answer that stays invalid leaves its paper out).
fn rate_papers(
    session: &CorpusSession,
    client: &litnav_llm::Client,
    measure: Measure,
    ids: &[&str],
    progress: &dyn Progress,
) -> Result<(Option<f64>, usize)> {
    let property = match measure {
        Measure::Novelty => PaperProperty::Novelty,
        Measure::Disruption => PaperProperty::Disruption,
        Measure::Citations => {
            return Err(litnav_session::Error::input("SciNet's LLM judges rate novelty and disruption, not citations"));
        }
    };
    let mut ratings = Vec::new();
    let papers = session.papers_of(ids)?;
    for (done, paper) in papers.iter().enumerate() {
        match judges::rate_paper(client, property, paper.as_text()) {
            Ok(verdict) => ratings.push(f64::from(verdict.score)),
            Err(litnav_llm::Error::Invalid { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        progress.advance(done + 1, papers.len());
    }
    Ok((mean(ratings.iter().copied()), ratings.len()))
}

fn number(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{v:.decimals$}"))
}

impl std::fmt::Display for PathScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} path queries ({} without a ground-truth path within {} hops)",
            self.queries, self.without_truth, self.max_hops
        )?;
        writeln!(f, "  Consistency     {}", number(self.consistency, 4))?;
        writeln!(f, "  Connectivity    {}", number(self.connectivity, 4))?;
        if self.rationality.is_some() {
            writeln!(f, "  Rationality-LLM {}", number(self.rationality, 2))?;
        }
        for problem in &self.problems {
            writeln!(f, "  skipped: {problem}")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for EgoScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.measure.name();
        writeln!(f, "{} {name} queries", self.queries)?;
        writeln!(f, "  {name}-SoS       {}", number(self.sos, 2))?;
        writeln!(f, "  {name}-Recall@{} {}", self.k, number(self.recall, 4))?;
        if self.llm_score.is_some() {
            writeln!(f, "  {name}-LLM       {}", number(self.llm_score, 2))?;
        }
        for problem in &self.problems {
            writeln!(f, "  skipped: {problem}")?;
        }
        Ok(())
    }
}
