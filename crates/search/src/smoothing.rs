//! Score smoothing over a ranking's own nearest neighbours.
//!
//! Papers on a topic lie close together, and a single paper's fused score is noisy: two papers
//! with nearly the same vector should be about equally relevant. Mixing each hit's score with the
//! mean score of its nearest hits (by cosine, within the same ranking) lifts a relevant paper that
//! one ranking missed but its neighbours did not, and lowers an outlier that one lucky ranking
//! pushed up. On the litbench surveys this adds recall at 100 and nDCG@10 alike
//! (`litnav bench discovery`).

use crate::Hit;
use litnav_core::vector::dot;

/// How a ranking's scores are smoothed over its own hits ([`smooth_by_neighbours`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Smoothing {
    /// Nearest hits whose scores are averaged (0: no smoothing).
    pub neighbours: usize,
    /// Weight of a hit's own score; its neighbours' mean weighs the rest.
    pub own_weight: f32,
}

impl Default for Smoothing {
    fn default() -> Self {
        Smoothing { neighbours: 20, own_weight: 0.5 }
    }
}

impl Smoothing {
    /// No smoothing: the ranking is returned as it is.
    pub const NONE: Smoothing = Smoothing { neighbours: 0, own_weight: 1.0 };
}

/// Re-score `hits` (best first) by their neighbours among themselves and sort them again. Scores
/// are first divided by the best one; a hit's new score is `own_weight` × its own plus the rest
/// × the mean of its `neighbours` most similar hits' (unit vectors from `vector_of`). A hit without
/// a vector keeps its own score and is no one's neighbour; with fewer than two vectors, or
/// `neighbours` 0, the ranking is returned as it is. Ties keep the original order.
pub fn smooth_by_neighbours<'v>(
    mut hits: Vec<Hit>,
    vector_of: impl Fn(&str) -> Option<&'v [f32]>,
    smoothing: Smoothing,
) -> Vec<Hit> {
    let best = hits.first().map_or(0.0, |h| h.score);
    if smoothing.neighbours == 0 || best <= 0.0 || !best.is_finite() {
        return hits;
    }
    // (position in `hits`, vector) of every hit that has a vector.
    let present: Vec<(usize, &[f32])> =
        hits.iter().enumerate().filter_map(|(i, h)| vector_of(&h.id).map(|v| (i, v))).collect();
    if present.len() < 2 {
        return hits;
    }
    let own: Vec<f32> = hits.iter().map(|h| h.score / best).collect();
    let n = present.len();
    for (hit, &score) in hits.iter_mut().zip(&own) {
        hit.score = score;
    }
    let similarity = pairwise_similarity(&present);
    for (row, &(i, _)) in present.iter().enumerate() {
        let neighbours = neighbour_mean(row, &similarity[row * n..(row + 1) * n], &present, &own, smoothing.neighbours);
        hits[i].score = smoothing.own_weight * own[i] + (1.0 - smoothing.own_weight) * neighbours;
    }
    // A stable sort: equal scores keep the original order.
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits
}

/// The cosine of every pair of `present`'s vectors, as a square row-major matrix (each pair
/// computed once).
fn pairwise_similarity(present: &[(usize, &[f32])]) -> Vec<f32> {
    let n = present.len();
    let mut similarity = vec![0.0; n * n];
    for a in 0..n {
        for b in a + 1..n {
            let cosine = dot(present[a].1, present[b].1);
            similarity[a * n + b] = cosine;
            similarity[b * n + a] = cosine;
        }
    }
    similarity
}

/// The mean own score of the `count` hits most similar to `present[row]` (not itself), given that
/// row of [`pairwise_similarity`]; `present` holds at least two hits.
fn neighbour_mean(row: usize, similarity: &[f32], present: &[(usize, &[f32])], own: &[f32], count: usize) -> f32 {
    let mut similar: Vec<(f32, usize)> =
        similarity.iter().enumerate().filter(|&(other, _)| other != row).map(|(other, &s)| (s, other)).collect();
    let count = count.min(similar.len());
    // Most similar first; equal similarities go to the better-ranked hit, so the choice is stable.
    let by_similarity = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if count < similar.len() {
        similar.select_nth_unstable_by(count - 1, by_similarity);
    }
    similar[..count].iter().map(|&(_, other)| own[present[other].0]).sum::<f32>() / count as f32
}

