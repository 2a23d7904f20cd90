//! The TaxoBench scoring benchmark: `litnav eval taxobench`'s work timed on TaxoBench's files in
//! both readings, beside two peers run in the same command:
//! - the public `taxobench` scorer (KongLongGeFDU/TaxoBench, run unchanged through its own entry
//!   point) against litnav's `--similarity public` — values compared key by key, per instance and
//!   in the summary;
//! - a Python implementation of the seed's definitions with the same encoder (written here,
//!   `peers/taxobench_peer.py`) against litnav's default embedding similarity.

use crate::Result;
use litnav_app::score::similarity::{Embedded, Kind, Memoized};
use litnav_app::score::taxobench::{Summary, pair_files, score_pairs, summarize};
use litnav_embed::Encoder;
use litnav_eval::taxobench::{InstanceScores, Options, Reading};
use litnav_eval::tree::{LabelSimilarity, Tree};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One side-by-side timing.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    /// The peer and its libraries.
    pub peer_library: String,
    /// The peer's seconds (median of the repeats).
    pub peer_seconds: f64,
    /// litnav's seconds on the same work (median).
    pub litnav_seconds: f64,
    /// Peer ÷ litnav.
    pub speedup: f64,
    /// Largest absolute difference over the compared keys (summary and, for the public scorer,
    /// every instance's row).
    pub max_abs_difference: f64,
    /// Values compared.
    pub values_compared: usize,
}

/// The scoring benchmark's numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchReport {
    /// Instances scored.
    pub instances: usize,
    /// litnav with TaxoBench's embedding similarity: model load + label embedding + all metrics,
    /// seconds (median of the repeats).
    pub litnav_seconds: f64,
    /// litnav with `--similarity public`: every metric, seconds (median).
    pub litnav_public_seconds: f64,
    /// Against the public scorer, when it ran.
    pub public_scorer: Option<Comparison>,
    /// Against the batched Python implementation of the seed's definitions, when it ran.
    pub embedding_peer: Option<Comparison>,
}

/// Where the peers are.
pub struct Peers<'a> {
    /// Python with numpy and scikit-learn, for the public scorer.
    pub public_python: Option<&'a Path>,
    /// The directory holding the public `taxobench` package.
    pub public_package: PathBuf,
    /// Python with sentence-transformers, scikit-learn and SciPy, for the embedding peer.
    pub embedding_python: Option<&'a Path>,
}

const PEER_SCRIPT: &str = include_str!("../peers/taxobench_peer.py");
const PUBLIC_PEER_SCRIPT: &str = include_str!("../peers/taxobench_public_peer.py");

/// Time litnav's scorer in both readings, and the peers that are given, on the same files.
pub fn bench(
    data: &Path,
    predictions: &Path,
    model: &Path,
    labels_cache: &Path,
    repeats: usize,
    peers: &Peers<'_>,
) -> Result<BenchReport> {
    let repeats = repeats.max(1);
    let embedded = timed(repeats, || {
        let paired = pair_files(data, predictions)?;
        let encoder = Encoder::load(model)?;
        let trees: Vec<&Tree> = paired.pairs.iter().flat_map(|p| [&p.gold, &p.predicted]).collect();
        let sim = Embedded::new(&encoder, &trees, labels_cache);
        Ok(score_with(&paired.pairs, Options::default(), &sim, Kind::Embedding))
    })?;
    let public = timed(repeats, || {
        let paired = pair_files(data, predictions)?;
        let options = Options { reading: Reading::Public, ..Options::default() };
        let trees: Vec<&Tree> = paired.pairs.iter().flat_map(|p| [&p.gold, &p.predicted]).collect();
        let sim = Memoized::new(litnav_eval::taxobench::title_similarity, &trees);
        Ok(score_with(&paired.pairs, options, &sim, Kind::Public))
    })?;
    let mut report = BenchReport {
        instances: embedded.value.0.len(),
        litnav_seconds: embedded.seconds,
        litnav_public_seconds: public.seconds,
        public_scorer: None,
        embedding_peer: None,
    };
    if let Some(python) = peers.public_python {
        report.public_scorer =
            Some(run_public_peer(python, &peers.public_package, data, predictions, repeats, &public)?);
    }
    if let Some(python) = peers.embedding_python {
        let job = serde_json::json!({"data": data, "predictions": predictions, "model": model, "repeats": repeats});
        #[derive(serde::Deserialize)]
        struct Peer {
            library: String,
            seconds: f64,
            summary: HashMap<String, f64>,
        }
        let peer: Peer =
            crate::peer::run_python(python, PEER_SCRIPT, &job, "pip install sentence-transformers scikit-learn scipy")?;
        let (difference, compared) = compare(&peer.summary, &embedded.value.1.numbers());
        report.embedding_peer = Some(Comparison {
            peer_library: peer.library,
            peer_seconds: peer.seconds,
            litnav_seconds: embedded.seconds,
            speedup: peer.seconds / embedded.seconds.max(1e-9),
            max_abs_difference: difference,
            values_compared: compared,
        });
    }
    Ok(report)
}

