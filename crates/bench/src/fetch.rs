//! What fetching a field costs: a 1,000-work field (200 topic hits, up to 800 more by snowballing
//! both ways) fetched from the OpenAlex stand-in on loopback — serving the shared datasets' real
//! citation networks, CiteSeer and AAN, as OpenAlex works — then encoded: calls of each kind,
//! bytes, seconds to fetch and to encode, what the corpus holds; and the same fetch again, which the
//! answer cache serves without a call. The stand-in answers at once, so the seconds are litnav's
//! own plus the pacing (`--rate` requests a second, 10 by default, as against OpenAlex).

use crate::Result;
use litnav_app::fetch::{FetchOutcome, FetchRequest, fetch_openalex};
use litnav_app::request::FetchParams;
use litnav_app::{Progress, Workspace};
use litnav_fetch::stand_in::{StandIn, dataset_works};
use serde::Serialize;
use std::fmt;

/// The whole benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The topic fetched.
    pub topic: String,
    /// The first fetch.
    pub first: FetchOutcome,
    /// Seconds to encode every fetched work.
    pub encode_seconds: f64,
    /// The same fetch again (from the cache).
    pub again: FetchOutcome,
}

/// Fetch `topic` with `params` from the stand-in into a scratch corpus, encode it, fetch again.
pub fn run(workspace: &Workspace, topic: &str, params: &FetchParams, progress: &dyn Progress) -> Result<Report> {
    let datasets = workspace.settings().datasets()?;
    progress.stage("starting the OpenAlex stand-in on loopback (CiteSeer and AAN as OpenAlex works)");
    let (works, moved) = dataset_works(datasets).map_err(|e| litnav_app::Error::io(datasets, &e))?;
    let server = StandIn::start(works, moved).map_err(|e| litnav_app::Error::unavailable(e.to_string()))?;
    let scratch = tempfile::tempdir()?;
    // The answer cache lives in litnav's home: a scratch home keeps this run's first fetch cold.
    let mut settings = workspace.settings().clone();
    settings.home = scratch.path().join("home");
    let workspace = Workspace::new(settings);
    let request = FetchRequest {
        topic: topic.to_string(),
        corpus: scratch.path().join("field"),
        params: FetchParams { api_url: Some(server.url().to_string()), ..params.clone() },
        api_key: None,
        allowance: None,
    };
    let first = fetch_openalex(&workspace, &request, progress)?;
    let started = std::time::Instant::now();
    let session = litnav_app::CorpusSession::open(&request.corpus)?;
    session.dense(workspace.encoder(progress)?, progress)?;
    let encode_seconds = started.elapsed().as_secs_f64();
    let again = fetch_openalex(&workspace, &request, progress)?;
    Ok(Report { topic: topic.to_string(), first, encode_seconds, again })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fetch: “{}” from the OpenAlex stand-in (CiteSeer + AAN as OpenAlex works)", self.topic)?;
        for (name, outcome) in [("first", &self.first), ("again", &self.again)] {
            let (r, c) = (&outcome.fetch, &outcome.fetch.calls);
            writeln!(
                f,
                "{name:<6} {:>5} works ({} hits, {} cited, {} citing), {:>5} citations; calls: {} search, {} list, {} singleton, {} cached; {:.2} MB; {:.1} s",
                r.works,
                r.hits,
                r.references,
                r.citing,
                r.citations,
                c.search,
                c.list,
                c.singleton,
                c.cached,
                c.bytes as f64 / 1e6,
                outcome.seconds
            )?;
        }
        writeln!(f, "encode {:>5} works in {:.1} s", self.first.fetch.works, self.encode_seconds)?;
        let r = &self.first.fetch;
        writeln!(
            f,
            "gaps   {} works list no references, {} merged ids followed, {} ids unknown, {} candidates left out",
            r.works_without_references, r.merged, r.not_found, r.left_out
        )
    }
}