/// How many of a ranking's hits a map keeps ([`above_floor`]): the papers whose neighbourhood
/// relevance — the ranking's scores smoothed once more over each hit's `neighbours` nearest
/// hits, the best scaled to 1 — is at least `share`, and never fewer than the best `at_least`.
///
/// A topic gets as many papers as the corpus holds on it instead of a fixed k: a narrow topic
/// keeps its dense core and drops the tail that surrounds every ranking. On the litbench
/// surveys this keeps experts' references at higher precision than filtering subtopics after
/// organizing (`litnav bench map-filter`). The judging pass looks at fewer neighbours than the
/// ranking's own smoothing (8 against 20 in maps): a paper at the fringe is judged by the few
/// papers right beside it, not by a wide neighbourhood that reaches into the core.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreFloor {
    /// Least neighbourhood relevance kept, as a share of the best (0: keep every hit).
    pub share: f32,
    /// Hits always kept, best first, whatever their relevance.
    pub at_least: usize,
    /// Nearest hits whose scores the judging pass averages with each hit's own (half each).
    pub neighbours: usize,
}

impl ScoreFloor {
    /// No floor: every hit is kept.
    pub const NONE: ScoreFloor = ScoreFloor { share: 0.0, at_least: 0, neighbours: 0 };

    /// Whether the floor keeps every hit (a share of 0 or less), so no relevance is computed.
    pub fn keeps_all(&self) -> bool {
        self.share <= 0.0
    }
}

