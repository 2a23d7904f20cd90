//! What a fetch can fail with. Messages name the request (never the API key) and what the
//! source said.

use litnav_core::{ErrorKind, HasKind};

/// Result alias of the fetch stage.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A fetch's failures.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request is wrong (an empty topic, a URL that is not http(s), a key that is empty).
    #[error("{0}")]
    Input(String),
    /// The source refused the API key.
    #[error("{source_name} refused the API key {origin} ({status}: {message})")]
    Key {
        /// The source (`OpenAlex`).
        source_name: &'static str,
        /// Where the key came from, in words ("from the environment variable OPENALEX_API_KEY").
        origin: String,
        /// The HTTP status.
        status: u16,
        /// What the source said.
        message: String,
    },
    /// The source answered the request with an error that retrying does not mend.
    #[error("{url}: {status}: {message}")]
    Refused {
        /// The request, without the key.
        url: String,
        /// The HTTP status.
        status: u16,
        /// What the source said.
        message: String,
    },
    /// The source did not answer, or kept failing, through every attempt.
    #[error("{url}: {message}")]
    Unavailable {
        /// The request, without the key.
        url: String,
        /// What went wrong on the last attempt, and how many there were.
        message: String,
    },
    /// The answer is not what the source's protocol promises (not JSON, no `results`).
    #[error("{url}: {message}")]
    Protocol {
        /// The request, without the key.
        url: String,
        /// What is wrong with the answer.
        message: String,
    },
    /// Reading or writing the answer cache or the works file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The failure.
        message: String,
    },
    /// The URL's host resolves to an address litnav does not connect to
    /// ([`crate::destinations`]); nothing was sent.
    #[error("{url}: refused before connecting: {refused}")]
    Destination {
        /// The request, without the key.
        url: String,
        /// Where it would have gone.
        refused: crate::destinations::AddressRefused,
    },
    /// The calls the owner allowed are spent ([`crate::http::Allowance`]).
    #[error("{0}")]
    Budget(String),
    /// The user asked to stop.
    #[error("stopped {0}")]
    Cancelled(String),
}

impl HasKind for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Input(_) | Error::Key { .. } | Error::Destination { .. } => ErrorKind::Input,
            Error::Refused { status: 404, .. } => ErrorKind::NotFound,
            Error::Refused { .. } => ErrorKind::Input,
            Error::Unavailable { .. } | Error::Protocol { .. } | Error::Budget(_) => ErrorKind::Unavailable,
            Error::Io { .. } => ErrorKind::Internal,
            Error::Cancelled(_) => ErrorKind::Cancelled,
        }
    }
}

impl Error {
    /// An I/O failure on `path`.
    pub fn io(path: &std::path::Path, error: impl std::fmt::Display) -> Error {
        Error::Io { path: path.display().to_string(), message: error.to_string() }
    }
}
