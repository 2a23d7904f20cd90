//! Novelty against the expected null: Uzzi's z-scores with the null's mean and variance in
//! closed form — the null model that distributes (litnav's query plans use it).
//!
//! Edge switching ([`super`]) is sequential: every switch depends on the graph the earlier ones
//! left, so it cannot be cut into independent tasks, and it needs ten whole randomized graphs.
//! Its analytic counterpart needs neither. In the null here every reference slot of a paper
//! published in year y takes, independently, unit u with probability p_{y,u} — u's share of the
//! references made in year y. Like switching within a year it keeps each paper's number of
//! references and, in expectation, each unit's share of a year's references (switching keeps
//! every cited paper's count within the year exactly: it draws targets without replacement,
//! this null with replacement; for the thousands of references a year holds the means agree to
//! first order). It does not exclude the self-citations and repeated edges switching rejects.
//!
//! For a unit pair {u, v} let q = P(a pair of slots is {u, v}) — 2·p_u·p_v, or p_u² when u = v —
//! and r = P(two slot pairs sharing one slot are both {u, v}) — p_u·p_v·(p_u + p_v), or p_u³. A
//! paper with k references has m = k(k − 1)/2 slot pairs; its count of {u, v} pairs has mean
//! m·q and variance m·q·(1 − q) + k(k − 1)(k − 2)·(r − q²) (pairs sharing a slot covary; disjoint
//! pairs do not). Papers are independent, so over the corpus
//!
//!   E = Σ_y A_y·q_y,   V = Σ_y [A_y·q_y·(1 − q_y) + B_y·(r_y − q_y²)],
//!
//! with A_y = Σ m and B_y = Σ k(k − 1)(k − 2) over the papers of year y (an unknown year is its
//! own group, as in switching). z = (O − E)/√V for the observed count O; a pair with V = 0 has
//! no z. Each paper's novelty and conventionality are the 10th percentile and the median of its
//! pairs' z, exactly as with switching. No seed, no sampling noise, one pass over the pairs.
//!
//! Memory: the distinct unit pairs with their counts and index (switching's counting, as one
//! partition) and one z per reference pair — this is the in-memory reference the distributed
//! plan is tested against.

use super::{Novelty, PairSlots, Part, PartCounts, Units, papers_from_slots, unit_of_each_node};
use crate::{Graph, Node};
use rayon::prelude::*;
use std::collections::HashMap;

/// One year's reference totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct YearTotals {
    /// References made by the year's papers.
    pub slots: u64,
    /// Σ k(k − 1)/2 over the year's papers (k: a paper's references).
    pub pairs: u64,
    /// Σ k(k − 1)(k − 2) over the year's papers.
    pub triples: u64,
}

/// The null's mean and variance of a unit pair's count, summed over the years both units are
/// cited in: `years` yields (the year's totals, u's references that year, v's references that
/// year) in the order the sums are to be taken; `same` when u = v.
pub fn null_moments(years: impl Iterator<Item = (YearTotals, u64, u64)>, same: bool) -> (f64, f64) {
    let (mut mean, mut variance) = (0.0, 0.0);
    for (totals, count_u, count_v) in years {
        let slots = totals.slots as f64;
        let (p_u, p_v) = (count_u as f64 / slots, count_v as f64 / slots);
        let (q, r) = if same { (p_u * p_u, p_u * p_u * p_u) } else { (2.0 * p_u * p_v, p_u * p_v * (p_u + p_v)) };
        let (pairs, triples) = (totals.pairs as f64, totals.triples as f64);
        mean += pairs * q;
        variance += pairs * q * (1.0 - q) + triples * (r - q * q);
    }
    (mean, variance)
}

/// The z-score of an observed count against the null's moments; None when the null has no
/// spread.
pub fn z_score(observed: u64, mean: f64, variance: f64) -> Option<f64> {
    (variance > 0.0).then(|| (observed as f64 - mean) / variance.sqrt())
}

/// Novelty of every paper against the expected null, in node order.
pub fn novelty_all(graph: &Graph, units: Units) -> Vec<Novelty> {
    let unit = unit_of_each_node(graph, units);
    let (totals, shares) = year_shares(graph, &unit);
    // The observed counts as edge switching counts them, all unit pairs in one partition.
    let counted = PartCounts::observe(graph, &unit, Part::WHOLE);
    let scores: Vec<Option<f64>> = counted
        .keys
        .par_iter()
        .zip(&counted.observed)
        .map(|(&key, &count)| {
            let (u, v) = ((key >> 32) as u32, key as u32);
            let years = common_years(&shares[&u], &shares[&v]).map(|(year, cu, cv)| (totals[year as usize], cu, cv));
            let (mean, variance) = null_moments(years, u == v);
            z_score(u64::from(count), mean, variance)
        })
        .collect();
    let slots = PairSlots::new(graph);
    let mut z = vec![f64::NAN; slots.total as usize];
    counted.write_scores(graph, &unit, &slots, &scores, &mut z);
    papers_from_slots(graph, &slots, &z)
}

