//! Clustering unit vectors: seeded spherical k-means (k-means++ initialization) with the number of
//! clusters chosen by the silhouette score (cosine distance) over a range.

use litnav_search::rng::SplitMix64;

/// Cosine similarity of unit vectors.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    litnav_search::dense::dot(a, b)
}

/// A clustering: one label per point, and unit centroids.
#[derive(Debug, Clone)]
pub struct Clustering {
    /// Cluster of each point.
    pub labels: Vec<usize>,
    /// Unit centroid of each cluster.
    pub centroids: Vec<Vec<f32>>,
}

/// Spherical k-means with k-means++ seeding; deterministic for a seed.
pub fn kmeans(points: &[Vec<f32>], k: usize, seed: u64, iterations: usize) -> Clustering {
    let n = points.len();
    let k = k.clamp(1, n.max(1));
    let mut rng = SplitMix64(seed);
    let mut centroids = vec![points[rng.below(n)].clone()];
    let mut nearest: Vec<f32> = points.iter().map(|p| 1.0 - dot(p, &centroids[0])).collect();
    while centroids.len() < k {
        let total: f64 = nearest.iter().map(|d| f64::from(d.max(0.0)).powi(2)).sum();
        let pick = if total <= 0.0 {
            rng.below(n)
        } else {
            let mut target = rng.next_f64() * total;
            let mut chosen = n - 1;
            for (i, d) in nearest.iter().enumerate() {
                target -= f64::from(d.max(0.0)).powi(2);
                if target <= 0.0 {
                    chosen = i;
                    break;
                }
            }
            chosen
        };
        centroids.push(points[pick].clone());
        let newest = centroids.len() - 1;
        for (d, p) in nearest.iter_mut().zip(points) {
            *d = d.min(1.0 - dot(p, &centroids[newest]));
        }
    }
    let mut labels = vec![0; n];
    for _ in 0..iterations {
        let mut changed = false;
        for (label, p) in labels.iter_mut().zip(points) {
            let best = nearest_centroid(&centroids, p);
            changed |= *label != best;
            *label = best;
        }
        let dim = points[0].len();
        let mut sums = vec![vec![0.0f32; dim]; k];
        for (label, p) in labels.iter().zip(points) {
            for (s, v) in sums[*label].iter_mut().zip(p) {
                *s += v;
            }
        }
        for (c, sum) in sums.into_iter().enumerate() {
            let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
            if norm > 0.0 {
                centroids[c] = sum.into_iter().map(|v| v / norm).collect();
            }
        }
        if !changed {
            break;
        }
    }
    Clustering { labels, centroids }
}

fn nearest_centroid(centroids: &[Vec<f32>], point: &[f32]) -> usize {
    let mut best = (f32::NEG_INFINITY, 0);
    for (c, centroid) in centroids.iter().enumerate() {
        let s = dot(point, centroid);
        if s > best.0 {
            best = (s, c);
        }
    }
    best.1
}

/// Mean silhouette with cosine distance; 0 for a single cluster.
pub fn silhouette(points: &[Vec<f32>], labels: &[usize]) -> f64 {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    if k < 2 {
        return 0.0;
    }
    let n = points.len();
    let sizes = labels.iter().fold(vec![0usize; k], |mut s, &l| {
        s[l] += 1;
        s
    });
    let mut total = 0.0;
    for i in 0..n {
        let mut sums = vec![0.0f64; k];
        for j in 0..n {
            if i != j {
                sums[labels[j]] += f64::from(1.0 - dot(&points[i], &points[j]));
            }
        }
        let own = labels[i];
        if sizes[own] <= 1 {
            continue; // silhouette of a singleton is 0
        }
        let a = sums[own] / (sizes[own] - 1) as f64;
        let b = (0..k)
            .filter(|&c| c != own && sizes[c] > 0)
            .map(|c| sums[c] / sizes[c] as f64)
            .fold(f64::INFINITY, f64::min);
        if b.is_finite() {
            total += (b - a) / a.max(b);
        }
    }
    total / n as f64
}

/// The best k-means clustering for k in `range` by silhouette (ties: the smaller k).
pub fn best_by_silhouette(points: &[Vec<f32>], range: std::ops::RangeInclusive<usize>, seed: u64) -> (Clustering, f64) {
    let mut best: Option<(Clustering, f64)> = None;
    for k in range {
        if k > points.len() {
            break;
        }
        let clustering = kmeans(points, k, seed, 50);
        let score = silhouette(points, &clustering.labels);
        if best.as_ref().is_none_or(|(_, s)| score > *s) {
            best = Some((clustering, score));
        }
    }
    best.unwrap_or_else(|| (kmeans(points, 1, seed, 1), 0.0))
}
