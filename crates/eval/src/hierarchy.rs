//! TaxoBench's hierarchy-level metrics (seed 000 §3.3.2, Appendix A.3, A.4, A.6), on the
//! *hierarchy* of a taxonomy: its named nodes, root included, papers excluded.
//!
//! Label similarity is supplied by the caller ([`LabelSimilarity`]): TaxoBench's is
//! `Sim(x, y) = max(0, cos(e(x), e(y)))` with all-MiniLM-L6-v2 embeddings; litnav also offers a
//! plain string similarity for users without the model, labelled as such by the CLI.
//!
//! - **US-TED** (eq. 23–26): `D(u, v) = (1 − Sim(u, v)) + MatchCost(Ch(u), Ch(v))`, children
//!   matched by a minimum-cost assignment on a square matrix padded with dummy children (a real
//!   child against a dummy costs its subtree size; dummy against dummy 0). **US-NTED** divides by
//!   the two hierarchies' node counts.
//! - **Sem-Path** (eq. 30–33, Algorithm 1): for each aligned paper, the ancestor chains (root
//!   included, paper excluded) of every position of the paper in either tree; the shorter chain is
//!   aligned to an ordered subsequence of the longer one, `J = dp[p][q] + λ(q − p)`, the best
//!   (lowest J) over all chain pairs is kept, and the score averages `1 / (1 + J)`.
//! - **NSR / NSP / Soft-F1** (eq. 34–37): soft cardinalities of the preorder label lists (root
//!   included, papers excluded; the reference's list is `A`, so NSR is coverage of the reference).

use crate::assignment::min_cost_assignment;
use crate::tree::{LabelSimilarity, Tree, normalize_title, preorder_labels};
use std::collections::HashMap;

/// Number of hierarchy nodes of a tree (root included).
pub fn size(tree: &Tree) -> usize {
    1 + tree.children.iter().map(size).sum::<usize>()
}

/// Unordered semantic tree edit distance.
pub fn us_ted(reference: &Tree, predicted: &Tree, sim: &dyn LabelSimilarity) -> f64 {
    let rename = 1.0 - sim.similarity(&reference.name, &predicted.name).clamp(0.0, 1.0);
    let (m, n) = (reference.children.len(), predicted.children.len());
    let k = m.max(n);
    if k == 0 {
        return rename;
    }
    let mut costs = vec![0.0f64; k * k];
    for i in 0..k {
        for j in 0..k {
            costs[i * k + j] = match (reference.children.get(i), predicted.children.get(j)) {
                (Some(u), Some(v)) => us_ted(u, v, sim),
                (Some(u), None) => size(u) as f64,
                (None, Some(v)) => size(v) as f64,
                (None, None) => 0.0,
            };
        }
    }
    rename + min_cost_assignment(&costs, k).0
}

/// US-TED divided by the total number of hierarchy nodes, in [0, 1].
pub fn us_nted(reference: &Tree, predicted: &Tree, sim: &dyn LabelSimilarity) -> f64 {
    us_ted(reference, predicted, sim) / (size(reference) + size(predicted)) as f64
}

/// Order-preserving alignment cost of two ancestor chains (Algorithm 1).
pub fn chain_cost(a: &[&str], b: &[&str], lambda: f64, sim: &dyn LabelSimilarity) -> f64 {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let (p, q) = (short.len(), long.len());
    // dp[i][j], rolling over i; dp[0][j] = 0, dp[i][j] = ∞ for j < i.
    let mut previous = vec![0.0f64; q + 1];
    for i in 1..=p {
        let mut current = vec![f64::INFINITY; q + 1];
        for j in i..=q {
            let matched = previous[j - 1] + (1.0 - sim.similarity(short[i - 1], long[j - 1]).clamp(0.0, 1.0));
            current[j] = matched.min(current[j - 1]);
        }
        previous = current;
    }
    previous[q] + lambda * (q - p) as f64
}

/// Every ancestor chain (root first, paper excluded) of each paper of `tree`, by normalized title.
pub fn ancestor_chains(tree: &Tree) -> HashMap<String, Vec<Vec<&str>>> {
    fn walk<'a>(node: &'a Tree, chain: &mut Vec<&'a str>, out: &mut HashMap<String, Vec<Vec<&'a str>>>) {
        chain.push(&node.name);
        for title in &node.papers {
            out.entry(normalize_title(title)).or_default().push(chain.clone());
        }
        for child in &node.children {
            walk(child, chain, out);
        }
        chain.pop();
    }
    let mut out = HashMap::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// Sem-Path over aligned pairs of (reference title, predicted title); `None` with no pairs.
pub fn sem_path(
    reference: &Tree,
    predicted: &Tree,
    pairs: &[(&str, &str)],
    lambda: f64,
    sim: &dyn LabelSimilarity,
) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let reference_chains = ancestor_chains(reference);
    let predicted_chains = ancestor_chains(predicted);
    let mut total = 0.0;
    for (r, p) in pairs {
        let empty = Vec::new();
        let ours = reference_chains.get(&normalize_title(r)).unwrap_or(&empty);
        let theirs = predicted_chains.get(&normalize_title(p)).unwrap_or(&empty);
        let mut best = f64::INFINITY;
        for a in ours {
            for b in theirs {
                best = best.min(chain_cost(a, b, lambda, sim));
            }
        }
        if best.is_finite() {
            total += 1.0 / (1.0 + best);
        }
    }
    Some(total / pairs.len() as f64)
}

