//! `litnav ingest`.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::IngestRequest;
use litnav_corpus::Format;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (created if it does not exist).
    #[arg(long, value_name = "DIR", required_unless_present = "openalex_snapshot")]
    corpus: Option<PathBuf>,
    /// Input files; formats are detected from the name and first record. Paper files are merged
    /// before edge lists and topics, whatever the order given.
    #[arg(required_unless_present_any = ["surveys", "openalex_snapshot"], value_name = "FILE")]
    files: Vec<PathBuf>,
    /// An OpenAlex snapshot (its `data/works/updated_date=…/part_*.gz`) to read into a columnar
    /// corpus (--parquet) for `litnav analytics`, in parallel and in bounded memory. Needs the
    /// `analytics` build feature.
    #[arg(long, value_name = "DIR", requires = "parquet", conflicts_with_all = ["corpus", "files"])]
    openalex_snapshot: Option<PathBuf>,
    /// Where the snapshot's Parquet tables go (a new directory).
    #[arg(long, value_name = "DIR", requires = "openalex_snapshot")]
    parquet: Option<PathBuf>,
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
    if let (Some(snapshot), Some(out)) = (&args.openalex_snapshot, &args.parquet) {
        return snapshot_to_parquet(snapshot, out, args.json);
    }
    let Some(corpus) = args.corpus.clone() else { anyhow::bail!("--corpus is required") };
    let request = IngestRequest {
        files: args.files.clone(),
        format: args.format.as_deref().and_then(Format::from_name),
        skip_bad: args.skip_bad,
        contexts: args.contexts.clone(),
        surveys: args.surveys.clone(),
    };
    let progress = Terminal::start(&format!("ingesting {} file(s) into {}", args.files.len(), corpus.display()));
    let report = litnav_app::Workspace::load()?.ingest(&corpus, &request);
    progress.finish();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    print!("{report}");
    Ok(())
}

/// `ingest --openalex-snapshot DIR --parquet OUT`.
fn snapshot_to_parquet(snapshot: &std::path::Path, out: &std::path::Path, json: bool) -> Result<()> {
    #[cfg(feature = "analytics")]
    {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let progress = Terminal::start(&format!("reading the OpenAlex snapshot {}", snapshot.display()));
        let ingested = litnav_analytics::openalex::ingest_snapshot(snapshot, out, threads);
        progress.finish();
        let ingested = ingested?;
        if json {
            return super::print_json(&ingested);
        }
        println!(
            "{} works and {} references from {} files → {}",
            ingested.works,
            ingested.edges,
            ingested.files,
            out.display()
        );
        Ok(())
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (snapshot, out, json);
        Err(super::analytics::missing_feature())
    }
}
