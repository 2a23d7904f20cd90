//! `litnav map`: organize a topic's papers into a browsable map.

use super::{LlmArgs, ModelArgs, write_file};
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::maps::{self, DEFAULT_MAP_PAPERS, MapRequest, PaperSource};
use litnav_organize::{MapNode, Method, Options, render};
use litnav_search::Filter;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MethodArg {
    /// Average-linkage (UPGMA) agglomerative clustering on cosine distance.
    Average,
    /// Ward agglomerative clustering.
    Ward,
    /// Knowledge Navigator's pipeline: UMAP (seeded) + Gaussian mixture, soft assignments kept.
    Navigator,
    /// Seeded spherical k-means.
    Kmeans,
}

impl MethodArg {
    /// The organizer's method.
    pub fn method(self) -> Method {
        match self {
            MethodArg::Ward => Method::Ward,
            MethodArg::Average => Method::Average,
            MethodArg::Kmeans => Method::KMeans,
            MethodArg::Navigator => Method::Navigator,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The topic, in plain words (also the map's title).
    #[arg(long, short)]
    topic: String,
    /// Corpus to retrieve the topic's papers from (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR", conflicts_with = "papers")]
    corpus: Option<PathBuf>,
    /// How many papers to retrieve for the topic (hybrid BM25 + dense search).
    #[arg(long, short, default_value_t = DEFAULT_MAP_PAPERS)]
    k: usize,
    /// Organize exactly these papers instead of retrieving (Bottom-Up mode): any file litnav
    /// ingests (litbench JSONL, OpenAlex, BibTeX, TaxoBench data.jsonl …).
    #[arg(long, value_name = "FILE")]
    papers: Option<PathBuf>,
    /// With --papers: keep only the papers of this topic of the file — a TaxoBench instance id
    /// (`--papers data.jsonl --instance 3`) or any topic id the file defines.
    #[arg(long, value_name = "ID", requires = "papers")]
    instance: Option<String>,
    /// Write the map as JSON (TaxoBench-compatible tree with ids, descriptions, relevance).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the map as a TaxoBench prediction line (`id` — the --instance, else the topic —,
    /// `hierarchy_tree` without the "Filtered" branch, `retrieved_papers`), for `litnav eval
    /// taxobench` or the public scorer.
    #[arg(long, value_name = "FILE")]
    taxobench_out: Option<PathBuf>,
    /// Write a Markdown outline.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write a self-contained HTML page to browse the map.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Seed of every stochastic step (default: the settings' seed, 42).
    #[arg(long)]
    seed: Option<u64>,
    /// Move subtopics whose cosine to the topic is below this under a final "Filtered" node
    /// (default 0.35 when retrieving from a corpus, 0 — keep all — with --papers).
    #[arg(long, value_name = "COSINE")]
    min_relevance: Option<f64>,
    /// Subtopic clustering: average-linkage agglomerative (the most even on litnav's organizer
    /// benchmarks), Ward agglomerative cut at the silhouette's k, Knowledge Navigator's UMAP +
    /// Gaussian mixture, or k-means.
    #[arg(long, value_enum, default_value_t = MethodArg::Average)]
    method: MethodArg,
    /// Organize subtopics with more papers than this again, into deeper levels (up to three).
    #[arg(long, value_name = "PAPERS")]
    recurse_above: Option<usize>,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    llm: LlmArgs,
    /// Write what the LLM stage did (each cluster's reading, repairs, tokens) as JSON.
    #[arg(long, value_name = "FILE")]
    llm_trace: Option<PathBuf>,
    /// Print the map as JSON on standard output.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let workspace = args.model.workspace()?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::new();
    let source = match &args.papers {
        Some(path) => PaperSource::File { path: path.clone(), instance: args.instance.clone() },
        None => PaperSource::Retrieve { k: args.k, filter: Filter::default() },
    };
    let session = match source {
        PaperSource::Retrieve { .. } => Some(workspace.open(args.corpus.as_deref(), &progress)?),
        PaperSource::File { .. } => None,
    };
    let options = Options {
        seed: args.seed.unwrap_or(workspace.settings().seed),
        method: args.method.method(),
        recurse_above: args.recurse_above,
        ..Options::default()
    };
    let request = MapRequest {
        topic: args.topic.clone(),
        source,
        options,
        min_relevance: args.min_relevance,
        llm_papers: args.llm.llm_papers,
    };
    let outcome = maps::build_map(&workspace, session.as_ref(), &request, client.as_ref(), &progress)?;
    progress.finish();
    if let Some(trace) = &outcome.trace {
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(trace)?)?;
    }
    let map = outcome.map;
    write_file(args.out.as_deref(), &serde_json::to_string_pretty(&map)?)?;
    if let Some(path) = &args.taxobench_out {
        let id = args.instance.as_deref().unwrap_or(&args.topic);
        let line = litnav_app::score::taxobench::prediction_line(id, &args.topic, &map);
        write_file(Some(path), &format!("{line}\n"))?;
    }
    write_file(args.markdown.as_deref(), &render::markdown(&map))?;
    write_file(args.html.as_deref(), &render::html(&map))?;
    if args.json {
        return super::print_json(&map);
    }
    print_outline(&map);
    Ok(())
}

/// Print a map as an indented outline.
pub fn print_outline(map: &MapNode) {
    println!("{} — {}", map.name, map.description);
    for theme in &map.subtopics {
        print_node(theme, 1);
    }
}

fn print_node(node: &MapNode, depth: usize) {
    let indent = "  ".repeat(depth);
    let count = match node.paper_ids.len() {
        0 => String::new(),
        1 => " (1 paper)".to_string(),
        n => format!(" ({n} papers)"),
    };
    println!("{indent}{} {}{count}  [relevance {:.2}]", node.id, node.name, node.relevance);
    for child in &node.subtopics {
        print_node(child, depth + 1);
    }
}