type Scored = (Vec<(String, InstanceScores)>, Summary);

fn score_with(
    pairs: &[litnav_app::score::taxobench::Pair],
    options: Options,
    sim: &dyn LabelSimilarity,
    kind: Kind,
) -> Scored {
    let scored = score_pairs(pairs, options, sim);
    let summary = summarize(&scored, options, kind.name());
    (scored, summary)
}

struct Timed<T> {
    value: T,
    seconds: f64,
}

/// Run `work` `repeats` times; the last value and the median time.
fn timed<T>(repeats: usize, mut work: impl FnMut() -> Result<T>) -> Result<Timed<T>> {
    let mut times = Vec::new();
    let mut value = None;
    for _ in 0..repeats {
        let started = Instant::now();
        value = Some(work()?);
        times.push(started.elapsed().as_secs_f64());
    }
    Ok(Timed { value: value.expect("at least one repeat"), seconds: crate::median(&times) })
}

/// Largest absolute difference over the keys both sides have, and how many were compared.
fn compare(theirs: &HashMap<String, f64>, ours: &[(&str, f64)]) -> (f64, usize) {
    ours.iter()
        .filter_map(|(key, value)| theirs.get(*key).map(|t| (value - t).abs()))
        .fold((0.0f64, 0), |(max, n), d| (max.max(d), n + 1))
}

/// The public scorer's per-survey keys, from litnav's public-reading scores.
fn public_row(scores: &InstanceScores) -> Vec<(&'static str, f64)> {
    let leaf = &scores.leaf;
    vec![
        ("leaf_ari", leaf.ari),
        ("leaf_v_measure", leaf.v_measure),
        ("leaf_homogeneity", leaf.homogeneity),
        ("leaf_completeness", leaf.completeness),
        ("sem_path_sem_path", scores.sem_path.unwrap_or(0.0)),
        ("leaf_n_aligned", leaf.n_aligned as f64),
        ("leaf_n_reference", leaf.n_reference as f64),
        ("leaf_n_prediction", leaf.n_prediction as f64),
        ("retrieval_recall", leaf.recall),
        ("retrieval_precision", leaf.precision),
        ("retrieval_f1", leaf.f1),
    ]
}

fn run_public_peer(
    python: &Path,
    package: &Path,
    data: &Path,
    predictions: &Path,
    repeats: usize,
    ours: &Timed<Scored>,
) -> Result<Comparison> {
    #[derive(serde::Deserialize)]
    struct Peer {
        library: String,
        seconds: f64,
        summary: HashMap<String, f64>,
        rows: Vec<HashMap<String, serde_json::Value>>,
    }
    let job = serde_json::json!({"package": package, "data": data, "predictions": predictions, "repeats": repeats});
    let peer: Peer = crate::peer::run_python(python, PUBLIC_PEER_SCRIPT, &job, "pip install numpy scikit-learn")?;
    let (scored, summary) = &ours.value;
    let mut ours_summary = summary.numbers();
    ours_summary.push(("n_scored", summary.n_scored as f64));
    let (mut difference, mut compared) = compare(&peer.summary, &ours_summary);
    for row in &peer.rows {
        let id = match row.get("id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => continue,
        };
        let Some((_, scores)) = scored.iter().find(|(ours, _)| *ours == id) else {
            return Err(crate::Error::internal(format!("the public scorer scored instance {id}; litnav did not")));
        };
        let theirs: HashMap<String, f64> = row.iter().filter_map(|(k, v)| v.as_f64().map(|v| (k.clone(), v))).collect();
        let (d, n) = compare(&theirs, &public_row(scores));
        difference = difference.max(d);
        compared += n;
    }
    Ok(Comparison {
        peer_library: peer.library,
        peer_seconds: peer.seconds,
        litnav_seconds: ours.seconds,
        speedup: peer.seconds / ours.seconds.max(1e-9),
        max_abs_difference: difference,
        values_compared: compared,
    })
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "TaxoBench scoring of {} instances:", self.instances)?;
        writeln!(
            f,
            "  litnav, embedding similarity (model load, label embedding, every metric)  {:.3} s",
            self.litnav_seconds
        )?;
        writeln!(
            f,
            "  litnav, --similarity public (every metric)                               {:.4} s",
            self.litnav_public_seconds
        )?;
        for (what, comparison) in
            [("the public scorer", &self.public_scorer), ("the embedding peer", &self.embedding_peer)]
        {
            if let Some(c) = comparison {
                writeln!(f, "  {what}: {:.4} s ({})", c.peer_seconds, c.peer_library)?;
                writeln!(
                    f,
                    "    litnav is {:.1}x faster; {} values agree to {:.1e}",
                    c.speedup, c.values_compared, c.max_abs_difference
                )?;
            }
        }
        Ok(())
    }
}
