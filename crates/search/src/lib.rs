//! litnav's retrieval: BM25 over title and abstract ([`lexical`]), exact and approximate dense
//! retrieval over sentence vectors ([`dense`], [`ivf`]), and their fusion ([`hybrid`]), all with
//! the leakage filters ResearchArena prescribes for discovery (published strictly before a
//! cut-off year, no surveys).

pub mod analyzer;
pub mod dense;
pub mod hybrid;
pub mod ivf;
pub mod lexical;
pub mod queries;
pub mod retriever;
pub mod smoothing;

pub use dense::{DenseIndex, VectorSource};
pub use ivf::IvfIndex;
pub use lexical::{BuildOptions, BuildStats, LexicalIndex, SearchQuery};
pub use retriever::{Expansion, Feedback, Mode, Retriever};
pub use smoothing::{ScoreFloor, Smoothing};

use std::path::PathBuf;

/// Result alias for the search crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One ranked result, whatever the retrieval mode.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hit {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Year, when known.
    pub year: Option<i32>,
    /// The mode's score (higher is better): BM25, cosine, or fused.
    pub score: f32,
    /// How the query named this paper, when it did (`id`, `doi`, `openalex`, `arxiv`, `title`,
    /// `near title`): a search puts the paper it names first, whatever its score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

/// The leakage filters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Filter {
    /// Keep only papers with a known year strictly before this one.
    pub before: Option<i32>,
    /// Drop surveys.
    pub exclude_surveys: bool,
}

impl Filter {
    /// Whether a paper with this year and survey flag passes.
    pub fn admits(&self, year: Option<i32>, is_survey: bool) -> bool {
        let year_ok = match self.before {
            Some(cutoff) => year.is_some_and(|y| y < cutoff),
            None => true,
        };
        year_ok && !(self.exclude_surveys && is_survey)
    }
}

/// How dense retrieval scans the paper vectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DenseScan {
    /// Exact below [`APPROXIMATE_ABOVE`] papers, the IVF index from there on.
    #[default]
    Auto,
    /// Every vector, always (exact top k).
    Exact,
    /// The IVF index (`ivf.rs`), whatever the corpus's size.
    Approximate,
}

/// Corpus size from which [`DenseScan::Auto`] searches the IVF index: an exact scan of this many
/// vectors takes about 20 ms of one core here (`litnav bench dense`), where a search stops
/// feeling instant once fusion and reading hits are added.
pub const APPROXIMATE_ABOVE: usize = 250_000;

impl DenseScan {
    /// Whether a corpus of `papers` papers is searched through the IVF index.
    pub fn approximate(self, papers: usize) -> bool {
        match self {
            DenseScan::Auto => papers >= APPROXIMATE_ABOVE,
            DenseScan::Exact => false,
            DenseScan::Approximate => true,
        }
    }
}

impl litnav_core::HasKind for Error {
    fn kind(&self) -> litnav_core::ErrorKind {
        use litnav_core::ErrorKind;
        match self {
            Error::MissingIndex { .. } | Error::MissingVectors { .. } => ErrorKind::NotFound,
            Error::EmptyQuery { .. } => ErrorKind::Input,
            Error::Corpus(e) => e.kind(),
            Error::Embed(e) => e.kind(),
            Error::Engine { .. } | Error::Damaged { .. } => ErrorKind::Internal,
        }
    }
}

/// Errors of the search crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The corpus has no lexical index (it was written by a build that did not index).
    #[error("{dir}: the corpus has no lexical index; ingest its files again to build it", dir = dir.display())]
    MissingIndex {
        /// The corpus generation directory.
        dir: PathBuf,
    },
    /// Papers lack vectors for dense retrieval.
    #[error("{missing} of {papers} papers of {dir} have no vector yet", dir = dir.display())]
    MissingVectors {
        /// The corpus directory.
        dir: PathBuf,
        /// Papers without a vector.
        missing: usize,
        /// Papers in the corpus.
        papers: usize,
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
    /// The encoder or the vector cache failed.
    #[error(transparent)]
    Embed(#[from] litnav_embed::Error),
    /// The index at `dir` is damaged (a checksum fails, or the engine could not read it).
    #[error("{dir}: the search index is damaged: {message}", dir = dir.display())]
    Damaged {
        /// The index directory.
        dir: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The search engine failed on the index at `dir`.
    #[error("{dir}: search index error: {source}", dir = dir.display())]
    Engine {
        /// The index directory.
        dir: PathBuf,
        /// The engine's error.
        source: tantivy::TantivyError,
    },
}
