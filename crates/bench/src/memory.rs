//! Memory of each command as a function of corpus size: corpora of several sizes (litbench's
//! papers replicated with fresh ids, each with a synthetic preferential-attachment citation
//! graph), every command run as its own `litnav` process that reports its peak resident memory
//! as it exits (`LITNAV_PEAK_MEMORY`), and a straight line through the two largest sizes per
//! command — what a user needs to know to say which corpus fits in how much memory.
//!
//! Replicas keep their paper's title and abstract (fresh ids, no external ids, so ingest keeps
//! them apart): the search index and the vector matrix grow with the paper count as for distinct
//! papers, and the vectors of the replicas come from the same encoded passages. The smallest size
//! encodes its passages for real; the larger ones start from its vector cache.

use crate::{Error, Result};
use litnav_corpus::Paper;
use litnav_graph::synthetic::preferential_attachment;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use litnav_core::memory::{PEAK_LINE, PEAK_MEMORY_VARIABLE};

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `litnav` binary to run.
    pub litnav: PathBuf,
    /// litbench's `corpus.jsonl` (the papers to replicate).
    pub papers: PathBuf,
    /// The shared datasets (eval rows read TaxoBench's and Bloom-Eval's files).
    pub datasets: PathBuf,
    /// The encoder's directory.
    pub model: PathBuf,
    /// Corpus sizes in papers, ascending.
    pub sizes: Vec<usize>,
    /// References per paper in the synthetic citation graph.
    pub refs: usize,
    /// Where the corpora are built (a temporary directory when `None`).
    pub work: Option<PathBuf>,
}

/// One command at one size.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The command, as a user would type it (paths left out).
    pub command: String,
    /// Papers in the corpus (0: the command reads fixed files, not the corpus).
    pub papers: usize,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Peak resident memory, MiB.
    pub peak_mib: Option<f64>,
    /// Why the command failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// A command's memory as a line in the corpus size.
#[derive(Debug, Clone, Serialize)]
pub struct Fit {
    /// The command.
    pub command: String,
    /// MiB at zero papers (the line's intercept).
    pub base_mib: f64,
    /// MiB per 1,000 papers (the line's slope).
    pub mib_per_1k_papers: f64,
}

impl Fit {
    /// Papers that fit in `mib` MiB by this line (`None` when memory does not grow with papers).
    pub fn papers_in(&self, mib: f64) -> Option<f64> {
        (self.mib_per_1k_papers > 0.01).then(|| ((mib - self.base_mib) / self.mib_per_1k_papers * 1000.0).max(0.0))
    }
}

/// The measurements.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every command at every size, in run order.
    pub rows: Vec<Row>,
    /// One line per command measured at two sizes or more.
    pub fits: Vec<Fit>,
    /// Citation edges per paper of the synthetic graphs.
    pub refs: usize,
}

/// Run every command at every size.
pub fn run(options: &Options) -> Result<Report> {
    let papers = crate::search::load_papers(std::slice::from_ref(&options.papers))?;
    if papers.is_empty() {
        return Err(Error::input("the papers to replicate hold none"));
    }
    let (work, _scratch) = crate::work_dir(options.work.as_deref())?;
    let runner = Runner { options, home: work.join("home") };
    let mut rows = Vec::new();
    let mut first_vectors: Option<PathBuf> = None;
    for &size in &options.sizes {
        let dir = work.join(format!("n{size}"));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, &e))?;
        let (papers_file, edges_file) = write_corpus_files(&dir, &papers, size, options.refs)?;
        let corpus = dir.join("corpus");
        rows.push(runner.run(
            "ingest",
            size,
            &["ingest", "--corpus", path(&corpus), path(&papers_file), path(&edges_file)],
        ));
        let vectors = litnav_embed::cache::corpus_cache_path(&corpus);
        if let Some(seed) = &first_vectors {
            copy_file(seed, &vectors)?;
        }
        let embed = if first_vectors.is_some() { "embed (vectors cached)" } else { "embed (encodes the passages)" };
        rows.push(runner.run(embed, size, &["embed", "--corpus", path(&corpus), "--model", path(&options.model)]));
        first_vectors.get_or_insert(vectors);
        for (name, args) in corpus_commands(&corpus, &dir, &options.model) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            rows.push(runner.run(name, size, &args));
        }
    }
    rows.extend(eval_commands(&options.datasets).into_iter().map(|(name, args)| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        runner.run(name, 0, &args)
    }));
    let fits = fit(&rows);
    Ok(Report { rows, fits, refs: options.refs })
}

