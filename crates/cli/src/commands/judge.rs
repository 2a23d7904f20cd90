//! `litnav eval judge …`: the LLM judges, each printing its full trace as JSON.

use super::LlmArgs;
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::judge;
use std::path::PathBuf;

/// The judges.
#[derive(Debug, clap::Subcommand)]
pub enum Judge {
    /// TaxoBench's tree judge: coverage, sibling organization, hierarchical logic and topology,
    /// 1–5 each with a reason, for a taxonomy or map (JSON) — against the expert's tree with
    /// --reference, as TaxoBench judges; or every prediction of a TaxoBench predictions file
    /// against its instance's expert tree (--data, --predictions).
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
    #[arg(long, value_name = "FILE", required_unless_present = "predictions", conflicts_with = "predictions")]
    tree: Option<PathBuf>,
    /// The expert tree to judge against (TaxoBench's LLM-as-Judge).
    #[arg(long, value_name = "FILE", requires = "tree")]
    reference: Option<PathBuf>,
    /// Batch mode: TaxoBench predictions (`id`, `hierarchy_tree`), each judged against its
    /// instance's expert tree in --data.
    #[arg(long, value_name = "FILE", requires = "data")]
    predictions: Option<PathBuf>,
    /// Batch mode: TaxoBench's data.jsonl (expert trees in `gt`).
    #[arg(long, value_name = "FILE", requires = "predictions")]
    data: Option<PathBuf>,
    /// Batch mode: write each instance's scores as a JSON line (`id`, dimensions, `mean`) — the
    /// shape `litnav eval agreement` reads.
    #[arg(long, value_name = "FILE", requires = "predictions")]
    output: Option<PathBuf>,
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

pub fn run(which: Judge) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    match which {
        Judge::Tree(args) => {
            let client = args.llm.required(&workspace)?;
            if let (Some(predictions), Some(data)) = (&args.predictions, &args.data) {
                let progress = Terminal::start("judging predicted trees against the expert trees");
                let batch = judge::judge_predictions(&client, data, predictions, args.depth, &progress)?;
                progress.finish();
                for problem in &batch.problems {
                    eprintln!("warning: {problem}");
                }
                super::write_file(args.output.as_deref(), &batch.score_lines())?;
                return super::print_json(&batch);
            }
            let tree = args.tree.as_deref().ok_or_else(|| anyhow::anyhow!("give --tree FILE or --predictions FILE"))?;
            let verdict =
                judge::judge_tree_file(&client, tree, args.reference.as_deref(), args.topic.as_deref(), args.depth)?;
            super::print_json(&verdict)
        }
        Judge::Grade(args) => {
            let client = args.llm.required(&workspace)?;
            let verdict = judge::grade_files(&client, &args.topic, &args.expert, &args.generated, args.max_chars)?;
            super::print_json(&verdict)
        }
        Judge::Path(args) => {
            let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
            let client = args.llm.required(&workspace)?;
            super::print_json(&judge::judge_path(&client, &session, &args.ids)?)
        }
    }
}
