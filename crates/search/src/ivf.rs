//! Approximate dense retrieval for large corpora: an inverted file over int8 vectors, rescored.
//!
//! Spherical k-means (seeded) splits the unit vectors into `lists` clusters; a query scores the
//! centroids, scans the documents of the `probes` best clusters on their int8 vectors against the
//! query's own int8 form (a quarter of the bytes of full precision, integer products), rescores
//! the best [`RESCORED_PER_HIT`]` · k` (at least [`RESCORED_AT_LEAST`]) with their full-precision
//! vectors, and returns the top k of those.
//! Training uses at most [`TRAINING_SAMPLE`] vectors (a seeded sample) for ten Lloyd iterations;
//! every document is then assigned to its nearest centroid. Defaults: `lists = ⌈2·√n⌉`,
//! `probes = max(8, lists / 8)`; `litnav bench dense` measures its recall@10 against exact search.
//!
//! The index is saved as a file of the corpus (`vectors/ivf-…-g<generation>.bin`, see
//! [`IvfIndex::write`]): centroids, every list's members, the [`fingerprint`] of the vectors it was
//! built from, and a checksum of the whole. Reading checks all of it — a file for other vectors, or
//! a damaged one, is never used.

use crate::dense::DenseIndex;
use crate::{Filter, Hit};
use litnav_core::bytes::{ByteReader, fnv1a};
use litnav_core::rng::{SplitMix64, shuffle};
use litnav_core::vector::dot;
use litnav_embed::rows::{dot_quantized, quantize};
use std::path::Path;

const MAGIC: &[u8; 10] = b"LITNAVIVF1";

/// Candidates of the int8 scan rescored in full precision, per hit asked for...
pub const RESCORED_PER_HIT: usize = 4;
/// ...and at least this many.
pub const RESCORED_AT_LEAST: usize = 40;

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

/// How the documents of the probed lists are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rescoring {
    /// On int8 vectors, the best `max(RESCORED_PER_HIT · k, RESCORED_AT_LEAST)` rescored.
    #[default]
    Default,
    /// On int8 vectors, the best this many (at least k) rescored.
    Candidates(usize),
    /// Every document in full precision (no int8 scan).
    FullPrecision,
}

/// The inverted file over a [`DenseIndex`].
pub struct IvfIndex {
    centroids: Vec<f32>,
    lists: Vec<Vec<usize>>,
    dim: usize,
    probes: usize,
    rescoring: Rescoring,
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
        IvfIndex {
            centroids,
            lists: members,
            dim,
            probes: options.probes.clamp(1, lists),
            rescoring: Rescoring::Default,
        }
    }

    /// Score the probed documents as `rescoring` says.
    pub fn with_rescoring(mut self, rescoring: Rescoring) -> Self {
        self.rescoring = rescoring;
        self
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
    pub fn search(&self, index: &DenseIndex, query: &[f32], k: usize, filter: Filter) -> crate::Result<Vec<Hit>> {
        let mut centroid_scores: Vec<(f32, usize)> =
            (0..self.lists.len()).map(|c| (dot(query, &self.centroids[c * self.dim..(c + 1) * self.dim]), c)).collect();
        let probes = self.probes.min(centroid_scores.len());
        let by_score = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if probes < centroid_scores.len() {
            centroid_scores.select_nth_unstable_by(probes, by_score);
        }
        let members = centroid_scores[..probes]
            .iter()
            .flat_map(|&(_, c)| self.lists[c].iter().copied())
            .filter(|&i| index.admits(i, filter));
        let rescored = match self.rescoring {
            Rescoring::Default => (k * RESCORED_PER_HIT).max(RESCORED_AT_LEAST),
            Rescoring::Candidates(n) => n.max(k),
            Rescoring::FullPrecision => {
                return index.top_k(members.map(|i| (dot(query, index.vector(i)), i)).collect(), k);
            }
        };
        let (scale, quantized) = quantize(query);
        let query_int8 = (scale, quantized.as_slice());
        let mut scored: Vec<(f32, usize)> =
            members.map(|i| (dot_quantized(query_int8, index.quantized(i)), i)).collect();
        if rescored < scored.len() {
            scored.select_nth_unstable_by(rescored, by_score);
            scored.truncate(rescored);
        }
        let exact = scored.into_iter().map(|(_, i)| (dot(query, index.vector(i)), i)).collect();
        index.top_k(exact, k)
    }
}

