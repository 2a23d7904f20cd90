//! The LLM flags every LLM-using command shares, and the client they configure.

use anyhow::Result;
use litnav_llm::{Client, Config};
use std::path::PathBuf;

/// LLM settings. The endpoint, model and key come from these flags, else from
/// `LITNAV_LLM_URL`, `LITNAV_LLM_MODEL`, `LITNAV_LLM_API_KEY`/`OPENAI_API_KEY`; the default endpoint
/// is the local server of `scripts/llm-server.sh`.
#[derive(Debug, Clone, clap::Args)]
pub struct LlmArgs {
    /// Use the LLM (Knowledge Navigator's Cluster Reader and Thematic Organizer).
    #[arg(long)]
    pub llm: bool,
    /// Base URL of an OpenAI-compatible API (…/v1).
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// Model name to request.
    #[arg(long, value_name = "NAME")]
    pub llm_model: Option<String>,
    /// Seconds before a request is abandoned (then retried once).
    #[arg(long, value_name = "SECONDS")]
    pub llm_timeout: Option<f64>,
    /// Papers shown to the model per cluster (the most central first).
    #[arg(long, default_value_t = 12)]
    pub llm_papers: usize,
    /// Do not read or write the response cache ($LITNAV_HOME/cache/llm).
    #[arg(long)]
    pub no_cache: bool,
    /// Answer only from the cache; never call the network.
    #[arg(long)]
    pub llm_offline: bool,
}

impl LlmArgs {
    /// The client, when `--llm` was given.
    pub fn client(&self) -> Result<Option<Client>> {
        if !self.llm {
            return Ok(None);
        }
        let mut config = Config::from_env()?;
        if let Some(url) = &self.llm_url {
            config.base_url = url.clone();
        }
        if let Some(model) = &self.llm_model {
            config.model = model.clone();
        }
        if let Some(seconds) = self.llm_timeout {
            anyhow::ensure!(seconds > 0.0, "--llm-timeout must be positive");
            config.timeout = std::time::Duration::from_secs_f64(seconds);
        }
        config.offline |= self.llm_offline;
        config.cache_dir = (!self.no_cache).then(cache_dir);
        Ok(Some(Client::new(config)))
    }
}

fn cache_dir() -> PathBuf {
    crate::defaults::home().join("cache").join("llm")
}
