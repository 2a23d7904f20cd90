//! UMAP (McInnes, Healy & Melville 2018), the dimensionality reduction of Knowledge Navigator's
//! pipeline, written here from the paper's definitions; no Rust crate provides it.
//!
//! 1. Exact k nearest neighbours under cosine distance (the inputs are unit sentence vectors).
//! 2. Fuzzy simplicial set: per point, ρ = distance to its nearest neighbour and σ found by binary
//!    search so that Σ exp(−max(0, d − ρ)/σ) = log2(k); memberships w = exp(−max(0, d − ρ)/σ),
//!    symmetrized by the probabilistic union w + wᵀ − w∘wᵀ.
//! 3. Layout: low-dimensional similarity 1/(1 + a·d^(2b)), with a and b fitted to the min_dist /
//!    spread curve by least squares; stochastic gradient descent over edges sampled in proportion
//!    to their weight, each attraction followed by `negative_sample_rate` repulsions from random
//!    points, learning rate decaying linearly, gradients clipped to ±4 — umap-learn's scheme.
//!
//! Choices (umap-learn supports each): the layout starts from the data's principal components
//! scaled to [0, 10] (`init="pca"`) rather than a spectral embedding; 500 epochs below 10,000
//! points, 200 above; every random draw comes from one seeded SplitMix64 stream, processed in a
//! fixed order, so the same input and seed give the same coordinates on every machine.

use litnav_core::rng::SplitMix64;

/// UMAP parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UmapOptions {
    /// Neighbours per point (the scale of local structure).
    pub neighbors: usize,
    /// Output dimensions.
    pub components: usize,
    /// Smallest distance between embedded points.
    pub min_dist: f64,
    /// Scale of embedded distances.
    pub spread: f64,
    /// Repulsive samples per attractive one.
    pub negative_sample_rate: usize,
    /// Epochs (0: 500 below 10,000 points, else 200).
    pub epochs: usize,
    /// Seed.
    pub seed: u64,
}

impl Default for UmapOptions {
    /// BERTopic's settings, the de-facto standard for topic clustering: 15 neighbours, 5
    /// components, min_dist 0.
    fn default() -> Self {
        UmapOptions {
            neighbors: 15,
            components: 5,
            min_dist: 0.0,
            spread: 1.0,
            negative_sample_rate: 5,
            epochs: 0,
            seed: litnav_core::DEFAULT_SEED,
        }
    }
}

/// Reduce unit vectors `points` to `options.components` dimensions.
pub fn umap(points: &[Vec<f32>], options: &UmapOptions) -> Vec<Vec<f64>> {
    let n = points.len();
    let dims = options.components.max(1);
    if n <= options.neighbors.max(2) {
        return pca_init(points, dims);
    }
    let k = options.neighbors.clamp(2, n - 1);
    let edges = fuzzy_graph(points, k);
    let (a, b) = fit_ab(options.min_dist, options.spread);
    let epochs = if options.epochs > 0 {
        options.epochs
    } else if n < 10_000 {
        500
    } else {
        200
    };
    let mut embedding = pca_init(points, dims);
    optimize(&mut embedding, &edges, a, b, epochs, options);
    embedding
}

/// Symmetric fuzzy-graph edges (i < j) with their membership weights.
pub fn fuzzy_graph(points: &[Vec<f32>], k: usize) -> Vec<(usize, usize, f64)> {
    let n = points.len();
    let mut weights: std::collections::BTreeMap<(usize, usize), (f64, f64)> = std::collections::BTreeMap::new();
    let target = (k as f64).log2();
    for i in 0..n {
        let mut distances: Vec<(f64, usize)> = (0..n)
            .filter(|&j| j != i)
            .map(|j| ((1.0 - f64::from(litnav_core::vector::dot(&points[i], &points[j]))).max(0.0), j))
            .collect();
        distances.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        distances.truncate(k);
        let rho = distances.iter().map(|d| d.0).find(|&d| d > 0.0).unwrap_or(0.0);
        let sigma = find_sigma(&distances, rho, target);
        for &(d, j) in &distances {
            let w = (-((d - rho).max(0.0)) / sigma).exp();
            let entry = weights.entry((i.min(j), i.max(j))).or_insert((0.0, 0.0));
            if i < j { entry.0 = w } else { entry.1 = w }
        }
    }
    weights.into_iter().map(|((i, j), (w1, w2))| (i, j, w1 + w2 - w1 * w2)).filter(|e| e.2 > 0.0).collect()
}

