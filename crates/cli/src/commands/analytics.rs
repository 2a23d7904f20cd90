//! `litnav analytics …`: citation analytics over a columnar corpus (Parquet, from `litnav export
//! parquet` or an OpenAlex snapshot), on the in-memory graph, embedded DataFusion, or a Ballista
//! cluster (`litnav cluster`). Needs the `analytics` build feature.

use anyhow::Result;
use litnav_app::request::UnitsName;
use std::path::PathBuf;

/// The analytics.
#[derive(Debug, clap::Subcommand)]
pub enum Query {
    /// The CD disruption index of every paper (as the `cdindex` package defines it), written as
    /// OUT/cd.parquet; `litnav relations disruption --results OUT/cd.parquet` reads it back.
    Cd(CdArgs),
    /// Every paper's in-corpus citations and references, and the percentile rank of its
    /// citations among all papers', written as OUT/counts.parquet.
    Counts(CountsArgs),
    /// Every paper's most co-cited papers (cited together with it by a third), written as
    /// OUT/cocitation.parquet; `litnav relations co-cited ID --results …` reads it back.
    Cocitation(RelatedArgs),
    /// Every paper's most coupled papers (citing references in common with it), written as
    /// OUT/coupling.parquet; `litnav relations coupled ID --results …` reads it back.
    Coupling(RelatedArgs),
    /// Every paper's novelty (Uzzi's z-scores of its reference pairs: 10th percentile and
    /// median) against the expected null, which distributes; written as OUT/novelty.parquet,
    /// read back by `litnav relations novelty --results …`.
    Novelty(NoveltyArgs),
}

/// Where the plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// litnav's in-memory CSR graph (fastest while the graph fits in memory).
    Memory,
    /// Apache DataFusion in this process (spills to disk under --memory-limit).
    Local,
    /// An Apache DataFusion Ballista cluster (`litnav cluster`), at --scheduler.
    Ballista,
}

/// The tables, the engine and where results go (every analytics command).
#[derive(Debug, clap::Args)]
pub struct EngineArgs {
    /// The columnar corpus: a directory with papers and edges tables.
    #[arg(long, value_name = "DIR")]
    parquet: PathBuf,
    /// Where to write the result table.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Local)]
    engine: EngineArg,
    /// The Ballista scheduler (with --engine ballista).
    #[arg(long, value_name = "URL", default_value = "df://127.0.0.1:50050")]
    scheduler: String,
    /// With --engine ballista: give up on a job (an error, no result written) after this many
    /// seconds; Ballista can leave a job waiting forever when an executor is lost mid-job.
    #[arg(long, value_name = "SECONDS", default_value_t = 24 * 3600)]
    timeout: u64,
    /// Memory the embedded engine may hold before it spills to disk (MiB; default: no limit).
    #[arg(long, value_name = "MIB")]
    memory_limit: Option<usize>,
    /// Where the embedded engine spills (default: the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    spill_dir: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct CdArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// Count only citing papers published within this many years after the focal paper
    /// (default: no limit).
    #[arg(long, value_name = "YEARS")]
    window: Option<u32>,
    /// Ranges of publication time the focal papers are cut into (default: four per core of this
    /// machine; on a cluster, give about four per executor task slot). More ranges: less memory
    /// per task, more citations shipped between tasks.
    #[arg(long, value_name = "N")]
    ranges: Option<u32>,
    #[command(flatten)]
    jobs: JobsArg,
}

/// How many separate queries a plan's cuts run as.
#[derive(Debug, clap::Args)]
pub struct JobsArg {
    /// Run the ranges (cd) or groups (cocitation, coupling) as this many separate queries, one
    /// after another. A job holds only its share's rows: use more jobs when one query's memory
    /// or Ballista's shuffle files would not fit; each job reads the edges again.
    #[arg(long, value_name = "N", default_value_t = 1)]
    jobs: u32,
}

impl JobsArg {
    /// The jobs, checked against the cuts there are to share out (named by their flag).
    #[cfg(feature = "analytics")]
    fn checked(&self, cuts: u32, flag: &str) -> Result<u32> {
        anyhow::ensure!(self.jobs > 0, "--jobs must be at least 1");
        anyhow::ensure!(
            self.jobs <= cuts,
            "--jobs {} is more than the {cuts} {flag} there are to share out",
            self.jobs
        );
        Ok(self.jobs)
    }
}

#[derive(Debug, clap::Args)]
pub struct CountsArgs {
    #[command(flatten)]
    engine: EngineArgs,
}

#[derive(Debug, clap::Args)]
pub struct RelatedArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// How many related papers each paper keeps.
    #[arg(long, default_value_t = 10)]
    top: u32,
    /// Groups the focal papers are cut into (default: four per core of this machine; on a
    /// cluster, give about four per executor task slot). More groups: less memory per task, more
    /// links shipped between tasks.
    #[arg(long, value_name = "N")]
    groups: Option<u32>,
    #[command(flatten)]
    jobs: JobsArg,
}

#[derive(Debug, clap::Args)]
pub struct NoveltyArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// What plays the role of Uzzi's journals: a reference's venue (its own unit when it has
    /// none), or every reference itself.
    #[arg(long, value_enum, default_value_t = UnitsName::Venues)]
    units: UnitsName,
}

