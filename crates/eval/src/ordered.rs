//! Ordered tree edit distance (Zhang & Shasha, 1989) and the outline metrics built on it.
//!
//! - [`tree_edit_distance`]: the minimum total cost of node deletions, insertions (1 each) and
//!   relabelings (a caller-supplied cost) turning one ordered tree into another, by Zhang–Shasha's
//!   keyroot dynamic program.
//! - **Tree Semantic Distance** (ResearchArena): TED where relabeling two labels whose cosine
//!   similarity exceeds a threshold is free and any other relabeling costs 1. The threshold's value
//!   did not survive in the seed's text; litnav defaults to 0.8 and makes it a parameter.
//! - **STS** (Bloom-Eval eq. 8): `1 − TED(A, B) / (|A| + |B|)` with relabel cost `1 − cos`.
//! - **Shape Consistency** (Bloom-Eval eq. 9–10): `√(DC · BC)` with DC and BC the min/max ratios of
//!   the outlines' depths (root at depth 1) and node counts.

use crate::tree::Tree;

/// Nodes in postorder with each node's leftmost-leaf index (0-based, postorder).
struct Postorder<'a> {
    labels: Vec<&'a str>,
    leftmost: Vec<usize>,
}

impl<'a> Postorder<'a> {
    fn new(tree: &'a Tree) -> Self {
        fn walk<'a>(node: &'a Tree, labels: &mut Vec<&'a str>, leftmost: &mut Vec<usize>) -> usize {
            let mut first_leaf = None;
            for child in &node.children {
                let leaf = walk(child, labels, leftmost);
                first_leaf.get_or_insert(leaf);
            }
            let me = labels.len();
            labels.push(&node.name);
            let leaf = first_leaf.unwrap_or(me);
            leftmost.push(leaf);
            leaf
        }
        let mut order = Postorder { labels: Vec::new(), leftmost: Vec::new() };
        walk(tree, &mut order.labels, &mut order.leftmost);
        order
    }

    /// Key roots: for each distinct leftmost leaf, the highest node having it.
    fn keyroots(&self) -> Vec<usize> {
        let mut highest = std::collections::HashMap::new();
        for (node, &leaf) in self.leftmost.iter().enumerate() {
            highest.insert(leaf, node);
        }
        let mut roots: Vec<usize> = highest.into_values().collect();
        roots.sort_unstable();
        roots
    }
}

/// Zhang–Shasha ordered tree edit distance with unit insert/delete and `relabel(a, b)` costs.
pub fn tree_edit_distance(a: &Tree, b: &Tree, relabel: &dyn Fn(&str, &str) -> f64) -> f64 {
    let (ta, tb) = (Postorder::new(a), Postorder::new(b));
    let (n, m) = (ta.labels.len(), tb.labels.len());
    let mut distance = vec![0.0f64; n * m];
    for &i in &ta.keyroots() {
        for &j in &tb.keyroots() {
            let (li, lj) = (ta.leftmost[i], tb.leftmost[j]);
            let rows = i - li + 2;
            let cols = j - lj + 2;
            // forest[x][y]: distance between forests a[li..li+x) and b[lj..lj+y).
            let mut forest = vec![0.0f64; rows * cols];
            for x in 1..rows {
                forest[x * cols] = forest[(x - 1) * cols] + 1.0;
            }
            for y in 1..cols {
                forest[y] = forest[y - 1] + 1.0;
            }
            for x in 1..rows {
                for y in 1..cols {
                    let (node_a, node_b) = (li + x - 1, lj + y - 1);
                    let delete = forest[(x - 1) * cols + y] + 1.0;
                    let insert = forest[x * cols + y - 1] + 1.0;
                    let value = if ta.leftmost[node_a] == li && tb.leftmost[node_b] == lj {
                        let change = forest[(x - 1) * cols + y - 1] + relabel(ta.labels[node_a], tb.labels[node_b]);
                        let best = delete.min(insert).min(change);
                        distance[node_a * m + node_b] = best;
                        best
                    } else {
                        let (px, py) = (ta.leftmost[node_a] - li, tb.leftmost[node_b] - lj);
                        let subtree = forest[px * cols + py] + distance[node_a * m + node_b];
                        delete.min(insert).min(subtree)
                    };
                    forest[x * cols + y] = value;
                }
            }
        }
    }
    distance[(n - 1) * m + (m - 1)]
}

