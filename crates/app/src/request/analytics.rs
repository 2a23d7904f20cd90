//! Citation analytics over a columnar corpus, as the faces receive them: `litnav analytics`' and
//! `litnav cluster`'s flags and the server's `POST /api/analytics/{query}` body. The engines
//! themselves are behind the `analytics` feature ([`crate::analytics`]); these types are not, so
//! every build parses and documents the same options.

use super::names::{EngineName, UnitsName};
use super::{Defaults, OptionDoc, docs_of};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The Ballista scheduler a plan goes to unless told otherwise.
pub const DEFAULT_SCHEDULER: &str = "df://127.0.0.1:50050";

/// Seconds a Ballista job may take before it is given up (Ballista can leave a job waiting
/// forever when an executor is lost mid-job).
pub const DEFAULT_TIMEOUT: u64 = 24 * 3600;

/// The engine an analytics query runs on, every option optional; [`EngineParams::filled`]
/// decides the defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct EngineParams {
    /// The engine.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub engine: Option<EngineName>,
    /// The Ballista scheduler (with engine ballista).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub scheduler: Option<String>,
    /// With engine ballista: give up on a job (an error, no result written) after this many
    /// seconds; Ballista can leave a job waiting forever when an executor is lost mid-job.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS"))]
    pub timeout: Option<u64>,
    /// Memory the embedded engine may hold before it spills to disk (MiB; default: no limit).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "MIB"))]
    pub memory_limit: Option<usize>,
    /// Where the embedded engine spills (default: the system's temporary directory).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub spill_dir: Option<PathBuf>,
}

impl EngineParams {
    /// These options with every one not given at its default.
    pub fn filled(&self) -> EngineParams {
        EngineParams {
            engine: Some(self.engine.unwrap_or_default()),
            scheduler: self.scheduler.clone().or_else(|| Some(DEFAULT_SCHEDULER.to_string())),
            timeout: self.timeout.or(Some(DEFAULT_TIMEOUT)),
            memory_limit: self.memory_limit,
            spill_dir: self.spill_dir.clone(),
        }
    }
}

impl Defaults for EngineParams {
    const REQUIRED: &'static [&'static str] = &[];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&EngineParams::default().filled())
    }
}

/// How many separate queries a plan's cuts run as, unless asked otherwise.
pub const DEFAULT_JOBS: u32 = 1;

/// The CD index of every paper.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct CdParams {
    /// Count only citing papers published within this many years after the focal paper
    /// (default: no limit).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "YEARS"))]
    pub window: Option<u32>,
    /// Ranges of publication time the focal papers are cut into (default: four per core of this
    /// machine; on a cluster, give about four per executor task slot). More ranges: less memory
    /// per task, more citations shipped between tasks.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub ranges: Option<u32>,
    /// Run the ranges as this many separate queries, one after another. A job holds only its
    /// share's rows: use more jobs when one query's memory or Ballista's shuffle files would not
    /// fit; each job reads the edges again.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub jobs: Option<u32>,
}

/// Every paper's most co-cited or most coupled papers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct RelatedParams {
    /// How many related papers each paper keeps.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub top: Option<u32>,
    /// Groups the focal papers are cut into (default: four per core of this machine; on a
    /// cluster, give about four per executor task slot). More groups: less memory per task, more
    /// links shipped between tasks.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub groups: Option<u32>,
    /// Run the groups as this many separate queries, one after another (see cd's jobs).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub jobs: Option<u32>,
}

/// Related papers each paper keeps, unless asked otherwise.
pub const DEFAULT_TOP: u32 = 10;

/// Every paper's novelty against the expected null.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct NoveltyParams {
    /// What plays the role of Uzzi's journals: a reference's venue (its own unit when it has
    /// none), or every reference itself.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub units: Option<UnitsName>,
}

/// Every paper's in-corpus citations and references and their percentile (no options).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct CountsParams {}

/// One analytics query with its options.
#[derive(Debug, Clone, PartialEq)]
pub enum AnalyticsQuery {
    /// The CD index, as `cd.parquet`.
    Cd(CdParams),
    /// Citation counts and percentiles, as `counts.parquet`.
    Counts(CountsParams),
    /// Co-citation lists, as `cocitation.parquet`.
    Cocitation(RelatedParams),
    /// Coupling lists, as `coupling.parquet`.
    Coupling(RelatedParams),
    /// Novelty, as `novelty.parquet`.
    Novelty(NoveltyParams),
}

