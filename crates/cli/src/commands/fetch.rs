//! `litnav fetch openalex`: a corpus for a topic from OpenAlex.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::fetch::{FetchRequest, fetch_openalex};
use litnav_app::request::FetchParams;
use std::path::PathBuf;

/// The sources works can be fetched from.
#[derive(Debug, clap::Subcommand)]
pub enum Source {
    /// OpenAlex's API: one search for the topic, then the works the hits cite and the works citing
    /// them through list filters, every answer cached (an interrupted fetch resumes; a repeated one
    /// makes no call). Needs a free API key: --api-key, OPENALEX_API_KEY or `[openalex] api_key`
    /// in the settings file.
    Openalex(Args),
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The field, in plain words (one search call per 100 works).
    #[arg(long)]
    pub topic: String,
    /// The corpus the works go into (created, or merged into an existing one).
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,
    #[command(flatten)]
    pub params: FetchParams,
    #[command(flatten)]
    pub key: KeyArg,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// An API key on the command line. `Debug` hides it.
#[derive(Clone, Default, clap::Args)]
pub struct KeyArg {
    /// OpenAlex API key (default: OPENALEX_API_KEY, else `[openalex] api_key` in the settings file).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
}

impl std::fmt::Debug for KeyArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyArg").field("api_key", &litnav_core::secret::Hidden(self.api_key.as_deref())).finish()
    }
}

impl KeyArg {
    /// The key with where it came from.
    pub fn key(&self) -> Option<litnav_app::fetch::ApiKey> {
        self.api_key.clone().map(|value| litnav_app::fetch::ApiKey { value, origin: "given with --api-key".into() })
    }
}

pub fn run(source: Source) -> Result<()> {
    let Source::Openalex(args) = source;
    let workspace = litnav_app::Workspace::load()?;
    let request = FetchRequest {
        topic: args.topic.clone(),
        corpus: args.corpus.clone(),
        params: args.params,
        api_key: args.key.key(),
        allowance: None,
    };
    let progress = Terminal::new();
    let outcome = fetch_openalex(&workspace, &request, &progress);
    progress.finish();
    let outcome = outcome?;
    if args.json {
        return super::print_json(&outcome);
    }
    print!("{}", outcome.ingest);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let shown = format!("{:?}", KeyArg { api_key: Some("openalex-secret".into()) });
        assert!(!shown.contains("openalex-secret"), "{shown}");
    }
}