/// The corpus-reading commands measured at every size.
fn corpus_commands(corpus: &Path, dir: &Path, model: &Path) -> Vec<(&'static str, Vec<String>)> {
    let c = || vec!["--corpus".to_string(), path(corpus).to_string()];
    let model = || vec!["--model".to_string(), path(model).to_string()];
    let query = "uncertainty quantification of large language models";
    let with = |mut base: Vec<String>, more: &[&str]| {
        base.extend(more.iter().map(|s| s.to_string()));
        base
    };
    vec![
        ("info", with(vec!["info".into()], &[]).into_iter().chain(c()).collect()),
        (
            "search (bm25)",
            with(vec!["search".into()], &["-q", query, "-k", "100", "--mode", "bm25"]).into_iter().chain(c()).collect(),
        ),
        (
            "search (hybrid)",
            with(vec!["search".into()], &["-q", query, "-k", "100", "--mode", "hybrid"])
                .into_iter()
                .chain(c())
                .chain(model())
                .collect(),
        ),
        (
            "map (200 papers)",
            with(vec!["map".into()], &["--topic", query, "--out", path(&dir.join("map.json"))])
                .into_iter()
                .chain(c())
                .chain(model())
                .collect(),
        ),
        (
            "relations disruption",
            with(vec!["relations".into(), "disruption".into()], &["--k", "20"]).into_iter().chain(c()).collect(),
        ),
        (
            "relations novelty",
            with(vec!["relations".into(), "novelty".into()], &["--k", "20"]).into_iter().chain(c()).collect(),
        ),
    ]
}

/// Commands whose input is fixed files (measured once).
fn eval_commands(datasets: &Path) -> Vec<(&'static str, Vec<String>)> {
    let taxobench = datasets.join("taxobench");
    let bloom = datasets.join("bloom-eval/cs_01");
    vec![
        (
            "eval taxobench (5 instances)",
            vec![
                "eval".into(),
                "taxobench".into(),
                "--data".into(),
                path(&taxobench.join("data.jsonl")).into(),
                "--predictions".into(),
                path(&taxobench.join("predictions_example.jsonl")).into(),
            ],
        ),
        (
            "eval survey (cs_01, deterministic)",
            vec![
                "eval".into(),
                "survey".into(),
                "--expert".into(),
                path(&bloom.join("human")).into(),
                "--generated".into(),
                path(&bloom.join("llm")).into(),
            ],
        ),
    ]
}

struct Runner<'a> {
    options: &'a Options,
    home: PathBuf,
}

impl Runner<'_> {
    fn run(&self, name: &str, papers: usize, args: &[&str]) -> Row {
        let mut command = Command::new(&self.options.litnav);
        command
            .args(args)
            .env("LITNAV_HOME", &self.home)
            .env("LITNAV_DATASETS", &self.options.datasets)
            .env_remove("LITNAV_CORPUS");
        let run = measure(command);
        Row { command: name.to_string(), papers, seconds: run.seconds, peak_mib: run.peak_mib, failed: run.failed }
    }
}

/// One `litnav` process's wall time, peak resident memory and failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Peak resident memory in MiB, as the process reported it.
    pub peak_mib: Option<f64>,
    /// Why it failed (its standard error), when it did.
    pub failed: Option<String>,
}

/// Run a `litnav` command to its end, asking it to report its peak memory as it exits.
pub fn measure(mut command: Command) -> Measured {
    let started = Instant::now();
    let output = command.env(PEAK_MEMORY_VARIABLE, "1").output();
    let seconds = started.elapsed().as_secs_f64();
    match output {
        Err(e) => Measured {
            seconds,
            peak_mib: None,
            failed: Some(format!("cannot run {}: {e}", command.get_program().to_string_lossy())),
        },
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let peak_mib = stderr
                .lines()
                .find_map(|l| l.strip_prefix(PEAK_LINE))
                .and_then(|v| v.trim_end_matches(" MiB").parse().ok());
            let failed = (!out.status.success())
                .then(|| stderr.lines().filter(|l| !l.starts_with(PEAK_LINE)).collect::<Vec<_>>().join(" "));
            Measured { seconds, peak_mib, failed }
        }
    }
}

/// The corpus of `size` papers as a papers file and a citation edge list.
fn write_corpus_files(dir: &Path, papers: &[Paper], size: usize, refs: usize) -> Result<(PathBuf, PathBuf)> {
    let mut lines = String::new();
    for (i, paper) in crate::search::synthesize(papers, size).iter().enumerate() {
        let record = serde_json::json!({
            "id": paper.id,
            "title": paper.title,
            "abstract": paper.abstract_text,
            "year": paper.year,
            "venue": paper.venue,
            "is_survey": paper.is_survey,
        });
        lines.push_str(&record.to_string());
        lines.push('\n');
        debug_assert!(i < size);
    }
    let papers_file = dir.join("papers.jsonl");
    std::fs::write(&papers_file, lines).map_err(|e| Error::io(&papers_file, &e))?;
    let ids: Vec<String> = crate::search::synthesize(papers, size).into_iter().map(|p| p.id).collect();
    let graph = preferential_attachment(size, refs, litnav_core::DEFAULT_SEED);
    let mut edges = String::from("citing_id,cited_id\n");
    for (citing, cited) in graph.edges() {
        let _ = writeln!(edges, "{},{}", ids[citing as usize], ids[cited as usize]);
    }
    let edges_file = dir.join("citations.csv");
    std::fs::write(&edges_file, edges).map_err(|e| Error::io(&edges_file, &e))?;
    Ok((papers_file, edges_file))
}

