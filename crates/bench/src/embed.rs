//! The encoder benchmark: sentences per second for short labels (3–8 words, taxonomy and outline
//! headings of the real surveys) and for title + abstract passages (litbench papers), against
//! sentence-transformers running the same weights with the same thread count in the same run.

use crate::{Error, Result, median};
use litnav_corpus::{Catalog, MergeReport, ReadOptions, readers};
use litnav_embed::{Encoder, Precision};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// litbench directory (corpus.jsonl, topics.jsonl).
    pub litbench: PathBuf,
    /// Model directory.
    pub model: PathBuf,
    /// Labels to encode.
    pub labels: usize,
    /// Passages to encode.
    pub passages: usize,
    /// Threads for litnav and the peer.
    pub threads: usize,
    /// Timed repetitions (median reported).
    pub repeats: usize,
    /// Python interpreter with sentence-transformers for the peer; `None` skips it.
    pub peer_python: Option<PathBuf>,
}

/// One workload's numbers.
#[derive(Debug, Clone, Serialize)]
pub struct Workload {
    /// `labels` or `passages`.
    pub name: String,
    /// Texts encoded per repetition.
    pub texts: usize,
    /// Mean tokens per text (including `[CLS]` and `[SEP]`).
    pub mean_tokens: f64,
    /// litnav texts per second (median run).
    pub litnav_per_second: f64,
    /// Peer texts per second, when it ran.
    pub peer_per_second: Option<f64>,
    /// litnav ÷ peer.
    pub speedup: Option<f64>,
    /// Largest absolute difference between litnav's and the peer's vectors on a sample.
    pub max_abs_difference: Option<f32>,
    /// litnav's matrix arithmetic per second (see `Encoder::flops`), in GFLOP/s.
    pub litnav_gflops: f64,
    /// That rate as a fraction of the cores' FMA peak (all threads), where it was measured.
    pub peak_fraction: Option<f64>,
    /// That rate as a fraction of the cores' f32-equivalent AMX tile peak, where tiles run.
    pub tile_peak_fraction: Option<f64>,
}

/// One short query encoded alone on one thread: what a server pays for a never-seen query.
#[derive(Debug, Clone, Serialize)]
pub struct SingleQuery {
    /// The query.
    pub text: String,
    /// Its tokens (including `[CLS]` and `[SEP]`).
    pub tokens: usize,
    /// litnav's median milliseconds.
    pub litnav_ms: f64,
    /// litnav's median milliseconds with half-precision query weights (`--query-precision f16`),
    /// timed in turn with the f32 runs.
    pub litnav_half_ms: f64,
    /// Largest absolute difference between the half-precision and the f32 vectors of the labels.
    pub half_max_abs_difference: f32,
    /// The peer's median milliseconds (one torch thread), when it ran.
    pub peer_ms: Option<f64>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Threads used by both.
    pub threads: usize,
    /// litnav model load time, seconds.
    pub litnav_load_seconds: f64,
    /// The peer's library versions and load time.
    pub peer: Option<(String, f64)>,
    /// The matrix product the encoder ran on (`litnav_embed::matrix_kernel`).
    pub kernel: String,
    /// The widest FMA peak of one core, GFLOP/s (measured here; `None` without AVX2 and FMA).
    pub peak_gflops_per_core: Option<f64>,
    /// The f32-equivalent AMX tile peak of one core, GFLOP/s (measured here where tiles run).
    pub tile_peak_gflops_per_core: Option<f64>,
    /// Labels and passages.
    pub workloads: Vec<Workload>,
    /// A 10-word query alone.
    pub single_query: SingleQuery,
}

/// The single query: ten words, as a person types a topic.
const SINGLE_QUERY: &str = "uncertainty quantification and calibration of large language model answers";
/// Timed encodings of the single query (median reported).
const SINGLE_QUERY_RUNS: usize = 50;

/// Short labels from the real surveys: taxonomy node names and outline headings of 3–8 words.
pub fn survey_labels(litbench: &Path, count: usize) -> Result<Vec<String>> {
    let contents = readers::read_file(&litbench.join("topics.jsonl"), ReadOptions::default())?;
    let mut labels = Vec::new();
    for item in contents.items {
        if let readers::Item::Topic(record) = item {
            for tree in [record.topic.taxonomy, record.topic.outline].into_iter().flatten() {
                collect_names(&tree, &mut labels);
            }
        }
    }
    labels.retain(|l| (3..=8).contains(&l.split_whitespace().count()));
    labels.sort();
    labels.dedup();
    if labels.is_empty() {
        return Err(Error::input("no 3–8 word labels in the topics"));
    }
    Ok((0..count).map(|i| labels[i % labels.len()].clone()).collect())
}

