//! Approximate dense retrieval for large corpora: an inverted file (IVF-flat).
//!
//! Spherical k-means (seeded) splits the unit vectors into `lists` clusters; a query scores the
//! centroids, scans the documents of the `probes` best clusters exactly, and returns their top k.
//! Training uses at most [`TRAINING_SAMPLE`] vectors (a seeded sample) for ten Lloyd iterations;
//! every document is then assigned to its nearest centroid. Defaults: `lists = ⌈2·√n⌉`,
//! `probes = max(8, lists / 8)`; `litnav bench dense` measures its recall@10 against exact search.

use crate::dense::DenseIndex;
use crate::{Filter, Hit};
use litnav_core::rng::{SplitMix64, shuffle};
use litnav_core::vector::dot;

/// At most this many vectors train the centroids.
pub const TRAINING_SAMPLE: usize = 20_000;
const ITERATIONS: usize = 10;

/// IVF parameters.
#[derive(Debug, Clone, Copy)]
pub struct IvfOptions {
    /// Number of clusters.
    pub lists: usize,
    /// Clusters scanned per query.
    pub probes: usize,
    /// Seed of the sampling and initialization.
    pub seed: u64,
}

impl IvfOptions {
    /// The defaults for `n` documents.
    pub fn for_size(n: usize) -> IvfOptions {
        Self::with_lists(((2.0 * (n as f64).sqrt()).ceil() as usize).clamp(1, n.max(1)))
    }

    /// `lists` clusters with the default probes for them, `max(8, lists / 8)` (at most `lists`).
    pub fn with_lists(lists: usize) -> IvfOptions {
        IvfOptions { lists, probes: (lists / 8).max(8).min(lists), seed: litnav_core::DEFAULT_SEED }
    }
}

/// The inverted file over a [`DenseIndex`].
pub struct IvfIndex {
    centroids: Vec<f32>,
    lists: Vec<Vec<usize>>,
    dim: usize,
    probes: usize,
}

impl IvfIndex {
    /// Train centroids and assign every document of `index`.
    pub fn build(index: &DenseIndex, options: IvfOptions) -> IvfIndex {
        let n = index.len();
        let dim = index.dim();
        let lists = options.lists.clamp(1, n.max(1));
        let mut rng = SplitMix64(options.seed);
        let mut sample: Vec<usize> = (0..n).collect();
        shuffle(&mut sample, &mut rng);
        sample.truncate(TRAINING_SAMPLE.max(lists));
        let mut centroids: Vec<f32> =
            sample.iter().take(lists).flat_map(|&i| index.vector(i).iter().copied()).collect();
        for _ in 0..ITERATIONS {
            let mut sums = vec![0.0f32; lists * dim];
            let mut counts = vec![0usize; lists];
            for &i in &sample {
                let c = nearest(&centroids, dim, index.vector(i));
                counts[c] += 1;
                for (s, v) in sums[c * dim..(c + 1) * dim].iter_mut().zip(index.vector(i)) {
                    *s += v;
                }
            }
            for c in 0..lists {
                let sum = &mut sums[c * dim..(c + 1) * dim];
                let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
                if counts[c] > 0 && norm > 0.0 {
                    // Spherical k-means: centroids stay on the unit sphere.
                    for (centroid, s) in centroids[c * dim..(c + 1) * dim].iter_mut().zip(sum.iter()) {
                        *centroid = s / norm;
                    }
                }
            }
        }
        let mut members = vec![Vec::new(); lists];
        for i in 0..n {
            members[nearest(&centroids, dim, index.vector(i))].push(i);
        }
        IvfIndex { centroids, lists: members, dim, probes: options.probes.clamp(1, lists) }
    }

    /// Scan this many clusters per query.
    pub fn with_probes(mut self, probes: usize) -> Self {
        self.probes = probes.clamp(1, self.lists.len());
        self
    }

    /// Number of clusters.
    pub fn lists(&self) -> usize {
        self.lists.len()
    }

    /// Approximate top-k for a unit query vector.
    pub fn search(&self, index: &DenseIndex, query: &[f32], k: usize, filter: Filter) -> Vec<Hit> {
        let mut centroid_scores: Vec<(f32, usize)> =
            (0..self.lists.len()).map(|c| (dot(query, &self.centroids[c * self.dim..(c + 1) * self.dim]), c)).collect();
        let probes = self.probes.min(centroid_scores.len());
        let by_score = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if probes < centroid_scores.len() {
            centroid_scores.select_nth_unstable_by(probes, by_score);
        }
        let scored: Vec<(f32, usize)> = centroid_scores[..probes]
            .iter()
            .flat_map(|&(_, c)| self.lists[c].iter().copied())
            .filter(|&i| index.admits(i, filter))
            .map(|i| (dot(query, index.vector(i)), i))
            .collect();
        index.top_k(scored, k)
    }
}

fn nearest(centroids: &[f32], dim: usize, vector: &[f32]) -> usize {
    let mut best = (f32::NEG_INFINITY, 0);
    for (c, centroid) in centroids.chunks_exact(dim).enumerate() {
        let score = dot(vector, centroid);
        if score > best.0 {
            best = (score, c);
        }
    }
    best.1
}
