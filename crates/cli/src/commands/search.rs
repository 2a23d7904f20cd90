//! `litnav search`.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::request::{ModelParams, SearchParams};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    pub params: SearchParams,
    #[command(flatten)]
    model: ModelParams,
    /// Print results as JSON: a list of {"id","title","year","score"} in rank order ("known" on
    /// the paper the query named, which comes first).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let request = args.params.resolve()?;
    let workspace = args.model.workspace()?;
    let progress = Terminal::new();
    let session = workspace.open(args.corpus.as_deref(), &progress)?;
    let hits = session.answer(&request, &workspace, &progress)?;
    progress.finish();
    if args.json {
        return super::print_json(&hits);
    }
    if hits.is_empty() {
        println!("no papers match");
    }
    for (rank, hit) in hits.iter().enumerate() {
        let retracted = litnav_app::relations::retracted_mark(session.paper(&hit.id)?.is_some_and(|p| p.retracted));
        let known = hit.known.as_ref().map_or(String::new(), |by| format!("  (named by its {by})"));
        println!(
            "{:>3}. {:>7.3}  {}  {}  [{}]{known}{retracted}",
            rank + 1,
            hit.score,
            litnav_app::year(hit.year),
            hit.title,
            hit.id
        );
    }
    Ok(())
}
