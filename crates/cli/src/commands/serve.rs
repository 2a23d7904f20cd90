//! `litnav serve`: the web application and its HTTP API over one corpus.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::request::{LlmParams, ModelParams};
use litnav_server::ServeOptions;
use litnav_server::budget::Budgets;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

/// The default address: loopback, a port unlikely to be taken.
const DEFAULT_ADDR: &str = "127.0.0.1:8780";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus to serve (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Address to listen on (port 0 picks a free port; the URL is printed).
    #[arg(long, value_name = "IP:PORT", default_value = DEFAULT_ADDR)]
    addr: SocketAddr,
    /// Listen on an address other machines can reach (needs --token).
    #[arg(long)]
    allow_remote: bool,
    /// The token every request must carry (at least 16 characters; required with
    /// --allow-remote). The printed URL carries it; the page keeps it in a cookie.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Where built maps are stored (default: $LITNAV_HOME/server/maps); their URLs stay valid
    /// across restarts.
    #[arg(long, value_name = "DIR")]
    maps: Option<PathBuf>,
    /// Let map jobs fetch their topic's field from OpenAlex into the served corpus first (the API
    /// key from OPENALEX_API_KEY or the settings file). Without it the server opens no network
    /// connection.
    #[arg(long)]
    allow_network: bool,
    /// The API fetches go to (default: OpenAlex's public one): a mirror, or a stand-in. Only the
    /// owner names it; requests cannot, and only this host may be on a private network.
    #[arg(long, value_name = "URL", requires = "allow_network")]
    api_url: Option<String>,
    /// Map, expansion and sentiment jobs a caller may have queued or running at once.
    #[arg(long, value_name = "N", default_value_t = Budgets::default().jobs_at_once)]
    budget_jobs: usize,
    /// Calls to OpenAlex a caller's fetches may make per day (UTC; cached answers are free).
    #[arg(long, value_name = "N", default_value_t = Budgets::default().fetch_calls_per_day)]
    budget_fetch_calls: usize,
    /// Map and expansion requests a caller may make per minute.
    #[arg(long, value_name = "N", default_value_t = Budgets::default().maps_per_minute)]
    budget_maps: usize,
    #[command(flatten)]
    model: ModelParams,
    /// With --llm, map and expansion jobs may ask for the LLM stage (and `method: llm`).
    #[command(flatten)]
    llm: LlmParams,
}

pub fn run(args: Args) -> Result<()> {
    // A refused address is reported before anything is built.
    litnav_server::guard_for(args.addr, args.allow_remote, args.token.as_deref(), args.addr.port())?;
    let workspace = args.model.serving_workspace()?;
    let progress = Terminal::new();
    let corpus_dir = workspace.corpus_dir(args.corpus.as_deref(), &progress)?;
    progress.finish();
    let maps_dir = args.maps.clone().unwrap_or_else(|| workspace.settings().home.join("server/maps"));
    let options = ServeOptions {
        addr: args.addr,
        corpus_dir,
        maps_dir,
        allow_remote: args.allow_remote,
        token: args.token.clone(),
        llm: args.llm.llm.then(|| args.llm.options()),
        allow_network: args.allow_network,
        api_url: args.api_url.clone(),
        budgets: Budgets {
            jobs_at_once: args.budget_jobs,
            fetch_calls_per_day: args.budget_fetch_calls,
            maps_per_minute: args.budget_maps,
        },
    };
    litnav_server::run(workspace, options, |url| {
        println!("litnav serves {url}");
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}
