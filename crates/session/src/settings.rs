//! Settings: where litnav keeps its files, which model and which corpus it uses, how it reaches an
//! LLM, and the seed. Read once, in this one place, from a TOML file and the environment; the
//! faces override single values from their flags.
//!
//! Precedence, highest first: a face's explicit flag, the environment, the settings file
//! (`$LITNAV_CONFIG`, else `$LITNAV_HOME/config.toml` when it exists), the built-in defaults.
//!
//! | setting | environment | file key | default |
//! |---|---|---|---|
//! | home (caches, models, built corpora) | `LITNAV_HOME` | — | `$XDG_CACHE_HOME/litnav`, else `~/.cache/litnav` |
//! | datasets (litbench, TaxoBench, citations) | `LITNAV_DATASETS` | `datasets` | the nearest `shared/datasets` beside the working directory or an ancestor, else beside the checkout litnav was built from |
//! | encoder directory | `LITNAV_MODEL` | `model` | `HOME/models/all-MiniLM-L6-v2` |
//! | default corpus | `LITNAV_CORPUS` | `corpus` | `HOME/corpora/litbench`, built from the litbench dataset |
//! | seed | `LITNAV_SEED` | `seed` | 42 |
//! | LLM endpoint | `LITNAV_LLM_URL` | `[llm] url` | `http://127.0.0.1:8717/v1` (`scripts/llm-server.sh`) |
//! | LLM model | `LITNAV_LLM_MODEL` | `[llm] model` | `default` |
//! | LLM API key | `LITNAV_LLM_API_KEY`, `OPENAI_API_KEY` | `[llm] api_key` | none |
//! | LLM timeout (s) | `LITNAV_LLM_TIMEOUT` | `[llm] timeout` | 120 |
//! | LLM concurrency | `LITNAV_LLM_CONCURRENCY` | `[llm] concurrency` | 2 |
//! | LLM offline (cache only) | `LITNAV_LLM_OFFLINE` | `[llm] offline` | false |
//! | OpenAlex API key | `OPENALEX_API_KEY` | `[openalex] api_key` | none |
//! | offline: never download the encoder on first use | `LITNAV_OFFLINE` | `offline` | false |

use crate::{Error, Result};
use litnav_llm::Config as LlmConfig;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything litnav is configured with.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// litnav's home: caches, the model, built corpora.
    pub home: PathBuf,
    /// The datasets directory, when one is known (holding `litbench/`, `taxobench/`, …).
    pub datasets: Option<PathBuf>,
    /// Where `datasets` was found, in words for messages ("from LITNAV_DATASETS", …).
    pub datasets_origin: &'static str,
    /// The sentence encoder's directory.
    pub model_dir: PathBuf,
    /// The corpus commands use when none is named (`None`: the built-in litbench corpus).
    pub corpus: Option<PathBuf>,
    /// Seed of every stochastic step.
    pub seed: u64,
    /// How to reach the LLM (used only when a command asks for it).
    pub llm: LlmConfig,
    /// The OpenAlex API key and where it came from (used only by a fetch).
    pub openalex_key: Option<litnav_fetch::ApiKey>,
    /// Never download the encoder on its first use: a missing model is then an error saying how
    /// to install it (`litnav model install`, the one step that downloads it on request).
    pub offline: bool,
}