/// The hits of `hits` (best first) that reach `floor`, in their original order and with their
/// original scores. Relevance is [`smooth_by_neighbours`] over `floor.neighbours`, applied to
/// `hits` as given (for the expanded search, a second pass: the first ranks, the second judges
/// how far from the topic's core a hit lies). Hits without a vector are judged by their own
/// score.
pub fn above_floor<'v>(hits: Vec<Hit>, vector_of: impl Fn(&str) -> Option<&'v [f32]>, floor: ScoreFloor) -> Vec<Hit> {
    if floor.keeps_all() || hits.len() <= floor.at_least {
        return hits;
    }
    let judging = Smoothing { neighbours: floor.neighbours, ..Smoothing::default() };
    let relevance = smooth_by_neighbours(hits.clone(), vector_of, judging);
    let best = relevance.first().map_or(0.0, |h| h.score);
    let kept: std::collections::HashSet<&str> = relevance
        .iter()
        .enumerate()
        .filter(|(rank, hit)| *rank < floor.at_least || hit.score >= floor.share * best)
        .map(|(_, hit)| hit.id.as_str())
        .collect();
    hits.iter().filter(|hit| kept.contains(hit.id.as_str())).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, score: f32) -> Hit {
        Hit { id: id.to_string(), title: id.to_string(), year: None, score, known: None }
    }

    #[test]
    fn a_hit_near_strong_hits_rises_above_an_isolated_one() {
        // a, b, c sit together; d is alone on another axis and ranked second.
        let vectors: Vec<(&str, Vec<f32>)> =
            vec![("a", vec![1.0, 0.0]), ("d", vec![0.0, 1.0]), ("b", vec![0.995, 0.0998]), ("c", vec![0.98, 0.199])];
        let hits = vec![hit("a", 1.0), hit("d", 0.8), hit("b", 0.7), hit("c", 0.6)];
        let vector_of = |id: &str| vectors.iter().find(|(v, _)| *v == id).map(|(_, v)| v.as_slice());
        let smoothed = smooth_by_neighbours(hits, vector_of, Smoothing { neighbours: 1, own_weight: 0.5 });
        let order: Vec<&str> = smoothed.iter().map(|h| h.id.as_str()).collect();
        // a: (1 + 0.7) / 2; b: (0.7 + 1) / 2; c: (0.6 + 0.7) / 2; d's nearest is c: (0.8 + 0.6) / 2.
        assert_eq!(order, ["a", "b", "d", "c"]);
        assert!((smoothed[0].score - 0.85).abs() < 1e-6 && (smoothed[2].score - 0.7).abs() < 1e-6);
    }

    #[test]
    fn without_neighbours_or_vectors_the_ranking_is_unchanged() {
        let hits = vec![hit("a", 2.0), hit("b", 1.0)];
        let none = |_: &str| -> Option<&[f32]> { None };
        assert_eq!(smooth_by_neighbours(hits.clone(), none, Smoothing::default()), hits);
        let vector = [1.0, 0.0];
        let same = |_: &str| Some(vector.as_slice());
        assert_eq!(smooth_by_neighbours(hits.clone(), same, Smoothing { neighbours: 0, own_weight: 0.5 }), hits);
        assert!(smooth_by_neighbours(Vec::new(), none, Smoothing::default()).is_empty());
    }

    #[test]
    fn the_floor_keeps_the_hits_whose_neighbourhood_relevance_reaches_it() {
        // Five hits, so each one's 20 nearest are the four others: relevance = own / 2 + (the
        // others' sum) / 8 — a 0.7375, b 0.70, d 0.55, c 0.5125, e 0.40.
        let vector = [1.0, 0.0];
        let vector_of = |_: &str| Some(vector.as_slice());
        let hits = vec![hit("a", 1.0), hit("b", 0.9), hit("d", 0.5), hit("c", 0.4), hit("e", 0.1)];
        let ids = |share, at_least| -> Vec<String> {
            above_floor(hits.clone(), vector_of, ScoreFloor { share, at_least, neighbours: 20 })
                .into_iter()
                .map(|h| h.id)
                .collect()
        };
        assert_eq!(ids(0.8, 1), ["a", "b"]);
        assert_eq!(ids(0.7, 1), ["a", "b", "d"]);
        assert_eq!(ids(0.99, 3), ["a", "b", "d"]);
        assert_eq!(ids(0.99, 5).len(), 5);
        assert_eq!(ids(0.0, 0).len(), 5);
        // The hits come back with their own scores, not their relevance.
        let kept = above_floor(hits.clone(), vector_of, ScoreFloor { share: 0.7, at_least: 1, neighbours: 20 });
        assert_eq!(kept.iter().map(|h| h.score).collect::<Vec<_>>(), [1.0, 0.9, 0.5]);
    }

    #[test]
    fn a_narrow_neighbourhood_judges_a_fringe_hit_by_the_hits_beside_it() {
        // a, b, c form the core; e sits beside the weak d, far from the core, but ranks third.
        let vectors: Vec<(&str, Vec<f32>)> = vec![
            ("a", vec![1.0, 0.0]),
            ("b", vec![0.995, 0.0998]),
            ("e", vec![0.0, 1.0]),
            ("c", vec![0.98, 0.199]),
            ("d", vec![0.0998, 0.995]),
        ];
        let vector_of = |id: &str| vectors.iter().find(|(v, _)| *v == id).map(|(_, v)| v.as_slice());
        let hits = vec![hit("a", 1.0), hit("b", 0.9), hit("e", 0.8), hit("c", 0.7), hit("d", 0.1)];
        let kept = |neighbours| -> Vec<String> {
            let floor = ScoreFloor { share: 0.7, at_least: 1, neighbours };
            above_floor(hits.clone(), vector_of, floor).into_iter().map(|h| h.id).collect()
        };
        // Over one neighbour e is (0.8 + 0.1) / 2 = 0.45 against a's 0.95: out. Over all four
        // others it is (0.8 + 2.7 / 4) / 2 = 0.7375 against a's 0.8125: in.
        assert_eq!(kept(1), ["a", "b", "c"]);
        assert_eq!(kept(4), ["a", "b", "e", "c"]);
    }
}
