//! `litnav map`: organize a topic's papers into a browsable map.

use super::{LlmArgs, ModelArgs, write_file};
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::Workspace;
use litnav_app::fetch::{FetchRequest, default_corpus, fetch_openalex};
use litnav_app::maps::{self, BottomUpReport, MapOutcome, PaperSource};
use litnav_app::request::{FetchParams, MapParams, ScanName, SourceName};
use litnav_organize::{MapNode, render};
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
    /// Apply this edit log (JSON lines: `{"op": "rename", "node": "t1.s2", "name": …}`, also
    /// move_node, move_paper, remove_paper, merge, split; each with optional `who` and `when`) to
    /// the map before it is written or printed, so an edited map is reproducible from its inputs.
    /// A log that does not fit the map is refused, naming the entry.
    #[arg(long, value_name = "FILE")]
    edits: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    llm: LlmArgs,
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
    let corpus = fetched_corpus(&args, &request.topic, &workspace, &progress)?.or(args.corpus.clone());
    let session = match request.source {
        PaperSource::Retrieve { .. } => {
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
        outcome = outcome.edited(&workspace, &log, &path.display().to_string(), &progress)?;
    }
    progress.finish();
    if let Some(trace) = &outcome.trace {
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(trace)?)?;
    }
    if let Some(report) = &outcome.bottom_up {
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(report)?)?;
        report_bottom_up(report);
    }
    let printed = outcome.printed()?;
    let MapOutcome { map, mut notices, checks, .. } = outcome;
    if let Some(checks) = &checks {
        notices.extend(check_lines(checks, HTML_PROBLEMS));
    }
    write_file(args.out.as_deref(), &serde_json::to_string_pretty(&map)?)?;
    if let Some(path) = &args.taxobench_out {
        let id = args.instance.as_deref().unwrap_or(&request.topic);
        let line = litnav_app::score::taxobench::prediction_line(id, &request.topic, &map);
        write_file(Some(path), &format!("{line}\n"))?;
    }
    write_file(args.markdown.as_deref(), &render::markdown(&map))?;
    write_file(args.html.as_deref(), &render::html(&map, &notices))?;
    if args.json {
        return super::print_json(&printed);
    }
    print_outline(&map);
    if let Some(checks) = &checks {
        check_lines(checks, OUTLINE_PROBLEMS).iter().for_each(|line| println!("{line}"));
    }
    Ok(())
}

/// Problems listed under the outline and on the page (`--json` has them all).
const OUTLINE_PROBLEMS: usize = 10;
const HTML_PROBLEMS: usize = 5;

/// The map's checks without a reference: one summary line, then at most `shown` problems.
fn check_lines(checks: &litnav_eval::checks::TreeChecks, shown: usize) -> Vec<String> {
    let number = |value: Option<f64>| value.map_or("—".to_string(), |v| format!("{v:.2}"));
    let mut lines = vec![format!(
        "checks without a reference: {} problems in {} nodes (entailment {}, semantic-taxonomic ρ {}, balance {})",
        checks.problems.len(),
        checks.nodes,
        number(checks.entailment),
        number(checks.semantic_taxonomic_correlation),
        number(checks.balance),
    )];
    for problem in checks.problems.iter().take(shown) {
        lines.push(format!("  {} “{}”: {}", problem.node, problem.name, problem.reason));
    }
    if checks.problems.len() > shown {
        lines.push(format!("  … {} more (the map's JSON lists them all)", checks.problems.len() - shown));
    }
    lines
}

/// With --fetch, the topic's field fetched into the corpus (named, or the topic's default), and
/// that corpus; without it, nothing (and no fetch flags).
fn fetched_corpus(args: &Args, topic: &str, workspace: &Workspace, progress: &Terminal) -> Result<Option<PathBuf>> {
    let Some(SourceName::Openalex) = args.fetch else {
        if args.fetch_params != FetchParams::default() || args.key.api_key.is_some() {
            anyhow::bail!(
                "--max, --snowball, --snowball-max, --citing-per-work, --api-url, --rate and --api-key go with --fetch"
            );
        }
        return Ok(None);
    };
    let corpus = args.corpus.clone().unwrap_or_else(|| default_corpus(workspace, topic));
    let request = FetchRequest {
        topic: topic.to_string(),
        corpus: corpus.clone(),
        params: args.fetch_params.clone(),
        api_key: args.key.key(),
    };
    fetch_openalex(workspace, &request, progress)?;
    Ok(Some(corpus))
}

/// Tell the user, on standard error, what the LLM Bottom-Up organizer had to work around.
fn report_bottom_up(report: &BottomUpReport) {
    let trace = &report.trace;
    let offline = trace.requests.iter().filter(|r| r.organized_offline.is_some()).count();
    let fixed = trace.requests.iter().filter(|r| r.fixed_by_litnav.is_some()).count();
    eprintln!(
        "LLM Bottom-Up: {} request(s), {} grouping(s), {} call(s) ({} from the cache), {} + {} tokens",
        trace.requests.len(),
        trace.groupings.len(),
        trace.usage.calls,
        trace.usage.cache_hits,
        trace.usage.prompt_tokens,
        trace.usage.completion_tokens
    );
    if fixed > 0 {
        eprintln!("  {fixed} answer(s) placed papers twice or never; litnav placed those papers by content");
    }
    if offline > 0 {
        eprintln!("  {offline} answer(s) could not be read after a repair; those papers were organized offline");
    }
    if !report.notes_failed.is_empty() {
        eprintln!(
            "  {} paper(s) shown without their {} (the extraction failed; see --llm-trace)",
            report.notes_failed.len(),
            report.input.noun()
        );
    }
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
