//! `litnav embed`: sentence vectors for texts, or for every paper of a corpus.

use super::ModelArgs;
use crate::progress::Terminal;
use anyhow::{Context, Result, bail};
use litnav_embed::cache::corpus_cache_path;
use std::path::PathBuf;
use std::time::Instant;

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
    model: ModelArgs,
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
    workspace.encoder(&progress)?;
    let started = Instant::now();
    let fill = workspace.ensure_vectors(dir, &progress)?;
    let seconds = started.elapsed().as_secs_f64();
    let session = workspace.open(Some(dir), &progress)?.with_scan(args.scan.scan());
    let ivf = session.prepare_dense(workspace.encoder(&progress)?, &progress)?;
    progress.finish();
    let path = corpus_cache_path(dir);
    let per_second = if seconds > 0.0 { fill.encoded as f64 / seconds } else { 0.0 };
    let report = serde_json::json!({
        "corpus": dir,
        "cache": path,
        "papers": fill.texts,
        "already_cached": fill.cached,
        "encoded": fill.encoded,
        "seconds": seconds,
        "papers_per_second": per_second,
        "ivf": ivf,
    });
    if args.json {
        return super::print_json(&report);
    }
    println!(
        "{} papers: {} already had vectors, {} encoded in {seconds:.1} s ({per_second:.0}/s); vectors in {}",
        fill.texts,
        fill.cached,
        fill.encoded,
        path.display()
    );
    if let Some(ivf) = ivf {
        println!("approximate index (IVF) in {}", ivf.display());
    }
    Ok(())
}
