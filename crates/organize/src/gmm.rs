//! Gaussian mixture clustering (full covariances, EM), Knowledge Navigator's clusterer on the
//! UMAP coordinates, with soft assignments kept.
//!
//! As scikit-learn's `GaussianMixture` defaults: responsibilities initialized from k-means
//! (k-means++ seeding, seeded), `reg_covar` = 1e-6 added to every covariance diagonal, EM until
//! the mean log-likelihood gains less than 1e-3 or 100 iterations. The number of components is
//! chosen by the silhouette score (Euclidean, on the coordinates clustered) over a range; ties go to
//! the smaller k.

use crate::cluster::silhouette_by;
use litnav_core::rng::SplitMix64;

/// A fitted mixture.
#[derive(Debug, Clone, PartialEq)]
pub struct Mixture {
    /// Most probable component of each point.
    pub labels: Vec<usize>,
    /// P(component | point), one row per point.
    pub responsibilities: Vec<Vec<f64>>,
    /// Component weights.
    pub weights: Vec<f64>,
    /// Component means.
    pub means: Vec<Vec<f64>>,
    /// Mean log-likelihood per point at convergence.
    pub log_likelihood: f64,
}

const REG_COVAR: f64 = 1e-6;
const TOLERANCE: f64 = 1e-3;
const MAX_ITERATIONS: usize = 100;

fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum()
}

/// Euclidean k-means labels (k-means++ seeding, 50 Lloyd iterations at most).
fn kmeans_labels(points: &[Vec<f64>], k: usize, seed: u64) -> Vec<usize> {
    let n = points.len();
    let mut rng = SplitMix64(seed);
    let mut centers = vec![points[rng.below(n)].clone()];
    let mut nearest: Vec<f64> = points.iter().map(|p| squared_distance(p, &centers[0])).collect();
    while centers.len() < k {
        let total: f64 = nearest.iter().sum();
        let mut target = rng.next_f64() * total;
        let pick = nearest.iter().position(|&d| {
            target -= d;
            target <= 0.0
        });
        centers.push(points[pick.unwrap_or_else(|| rng.below(n))].clone());
        let newest = centers.last().expect("just pushed");
        nearest.iter_mut().zip(points).for_each(|(d, p)| *d = d.min(squared_distance(p, newest)));
    }
    let mut labels = vec![0; n];
    for _ in 0..50 {
        let mut changed = false;
        for (label, p) in labels.iter_mut().zip(points) {
            let best =
                (0..k).min_by(|&a, &b| squared_distance(p, &centers[a]).total_cmp(&squared_distance(p, &centers[b])));
            let best = best.unwrap_or(0);
            changed |= *label != best;
            *label = best;
        }
        for (c, center) in centers.iter_mut().enumerate() {
            let members: Vec<&Vec<f64>> =
                points.iter().zip(&labels).filter(|(_, l)| **l == c).map(|(p, _)| p).collect();
            if !members.is_empty() {
                for (d, value) in center.iter_mut().enumerate() {
                    *value = members.iter().map(|p| p[d]).sum::<f64>() / members.len() as f64;
                }
            }
        }
        if !changed {
            break;
        }
    }
    labels
}

/// Lower-triangular Cholesky factor of a symmetric positive definite matrix.
fn cholesky(matrix: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let d = matrix.len();
    let mut l = vec![vec![0.0; d]; d];
    for i in 0..d {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                l[i][j] = (matrix[i][i] - sum).max(1e-300).sqrt();
            } else {
                l[i][j] = (matrix[i][j] - sum) / l[j][j];
            }
        }
    }
    l
}

/// log N(x | mean, L Lᵀ).
fn log_density(x: &[f64], mean: &[f64], chol: &[Vec<f64>]) -> f64 {
    let d = x.len();
    // Solve L y = x − mean; the Mahalanobis term is |y|².
    let mut y = vec![0.0; d];
    for i in 0..d {
        let sum: f64 = (0..i).map(|k| chol[i][k] * y[k]).sum();
        y[i] = (x[i] - mean[i] - sum) / chol[i][i];
    }
    let log_det: f64 = (0..d).map(|i| chol[i][i].ln()).sum::<f64>() * 2.0;
    -0.5 * (d as f64 * (2.0 * std::f64::consts::PI).ln() + log_det + y.iter().map(|v| v * v).sum::<f64>())
}