impl IvfIndex {
    /// Save the index for the vectors with this [`fingerprint`] (atomically: a reader sees the
    /// whole file or none).
    pub fn write(&self, path: &Path, fingerprint: u64) -> std::io::Result<()> {
        let n: usize = self.lists.iter().map(Vec::len).sum();
        let mut bytes = Vec::with_capacity(64 + 4 * (self.centroids.len() + self.lists.len() + n));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&fingerprint.to_le_bytes());
        bytes.extend_from_slice(&(n as u64).to_le_bytes());
        for value in [self.dim, self.lists.len(), self.probes] {
            bytes.extend_from_slice(&(value as u32).to_le_bytes());
        }
        self.centroids.iter().for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
        self.lists.iter().for_each(|list| bytes.extend_from_slice(&(list.len() as u32).to_le_bytes()));
        self.lists.iter().flatten().for_each(|&i| bytes.extend_from_slice(&(i as u32).to_le_bytes()));
        bytes.extend_from_slice(&fnv1a(&bytes).to_le_bytes());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        litnav_corpus::store::write_atomically(path, &bytes).map_err(std::io::Error::other)
    }

    /// Read the index saved at `path` for `index`'s vectors (whose [`fingerprint`] is given):
    /// `Ok(None)` when there is no file or it was built from other vectors; an error naming what
    /// is wrong when the file is damaged.
    pub fn read(path: &Path, index: &DenseIndex, fingerprint: u64) -> Result<Option<IvfIndex>, String> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        let body_len = bytes.len().checked_sub(8).ok_or("shorter than its checksum")?;
        let (body, sum) = bytes.split_at(body_len);
        if !body.starts_with(MAGIC) {
            return Err("not an IVF index file".into());
        }
        if fnv1a(body).to_le_bytes() != sum {
            return Err("its checksum fails".into());
        }
        let mut reader = ByteReader::new(&body[MAGIC.len()..]);
        if reader.u64()? != fingerprint {
            return Ok(None);
        }
        let n = reader.u64()? as usize;
        let [dim, lists, probes] = [reader.u32()?, reader.u32()?, reader.u32()?].map(|v| v as usize);
        if n != index.len() || dim != index.dim() || lists == 0 || lists > n.max(1) {
            return Err(format!(
                "{n} vectors of {dim} dimensions in {lists} lists, for {} of {}",
                index.len(),
                index.dim()
            ));
        }
        let centroids = (0..lists * dim).map(|_| reader.f32()).collect::<Result<Vec<_>, _>>()?;
        let sizes = (0..lists).map(|_| reader.u32().map(|v| v as usize)).collect::<Result<Vec<_>, _>>()?;
        if sizes.iter().sum::<usize>() != n {
            return Err("its lists do not hold every vector".into());
        }
        let mut seen = vec![false; n];
        let mut members = Vec::with_capacity(lists);
        for size in sizes {
            let list = (0..size).map(|_| reader.u32().map(|v| v as usize)).collect::<Result<Vec<_>, _>>()?;
            for &i in &list {
                if i >= n || std::mem::replace(&mut seen[i], true) {
                    return Err(format!("vector {i} is out of range or listed twice"));
                }
            }
            members.push(list);
        }
        if !reader.at_end() {
            return Err("trailing bytes".into());
        }
        Ok(Some(IvfIndex {
            centroids,
            lists: members,
            dim,
            probes: probes.clamp(1, lists),
            rescoring: Rescoring::Default,
        }))
    }
}

/// A number that changes when the vectors an IVF index was built from change: the generation,
/// the count and dimension, and the ids and vectors of up to 64 rows spread over the index.
pub fn fingerprint(index: &DenseIndex, generation: u64) -> crate::Result<u64> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&generation.to_le_bytes());
    bytes.extend_from_slice(&(index.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(index.dim() as u64).to_le_bytes());
    let step = index.len().div_ceil(64).max(1);
    for i in (0..index.len()).step_by(step) {
        bytes.extend_from_slice(index.doc(i)?.id.as_bytes());
        index.vector(i).iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
    }
    Ok(fnv1a(&bytes))
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
