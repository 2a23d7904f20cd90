//! Errors of the corpus crate. User errors (a bad input file, a corpus of another format version, a
//! corpus locked by another writer) are kept apart from internal ones (I/O that should not fail).

use litnav_core::ErrorKind;
use std::path::{Path, PathBuf};

/// Result alias for the corpus crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where in an input file something went wrong. `line` is 1-based; 0 means "the file as a whole".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The input file.
    pub file: PathBuf,
    /// 1-based line number (0 when the problem concerns the whole file).
    pub line: usize,
    /// The field at fault, when one field is (`year`, `authorships[2].author`, ...).
    pub field: Option<String>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        Ok(())
    }
}

/// Everything that can go wrong while reading inputs or a corpus directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A record in an input file is malformed. The message says what was expected.
    #[error("{at}: {message}")]
    BadRecord {
        /// Where.
        at: Location,
        /// What is wrong, in words a user can act on.
        message: String,
    },
    /// An input file's format is not one litnav reads, or cannot be told from the file.
    #[error("{file}: {message}", file = file.display())]
    UnknownFormat {
        /// The file.
        file: PathBuf,
        /// Why, and the formats litnav reads.
        message: String,
    },
    /// A whole input file cannot be used (empty, wrong encoding).
    #[error("{file}: {message}", file = file.display())]
    BadFile {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The corpus directory was written by a litnav with another format version.
    #[error(
        "{dir}: corpus format version {found} is not supported by this litnav (it reads version {supported}); {advice}",
        dir = dir.display()
    )]
    Version {
        /// The corpus directory.
        dir: PathBuf,
        /// The version found on disk.
        found: u32,
        /// The version this build reads and writes.
        supported: u32,
        /// What to do about it.
        advice: &'static str,
    },
    /// The directory is not a litnav corpus, or its manifest is damaged.
    #[error("{dir}: {message}", dir = dir.display())]
    NotACorpus {
        /// The directory.
        dir: PathBuf,
        /// What is missing or damaged.
        message: String,
        /// True when there is no corpus there at all (no directory, or no manifest), false when
        /// what is there is damaged.
        missing: bool,
    },
    /// Another process holds the corpus write lock.
    #[error("{dir}: another litnav process is writing this corpus; wait for it to finish", dir = dir.display())]
    Locked {
        /// The corpus directory.
        dir: PathBuf,
    },
    /// Writers kept replacing the generation a reader was about to open.
    #[error("{dir}: the corpus kept changing while it was being opened; try again", dir = dir.display())]
    Busy {
        /// The corpus directory.
        dir: PathBuf,
    },
    /// A derived artifact (such as the search index) could not be built.
    #[error("building the `{name}` artifact failed: {source}")]
    Artifact {
        /// The artifact's name.
        name: String,
        /// What failed.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An operating-system error on a named path.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl litnav_core::HasKind for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::BadRecord { .. } | Error::BadFile { .. } | Error::UnknownFormat { .. } | Error::Version { .. } => {
                ErrorKind::Input
            }
            Error::NotACorpus { missing: true, .. } => ErrorKind::NotFound,
            Error::NotACorpus { .. } => ErrorKind::Input,
            Error::Locked { .. } | Error::Busy { .. } => ErrorKind::Conflict,
            Error::Artifact { .. } => ErrorKind::Internal,
            Error::Io { source, .. } => litnav_core::io_kind(source),
        }
    }
}

/// A corpus directory (or a file in it) whose contents cannot be read as litnav wrote them.
pub(crate) fn damaged(path: &Path, message: String) -> Error {
    Error::NotACorpus { dir: path.to_path_buf(), message, missing: false }
}

/// Attach a path to an I/O error.
pub(crate) fn io_at(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
