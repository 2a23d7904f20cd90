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
use litnav_search::{Expansion, Filter, Hit, Mode, SearchQuery, Smoothing};
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
    /// The expanded mode's settings chosen by leave-one-out, when measured.
    pub leave_one_out: Option<LeaveOneOut>,
}

/// Score every topic with references under every mode; `rank` answers one query in one mode.
pub fn run(
    rank: &dyn Fn(&SearchQuery, Mode) -> Result<Vec<Hit>>,
    topics: &[Topic],
    modes: &[(String, Mode)],
) -> Result<Report> {
    let mut results = Vec::new();
    for topic in topics.iter().filter(|t| !t.reference_ids.is_empty()) {
        let relevant: HashSet<&str> = topic.reference_ids.iter().map(String::as_str).collect();
        let mut scores = Vec::new();
        for (_, mode) in modes {
            scores.push(score_topic(rank, topic, &relevant, *mode)?);
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
    Ok(Report { modes: modes.iter().map(|(n, _)| n.clone()).collect(), topics: results, mean, leave_one_out: None })
}

/// One topic's scores in one mode: the survey's title as the query, the leakage filters on.
fn score_topic(
    rank: &dyn Fn(&SearchQuery, Mode) -> Result<Vec<Hit>>,
    topic: &Topic,
    relevant: &HashSet<&str>,
    mode: Mode,
) -> Result<Scores> {
    let query =
        SearchQuery { k: DEPTH, before: topic.year, exclude_surveys: true, ..SearchQuery::new(topic.title.clone()) };
    let hits = rank(&query, mode)?;
    let ranking: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    Ok(Scores::of(&ranking, relevant))
}

/// The expansion settings leave-one-out chooses among: the fusion's settings (seeds, decay, first
/// weight, RRF k) with the default smoothing, and the smoothing's (neighbours, own weight) with the
/// default fusion.
pub fn expansion_grid() -> Vec<Expansion> {
    let mut grid = Vec::new();
    for seeds in [5, 10, 15, 20] {
        for decay in [0.3, 0.5, 1.0] {
            for first_weight in [0.2, 0.4] {
                for rrf_k in [10.0, 30.0] {
                    grid.push(Expansion { seeds, decay, first_weight, rrf_k, ..Expansion::default() });
                }
            }
        }
    }
    grid.push(Expansion { smoothing: Smoothing::NONE, ..Expansion::default() });
    for neighbours in [5, 10, 20, 30] {
        for own_weight in [0.3, 0.5, 0.7] {
            let smoothing = Smoothing { neighbours, own_weight };
            if smoothing != Smoothing::default() {
                grid.push(Expansion { smoothing, ..Expansion::default() });
            }
        }
    }
    grid
}

/// Leave-one-out over the topics: for each topic, the setting of `grid` with the best mean
/// Recall@100 on the *other* topics is chosen (ties: the first in grid order) and scored on it.
#[derive(Debug, Clone, Serialize)]
pub struct LeaveOneOut {
    /// Settings tried.
    pub settings: usize,
    /// Per topic: the setting chosen without it ([`settings_of`]) and its scores there.
    pub topics: Vec<(String, [f32; 6], Scores)>,
    /// Macro average of the held-out scores.
    pub mean: Scores,
    /// The setting with the best mean Recall@100 over all topics, and that mean (optimistic: fitted
    /// on the topics it is scored on).
    pub best_in_sample: ([f32; 6], f64),
}

/// Score every setting of `grid` on every topic, then hold each topic out in turn.
pub fn leave_one_out(
    rank: &dyn Fn(&SearchQuery, Mode) -> Result<Vec<Hit>>,
    topics: &[Topic],
    grid: &[Expansion],
) -> Result<LeaveOneOut> {
    let topics: Vec<&Topic> = topics.iter().filter(|t| !t.reference_ids.is_empty()).collect();
    // table[setting][topic]
    let mut table = Vec::with_capacity(grid.len());
    for expansion in grid {
        let mut row = Vec::with_capacity(topics.len());
        for topic in &topics {
            let relevant: HashSet<&str> = topic.reference_ids.iter().map(String::as_str).collect();
            row.push(score_topic(rank, topic, &relevant, Mode::Expanded(*expansion))?);
        }
        table.push(row);
    }
    let mean_recall = |row: &[&Scores]| row.iter().map(|s| s.recall_100).sum::<f64>() / row.len().max(1) as f64;
    let best = |rows: &[Vec<&Scores>]| {
        (0..rows.len()).fold(0, |best, s| if mean_recall(&rows[s]) > mean_recall(&rows[best]) { s } else { best })
    };
    let held_out: Vec<(String, [f32; 6], Scores)> = crate::held_out::choices(&table, best)
        .into_iter()
        .zip(&topics)
        .enumerate()
        .map(|(t, (chosen, topic))| (topic.id.clone(), settings_of(&grid[chosen]), table[chosen][t]))
        .collect();
    let whole = crate::held_out::without(&table, None);
    let overall = best(&whole);
    Ok(LeaveOneOut {
        settings: grid.len(),
        mean: Scores::mean(&held_out.iter().map(|(_, _, s)| *s).collect::<Vec<_>>()),
        topics: held_out,
        best_in_sample: (settings_of(&grid[overall]), mean_recall(&whole[overall])),
    })
}

/// An expansion's settings as numbers: seeds, decay, first weight, RRF k, smoothing neighbours and
/// the smoothing's own weight.
pub fn settings_of(e: &Expansion) -> [f32; 6] {
    [e.seeds as f32, e.decay, e.first_weight, e.rrf_k, e.smoothing.neighbours as f32, e.smoothing.own_weight]
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
            "{:<20} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
            "mode (mean)", "R@10", "R@100", "P@10", "P@100", "nDCG@10", "nDCG@30", "nDCG@100", "MRR"
        )?;
        for (name, scores) in self.modes.iter().zip(&self.mean) {
            score_row(f, name, scores)?;
        }
        writeln!(f)?;
        writeln!(f, "per topic: R@100 / nDCG@10")?;
        let header: Vec<String> = self.modes.iter().map(|m| format!("{m:>20}")).collect();
        writeln!(f, "{:<13} {:>5}{}", "topic", "refs", header.join(""))?;
        for t in &self.topics {
            let cells: Vec<String> =
                t.scores.iter().map(|s| format!("{:>20}", format!("{:.3} / {:.3}", s.recall_100, s.ndcg_10))).collect();
            writeln!(f, "{:<13} {:>5}{}", t.topic, t.relevant, cells.join(""))?;
        }
        if let Some(loo) = &self.leave_one_out {
            writeln!(f)?;
            write!(f, "{loo}")?;
        }
        Ok(())
    }
}