/// Fit a `k`-component mixture to `points`.
#[allow(clippy::needless_range_loop)] // covariance index arithmetic reads clearer with indices
pub fn fit(points: &[Vec<f64>], k: usize, seed: u64) -> Mixture {
    let n = points.len();
    let d = points.first().map_or(0, Vec::len);
    let k = k.clamp(1, n.max(1));
    let mut responsibilities: Vec<Vec<f64>> = kmeans_labels(points, k, seed)
        .into_iter()
        .map(|label| (0..k).map(|c| if c == label { 1.0 } else { 0.0 }).collect())
        .collect();
    let mut previous = f64::NEG_INFINITY;
    let (mut weights, mut means, mut log_likelihood) = (vec![0.0; k], vec![vec![0.0; d]; k], 0.0);
    for _ in 0..MAX_ITERATIONS {
        // M step.
        let mut chols = Vec::with_capacity(k);
        for c in 0..k {
            let mass: f64 = responsibilities.iter().map(|r| r[c]).sum::<f64>() + 10.0 * f64::EPSILON;
            weights[c] = mass / n as f64;
            means[c] = (0..d)
                .map(|j| points.iter().zip(&responsibilities).map(|(p, r)| r[c] * p[j]).sum::<f64>() / mass)
                .collect();
            let mut covariance = vec![vec![0.0; d]; d];
            for (p, r) in points.iter().zip(&responsibilities) {
                for a in 0..d {
                    for b in 0..=a {
                        covariance[a][b] += r[c] * (p[a] - means[c][a]) * (p[b] - means[c][b]);
                    }
                }
            }
            for a in 0..d {
                for b in 0..=a {
                    covariance[a][b] /= mass;
                    covariance[b][a] = covariance[a][b];
                }
                covariance[a][a] += REG_COVAR;
            }
            chols.push(cholesky(&covariance));
        }
        // E step.
        log_likelihood = 0.0;
        for (p, r) in points.iter().zip(responsibilities.iter_mut()) {
            let logs: Vec<f64> = (0..k).map(|c| weights[c].ln() + log_density(p, &means[c], &chols[c])).collect();
            let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let total = max + logs.iter().map(|l| (l - max).exp()).sum::<f64>().ln();
            log_likelihood += total;
            r.iter_mut().zip(&logs).for_each(|(value, l)| *value = (l - total).exp());
        }
        log_likelihood /= n as f64;
        if (log_likelihood - previous).abs() < TOLERANCE {
            break;
        }
        previous = log_likelihood;
    }
    let labels = responsibilities
        .iter()
        .map(|r| (0..k).max_by(|&a, &b| r[a].total_cmp(&r[b]).then(b.cmp(&a))).unwrap_or(0))
        .collect();
    Mixture { labels, responsibilities, weights, means, log_likelihood }
}

/// The mixture with the best silhouette for k in `range` (ties: the smaller k), with its score.
pub fn best_by_silhouette(points: &[Vec<f64>], range: std::ops::RangeInclusive<usize>, seed: u64) -> (Mixture, f64) {
    let mut best: Option<(Mixture, f64)> = None;
    for k in range {
        if k > points.len() {
            break;
        }
        let mixture = fit(points, k, seed);
        let labels = compact(&mixture.labels);
        let score = silhouette_by(&labels, |i, j| squared_distance(&points[i], &points[j]).sqrt());
        if best.as_ref().is_none_or(|(_, s)| score > *s) {
            best = Some((mixture, score));
        }
    }
    best.unwrap_or_else(|| (fit(points, 1, seed), 0.0))
}

/// Labels renumbered 0.. in order of first appearance (empty components dropped).
pub fn compact(labels: &[usize]) -> Vec<usize> {
    let mut map = std::collections::HashMap::new();
    labels
        .iter()
        .map(|&l| {
            let next = map.len();
            *map.entry(l).or_insert(next)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blobs() -> Vec<Vec<f64>> {
        let mut rng = SplitMix64(9);
        let mut points = Vec::new();
        for center in [[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]] {
            for _ in 0..50 {
                points.push(vec![center[0] + rng.next_f64() - 0.5, center[1] + 2.0 * (rng.next_f64() - 0.5)]);
            }
        }
        points
    }

    #[test]
    fn recovers_separated_components_with_proper_probabilities() {
        let points = blobs();
        let mixture = fit(&points, 3, 1);
        for group in 0..3 {
            let labels: std::collections::HashSet<usize> =
                mixture.labels[group * 50..(group + 1) * 50].iter().copied().collect();
            assert_eq!(labels.len(), 1, "group {group} split");
        }
        for r in &mixture.responsibilities {
            assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        assert!((mixture.weights.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        assert_eq!(mixture, fit(&points, 3, 1), "seeded");
    }

    #[test]
    fn silhouette_picks_the_true_number_of_components() {
        let (mixture, score) = best_by_silhouette(&blobs(), 2..=6, 3);
        assert_eq!(compact(&mixture.labels).iter().max(), Some(&2));
        assert!(score > 0.7, "{score}");
    }
}
