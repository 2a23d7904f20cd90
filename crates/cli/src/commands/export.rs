//! `litnav export`: a corpus's topics and their judgments as TREC files, so any retrieval system
//! can be scored with `litnav eval retrieval` (or trec_eval).

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::score::trec::{self, TopicFormat};
use std::path::PathBuf;

/// What to export.
#[derive(Debug, clap::Subcommand)]
pub enum What {
    /// The topics with resolved references: id and the survey's title as the query.
    Topics(TopicsArgs),
    /// Relevance judgments: each topic's resolved references, grade 1 (`topic 0 paper 1`).
    Qrels(QrelsArgs),
    /// The whole corpus as Parquet tables (papers, edges, topics, contexts) for `litnav
    /// analytics`; the schema is in ARCHITECTURE.md. Needs the `analytics` build feature.
    Parquet(ParquetArgs),
}

#[derive(Debug, clap::Args)]
pub struct ParquetArgs {
    /// Corpus (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Directory to write the tables into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// `id<TAB>query` per line.
    Tsv,
    /// TREC `<top>` blocks.
    Trec,
}

#[derive(Debug, clap::Args)]
pub struct TopicsArgs {
    /// Corpus (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Topic file layout.
    #[arg(long, value_enum, default_value_t = FormatArg::Tsv)]
    format: FormatArg,
    /// Write here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct QrelsArgs {
    /// Corpus (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Write here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
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
        Some(FormatArg::Tsv) => trec::export_topics(corpus.topics(), TopicFormat::Tsv)?,
        Some(FormatArg::Trec) => trec::export_topics(corpus.topics(), TopicFormat::Trec)?,
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
fn parquet(workspace: &litnav_app::Workspace, args: &ParquetArgs) -> Result<()> {
    let dir = workspace.corpus_dir(args.corpus.as_deref(), &Terminal::new())?;
    #[cfg(feature = "analytics")]
    {
        let session = litnav_app::CorpusSession::open(&dir)?;
        let citations = session.citations()?;
        let exported = litnav_analytics::export::export_corpus(
            session.papers(),
            session.topics(),
            &citations.graph,
            &citations.contexts,
            &args.out,
        )?;
        println!(
            "{} papers, {} citation edges, {} topics, {} citation contexts → {}",
            exported.papers,
            exported.edges,
            exported.topics,
            exported.contexts,
            args.out.display()
        );
        Ok(())
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = dir;
        Err(super::analytics::missing_feature())
    }
}
