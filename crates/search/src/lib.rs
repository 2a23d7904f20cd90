//! litnav's retrieval. Today: BM25 over title and abstract ([`lexical`]), with the leakage filters
//! ResearchArena prescribes for discovery (published strictly before a cut-off year, no surveys).

pub mod analyzer;
pub mod lexical;

pub use lexical::{BuildOptions, BuildStats, Hit, LexicalIndex, SearchQuery};

use std::path::PathBuf;

/// Result alias for the search crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the search crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The corpus has no lexical index (it was written by a build that did not index).
    #[error("{dir}: the corpus has no lexical index; re-run `litnav ingest` to build it", dir = dir.display())]
    MissingIndex {
        /// The corpus generation directory.
        dir: PathBuf,
    },
    /// The query has no word the index knows how to search (empty, or only stop words).
    #[error("the query {query:?} has no searchable words")]
    EmptyQuery {
        /// The query as given.
        query: String,
    },
    /// The corpus directory could not be read.
    #[error(transparent)]
    Corpus(#[from] litnav_corpus::Error),
    /// The search engine failed on the index at `dir`.
    #[error("{dir}: search index error: {source}", dir = dir.display())]
    Engine {
        /// The index directory.
        dir: PathBuf,
        /// The engine's error.
        source: tantivy::TantivyError,
    },
}
