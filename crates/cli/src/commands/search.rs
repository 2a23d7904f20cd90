//! `litnav search`.

use super::ModelArgs;
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::SearchRequest;
use litnav_search::hybrid::Fusion;
use litnav_search::{Expansion, Mode};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// BM25 over title and abstract.
    Bm25,
    /// Cosine similarity of all-MiniLM-L6-v2 vectors (exact).
    Dense,
    /// BM25 and dense fused (reciprocal rank fusion by default).
    Hybrid,
    /// Hybrid with feedback, widened by the neighbours of its best hits (the best measured on
    /// the litbench surveys; BENCHMARKS.md).
    Expanded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FusionArg {
    /// Reciprocal rank fusion: Σ 1/(k + rank).
    Rrf,
    /// α·BM25 + (1−α)·cosine, each min–max normalized over its candidates.
    Weighted,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// What to look for, in plain words (no query syntax).
    #[arg(long, short)]
    query: String,
    /// How many results.
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    #[command(flatten)]
    filter: super::FilterArgs,
    /// Weight of title matches relative to abstract matches (BM25).
    #[arg(long, default_value_t = 1.0)]
    title_boost: f32,
    /// Weight of abstract matches (BM25).
    #[arg(long, default_value_t = 1.0)]
    abstract_boost: f32,
    /// How dense and hybrid modes scan the paper vectors.
    #[arg(long, value_enum, default_value_t = super::ScanArg::Auto)]
    scan: super::ScanArg,
    /// Retrieval mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Expanded)]
    mode: ModeArg,
    /// Best hits the expanded mode searches again.
    #[arg(long, default_value_t = Expansion::default().seeds)]
    seeds: usize,
    /// How hybrid mode fuses.
    #[arg(long, value_enum, default_value_t = FusionArg::Rrf)]
    fusion: FusionArg,
    /// The k of reciprocal rank fusion.
    #[arg(long, default_value_t = 60.0)]
    rrf_k: f32,
    /// Weight of BM25 in weighted fusion.
    #[arg(long, default_value_t = 0.5)]
    alpha: f32,
    #[command(flatten)]
    model: ModelArgs,
    /// Print results as JSON: a list of {"id","title","year","score"} in rank order.
    #[arg(long)]
    json: bool,
}

impl Args {
    fn mode(&self) -> Mode {
        match self.mode {
            ModeArg::Bm25 => Mode::Bm25,
            ModeArg::Dense => Mode::Dense,
            ModeArg::Hybrid => Mode::Hybrid(match self.fusion {
                FusionArg::Rrf => Fusion::Rrf(self.rrf_k),
                FusionArg::Weighted => Fusion::Weighted(self.alpha),
            }),
            ModeArg::Expanded => Mode::Expanded(Expansion { seeds: self.seeds, ..Expansion::default() }),
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    let workspace = args.model.workspace()?;
    let progress = Terminal::new();
    let session = workspace.open(args.corpus.as_deref(), &progress)?.with_scan(args.scan.scan());
    let request = SearchRequest {
        query: args.query.clone(),
        k: args.k,
        mode: args.mode(),
        filter: args.filter.filter(),
        title_boost: args.title_boost,
        abstract_boost: args.abstract_boost,
        scan: None,
    };
    let hits = match request.mode {
        Mode::Bm25 => session.search_lexical(&request)?,
        _ => session.search(&request, workspace.encoder(&progress)?, &progress)?,
    };
    progress.finish();
    if args.json {
        return super::print_json(&hits);
    }
    if hits.is_empty() {
        println!("no papers match");
    }
    for (rank, hit) in hits.iter().enumerate() {
        println!("{:>3}. {:>7.3}  {}  {}  [{}]", rank + 1, hit.score, litnav_app::year(hit.year), hit.title, hit.id);
    }
    Ok(())
}