/// Soft cardinality `c(A) = Σᵢ 1 / Σⱼ Sim(aᵢ, aⱼ)`.
pub fn soft_cardinality(labels: &[&str], sim: &dyn LabelSimilarity) -> f64 {
    labels
        .iter()
        .map(|a| {
            let denominator: f64 = labels.iter().map(|b| sim.similarity(a, b).clamp(0.0, 1.0)).sum();
            if denominator > 0.0 { 1.0 / denominator } else { 0.0 }
        })
        .sum()
}

/// Soft recall of a generated heading list against a reference list (STORM's and Knowledge
/// Navigator's Heading Soft Recall): `(c(R) + c(G) − c(R ⊎ G)) / c(R)`, with the same clipped
/// similarity and soft cardinality as NSR.
///
/// It is not bounded by 1. Soft cardinality is not monotone under a similarity that is not a
/// proper kernel (string ratios are not), so the union can count less than the generated list
/// alone and a list close to the reference can score a little above 1 (1.007 for a map in the
/// server's tests). The seeds' formula and STORM's code have no clamp, and neither has this.
pub fn heading_soft_recall(reference: &[&str], generated: &[&str], sim: &dyn LabelSimilarity) -> f64 {
    let union: Vec<&str> = reference.iter().chain(generated).copied().collect();
    let cr = soft_cardinality(reference, sim);
    if cr <= 0.0 {
        return 0.0;
    }
    (cr + soft_cardinality(generated, sim) - soft_cardinality(&union, sim)) / cr
}

/// (NSR, NSP, Soft-F1) of the predicted hierarchy's labels against the reference's.
pub fn nsr_nsp_soft_f1(reference: &Tree, predicted: &Tree, sim: &dyn LabelSimilarity) -> (f64, f64, f64) {
    let a = preorder_labels(reference);
    let b = preorder_labels(predicted);
    let nsr = heading_soft_recall(&a, &b, sim);
    let nsp = heading_soft_recall(&b, &a, sim);
    let f1 = if nsr + nsp > 0.0 { 2.0 * nsr * nsp / (nsr + nsp) } else { 0.0 };
    (nsr, nsp, f1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, children: Vec<Tree>) -> Tree {
        Tree { name: name.into(), children, papers: Vec::new() }
    }

    fn exact(a: &str, b: &str) -> f64 {
        if a == b { 1.0 } else { 0.0 }
    }

    #[test]
    fn us_ted_by_hand() {
        // The paper's counterexample: R(A(B, C), D(E, F)) vs R(A(B, E), D(C, F)).
        let t1 = node(
            "R",
            vec![
                node("A", vec![node("B", vec![]), node("C", vec![])]),
                node("D", vec![node("E", vec![]), node("F", vec![])]),
            ],
        );
        let t2 = node(
            "R",
            vec![
                node("A", vec![node("B", vec![]), node("E", vec![])]),
                node("D", vec![node("C", vec![]), node("F", vec![])]),
            ],
        );
        assert_eq!(us_ted(&t1, &t1, &exact), 0.0);
        // A vs A: B=B, C vs E renamed (1); D vs D: C vs E renamed (1). Total 2.
        assert_eq!(us_ted(&t1, &t2, &exact), 2.0);
        // Sibling order does not matter.
        let t1_swapped = node("R", vec![t1.children[1].clone(), t1.children[0].clone()]);
        assert_eq!(us_ted(&t1, &t1_swapped, &exact), 0.0);
        // Against a bare root: rename 0 + delete 6 nodes.
        assert_eq!(us_ted(&t1, &node("R", vec![]), &exact), 6.0);
        assert_eq!(us_nted(&t1, &node("X", vec![]), &exact), 7.0 / 8.0, "rename 1 + delete 6, over 7 + 1 nodes");
    }

    #[test]
    fn chains_by_hand() {
        let sim = exact;
        assert_eq!(chain_cost(&["R", "A"], &["R", "A"], 1.0, &sim), 0.0);
        assert_eq!(chain_cost(&["R", "A"], &["R", "X", "A"], 1.0, &sim), 1.0, "one extra level");
        assert_eq!(chain_cost(&["R", "A"], &["R", "B"], 1.0, &sim), 1.0, "one renamed level");
        assert_eq!(chain_cost(&["R", "X", "A"], &["R", "A"], 0.5, &sim), 0.5, "symmetric, λ scales");
    }

    #[test]
    fn soft_cardinality_laws() {
        let t = node("R", vec![node("A", vec![]), node("B", vec![])]);
        let (nsr, nsp, f1) = nsr_nsp_soft_f1(&t, &t, &exact);
        assert!((nsr - 1.0).abs() < 1e-12 && (nsp - 1.0).abs() < 1e-12 && (f1 - 1.0).abs() < 1e-12);
        assert_eq!(soft_cardinality(&["a", "a", "b"], &exact), 2.0, "duplicates count once");
    }
}
