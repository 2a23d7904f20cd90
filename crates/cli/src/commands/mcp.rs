//! `litnav mcp`: litnav as a Model Context Protocol server on standard input and output, for
//! agents (their configuration names this command; see the README).

use anyhow::Result;
use litnav_app::request::{LlmParams, ModelParams};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    model: ModelParams,
    /// Offer the `fetch_openalex` tool: fetch a field from OpenAlex into the corpus (--corpus,
    /// required then). Without it the server opens no network connection.
    #[arg(long, requires = "corpus")]
    allow_network: bool,
    /// The API fetches go to (default: OpenAlex's public one): a mirror or a stand-in. Only the
    /// owner names it; a tool call cannot.
    #[arg(long, value_name = "URL", requires = "allow_network")]
    api_url: Option<String>,
    /// The LLM the map and expand tools use when a call asks for it (`llm: true`): `--llm` offers
    /// it to the tools.
    #[command(flatten)]
    llm: LlmParams,
}

pub fn run(args: Args) -> Result<()> {
    let workspace = args.model.workspace()?;
    let llm = args.llm.llm.then(|| args.llm.options());
    let mut opened = litnav_mcp::Opened::new(workspace, args.corpus, llm);
    if args.allow_network {
        opened = opened.with_network(litnav_mcp::Network { api_url: args.api_url })?;
    }
    let litnav = litnav_mcp::Litnav::new(opened);
    // Standard output is the protocol's: nothing else may be printed there.
    litnav_mcp::serve_stdio(litnav)?;
    Ok(())
}
