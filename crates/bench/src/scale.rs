//! `litnav bench scale`: an analysis (the CD index by default; citation counts, co-citation,
//! coupling or novelty) of synthetic power-law citation graphs as Parquet tables, computed by
//! each engine as its own `litnav analytics …` process — litnav's in-memory CSR,
//! DataFusion embedded, and a Ballista cluster (a scheduler and executors, separate processes on
//! loopback) — with wall time and peak resident memory, every engine's values checked against
//! the CSR's, a power law fitted through the sizes per engine and extrapolated to OpenAlex
//! (~270M works, ~1.8B citations), beside alexandria3k's published CD timing, and drawn as an
//! SVG plot.

use crate::memory::{Measured, measure};
use crate::{Error, Result};
use litnav_analytics::cluster::LocalCluster;
use litnav_app::Progress;
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

/// The analyses `bench scale` can time: the `litnav analytics` subcommands.
pub const ANALYSES: [&str; 5] = ["cd", "counts", "cocitation", "coupling", "novelty"];

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// The analysis, of [`ANALYSES`].
    pub analysis: String,
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
    /// How the plan cuts the work (CD's `--ranges`, co-citation's and coupling's `--groups`;
    /// None: the command's default).
    pub cuts: Option<u32>,
    /// How many separate queries the cuts run as (CD, co-citation and coupling; None: one).
    pub jobs: Option<u32>,
    /// Seed of the synthetic graphs.
    pub seed: u64,
    /// Where the tables are written (a temporary directory when `None`).
    pub work: Option<PathBuf>,
}

/// One engine on one graph.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
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

impl Row {
    /// One line for a person watching the run.
    fn summary(&self) -> String {
        let engine = engine_name(&self.engine);
        if let Some(failed) = &self.failed {
            return format!("{engine} failed: {}", failed.lines().next().unwrap_or_default());
        }
        let verdict = match self.equal_to_memory {
            Some(true) => ", every value equal to the CSR's",
            Some(false) => ", values DIFFERENT from the CSR's",
            None => "",
        };
        format!("{engine}: {:.1} s at {} papers{verdict}", self.seconds, self.papers)
    }
}

/// An engine's name for a person.
fn engine_name(engine: &str) -> &str {
    match engine {
        "memory" => "the in-memory CSR",
        "local" => "DataFusion embedded",
        "ballista" => "a Ballista cluster",
        other => other,
    }
}

/// A power law `seconds = a × edges^b` per engine, and its value at OpenAlex's size.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Report {
    /// The analysis.
    pub analysis: String,
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

/// Several reports of the same analysis (runs at different sizes, e.g. on different days) as
/// one: every row, and each engine's power law fitted through all of them.
pub fn merge(reports: Vec<Report>) -> Result<Report> {
    let first = reports.first().ok_or_else(|| Error::input("no report to merge"))?;
    if let Some(other) =
        reports.iter().find(|r| r.analysis != first.analysis || r.window != first.window || r.cores != first.cores)
    {
        return Err(Error::input(format!(
            "the reports differ: {} (window {:?}, {} cores) and {} (window {:?}, {} cores)",
            first.analysis, first.window, first.cores, other.analysis, other.window, other.cores
        )));
    }
    let (analysis, window, cores) = (first.analysis.clone(), first.window, first.cores);
    let mut rows: Vec<Row> = reports.into_iter().flat_map(|r| r.rows).collect();
    rows.sort_by_key(|r| (r.edges, ENGINES.iter().position(|e| *e == r.engine)));
    let mut engines: Vec<String> = rows.iter().map(|r| r.engine.clone()).collect();
    engines.dedup();
    let engines: Vec<&str> = ENGINES.into_iter().filter(|e| engines.iter().any(|x| x == e)).collect();
    let extrapolations = engines.into_iter().filter_map(|engine| extrapolate(engine, &rows, cores)).collect();
    Ok(Report {
        analysis,
        cores,
        window,
        rows,
        extrapolations,
        alexandria3k_core_hours_per_billion: ALEXANDRIA3K_CORE_HOURS_PER_BILLION,
    })
}

