//! `litnav bench …`: benchmark suites.

use anyhow::Result;
use clap::Subcommand;
use litnav_bench::search;
use std::path::PathBuf;

/// The suites.
#[derive(Debug, Subcommand)]
pub enum Suite {
    /// Lexical search: index build throughput (papers/s) and query latency p50/p99, on the real
    /// litbench corpus and on a synthetic corpus replicated from it.
    Search(SearchArgs),
}

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Paper files to index (default: litbench's corpus.jsonl).
    #[arg(long, value_name = "FILE")]
    papers: Vec<PathBuf>,
    /// Size of the synthetic corpus (0 skips it).
    #[arg(long, default_value_t = 100_000)]
    synthetic: usize,
    /// Queries sampled from the corpus titles.
    #[arg(long, default_value_t = 300)]
    queries: usize,
    /// Hits per query.
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    /// Index builds per corpus (median reported).
    #[arg(long, default_value_t = 3)]
    builds: usize,
    /// Timed passes over the queries.
    #[arg(long, default_value_t = 3)]
    passes: usize,
    /// Also run the Python peer (bm25s, `pip install bm25s PyStemmer`) on the same corpora and
    /// queries, and report litnav's speed-up over it.
    #[arg(long)]
    peer: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(suite: Suite) -> Result<()> {
    match suite {
        Suite::Search(args) => run_search(args),
    }
}

fn run_search(args: SearchArgs) -> Result<()> {
    let papers = if args.papers.is_empty() {
        vec![crate::defaults::datasets()?.join("litbench/corpus.jsonl")]
    } else {
        args.papers
    };
    let options = search::Options {
        papers,
        queries: Vec::new(),
        sample_queries: args.queries,
        synthetic_size: args.synthetic,
        build_repeats: args.builds,
        query_passes: args.passes,
        k: args.k,
        peer: args.peer,
    };
    let bar = crate::progress::spinner("benchmarking lexical search");
    let report = search::run(&options);
    bar.finish_and_clear();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    println!("lexical search benchmark (k = {}, {} indexing threads)", report.k, report.threads);
    println!(
        "{:<10} {:>8} {:>10} {:>12} {:>8} {:>9} {:>9}",
        "corpus", "papers", "build s", "papers/s", "queries", "p50 ms", "p99 ms"
    );
    for c in &report.corpora {
        println!(
            "{:<10} {:>8} {:>10.3} {:>12.0} {:>8} {:>9.3} {:>9.3}",
            c.name, c.papers, c.build_seconds, c.docs_per_second, c.queries, c.p50_ms, c.p99_ms
        );
    }
    if let Some(library) = &report.peer_library {
        println!("peer: {library} (Python), same corpora and queries");
        for c in &report.corpora {
            if let Some(p) = &c.peer {
                println!(
                    "{:<10} {:>8} {:>10.3} {:>12.0} {:>8} {:>9.3} {:>9.3}   litnav is {:.1}x faster to build, {:.1}x faster per query (p50)",
                    c.name,
                    p.papers,
                    p.build_seconds,
                    p.docs_per_second,
                    p.queries,
                    p.p50_ms,
                    p.p99_ms,
                    p.build_speedup,
                    p.p50_speedup
                );
            }
        }
    }
    Ok(())
}
