//! TREC files and their scoring: qrels (`query iteration document grade`) and runs (`query Q0
//! document rank score tag`), ranked as trec_eval ranks them, scored with Recall, Precision and
//! nDCG at cut-offs and MRR.

use crate::error::{Error, Result};
use litnav_eval::retrieval::{ndcg_graded_at, precision_at, recall_at, reciprocal_rank};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// Judgments: query → document → grade.
pub type Qrels = BTreeMap<String, HashMap<String, f64>>;

/// Ranked documents per query.
pub type Run = HashMap<String, Vec<String>>;

/// Each non-blank line of a file as its 1-based number and its white-space separated fields.
fn for_each_line(path: &Path, mut visit: impl FnMut(usize, &[&str]) -> Result<()>) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    let mut fields = Vec::new();
    for (i, line) in text.lines().enumerate() {
        fields.clear();
        fields.extend(line.split_whitespace());
        if !fields.is_empty() {
            visit(i + 1, &fields)?;
        }
    }
    Ok(())
}

fn number(text: &str, path: &Path, line: usize, field: &str) -> Result<f64> {
    text.parse()
        .map_err(|_| Error::input(format!("{}:{line}: field `{field}`: `{text}` is not a number", path.display())))
}

/// Read qrels.
pub fn read_qrels(path: &Path) -> Result<Qrels> {
    let mut qrels = Qrels::new();
    for_each_line(path, |line, fields| {
        let [query, _, document, grade] = fields else {
            return Err(Error::input(format!(
                "{}:{line}: a qrels line has 4 fields (query iteration document grade), found {}",
                path.display(),
                fields.len()
            )));
        };
        let grade = number(grade, path, line, "grade")?;
        // Looked up by `&str` first: one allocation per new query, not one per line.
        if let Some(judged) = qrels.get_mut(*query) {
            judged.insert(document.to_string(), grade);
        } else {
            qrels.insert(query.to_string(), HashMap::from([(document.to_string(), grade)]));
        }
        Ok(())
    })?;
    Ok(qrels)
}

/// Read a run, ranked as trec_eval ranks it: by score, decreasing, ties by document id in
/// decreasing order (the file's rank column is ignored, as trec_eval ignores it).
pub fn read_run(path: &Path) -> Result<Run> {
    let mut scored: HashMap<String, Vec<(f64, String)>> = HashMap::new();
    for_each_line(path, |line, fields| {
        let [query, _, document, _, score, ..] = fields else {
            return Err(Error::input(format!(
                "{}:{line}: a run line has 6 fields (query Q0 document rank score tag), found {}",
                path.display(),
                fields.len()
            )));
        };
        let score = number(score, path, line, "score")?;
        if let Some(docs) = scored.get_mut(*query) {
            docs.push((score, document.to_string()));
        } else {
            scored.insert(query.to_string(), vec![(score, document.to_string())]);
        }
        Ok(())
    })?;
    Ok(rank(scored))
}

/// Scored documents per query ranked as trec_eval ranks them: by score, decreasing, ties by
/// document id in decreasing order.
pub fn rank(scored: HashMap<String, Vec<(f64, String)>>) -> Run {
    scored
        .into_iter()
        .map(|(query, mut docs)| {
            docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
            (query, docs.into_iter().map(|(_, d)| d).collect())
        })
        .collect()
}

/// The scores of one query (or their means): `recall@k`, `precision@k`, `ndcg@k` per cut-off,
/// then `mrr`.
pub type Scores = serde_json::Map<String, serde_json::Value>;

/// A run's scores against qrels.
#[derive(Debug, Clone, Serialize)]
pub struct RetrievalReport {
    /// Queries with at least one relevant document (the others are not scored).
    pub queries: usize,
    /// Means over those queries.
    pub mean: Scores,
    /// Per query, when asked for.
    pub per_query: Option<Vec<QueryScores>>,
}

impl std::fmt::Display for RetrievalReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} queries with relevant documents (queries missing from the run score 0)", self.queries)?;
        write!(f, "{}", super::numbers(&self.mean))?;
        for row in self.per_query.iter().flatten() {
            writeln!(f, "query {}", row.query)?;
            write!(f, "{}", super::numbers(&row.scores))?;
        }
        Ok(())
    }
}

/// One query's scores.
#[derive(Debug, Clone, Serialize)]
pub struct QueryScores {
    /// The query id.
    pub query: String,
    /// Its scores.
    pub scores: Scores,
}

