//! Fusing lexical and dense rankings.
//!
//! - **Reciprocal rank fusion** (the default, k = 60): `score(d) = Σ_r 1 / (k + rank_r(d))` over
//!   the two rankings, ranks from 1; a document missing from a ranking contributes nothing there.
//! - **Weighted**: `α · bm25′(d) + (1 − α) · cos′(d)`, where each score is min–max normalized over
//!   that ranking's own list (`′`), and a document missing from a list gets 0 for it.
//!
//! Both rank the union of the two candidate lists; ties break by id.

use crate::Hit;
use std::collections::HashMap;

/// How to fuse.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion with this `k`.
    Rrf(f32),
    /// Weighted sum of normalized scores, with this weight on the lexical side.
    Weighted(f32),
}

/// The `k` of reciprocal rank fusion unless told otherwise (Cormack et al.'s 60).
pub const DEFAULT_RRF_K: f32 = 60.0;

/// The weight of the lexical side in weighted fusion unless told otherwise.
pub const DEFAULT_ALPHA: f32 = 0.5;

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Rrf(DEFAULT_RRF_K)
    }
}

/// Fuse two rankings into the top `k`.
pub fn fuse(lexical: &[Hit], dense: &[Hit], fusion: Fusion, k: usize) -> Vec<Hit> {
    match fusion {
        Fusion::Rrf(k_rrf) => reciprocal_rank_fusion(&[lexical, dense], k_rrf, k),
        Fusion::Weighted(alpha) => {
            let (lo_l, hi_l) = bounds(lexical);
            let (lo_d, hi_d) = bounds(dense);
            let mut fused: HashMap<&str, (f32, &Hit)> = HashMap::new();
            for hit in lexical {
                fused.entry(hit.id.as_str()).or_insert((0.0, hit)).0 += alpha * normalize(hit.score, lo_l, hi_l);
            }
            for hit in dense {
                fused.entry(hit.id.as_str()).or_insert((0.0, hit)).0 +=
                    (1.0 - alpha) * normalize(hit.score, lo_d, hi_d);
            }
            ranked(fused, k)
        }
    }
}

/// Fused scores as hits, best first, ties by id, the top `k`.
fn ranked(fused: HashMap<&str, (f32, &Hit)>, k: usize) -> Vec<Hit> {
    let mut hits: Vec<Hit> = fused.into_values().map(|(score, hit)| Hit { score, ..hit.clone() }).collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    hits.truncate(k);
    hits
}

/// Reciprocal rank fusion of any number of rankings into the top `k` (Cormack et al., 2009):
/// `score(d) = Σ_r 1 / (k_rrf + rank_r(d))`, ranks from 1, ties by id. Each fused hit keeps the
/// title and year of its first occurrence.
pub fn reciprocal_rank_fusion(rankings: &[&[Hit]], k_rrf: f32, k: usize) -> Vec<Hit> {
    let weighted: Vec<(f32, &[Hit])> = rankings.iter().map(|hits| (1.0, *hits)).collect();
    weighted_reciprocal_rank_fusion(&weighted, k_rrf, k)
}

/// Reciprocal rank fusion with a weight per ranking: `score(d) = Σ_r w_r / (k_rrf + rank_r(d))`
/// (a weight of 1 everywhere is [`reciprocal_rank_fusion`], bit for bit).
pub fn weighted_reciprocal_rank_fusion(rankings: &[(f32, &[Hit])], k_rrf: f32, k: usize) -> Vec<Hit> {
    let mut fused: HashMap<&str, (f32, &Hit)> = HashMap::new();
    for (weight, hits) in rankings {
        for (rank, hit) in hits.iter().enumerate() {
            fused.entry(hit.id.as_str()).or_insert((0.0, hit)).0 += weight / (k_rrf + rank as f32 + 1.0);
        }
    }
    ranked(fused, k)
}

fn bounds(hits: &[Hit]) -> (f32, f32) {
    let lo = hits.iter().map(|h| h.score).fold(f32::INFINITY, f32::min);
    let hi = hits.iter().map(|h| h.score).fold(f32::NEG_INFINITY, f32::max);
    (lo, hi)
}

/// Min–max normalization; a list whose scores are all equal maps to 1.
fn normalize(score: f32, lo: f32, hi: f32) -> f32 {
    if hi > lo { (score - lo) / (hi - lo) } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(ids: &[(&str, f32)]) -> Vec<Hit> {
        ids.iter()
            .map(|(id, s)| Hit { id: id.to_string(), title: String::new(), year: None, score: *s, known: None })
            .collect()
    }

    #[test]
    fn rrf_by_hand() {
        let lexical = hits(&[("a", 9.0), ("b", 5.0), ("c", 1.0)]);
        let dense = hits(&[("c", 0.9), ("a", 0.8)]);
        let fused = fuse(&lexical, &dense, Fusion::default(), 10);
        let ids: Vec<&str> = fused.iter().map(|h| h.id.as_str()).collect();
        // a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62.
        assert_eq!(ids, ["a", "c", "b"]);
        assert!((fused[0].score - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-7);
    }

    #[test]
    fn weighted_by_hand() {
        let lexical = hits(&[("a", 10.0), ("b", 0.0)]);
        let dense = hits(&[("b", 0.9), ("c", 0.5)]);
        let fused = fuse(&lexical, &dense, Fusion::Weighted(0.5), 10);
        let scores: Vec<(&str, f32)> = fused.iter().map(|h| (h.id.as_str(), h.score)).collect();
        // a: 0.5·1; b: 0.5·0 + 0.5·1; c: 0.5·0.
        assert_eq!(scores, [("a", 0.5), ("b", 0.5), ("c", 0.0)]);
    }
}
