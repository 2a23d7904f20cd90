//! Citation analytics over a columnar corpus (Parquet): the queries `litnav analytics` and the
//! server's `POST /api/analytics/{query}` run, the corpus's export to Parquet, an OpenAlex
//! snapshot read into Parquet, and a Ballista cluster's processes. The engines are behind the
//! `analytics` feature (DataFusion, Ballista); without it every call here answers
//! [`missing_feature`], and the request types ([`crate::request::analytics`]) still parse.

pub use crate::analytics_results::missing_feature;
use crate::request::analytics::{AnalyticsQuery, EngineParams, ExecutorParams, SchedulerParams};
use crate::{CorpusSession, Result};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

/// What an analytics command did: its summary (as `--json` prints it) and one line for people.
#[derive(Debug, Clone, Serialize)]
pub struct AnalyticsReport {
    /// The numbers, by name.
    #[serde(flatten)]
    pub summary: Map<String, Value>,
    /// The same in one sentence.
    #[serde(skip)]
    pub line: String,
}

impl std::fmt::Display for AnalyticsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.line)
    }
}

/// Run `query` on the columnar corpus in `parquet` with `engine`, writing its table into `out`;
/// the report names the engine and the seconds it took.
pub fn run(query: &AnalyticsQuery, engine: &EngineParams, parquet: &Path, out: &Path) -> Result<AnalyticsReport> {
    #[cfg(feature = "analytics")]
    {
        enabled::run(query, engine, parquet, out)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (query, engine, parquet, out);
        Err(missing_feature())
    }
}

/// What a query run on a session's own corpus gave: the report and, for the measures a ranking
/// reads (cd, novelty, counts), the session's papers ranked by the values just computed.
#[derive(Debug, Clone, Serialize)]
pub struct SessionAnalytics {
    /// As [`run`] reports it.
    pub report: AnalyticsReport,
    /// The top papers by the computed values, as `litnav relations … --results` lists them.
    pub ranking: Option<crate::relations::Ranking>,
}

/// Run `query` on `session`'s own corpus: its Parquet export (written under `work` once per
/// corpus generation) is the input, the result goes under `work` too; the values are then used
/// in the session (as `--results` does), so its rankings and profiles read them.
pub fn run_on_session(
    session: &CorpusSession,
    query: &AnalyticsQuery,
    engine: &EngineParams,
    work: &Path,
) -> Result<SessionAnalytics> {
    #[cfg(feature = "analytics")]
    {
        enabled::run_on_session(session, query, engine, work)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (session, query, engine, work);
        Err(missing_feature())
    }
}

/// Write `session`'s papers, graph, topics and citation contexts as the columnar corpus in `out`.
pub fn export_parquet(session: &CorpusSession, out: &Path) -> Result<AnalyticsReport> {
    #[cfg(feature = "analytics")]
    {
        enabled::export_parquet(session, out)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (session, out);
        Err(missing_feature())
    }
}

/// Read an OpenAlex snapshot's works into a columnar corpus in `out` (a new directory), on every
/// core, in bounded memory.
pub fn snapshot_to_parquet(snapshot: &Path, out: &Path) -> Result<AnalyticsReport> {
    #[cfg(feature = "analytics")]
    {
        enabled::snapshot_to_parquet(snapshot, out)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (snapshot, out);
        Err(missing_feature())
    }
}

/// Run a Ballista scheduler with litnav's functions until the process is stopped.
pub fn run_scheduler(params: &SchedulerParams) -> Result<()> {
    #[cfg(feature = "analytics")]
    {
        litnav_analytics::cluster::run_scheduler(params.addr).map_err(enabled::failed)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = params;
        Err(missing_feature())
    }
}

/// Run a Ballista executor with litnav's functions until the process is stopped.
pub fn run_executor(params: &ExecutorParams) -> Result<()> {
    #[cfg(feature = "analytics")]
    {
        enabled::run_executor(params)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = params;
        Err(missing_feature())
    }
}

#[cfg(feature = "analytics")]
mod enabled {
    use super::{AnalyticsReport, Map, Path, Result, Value};
    use crate::request::analytics::{AnalyticsQuery, CdParams, EngineParams, ExecutorParams, RelatedParams};
    use crate::request::names::EngineName;
    use crate::{CorpusSession, Error};
    use litnav_analytics::cd::CdPlan;
    use litnav_analytics::related::{RelatedPlan, Relation};
    use litnav_analytics::{Engine, LocalOptions};

