//! The few things every litnav crate shares, so that each has one home:
//!
//! - [`ErrorKind`]: what kind of failure an error is (the user's input, something missing, a
//!   conflict with another process, an unavailable service, a bug). Every library error reports
//!   one; the faces map it once — the CLI to a message with hints, the server to an HTTP status.
//! - [`rng`]: the seeded random numbers of every stochastic step, and [`DEFAULT_SEED`].
//! - [`vector`]: dot products, cosines and centroids of sentence vectors.
//! - [`PaperText`]: a paper as text (title and abstract), the view prompts, encoders and
//!   organizers read; [`text::content_runs`], the stop-word-free word runs phrases are made of.
//! - [`Sentiment`]: how a citation speaks of the cited work.
//! - [`secret`]: keys shown in debug output by their length only.
//! - [`date`]: calendar dates as day numbers (publication dates finer than a year).
//! - [`files`]: files written whole or not at all (`write_atomically`).
//! - `http` (feature `http`): a failed HTTP exchange in words, for every client litnav has.
//! - [`memory`]: this process's resident memory and its peak (benchmarks and `LITNAV_PEAK_MEMORY`).
//! - [`stop`]: waits that end when the caller asks to stop (a sleep, blocking work on its own thread).

pub mod bytes;
pub mod date;
pub mod files;
#[cfg(feature = "http")]
pub mod http;
pub mod markup;
pub mod memory;
pub mod rng;
pub mod secret;
pub mod stop;
pub mod text;
pub mod vector;
pub mod work;

mod kind;
mod sentiment;

pub use kind::{ErrorKind, HasKind, io_kind};
pub use sentiment::Sentiment;
pub use text::PaperText;

/// The seed every stochastic step uses unless told otherwise (clustering, UMAP, IVF training,
/// novelty's null graphs, LLM sampling).
pub const DEFAULT_SEED: u64 = 42;
