//! `litnav info`.

use super::CorpusArg;
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::info::report;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    corpus: CorpusArg,
}

pub fn run(args: Args) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let dir = workspace.corpus_dir(args.corpus.corpus.as_deref(), &Terminal::new())?;
    let report = report(&litnav_corpus::Corpus::open(&dir)?)?;
    super::show(&report, args.corpus.json)
}
