//! A corpus opened and asked: the workspace corpora live in, and the session that reads one.
//!
//! - [`Settings`]: files, model, corpus, LLM and seed, read once from a file and the environment.
//! - [`Workspace`]: settings plus the shared encoder; ingest, the built-in corpus, vectors.
//! - [`CorpusSession`]: one corpus read once (papers, lexical index, and lazily vectors and the
//!   citation graph), leasing its generation; it answers searches and, through [`relations`], how
//!   papers relate (rankings, profiles, paths, co-citation, citers). [`edges`]: the same measures
//!   of a citation graph handed over as lists.
//! - [`Error`] and [`codes`]: every failure with its [`litnav_core::ErrorKind`] and stable code.
//! - [`Progress`]: what long operations report, and how they learn to stop.
//! - [`parallel`]: work a person waits on, shared by the calling thread and helper threads.
//!
//! The services above it (`litnav-score`, `litnav-maps`) and the request model (`litnav-app`)
//! take a session or the workspace and return typed, serializable reports.

pub mod bibliography;
pub mod codes;
pub mod edges;
pub mod error;
pub mod info;
pub mod ingest;
pub mod known;
pub mod parallel;
pub mod progress;
pub mod relations;
pub mod session;
pub mod settings;
pub mod supplied;
pub mod workspace;

pub use error::{Context, Error, Result};
pub use ingest::{IngestReport, IngestRequest};
pub use progress::{Progress, Quiet};
pub use session::{Citations, CorpusSession, SearchRequest};
pub use settings::Settings;
pub use workspace::{LlmOptions, Workspace};

/// A year for human-readable tables (four blanks when unknown).
pub fn year(year: Option<i32>) -> String {
    year.map_or_else(|| "    ".to_string(), |y| y.to_string())
}

/// A number with four decimals for human-readable tables (a dash when undefined).
pub fn number(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{v:.4}"))
}
