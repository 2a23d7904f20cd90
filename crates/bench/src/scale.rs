//! `litnav bench scale`: the CD index of synthetic power-law citation graphs as Parquet tables,
//! computed by each engine as its own `litnav analytics cd` process — litnav's in-memory CSR,
//! DataFusion embedded, and a Ballista cluster (a scheduler and executors, separate processes on
//! loopback) — with wall time and peak resident memory, every engine's values checked against
//! the CSR's, a power law fitted through the sizes per engine and extrapolated to OpenAlex
//! (~270M works, ~1.8B citations), beside alexandria3k's published CD timing.

use crate::memory::{Measured, measure};
use crate::{Error, Result};
use litnav_analytics::cluster::LocalCluster;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// OpenAlex's size, the extrapolation's target.
pub const OPENALEX_WORKS: f64 = 270e6;
/// OpenAlex's in-corpus citation edges.
pub const OPENALEX_EDGES: f64 = 1.8e9;
/// alexandria3k's published CD run: Crossref's 1.26B citations in under 10 hours on 8 cores.
pub const ALEXANDRIA3K_CORE_HOURS_PER_BILLION: f64 = 10.0 * 8.0 / 1.26;

/// The engines compared.
pub const ENGINES: [&str; 3] = ["memory", "local", "ballista"];

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `litnav` binary (built with the `analytics` feature).
    pub litnav: PathBuf,
    /// Graph sizes: (papers, references per paper), ascending.
    pub sizes: Vec<(usize, usize)>,
    /// The CD window in years (None: unbounded).
    pub window: Option<u32>,
    /// Engines to run, of [`ENGINES`].
    pub engines: Vec<String>,
    /// Ballista executors.
    pub executors: usize,
    /// Task slots per executor.
    pub slots: usize,
    /// Memory per executor for its tasks, MiB.
    pub executor_memory_mib: u64,
    /// Memory for the embedded engine before it spills, MiB (None: no limit).
    pub local_memory_mib: Option<usize>,
    /// Seed of the synthetic graphs.
    pub seed: u64,
    /// Where the tables are written (a temporary directory when `None`).
    pub work: Option<PathBuf>,
}

/// One engine on one graph.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The engine.
    pub engine: String,
    /// Papers in the graph.
    pub papers: usize,
    /// Citation edges.
    pub edges: usize,
    /// Wall-clock seconds of the whole command (reading the tables to writing the result).
    pub seconds: f64,
    /// Peak resident memory of the command's process, MiB.
    pub peak_mib: Option<f64>,
    /// For Ballista: the peak of the scheduler and of each executor, MiB.
    pub cluster_peak_mib: Vec<f64>,
    /// Whether every paper's values equal the in-memory CSR's (None: not compared).
    pub equal_to_memory: Option<bool>,
    /// Why the run failed, when it did.
    pub failed: Option<String>,
}

/// A power law `seconds = a × edges^b` per engine, and its value at OpenAlex's size.
#[derive(Debug, Clone, Serialize)]
pub struct Extrapolation {
    /// The engine.
    pub engine: String,
    /// The exponent b (1 when only one size was measured).
    pub exponent: f64,
    /// Hours at OpenAlex's 1.8B edges on this machine's cores.
    pub openalex_hours: f64,
    /// Core-hours per billion citations at that size (comparable to alexandria3k's).
    pub core_hours_per_billion: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Cores of this machine.
    pub cores: usize,
    /// The window.
    pub window: Option<u32>,
    /// Every run.
    pub rows: Vec<Row>,
    /// Per engine, the fit and its extrapolation.
    pub extrapolations: Vec<Extrapolation>,
    /// alexandria3k's published figure, core-hours per billion citations (an upper bound).
    pub alexandria3k_core_hours_per_billion: f64,
}

