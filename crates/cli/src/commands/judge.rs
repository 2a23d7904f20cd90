//! `litnav eval judge …`: the LLM judges, each printing its full trace as JSON.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::judge;
use litnav_app::request::score::{GradeParams, JudgePathParams, JudgeTreeParams};

/// The judges.
#[derive(Debug, clap::Subcommand)]
pub enum Judge {
    /// TaxoBench's tree judge: coverage, sibling organization, hierarchical logic and topology,
    /// 1–5 each with a reason, for a taxonomy or map (JSON) — against the expert's tree with
    /// --reference, as TaxoBench judges; or every prediction of a TaxoBench predictions file
    /// against its instance's expert tree (--data, --predictions).
    Tree(JudgeTreeParams),
    /// Bloom-Eval's GRADE: a weighted rubric from the expert survey, then both surveys scored
    /// criterion by criterion; score = G / (G + H).
    Grade(GradeParams),
    /// SciNet's path rationality: do these papers, in this order, form a coherent lineage (1–10)?
    Path(JudgePathParams),
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
            super::print_json(&judge::grade_files(&client, &args.topic, &args.expert, &args.generated, args.max_chars)?)
        }
        Judge::Path(args) => {
            let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
            let client = args.llm.required(&workspace)?;
            super::print_json(&judge::judge_path(&client, &session, &args.ids)?)
        }
    }
}
