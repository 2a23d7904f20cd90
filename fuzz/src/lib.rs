//! What every fuzz target shares: a scratch directory per process (litnav's readers take paths,
//! and reading a real file is what a user's input goes through), input splitting, and the checks
//! that turn a silent wrong answer into a crash the fuzzer reports.

use litnav_corpus::readers::{FileContents, Item, read_file};
use litnav_corpus::{Catalog, Format, MergeReport, ReadOptions};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// This process's scratch directory (removed by the OS's temp cleaning, not by us: libFuzzer
/// exits without running destructors).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("litnav-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    })
}

/// Write `bytes` to `name` in the scratch directory and return its path.
pub fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("a scratch subdirectory");
    }
    std::fs::write(&path, bytes).expect("a scratch file");
    path
}

/// A fresh empty directory under the scratch directory.
pub fn empty_dir(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch subdirectory");
    dir
}

/// The input cut at NUL bytes into exactly `n` parts (missing parts are empty; the last part
/// keeps any further NULs). Seeds join real files with NUL, which text formats never hold.
pub fn split(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut parts: Vec<&[u8]> = data.splitn(n, |&b| b == 0).collect();
    parts.resize(n, &[]);
    parts
}

/// The input as text when it is UTF-8 (targets whose entry point takes `&str`).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Read `path` as `format`, strictly and skipping bad records, and as detected; whatever reads is
/// merged into a catalog, as ingest would. Returns what the strict read produced.
pub fn read_and_merge(path: &Path, format: Format) -> Option<FileContents> {
    let strict = read_file(path, ReadOptions { format: Some(format), skip_bad: false });
    if let Ok(skipping) = read_file(path, ReadOptions { format: Some(format), skip_bad: true }) {
        merge(skipping.items);
    }
    let _ = litnav_corpus::readers::detect(path);
    strict.ok().inspect(|contents| merge(contents.items.clone()))
}

/// Merge what a file gave into an empty catalog and check what the merge promises.
fn merge(items: Vec<Item>) {
    let records = items.len();
    let mut catalog = Catalog::default();
    let mut report = MergeReport::default();
    catalog.merge(items, &mut report).expect("a merge in memory reads and writes no file");
    let (papers, _) = catalog.into_parts().expect("a catalog in memory reads out");
    assert!(papers.len() <= records, "a merge made more papers than records");
    for paper in &papers {
        assert!(!paper.id.is_empty(), "a merged paper has no id");
        assert!(!paper.title.trim().is_empty(), "paper {} has no title", paper.id);
    }
}

/// Assert that every value is a number a person can read (NaN or ±∞ would be a silent wrong
/// answer; `None` is a stated "undefined").
pub fn assert_finite<'a>(values: impl IntoIterator<Item = (&'a str, f64)>) {
    for (name, value) in values {
        assert!(value.is_finite(), "{name} = {value}");
    }
}
