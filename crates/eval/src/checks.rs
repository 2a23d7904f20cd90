//! Checks of a taxonomy that need no reference tree: which parts of *this* tree to distrust, per
//! node with a one-line reason, and per tree. Sibling overlap (labels naming the same thing, papers
//! that fit a sibling better than their own node), gaps (papers that fit no child of their parent,
//! or sit beside its children), structural balance, label problems (a child restating its parent or
//! the topic, duplicate and generic names), the correlation of taxonomic with semantic distance,
//! and parent–child entailment. Labels and paper titles are compared through unit vectors the
//! caller supplies (the sentence encoder's), so the checks themselves are deterministic.

use crate::agreement::spearman;
use crate::tree::{Tree, normalize_title};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Where the checks draw their lines. The values are first settings, not fitted: BENCHMARKS.md
/// reports how each check follows the reference metrics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CheckOptions {
    /// Cosine of two sibling labels at or above which they name the same thing.
    pub label_overlap: f64,
    /// Cosine of a child's label to its parent's (or the topic's) at or above which it restates it.
    pub restates: f64,
    /// A paper whose best cosine to any child of its parent (its own leave-one-out) is below this
    /// fits none of them: a gap.
    pub gap_floor: f64,
    /// Share of a node's papers at or above which a child that holds them unbalances it.
    pub dominant_share: f64,
    /// Share of a child's papers fitting one sibling better at or above which the two overlap.
    pub misplaced_share: f64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { label_overlap: 0.8, restates: 0.9, gap_floor: 0.2, dominant_share: 0.7, misplaced_share: 0.5 }
    }
}

/// What kind of problem a node has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// Its label names nearly what a sibling's names.
    SiblingLabelOverlap,
    /// Many of its papers fit a sibling better than it.
    SiblingPaperOverlap,
    /// Papers under it fit none of its children, or sit beside them.
    Gap,
    /// One child holds most of its papers, or it has a single child.
    Unbalanced,
    /// Its label restates its parent's.
    RestatesParent,
    /// Its label restates the topic (the root's).
    RestatesTopic,
    /// Another node has the same name.
    DuplicateName,
    /// Its name says nothing about what is in it ("Others", "Methods").
    GenericName,
    /// Its label is closer to another node of its parent's level than to its parent.
    NotEntailed,
}

/// One problem of one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    /// The kind.
    pub kind: ProblemKind,
    /// The node: child positions from the root, 1-based, dot-separated (`""` is the root).
    pub node: String,
    /// The node's name.
    pub name: String,
    /// One line a person understands.
    pub reason: String,
    /// The other node the problem involves, by path as `node`: the sibling a label overlaps
    /// with, the leaf (under the sibling) that the node's papers fit better, the dominant child,
    /// the node a label is closer to than to its parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    /// The papers (titles) the problem involves: those fitting `other` better, those in a gap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub papers: Vec<String>,
}

impl Problem {
    fn new(kind: ProblemKind, node: &Flat<'_>, reason: String) -> Problem {
        Problem { kind, node: node.path.clone(), name: node.name.to_string(), reason, other: None, papers: Vec::new() }
    }

    fn with_other(self, other: &Flat<'_>) -> Problem {
        Problem { other: Some(other.path.clone()), ..self }
    }

    fn with_papers(self, papers: Vec<&str>) -> Problem {
        Problem { papers: papers.into_iter().map(str::to_string).collect(), ..self }
    }
}

