//! `litnav expand`: grow one subtopic of a map with new papers and organize it into its own map.

use super::write_file;
use crate::progress::Terminal;
use anyhow::{Context, Result};
use litnav_app::maps;
use litnav_app::request::{ExpandParams, LlmParams, ModelParams};
use litnav_organize::{MapNode, render};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The map (JSON written by `litnav map --out`).
    #[arg(long, value_name = "FILE")]
    map: PathBuf,
    /// Id of the subtopic or theme to expand (e.g. `t2.s1`).
    #[arg(long, value_name = "ID")]
    subtopic: String,
    /// Corpus to retrieve new papers from (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    params: ExpandParams,
    /// Write the sub-map as JSON.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the sub-map as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    model: ModelParams,
    /// With --llm, Knowledge Navigator's Subtopic Expander writes the query (terms from the
    /// subtopic's papers; the offline phrases are the fallback when its answer is unusable), and
    /// the Cluster Reader and Thematic Organizer name and group the sub-map.
    #[command(flatten)]
    llm: LlmParams,
    /// Write what the LLM stage did on the sub-map as JSON.
    #[arg(long, value_name = "FILE")]
    llm_trace: Option<PathBuf>,
    /// Print the sub-map as JSON.
    #[arg(long)]
    json: bool,
}

impl Args {
    /// The expansion's options, the LLM's among them.
    pub fn params(&self) -> ExpandParams {
        ExpandParams { llm: self.llm.llm.then_some(true), llm_papers: self.llm.llm_papers, ..self.params.clone() }
    }
}

pub fn run(args: Args) -> Result<()> {
    let text = std::fs::read_to_string(&args.map).with_context(|| format!("cannot read {}", args.map.display()))?;
    let map: MapNode =
        serde_json::from_str(&text).with_context(|| format!("{} is not a litnav map", args.map.display()))?;
    let workspace = args.model.workspace()?;
    let params = args.params();
    let request = params.resolve(&args.subtopic, workspace.settings().seed)?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::new();
    let session = workspace.open(args.corpus.as_deref(), &progress)?;
    let expansion = maps::expand(&workspace, &session, &map, &request, client.as_ref(), &progress)?;
    progress.finish();
    if let Some(why) = &expansion.expander_error {
        eprintln!("the Subtopic Expander's answer was unusable ({why}); using the offline query");
    }
    if let Some(trace) = &expansion.trace {
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(trace)?)?;
    }
    write_file(args.out.as_deref(), &serde_json::to_string_pretty(&expansion.map)?)?;
    write_file(args.html.as_deref(), &render::html(&expansion.map, &[expansion.notice()]))?;
    if args.json {
        return super::print_json(&expansion.map);
    }
    print!("{}", render::outline(&expansion.map));
    Ok(())
}
