//! `litnav ingest`.

use anyhow::{Context, Result};
use litnav_corpus::{Format, IngestOutcome, ReadOptions, ingest_files};
use litnav_graph::{Graph, contexts, store as graph_store};
use litnav_search::{BuildOptions, LexicalIndex, lexical};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (created if it does not exist).
    #[arg(long, value_name = "DIR")]
    corpus: PathBuf,
    /// Input files; formats are detected from the name and first record. Paper files are merged
    /// before edge lists and topics, whatever the order given.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Read every file as this format instead of detecting it.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Format::ALL.map(|(_, name)| name)))]
    format: Option<String>,
    /// Citation contexts (JSONL: citing_id, cited_id, paragraph, text, optional sentiment) to keep
    /// with the citation graph; contexts ingested earlier are kept too.
    #[arg(long, value_name = "FILE")]
    contexts: Vec<PathBuf>,
    /// Skip malformed records (reporting how many and why) instead of stopping at the first.
    #[arg(long)]
    skip_bad: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// How many skipped-record reasons to show per file.
const SHOWN_REASONS: usize = 5;

pub fn run(args: Args) -> Result<()> {
    let options = ReadOptions { format: args.format.as_deref().and_then(Format::from_name), skip_bad: args.skip_bad };
    let bar =
        crate::progress::spinner(&format!("ingesting {} file(s) into {}", args.files.len(), args.corpus.display()));
    let outcome = ingest(&args.corpus, &args.files, options, &args.contexts);
    bar.finish_and_clear();
    let outcome = outcome?;
    if args.json {
        return super::print_json(&summary(&outcome));
    }
    print_human(&args.corpus, &outcome);
    Ok(())
}

/// Ingest `files` (and citation `context_files`) into the corpus at `dir`, building the lexical
/// index and the citation graph for the new generation.
pub fn ingest(dir: &Path, files: &[PathBuf], options: ReadOptions, context_files: &[PathBuf]) -> Result<IngestOutcome> {
    let contexts = gather_contexts(dir, context_files)?;
    ingest_files(dir, files, options, |staging, papers| {
        let artifact_error = |name: &str, e: Box<dyn std::error::Error + Send + Sync>| litnav_corpus::Error::Artifact {
            name: name.into(),
            source: e,
        };
        LexicalIndex::build(&staging.join(lexical::ARTIFACT), papers, BuildOptions::default())
            .map_err(|e| artifact_error(lexical::ARTIFACT, Box::new(e)))?;
        graph_store::save(&staging.join(graph_store::ARTIFACT), &Graph::from_papers(papers), &contexts)
            .map_err(|e| artifact_error(graph_store::ARTIFACT, Box::new(e)))?;
        Ok(vec![lexical::ARTIFACT.to_string(), graph_store::ARTIFACT.to_string()])
    })
    .with_context(|| format!("ingest into {} failed; the corpus is unchanged", dir.display()))
}

/// The contexts the corpus already keeps followed by those in `files`, without exact repeats.
fn gather_contexts(dir: &Path, files: &[PathBuf]) -> Result<Vec<contexts::CitationContext>> {
    let mut all = Vec::new();
    if litnav_corpus::store::exists(dir)
        && let Some(artifact) = graph_store::artifact_dir(dir)?
    {
        all = graph_store::load_contexts(&artifact)?;
    }
    for file in files {
        all.extend(contexts::read_jsonl(file)?);
    }
    let mut seen = std::collections::HashSet::new();
    all.retain(|c| seen.insert(c.clone()));
    Ok(all)
}

fn summary(outcome: &IngestOutcome) -> serde_json::Value {
    let files: Vec<_> = outcome
        .files
        .iter()
        .map(|(path, format, skipped)| {
            serde_json::json!({
                "file": path,
                "format": format.name(),
                "skipped": skipped.len(),
                "skipped_reasons": skipped.iter().take(SHOWN_REASONS).map(|e| e.to_string()).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({ "manifest": outcome.manifest, "merge": outcome.report, "files": files })
}

fn print_human(dir: &Path, outcome: &IngestOutcome) {
    let m = &outcome.manifest;
    let r = &outcome.report;
    println!("corpus {} — generation {}", dir.display(), m.generation);
    for (path, format, skipped) in &outcome.files {
        println!("  read {} as {}", path.display(), format.name());
        if !skipped.is_empty() {
            println!("    skipped {} malformed record(s); first reasons:", skipped.len());
            for reason in skipped.iter().take(SHOWN_REASONS) {
                println!("      {reason}");
            }
        }
    }
    println!(
        "  {} paper records: {} new, {} merged into existing papers; {} topics added, {} replaced",
        r.paper_records, r.papers_added, r.papers_merged, r.topics_added, r.topics_replaced
    );
    if r.edge_records > 0 {
        println!(
            "  {} edge records; {} dropped (citing paper not in the corpus)",
            r.edge_records, r.edges_dropped_unknown_citing
        );
        for example in &r.dropped_examples {
            println!("    e.g. {example}");
        }
    }
    println!(
        "now: {} papers, {} topics, {} citation edges in the corpus, {} references to outside works",
        m.papers, m.topics, m.edges, m.external_references
    );
}