/// A tree's reference-free checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeChecks {
    /// Nodes, leaves, depth (edges from the root to the deepest leaf) and distinct papers.
    pub nodes: usize,
    /// Leaves.
    pub leaves: usize,
    /// Depth.
    pub depth: usize,
    /// Distinct papers (by normalized title).
    pub papers: usize,
    /// Pairs of siblings whose labels name the same thing.
    pub sibling_label_overlaps: usize,
    /// Of the papers placed under a node with siblings, the share fitting a sibling better.
    pub papers_fitting_a_sibling_better: Option<f64>,
    /// Papers that fit no child of their parent or sit beside its children.
    pub gap_papers: usize,
    /// Mean normalized entropy of child sizes over nodes with two or more children (1: even).
    pub balance: Option<f64>,
    /// Deepest leaf depth minus shallowest.
    pub leaf_depth_spread: usize,
    /// Nodes with a label problem (restating, duplicate, generic).
    pub label_problems: usize,
    /// Spearman's ρ between taxonomic distance (hops through the lowest common ancestor) and
    /// semantic distance (1 − cosine of the labels) over every pair of non-root nodes: higher is
    /// better, none with fewer than three such nodes.
    pub semantic_taxonomic_correlation: Option<f64>,
    /// Share of nodes below the first level whose label is closer to its parent than to any other
    /// node of the parent's level.
    pub entailment: Option<f64>,
    /// How entailment was judged.
    pub entailment_by: String,
    /// The settings used.
    pub options: CheckOptions,
    /// Every problem found, in preorder.
    pub problems: Vec<Problem>,
}

impl TreeChecks {
    /// The per-tree numbers, by name, as benchmarks correlate them with reference metrics; the
    /// sign says which way is better (+1: higher is better, −1: lower is better).
    pub fn measures(&self) -> Vec<(&'static str, i8, Option<f64>)> {
        let per_node = |count: usize| Some(count as f64 / self.nodes.max(1) as f64);
        vec![
            ("sibling label overlaps / node", -1, per_node(self.sibling_label_overlaps)),
            ("papers fitting a sibling better", -1, self.papers_fitting_a_sibling_better),
            ("gap papers / paper", -1, Some(self.gap_papers as f64 / self.papers.max(1) as f64)),
            ("balance", 1, self.balance),
            ("leaf depth spread", -1, Some(self.leaf_depth_spread as f64)),
            ("label problems / node", -1, per_node(self.label_problems)),
            ("semantic-taxonomic correlation", 1, self.semantic_taxonomic_correlation),
            ("entailment", 1, self.entailment),
            ("problems / node", -1, per_node(self.problems.len())),
        ]
    }
}

/// How entailment is judged without an LLM.
pub const OFFLINE_ENTAILMENT: &str =
    "offline approximation: label embeddings (closest to its parent among the parent's level)";

/// Names that say nothing about what is under them (after normalization).
const GENERIC_NAMES: &[&str] = &[
    "other",
    "others",
    "miscellaneous",
    "misc",
    "general",
    "various",
    "overview",
    "introduction",
    "background",
    "methods",
    "approaches",
    "applications",
    "techniques",
    "related work",
    "other methods",
    "other approaches",
    "other topics",
    "others topics",
    "unclassified",
    "uncategorized",
    "filtered",
    "outliers",
    "rest",
    "remaining",
    "topic",
    "topics",
    "category",
    "subtopic",
];

/// A node flattened: where it is, what it is called, its papers beneath.
struct Flat<'a> {
    path: String,
    name: &'a str,
    depth: usize,
    parent: Option<usize>,
    children: Vec<usize>,
    own: Vec<&'a str>,
}

fn flatten<'a>(tree: &'a Tree) -> Vec<Flat<'a>> {
    fn visit<'a>(node: &'a Tree, path: String, depth: usize, parent: Option<usize>, out: &mut Vec<Flat<'a>>) -> usize {
        let here = out.len();
        let own = node.papers.iter().map(String::as_str).collect();
        out.push(Flat { path: path.clone(), name: &node.name, depth, parent, children: Vec::new(), own });
        for (i, child) in node.children.iter().enumerate() {
            let child_path = if path.is_empty() { format!("{}", i + 1) } else { format!("{path}.{}", i + 1) };
            let at = visit(child, child_path, depth + 1, Some(here), out);
            out[here].children.push(at);
        }
        here
    }
    let mut out = Vec::new();
    visit(tree, String::new(), 0, None, &mut out);
    out
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum()
}

fn normalized(mut sum: Vec<f64>) -> Vec<f32> {
    let norm = sum.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        sum.iter_mut().for_each(|x| *x /= norm);
    }
    sum.into_iter().map(|x| x as f32).collect()
}

