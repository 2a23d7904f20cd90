//! `litnav map`: organize a topic's papers into a browsable map.

use super::write_file;
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::fetch::fetch_for_map;
use litnav_app::maps::{self, MapOutcome, PaperSource};
use litnav_app::request::{FetchParams, LlmParams, MapParams, ModelParams, ScanName, SourceName};
use litnav_organize::render;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    params: MapParams,
    /// Corpus to retrieve the topic's papers from (default: the built-in litbench corpus; with
    /// --fetch, $LITNAV_HOME/corpora/fetched/TOPIC).
    #[arg(long, value_name = "DIR", conflicts_with = "papers")]
    corpus: Option<PathBuf>,
    /// Fetch the topic's field from this source into the corpus first (the topic's works, the works
    /// they cite and the works citing them; see `litnav fetch`), then map it.
    #[arg(long, value_enum, value_name = "SOURCE", conflicts_with = "papers")]
    fetch: Option<SourceName>,
    #[command(flatten)]
    fetch_params: FetchParams,
    /// How retrieval scans the paper vectors (default: auto — exact below 250,000 papers).
    #[arg(long, value_enum)]
    scan: Option<ScanName>,
    #[command(flatten)]
    key: super::fetch::KeyArg,
    /// Organize exactly these papers instead of retrieving (Bottom-Up mode): any file litnav
    /// ingests (litbench JSONL, OpenAlex, BibTeX, TaxoBench data.jsonl …).
    #[arg(long, value_name = "FILE")]
    papers: Option<PathBuf>,
    /// With --papers: keep only the papers of this topic of the file — a TaxoBench instance id
    /// (`--papers data.jsonl --instance 3`) or any topic id the file defines.
    #[arg(long, value_name = "ID", requires = "papers")]
    instance: Option<String>,
    /// Write the map as JSON, what --json prints: the tree (TaxoBench-compatible, with ids,
    /// descriptions, relevance) and beside it the coverage verdict and the map's checks.
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
    /// Apply this edit log (JSON lines: `{"op": "rename", "node": "t1.s2", "name": …}`, also
    /// move_node, move_paper, remove_paper, merge, split; each with optional `who` and `when`) to
    /// the map before it is written or printed, so an edited map is reproducible from its inputs.
    /// A log that does not fit the map is refused, naming the entry.
    #[arg(long, value_name = "FILE")]
    edits: Option<PathBuf>,
    #[command(flatten)]
    model: ModelParams,
    #[command(flatten)]
    llm: LlmParams,
    /// Write what the LLM did as JSON (the LLM stage: each cluster's reading, repairs, tokens;
    /// --method llm: each request, grouping, failed extraction and the tokens).
    #[arg(long, value_name = "FILE")]
    llm_trace: Option<PathBuf>,
    /// Print the map as JSON on standard output.
    #[arg(long)]
    json: bool,
}

impl Args {
    /// The map's options, the LLM's among them.
    pub fn params(&self) -> MapParams {
        MapParams { llm: self.llm.llm.then_some(true), llm_papers: self.llm.llm_papers, ..self.params.clone() }
    }
}

pub fn run(args: Args) -> Result<()> {
    let workspace = args.model.workspace()?;
    let params = args.params();
    let seed = workspace.settings().seed;
    let request = match &args.papers {
        Some(path) => params.resolve_file(seed, path.clone(), args.instance.clone())?,
        None => params.resolve(seed)?,
    };
    let client = if params.needs_llm() { Some(args.llm.required(&workspace)?) } else { None };
    let progress = Terminal::new();
    let (topic, corpus, key) = (&request.topic, args.corpus.clone(), args.key.key());
    let fetched = fetch_for_map(&workspace, args.fetch, topic, corpus, &args.fetch_params, key, &progress)?;
    let corpus = fetched.or(args.corpus.clone());
    let session = match request.source {
        PaperSource::Retrieve(_) => {
            let session = workspace.open(corpus.as_deref(), &progress)?;
            Some(match args.scan {
                Some(scan) => session.with_scan(scan.scan()),
                None => session,
            })
        }
        PaperSource::File { .. } => None,
    };
    let mut outcome = maps::build_map(&workspace, session.as_ref(), &request, client.as_ref(), &progress)?;
    if let Some(path) = &args.edits {
        let log = litnav_app::edits::read_log(path)?;
        outcome = outcome.edited(&workspace, &log, &path.display().to_string(), client.as_ref(), &progress)?;
    }
    progress.finish();
    if let Some(trace) = &outcome.trace {
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(trace)?)?;
    }
    if let Some(report) = &outcome.bottom_up {
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(report)?)?;
        eprint!("{report}");
    }
    let printed = outcome.printed()?;
    write_file(args.markdown.as_deref(), &outcome.markdown())?;
    write_file(args.html.as_deref(), &outcome.html())?;
    write_file(args.out.as_deref(), &serde_json::to_string_pretty(&printed)?)?;
    let MapOutcome { map, checks, .. } = outcome;
    if let Some(path) = &args.taxobench_out {
        let id = args.instance.as_deref().unwrap_or(&request.topic);
        let line = litnav_app::score::taxobench::prediction_line(id, &request.topic, &map);
        write_file(Some(path), &format!("{line}\n"))?;
    }
    if args.json {
        return super::print_json(&printed);
    }
    print!("{}", render::outline(&map));
    if let Some(checks) = &checks {
        maps::check_lines(checks, OUTLINE_PROBLEMS).iter().for_each(|line| println!("{line}"));
    }
    Ok(())
}

/// Problems listed under the outline (`--json` has them all).
const OUTLINE_PROBLEMS: usize = 10;
