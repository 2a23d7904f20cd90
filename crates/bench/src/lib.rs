//! litnav's benchmark suites. Each suite measures on the real datasets and returns a report the
//! CLI prints (and `BENCHMARKS.md` records). Benchmarks are commands, never timed assertions.

pub mod clusters;
pub mod corrections;
pub mod coverage;
pub mod dense;
pub mod discovery;
pub mod distractors;
pub mod embed;
pub mod expander;
pub mod fetch;
pub mod graph;
pub mod held_out;
pub mod known_items;
pub mod map_filter;
pub mod mcp_search;
pub mod memory;
pub mod organize;
pub mod peer;
pub mod researcharena;
#[cfg(feature = "analytics")]
pub mod scale;
pub mod scale_search;
pub mod scinet;
pub mod scoring;
pub mod search;
pub mod serve;
#[cfg(feature = "cli")]
pub mod suites;
pub mod survey;
pub mod taxobench;

/// The bench crate's errors are the application's: a suite fails the way the operation it runs
/// fails, and a peer that cannot run is an unavailable service.
pub use litnav_app::{Error, Result};

/// Percentile (nearest-rank) of an ascending-sorted slice; 0 for an empty one.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The distinct `ids` in a seeded random order: the same ids and seed give the same order,
/// whatever order the ids came in.
pub fn seeded_order(mut ids: Vec<String>, seed: u64) -> Vec<String> {
    ids.sort_unstable();
    ids.dedup();
    litnav_core::rng::shuffle(&mut ids, &mut litnav_core::rng::SplitMix64(seed));
    ids
}

/// Where a benchmark builds its corpora: the directory given (kept), or a new temporary one,
/// removed when the returned guard is dropped.
pub fn work_dir(given: Option<&std::path::Path>) -> Result<(std::path::PathBuf, Option<tempfile::TempDir>)> {
    match given {
        Some(dir) => Ok((dir.to_path_buf(), None)),
        None => {
            let scratch =
                tempfile::tempdir().map_err(|e| Error::io(std::path::Path::new("a temporary directory"), &e))?;
            Ok((scratch.path().to_path_buf(), Some(scratch)))
        }
    }
}

/// Median of unsorted values.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    percentile(&sorted, 50.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&[3.0], 99.0), 3.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    }
}