/// The vectors of a tree's texts: every label and every paper title, unit length.
pub trait Vectors {
    /// The unit vector of `text` (a label or a title the tree holds).
    fn vector(&self, text: &str) -> &[f32];
}

impl Vectors for HashMap<String, Vec<f32>> {
    fn vector(&self, text: &str) -> &[f32] {
        self.get(text).map_or(&[], Vec::as_slice)
    }
}

/// Papers beneath each node (its own and its descendants'), distinct by normalized title per node.
fn papers_beneath<'a>(flat: &[Flat<'a>]) -> Vec<Vec<&'a str>> {
    let mut beneath: Vec<Vec<&str>> = flat.iter().map(|n| n.own.clone()).collect();
    for i in (0..flat.len()).rev() {
        if let Some(parent) = flat[i].parent {
            let moved = beneath[i].clone();
            beneath[parent].extend(moved);
        }
    }
    for list in &mut beneath {
        let mut seen = std::collections::HashSet::new();
        list.retain(|t| seen.insert(normalize_title(t)));
    }
    beneath
}

/// Sum of the vectors of `titles`.
fn vector_sum(titles: &[&str], vectors: &dyn Vectors) -> Vec<f64> {
    let mut sum = Vec::new();
    for title in titles {
        let v = vectors.vector(title);
        if sum.len() < v.len() {
            sum.resize(v.len(), 0.0);
        }
        sum.iter_mut().zip(v).for_each(|(s, x)| *s += f64::from(*x));
    }
    sum
}

/// Check `tree` without a reference; `vectors` holds a unit vector for every label and title.
pub fn check(tree: &Tree, vectors: &dyn Vectors, options: CheckOptions) -> TreeChecks {
    let flat = flatten(tree);
    let beneath = papers_beneath(&flat);
    let mut problems = Vec::new();
    let label = |i: usize| vectors.vector(flat[i].name);
    let mut sibling_label_overlaps = 0;
    let (mut placed, mut fitting_elsewhere, mut gap_papers) = (0usize, 0usize, 0usize);
    let mut entropies = Vec::new();
    for (index, node) in flat.iter().enumerate() {
        let kids = &node.children;
        // Label problems of the node itself (the root is the topic).
        if let Some(parent) = node.parent {
            label_problems(&flat, index, parent, vectors, options, &mut problems);
        }
        if kids.is_empty() {
            continue;
        }
        for (a, &i) in kids.iter().enumerate() {
            for &j in &kids[a + 1..] {
                let similarity = cosine(label(i), label(j));
                if similarity >= options.label_overlap {
                    sibling_label_overlaps += 1;
                    let reason =
                        format!("names nearly what its sibling “{}” names (cosine {similarity:.2})", flat[i].name);
                    problems
                        .push(Problem::new(ProblemKind::SiblingLabelOverlap, &flat[j], reason).with_other(&flat[i]));
                }
            }
        }
        if !node.own.is_empty() {
            gap_papers += node.own.len();
            let reason =
                format!("papers placed beside its {} children, in none of them: {}", kids.len(), node.own.len());
            problems.push(Problem::new(ProblemKind::Gap, node, reason).with_papers(node.own.clone()));
        }
        let sums: Vec<Vec<f64>> = kids.iter().map(|&k| vector_sum(&beneath[k], vectors)).collect();
        let centroids: Vec<Vec<f32>> = sums.iter().cloned().map(normalized).collect();
        let mut lost = Vec::new();
        for (a, &kid) in kids.iter().enumerate() {
            let mut better: HashMap<usize, Vec<&str>> = HashMap::new();
            for title in &beneath[kid] {
                let v = vectors.vector(title);
                // Its own node without it (a node of one paper cannot hold it less well).
                let own = if beneath[kid].len() > 1 {
                    let without: Vec<f64> = sums[a].iter().zip(v).map(|(s, x)| s - f64::from(*x)).collect();
                    cosine(v, &normalized(without))
                } else {
                    1.0
                };
                let (best_sibling, best) = (0..kids.len())
                    .filter(|&b| b != a && !beneath[kids[b]].is_empty())
                    .map(|b| (b, cosine(v, &centroids[b])))
                    .fold((None, f64::NEG_INFINITY), |acc, (b, c)| if c > acc.1 { (Some(b), c) } else { acc });
                if kids.len() > 1 {
                    placed += 1;
                }
                if let Some(b) = best_sibling.filter(|_| best > own) {
                    fitting_elsewhere += 1;
                    better.entry(b).or_default().push(title);
                }
                if own.max(best) < options.gap_floor {
                    lost.push(*title);
                }
            }
            let total = beneath[kid].len();
            if let Some((&b, titles)) = better.iter().max_by_key(|(b, t)| (t.len(), std::cmp::Reverse(**b)))
                && titles.len() >= 2
                && titles.len() as f64 >= options.misplaced_share * total as f64
            {
                let count = titles.len();
                let reason =
                    format!("{count} of its {total} papers fit its sibling “{}” better than it", flat[kids[b]].name);
                let target = best_leaf(&flat, kids[b], titles, &beneath, vectors);
                let found = Problem::new(ProblemKind::SiblingPaperOverlap, &flat[kid], reason);
                problems.push(found.with_other(&flat[target]).with_papers(titles.clone()));
            }
        }
        if !lost.is_empty() {
            gap_papers += lost.len();
            let reason = format!(
                "papers under it that fit none of its children (cosine below {}): {}",
                options.gap_floor,
                lost.len()
            );
            problems.push(Problem::new(ProblemKind::Gap, node, reason).with_papers(lost));
        }
        balance_of(&flat, index, &beneath, options, &mut entropies, &mut problems);
    }
    entailment_and_correlation(&flat, vectors, &mut problems, options, sibling_label_overlaps, {
        let leaf_depths: Vec<usize> = flat.iter().filter(|n| n.children.is_empty()).map(|n| n.depth).collect();
        Summary {
            nodes: flat.len(),
            leaves: leaf_depths.len(),
            depth: leaf_depths.iter().copied().max().unwrap_or(0),
            leaf_depth_spread: leaf_depths.iter().max().unwrap_or(&0) - leaf_depths.iter().min().unwrap_or(&0),
            papers: beneath[0].len(),
            fitting: (placed > 0).then(|| fitting_elsewhere as f64 / placed as f64),
            gap_papers,
            balance: (!entropies.is_empty()).then(|| entropies.iter().sum::<f64>() / entropies.len() as f64),
        }
    })
}

