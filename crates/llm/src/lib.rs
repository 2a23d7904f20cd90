//! litnav's LLM layer: one client every LLM-using part of litnav goes through.
//!
//! - [`Client`]: chat completions against any OpenAI-compatible endpoint (hosted APIs, vLLM,
//!   Ollama, llama.cpp) with timeouts, one bounded retry policy, a concurrency limit, token
//!   accounting, an on-disk response cache and an offline mode that never touches the network.
//! - [`structured`]: typed answers — JSON-schema requests, tolerant extraction, validation of
//!   meaning (not only syntax) and one repair round-trip.
//! - [`navigator`]: Knowledge Navigator's components (Cluster Reader, Thematic Organizer, Subtopic
//!   Expander) and TaxoBench's one-call Bottom-Up organizer.
//! - [`judges`]: TaxoBench's tree judge, Bloom-Eval's GRADE (per ability: FAP, FNov, ROQ) and
//!   SciNet's path-rationality judge, each returning its full trace.
//! - [`extract`]: TaxoBench's input settings — a paper's summary, or its core task and
//!   contributions, extracted once per paper and cached.
//! - [`queries`]: ResearchArena's Zero-shot and Decomposer query writers.
//! - [`survey`]: the LLM steps of Bloom-Eval's metrics (entities, statements, matching, citation
//!   support, redundant headings).
//!
//! Every prompt lives in [`prompts`]; [`fake`] is a deterministic stand-in endpoint for tests.

pub mod cache;
pub mod client;
pub mod extract;
pub mod fake;
pub mod judges;
mod names;
pub mod navigator;
mod partition;
pub mod prompts;
pub mod queries;
pub mod structured;
pub mod survey;

pub use client::{Client, Config, Message, Usage};

/// Errors of the LLM layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Offline mode is on and the answer is not in the cache.
    #[error("offline mode: no cached answer for this request, and network calls are refused")]
    Offline,
    /// The endpoint could not be reached or did not answer in time, after the retry.
    #[error("LLM endpoint {url}: {message}")]
    Transport {
        /// The URL called.
        url: String,
        /// What happened.
        message: String,
    },
    /// The endpoint answered with an error status, after the retry.
    #[error("LLM endpoint {url} answered HTTP {status}: {body}")]
    Status {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The endpoint's reply is not a chat completion.
    #[error("LLM endpoint {url}: unreadable reply: {message}")]
    Protocol {
        /// The URL called.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The model's answer stayed invalid after the repair round-trip.
    #[error(
        "the model's answer to the {task} request is invalid after one repair: {problem} (it began: {})",
        answer.chars().take(160).collect::<String>().replace('\n', " ")
    )]
    Invalid {
        /// Which request.
        task: String,
        /// What is wrong with the last answer.
        problem: String,
        /// The last answer, verbatim.
        answer: String,
    },
    /// The caller asked to stop while the request was out (its answer, when it comes, is dropped).
    #[error("stopped while waiting for the LLM")]
    Stopped,
    /// Configuration is incomplete or wrong.
    #[error("LLM configuration: {0}")]
    Config(String),
    /// The cache directory could not be used.
    #[error("LLM cache {path}: {message}", path = path.display())]
    Cache {
        /// The cache path.
        path: std::path::PathBuf,
        /// What failed.
        message: String,
    },
}

impl Error {
    /// Whether the endpoint itself failed (unreachable, an error status, or offline without a
    /// cached answer) or the caller stopped, as opposed to one answer being unusable: further
    /// requests would fail too.
    pub fn is_endpoint_failure(&self) -> bool {
        matches!(self, Error::Transport { .. } | Error::Status { .. } | Error::Offline | Error::Stopped)
    }
}

impl litnav_core::HasKind for Error {
    fn kind(&self) -> litnav_core::ErrorKind {
        use litnav_core::ErrorKind;
        match self {
            Error::Offline | Error::Transport { .. } | Error::Protocol { .. } => ErrorKind::Unavailable,
            Error::Status { status, .. } if (400..500).contains(status) && *status != 429 => ErrorKind::Input,
            Error::Status { .. } => ErrorKind::Unavailable,
            Error::Invalid { .. } => ErrorKind::Unavailable,
            Error::Config(_) => ErrorKind::Input,
            Error::Stopped => ErrorKind::Cancelled,
            Error::Cache { .. } => ErrorKind::Internal,
        }
    }
}

/// Result alias for the LLM layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;
