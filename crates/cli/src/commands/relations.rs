//! `litnav relations`: how papers relate through citations — which are disruptive or novel, what
//! is co-cited with what, and the citation path from one paper to another.

use super::{CorpusArg, show};
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::relations::{Measure, Neighbourhood};
use litnav_app::request::{LlmParams, MetricParams, PathParams, RankParams, UnitsName};
use litnav_app::{CorpusSession, analytics_results};
use litnav_core::Sentiment;

/// The relation queries.
#[derive(Debug, clap::Subcommand)]
pub enum Query {
    /// Rank papers by disruption (CD index): the whole corpus, or a topic's papers.
    Disruption(RankArgs),
    /// Rank papers by novelty (Uzzi 10th-percentile z, most novel first).
    Novelty(RankArgs),
    /// Rank papers by in-corpus citations (most cited first), with their percentile.
    Citations(RankArgs),
    /// One paper's citation profile: degrees, CD values and counts, novelty, percentiles, and the
    /// papers most co-cited and most coupled with it.
    Paper(PaperArgs),
    /// The maximum-citation path between two papers, all shortest paths, and their distance.
    Path(PathArgs),
    /// Papers most often cited together with a paper.
    CoCited(NeighbourArgs),
    /// Papers sharing the most references with a paper (bibliographic coupling).
    Coupled(NeighbourArgs),
    /// Papers mentioned in the same paragraph as a paper (needs ingested citation contexts).
    CoMentioned(NeighbourArgs),
    /// How two papers relate: citation either way, co-citation, coupling.
    Pair(PairArgs),
    /// The papers citing a paper and how they speak of it (from ingested citation contexts;
    /// with --llm, unlabelled contexts are classified by the LLM, SciNet's Cite-Sentiment).
    Citers(CitersArgs),
}

#[derive(Debug, clap::Args)]
pub struct CitersArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The cited paper's id.
    id: String,
    /// Only citers whose sentiment is this (positive, neutral or negative).
    #[arg(long, value_parser = |text: &str| text.parse::<Sentiment>())]
    sentiment: Option<Sentiment>,
    #[command(flatten)]
    llm: LlmParams,
}

#[derive(Debug, clap::Args)]
pub struct RankArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    #[command(flatten)]
    pub params: RankParams,
    /// Rank by the values `litnav analytics cd|novelty|counts` wrote (its cd.parquet,
    /// novelty.parquet or counts.parquet, computed from this corpus's `export parquet`) instead
    /// of computing them; the file's window or units apply. Needs the `analytics` build feature.
    #[arg(long, value_name = "FILE")]
    results: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct PaperArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The paper's id.
    id: String,
    #[command(flatten)]
    pub metric: MetricParams,
}

#[derive(Debug, clap::Args)]
pub struct PathArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    #[command(flatten)]
    pub params: PathParams,
}

#[derive(Debug, clap::Args)]
pub struct NeighbourArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The paper's id.
    id: String,
    /// How many papers to list.
    #[arg(long, short, default_value_t = litnav_app::relations::DEFAULT_NEIGHBOURS)]
    k: usize,
    /// List the paper's neighbours from the file `litnav analytics cocitation|coupling` wrote
    /// (from this corpus's `export parquet`) instead of computing them; it holds each paper's top
    /// --top only. Needs the `analytics` build feature.
    #[arg(long, value_name = "FILE")]
    results: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct PairArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// One paper.
    a: String,
    /// The other.
    b: String,
}

/// Open the corpus a relation query names, saying so when it holds no citation edges and the
/// query `needs_edges` (those reading only citation contexts do not).
fn open(corpus: &CorpusArg, needs_edges: bool) -> Result<(litnav_app::Workspace, CorpusSession)> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(corpus.corpus.as_deref(), &Terminal::new())?;
    if needs_edges && let Some(note) = session.edgeless_note()? {
        eprintln!("note: {note}");
    }
    Ok((workspace, session))
}

pub fn run(query: Query) -> Result<()> {
    match query {
        Query::Disruption(args) => rank(args, Measure::Disruption),
        Query::Novelty(args) => rank(args, Measure::Novelty),
        Query::Citations(args) => rank(args, Measure::Citations),
        Query::Paper(args) => paper(args),
        Query::Path(args) => path(args),
        Query::CoCited(args) => neighbours(args, Neighbourhood::CoCited),
        Query::Coupled(args) => neighbours(args, Neighbourhood::Coupled),
        Query::CoMentioned(args) => co_mentioned(args),
        Query::Pair(args) => pair(args),
        Query::Citers(args) => citers(args),
    }
}

fn rank(args: RankArgs, measure: Measure) -> Result<()> {
    let (workspace, session) = open(&args.corpus, true)?;
    let mut request = args.params.resolve(measure, workspace.settings().seed)?;
    if let Some(results) = &args.results {
        let units = args.params.metric.units.map(UnitsName::units);
        analytics_results::use_results(&session, &mut request, units, results)?;
    }
    let progress = Terminal::start(&format!("computing {} for every paper", measure.name().to_lowercase()));
    let ranking = session.rank(&request)?;
    progress.finish();
    show(&ranking, args.corpus.json)
}

fn paper(args: PaperArgs) -> Result<()> {
    let (workspace, session) = open(&args.corpus, true)?;
    let progress = Terminal::start("computing disruption and novelty for every paper");
    let profile = session.profile(&args.id, &args.metric.resolve(workspace.settings().seed)?)?;
    progress.finish();
    show(&profile, args.corpus.json)
}

fn path(args: PathArgs) -> Result<()> {
    let request = args.params.resolve()?;
    let (_, session) = open(&args.corpus, true)?;
    let report = session.path(&request.from, &request.to, request.max_hops, request.shortest_limit)?;
    show(&report, args.corpus.json)
}

fn neighbours(args: NeighbourArgs, which: Neighbourhood) -> Result<()> {
    let (_, session) = open(&args.corpus, true)?;
    let report = match &args.results {
        Some(path) => {
            let (listed, top) = analytics_results::listed_neighbours(path, which, &args.id, args.k)?;
            if args.k > top {
                eprintln!("note: the results keep each paper's top {top} only");
            }
            session.neighbours_listed(&args.id, &listed)?
        }
        None => session.neighbours(&args.id, which, args.k)?,
    };
    if args.corpus.json {
        return super::print_json(&report);
    }
    print!("{}", report.describe(which));
    Ok(())
}

fn co_mentioned(args: NeighbourArgs) -> Result<()> {
    anyhow::ensure!(
        args.results.is_none(),
        "--results holds co-citation or coupling lists; co-mentions come from the corpus"
    );
    let (_, session) = open(&args.corpus, false)?;
    show(&session.co_mentioned(&args.id, args.k)?, args.corpus.json)
}

fn pair(args: PairArgs) -> Result<()> {
    let (_, session) = open(&args.corpus, true)?;
    show(&session.pair(&args.a, &args.b)?, args.corpus.json)
}

fn citers(args: CitersArgs) -> Result<()> {
    let (workspace, session) = open(&args.corpus, false)?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::new();
    let report = session.citers(&args.id, args.sentiment, client.as_ref(), &progress)?;
    progress.finish();
    for why in &report.unlabelled {
        eprintln!("left unlabelled: {why}");
    }
    show(&report, args.corpus.json)
}
