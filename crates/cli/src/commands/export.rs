//! `litnav export`: a corpus's topics and their judgments as TREC files, so any retrieval system
//! can be scored with `litnav eval retrieval` (or trec_eval).

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::request::score::{ExportParquetParams, ExportQrelsParams, ExportTopicsParams};
use litnav_app::score::trec;

/// What to export.
#[derive(Debug, clap::Subcommand)]
pub enum What {
    /// The topics with resolved references: id and the survey's title as the query.
    Topics(ExportTopicsParams),
    /// Relevance judgments: each topic's resolved references, grade 1 (`topic 0 paper 1`).
    Qrels(ExportQrelsParams),
    /// The whole corpus as Parquet tables (papers, edges, topics, contexts) for `litnav
    /// analytics`; the schema is in ARCHITECTURE.md. Needs the `analytics` build feature.
    Parquet(ExportParquetParams),
}

pub fn run(what: What) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    // The topic format, or None for judgments.
    let (corpus, out, format) = match &what {
        What::Topics(args) => (args.corpus.as_deref(), args.out.as_deref(), Some(args.format)),
        What::Qrels(args) => (args.corpus.as_deref(), args.out.as_deref(), None),
        What::Parquet(args) => return parquet(&workspace, args),
    };
    let dir = workspace.corpus_dir(corpus, &Terminal::new())?;
    let corpus = litnav_corpus::Corpus::open(&dir)?;
    let text = match format {
        Some(format) => trec::export_topics(corpus.topics(), format)?,
        None => trec::export_qrels(corpus.topics())?,
    };
    match out {
        Some(path) => super::write_file(Some(path), &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// `export parquet`: the corpus's papers, graph and contexts as the columnar corpus.
fn parquet(workspace: &litnav_app::Workspace, args: &ExportParquetParams) -> Result<()> {
    let dir = workspace.corpus_dir(args.corpus.as_deref(), &Terminal::new())?;
    let session = litnav_app::CorpusSession::open(&dir)?;
    print!("{}", litnav_app::analytics::export_parquet(&session, &args.out)?);
    Ok(())
}
