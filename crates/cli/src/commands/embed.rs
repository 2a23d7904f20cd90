//! `litnav embed`: sentence vectors for texts, or for every paper of a corpus.

use crate::progress::Terminal;
use anyhow::{Context, Result, bail};
use litnav_app::request::ModelParams;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A text to embed (repeatable).
    #[arg(long, short)]
    text: Vec<String>,
    /// A file with one text per line.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Compute and store vectors for every paper of this corpus (title + abstract); resumable.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["text", "file"])]
    corpus: Option<PathBuf>,
    /// With --corpus: how dense search will scan the vectors; `approximate` (or `auto` above
    /// 250,000 papers) also builds the IVF index now and saves it beside the vectors, so the
    /// first search does not wait for it.
    #[arg(long, value_enum, default_value_t = litnav_app::request::ScanName::Auto)]
    scan: litnav_app::request::ScanName,
    #[command(flatten)]
    model: ModelParams,
    /// Print results as JSON: `[{"text": ..., "vector": [...]}]`, or the corpus report.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(corpus) = &args.corpus {
        return embed_corpus(corpus, &args);
    }
    let mut texts = args.text.clone();
    if let Some(file) = &args.file {
        let content = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        texts.extend(content.lines().map(str::to_string));
    }
    if texts.is_empty() {
        bail!("nothing to embed: give --text, --file or --corpus");
    }
    let workspace = args.model.workspace()?;
    let vectors = workspace.encoder(&Terminal::new())?.embed(&texts);
    if args.json {
        let items: Vec<_> =
            texts.iter().zip(&vectors).map(|(t, v)| serde_json::json!({"text": t, "vector": v})).collect();
        return super::print_json(&items);
    }
    for (text, vector) in texts.iter().zip(&vectors) {
        let head: Vec<String> = vector.iter().take(4).map(|v| format!("{v:+.4}")).collect();
        println!("[{}, …] ({} dims)  {text}", head.join(", "), vector.len());
    }
    Ok(())
}

fn embed_corpus(dir: &std::path::Path, args: &Args) -> Result<()> {
    let workspace = args.model.workspace()?;
    let progress = Terminal::new();
    let report = workspace.embed_corpus(dir, args.scan.scan(), &progress);
    progress.finish();
    super::show(&report?, args.json)
}
