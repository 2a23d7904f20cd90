//! The options every command that encodes or asks an LLM shares: which encoder, how many threads,
//! which LLM endpoint and how to use it. The CLI flattens them into its commands (clap derives
//! behind the `clap` feature); the benchmark suites take them the same way.

use super::names::PrecisionName;
use crate::Result;
use crate::workspace::{LlmOptions, Workspace};
use std::path::PathBuf;

/// Which encoder, how many threads, and in what precision it encodes search queries. The CLI's
/// flags, and the Python package's keyword arguments as JSON (`model`, `threads`,
/// `query_precision`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct ModelParams {
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[cfg_attr(feature = "clap", arg(long = "model", value_name = "DIR"))]
    #[serde(rename = "model", default)]
    pub dir: Option<PathBuf>,
    /// Encoder threads (default: one per core).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(default)]
    pub threads: Option<usize>,
    /// Precision of the weights search queries are encoded with (default: f32, and f16 under
    /// `serve`): f16 reads half the bytes per query; documents' vectors are always f32.
    #[cfg_attr(feature = "clap", arg(long, value_name = "PRECISION"))]
    #[serde(default)]
    pub query_precision: Option<PrecisionName>,
}

/// The precision a server encodes search queries in when none is asked for. A server pays for
/// never-seen queries while it answers everyone else, and issue #43 set the rule for giving it
/// half-precision weights: discovery within 0.002 of f32 (R@100 and nDCG@10 over litbench's 19
/// surveys, leave-one-out included) and a p99 under 50 ms for never-seen queries paced at ten a
/// second among the other clients. Both held (BENCHMARKS.md, "Sentence encoder": every printed
/// digit of discovery equal, p99 32.6 ms against f32's 49.1–49.6 ms). One-shot commands and the
/// Python package keep f32, the model's own vectors; `/api/health` says which one a server uses.
pub const SERVING_QUERY_PRECISION: PrecisionName = PrecisionName::F16;

impl ModelParams {
    /// The workspace of this process's settings with these options applied. The default model is
    /// installed on first use; a model directory given here is only read.
    pub fn workspace(&self) -> Result<Workspace> {
        let mut workspace = Workspace::load()?;
        if let Some(dir) = &self.dir {
            workspace = workspace.with_model_dir(dir.clone());
        }
        if let Some(threads) = self.threads {
            workspace = workspace.with_threads(threads);
        }
        if let Some(precision) = self.query_precision {
            workspace = workspace.with_query_precision(precision.precision());
        }
        Ok(workspace)
    }

    /// [`ModelParams::workspace`] for a server: queries in [`SERVING_QUERY_PRECISION`] unless
    /// the options ask for another.
    pub fn serving_workspace(&self) -> Result<Workspace> {
        let precision = self.query_precision.unwrap_or(SERVING_QUERY_PRECISION);
        Ok(self.workspace()?.with_query_precision(precision.precision()))
    }
}

/// LLM settings. The endpoint, model and key come from these options, else from the settings
/// (`LITNAV_LLM_URL`, `LITNAV_LLM_MODEL`, `LITNAV_LLM_API_KEY`/`OPENAI_API_KEY`, the settings
/// file); the default endpoint is the local server of `scripts/llm-server.sh`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LlmParams {
    /// Use the LLM (Knowledge Navigator's Cluster Reader and Thematic Organizer).
    #[cfg_attr(feature = "clap", arg(long))]
    pub llm: bool,
    /// Base URL of an OpenAI-compatible API (…/v1).
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub llm_url: Option<String>,
    /// Model name to request.
    #[cfg_attr(feature = "clap", arg(long, value_name = "NAME"))]
    pub llm_model: Option<String>,
    /// Seconds before a request is abandoned (then retried once).
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS"))]
    pub llm_timeout: Option<f64>,
    /// Papers shown to the model per cluster (the most central first).
    #[cfg_attr(feature = "clap", arg(long, value_name = "PAPERS"))]
    pub llm_papers: Option<usize>,
    /// Do not read or write the response cache ($LITNAV_HOME/cache/llm).
    #[cfg_attr(feature = "clap", arg(long))]
    pub no_cache: bool,
    /// Answer only from the cache; never call the network.
    #[cfg_attr(feature = "clap", arg(long))]
    pub llm_offline: bool,
}

impl LlmParams {
    /// The overrides of the settings these options make.
    pub fn options(&self) -> LlmOptions {
        LlmOptions {
            url: self.llm_url.clone(),
            model: self.llm_model.clone(),
            timeout: self.llm_timeout,
            no_cache: self.no_cache,
            offline: self.llm_offline,
        }
    }

    /// The client, when the LLM was asked for.
    pub fn client(&self, workspace: &Workspace) -> Result<Option<litnav_llm::Client>> {
        if !self.llm {
            return Ok(None);
        }
        Ok(Some(workspace.llm(&self.options())?))
    }

    /// The client, whether or not the LLM was asked for (judges always need it).
    pub fn required(&self, workspace: &Workspace) -> Result<litnav_llm::Client> {
        workspace.llm(&self.options())
    }

    /// Papers the LLM is shown per cluster.
    pub fn papers(&self) -> usize {
        self.llm_papers.unwrap_or(crate::maps::DEFAULT_LLM_PAPERS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_encodes_queries_in_half_precision_unless_asked_otherwise() {
        let asked = |precision| ModelParams { query_precision: precision, ..ModelParams::default() };
        let precision = |workspace: Workspace| PrecisionName::of(workspace.query_precision());
        assert_eq!(precision(asked(None).workspace().unwrap()), PrecisionName::F32);
        assert_eq!(precision(asked(None).serving_workspace().unwrap()), PrecisionName::F16);
        assert_eq!(precision(asked(Some(PrecisionName::F32)).serving_workspace().unwrap()), PrecisionName::F32);
        assert_eq!(precision(asked(Some(PrecisionName::F16)).workspace().unwrap()), PrecisionName::F16);
    }
}