/// The leaf under `node` (itself when a leaf) whose papers' centroid is closest to that of
/// `titles`: where papers that fit `node` better would go.
fn best_leaf(flat: &[Flat<'_>], node: usize, titles: &[&str], beneath: &[Vec<&str>], vectors: &dyn Vectors) -> usize {
    let moving = normalized(vector_sum(titles, vectors));
    let mut leaves = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if flat[n].children.is_empty() {
            leaves.push(n);
        }
        stack.extend(flat[n].children.iter().rev());
    }
    leaves
        .into_iter()
        .filter(|&leaf| !beneath[leaf].is_empty())
        .map(|leaf| (cosine(&moving, &normalized(vector_sum(&beneath[leaf], vectors))), leaf))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map_or(node, |(_, leaf)| leaf)
}

/// The counts gathered before entailment and correlation.
struct Summary {
    nodes: usize,
    leaves: usize,
    depth: usize,
    leaf_depth_spread: usize,
    papers: usize,
    fitting: Option<f64>,
    gap_papers: usize,
    balance: Option<f64>,
}

fn label_problems(
    flat: &[Flat<'_>],
    index: usize,
    parent: usize,
    vectors: &dyn Vectors,
    options: CheckOptions,
    problems: &mut Vec<Problem>,
) {
    let node = &flat[index];
    let name = normalize_title(node.name);
    let push = |kind, reason: String, problems: &mut Vec<Problem>| problems.push(Problem::new(kind, node, reason));
    let to_parent = cosine(vectors.vector(node.name), vectors.vector(flat[parent].name));
    if name == normalize_title(flat[parent].name) || to_parent >= options.restates {
        push(
            ProblemKind::RestatesParent,
            format!("restates its parent “{}” (cosine {to_parent:.2})", flat[parent].name),
            problems,
        );
    } else if parent != 0 {
        let to_topic = cosine(vectors.vector(node.name), vectors.vector(flat[0].name));
        if name == normalize_title(flat[0].name) || to_topic >= options.restates {
            push(
                ProblemKind::RestatesTopic,
                format!("restates the topic “{}” (cosine {to_topic:.2})", flat[0].name),
                problems,
            );
        }
    }
    if let Some(earlier) = flat[..index].iter().find(|other| normalize_title(other.name) == name) {
        let place = if earlier.path.is_empty() { "the root".to_string() } else { format!("node {}", earlier.path) };
        push(ProblemKind::DuplicateName, format!("has the same name as {place}"), problems);
    }
    if name.is_empty() || GENERIC_NAMES.contains(&name.as_str()) {
        push(ProblemKind::GenericName, "its name says nothing about what is in it".into(), problems);
    }
}

/// The normalized entropy of a node's child sizes, and its problem when one child dominates or it
/// has a single child.
fn balance_of(
    flat: &[Flat<'_>],
    index: usize,
    beneath: &[Vec<&str>],
    options: CheckOptions,
    entropies: &mut Vec<f64>,
    problems: &mut Vec<Problem>,
) {
    let node = &flat[index];
    if node.children.len() == 1 {
        let reason = "has a single child: the level adds nothing".into();
        problems.push(Problem::new(ProblemKind::Unbalanced, node, reason).with_other(&flat[node.children[0]]));
        return;
    }
    // Sizes in papers when the tree holds papers, else in leaves.
    let leaves = |i: usize| -> usize {
        let mut stack = vec![i];
        let mut count = 0;
        while let Some(n) = stack.pop() {
            if flat[n].children.is_empty() {
                count += 1;
            }
            stack.extend(&flat[n].children);
        }
        count
    };
    let with_papers = !beneath[index].is_empty();
    let sizes: Vec<usize> =
        node.children.iter().map(|&c| if with_papers { beneath[c].len() } else { leaves(c) }).collect();
    let total: usize = sizes.iter().sum();
    if total == 0 {
        return;
    }
    let entropy: f64 = sizes
        .iter()
        .filter(|&&s| s > 0)
        .map(|&s| {
            let p = s as f64 / total as f64;
            -p * p.ln()
        })
        .sum();
    entropies.push(entropy / (sizes.len() as f64).ln());
    let (largest, &size) =
        sizes.iter().enumerate().max_by_key(|(i, s)| (**s, std::cmp::Reverse(*i))).unwrap_or((0, &0));
    if sizes.len() >= 3 && size as f64 >= options.dominant_share * total as f64 {
        let unit = if with_papers { "papers" } else { "leaves" };
        let child = &flat[node.children[largest]];
        let reason = format!("its child “{}” holds {size} of its {total} {unit}", child.name);
        problems.push(Problem::new(ProblemKind::Unbalanced, node, reason).with_other(child));
    }
}

fn entailment_and_correlation(
    flat: &[Flat<'_>],
    vectors: &dyn Vectors,
    problems: &mut Vec<Problem>,
    options: CheckOptions,
    sibling_label_overlaps: usize,
    summary: Summary,
) -> TreeChecks {
    let label = |i: usize| vectors.vector(flat[i].name);
    let (mut judged, mut entailed) = (0usize, 0usize);
    for (index, node) in flat.iter().enumerate() {
        let Some(parent) = node.parent.filter(|&p| flat[p].depth >= 1) else { continue };
        let to_parent = cosine(label(index), label(parent));
        let rival = flat
            .iter()
            .enumerate()
            .filter(|(i, other)| *i != parent && other.depth == flat[parent].depth)
            .map(|(i, _)| (cosine(label(index), label(i)), i))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        judged += 1;
        match rival {
            Some((similarity, rival)) if similarity > to_parent => {
                let reason = format!(
                    "is closer to “{}” (cosine {similarity:.2}) than to its parent “{}” ({to_parent:.2})",
                    flat[rival].name, flat[parent].name
                );
                problems.push(Problem::new(ProblemKind::NotEntailed, node, reason).with_other(&flat[rival]));
            }
            _ => entailed += 1,
        }
    }
    let correlation = semantic_taxonomic(flat, vectors);
    problems.sort_by_key(|problem| path_key(&problem.node));
    let label_problems = {
        let mut nodes: Vec<&str> = problems
            .iter()
            .filter(|p| {
                matches!(
                    p.kind,
                    ProblemKind::RestatesParent
                        | ProblemKind::RestatesTopic
                        | ProblemKind::DuplicateName
                        | ProblemKind::GenericName
                )
            })
            .map(|p| p.node.as_str())
            .collect();
        nodes.dedup();
        nodes.len()
    };
    TreeChecks {
        nodes: summary.nodes,
        leaves: summary.leaves,
        depth: summary.depth,
        papers: summary.papers,
        sibling_label_overlaps,
        papers_fitting_a_sibling_better: summary.fitting,
        gap_papers: summary.gap_papers,
        balance: summary.balance,
        leaf_depth_spread: summary.leaf_depth_spread,
        label_problems,
        semantic_taxonomic_correlation: correlation,
        entailment: (judged > 0).then(|| entailed as f64 / judged as f64),
        entailment_by: OFFLINE_ENTAILMENT.to_string(),
        options,
        problems: std::mem::take(problems),
    }
}

/// One parent whose children's entailment an outside judge (an LLM) is asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct EntailmentQuestion {
    /// The parent's name.
    pub parent: String,
    /// Its children: path (as problems name nodes) and name.
    pub children: Vec<(String, String)>,
}

/// The entailment questions of `tree`: every node below the first level's parents, as the offline
/// judgement asks them (children of the first-level nodes and deeper).
pub fn entailment_questions(tree: &Tree) -> Vec<EntailmentQuestion> {
    let flat = flatten(tree);
    flat.iter()
        .filter(|node| node.depth >= 1 && !node.children.is_empty())
        .map(|node| EntailmentQuestion {
            parent: node.name.to_string(),
            children: node.children.iter().map(|&c| (flat[c].path.clone(), flat[c].name.to_string())).collect(),
        })
        .collect()
}

impl TreeChecks {
    /// Replace the offline entailment with an outside judge's verdicts (one per child of each of
    /// `questions`, in order), said to be judged `by`.
    pub fn judge_entailment(&mut self, questions: &[EntailmentQuestion], verdicts: &[Vec<bool>], by: &str) {
        self.problems.retain(|p| p.kind != ProblemKind::NotEntailed);
        let (mut judged, mut entailed) = (0usize, 0usize);
        for (question, verdicts) in questions.iter().zip(verdicts) {
            for ((path, name), &holds) in question.children.iter().zip(verdicts) {
                judged += 1;
                if holds {
                    entailed += 1;
                    continue;
                }
                self.problems.push(Problem {
                    kind: ProblemKind::NotEntailed,
                    node: path.clone(),
                    name: name.clone(),
                    reason: format!(
                        "is not a kind, part or aspect of its parent “{}”, the judge says",
                        question.parent
                    ),
                    other: None,
                    papers: Vec::new(),
                });
            }
        }
        self.problems.sort_by_key(|problem| path_key(&problem.node));
        self.entailment = (judged > 0).then(|| entailed as f64 / judged as f64);
        self.entailment_by = by.to_string();
    }
}

/// Preorder sort key of a node path./// Preorder sort key of a node path.
fn path_key(path: &str) -> Vec<usize> {
    path.split('.').filter(|p| !p.is_empty()).map(|p| p.parse().unwrap_or(0)).collect()
}

/// Spearman's ρ between hops through the lowest common ancestor and 1 − label cosine, over every
/// pair of non-root nodes (at most the first 400 in preorder: 80K pairs).
fn semantic_taxonomic(flat: &[Flat<'_>], vectors: &dyn Vectors) -> Option<f64> {
    let nodes: Vec<usize> = (1..flat.len()).take(400).collect();
    if nodes.len() < 3 {
        return None;
    }
    let ancestors = |mut i: usize| {
        let mut chain = vec![i];
        while let Some(p) = flat[i].parent {
            chain.push(p);
            i = p;
        }
        chain
    };
    let chains: Vec<Vec<usize>> = nodes.iter().map(|&i| ancestors(i)).collect();
    let (mut taxonomic, mut semantic) = (Vec::new(), Vec::new());
    for a in 0..nodes.len() {
        for b in a + 1..nodes.len() {
            let common = chains[a].iter().find(|n| chains[b].contains(n)).copied().unwrap_or(0);
            let hops = flat[nodes[a]].depth + flat[nodes[b]].depth - 2 * flat[common].depth;
            taxonomic.push(hops as f64);
            semantic.push(1.0 - cosine(vectors.vector(flat[nodes[a]].name), vectors.vector(flat[nodes[b]].name)));
        }
    }
    spearman(&taxonomic, &semantic)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors on named axes: each text points along the axes its words name (`a`, `b`, …).
    fn axes(tree: &Tree) -> HashMap<String, Vec<f32>> {
        let mut texts = vec![];
        fn collect(node: &Tree, out: &mut Vec<String>) {
            out.push(node.name.clone());
            out.extend(node.papers.iter().cloned());
            node.children.iter().for_each(|c| collect(c, out));
        }
        collect(tree, &mut texts);
        texts
            .into_iter()
            .map(|text| {
                let mut v = vec![0.0f64; 8];
                for word in text.split_whitespace() {
                    if let Some(axis) = word.strip_prefix('x').and_then(|d| d.parse::<usize>().ok()) {
                        v[axis] += 1.0;
                    }
                }
                if v.iter().all(|x| *x == 0.0) {
                    v[7] = 1.0;
                }
                (text, normalized(v))
            })
            .collect()
    }

    fn leaf(name: &str, papers: &[&str]) -> Tree {
        Tree::leaf(name, papers.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn a_clean_tree_has_no_problem_and_a_broken_one_has_each_with_its_reason() {
        let clean = Tree::node(
            "x0 topic",
            vec![
                Tree::node(
                    "x1 vision",
                    vec![
                        leaf("x1 x2 detection", &["x1 x2 p1", "x1 x2 p2"]),
                        leaf("x1 x3 segmentation", &["x1 x3 p3", "x1 x3 p4"]),
                    ],
                ),
                Tree::node(
                    "x4 language",
                    vec![
                        leaf("x4 x5 parsing", &["x4 x5 p5", "x4 x5 p6"]),
                        leaf("x4 x6 translation", &["x4 x6 p7", "x4 x6 p8"]),
                    ],
                ),
            ],
        );
        let checks = check(&clean, &axes(&clean), CheckOptions::default());
        assert!(checks.problems.is_empty(), "{:#?}", checks.problems);
        assert_eq!((checks.nodes, checks.leaves, checks.depth, checks.papers), (7, 4, 2, 8));
        assert_eq!(checks.entailment, Some(1.0));
        assert!(checks.semantic_taxonomic_correlation.unwrap() > 0.5, "{checks:?}");
        assert_eq!(checks.balance, Some(1.0));

        let broken = Tree::node(
            "x0 topic",
            vec![
                Tree::node(
                    "x1 vision",
                    vec![
                        leaf("x1 x2 detection", &["x1 x3 p1", "x1 x3 p2", "x1 x2 p9"]),
                        leaf("x1 x3 segmentation", &["x1 x3 p3", "x1 x3 p4"]),
                        leaf("x1 x3 segmentation methods", &["x1 x3 p10"]),
                    ],
                ),
                Tree::node("x4 language", vec![leaf("Others", &["x6 p5"]), leaf("x1 x3 segmentation", &["x1 x3 p11"])]),
                Tree::node("x0 topic", vec![leaf("x5 only child", &["x5 p12"])]),
            ],
        );
        let checks = check(&broken, &axes(&broken), CheckOptions::default());
        let kinds = |node: &str| -> Vec<ProblemKind> {
            checks.problems.iter().filter(|p| p.node == node).map(|p| p.kind).collect()
        };
        assert!(kinds("1.3").contains(&ProblemKind::SiblingLabelOverlap), "{:#?}", checks.problems);
        assert!(kinds("1.1").contains(&ProblemKind::SiblingPaperOverlap), "{:#?}", checks.problems);
        assert!(kinds("2.1").contains(&ProblemKind::GenericName));
        assert!(kinds("2.2").contains(&ProblemKind::DuplicateName));
        assert!(kinds("2.2").contains(&ProblemKind::NotEntailed), "closer to “x1 vision” than to “x4 language”");
        assert!(kinds("3").contains(&ProblemKind::RestatesParent), "restates the topic, its parent");
        assert!(kinds("3").contains(&ProblemKind::Unbalanced), "a single child");
        let reason = &checks.problems.iter().find(|p| p.kind == ProblemKind::SiblingPaperOverlap).unwrap().reason;
        assert!(reason.contains("2 of its 3 papers") && reason.contains("x1 x3 segmentation"), "{reason}");
        let of = |kind, node: &str| checks.problems.iter().find(|p| p.kind == kind && p.node == node).unwrap();
        let misplaced = of(ProblemKind::SiblingPaperOverlap, "1.1");
        assert_eq!(misplaced.other.as_deref(), Some("1.2"), "the leaf they fit better");
        assert_eq!(misplaced.papers, ["x1 x3 p1", "x1 x3 p2"]);
        assert_eq!(of(ProblemKind::SiblingLabelOverlap, "1.3").other.as_deref(), Some("1.2"));
        assert_eq!(of(ProblemKind::NotEntailed, "2.2").other.as_deref(), Some("1"));
        assert_eq!(of(ProblemKind::Unbalanced, "3").other.as_deref(), Some("3.1"));
        assert!(checks.papers_fitting_a_sibling_better.unwrap() > 0.0);
        assert!(checks.entailment.unwrap() < 1.0);
    }

    #[test]
    fn an_outside_judge_replaces_the_offline_entailment() {
        let tree = Tree::node(
            "x0 topic",
            vec![
                Tree::node("x1 vision", vec![leaf("x1 x2 detection", &["p1"]), leaf("x4 parsing", &["p2"])]),
                leaf("x4 language", &["p3"]),
            ],
        );
        let mut checks = check(&tree, &axes(&tree), CheckOptions::default());
        assert!(checks.problems.iter().any(|p| p.kind == ProblemKind::NotEntailed && p.node == "1.2"));
        let questions = entailment_questions(&tree);
        assert_eq!(
            questions,
            vec![EntailmentQuestion {
                parent: "x1 vision".into(),
                children: vec![("1.1".into(), "x1 x2 detection".into()), ("1.2".into(), "x4 parsing".into())],
            }]
        );
        checks.judge_entailment(&questions, &[vec![false, true]], "LLM (test)");
        assert_eq!((checks.entailment, checks.entailment_by.as_str()), (Some(0.5), "LLM (test)"));
        let not: Vec<&str> =
            checks.problems.iter().filter(|p| p.kind == ProblemKind::NotEntailed).map(|p| p.node.as_str()).collect();
        assert_eq!(not, ["1.1"], "the judge's verdicts, not the offline ones");
    }

    #[test]
    fn papers_beside_children_and_papers_fitting_nothing_are_gaps() {
        let tree = Tree {
            name: "x0 topic".into(),
            children: vec![leaf("x1 a", &["x1 p1", "x1 p2"]), leaf("x2 b", &["x2 p3", "x2 p4", "x6 stray"])],
            papers: vec!["x1 p0".into()],
        };
        let checks = check(&tree, &axes(&tree), CheckOptions::default());
        let gaps: Vec<&Problem> = checks.problems.iter().filter(|p| p.kind == ProblemKind::Gap).collect();
        assert_eq!(gaps.len(), 2, "{gaps:#?}");
        assert!(gaps.iter().any(|p| p.reason.contains("placed beside its 2 children, in none of them: 1")));
        assert!(gaps.iter().any(|p| p.reason.contains("fit none of its children (cosine below 0.2): 1")));
        assert_eq!(checks.gap_papers, 2);
        assert!(gaps.iter().any(|p| p.papers == ["x1 p0"]) && gaps.iter().any(|p| p.papers == ["x6 stray"]));
    }
}
