//! The LLM judges over files and corpus papers, each returning its full trace: TaxoBench's tree
//! judge, Bloom-Eval's GRADE, SciNet's path rationality.

use litnav_eval::tree::Tree;
use litnav_llm::{Client, Usage, judges};
use litnav_session::error::{Error, Result};
use litnav_session::session::CorpusSession;
use serde::Serialize;
use std::path::Path;

/// A tree as an indented outline, `max_depth` levels deep, with paper counts.
pub fn outline(tree: &Tree, max_depth: usize) -> String {
    fn walk(tree: &Tree, depth: usize, max_depth: usize, out: &mut String) {
        if depth > max_depth {
            return;
        }
        out.push_str(&format!("{}- {}", "  ".repeat(depth), tree.name));
        if !tree.papers.is_empty() {
            out.push_str(&format!(" ({} papers)", tree.papers.len()));
        }
        out.push('\n');
        for child in &tree.children {
            walk(child, depth + 1, max_depth, out);
        }
    }
    let mut out = String::new();
    walk(tree, 0, max_depth, &mut out);
    out
}

/// The tree judge's verdict on one tree.
#[derive(Debug, Clone, Serialize)]
pub struct TreeVerdict {
    /// The topic judged against.
    pub topic: String,
    /// The outline the judge saw.
    pub outline: String,
    /// Scores and reasons.
    pub judgement: judges::TreeJudgement,
    /// Calls and tokens.
    pub usage: Usage,
}

/// Judge a tree file (TaxoBench JSON, a litnav map, any `{name, subtopics|children}` JSON), on
/// its own or against an expert tree file.
pub fn judge_tree_file(
    client: &Client,
    path: &Path,
    reference: Option<&Path>,
    topic: Option<&str>,
    depth: usize,
) -> Result<TreeVerdict> {
    let tree = crate::tree::read_tree(path)?;
    let expert = reference.map(crate::tree::read_tree).transpose()?;
    let topic = topic.map_or_else(|| expert.as_ref().unwrap_or(&tree).name.clone(), str::to_string);
    judge_tree(client, &topic, &tree, expert.as_ref(), depth)
}

/// Judge a tree, against the expert's when given.
pub fn judge_tree(
    client: &Client,
    topic: &str,
    tree: &Tree,
    expert: Option<&Tree>,
    depth: usize,
) -> Result<TreeVerdict> {
    let text = outline(tree, depth);
    let judgement = match expert {
        Some(expert) => judges::judge_tree_against(client, topic, &outline(expert, depth), &text)?,
        None => judges::judge_tree(client, topic, &text)?,
    };
    Ok(TreeVerdict { topic: topic.to_string(), outline: text, judgement, usage: client.usage() })
}

/// One instance of a batch judgement.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedInstance {
    /// Instance id.
    pub id: String,
    /// Score per dimension.
    pub scores: std::collections::BTreeMap<String, u8>,
    /// Mean of the four.
    pub mean: f64,
    /// The verdict with its reasons.
    pub verdict: TreeVerdict,
}

/// TaxoBench's LLM-as-Judge over a predictions file: every predicted tree against its expert tree.
#[derive(Debug, Clone, Serialize)]
pub struct BatchJudgement {
    /// Judged instances.
    pub judged: Vec<JudgedInstance>,
    /// Mean score per dimension over the judged instances.
    pub means: std::collections::BTreeMap<String, f64>,
    /// Mean of the four means.
    pub mean: f64,
    /// Instances not judged, and why (a judge failure on one instance does not stop the others).
    pub problems: Vec<String>,
    /// Calls and tokens.
    pub usage: Usage,
}

/// Judge every prediction of a TaxoBench predictions file against its instance's expert tree.
pub fn judge_predictions(
    client: &Client,
    data: &Path,
    predictions: &Path,
    depth: usize,
    progress: &dyn litnav_session::Progress,
) -> Result<BatchJudgement> {
    let paired = crate::taxobench::pair_files(data, predictions)?;
    let mut problems = paired.problems;
    let mut judged = Vec::new();
    for (done, pair) in paired.pairs.iter().enumerate() {
        progress.stage(&format!("judging instance {} ({}/{})", pair.id, done + 1, paired.pairs.len()));
        let topic = pair.topic.clone().unwrap_or_else(|| pair.gold.name.clone());
        match judge_tree(client, &topic, &pair.predicted, Some(&pair.gold), depth) {
            Ok(verdict) => {
                let scores = verdict.judgement.dimensions.iter().map(|(k, j)| (k.clone(), j.score)).collect();
                judged.push(JudgedInstance { id: pair.id.clone(), scores, mean: verdict.judgement.mean, verdict });
            }
            Err(e) => problems.push(format!("instance {} not judged: {e}", pair.id)),
        }
    }
    let mut means = std::collections::BTreeMap::new();
    for instance in &judged {
        for (dimension, score) in &instance.scores {
            *means.entry(dimension.clone()).or_insert(0.0) += f64::from(*score) / judged.len() as f64;
        }
    }
    let mean = if means.is_empty() { 0.0 } else { means.values().sum::<f64>() / means.len() as f64 };
    Ok(BatchJudgement { judged, means, mean, problems, usage: client.usage() })
}

impl BatchJudgement {
    /// One JSON line per judged instance: `id`, each dimension's score, `mean` — the shape
    /// `litnav eval agreement` reads.
    pub fn score_lines(&self) -> String {
        let mut out = String::new();
        for instance in &self.judged {
            let mut line = serde_json::json!({"id": instance.id, "mean": instance.mean});
            for (dimension, score) in &instance.scores {
                line[dimension] = serde_json::Value::from(*score);
            }
            out.push_str(&line.to_string());
            out.push('\n');
        }
        out
    }
}

/// GRADE's verdict on a generated survey against an expert one.
#[derive(Debug, Clone, Serialize)]
pub struct GradeVerdict {
    /// The topic.
    pub topic: String,
    /// Rubric, scores and the final G/(G+H).
    pub grade: judges::Grade,
    /// Calls and tokens.
    pub usage: Usage,
}

/// GRADE over two survey files, each cut to `max_chars` characters (small models have small
/// contexts).
pub fn grade_files(
    client: &Client,
    topic: &str,
    expert: &Path,
    generated: &Path,
    max_chars: usize,
) -> Result<GradeVerdict> {
    let read = |path: &Path| -> Result<String> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
        Ok(text.chars().take(max_chars).collect())
    };
    let grade = judges::grade(client, topic, &read(expert)?, &read(generated)?)?;
    Ok(GradeVerdict { topic: topic.to_string(), grade, usage: client.usage() })
}

/// The path judge's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct PathVerdict {
    /// The papers, in path order.
    pub papers: Vec<String>,
    /// Score and reason.
    pub judgement: judges::PathJudgement,
    /// Calls and tokens.
    pub usage: Usage,
}

/// Judge whether corpus papers, in this order, form a coherent lineage.
pub fn judge_path(client: &Client, session: &CorpusSession, ids: &[String]) -> Result<PathVerdict> {
    let papers =
        ids.iter().map(|id| session.require(id).map(litnav_corpus::Paper::as_text)).collect::<Result<Vec<_>>>()?;
    let judgement = judges::judge_path(client, &papers)?;
    Ok(PathVerdict { papers: ids.to_vec(), judgement, usage: client.usage() })
}
