//! `litnav ingest`.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::IngestRequest;
use litnav_corpus::Format;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (created if it does not exist).
    #[arg(long, value_name = "DIR")]
    corpus: PathBuf,
    /// Input files; formats are detected from the name and first record. Paper files are merged
    /// before edge lists and topics, whatever the order given.
    #[arg(required_unless_present = "surveys", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Read every file as this format instead of detecting it.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Format::ALL.map(|(_, name)| name)))]
    format: Option<String>,
    /// Citation contexts (JSONL: citing_id, cited_id, paragraph, text, optional sentiment) to keep
    /// with the citation graph; contexts ingested earlier are kept too.
    #[arg(long, value_name = "FILE")]
    contexts: Vec<PathBuf>,
    /// Surveys (Bloom-Eval directories or Markdown files) whose citation contexts to keep: each
    /// sentence citing a reference that resolves to a corpus paper, with its paragraph and section.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    surveys: Vec<PathBuf>,
    /// Skip malformed records (reporting how many and why) instead of stopping at the first.
    #[arg(long)]
    skip_bad: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let request = IngestRequest {
        files: args.files.clone(),
        format: args.format.as_deref().and_then(Format::from_name),
        skip_bad: args.skip_bad,
        contexts: args.contexts.clone(),
        surveys: args.surveys.clone(),
    };
    let progress = Terminal::start(&format!("ingesting {} file(s) into {}", args.files.len(), args.corpus.display()));
    let report = super::workspace()?.ingest(&args.corpus, &request);
    progress.finish();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    print!("{report}");
    Ok(())
}