/// σ with Σ exp(−max(0, d − ρ)/σ) = target, by bisection (64 steps, as umap-learn).
fn find_sigma(distances: &[(f64, usize)], rho: f64, target: f64) -> f64 {
    let (mut low, mut high, mut mid) = (0.0f64, f64::INFINITY, 1.0f64);
    for _ in 0..64 {
        let sum: f64 = distances.iter().map(|&(d, _)| (-((d - rho).max(0.0)) / mid).exp()).sum();
        if (sum - target).abs() < 1e-5 {
            break;
        }
        if sum > target {
            high = mid;
            mid = (low + high) / 2.0;
        } else {
            low = mid;
            mid = if high.is_infinite() { mid * 2.0 } else { (low + high) / 2.0 };
        }
    }
    // umap-learn's floor: σ never falls below 1e-3 of the mean neighbour distance.
    let mean = distances.iter().map(|d| d.0).sum::<f64>() / distances.len().max(1) as f64;
    mid.max(1e-3 * mean).max(1e-12)
}

/// a, b of 1/(1 + a·x^(2b)) fitted to 1 below `min_dist` and exp(−(x − min_dist)/spread) above,
/// on 300 points of [0, 3·spread], by least squares (coarse-to-fine grid search).
pub fn fit_ab(min_dist: f64, spread: f64) -> (f64, f64) {
    let xs: Vec<f64> = (0..300).map(|i| 3.0 * spread * i as f64 / 299.0).collect();
    let target: Vec<f64> =
        xs.iter().map(|&x| if x < min_dist { 1.0 } else { (-(x - min_dist) / spread).exp() }).collect();
    let loss = |a: f64, b: f64| -> f64 {
        xs.iter().zip(&target).map(|(&x, &t)| (1.0 / (1.0 + a * x.powf(2.0 * b)) - t).powi(2)).sum()
    };
    let (mut a, mut b, mut step_a, mut step_b) = (1.5, 1.0, 1.0, 0.5);
    for _ in 0..40 {
        let mut best = (loss(a, b), a, b);
        for i in -4..=4 {
            for j in -4..=4 {
                let (ca, cb) = (a + step_a * i as f64 / 4.0, b + step_b * j as f64 / 4.0);
                if ca > 0.0 && cb > 0.0 {
                    let l = loss(ca, cb);
                    if l < best.0 {
                        best = (l, ca, cb);
                    }
                }
            }
        }
        (a, b) = (best.1, best.2);
        step_a /= 2.0;
        step_b /= 2.0;
    }
    (a, b)
}

/// The points' top principal components, each scaled to [0, 10].
fn pca_init(points: &[Vec<f32>], dims: usize) -> Vec<Vec<f64>> {
    let n = points.len();
    let d = points.first().map_or(0, Vec::len);
    let mean: Vec<f64> =
        (0..d).map(|c| points.iter().map(|p| f64::from(p[c])).sum::<f64>() / n.max(1) as f64).collect();
    let centered: Vec<Vec<f64>> =
        points.iter().map(|p| p.iter().zip(&mean).map(|(&v, m)| f64::from(v) - m).collect()).collect();
    let mut components: Vec<Vec<f64>> = Vec::new();
    for c in 0..dims.min(d) {
        // Power iteration on XᵀX, deflated by the components already found; deterministic start.
        let mut v: Vec<f64> =
            (0..d).map(|i| if i % dims.max(1) == c { 1.0 } else { 0.01 * ((i * 7 + c) % 13) as f64 }).collect();
        for _ in 0..100 {
            let projections: Vec<f64> = centered.iter().map(|x| x.iter().zip(&v).map(|(a, b)| a * b).sum()).collect();
            let mut next = vec![0.0; d];
            for (x, p) in centered.iter().zip(&projections) {
                next.iter_mut().zip(x).for_each(|(acc, xi)| *acc += p * xi);
            }
            for previous in &components {
                let overlap: f64 = next.iter().zip(previous).map(|(a, b)| a * b).sum();
                next.iter_mut().zip(previous).for_each(|(a, b)| *a -= overlap * b);
            }
            let norm = next.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm == 0.0 {
                break;
            }
            v = next.into_iter().map(|x| x / norm).collect();
        }
        components.push(v);
    }
    let mut out: Vec<Vec<f64>> = centered
        .iter()
        .map(|x| components.iter().map(|c| x.iter().zip(c).map(|(a, b)| a * b).sum()).collect())
        .collect();
    for c in 0..components.len() {
        let (low, high) = out.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p[c]), h.max(p[c])));
        let range = (high - low).max(1e-12);
        out.iter_mut().for_each(|p| p[c] = 10.0 * (p[c] - low) / range);
    }
    out.iter_mut().for_each(|p| p.resize(dims, 0.0));
    out
}

fn clip(g: f64) -> f64 {
    g.clamp(-4.0, 4.0)
}