    /// The analytics crate's error as the application's: a bad table or file is the input's
    /// fault, anything else the engine's.
    pub(super) fn failed(error: litnav_analytics::Error) -> Error {
        match error {
            litnav_analytics::Error::Corpus(e) => e.into(),
            litnav_analytics::Error::Graph(e) => e.into(),
            e @ (litnav_analytics::Error::Io { .. } | litnav_analytics::Error::Table { .. }) => {
                Error::input(e.to_string())
            }
            e @ litnav_analytics::Error::Cluster(_) => Error::unavailable(e.to_string()),
            e => Error::internal(e.to_string()),
        }
    }

    fn engine(params: &EngineParams) -> Engine {
        let params = params.filled();
        match params.engine.unwrap_or_default() {
            EngineName::Memory => Engine::Memory,
            EngineName::Local => Engine::Local(LocalOptions {
                memory_limit: params.memory_limit.map(|mib| mib << 20),
                spill_dir: params.spill_dir,
                ..LocalOptions::default()
            }),
            EngineName::Ballista => Engine::Ballista {
                scheduler: params.scheduler.unwrap_or_default(),
                timeout: std::time::Duration::from_secs(params.timeout.unwrap_or_default()),
            },
        }
    }

    /// `jobs` checked against the `cuts` there are to share out (named `what`).
    fn jobs(jobs: Option<u32>, cuts: u32, what: &str) -> Result<u32> {
        let jobs = jobs.unwrap_or(crate::request::analytics::DEFAULT_JOBS);
        if jobs == 0 {
            return Err(Error::input("jobs: must be at least 1"));
        }
        if jobs > cuts {
            return Err(Error::input(format!("jobs: {jobs} is more than the {cuts} {what} there are to share out")));
        }
        Ok(jobs)
    }

    /// A cut count (ranges, groups) when given: at least 1.
    fn cuts(given: Option<u32>, default: u32, what: &str) -> Result<u32> {
        match given {
            Some(0) => Err(Error::input(format!("{what}: must be at least 1"))),
            Some(n) => Ok(n),
            None => Ok(default),
        }
    }

    fn cd_plan(params: &CdParams) -> Result<CdPlan> {
        let mut plan = CdPlan::new(params.window);
        plan.ranges = cuts(params.ranges, plan.ranges, "ranges")?;
        plan.jobs = jobs(params.jobs, plan.ranges, "ranges")?;
        Ok(plan)
    }

    fn related_plan(params: &RelatedParams, relation: Relation) -> Result<RelatedPlan> {
        let mut plan = RelatedPlan::new(relation, params.top.unwrap_or(crate::request::analytics::DEFAULT_TOP));
        plan.groups = cuts(params.groups, plan.groups, "groups")?;
        plan.jobs = jobs(params.jobs, plan.groups, "groups")?;
        Ok(plan)
    }

