//! `litnav analytics …`: citation analytics over a columnar corpus (Parquet, from `litnav export
//! parquet` or an OpenAlex snapshot), on the in-memory graph, embedded DataFusion, or a Ballista
//! cluster (`litnav cluster`). The queries and their options are the application's
//! (`litnav_app::analytics`); the engines need the `analytics` build feature.

use anyhow::Result;
use litnav_app::request::analytics::{
    AnalyticsQuery, CdParams, CountsParams, EngineParams, NoveltyParams, RelatedParams,
};
use std::path::PathBuf;

/// The analytics.
#[derive(Debug, clap::Subcommand)]
pub enum Query {
    /// The CD disruption index of every paper (as the `cdindex` package defines it), written as
    /// OUT/cd.parquet; `litnav relations disruption --results OUT/cd.parquet` reads it back.
    Cd(Args<CdParams>),
    /// Every paper's in-corpus citations and references, and the percentile rank of its
    /// citations among all papers', written as OUT/counts.parquet.
    Counts(Args<CountsParams>),
    /// Every paper's most co-cited papers (cited together with it by a third), written as
    /// OUT/cocitation.parquet; `litnav relations co-cited ID --results …` reads it back.
    Cocitation(Args<RelatedParams>),
    /// Every paper's most coupled papers (citing references in common with it), written as
    /// OUT/coupling.parquet; `litnav relations coupled ID --results …` reads it back.
    Coupling(Args<RelatedParams>),
    /// Every paper's novelty (Uzzi's z-scores of its reference pairs: 10th percentile and
    /// median) against the expected null, which distributes; written as OUT/novelty.parquet,
    /// read back by `litnav relations novelty --results …`.
    Novelty(Args<NoveltyParams>),
}

/// The tables, where results go, the engine and the query's own options.
#[derive(Debug, clap::Args)]
pub struct Args<T: clap::Args> {
    /// The columnar corpus: a directory with papers and edges tables.
    #[arg(long, value_name = "DIR")]
    parquet: PathBuf,
    /// Where to write the result table.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    engine: EngineParams,
    #[command(flatten)]
    pub params: T,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// The query with its options and the engine's, as the application takes them.
pub fn request(query: Query) -> (AnalyticsQuery, EngineParams) {
    let (query, _, _, engine, _) = parts(query);
    (query, engine)
}

fn parts(query: Query) -> (AnalyticsQuery, PathBuf, PathBuf, EngineParams, bool) {
    match query {
        Query::Cd(a) => (AnalyticsQuery::Cd(a.params), a.parquet, a.out, a.engine, a.json),
        Query::Counts(a) => (AnalyticsQuery::Counts(a.params), a.parquet, a.out, a.engine, a.json),
        Query::Cocitation(a) => (AnalyticsQuery::Cocitation(a.params), a.parquet, a.out, a.engine, a.json),
        Query::Coupling(a) => (AnalyticsQuery::Coupling(a.params), a.parquet, a.out, a.engine, a.json),
        Query::Novelty(a) => (AnalyticsQuery::Novelty(a.params), a.parquet, a.out, a.engine, a.json),
    }
}

pub fn run(query: Query) -> Result<()> {
    let (query, parquet, out, engine, json) = parts(query);
    let report = litnav_app::analytics::run(&query, &engine, &parquet, &out)?;
    super::show(&report, json)
}
