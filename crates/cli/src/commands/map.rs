//! `litnav map`: organize a topic's papers into a browsable map.

use super::{LlmArgs, ModelArgs, write_file};
use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::Workspace;
use litnav_app::fetch::{FetchRequest, default_corpus, fetch_openalex};
use litnav_app::maps::{
    self, BottomUpReport, BottomUpSettings, DEFAULT_MAP_PAPERS, MAP_FLOOR, MapOutcome, MapRequest, PaperSource,
};
use litnav_app::request::{FetchParams, SourceName};
use litnav_llm::extract::Input;
use litnav_organize::{MapNode, Method, Options, render};
use litnav_search::ScoreFloor;
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
    /// TaxoBench's LLM Bottom-Up organizer: the model reads the papers (--llm-batch per
    /// request, the requests' categories grouped into themes) and writes the taxonomy; needs an
    /// LLM endpoint (implies --llm).
    Llm,
}

impl MethodArg {
    /// The clustering method (the LLM organizer's offline fallback clusters by the default).
    pub fn method(self) -> Method {
        match self {
            MethodArg::Ward => Method::Ward,
            MethodArg::Average | MethodArg::Llm => Method::Average,
            MethodArg::Kmeans => Method::KMeans,
            MethodArg::Navigator => Method::Navigator,
        }
    }

    /// The LLM client this method needs: always for `llm`, else only with --llm.
    pub fn client(self, llm: &LlmArgs, workspace: &Workspace) -> Result<Option<litnav_llm::Client>> {
        match self {
            MethodArg::Llm => Ok(Some(llm.required(workspace)?)),
            _ => llm.client(workspace),
        }
    }
}

/// TaxoBench's input settings (seed 000, "Input Settings").
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputArg {
    /// Title and abstract.
    TitleAbstract,
    /// Plus a summary the LLM extracts from each paper (problem, motivation, methods,
    /// conclusions, contributions; cached per paper).
    Summary,
    /// Plus the paper's core task and claimed contributions, extracted by the LLM (cached).
    CoreTask,
}

/// The LLM Bottom-Up organizer's flags.
#[derive(Debug, clap::Args)]
pub struct BottomUpArgs {
    /// With --method llm: what the model is shown of each paper besides the title and the start
    /// of its abstract (TaxoBench's input settings).
    #[arg(long, value_enum, default_value_t = InputArg::TitleAbstract)]
    input: InputArg,
    /// With --method llm: most papers in one request (a larger set is cut into batches of
    /// neighbouring papers whose categories are then grouped); raise it for models with a long
    /// context.
    #[arg(long, value_name = "PAPERS", default_value_t = BottomUpSettings::default().batch)]
    llm_batch: usize,
}