/// Score `run` against `qrels` at the cut-offs `k`. Queries missing from the run score 0.
pub fn score(qrels: &Qrels, run: &Run, k: &[usize], per_query: bool) -> Result<RetrievalReport> {
    let mut rows = Vec::new();
    for (query, judged) in qrels {
        let relevant: HashSet<&str> = judged.iter().filter(|(_, g)| **g > 0.0).map(|(d, _)| d.as_str()).collect();
        if relevant.is_empty() {
            continue;
        }
        let grades: HashMap<&str, f64> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
        let ranking: Vec<&str> = run.get(query).map(|r| r.iter().map(String::as_str).collect()).unwrap_or_default();
        let mut scores = Scores::new();
        for &k in k {
            scores.insert(format!("recall@{k}"), recall_at(&ranking, &relevant, k).into());
            scores.insert(format!("precision@{k}"), precision_at(&ranking, &relevant, k).into());
            scores.insert(format!("ndcg@{k}"), ndcg_graded_at(&ranking, &grades, k).into());
        }
        scores.insert("mrr".into(), reciprocal_rank(&ranking, &relevant, ranking.len()).into());
        rows.push(QueryScores { query: query.clone(), scores });
    }
    let Some(first) = rows.first() else {
        return Err(Error::input("no query has a relevant document"));
    };
    let mut mean = Scores::new();
    for key in first.scores.keys() {
        let total: f64 = rows.iter().map(|r| r.scores[key].as_f64().unwrap_or(0.0)).sum();
        mean.insert(key.clone(), (total / rows.len() as f64).into());
    }
    Ok(RetrievalReport { queries: rows.len(), mean, per_query: per_query.then_some(rows) })
}

/// Read and score a run file against a qrels file.
pub fn score_files(qrels: &Path, run: &Path, k: &[usize], per_query: bool) -> Result<RetrievalReport> {
    let judged = read_qrels(qrels)?;
    score(&judged, &read_run(run)?, k, per_query).map_err(|e| e.context(format!("scoring {}", qrels.display())))
}

/// How topics are written for other retrieval systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TopicFormat {
    /// `id<TAB>query` per line (Anserini/Pyserini's topic files).
    Tsv,
    /// TREC's `<top>` blocks (`<num>`, `<title>`).
    Trec,
}

/// The corpus topics a retrieval system can be scored on: those with resolved references.
fn scorable(topics: &[litnav_corpus::Topic]) -> Result<Vec<&litnav_corpus::Topic>> {
    let kept: Vec<&litnav_corpus::Topic> = topics.iter().filter(|t| !t.reference_ids.is_empty()).collect();
    if kept.is_empty() {
        return Err(Error::not_found("the corpus has no topics with resolved references to judge by"));
    }
    for topic in &kept {
        check_token(&topic.id, "topic id")?;
    }
    Ok(kept)
}

/// A TREC field must be one whitespace-free token.
fn check_token(text: &str, what: &str) -> Result<()> {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        return Err(Error::input(format!(
            "{what} {text:?} cannot be written in TREC files (it is empty or holds white space)"
        )));
    }
    Ok(())
}

/// Every scorable topic: its id and its survey's title as the query (one line, white space
/// collapsed).
pub fn export_topics(topics: &[litnav_corpus::Topic], format: TopicFormat) -> Result<String> {
    let mut out = String::new();
    for topic in scorable(topics)? {
        let query = topic.title.split_whitespace().collect::<Vec<_>>().join(" ");
        match format {
            TopicFormat::Tsv => out.push_str(&format!("{}\t{query}\n", topic.id)),
            TopicFormat::Trec => out.push_str(&format!(
                "<top>\n<num> Number: {}\n<title> {}\n</top>\n\n",
                topic.id,
                escape_markup(&query)
            )),
        }
    }
    Ok(out)
}

fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Relevance judgments: every resolved reference of every scorable topic, grade 1
/// (`topic 0 paper 1`), topics in corpus order, references in the survey's order.
pub fn export_qrels(topics: &[litnav_corpus::Topic]) -> Result<String> {
    let mut out = String::new();
    for topic in scorable(topics)? {
        let mut seen = HashSet::new();
        for paper in topic.reference_ids.iter().filter(|id| seen.insert(id.as_str())) {
            check_token(paper, "paper id")?;
            out.push_str(&format!("{} 0 {paper} 1\n", topic.id));
        }
    }
    Ok(out)
}