fn collect_names(node: &serde_json::Value, out: &mut Vec<String>) {
    for key in ["title", "name"] {
        if let Some(name) = node.get(key).and_then(|v| v.as_str()) {
            out.push(name.to_string());
            break;
        }
    }
    for key in ["children", "subtopics"] {
        for child in node.get(key).and_then(|v| v.as_array()).into_iter().flatten() {
            collect_names(child, out);
        }
    }
}

/// Title + abstract passages of the first `count` litbench papers.
pub fn passages(litbench: &Path, count: usize) -> Result<Vec<String>> {
    let contents = readers::read_file(&litbench.join("corpus.jsonl"), ReadOptions::default())?;
    let mut catalog = Catalog::default();
    catalog.merge(contents.items, &mut MergeReport::default())?;
    Ok(catalog.into_parts()?.0.iter().take(count).map(|p| p.text()).collect())
}

/// Run the benchmark.
pub fn run(options: &Options) -> Result<Report> {
    let started = Instant::now();
    let encoder = Encoder::load(&options.model)?.with_threads(options.threads);
    let litnav_load_seconds = started.elapsed().as_secs_f64();
    let sets = vec![
        ("labels".to_string(), survey_labels(&options.litbench, options.labels)?),
        ("passages".to_string(), passages(&options.litbench, options.passages)?),
    ];
    let peak = litnav_embed::fma_peak_per_core(1.0).map(|flops| flops / 1e9);
    let tile_peak = litnav_embed::tile_peak_per_core(1.0).map(|flops| flops / 1e9);
    let mut workloads = Vec::new();
    let mut samples = Vec::new();
    for (name, texts) in &sets {
        encoder.embed(&texts[..texts.len().min(16)]);
        let mut runs = Vec::new();
        let mut vectors = Vec::new();
        for _ in 0..options.repeats.max(1) {
            let started = Instant::now();
            vectors = encoder.embed(texts);
            runs.push(started.elapsed().as_secs_f64());
        }
        let lengths: Vec<usize> = texts.iter().map(|t| encoder.tokens(t).len()).collect();
        let tokens: usize = lengths.iter().sum();
        let flops: f64 = lengths.iter().map(|&len| encoder.flops(len)).sum();
        let litnav_gflops = flops / median(&runs) / 1e9;
        samples.push(vectors.into_iter().take(SAMPLE).collect::<Vec<_>>());
        workloads.push(Workload {
            name: name.clone(),
            texts: texts.len(),
            mean_tokens: tokens as f64 / texts.len().max(1) as f64,
            litnav_per_second: texts.len() as f64 / median(&runs),
            peer_per_second: None,
            speedup: None,
            max_abs_difference: None,
            litnav_gflops,
            peak_fraction: peak.map(|p| litnav_gflops / (p * options.threads as f64)),
            tile_peak_fraction: tile_peak.map(|p| litnav_gflops / (p * options.threads as f64)),
        });
    }
    let mut single_query = single_query(&encoder, &sets[0].1);
    let mut peer = None;
    if let Some(python) = &options.peer_python {
        let job = serde_json::json!({
            "model": options.model,
            "threads": options.threads,
            "repeats": options.repeats.max(1),
            "sample": SAMPLE,
            "query": SINGLE_QUERY,
            "query_runs": SINGLE_QUERY_RUNS,
            "workloads": sets.iter().map(|(name, texts)| serde_json::json!({"name": name, "texts": texts})).collect::<Vec<_>>(),
        });
        let report: PeerReport =
            crate::peer::run_python(python, PEER_SCRIPT, &job, "pip install sentence-transformers")?;
        for ((workload, ours), theirs) in workloads.iter_mut().zip(&samples).zip(&report.workloads) {
            workload.peer_per_second = Some(theirs.texts_per_second);
            workload.speedup = Some(workload.litnav_per_second / theirs.texts_per_second);
            workload.max_abs_difference = Some(max_abs_difference(ours, &theirs.sample_vectors));
        }
        single_query.peer_ms = Some(report.query_ms);
        peer = Some((report.library, report.load_seconds));
    }
    Ok(Report {
        threads: options.threads,
        litnav_load_seconds,
        peer,
        kernel: litnav_embed::matrix_kernel().to_string(),
        peak_gflops_per_core: peak,
        tile_peak_gflops_per_core: tile_peak,
        workloads,
        single_query,
    })
}

