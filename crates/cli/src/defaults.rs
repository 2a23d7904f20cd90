//! Where litnav keeps its files, and the default corpus.
//!
//! With no `--corpus`, commands use `$LITNAV_CORPUS` if set, otherwise litnav's built-in litbench
//! corpus: `$LITNAV_HOME/corpora/litbench` (`LITNAV_HOME` defaults to `~/.cache/litnav`), built on
//! first use from the litbench dataset (`$LITNAV_DATASETS/litbench`, or the nearest
//! `shared/datasets/litbench` beside the current directory or one of its ancestors).

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// litnav's home for caches, models and built corpora.
pub fn home() -> PathBuf {
    litnav_embed::install::litnav_home()
}

/// The datasets directory (holding `litbench/`, `taxobench/`, `citations/`).
pub fn datasets() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("LITNAV_DATASETS") {
        return Ok(PathBuf::from(dir));
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    for ancestor in cwd.ancestors() {
        for candidate in [ancestor.join("shared/datasets"), ancestor.join("../shared/datasets")] {
            if candidate.join("litbench/corpus.jsonl").is_file() {
                return Ok(candidate.canonicalize().unwrap_or(candidate));
            }
        }
    }
    bail!(
        "cannot find the litbench dataset: set LITNAV_DATASETS to the directory holding litbench/, or pass --corpus DIR"
    )
}

/// The corpus a command should use: the one given, `$LITNAV_CORPUS`, or the built-in litbench
/// corpus (built now if missing or of an older format).
pub fn corpus(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = given {
        return Ok(dir.to_path_buf());
    }
    if let Some(dir) = std::env::var_os("LITNAV_CORPUS") {
        return Ok(PathBuf::from(dir));
    }
    let dir = home().join("corpora/litbench");
    if litnav_corpus::Corpus::locate(&dir).is_ok() {
        return Ok(dir);
    }
    let litbench = datasets()?.join("litbench");
    let files = vec![litbench.join("corpus.jsonl"), litbench.join("topics.jsonl")];
    let bar = crate::progress::spinner("building the default litbench corpus (first run only)");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("cannot replace the outdated default corpus at {}", dir.display()))?;
    }
    crate::commands::ingest::ingest(&dir, &files, litnav_corpus::ReadOptions::default(), &[])?;
    bar.finish_and_clear();
    eprintln!("built the default corpus at {} from {}", dir.display(), litbench.display());
    Ok(dir)
}