impl BottomUpArgs {
    /// The organizer's settings when `method` is `llm`; these flags with another method are an
    /// error rather than silently ignored.
    pub fn settings(&self, method: MethodArg) -> Result<Option<BottomUpSettings>> {
        if method != MethodArg::Llm {
            if self.input != InputArg::TitleAbstract {
                anyhow::bail!("--input chooses what the LLM Bottom-Up organizer sees: it needs --method llm");
            }
            return Ok(None);
        }
        if self.llm_batch < 2 {
            anyhow::bail!("--llm-batch must be at least 2 papers, not {}", self.llm_batch);
        }
        let input = match self.input {
            InputArg::TitleAbstract => Input::TitleAbstract,
            InputArg::Summary => Input::Summary,
            InputArg::CoreTask => Input::CoreTask,
        };
        Ok(Some(BottomUpSettings { batch: self.llm_batch, input, ..BottomUpSettings::default() }))
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The topic, in plain words (also the map's title).
    #[arg(long, short)]
    topic: String,
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
    #[command(flatten)]
    key: super::fetch::KeyArg,
    /// How many papers to retrieve for the topic at most (the expanded search).
    #[arg(long, short, default_value_t = DEFAULT_MAP_PAPERS)]
    k: usize,
    /// Keep the retrieved papers whose neighbourhood relevance (their search scores smoothed over
    /// their 8 nearest hits) is at least this share of the best; 0 keeps all k.
    #[arg(long, value_name = "SHARE", default_value_t = MAP_FLOOR.share, value_parser = share)]
    min_score: f32,
    /// Papers a map keeps whatever their relevance (the best ones).
    #[arg(long, value_name = "PAPERS", default_value_t = MAP_FLOOR.at_least)]
    min_papers: usize,
    /// Leakage filters on the retrieved papers (with a corpus; a --papers file is organized whole).
    #[command(flatten)]
    filter: super::FilterArgs,
    /// How retrieval scans the paper vectors (with a corpus).
    #[arg(long, value_enum, default_value_t = litnav_app::request::ScanName::Auto)]
    scan: litnav_app::request::ScanName,
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
    /// Seed of every stochastic step (default: the settings' seed, 42).
    #[arg(long)]
    seed: Option<u64>,
    /// Move subtopics whose cosine to the topic is below this under a final "Filtered" node
    /// (default 0 — keep all — with --papers or a score floor; 0.35 with --min-score 0).
    #[arg(long, value_name = "COSINE", value_parser = cosine)]
    min_relevance: Option<f64>,
    /// Subtopic clustering: average-linkage agglomerative (the most even on litnav's organizer
    /// benchmarks), Ward agglomerative cut at the silhouette's k, Knowledge Navigator's UMAP +
    /// Gaussian mixture, k-means — or the LLM Bottom-Up organizer.
    #[arg(long, value_enum, default_value_t = MethodArg::Average)]
    method: MethodArg,
    #[command(flatten)]
    bottom_up: BottomUpArgs,
    /// Organize subtopics with more papers than this again, into deeper levels (up to three).
    #[arg(long, value_name = "PAPERS")]
    recurse_above: Option<usize>,
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

/// A share of the best score: a number from 0 to 1 ([`maps::floor_share`]).
fn share(text: &str) -> std::result::Result<f32, String> {
    let share = text.parse::<f32>().map_err(|_| format!("expected a number between 0 and 1, not {text:?}"))?;
    maps::floor_share(share).map_err(|e| e.to_string())
}

/// A cosine to the topic: a number from -1 to 1 ([`maps::relevance_floor`]).
pub(super) fn cosine(text: &str) -> std::result::Result<f64, String> {
    let cosine = text.parse::<f64>().map_err(|_| format!("expected a number between -1 and 1, not {text:?}"))?;
    maps::relevance_floor(cosine).map_err(|e| e.to_string())
}

pub fn run(args: Args) -> Result<()> {
    let workspace = args.model.workspace()?;
    let bottom_up = args.bottom_up.settings(args.method)?;
    let client = args.method.client(&args.llm, &workspace)?;
    let progress = Terminal::new();
    if args.papers.is_some() && (args.filter.before.is_some() || args.filter.exclude_surveys) {
        anyhow::bail!(
            "--before and --exclude-surveys filter retrieval from a corpus; --papers organizes the file whole"
        );
    }
    let source = match &args.papers {
        Some(path) => PaperSource::File { path: path.clone(), instance: args.instance.clone() },
        None => PaperSource::Retrieve {
            k: args.k,
            filter: args.filter.filter(),
            floor: ScoreFloor { share: args.min_score, at_least: args.min_papers, ..MAP_FLOOR },
        },
    };
    let corpus = fetched_corpus(&args, &workspace, &progress)?.or(args.corpus.clone());
    let session = match source {
        PaperSource::Retrieve { .. } => Some(workspace.open(corpus.as_deref(), &progress)?.with_scan(args.scan.scan())),
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
        bottom_up,
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
        let id = args.instance.as_deref().unwrap_or(&args.topic);
        let line = litnav_app::score::taxobench::prediction_line(id, &args.topic, &map);
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
fn fetched_corpus(args: &Args, workspace: &Workspace, progress: &Terminal) -> Result<Option<PathBuf>> {
    let Some(SourceName::Openalex) = args.fetch else {
        if args.fetch_params != FetchParams::default() || args.key.api_key.is_some() {
            anyhow::bail!(
                "--max, --snowball, --snowball-max, --citing-per-work, --api-url, --rate and --api-key go with --fetch"
            );
        }
        return Ok(None);
    };
    let corpus = args.corpus.clone().unwrap_or_else(|| default_corpus(workspace, &args.topic));
    let request = FetchRequest {
        topic: args.topic.clone(),
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
