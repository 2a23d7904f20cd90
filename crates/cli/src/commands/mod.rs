//! One module per subcommand.

pub mod bench;
pub mod embed;
pub mod eval;
pub mod expand;
pub mod info;
pub mod ingest;
pub mod judge;
pub mod llm;
pub mod map;
pub mod model;
pub mod relations;
pub mod scinet;
pub mod search;

use anyhow::Result;
use clap::Subcommand;

/// litnav's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Organize a topic into a map: themes and subtopics with names, descriptions and their
    /// papers — as an outline, JSON, Markdown or a self-contained HTML page.
    Map(map::Args),
    /// Grow one subtopic of a map: retrieve new papers for it and organize them into a sub-map.
    Expand(expand::Args),
    /// Create or extend a corpus from paper files (litbench/litnav JSONL, TaxoBench data.jsonl,
    /// OpenAlex works, BibTeX) and citation edge lists (citing_id,cited_id CSV).
    Ingest(ingest::Args),
    /// Report a corpus's counts and field coverage.
    Info(info::Args),
    /// Rank a corpus's papers for a query (BM25 over title and abstract).
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
    /// Install or inspect the sentence encoder.
    #[command(subcommand)]
    Model(model::Action),
    /// Run a benchmark suite and report its numbers.
    #[command(subcommand)]
    Bench(bench::Suite),
}

/// Run one subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Map(args) => map::run(args),
        Command::Expand(args) => expand::run(args),
        Command::Ingest(args) => ingest::run(args),
        Command::Info(args) => info::run(args),
        Command::Search(args) => search::run(args),
        Command::Embed(args) => embed::run(args),
        Command::Model(action) => model::run(action),
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