impl AnalyticsQuery {
    /// Every query's name, as the API's path and the CLI's subcommand spell it.
    pub const NAMES: [&'static str; 5] = ["cd", "counts", "cocitation", "coupling", "novelty"];

    /// The query named `name` with its options from a JSON object (unknown options refused,
    /// naming them).
    pub fn from_json(name: &str, options: serde_json::Value) -> crate::Result<AnalyticsQuery> {
        fn parse<T: serde::de::DeserializeOwned>(name: &str, options: serde_json::Value) -> crate::Result<T> {
            serde_json::from_value(options).map_err(|e| crate::Error::input(format!("{name}: {e}")))
        }
        Ok(match name {
            "cd" => AnalyticsQuery::Cd(parse(name, options)?),
            "counts" => AnalyticsQuery::Counts(parse(name, options)?),
            "cocitation" => AnalyticsQuery::Cocitation(parse(name, options)?),
            "coupling" => AnalyticsQuery::Coupling(parse(name, options)?),
            "novelty" => AnalyticsQuery::Novelty(parse(name, options)?),
            other => {
                return Err(crate::Error::input(format!(
                    "unknown analytics query {other:?} (one of {})",
                    AnalyticsQuery::NAMES.join(", ")
                )));
            }
        })
    }

    /// The query's name.
    pub fn name(&self) -> &'static str {
        match self {
            AnalyticsQuery::Cd(_) => "cd",
            AnalyticsQuery::Counts(_) => "counts",
            AnalyticsQuery::Cocitation(_) => "cocitation",
            AnalyticsQuery::Coupling(_) => "coupling",
            AnalyticsQuery::Novelty(_) => "novelty",
        }
    }

    /// The file the query writes in its output directory.
    pub fn file(&self) -> String {
        format!("{}.parquet", self.name())
    }

    /// The query's options, documented (every one optional) from their doc comments.
    pub fn docs(name: &str) -> Vec<OptionDoc> {
        match name {
            "cd" => docs_of::<CdParams>(),
            "cocitation" | "coupling" => docs_of::<RelatedParams>(),
            "novelty" => docs_of::<NoveltyParams>(),
            _ => Vec::new(),
        }
    }

    /// The query's options with every one not given at its default (the cuts' defaults depend on
    /// the machine and stay unset).
    pub fn filled(&self) -> AnalyticsQuery {
        match self {
            AnalyticsQuery::Cd(p) => AnalyticsQuery::Cd(CdParams { jobs: p.jobs.or(Some(DEFAULT_JOBS)), ..p.clone() }),
            AnalyticsQuery::Counts(p) => AnalyticsQuery::Counts(p.clone()),
            AnalyticsQuery::Cocitation(p) => AnalyticsQuery::Cocitation(p.filled()),
            AnalyticsQuery::Coupling(p) => AnalyticsQuery::Coupling(p.filled()),
            AnalyticsQuery::Novelty(p) => {
                AnalyticsQuery::Novelty(NoveltyParams { units: Some(p.units.unwrap_or_default()) })
            }
        }
    }

    /// The filled options by name.
    pub fn defaults(name: &str) -> crate::Result<serde_json::Map<String, serde_json::Value>> {
        let filled = AnalyticsQuery::from_json(name, serde_json::json!({}))?.filled();
        Ok(match &filled {
            AnalyticsQuery::Cd(p) => super::to_map(p),
            AnalyticsQuery::Counts(p) => super::to_map(p),
            AnalyticsQuery::Cocitation(p) | AnalyticsQuery::Coupling(p) => super::to_map(p),
            AnalyticsQuery::Novelty(p) => super::to_map(p),
        })
    }
}

impl RelatedParams {
    fn filled(&self) -> RelatedParams {
        RelatedParams {
            top: self.top.or(Some(DEFAULT_TOP)),
            groups: self.groups,
            jobs: self.jobs.or(Some(DEFAULT_JOBS)),
        }
    }
}

/// A Ballista scheduler's process.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct SchedulerParams {
    /// Address to listen on (loopback by default; another address exposes the cluster, which has
    /// no authentication, to that network).
    #[cfg_attr(feature = "clap", arg(long, default_value = "127.0.0.1:50050"))]
    pub addr: std::net::SocketAddr,
}

/// A Ballista executor's process.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ExecutorParams {
    /// The scheduler, HOST:PORT.
    #[cfg_attr(feature = "clap", arg(long, default_value = "127.0.0.1:50050"))]
    pub scheduler: String,
    /// Host to bind and advertise (loopback by default).
    #[cfg_attr(feature = "clap", arg(long, default_value = "127.0.0.1"))]
    pub host: String,
    /// Port for shuffle data (Arrow Flight).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 50051))]
    pub port: u16,
    /// Port for the scheduler's calls (gRPC).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 50052))]
    pub grpc_port: u16,
    /// Tasks run at once (default: the cores).
    #[cfg_attr(feature = "clap", arg(long))]
    pub slots: Option<usize>,
    /// Memory for tasks before they spill, MiB (default: 70% of the machine, Ballista's).
    #[cfg_attr(feature = "clap", arg(long, value_name = "MIB"))]
    pub memory: Option<u64>,
    /// Directory for shuffle files (default: a temporary directory).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub work_dir: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_parses_its_options_and_refuses_others() {
        for name in AnalyticsQuery::NAMES {
            let query = AnalyticsQuery::from_json(name, serde_json::json!({})).unwrap();
            assert_eq!(query.name(), name);
            let documented: Vec<String> = AnalyticsQuery::docs(name).into_iter().map(|d| d.name).collect();
            let defaults = AnalyticsQuery::defaults(name).unwrap();
            assert_eq!(defaults.keys().cloned().collect::<Vec<_>>(), documented, "{name}");
        }
        let refused = AnalyticsQuery::from_json("cd", serde_json::json!({"top": 3})).unwrap_err();
        assert!(refused.to_string().contains("top"), "{refused}");
        assert!(AnalyticsQuery::from_json("pagerank", serde_json::json!({})).is_err());
    }
}
