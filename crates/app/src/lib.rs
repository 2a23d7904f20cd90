//! litnav's application layer: the one library under every face. The CLI and the server parse
//! their input, call what is here, and present the typed, serializable results it returns — so
//! `litnav … --json` and the HTTP API answer with the same shapes, and no rule lives in a face.
//!
//! - [`Settings`]: files, model, corpus, LLM and seed, read once from a file and the environment.
//! - [`Workspace`]: settings plus the shared encoder; ingest, the built-in corpus, vectors.
//! - [`CorpusSession`]: one corpus read once (papers, lexical index, and lazily vectors and the
//!   citation graph), leasing its generation: search, documents, and the relation reports of
//!   [`relations`].
//! - [`maps`]: maps from retrieval or paper files, the LLM stage, expansion; [`browse`]: a map's
//!   papers, citation graph, timeline and grafted expansions; [`export`]: BibTeX, RIS, CSV, JSON,
//!   Markdown, HTML.
//! - [`score`]: TaxoBench files, any two trees, TREC runs, SciNet's queries.
//! - [`judge`]: the LLM judges over files.
//! - [`survey`]: Bloom-Eval's 16 metrics of a generated survey against an expert one.
//! - [`request`]: the requests both faces receive, each option defined once with its default.
//! - [`fetch`]: a corpus for a topic from OpenAlex.
//! - [`analytics`]: citation analytics on DataFusion or Ballista (the `analytics` feature), and
//!   [`analytics_results`]: their result files used in a session.
//! - [`edges`]: the CD index of an edge list with years (what Python hands over).
//! - [`parallel`]: work a person waits on, shared by the calling thread and helper threads.
//! - [`Error`]: every failure with its [`litnav_core::ErrorKind`].

pub mod analytics;
pub mod analytics_results;
pub mod bibliography;
pub mod browse;
pub mod codes;
pub mod coverage;
pub mod edges;
pub mod edits;
pub mod error;
pub mod export;
pub mod fetch;
pub mod info;
pub mod ingest;
pub mod judge;
pub mod maps;
pub mod parallel;
pub mod progress;
pub mod relations;
pub mod request;
pub mod score;
pub mod session;
pub mod settings;
pub mod suggest;
pub mod survey;
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