    fn summary_of<T: serde::Serialize>(value: &T) -> Map<String, Value> {
        match serde_json::to_value(value) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    pub(super) fn run(
        query: &AnalyticsQuery,
        params: &EngineParams,
        parquet: &Path,
        out: &Path,
    ) -> Result<AnalyticsReport> {
        let engine = engine(params);
        let file = out.join(query.file());
        let started = std::time::Instant::now();
        let (summary, line) = match query {
            AnalyticsQuery::Cd(params) => {
                let summary = litnav_analytics::disruption(&engine, parquet, cd_plan(params)?, out).map_err(failed)?;
                let dated = if summary.dated { "date" } else { "year" };
                let line =
                    format!("CD index of {} papers ({} with a publication {dated})", summary.papers, summary.timed);
                (summary_of(&summary), line)
            }
            AnalyticsQuery::Counts(_) => {
                let papers = litnav_analytics::citation_counts(&engine, parquet, out).map_err(failed)?;
                (summary_of(&serde_json::json!({ "papers": papers })), format!("citation counts of {papers} papers"))
            }
            AnalyticsQuery::Cocitation(params) | AnalyticsQuery::Coupling(params) => {
                let relation = Relation::from_name(query.name()).unwrap_or(Relation::CoCitation);
                let plan = related_plan(params, relation)?;
                let summary = litnav_analytics::related_papers(&engine, parquet, plan, out).map_err(failed)?;
                let line = format!("top {} by {} of every paper: {} rows", summary.top, relation.name(), summary.rows);
                (summary_of(&summary), line)
            }
            AnalyticsQuery::Novelty(params) => {
                let units = params.units.unwrap_or_default().units();
                let summary = litnav_analytics::paper_novelty(&engine, parquet, units, out).map_err(failed)?;
                let line = format!("novelty of {} papers ({} as units, expected null)", summary.papers, summary.units);
                (summary_of(&summary), line)
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        let mut summary = summary;
        summary.insert("engine".into(), engine.name().into());
        summary.insert("seconds".into(), seconds.into());
        let line = format!("{line} → {} on {} in {seconds:.1} s", file.display(), engine.name());
        Ok(AnalyticsReport { summary, line })
    }

    pub(super) fn run_on_session(
        session: &CorpusSession,
        query: &AnalyticsQuery,
        engine: &EngineParams,
        work: &Path,
    ) -> Result<super::SessionAnalytics> {
        use crate::relations::{Measure, MetricOptions};
        use crate::request::RankParams;
        // Named by the corpus's directory and generation: servers of other corpora may share `work`.
        let generation = session.corpus().manifest().generation;
        let corpus = litnav_core::bytes::fnv1a(session.dir().display().to_string().as_bytes());
        let parquet = work.join(format!("corpus-{corpus:016x}-g{generation}"));
        // One query at a time in this process: each uses every core, and two runs of one query
        // would write the same result table.
        static RUNNING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _running = RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !parquet.join("papers.parquet").exists() {
            std::fs::create_dir_all(work).map_err(|e| Error::io(work, &e))?;
            let staging =
                tempfile::Builder::new().prefix(".corpus-").tempdir_in(work).map_err(|e| Error::io(work, &e))?;
            export_parquet(session, staging.path())?;
            if let Err(e) = std::fs::rename(staging.path(), &parquet) {
                // Another process exported the same generation first: its tables are the same.
                if !parquet.join("papers.parquet").exists() {
                    return Err(Error::io(&parquet, &e));
                }
            }
        }
        let options = serde_json::to_string(&(query.name(), format!("{query:?}"), engine)).unwrap_or_default();
        let digest = litnav_core::bytes::fnv1a(options.as_bytes());
        let out = work.join(format!("corpus-{corpus:016x}-g{generation}-{}-{digest:016x}", query.name()));
        let report = run(query, engine, &parquet, &out)?;
        let measure = match query {
            AnalyticsQuery::Cd(_) => Measure::Disruption,
            AnalyticsQuery::Novelty(_) => Measure::Novelty,
            AnalyticsQuery::Counts(_) => Measure::Citations,
            AnalyticsQuery::Cocitation(_) | AnalyticsQuery::Coupling(_) => {
                return Ok(super::SessionAnalytics { report, ranking: None });
            }
        };
        // Every ranking option at its default; the values come from the file just written.
        let mut request = RankParams::default().resolve(measure, MetricOptions::default().seed)?;
        crate::analytics_results::use_results(session, &mut request, None, &out.join(query.file()))?;
        Ok(super::SessionAnalytics { report, ranking: Some(session.rank(&request)?) })
    }

    pub(super) fn export_parquet(session: &CorpusSession, out: &Path) -> Result<AnalyticsReport> {
        let citations = session.citations()?;
        let exported = litnav_analytics::export::export_corpus(
            session.papers()?,
            session.topics(),
            &citations.graph,
            &citations.contexts,
            out,
        )
        .map_err(failed)?;
        let line = format!(
            "{} papers, {} citation edges, {} topics, {} citation contexts → {}",
            exported.papers,
            exported.edges,
            exported.topics,
            exported.contexts,
            out.display()
        );
        Ok(AnalyticsReport { summary: summary_of(&exported), line })
    }

    pub(super) fn snapshot_to_parquet(snapshot: &Path, out: &Path) -> Result<AnalyticsReport> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let ingested = litnav_analytics::openalex::ingest_snapshot(snapshot, out, threads).map_err(failed)?;
        let line = format!(
            "{} works and {} references from {} files → {}",
            ingested.works,
            ingested.edges,
            ingested.files,
            out.display()
        );
        Ok(AnalyticsReport { summary: summary_of(&ingested), line })
    }

    pub(super) fn run_executor(params: &ExecutorParams) -> Result<()> {
        let (host, port) = params
            .scheduler
            .rsplit_once(':')
            .and_then(|(host, port)| Some((host.to_string(), port.parse::<u16>().ok()?)))
            .ok_or_else(|| Error::input(format!("scheduler {:?}: expected HOST:PORT", params.scheduler)))?;
        litnav_analytics::cluster::run_executor(litnav_analytics::cluster::ExecutorOptions {
            scheduler_host: host,
            scheduler_port: port,
            bind_host: params.host.clone(),
            flight_port: params.port,
            grpc_port: params.grpc_port,
            slots: params.slots.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            memory: params.memory.map(|mib| mib << 20),
            work_dir: params.work_dir.clone(),
        })
        .map_err(failed)
    }
}
