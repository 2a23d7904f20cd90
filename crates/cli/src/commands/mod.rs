//! One module per subcommand, and the flags several share.

pub mod analytics;
pub mod bench;
pub mod cluster;
pub mod embed;
pub mod eval;
pub mod expand;
pub mod export;
pub mod fetch;
pub mod info;
pub mod ingest;
pub mod judge;
pub mod map;
pub mod mcp;
pub mod model;
pub mod relations;
pub mod search;
pub mod serve;

use anyhow::Result;
use clap::Subcommand;
use std::path::{Path, PathBuf};

/// litnav's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Organize a topic into a map: themes and subtopics with names, descriptions and their
    /// papers — as an outline, JSON, Markdown or a self-contained HTML page.
    Map(Box<map::Args>),
    /// Grow one subtopic of a map: retrieve new papers for it and organize them into a sub-map.
    Expand(expand::Args),
    /// Create or extend a corpus from paper files (litbench/litnav JSONL, TaxoBench data.jsonl,
    /// OpenAlex works, BibTeX) and citation edge lists (citing_id,cited_id CSV).
    Ingest(litnav_app::request::ingest::IngestParams),
    /// Build a corpus for a topic from a scholarly source (OpenAlex): the topic's works, the works
    /// they cite and the works citing them, with the citations among them. The only command that
    /// opens a network connection, and only to the source named.
    #[command(subcommand)]
    Fetch(fetch::Source),
    /// Report a corpus's counts and field coverage.
    Info(info::Args),
    /// Rank a corpus's papers for a query (the expanded search by default; --mode for the others).
    Search(search::Args),
    /// Sentence vectors (all-MiniLM-L6-v2) for texts, or for every paper of a corpus.
    Embed(embed::Args),
    /// How papers relate through citations: disruption, novelty, co-citation, coupling,
    /// co-mention, and the citation path between two papers.
    #[command(subcommand)]
    Relations(relations::Query),
    /// Score other systems' outputs with the field's metrics.
    #[command(subcommand)]
    Eval(eval::Scorer),
    /// Write a corpus's topics and relevance judgments as TREC files, to score any retrieval
    /// system with `litnav eval retrieval`.
    #[command(subcommand)]
    Export(export::What),
    /// Serve the navigator as a web application with an HTTP API: browse, expand and relate maps
    /// of a corpus in a browser (loopback only unless told otherwise).
    Serve(serve::Args),
    /// Citation analytics over a columnar corpus (Parquet) on the in-memory graph, embedded
    /// DataFusion or a Ballista cluster, for corpora beyond one machine's memory.
    #[command(subcommand)]
    Analytics(analytics::Query),
    /// Run a Ballista scheduler or executor with litnav's functions (for `analytics --engine
    /// ballista`).
    #[command(subcommand)]
    Cluster(cluster::Role),
    /// Serve the corpus to agents over the Model Context Protocol on standard input and output:
    /// search, paper, citations, related, path, map, expand and the TaxoBench and Bloom-Eval scorers
    /// as tools (and a fetch from OpenAlex, when allowed the network).
    Mcp(mcp::Args),
    /// Install or inspect the sentence encoder.
    #[command(subcommand)]
    Model(model::Action),
    /// Run a benchmark suite and report its numbers (the harness is in builds with the `bench`
    /// feature: `cargo build --release --features bench`).
    #[command(subcommand)]
    Bench(bench::Suite),
}

/// Run one subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Map(args) => map::run(*args),
        Command::Expand(args) => expand::run(args),
        Command::Ingest(args) => ingest::run(args),
        Command::Fetch(source) => fetch::run(source),
        Command::Info(args) => info::run(args),
        Command::Search(args) => search::run(args),
        Command::Embed(args) => embed::run(args),
        Command::Export(what) => export::run(what),
        Command::Serve(args) => serve::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Model(action) => model::run(action),
        Command::Analytics(query) => analytics::run(query),
        Command::Cluster(role) => cluster::run(role),
        Command::Relations(query) => relations::run(query),
        Command::Eval(scorer) => eval::run(scorer),
        Command::Bench(suite) => bench::run(suite),
    }
}

/// Print a value as pretty JSON on standard output.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    use std::io::Write;
    // Serialize first, so that a closed pipe surfaces as an I/O error the binary recognizes.
    let text = serde_json::to_string_pretty(value)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    Ok(())
}

/// Print a report: as JSON, or as its own text.
pub fn show<T: serde::Serialize + std::fmt::Display>(report: &T, json: bool) -> Result<()> {
    if json {
        return print_json(report);
    }
    print!("{report}");
    Ok(())
}

/// Write `text` to `path` (when given) through a temporary file and a rename, so a reader never
/// sees half a file.
pub fn write_file(path: Option<&Path>, text: &str) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    litnav_corpus::store::write_atomically(path, text.as_bytes())?;
    Ok(())
}

/// Where a command's corpus is, and whether to print JSON.
#[derive(Debug, clap::Args)]
pub struct CorpusArg {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
