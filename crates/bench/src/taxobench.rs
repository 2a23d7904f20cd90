//! The TaxoBench scoring benchmark: `litnav eval taxobench`'s work (model load, label embedding,
//! every metric) timed on TaxoBench's files, against a Python implementation of the same
//! definitions run in the same command.

use crate::Result;
use litnav_app::score::similarity::Embedded;
use litnav_app::score::taxobench::{pair_files, score_pairs, summarize};
use litnav_embed::Encoder;
use litnav_eval::tree::Tree;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// The scoring benchmark's numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchReport {
    /// Instances scored.
    pub instances: usize,
    /// litnav: model load + label embedding + all metrics, seconds (median of the repeats).
    pub litnav_seconds: f64,
    /// The Python peer on the same files, seconds (median), when it ran.
    pub peer_seconds: Option<f64>,
    /// Peer ÷ litnav.
    pub speedup: Option<f64>,
    /// Largest absolute difference between the two implementations' summary values.
    pub max_abs_difference: Option<f64>,
    /// The peer's libraries.
    pub peer_library: Option<String>,
}

const PEER_SCRIPT: &str = include_str!("../peers/taxobench_peer.py");

/// Time litnav's scorer (and the peer's, with `peer_python`) on the same files.
pub fn bench(
    data: &Path,
    predictions: &Path,
    model: &Path,
    labels_cache: &Path,
    repeats: usize,
    peer_python: Option<&Path>,
) -> Result<BenchReport> {
    let mut times = Vec::new();
    let mut summary = None;
    let mut instances = 0;
    for _ in 0..repeats.max(1) {
        let started = Instant::now();
        let paired = pair_files(data, predictions)?;
        let encoder = Encoder::load(model)?;
        let trees: Vec<&Tree> = paired.pairs.iter().flat_map(|(_, g, p)| [g, p]).collect();
        let sim = Embedded::new(&encoder, &trees, labels_cache);
        let scored = score_pairs(&paired.pairs, 0.92, 1.0, &sim);
        summary = Some(summarize(&scored, 0.92, 1.0, "embedding:all-MiniLM-L6-v2"));
        times.push(started.elapsed().as_secs_f64());
        instances = scored.len();
    }
    let litnav_seconds = crate::median(&times);
    let mut report = BenchReport {
        instances,
        litnav_seconds,
        peer_seconds: None,
        speedup: None,
        max_abs_difference: None,
        peer_library: None,
    };
    if let Some(python) = peer_python {
        let job =
            serde_json::json!({"data": data, "predictions": predictions, "model": model, "repeats": repeats.max(1)});
        #[derive(serde::Deserialize)]
        struct Peer {
            library: String,
            seconds: f64,
            summary: HashMap<String, f64>,
        }
        let peer: Peer =
            crate::peer::run_python(python, PEER_SCRIPT, &job, "pip install sentence-transformers scikit-learn scipy")?;
        let ours = summary.as_ref().map(|s| s.numbers()).unwrap_or_default();
        let difference = peer
            .summary
            .iter()
            .filter_map(|(key, theirs)| ours.iter().find(|(k, _)| k == key).map(|(_, v)| (v - theirs).abs()))
            .fold(0.0f64, f64::max);
        report.peer_seconds = Some(peer.seconds);
        report.speedup = Some(peer.seconds / litnav_seconds.max(1e-9));
        report.max_abs_difference = Some(difference);
        report.peer_library = Some(peer.library);
    }
    Ok(report)
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "TaxoBench scoring of {} instances (model load, label embedding and every metric):",
            self.instances
        )?;
        writeln!(f, "  litnav  {:.3} s", self.litnav_seconds)?;
        if let (Some(peer), Some(speedup), Some(diff), Some(library)) =
            (self.peer_seconds, self.speedup, self.max_abs_difference, &self.peer_library)
        {
            writeln!(f, "  Python  {peer:.3} s ({library})")?;
            writeln!(f, "  litnav is {speedup:.1}x faster; summaries agree to {diff:.1e}")?;
        }
        Ok(())
    }
}
