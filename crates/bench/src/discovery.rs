//! litnav's retrieval scoreboard (ResearchArena's discovery and selection tasks): for every topic
//! of a corpus, query with the survey's title, keep only non-surveys published strictly before
//! the survey (topics without a year get no date filter), and score the top 100 against the
//! survey's references with Recall@10/100, Precision@10/100, nDCG@10/30/100 and MRR — per
//! retrieval mode, per topic and averaged (macro average over topics).
//!
//! The relevant set is every reference of the survey; references that the filters exclude (later
//! papers, surveys) cannot be retrieved and so cap recall, as in ResearchArena.

use crate::Result;
use litnav_corpus::Topic;
use litnav_eval::retrieval::{ndcg_at, precision_at, recall_at, reciprocal_rank};
use litnav_search::{Mode, Retriever, SearchQuery};
use serde::Serialize;
use std::collections::HashSet;

/// Depth of every ranking.
pub const DEPTH: usize = 100;

/// The eight numbers for one ranking.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Scores {
    /// Recall@10.
    pub recall_10: f64,
    /// Recall@100.
    pub recall_100: f64,
    /// Precision@10.
    pub precision_10: f64,
    /// Precision@100.
    pub precision_100: f64,
    /// nDCG@10.
    pub ndcg_10: f64,
    /// nDCG@30.
    pub ndcg_30: f64,
    /// nDCG@100.
    pub ndcg_100: f64,
    /// Reciprocal rank of the first relevant paper (MRR when averaged).
    pub mrr: f64,
}

impl Scores {
    fn of(ranking: &[&str], relevant: &HashSet<&str>) -> Scores {
        Scores {
            recall_10: recall_at(ranking, relevant, 10),
            recall_100: recall_at(ranking, relevant, 100),
            precision_10: precision_at(ranking, relevant, 10),
            precision_100: precision_at(ranking, relevant, 100),
            ndcg_10: ndcg_at(ranking, relevant, 10),
            ndcg_30: ndcg_at(ranking, relevant, 30),
            ndcg_100: ndcg_at(ranking, relevant, 100),
            mrr: reciprocal_rank(ranking, relevant, DEPTH),
        }
    }

    fn mean(all: &[Scores]) -> Scores {
        let n = all.len().max(1) as f64;
        let sum = |f: fn(&Scores) -> f64| all.iter().map(f).sum::<f64>() / n;
        Scores {
            recall_10: sum(|s| s.recall_10),
            recall_100: sum(|s| s.recall_100),
            precision_10: sum(|s| s.precision_10),
            precision_100: sum(|s| s.precision_100),
            ndcg_10: sum(|s| s.ndcg_10),
            ndcg_30: sum(|s| s.ndcg_30),
            ndcg_100: sum(|s| s.ndcg_100),
            mrr: sum(|s| s.mrr),
        }
    }
}

/// One topic's results.
#[derive(Debug, Clone, Serialize)]
pub struct TopicResult {
    /// Topic id.
    pub topic: String,
    /// The query (survey title).
    pub title: String,
    /// Date cut-off applied.
    pub before: Option<i32>,
    /// Number of references.
    pub relevant: usize,
    /// Scores per mode, in the report's mode order.
    pub scores: Vec<Scores>,
}

/// The scoreboard.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Mode names, in column order.
    pub modes: Vec<String>,
    /// Per topic.
    pub topics: Vec<TopicResult>,
    /// Macro averages per mode.
    pub mean: Vec<Scores>,
}

/// Score every topic with references under every mode.
pub fn run(retriever: &Retriever, topics: &[Topic], modes: &[(String, Mode)]) -> Result<Report> {
    let mut results = Vec::new();
    for topic in topics.iter().filter(|t| !t.reference_ids.is_empty()) {
        let relevant: HashSet<&str> = topic.reference_ids.iter().map(String::as_str).collect();
        let query = SearchQuery {
            k: DEPTH,
            before: topic.year,
            exclude_surveys: true,
            ..SearchQuery::new(topic.title.clone())
        };
        let mut scores = Vec::new();
        for (_, mode) in modes {
            let hits = retriever.search(&query, *mode)?;
            let ranking: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
            scores.push(Scores::of(&ranking, &relevant));
        }
        results.push(TopicResult {
            topic: topic.id.clone(),
            title: topic.title.clone(),
            before: topic.year,
            relevant: relevant.len(),
            scores,
        });
    }
    let mean =
        (0..modes.len()).map(|m| Scores::mean(&results.iter().map(|r| r.scores[m]).collect::<Vec<_>>())).collect();
    Ok(Report { modes: modes.iter().map(|(n, _)| n.clone()).collect(), topics: results, mean })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "discovery scoreboard: {} topics, query = survey title, non-surveys before the survey, top 100",
            self.topics.len()
        )?;
        writeln!(
            f,
            "{:<16} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
            "mode (mean)", "R@10", "R@100", "P@10", "P@100", "nDCG@10", "nDCG@30", "nDCG@100", "MRR"
        )?;
        for (name, s) in self.modes.iter().zip(&self.mean) {
            writeln!(
                f,
                "{:<16} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
                name,
                s.recall_10,
                s.recall_100,
                s.precision_10,
                s.precision_100,
                s.ndcg_10,
                s.ndcg_30,
                s.ndcg_100,
                s.mrr
            )?;
        }
        writeln!(f)?;
        writeln!(f, "per topic: R@100 / nDCG@10")?;
        let header: Vec<String> = self.modes.iter().map(|m| format!("{m:>17}")).collect();
        writeln!(f, "{:<13} {:>5}{}", "topic", "refs", header.join(""))?;
        for t in &self.topics {
            let cells: Vec<String> =
                t.scores.iter().map(|s| format!("{:>17}", format!("{:.3} / {:.3}", s.recall_100, s.ndcg_10))).collect();
            writeln!(f, "{:<13} {:>5}{}", t.topic, t.relevant, cells.join(""))?;
        }
        Ok(())
    }
}

/// The modes the scoreboard compares, with their column names.
pub fn default_modes() -> Vec<(String, Mode)> {
    use litnav_search::hybrid::Fusion;
    vec![
        ("bm25".to_string(), Mode::Bm25),
        ("dense".to_string(), Mode::Dense),
        ("hybrid-rrf".to_string(), Mode::Hybrid(Fusion::Rrf(60.0))),
        ("hybrid-weighted".to_string(), Mode::Hybrid(Fusion::Weighted(0.5))),
    ]
}

/// The scoreboard over a session's topics, every default mode (paper vectors computed if missing).
pub fn run_session(workspace: &litnav_app::Workspace, session: &litnav_app::CorpusSession) -> Result<Report> {
    let encoder = workspace.encoder(&litnav_app::Quiet)?;
    let retriever = session.dense(encoder, &litnav_app::Quiet)?;
    run(retriever, session.topics(), &default_modes())
}