/// Number of nodes.
pub fn node_count(tree: &Tree) -> usize {
    crate::hierarchy::size(tree)
}

/// Depth in levels (a lone root has depth 1).
pub fn depth(tree: &Tree) -> usize {
    1 + tree.children.iter().map(depth).max().unwrap_or(0)
}

/// ResearchArena's Tree Semantic Distance: free relabeling when cosine > `threshold`, else 1.
pub fn tree_semantic_distance(a: &Tree, b: &Tree, cosine: &dyn Fn(&str, &str) -> f64, threshold: f64) -> f64 {
    tree_edit_distance(a, b, &|x, y| if cosine(x, y) > threshold { 0.0 } else { 1.0 })
}

/// Bloom-Eval's Semantic Tree Similarity: `1 − TED / (|A| + |B|)`, relabel cost `1 − cos`.
pub fn semantic_tree_similarity(a: &Tree, b: &Tree, cosine: &dyn Fn(&str, &str) -> f64) -> f64 {
    let ted = tree_edit_distance(a, b, &|x, y| 1.0 - cosine(x, y));
    1.0 - ted / (node_count(a) + node_count(b)) as f64
}

/// Bloom-Eval's Shape Consistency `√(DC · BC)`.
pub fn shape_consistency(a: &Tree, b: &Tree) -> f64 {
    let ratio = |x: usize, y: usize| x.min(y) as f64 / x.max(y) as f64;
    (ratio(depth(a), depth(b)) * ratio(node_count(a), node_count(b))).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `a(b(c d) e)` notation.
    fn parse(text: &str) -> Tree {
        fn node(chars: &[char], i: &mut usize) -> Tree {
            let mut name = String::new();
            while *i < chars.len() && !"() ".contains(chars[*i]) {
                name.push(chars[*i]);
                *i += 1;
            }
            let mut tree = Tree { name, ..Tree::default() };
            if *i < chars.len() && chars[*i] == '(' {
                *i += 1;
                loop {
                    while chars[*i] == ' ' {
                        *i += 1;
                    }
                    if chars[*i] == ')' {
                        *i += 1;
                        break;
                    }
                    tree.children.push(node(chars, i));
                }
            }
            tree
        }
        let chars: Vec<char> = text.chars().collect();
        node(&chars, &mut 0)
    }

    fn unit(a: &str, b: &str) -> f64 {
        if a == b { 0.0 } else { 1.0 }
    }

    #[test]
    fn zhang_shasha_classics() {
        // The example of Zhang & Shasha's paper: distance 2.
        let a = parse("f(d(a c(b)) e)");
        let b = parse("f(c(d(a b)) e)");
        assert_eq!(tree_edit_distance(&a, &b, &unit), 2.0);
        assert_eq!(tree_edit_distance(&a, &a, &unit), 0.0);
        assert_eq!(tree_edit_distance(&parse("a"), &parse("b"), &unit), 1.0);
        assert_eq!(tree_edit_distance(&parse("a(b c)"), &parse("a"), &unit), 2.0);
        // Ordered: swapping siblings costs (unlike US-TED).
        assert_eq!(tree_edit_distance(&parse("a(b c)"), &parse("a(c b)"), &unit), 2.0);
        // Symmetric with symmetric costs.
        assert_eq!(tree_edit_distance(&b, &a, &unit), 2.0);
    }

    #[test]
    fn outline_metrics() {
        let a = parse("r(x(y) z)");
        let same = |x: &str, y: &str| if x == y { 1.0 } else { 0.0 };
        assert_eq!(semantic_tree_similarity(&a, &a, &same), 1.0);
        assert_eq!(tree_semantic_distance(&a, &parse("r(x(y) w)"), &same, 0.8), 1.0);
        assert_eq!(shape_consistency(&a, &a), 1.0);
        // Depths 3 vs 1, nodes 4 vs 1: √(1/3 · 1/4).
        assert!((shape_consistency(&a, &parse("r")) - (1.0f64 / 12.0).sqrt()).abs() < 1e-15);
    }
}
