//! The application's one error type: every library error, plus the application's own failures,
//! each with its [`ErrorKind`]. Messages say what is wrong in the library's terms; the faces add
//! their own hints (the CLI names its flags, the server picks an HTTP status from the kind).

use litnav_core::{ErrorKind, HasKind};

/// Result alias of the application layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything an application operation can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading inputs or a corpus directory failed.
    #[error(transparent)]
    Corpus(#[from] litnav_corpus::Error),
    /// Retrieval failed.
    #[error(transparent)]
    Search(#[from] litnav_search::Error),
    /// The encoder or a vector cache failed.
    #[error(transparent)]
    Embed(#[from] litnav_embed::Error),
    /// The citation graph failed.
    #[error(transparent)]
    Graph(#[from] litnav_graph::Error),
    /// The LLM endpoint or its answers failed.
    #[error(transparent)]
    Llm(#[from] litnav_llm::Error),
    /// Fetching works from a scholarly source failed.
    #[error(transparent)]
    Fetch(#[from] litnav_fetch::Error),
    /// A failure of the application itself.
    #[error("{message}")]
    Other {
        /// Its kind.
        kind: ErrorKind,
        /// What happened, naming the file, line and field when there is one.
        message: String,
    },
    /// A failure, with what the application was doing when it happened.
    #[error("{message}")]
    Context {
        /// What was being done, and what it means for the user's data.
        message: String,
        /// The failure.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// Bad input: the user can fix it.
    pub fn input(message: impl Into<String>) -> Error {
        Error::Other { kind: ErrorKind::Input, message: message.into() }
    }

    /// Something named does not exist.
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::Other { kind: ErrorKind::NotFound, message: message.into() }
    }

    /// A resource outside litnav failed.
    pub fn unavailable(message: impl Into<String>) -> Error {
        Error::Other { kind: ErrorKind::Unavailable, message: message.into() }
    }

    /// A bug or an unexpected system failure.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Other { kind: ErrorKind::Internal, message: message.into() }
    }

    /// The user stopped the operation.
    pub fn cancelled(message: impl Into<String>) -> Error {
        Error::Other { kind: ErrorKind::Cancelled, message: message.into() }
    }

    /// An I/O failure on `path`, classified by its cause.
    pub fn io(path: &std::path::Path, error: &std::io::Error) -> Error {
        Error::Other { kind: litnav_core::io_kind(error), message: format!("{}: {error}", path.display()) }
    }

    /// This error, explained by what was being done.
    pub fn context(self, message: impl Into<String>) -> Error {
        Error::Context { message: message.into(), source: Box::new(self) }
    }

    /// The innermost error (the one a [`Error::Context`] chain wraps).
    pub fn root(&self) -> &Error {
        match self {
            Error::Context { source, .. } => source.root(),
            other => other,
        }
    }
}

impl From<std::io::Error> for Error {
    /// An I/O failure where no path is at hand (scratch files, pipes), classified by its cause.
    fn from(error: std::io::Error) -> Error {
        Error::Other { kind: litnav_core::io_kind(&error), message: format!("I/O error: {error}") }
    }
}

impl HasKind for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Corpus(e) => e.kind(),
            Error::Search(e) => e.kind(),
            Error::Embed(e) => e.kind(),
            Error::Graph(e) => e.kind(),
            Error::Llm(e) => e.kind(),
            Error::Fetch(e) => e.kind(),
            Error::Other { kind, .. } => *kind,
            Error::Context { source, .. } => source.kind(),
        }
    }
}

/// Adding context to results.
pub trait Context<T> {
    /// On error, explain it with `message`.
    fn context(self, message: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, message: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.into().context(message()))
    }
}