/// The settings file's shape.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    datasets: Option<PathBuf>,
    model: Option<PathBuf>,
    corpus: Option<PathBuf>,
    seed: Option<u64>,
    offline: Option<bool>,
    #[serde(default)]
    llm: LlmFile,
    #[serde(default)]
    openalex: OpenAlexFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenAlexFile {
    api_key: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LlmFile {
    url: Option<String>,
    model: Option<String>,
    api_key: Option<String>,
    timeout: Option<f64>,
    concurrency: Option<usize>,
    offline: Option<bool>,
}

impl Settings {
    /// The settings of this process: its environment, the settings file, the defaults.
    pub fn load() -> Result<Settings> {
        let env: HashMap<String, String> = std::env::vars().collect();
        let cwd = std::env::current_dir().ok();
        Settings::from_vars(&env, cwd.as_deref())
    }

    /// The settings given environment variables `env` and a working directory (where the
    /// datasets are looked for). Pure apart from reading the settings file.
    pub fn from_vars(env: &HashMap<String, String>, cwd: Option<&Path>) -> Result<Settings> {
        let var =
            |name: &str| -> Option<String> { env.get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) };
        let home = match var("LITNAV_HOME") {
            Some(home) => PathBuf::from(home),
            None => var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .unwrap_or_else(|| PathBuf::from(".cache"))
                .join("litnav"),
        };
        let (file, file_path) = read_file(var("LITNAV_CONFIG").map(PathBuf::from), &home)?;
        let (datasets, datasets_origin) = locate_datasets(var("LITNAV_DATASETS"), file.datasets.clone(), cwd);
        let model_dir = var("LITNAV_MODEL")
            .map(PathBuf::from)
            .or(file.model)
            .unwrap_or_else(|| litnav_embed::install::model_dir_in(&home));
        let corpus = var("LITNAV_CORPUS").map(PathBuf::from).or(file.corpus);
        let seed = match var("LITNAV_SEED") {
            Some(text) => parse(&text, "LITNAV_SEED", "a non-negative integer")?,
            None => file.seed.unwrap_or(litnav_core::DEFAULT_SEED),
        };
        let llm = llm_config(&var, file.llm, seed, &home)?;
        // An empty value is kept (not skipped as `var` would) so that a fetch can say it is empty.
        let openalex_key = match env.get("OPENALEX_API_KEY") {
            Some(value) => Some(litnav_fetch::ApiKey {
                value: value.trim().to_string(),
                origin: "from the environment variable OPENALEX_API_KEY".into(),
            }),
            None => file.openalex.api_key.map(|value| litnav_fetch::ApiKey {
                value,
                origin: format!("from the settings file {}", file_path.as_deref().unwrap_or(Path::new("?")).display()),
            }),
        };
        let offline = var("LITNAV_OFFLINE").map_or(file.offline.unwrap_or(false), |flag| is_yes(&flag));
        Ok(Settings { home, datasets, datasets_origin, model_dir, corpus, seed, llm, openalex_key, offline })
    }

    /// The datasets directory, or an error saying how to name one.
    pub fn datasets(&self) -> Result<&Path> {
        self.datasets.as_deref().ok_or_else(|| {
            Error::not_found(
                "cannot find the datasets (a directory holding litbench/corpus.jsonl): set LITNAV_DATASETS, \
                 name them as `datasets` in the settings file, or run from a directory beside shared/datasets",
            )
        })
    }

    /// Where the built-in litbench corpus lives.
    pub fn default_corpus_dir(&self) -> PathBuf {
        self.home.join("corpora").join("litbench")
    }

    /// The cache of vectors of texts that belong to no corpus (paper files, labels).
    pub fn vector_cache(&self, name: &str) -> PathBuf {
        self.home.join("cache").join(format!("{name}.bin"))
    }
}

fn parse<T: std::str::FromStr>(text: &str, name: &str, what: &str) -> Result<T> {
    text.parse().map_err(|_| Error::input(format!("{name} must be {what}, not `{text}`")))
}

/// The settings file named by `LITNAV_CONFIG`, else `HOME/config.toml` if it exists, else none.
/// Also gives the file's path, when there is one.
fn read_file(named: Option<PathBuf>, home: &Path) -> Result<(File, Option<PathBuf>)> {
    let path = match named {
        Some(path) => path,
        None => {
            let path = home.join("config.toml");
            if !path.is_file() {
                return Ok((File::default(), None));
            }
            path
        }
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::input(format!("cannot read the settings file {}: {e}", path.display())))?;
    let file =
        toml::from_str(&text).map_err(|e| Error::input(format!("{}: {}", path.display(), e.to_string().trim())))?;
    Ok((file, Some(path)))
}

fn llm_config(var: &dyn Fn(&str) -> Option<String>, file: LlmFile, seed: u64, home: &Path) -> Result<LlmConfig> {
    let mut config = LlmConfig { seed, cache_dir: Some(home.join("cache").join("llm")), ..LlmConfig::default() };
    if let Some(url) = var("LITNAV_LLM_URL").or(file.url) {
        config.base_url = url;
    }
    if let Some(model) = var("LITNAV_LLM_MODEL").or(file.model) {
        config.model = model;
    }
    config.api_key = var("LITNAV_LLM_API_KEY").or_else(|| var("OPENAI_API_KEY")).or(file.api_key);
    let timeout = match var("LITNAV_LLM_TIMEOUT") {
        Some(text) => Some(parse::<f64>(&text, "LITNAV_LLM_TIMEOUT", "a number of seconds")?),
        None => file.timeout,
    };
    if let Some(seconds) = timeout {
        if !(seconds > 0.0 && seconds.is_finite()) {
            return Err(Error::input(format!("the LLM timeout must be a positive number of seconds, not {seconds}")));
        }
        config.timeout = Duration::from_secs_f64(seconds);
    }
    let concurrency = match var("LITNAV_LLM_CONCURRENCY") {
        Some(text) => Some(parse::<usize>(&text, "LITNAV_LLM_CONCURRENCY", "a positive integer")?),
        None => file.concurrency,
    };
    if let Some(n) = concurrency {
        if n == 0 {
            return Err(Error::input("the LLM concurrency must be a positive integer"));
        }
        config.concurrency = n;
    }
    config.offline = var("LITNAV_LLM_OFFLINE").map_or(file.offline.unwrap_or(false), |flag| is_yes(&flag));
    Ok(config)
}

