//! litnav's columnar corpus and its citation analytics on an existing query engine.
//!
//! litnav's own graph is an in-memory CSR ([`litnav_graph`]): right up to tens of millions of
//! edges on one machine. Beyond that — OpenAlex has ~270M works and ~1.8B in-corpus citations —
//! the corpus is kept as Parquet tables ([`schema`]) and the analytics run as Apache DataFusion
//! plans: embedded in this process (out-of-core, spilling to disk), or unchanged on an Apache
//! DataFusion Ballista cluster (a scheduler and executors, [`cluster`]).
//!
//! The CD index is the costly one: as a plain join (edges ⋈ edges on the cited paper) it
//! materializes Σ in-degree² pairs around highly cited references. [`cd`] plans it instead by
//! ranges of the focal papers' publication times: each range gets only the citations its window
//! can count, and runs litnav's own CSR kernel over them — so the values are the CSR's, to the
//! bit, and the work distributes.
//!
//! Everything here needs the `engine` feature (DataFusion and Ballista are heavy to build); the
//! crate is empty without it.

#[cfg(feature = "engine")]
pub mod cd;
#[cfg(feature = "engine")]
mod cd_kernel;
#[cfg(feature = "engine")]
pub mod cluster;
#[cfg(feature = "engine")]
pub mod counts;
#[cfg(feature = "engine")]
pub mod csr;
#[cfg(feature = "engine")]
pub mod engine;
#[cfg(feature = "engine")]
pub mod export;
#[cfg(feature = "engine")]
mod kernel;
#[cfg(feature = "engine")]
pub mod novelty;
#[cfg(feature = "engine")]
pub mod openalex;
#[cfg(feature = "engine")]
pub mod related;
#[cfg(feature = "engine")]
pub mod schema;
#[cfg(feature = "engine")]
pub mod synthetic;
#[cfg(feature = "engine")]
mod tables;
#[cfg(feature = "engine")]
pub mod vectors;

#[cfg(feature = "engine")]
pub use datafusion::arrow;
#[cfg(feature = "engine")]
pub use engine::{Engine, LocalOptions, Session};

/// litnav's functions every engine needs registered: in the client session, in a Ballista
/// scheduler's sessions and in its executors' registries. Here, above the engine and the plans,
/// so that the plans may use the engine without the engine knowing the plans.
#[cfg(feature = "engine")]
pub fn litnav_functions() -> Vec<std::sync::Arc<datafusion::logical_expr::ScalarUDF>> {
    use std::sync::Arc;
    vec![Arc::new(related::kernel_udf()), Arc::new(novelty::kernel_udf())]
}

/// litnav's aggregate functions, registered wherever [`litnav_functions`] are.
#[cfg(feature = "engine")]
pub fn litnav_aggregates() -> Vec<std::sync::Arc<datafusion::logical_expr::AggregateUDF>> {
    vec![std::sync::Arc::new(cd_kernel::kernel_udaf())]
}

/// The CD index of every paper of the columnar corpus in `dir` on `engine`, written as
/// `out/cd.parquet` (see [`cd`]); the in-memory engine runs litnav's CSR, the others the plan.
#[cfg(feature = "engine")]
pub fn disruption(
    engine: &Engine,
    dir: &std::path::Path,
    plan: cd::CdPlan,
    out: &std::path::Path,
) -> Result<cd::CdSummary> {
    match engine {
        Engine::Memory => csr::disruption(dir, plan.window, out),
        _ => cd::compute(&Session::open(engine, dir)?, plan, out),
    }
}

/// Every paper's citation counts and percentile on `engine`, written as `out/counts.parquet`
/// (see [`counts`]); returns the papers written.
#[cfg(feature = "engine")]
pub fn citation_counts(engine: &Engine, dir: &std::path::Path, out: &std::path::Path) -> Result<u64> {
    match engine {
        Engine::Memory => csr::counts(dir, out),
        _ => counts::compute(&Session::open(engine, dir)?, out),
    }
}

/// The top related papers (co-citation or coupling) of every paper on `engine`, written as
/// `out/<relation>.parquet` (see [`related`]).
#[cfg(feature = "engine")]
pub fn related_papers(
    engine: &Engine,
    dir: &std::path::Path,
    plan: related::RelatedPlan,
    out: &std::path::Path,
) -> Result<related::RelatedSummary> {
    match engine {
        Engine::Memory => csr::related(dir, plan.relation, plan.top, out),
        _ => related::compute(&Session::open(engine, dir)?, plan, out),
    }
}

/// Every paper's novelty against the expected null on `engine`, written as
/// `out/novelty.parquet` (see [`novelty`]).
#[cfg(feature = "engine")]
pub fn paper_novelty(
    engine: &Engine,
    dir: &std::path::Path,
    units: litnav_graph::novelty::Units,
    out: &std::path::Path,
) -> Result<novelty::NoveltySummary> {
    match engine {
        Engine::Memory => csr::novelty(dir, units, out),
        _ => novelty::compute(&Session::open(engine, dir)?, units, out),
    }
}

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A Parquet table is missing a column or holds the wrong type.
    #[error("{path}: {message}")]
    Table {
        /// The table's file or directory.
        path: std::path::PathBuf,
        /// What is wrong, naming the column.
        message: String,
    },
    /// The query engine failed (planning, execution, or the cluster).
    #[cfg(feature = "engine")]
    #[error("query engine: {0}")]
    Engine(#[from] datafusion::error::DataFusionError),
    /// Writing Parquet failed.
    #[cfg(feature = "engine")]
    #[error("parquet: {0}")]
    Parquet(#[from] datafusion::parquet::errors::ParquetError),
    /// Building Arrow data failed.
    #[cfg(feature = "engine")]
    #[error("arrow: {0}")]
    Arrow(#[from] datafusion::arrow::error::ArrowError),
    /// The cluster could not be started or reached.
    #[error("cluster: {0}")]
    Cluster(String),
    /// The corpus could not be read.
    #[error(transparent)]
    Corpus(#[from] litnav_corpus::Error),
    /// The corpus's graph could not be read.
    #[error(transparent)]
    Graph(#[from] litnav_graph::Error),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An I/O error naming its file.
#[cfg(feature = "engine")]
pub(crate) fn io_error(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}