/// Stochastic gradient descent on the cross-entropy between the fuzzy graph and the layout.
#[allow(clippy::needless_range_loop)] // two points' coordinates are updated together by index
fn optimize(
    embedding: &mut [Vec<f64>],
    edges: &[(usize, usize, f64)],
    a: f64,
    b: f64,
    epochs: usize,
    options: &UmapOptions,
) {
    let n = embedding.len();
    let max_weight = edges.iter().map(|e| e.2).fold(0.0, f64::max);
    // Edges too weak to be sampled even once in all epochs are dropped, as umap-learn does.
    let edges: Vec<&(usize, usize, f64)> = edges.iter().filter(|e| e.2 >= max_weight / epochs as f64).collect();
    let every: Vec<f64> = edges.iter().map(|e| max_weight / e.2).collect();
    let mut next_at = every.clone();
    let negative_every: Vec<f64> = every.iter().map(|e| e / options.negative_sample_rate as f64).collect();
    let mut next_negative_at = negative_every.clone();
    let mut rng = SplitMix64(options.seed);
    let dims = embedding.first().map_or(0, Vec::len);
    for epoch in 0..epochs {
        let rate = 1.0 - epoch as f64 / epochs as f64;
        for (e, &&(i, j, _)) in edges.iter().enumerate() {
            if next_at[e] > epoch as f64 {
                continue;
            }
            let d2: f64 = (0..dims).map(|c| (embedding[i][c] - embedding[j][c]).powi(2)).sum();
            let coefficient = if d2 > 0.0 { -2.0 * a * b * d2.powf(b - 1.0) / (1.0 + a * d2.powf(b)) } else { 0.0 };
            for c in 0..dims {
                let g = clip(coefficient * (embedding[i][c] - embedding[j][c])) * rate;
                embedding[i][c] += g;
                embedding[j][c] -= g;
            }
            next_at[e] += every[e];
            let negatives = ((epoch as f64 - next_negative_at[e]) / negative_every[e]).floor().max(0.0) as usize;
            for _ in 0..negatives {
                let other = rng.below(n);
                if other == i {
                    continue;
                }
                let d2: f64 = (0..dims).map(|c| (embedding[i][c] - embedding[other][c]).powi(2)).sum();
                let coefficient = if d2 > 0.0 { 2.0 * b / ((0.001 + d2) * (1.0 + a * d2.powf(b))) } else { 0.0 };
                for c in 0..dims {
                    let g = if coefficient > 0.0 {
                        clip(coefficient * (embedding[i][c] - embedding[other][c]))
                    } else {
                        0.0
                    };
                    embedding[i][c] += g * rate;
                }
            }
            next_negative_at[e] += negatives as f64 * negative_every[e];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_curve_matches_umap_learn() {
        // umap-learn's find_ab_params: (1.577, 0.895) for min_dist 0.1, (1.929, 0.792) for 0.
        let (a, b) = fit_ab(0.1, 1.0);
        assert!((a - 1.577).abs() < 0.01 && (b - 0.895).abs() < 0.01, "{a} {b}");
        let (a, b) = fit_ab(0.0, 1.0);
        assert!((a - 1.929).abs() < 0.01 && (b - 0.792).abs() < 0.01, "{a} {b}");
    }

    fn blobs() -> (Vec<Vec<f32>>, Vec<usize>) {
        // Three well separated groups of noisy unit vectors in 20 dimensions.
        let mut rng = SplitMix64(5);
        let mut points = Vec::new();
        let mut labels = Vec::new();
        for group in 0..3 {
            for _ in 0..40 {
                let mut v: Vec<f32> = (0..20)
                    .map(|d| if d % 3 == group { 1.0 } else { 0.0 } + 0.15 * (rng.next_f64() as f32 - 0.5))
                    .collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter_mut().for_each(|x| *x /= norm);
                points.push(v);
                labels.push(group);
            }
        }
        (points, labels)
    }

    #[test]
    fn keeps_groups_apart_and_is_deterministic() {
        let (points, labels) = blobs();
        let options = UmapOptions { epochs: 200, ..UmapOptions::default() };
        let embedding = umap(&points, &options);
        assert_eq!(embedding, umap(&points, &options));
        assert_eq!(embedding[0].len(), 5);
        // Every point's nearest embedded neighbour is in its own group.
        for i in 0..points.len() {
            let nearest = (0..points.len())
                .filter(|&j| j != i)
                .min_by(|&x, &y| {
                    let d =
                        |j: usize| embedding[i].iter().zip(&embedding[j]).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
                    d(x).total_cmp(&d(y))
                })
                .unwrap();
            assert_eq!(labels[nearest], labels[i], "point {i}");
        }
    }

    #[test]
    fn memberships_are_symmetric_probabilities() {
        let (points, _) = blobs();
        let edges = fuzzy_graph(&points, 10);
        assert!(edges.iter().all(|&(i, j, w)| i < j && w > 0.0 && w <= 1.0));
        // Each point's nearest neighbour has membership 1 (d = ρ).
        assert!(edges.iter().any(|e| (e.2 - 1.0).abs() < 1e-12));
    }
}
