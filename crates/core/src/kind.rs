//! The kinds of failure, shared by every crate's error type.

use std::fmt;

/// What kind of failure an error is. The faces decide how to present each kind (the CLI adds hints
/// naming its flags; the server picks an HTTP status); libraries only classify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request or an input file is wrong: the user can fix it (bad record, bad argument,
    /// unsupported format version).
    Input,
    /// Something named does not exist (a corpus directory, a paper id, a model).
    NotFound,
    /// Another process holds what is needed (a corpus being written).
    Conflict,
    /// A service or resource outside litnav failed or is unreachable (an LLM endpoint, a package
    /// index, a full disk); trying again later may work.
    Unavailable,
    /// A bug or an unexpected system failure.
    Internal,
    /// The user stopped the operation before it finished (a cancelled server job).
    Cancelled,
}

impl ErrorKind {
    /// A short name (`input`, `not_found`, …), stable for JSON error bodies.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Internal => "internal",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Errors that know their [`ErrorKind`].
pub trait HasKind {
    /// The kind of this error.
    fn kind(&self) -> ErrorKind;
}

/// The kind of an I/O error: a missing file is not found, a full disk or a refused connection is
/// an unavailable resource, bad data is input, anything else internal.
pub fn io_kind(error: &std::io::Error) -> ErrorKind {
    use std::io::ErrorKind as Io;
    match error.kind() {
        Io::NotFound => ErrorKind::NotFound,
        Io::InvalidData | Io::InvalidInput | Io::UnexpectedEof => ErrorKind::Input,
        Io::PermissionDenied
        | Io::StorageFull
        | Io::QuotaExceeded
        | Io::ConnectionRefused
        | Io::ConnectionReset
        | Io::TimedOut
        | Io::ReadOnlyFilesystem => ErrorKind::Unavailable,
        Io::WouldBlock | Io::ResourceBusy => ErrorKind::Conflict,
        _ => ErrorKind::Internal,
    }
}