/// Run every engine on every size, saying each step and each engine's time to `progress` (a
/// run at 10M papers takes minutes per engine).
pub fn run(options: &Options, progress: &dyn Progress) -> Result<Report> {
    let scratch = tempfile::tempdir().map_err(|e| Error::internal(format!("cannot make a work directory: {e}")))?;
    let work = options.work.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    let mut rows = Vec::new();
    for &(papers, refs) in &options.sizes {
        let tables = work.join(format!("graph-{papers}x{refs}"));
        progress.check(&format!("writing a synthetic graph of {papers} papers citing {refs} each"))?;
        let graph = litnav_graph::synthetic::preferential_attachment(papers, refs, options.seed);
        let edges = graph.edge_count();
        litnav_analytics::synthetic::write_graph(&graph, &tables).map_err(|e| Error::internal(e.to_string()))?;
        drop(graph);
        let mut reference: Option<PathBuf> = None;
        let file = format!("{}.parquet", result_stem(&options.analysis));
        for engine in &options.engines {
            let out = work.join(format!("{}-{engine}-{papers}x{refs}", options.analysis));
            progress.check(&format!("{} of {papers} papers on {}", options.analysis, engine_name(engine)))?;
            let mut row = run_engine(options, engine, &tables, &out, papers, edges)?;
            if row.failed.is_none() {
                match &reference {
                    None if engine == "memory" => reference = Some(out.join(&file)),
                    None => {}
                    Some(expected) => {
                        row.equal_to_memory = Some(same_results(&options.analysis, expected, &out.join(&file))?)
                    }
                }
            }
            progress.notice(&row.summary());
            rows.push(row);
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let extrapolations = options.engines.iter().filter_map(|engine| extrapolate(engine, &rows, cores)).collect();
    Ok(Report {
        analysis: options.analysis.clone(),
        cores,
        window: options.window,
        rows,
        extrapolations,
        alexandria3k_core_hours_per_billion: ALEXANDRIA3K_CORE_HOURS_PER_BILLION,
    })
}

fn run_engine(options: &Options, engine: &str, tables: &Path, out: &Path, papers: usize, edges: usize) -> Result<Row> {
    let mut command = Command::new(&options.litnav);
    command.args(["analytics", &options.analysis, "--json", "--engine", engine, "--parquet"]);
    command.arg(tables).arg("--out").arg(out);
    if let (Some(window), "cd") = (options.window, options.analysis.as_str()) {
        command.args(["--window", &window.to_string()]);
    }
    match (options.cuts, options.analysis.as_str()) {
        (Some(cuts), "cd") => _ = command.args(["--ranges", &cuts.to_string()]),
        (Some(cuts), "cocitation" | "coupling") => _ = command.args(["--groups", &cuts.to_string()]),
        _ => {}
    }
    if let (Some(jobs), "cd" | "cocitation" | "coupling", false) =
        (options.jobs, options.analysis.as_str(), engine == "memory")
    {
        command.args(["--jobs", &jobs.to_string()]);
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

/// The result file's stem of an analysis.
fn result_stem(analysis: &str) -> &str {
    match analysis {
        "cocitation" | "coupling" | "novelty" | "counts" => analysis,
        _ => "cd",
    }
}

/// Whether two result files of `analysis` hold the same values for the same papers: equal for
/// every analysis but novelty, whose plan sums the null's per-year terms in its own order
/// (equal within 1e-9).
fn same_results(analysis: &str, expected: &Path, found: &Path) -> Result<bool> {
    use litnav_analytics as analytics;
    let failed = |e: analytics::Error| Error::internal(e.to_string());
    fn sorted<T>(mut rows: Vec<(String, T)>) -> Vec<(String, T)> {
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows
    }
    Ok(match analysis {
        "counts" => {
            let read = |path: &Path| analytics::counts::read(path).map(sorted).map_err(failed);
            read(expected)? == read(found)?
        }
        "cocitation" | "coupling" => {
            let read = |path: &Path| analytics::related::read(path).map_err(failed);
            read(expected)? == read(found)?
        }
        "novelty" => {
            let read = |path: &Path| analytics::novelty::read(path).map(|r| sorted(r.rows)).map_err(failed);
            let (expected, found) = (read(expected)?, read(found)?);
            let close = |a: Option<f64>, b: Option<f64>| {
                a.zip(b).map_or(a.is_none() && b.is_none(), |(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
            };
            expected.len() == found.len()
                && expected.iter().zip(&found).all(|((ia, a), (ib, b))| {
                    ia == ib
                        && a.pairs == b.pairs
                        && a.undefined == b.undefined
                        && close(a.p10, b.p10)
                        && close(a.median, b.median)
                })
        }
        _ => {
            let read = |path: &Path| analytics::cd::read(path).map(|r| sorted(r.rows)).map_err(failed);
            read(expected)? == read(found)?
        }
    })
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
        match self.analysis.as_str() {
            "cd" => writeln!(f, "CD index, window {window}, {} cores", self.cores)?,
            other => writeln!(f, "{other}, {} cores", self.cores)?,
        }
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

/// The report as an SVG plot: seconds against citation edges on log–log axes, each engine's
/// measured sizes joined by a solid line and its power law extended (dashed) to OpenAlex's 1.8B
/// edges, with alexandria3k's published run scaled to this machine's cores (10 h × 8 cores for
/// 1.26B citations, ideal scaling assumed).
pub fn plot(report: &Report) -> String {
    const COLOURS: [(&str, &str); 3] = [("memory", "#1b9e77"), ("local", "#d95f02"), ("ballista", "#7570b3")];
    let (width, height, left, right, top, bottom) = (820.0, 460.0, 140.0, 190.0, 40.0, 60.0);
    let alexandria = (1.26e9, ALEXANDRIA3K_CORE_HOURS_PER_BILLION * 1.26 * 3600.0 / report.cores.max(1) as f64);
    let measured = report.rows.iter().filter(|r| r.failed.is_none() && r.seconds > 0.0);
    let extrapolated = report.extrapolations.iter().map(|e| (OPENALEX_EDGES, e.openalex_hours * 3600.0));
    let points: Vec<(f64, f64)> =
        measured.clone().map(|r| (r.edges as f64, r.seconds)).chain(extrapolated).chain([alexandria]).collect();
    let decade = |v: f64, up: bool| if up { v.log10().ceil() } else { v.log10().floor() };
    let (x0, x1) = (decade(points.iter().map(|p| p.0).fold(f64::MAX, f64::min), false), decade(2e9, true));
    let (y0, y1) = (
        decade(points.iter().map(|p| p.1).fold(f64::MAX, f64::min), false),
        decade(points.iter().map(|p| p.1).fold(0.0, f64::max), true).max(decade(10.0, true)),
    );
    let x = |edges: f64| left + (edges.log10() - x0) / (x1 - x0) * (width - left - right);
    let y = |seconds: f64| height - bottom - (seconds.log10() - y0) / (y1 - y0).max(1.0) * (height - top - bottom);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let _ = writeln!(
        svg,
        "<text x=\"{left}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">litnav analytics {}: time against citation edges ({} cores)</text>",
        report.analysis, report.cores
    );
    for power in x0 as i32..=x1 as i32 {
        let at = x(10f64.powi(power));
        let _ = writeln!(
            svg,
            "<line x1=\"{at:.1}\" y1=\"{top}\" x2=\"{at:.1}\" y2=\"{:.1}\" stroke=\"#e5e5e5\"/><text x=\"{at:.1}\" y=\"{:.1}\" text-anchor=\"middle\">10^{power}</text>",
            height - bottom,
            height - bottom + 18.0
        );
    }
    for power in y0 as i32..=y1 as i32 {
        let at = y(10f64.powi(power));
        let label = human_seconds(10f64.powi(power));
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" y1=\"{at:.1}\" x2=\"{:.1}\" y2=\"{at:.1}\" stroke=\"#e5e5e5\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            width - right,
            left - 6.0,
            at + 4.0
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">citation edges (log)</text>\
         <text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\">wall time (log)</text>",
        (left + width - right) / 2.0,
        height - 14.0,
        (top + height - bottom) / 2.0
    );
    let openalex = x(OPENALEX_EDGES);
    let _ = writeln!(
        svg,
        "<line x1=\"{openalex:.1}\" y1=\"{top}\" x2=\"{openalex:.1}\" y2=\"{:.1}\" stroke=\"#999\" stroke-dasharray=\"2 3\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#666\">OpenAlex 1.8B</text>",
        height - bottom,
        openalex - 4.0,
        top - 4.0
    );
    let mut legend = top + 10.0;
    for (engine, colour) in COLOURS {
        let rows: Vec<(f64, f64)> =
            measured.clone().filter(|r| r.engine == engine).map(|r| (x(r.edges as f64), y(r.seconds))).collect();
        let Some(&(last_x, last_y)) = rows.last() else { continue };
        let line: Vec<String> = rows.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            line.join(" ")
        );
        for (a, b) in &rows {
            let _ = writeln!(svg, "<circle cx=\"{a:.1}\" cy=\"{b:.1}\" r=\"4\" fill=\"{colour}\"/>");
        }
        // A failure at a larger size ends the line there: no extrapolation past it.
        let failed =
            report.rows.iter().find(|r| r.engine == engine && r.failed.is_some() && x(r.edges as f64) > last_x);
        if let Some(failure) = failed {
            let fx = x(failure.edges as f64);
            let _ = writeln!(
                svg,
                "<text x=\"{fx:.1}\" y=\"{:.1}\" fill=\"{colour}\" font-size=\"18\" text-anchor=\"middle\">✗</text>",
                last_y - 6.0
            );
        }
        if let Some(e) = report.extrapolations.iter().find(|e| e.engine == engine).filter(|_| failed.is_none()) {
            let (ex, ey) = (x(OPENALEX_EDGES), y(e.openalex_hours * 3600.0));
            let _ = writeln!(
                svg,
                "<line x1=\"{last_x:.1}\" y1=\"{last_y:.1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\
                 <circle cx=\"{ex:.1}\" cy=\"{ey:.1}\" r=\"4\" fill=\"white\" stroke=\"{colour}\" stroke-width=\"2\"/>"
            );
        }
        let name = match engine {
            "local" => "DataFusion (1 node)",
            "ballista" => "Ballista (2 executors)",
            _ => "in-memory CSR",
        };
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{legend:.1}\" x2=\"{:.1}\" y2=\"{legend:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">{name}</text>",
            width - right + 12.0,
            width - right + 36.0,
            width - right + 42.0,
            legend + 4.0
        );
        legend += 20.0;
    }
    let (ax, ay) = (x(alexandria.0), y(alexandria.1));
    let _ = writeln!(
        svg,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"9\" fill=\"#444\"/>\
         <rect x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"9\" fill=\"#444\"/><text x=\"{:.1}\" y=\"{:.1}\">alexandria3k (published,</text>\
         <text x=\"{:.1}\" y=\"{:.1}\">scaled to {} cores)</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#666\">dashed: power-law fit extended</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#666\">✗: failed at that size</text>",
        ax - 4.5,
        ay - 4.5,
        width - right + 19.5,
        legend - 4.5,
        width - right + 42.0,
        legend + 4.0,
        width - right + 42.0,
        legend + 18.0,
        report.cores,
        width - right + 12.0,
        legend + 44.0,
        width - right + 12.0,
        legend + 62.0
    );
    svg.push_str("</svg>\n");
    svg
}

/// A time for an axis label: seconds, minutes, hours or days.
fn human_seconds(seconds: f64) -> String {
    match seconds {
        s if s < 100.0 => format!("{s} s"),
        s if s < 3600.0 => format!("{s} s ({:.0} min)", s / 60.0),
        s if s < 86_400.0 => format!("{s:.0} s ({:.1} h)", s / 3600.0),
        s => format!("{s:.0} s ({:.1} d)", s / 86_400.0),
    }
}