/// Run every engine on every size.
pub fn run(options: &Options) -> Result<Report> {
    let scratch = tempfile::tempdir().map_err(|e| Error::internal(format!("cannot make a work directory: {e}")))?;
    let work = options.work.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    let mut rows = Vec::new();
    for &(papers, refs) in &options.sizes {
        let tables = work.join(format!("graph-{papers}x{refs}"));
        let graph = litnav_graph::synthetic::preferential_attachment(papers, refs, options.seed);
        let edges = graph.edge_count();
        litnav_analytics::synthetic::write_graph(&graph, &tables).map_err(|e| Error::internal(e.to_string()))?;
        drop(graph);
        let mut reference: Option<PathBuf> = None;
        for engine in &options.engines {
            let out = work.join(format!("cd-{engine}-{papers}x{refs}"));
            let mut row = run_engine(options, engine, &tables, &out, papers, edges)?;
            if row.failed.is_none() {
                match &reference {
                    None if engine == "memory" => reference = Some(out.join("cd.parquet")),
                    None => {}
                    Some(expected) => row.equal_to_memory = Some(same_results(expected, &out.join("cd.parquet"))?),
                }
            }
            rows.push(row);
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let extrapolations = options.engines.iter().filter_map(|engine| extrapolate(engine, &rows, cores)).collect();
    Ok(Report {
        cores,
        window: options.window,
        rows,
        extrapolations,
        alexandria3k_core_hours_per_billion: ALEXANDRIA3K_CORE_HOURS_PER_BILLION,
    })
}

fn run_engine(options: &Options, engine: &str, tables: &Path, out: &Path, papers: usize, edges: usize) -> Result<Row> {
    let mut command = Command::new(&options.litnav);
    command.args(["analytics", "cd", "--json", "--engine", engine, "--parquet"]).arg(tables).arg("--out").arg(out);
    if let Some(window) = options.window {
        command.args(["--window", &window.to_string()]);
    }
    if let (Some(mib), "local") = (options.local_memory_mib, engine) {
        command.args(["--memory-limit", &mib.to_string()]);
    }
    let (measured, cluster_peak_mib) = if engine == "ballista" {
        let cluster =
            LocalCluster::start(&options.litnav, options.executors, options.slots, options.executor_memory_mib)
                .map_err(|e| Error::internal(e.to_string()))?;
        command.args(["--scheduler", &cluster.url()]);
        let measured = measure(command);
        let peaks = cluster.pids().into_iter().filter_map(peak_mib_of).collect();
        let measured = match measured.failed {
            Some(failed) => Measured { failed: Some(format!("{failed}\n{}", cluster.logs())), ..measured },
            None => measured,
        };
        (measured, peaks)
    } else {
        (measure(command), Vec::new())
    };
    Ok(Row {
        engine: engine.to_string(),
        papers,
        edges,
        seconds: measured.seconds,
        peak_mib: measured.peak_mib,
        cluster_peak_mib,
        equal_to_memory: None,
        failed: measured.failed,
    })
}

/// A live process's peak resident memory (VmHWM), MiB.
fn peak_mib_of(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib / 1024.0)
}

/// Whether two `cd.parquet` files hold the same values for the same papers.
fn same_results(expected: &Path, found: &Path) -> Result<bool> {
    let read =
        |path: &Path| litnav_analytics::cd::read(path).map(|r| r.rows).map_err(|e| Error::internal(e.to_string()));
    let mut expected = read(expected)?;
    let mut found = read(found)?;
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(expected == found)
}

/// A least-squares power law through an engine's successful sizes, extrapolated to OpenAlex.
fn extrapolate(engine: &str, rows: &[Row], cores: usize) -> Option<Extrapolation> {
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.engine == engine && r.failed.is_none() && r.seconds > 0.0)
        .map(|r| ((r.edges as f64).ln(), r.seconds.ln()))
        .collect();
    let (x, y) = *points.last()?;
    let exponent = if points.len() < 2 {
        1.0
    } else {
        let n = points.len() as f64;
        let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        if sxx > 0.0 { sxy / sxx } else { 1.0 }
    };
    // Anchored at the largest size measured, where the fixed costs weigh least.
    let seconds = (y + exponent * (OPENALEX_EDGES.ln() - x)).exp();
    Some(Extrapolation {
        engine: engine.to_string(),
        exponent,
        openalex_hours: seconds / 3600.0,
        core_hours_per_billion: seconds / 3600.0 * cores as f64 / (OPENALEX_EDGES / 1e9),
    })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let window = self.window.map_or("unbounded".to_string(), |w| format!("{w} years"));
        writeln!(f, "CD index, window {window}, {} cores", self.cores)?;
        writeln!(f, "| engine | papers | edges | seconds | peak MiB | cluster peaks MiB | = CSR |")?;
        writeln!(f, "|---|---:|---:|---:|---:|---|---|")?;
        for row in &self.rows {
            let peak = row.peak_mib.map_or("–".into(), |m| format!("{m:.0}"));
            let cluster = row.cluster_peak_mib.iter().map(|m| format!("{m:.0}")).collect::<Vec<_>>().join(" + ");
            let equal = match (&row.failed, row.equal_to_memory) {
                (Some(failed), _) => format!("failed: {}", failed.lines().next().unwrap_or("")),
                (None, Some(true)) => "yes".into(),
                (None, Some(false)) => "**no**".into(),
                (None, None) => "(reference)".into(),
            };
            writeln!(
                f,
                "| {} | {} | {} | {:.1} | {peak} | {cluster} | {equal} |",
                row.engine, row.papers, row.edges, row.seconds
            )?;
        }
        writeln!(f)?;
        writeln!(f, "Extrapolated to OpenAlex (~270M works, ~1.8B citations), seconds = a × edges^b:")?;
        for e in &self.extrapolations {
            writeln!(
                f,
                "- {}: b = {:.2}, {:.1} h on {} cores, {:.1} core-hours per billion citations",
                e.engine, e.exponent, e.openalex_hours, self.cores, e.core_hours_per_billion
            )?;
        }
        let mut line = String::new();
        let _ = write!(
            line,
            "- alexandria3k (published): Crossref's 1.26B citations in under 10 h on 8 cores, ≤ {:.1} core-hours per billion",
            self.alexandria3k_core_hours_per_billion
        );
        writeln!(f, "{line}")
    }
}