pub fn run(query: Query) -> Result<()> {
    #[cfg(feature = "analytics")]
    {
        enabled::run(query)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = query;
        Err(missing_feature())
    }
}

/// The error of a build without the analytics engines.
#[cfg(not(feature = "analytics"))]
pub fn missing_feature() -> anyhow::Error {
    litnav_app::analytics_results::missing_feature().into()
}

#[cfg(feature = "analytics")]
mod enabled {
    use super::{CdArgs, CountsArgs, EngineArg, EngineArgs, NoveltyArgs, Query, RelatedArgs};
    use anyhow::Result;
    use litnav_analytics::cd::CdPlan;
    use litnav_analytics::related::{RelatedPlan, Relation};
    use litnav_analytics::{Engine, LocalOptions};

    pub fn run(query: Query) -> Result<()> {
        match query {
            Query::Cd(args) => cd(args),
            Query::Counts(args) => counts(args),
            Query::Cocitation(args) => related(args, Relation::CoCitation),
            Query::Coupling(args) => related(args, Relation::Coupling),
            Query::Novelty(args) => novelty(args),
        }
    }

    fn engine(args: &EngineArgs) -> Engine {
        match args.engine {
            EngineArg::Memory => Engine::Memory,
            EngineArg::Local => Engine::Local(LocalOptions {
                memory_limit: args.memory_limit.map(|mib| mib << 20),
                spill_dir: args.spill_dir.clone(),
                ..LocalOptions::default()
            }),
            EngineArg::Ballista => Engine::Ballista {
                scheduler: args.scheduler.clone(),
                timeout: std::time::Duration::from_secs(args.timeout),
            },
        }
    }

    /// Print what a command did: JSON with the engine and the time, or a line.
    fn report(
        args: &EngineArgs,
        engine: &Engine,
        seconds: f64,
        mut summary: serde_json::Value,
        line: String,
    ) -> Result<()> {
        if args.json {
            summary["engine"] = engine.name().into();
            summary["seconds"] = seconds.into();
            return super::super::print_json(&summary);
        }
        println!("{line} on {} in {seconds:.1} s", engine.name());
        Ok(())
    }

    fn cd(args: CdArgs) -> Result<()> {
        let mut plan = CdPlan::new(args.window);
        if let Some(ranges) = args.ranges {
            anyhow::ensure!(ranges > 0, "--ranges must be at least 1");
            plan.ranges = ranges;
        }
        plan.jobs = args.jobs.checked(plan.ranges, "ranges (--ranges)")?;
        let engine = engine(&args.engine);
        let started = std::time::Instant::now();
        let summary = litnav_analytics::disruption(&engine, &args.engine.parquet, plan, &args.engine.out)?;
        let line = format!(
            "CD index of {} papers ({} with a publication {}) → {}",
            summary.papers,
            summary.timed,
            if summary.dated { "date" } else { "year" },
            args.engine.out.join("cd.parquet").display()
        );
        report(&args.engine, &engine, started.elapsed().as_secs_f64(), serde_json::to_value(&summary)?, line)
    }

    fn counts(args: CountsArgs) -> Result<()> {
        let engine = engine(&args.engine);
        let started = std::time::Instant::now();
        let papers = litnav_analytics::citation_counts(&engine, &args.engine.parquet, &args.engine.out)?;
        let line = format!("citation counts of {papers} papers → {}", args.engine.out.join("counts.parquet").display());
        report(&args.engine, &engine, started.elapsed().as_secs_f64(), serde_json::json!({ "papers": papers }), line)
    }

    fn related(args: RelatedArgs, relation: Relation) -> Result<()> {
        let mut plan = RelatedPlan::new(relation, args.top);
        if let Some(groups) = args.groups {
            anyhow::ensure!(groups > 0, "--groups must be at least 1");
            plan.groups = groups;
        }
        plan.jobs = args.jobs.checked(plan.groups, "groups (--groups)")?;
        let engine = engine(&args.engine);
        let started = std::time::Instant::now();
        let summary = litnav_analytics::related_papers(&engine, &args.engine.parquet, plan, &args.engine.out)?;
        let file = args.engine.out.join(format!("{}.parquet", relation.name()));
        let line = format!(
            "top {} by {} of every paper: {} rows → {}",
            summary.top,
            relation.name(),
            summary.rows,
            file.display()
        );
        report(&args.engine, &engine, started.elapsed().as_secs_f64(), serde_json::to_value(&summary)?, line)
    }

    fn novelty(args: NoveltyArgs) -> Result<()> {
        let units = args.units.units();
        let engine = engine(&args.engine);
        let started = std::time::Instant::now();
        let summary = litnav_analytics::paper_novelty(&engine, &args.engine.parquet, units, &args.engine.out)?;
        let line = format!(
            "novelty of {} papers ({} as units, expected null) → {}",
            summary.papers,
            summary.units,
            args.engine.out.join("novelty.parquet").display()
        );
        report(&args.engine, &engine, started.elapsed().as_secs_f64(), serde_json::to_value(&summary)?, line)
    }
}