/// Per unit, the year groups it is cited in with its references there (ascending group).
type UnitShares = HashMap<u32, Vec<(u32, u64)>>;

/// Each year group's totals (groups in year order, the unknown year first) and the units'
/// shares.
fn year_shares(graph: &Graph, unit: &[u32]) -> (Vec<YearTotals>, UnitShares) {
    let mut years: Vec<Option<i32>> = graph.nodes().map(|n| graph.year(n)).collect();
    years.sort_unstable();
    years.dedup();
    let group = |node: Node| years.binary_search(&graph.year(node)).unwrap_or_default() as u32;
    let mut totals = vec![YearTotals::default(); years.len()];
    let mut counts: HashMap<(u32, u32), u64> = HashMap::new();
    for node in graph.nodes() {
        let references = graph.references(node);
        let k = references.len() as u64;
        let totals = &mut totals[group(node) as usize];
        totals.slots += k;
        totals.pairs += k * k.saturating_sub(1) / 2;
        totals.triples += k * k.saturating_sub(1) * k.saturating_sub(2);
        for &reference in references {
            *counts.entry((unit[reference as usize], group(node))).or_default() += 1;
        }
    }
    let mut shares = UnitShares::new();
    for ((unit, group), count) in counts {
        shares.entry(unit).or_default().push((group, count));
    }
    shares.values_mut().for_each(|list| list.sort_unstable());
    (totals, shares)
}

/// The groups two units are both cited in: (group, u's count, v's count), ascending.
fn common_years<'a>(u: &'a [(u32, u64)], v: &'a [(u32, u64)]) -> impl Iterator<Item = (u32, u64, u64)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        while i < u.len() && j < v.len() {
            match u[i].0.cmp(&v[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let found = (u[i].0, u[i].1, v[j].1);
                    i += 1;
                    j += 1;
                    return Some(found);
                }
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mean and variance of one paper's count of {u, v} pairs by enumerating every way its
    /// `k` slots can take units from `p`.
    fn enumerated(p: &[f64], k: usize, u: usize, v: usize) -> (f64, f64) {
        let (mut mean, mut square) = (0.0, 0.0);
        let assignments = p.len().pow(k as u32);
        for code in 0..assignments {
            let mut rest = code;
            let slots: Vec<usize> = (0..k)
                .map(|_| {
                    let unit = rest % p.len();
                    rest /= p.len();
                    unit
                })
                .collect();
            let probability: f64 = slots.iter().map(|&s| p[s]).product();
            let mut count = 0.0;
            for i in 0..k {
                for j in i + 1..k {
                    let (a, b) = (slots[i].min(slots[j]), slots[i].max(slots[j]));
                    count += f64::from(u8::from((a, b) == (u.min(v), u.max(v))));
                }
            }
            mean += probability * count;
            square += probability * count * count;
        }
        (mean, square - mean * mean)
    }

    #[test]
    fn the_closed_form_moments_equal_enumeration() {
        // Four units with unequal shares, papers of 2 to 5 references, pairs of distinct units
        // and a unit with itself.
        let counts = [5u64, 3, 1, 1];
        let slots: u64 = counts.iter().sum();
        let p: Vec<f64> = counts.iter().map(|&c| c as f64 / slots as f64).collect();
        for k in 2..=5u64 {
            let totals = YearTotals { slots, pairs: k * (k - 1) / 2, triples: k * (k - 1) * (k - 2) };
            for (u, v) in [(0, 1), (0, 0), (2, 3), (1, 1), (0, 3)] {
                let (mean, variance) = null_moments(std::iter::once((totals, counts[u], counts[v])), u == v);
                let (expected_mean, expected_variance) = enumerated(&p, k as usize, u, v);
                assert!((mean - expected_mean).abs() < 1e-12, "k {k}, ({u}, {v}): mean {mean} vs {expected_mean}");
                assert!(
                    (variance - expected_variance).abs() < 1e-12,
                    "k {k}, ({u}, {v}): variance {variance} vs {expected_variance}"
                );
            }
        }
    }

    #[test]
    fn years_add_up_and_only_common_years_count() {
        let u = [(0, 2), (3, 1), (5, 4)];
        let v = [(1, 1), (3, 2), (5, 1), (6, 9)];
        assert_eq!(common_years(&u, &v).collect::<Vec<_>>(), vec![(3, 1, 2), (5, 4, 1)]);
    }
}