/// One line of the eight numbers under a name.
fn score_row(f: &mut std::fmt::Formatter<'_>, name: &str, s: &Scores) -> std::fmt::Result {
    writeln!(
        f,
        "{:<20} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
        name, s.recall_10, s.recall_100, s.precision_10, s.precision_100, s.ndcg_10, s.ndcg_30, s.ndcg_100, s.mrr
    )
}

impl std::fmt::Display for LeaveOneOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "expanded, leave-one-out over {} settings (each topic scored with the setting best on the others):",
            self.settings
        )?;
        score_row(f, "held out (mean)", &self.mean)?;
        let ([seeds, decay, weight, k, neighbours, own], recall) = self.best_in_sample;
        writeln!(
            f,
            "best on all topics (in-sample): seeds {seeds}, decay {decay}, first weight {weight}, rrf k {k}, \
             smoothing over {neighbours} neighbours with own weight {own}: R@100 {recall:.3}"
        )?;
        writeln!(f, "{:<13} {:>24} {:>7} {:>7}", "topic", "seeds/decay/w/k/nbrs/own", "R@100", "nDCG@10")?;
        for (topic, [seeds, decay, weight, k, neighbours, own], scores) in &self.topics {
            writeln!(
                f,
                "{topic:<13} {:>24} {:>7.3} {:>7.3}",
                format!("{seeds}/{decay}/{weight}/{k}/{neighbours}/{own}"),
                scores.recall_100,
                scores.ndcg_10
            )?;
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
        // An expansion without seeds is the feedback search alone.
        ("hybrid-feedback".to_string(), Mode::Expanded(Expansion { seeds: 0, ..Expansion::default() })),
        (
            "expanded-unsmoothed".to_string(),
            Mode::Expanded(Expansion { smoothing: Smoothing::NONE, ..Expansion::default() }),
        ),
        ("expanded".to_string(), Mode::Expanded(Expansion::default())),
    ]
}

/// The scoreboard over a session's topics, every default mode (paper vectors computed if missing),
/// and the expanded mode's leave-one-out.
pub fn run_session(workspace: &litnav_app::Workspace, session: &litnav_app::CorpusSession) -> Result<Report> {
    let encoder = workspace.encoder(&litnav_app::Quiet)?;
    let rank = |query: &SearchQuery, mode: Mode| -> Result<Vec<Hit>> {
        let request = litnav_app::SearchRequest {
            query: query.text.clone(),
            k: query.k,
            mode,
            filter: Filter { before: query.before, exclude_surveys: query.exclude_surveys },
            ..litnav_app::SearchRequest::new("")
        };
        session.search(&request, encoder, &litnav_app::Quiet)
    };
    let mut report = run(&rank, session.topics(), &default_modes())?;
    report.leave_one_out = Some(leave_one_out(&rank, session.topics(), &expansion_grid())?);
    Ok(report)
}