fn copy_file(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, &e))?;
    }
    std::fs::copy(from, to).map(|_| ()).map_err(|e| Error::io(from, &e))
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// A line through each command's two largest sizes (the smallest are dominated by fixed costs).
fn fit(rows: &[Row]) -> Vec<Fit> {
    let mut commands: Vec<&str> = rows.iter().filter(|r| r.papers > 0).map(|r| r.command.as_str()).collect();
    commands.dedup();
    let mut seen = Vec::new();
    let mut fits = Vec::new();
    for command in commands {
        if seen.contains(&command) {
            continue;
        }
        seen.push(command);
        let mut points: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.command == command && r.failed.is_none())
            .filter_map(|r| Some((r.papers as f64, r.peak_mib?)))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let [.., (x1, y1), (x2, y2)] = points[..]
            && x2 > x1
        {
            let slope = (y2 - y1) / (x2 - x1);
            fits.push(Fit {
                command: command.to_string(),
                base_mib: y2 - slope * x2,
                mib_per_1k_papers: slope * 1000.0,
            });
        }
    }
    fits
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut sizes: Vec<usize> = self.rows.iter().map(|r| r.papers).filter(|&p| p > 0).collect();
        sizes.sort_unstable();
        sizes.dedup();
        writeln!(
            f,
            "peak resident memory per command (MiB; seconds), citation graph of {} references per paper",
            self.refs
        )?;
        write!(f, "{:<36}", "command")?;
        for size in &sizes {
            write!(f, "{:>20}", format!("{size} papers"))?;
        }
        writeln!(f)?;
        let mut commands: Vec<&str> = Vec::new();
        for row in self.rows.iter().filter(|r| r.papers > 0) {
            if !commands.contains(&row.command.as_str()) {
                commands.push(&row.command);
            }
        }
        for command in commands {
            write!(f, "{command:<36}")?;
            for size in &sizes {
                let cell = match self.rows.iter().find(|r| r.command == command && r.papers == *size) {
                    Some(Row { failed: Some(_), .. }) => "failed".to_string(),
                    Some(Row { peak_mib: Some(mib), seconds, .. }) => format!("{mib:.0} ({seconds:.1} s)"),
                    _ => "-".to_string(),
                };
                write!(f, "{cell:>20}")?;
            }
            writeln!(f)?;
        }
        for row in self.rows.iter().filter(|r| r.papers == 0) {
            let peak = row.peak_mib.map_or("-".to_string(), |m| format!("{m:.0}"));
            writeln!(f, "{:<36}{:>20}", row.command, format!("{peak} ({:.1} s)", row.seconds))?;
        }
        writeln!(f, "\nas a line in the paper count (through the two largest sizes):")?;
        for fit in &self.fits {
            let gib = |g: f64| fit.papers_in(g * 1024.0).map_or("any".to_string(), |p| format!("{:.1} M", p / 1e6));
            writeln!(
                f,
                "  {:<36} {:>7.0} MiB + {:>6.2} MiB per 1,000 papers   fits 8 GiB: {:>8}   24 GiB: {:>8}",
                fit.command,
                fit.base_mib,
                fit.mib_per_1k_papers,
                gib(8.0),
                gib(24.0)
            )?;
        }
        for row in self.rows.iter().filter(|r| r.failed.is_some()) {
            writeln!(f, "failed: {} at {} papers: {}", row.command, row.papers, row.failed.as_deref().unwrap_or(""))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(command: &str, papers: usize, mib: f64) -> Row {
        Row { command: command.into(), papers, seconds: 1.0, peak_mib: Some(mib), failed: None }
    }

    #[test]
    fn a_line_through_the_two_largest_sizes() {
        let rows =
            [row("search", 1000, 50.0), row("search", 4000, 80.0), row("search", 16000, 200.0), row("eval", 0, 9.0)];
        let fits = fit(&rows);
        assert_eq!(fits.len(), 1);
        assert!((fits[0].mib_per_1k_papers - 10.0).abs() < 1e-9);
        assert!((fits[0].base_mib - 40.0).abs() < 1e-9);
        assert!((fits[0].papers_in(1040.0).unwrap() - 100_000.0).abs() < 1e-6);
    }
}
