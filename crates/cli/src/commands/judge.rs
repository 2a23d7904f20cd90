//! `litnav eval judge …`: the LLM judges, each printing its full trace.

use super::llm::LlmArgs;
use anyhow::{Context, Result, bail};
use litnav_eval::taxobench::Tree;
use litnav_llm::{Client, judges, prompts::PaperText};
use std::path::{Path, PathBuf};

/// The judges.
#[derive(Debug, clap::Subcommand)]
pub enum Judge {
    /// TaxoBench's tree judge: coverage, sibling organization, hierarchical logic and topology,
    /// 1–5 each with a reason, for a taxonomy or map (JSON).
    Tree(TreeArgs),
    /// Bloom-Eval's GRADE: a weighted rubric from the expert survey, then both surveys scored
    /// criterion by criterion; score = G / (G + H).
    Grade(GradeArgs),
    /// SciNet's path rationality: do these papers, in this order, form a coherent lineage (1–10)?
    Path(PathArgs),
}

#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    /// The tree (TaxoBench JSON, a litnav map, or any `{name, subtopics|children}` JSON).
    #[arg(long, value_name = "FILE")]
    tree: PathBuf,
    /// The topic (default: the root's name).
    #[arg(long)]
    topic: Option<String>,
    /// Levels of the outline shown to the judge.
    #[arg(long, default_value_t = 3)]
    depth: usize,
    #[command(flatten)]
    llm: LlmArgs,
}

#[derive(Debug, clap::Args)]
pub struct GradeArgs {
    /// The topic.
    #[arg(long)]
    topic: String,
    /// The expert survey (text or Markdown; an outline is enough).
    #[arg(long, value_name = "FILE")]
    expert: PathBuf,
    /// The generated survey.
    #[arg(long, value_name = "FILE")]
    generated: PathBuf,
    /// Characters of each survey shown to the judge (the rest is cut; small models have small
    /// contexts).
    #[arg(long, default_value_t = 6000)]
    max_chars: usize,
    #[command(flatten)]
    llm: LlmArgs,
}

#[derive(Debug, clap::Args)]
pub struct PathArgs {
    /// Corpus holding the papers (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Paper ids, in path order.
    #[arg(required = true, num_args = 2..)]
    ids: Vec<String>,
    #[command(flatten)]
    llm: LlmArgs,
}

fn client(llm: &LlmArgs) -> Result<Client> {
    // A judge always needs the LLM: --llm is implied.
    let forced = LlmArgs { llm: true, ..llm.clone() };
    Ok(forced.client()?.expect("--llm is set"))
}

fn outline(tree: &Tree, depth: usize, max_depth: usize, out: &mut String) {
    if depth > max_depth {
        return;
    }
    out.push_str(&format!("{}- {}", "  ".repeat(depth), tree.name));
    if !tree.papers.is_empty() {
        out.push_str(&format!(" ({} papers)", tree.papers.len()));
    }
    out.push('\n');
    for child in &tree.children {
        outline(child, depth + 1, max_depth, out);
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

pub fn run(judge: Judge) -> Result<()> {
    match judge {
        Judge::Tree(args) => {
            let value: serde_json::Value = serde_json::from_str(&read(&args.tree)?)
                .with_context(|| format!("{} is not JSON", args.tree.display()))?;
            let tree = Tree::from_json(&value).map_err(|e| anyhow::anyhow!("{}: {e}", args.tree.display()))?;
            let mut text = String::new();
            outline(&tree, 0, args.depth, &mut text);
            let topic = args.topic.clone().unwrap_or_else(|| tree.name.clone());
            let client = client(&args.llm)?;
            let judgement = judges::judge_tree(&client, &topic, &text)?;
            super::print_json(
                &serde_json::json!({ "topic": topic, "outline": text, "judgement": judgement, "usage": client.usage() }),
            )
        }
        Judge::Grade(args) => {
            let cut = |text: String| -> String { text.chars().take(args.max_chars).collect() };
            let (expert, generated) = (cut(read(&args.expert)?), cut(read(&args.generated)?));
            let client = client(&args.llm)?;
            let grade = judges::grade(&client, &args.topic, &expert, &generated)?;
            super::print_json(&serde_json::json!({ "topic": args.topic, "grade": grade, "usage": client.usage() }))
        }
        Judge::Path(args) => {
            let dir = crate::defaults::corpus(args.corpus.as_deref())?;
            let corpus = litnav_corpus::Corpus::open(&dir)?;
            let mut papers = Vec::new();
            for id in &args.ids {
                match corpus.papers().iter().find(|p| &p.id == id) {
                    Some(p) => papers.push(PaperText { title: &p.title, abstract_text: p.abstract_text.as_deref() }),
                    None => bail!("no paper with id `{id}` in {}", dir.display()),
                }
            }
            let client = client(&args.llm)?;
            let judgement = judges::judge_path(&client, &papers)?;
            super::print_json(
                &serde_json::json!({ "papers": args.ids, "judgement": judgement, "usage": client.usage() }),
            )
        }
    }
}
