//! litnav's request model: what every face speaks, and the one door into the services below it.
//! The CLI, the server and the Python module parse their input into the request types of
//! [`request`] (each option defined once, with its default), call the services, and present the
//! typed, serializable results they return — so `litnav … --json` and the HTTP API answer with the
//! same shapes, and no rule lives in a face.
//!
//! The services live in crates of their own, each re-exported here under the name faces use:
//! - `litnav-session`: [`Settings`], [`Workspace`], [`CorpusSession`], ingest, search,
//!   [`relations`] (rankings, profiles, paths, citers) and [`edges`], [`Error`] and its [`codes`],
//!   [`Progress`], [`parallel`].
//! - `litnav-score`: [`score`] (TaxoBench files, trees, TREC runs, SciNet, clusterings),
//!   [`survey`] (Bloom-Eval's 16 metrics) and [`judge`].
//! - `litnav-maps`: [`maps`] (building), [`coverage`], [`edits`], [`suggest`], [`browse`],
//!   [`export`].
//!
//! Here, beside the requests: [`fetch`] (a corpus for a topic from OpenAlex) and [`analytics`]
//! (citation analytics on DataFusion or Ballista, the `analytics` feature), whose requests are
//! their whole interface, and [`analytics_results`] (their result files used in a session).

pub mod analytics;
pub mod analytics_results;
pub mod fetch;
pub mod request;

pub use litnav_maps::build as maps;
pub use litnav_maps::{browse, coverage, edits, export, suggest};
pub use litnav_score as score;
pub use litnav_score::{judge, survey};
pub use litnav_session::{
    Citations, Context, CorpusSession, Error, IngestReport, IngestRequest, LlmOptions, Progress, Quiet, Result,
    SearchRequest, Settings, Workspace, bibliography, codes, edges, error, info, ingest, number, parallel, progress,
    relations, session, settings, supplied, workspace, year,
};
