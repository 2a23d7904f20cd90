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
    let workspace = super::workspace()?;
    let (corpus, out) = match &what {
        What::Topics(args) => (args.corpus.as_deref(), args.out.as_deref()),
        What::Qrels(args) => (args.corpus.as_deref(), args.out.as_deref()),
    };
    let dir = workspace.corpus_dir(corpus, &Terminal::new())?;
    let corpus = litnav_corpus::Corpus::open(&dir)?;
    let text = match &what {
        What::Topics(args) => {
            let format = match args.format {
                FormatArg::Tsv => TopicFormat::Tsv,
                FormatArg::Trec => TopicFormat::Trec,
            };
            trec::export_topics(corpus.topics(), format)?
        }
        What::Qrels(_) => trec::export_qrels(corpus.topics())?,
    };
    match out {
        Some(path) => super::write_file(Some(path), &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
