//! `litnav search`.

use anyhow::Result;
use litnav_search::{LexicalIndex, SearchQuery};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// What to look for, in plain words (no query syntax).
    #[arg(long, short)]
    query: String,
    /// How many results.
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    /// Only papers published strictly before this year (papers of unknown year are excluded).
    #[arg(long, value_name = "YEAR")]
    before: Option<i32>,
    /// Leave out surveys and reviews.
    #[arg(long)]
    exclude_surveys: bool,
    /// Weight of title matches relative to abstract matches.
    #[arg(long, default_value_t = 1.0)]
    title_boost: f32,
    /// Weight of abstract matches.
    #[arg(long, default_value_t = 1.0)]
    abstract_boost: f32,
    /// Print results as JSON: a list of {"id","title","year","score"} in rank order.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let dir = crate::defaults::corpus(args.corpus.as_deref())?;
    let index = LexicalIndex::open_corpus(&dir)?;
    let query = SearchQuery {
        k: args.k,
        before: args.before,
        exclude_surveys: args.exclude_surveys,
        title_boost: args.title_boost,
        abstract_boost: args.abstract_boost,
        ..SearchQuery::new(args.query)
    };
    let hits = index.search(&query)?;
    if args.json {
        return super::print_json(&hits);
    }
    if hits.is_empty() {
        println!("no papers match");
    }
    for (rank, hit) in hits.iter().enumerate() {
        let year = hit.year.map_or_else(|| "    ".to_string(), |y| y.to_string());
        println!("{:>3}. {:>7.3}  {year}  {}  [{}]", rank + 1, hit.score, hit.title, hit.id);
    }
    Ok(())
}