/// The single query's median time alone on one thread, with f32 and with half-precision weights
/// (runs alternating, so that both see the same machine), and how far half precision moves the
/// vectors of `labels`.
fn single_query(encoder: &Encoder, labels: &[String]) -> SingleQuery {
    let single = encoder.clone().with_threads(1);
    let half = single.clone().with_query_precision(Precision::Half);
    let time = |encoder: &Encoder| {
        let started = Instant::now();
        encoder.embed_queries(&[SINGLE_QUERY]);
        started.elapsed().as_secs_f64() * 1e3
    };
    time(&single);
    time(&half);
    let (mut single_runs, mut half_runs) = (Vec::new(), Vec::new());
    for _ in 0..SINGLE_QUERY_RUNS {
        single_runs.push(time(&single));
        half_runs.push(time(&half));
    }
    let sample = &labels[..labels.len().min(HALF_SAMPLE)];
    let difference = max_abs_difference(&single.embed_queries(sample), &half.embed_queries(sample));
    SingleQuery {
        text: SINGLE_QUERY.to_string(),
        tokens: encoder.tokens(SINGLE_QUERY).len(),
        litnav_ms: median(&single_runs),
        litnav_half_ms: median(&half_runs),
        half_max_abs_difference: difference,
        peer_ms: None,
    }
}

/// The largest absolute difference between corresponding elements of two lists of vectors.
fn max_abs_difference(ours: &[Vec<f32>], theirs: &[Vec<f32>]) -> f32 {
    ours.iter().zip(theirs).flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs())).fold(0.0f32, f32::max)
}

/// Labels whose half-precision vectors are compared with the f32 ones.
const HALF_SAMPLE: usize = 500;

/// Vectors compared between litnav and the peer per workload.
const SAMPLE: usize = 32;
const PEER_SCRIPT: &str = include_str!("../peers/st_peer.py");

#[derive(serde::Deserialize)]
struct PeerReport {
    library: String,
    load_seconds: f64,
    workloads: Vec<PeerWorkload>,
    query_ms: f64,
}

#[derive(serde::Deserialize)]
struct PeerWorkload {
    texts_per_second: f64,
    sample_vectors: Vec<Vec<f32>>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "sentence encoder benchmark ({} threads; litnav loads the model in {:.2} s)",
            self.threads, self.litnav_load_seconds
        )?;
        if let Some((library, load)) = &self.peer {
            writeln!(f, "peer: {library} (loads in {load:.2} s)")?;
        }
        writeln!(f, "matrix product: {}", self.kernel)?;
        let per_threads = |peak: f64| {
            format!("{peak:.1} GFLOP/s per core, {:.1} on {} threads", peak * self.threads as f64, self.threads)
        };
        if let Some(peak) = self.peak_gflops_per_core {
            writeln!(f, "FMA peak: {}", per_threads(peak))?;
        }
        if let Some(peak) = self.tile_peak_gflops_per_core {
            writeln!(f, "AMX tile peak for f32 (six bfloat16 products each): {}", per_threads(peak))?;
        }
        writeln!(
            f,
            "{:<10} {:>6} {:>8} {:>12} {:>12} {:>9} {:>12} {:>9} {:>9} {:>9}",
            "workload",
            "texts",
            "tokens",
            "litnav /s",
            "peer /s",
            "speed-up",
            "max |diff|",
            "GFLOP/s",
            "FMA peak",
            "AMX peak"
        )?;
        let share = |fraction: Option<f64>| fraction.map_or_else(|| "-".into(), |p| format!("{:.0}%", p * 100.0));
        for w in &self.workloads {
            let peer = w.peer_per_second.map_or_else(|| "-".into(), |p| format!("{p:.1}"));
            let speedup = w.speedup.map_or_else(|| "-".into(), |s| format!("{s:.2}x"));
            let diff = w.max_abs_difference.map_or_else(|| "-".into(), |d| format!("{d:.1e}"));
            writeln!(
                f,
                "{:<10} {:>6} {:>8.1} {:>12.1} {:>12} {:>9} {:>12} {:>9.1} {:>9} {:>9}",
                w.name,
                w.texts,
                w.mean_tokens,
                w.litnav_per_second,
                peer,
                speedup,
                diff,
                w.litnav_gflops,
                share(w.peak_fraction),
                share(w.tile_peak_fraction)
            )?;
        }
        let q = &self.single_query;
        let peer = q.peer_ms.map_or_else(String::new, |ms| format!(", peer {ms:.2} ms"));
        writeln!(
            f,
            "one {}-token query on one thread: litnav {:.2} ms (f16 weights {:.2} ms, vectors within {:.1e}){peer}",
            q.tokens, q.litnav_ms, q.litnav_half_ms, q.half_max_abs_difference
        )?;
        Ok(())
    }
}
