//! The LLM judges over files and corpus papers, each returning its full trace: TaxoBench's tree
//! judge, Bloom-Eval's GRADE, SciNet's path rationality.

use crate::error::{Error, Result};
use crate::session::CorpusSession;
use litnav_eval::tree::Tree;
use litnav_llm::{Client, Usage, judges};
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

/// Judge a tree file (TaxoBench JSON, a litnav map, any `{name, subtopics|children}` JSON).
pub fn judge_tree_file(client: &Client, path: &Path, topic: Option<&str>, depth: usize) -> Result<TreeVerdict> {
    let tree = crate::score::tree::read_tree(path)?;
    let text = outline(&tree, depth);
    let topic = topic.map_or_else(|| tree.name.clone(), str::to_string);
    let judgement = judges::judge_tree(client, &topic, &text)?;
    Ok(TreeVerdict { topic, outline: text, judgement, usage: client.usage() })
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