/// Whether an environment flag is set to yes (`1`, `true`, `yes`, in any case).
fn is_yes(flag: &str) -> bool {
    matches!(flag.to_lowercase().as_str(), "1" | "true" | "yes")
}

/// The datasets directory and where it was found: `LITNAV_DATASETS`, else the settings file's
/// `datasets`, else the nearest `shared/datasets` beside the working directory, else the one
/// beside the checkout this litnav was built from (so that the built binary works from any
/// directory of the machine that built it).
fn locate_datasets(
    variable: Option<String>,
    file: Option<PathBuf>,
    cwd: Option<&Path>,
) -> (Option<PathBuf>, &'static str) {
    if let Some(dir) = variable {
        return (Some(PathBuf::from(dir)), "from LITNAV_DATASETS");
    }
    if let Some(dir) = file {
        return (Some(dir), "from the settings file");
    }
    if let Some(dir) = cwd.and_then(find_datasets) {
        return (Some(dir), "found beside the working directory");
    }
    match find_datasets(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        Some(dir) => (Some(dir), "found beside the checkout litnav was built from"),
        None => (None, "not found"),
    }
}

/// The nearest `shared/datasets` holding litbench, looking in `cwd` and its ancestors (and beside
/// each, for a checkout next to `shared/`).
fn find_datasets(cwd: &Path) -> Option<PathBuf> {
    for ancestor in cwd.ancestors() {
        for candidate in [ancestor.join("shared/datasets"), ancestor.join("../shared/datasets")] {
            if candidate.join("litbench/corpus.jsonl").is_file() {
                return Some(candidate.canonicalize().unwrap_or(candidate));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_then_file_then_environment() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let h = home.path().to_string_lossy().to_string();
        let s = Settings::from_vars(&vars(&[("LITNAV_HOME", &h)]), None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.seed, 42);
        assert_eq!(s.model_dir, home.path().join("models/all-MiniLM-L6-v2"));
        assert_eq!(s.llm.cache_dir, Some(home.path().join("cache/llm")));
        assert_eq!(s.default_corpus_dir(), home.path().join("corpora/litbench"));
        std::fs::write(home.path().join("config.toml"), "seed = 7\n[llm]\nmodel = \"m\"\ntimeout = 3\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let s = Settings::from_vars(&vars(&[("LITNAV_HOME", &h)]), None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((s.seed, s.llm.model.as_str(), s.llm.timeout), (7, "m", Duration::from_secs(3)));
        let env =
            vars(&[("LITNAV_HOME", &h), ("LITNAV_SEED", "9"), ("LITNAV_LLM_MODEL", "n"), ("LITNAV_LLM_OFFLINE", "1")]);
        let s = Settings::from_vars(&env, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((s.seed, s.llm.model.as_str(), s.llm.offline), (9, "n", true));
    }

    #[test]
    fn bad_values_name_the_setting() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let h = home.path().to_string_lossy().to_string();
        let err = |env: &[(&str, &str)]| Settings::from_vars(&vars(env), None).err().map(|e| e.to_string());
        assert!(
            err(&[("LITNAV_HOME", &h), ("LITNAV_LLM_TIMEOUT", "soon")])
                .is_some_and(|m| m.contains("LITNAV_LLM_TIMEOUT"))
        );
        assert!(err(&[("LITNAV_HOME", &h), ("LITNAV_SEED", "-1")]).is_some_and(|m| m.contains("LITNAV_SEED")));
        std::fs::write(home.path().join("config.toml"), "colour = 1\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(err(&[("LITNAV_HOME", &h)]).is_some_and(|m| m.contains("config.toml") && m.contains("colour")));
    }

    #[test]
    fn the_datasets_are_found_from_any_directory_and_say_where_from() {
        let elsewhere = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let named = locate_datasets(Some("/data/d".into()), Some("/file/d".into()), None);
        assert_eq!(named, (Some(PathBuf::from("/data/d")), "from LITNAV_DATASETS"));
        let filed = locate_datasets(None, Some("/file/d".into()), Some(elsewhere.path()));
        assert_eq!(filed, (Some(PathBuf::from("/file/d")), "from the settings file"));
        // From a directory far from any checkout: the datasets beside the one this was built from
        // (the tests run in a checkout with ../shared beside it, or have no datasets at all).
        let (found, origin) = locate_datasets(None, None, Some(elsewhere.path()));
        match found {
            Some(dir) => {
                assert!(dir.join("litbench/corpus.jsonl").is_file());
                assert_eq!(origin, "found beside the checkout litnav was built from");
            }
            None => assert_eq!(origin, "not found"),
        }
    }
}
