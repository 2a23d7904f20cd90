//! Corrections measured: litnav's map of each instance (the default offline method), its
//! suggested corrections accepted one at a time where the expert tree agrees — the expert stands
//! in for the person — and how ARI, Sem-Path and NSR move with each accepted edit.
//!
//! The stand-in judges each suggestion on its own, by where the expert tree puts the papers
//! involved (never by the scores the benchmark reports):
//! - *move papers* / *move a subtopic*: the papers sit closer, in the expert tree, to the papers
//!   of the node they would join than to those of the node they leave (closeness: the mean depth
//!   of two papers' lowest common ancestor in the expert tree);
//! - *merge*: most of both siblings' papers are under the same expert node;
//! - *split*: the two parts are farther apart in the expert tree than each part is within;
//! - *remove papers*: the expert does not place them;
//! - *rename*: the new name is closer (cosine) to some expert heading than the old one.

use crate::organize::{BloomTopic, instance_docs};
use crate::{Error, Result};
use litnav_app::edits::{Change, Edit};
use litnav_app::score::similarity::Embedded;
use litnav_app::score::taxobench::read_instances;
use litnav_app::suggest::Suggestion;
use litnav_app::{Quiet, Workspace};
use litnav_eval::checks::ProblemKind;
use litnav_eval::taxobench::{Options as Scoring, score_instance};
use litnav_eval::tree::{Tree, normalize_title};
use litnav_organize::{Doc, MapNode, Options, organize};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The most edits accepted per instance (each is one suggestion: a merge, a batch of moves …).
pub const MAX_ACCEPTED: usize = 30;

/// The three reference metrics after some edits.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Metrics {
    /// Adjusted Rand index of the leaf groups.
    pub ari: f64,
    /// Sem-Path (TaxoBench), none without paths to compare.
    pub sem_path: Option<f64>,
    /// Node soft recall.
    pub nsr: f64,
}

/// One accepted suggestion and the metrics after it.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The problem that suggested it.
    pub kind: ProblemKind,
    /// What it did.
    pub action: String,
    /// The metrics after it.
    pub after: Metrics,
}

/// One instance's corrections.
#[derive(Debug, Clone, Serialize)]
pub struct Trajectory {
    /// `taxobench` or `bloom-eval`.
    pub suite: String,
    /// Instance id.
    pub id: String,
    /// Papers organized.
    pub papers: usize,
    /// The map as built.
    pub start: Metrics,
    /// Accepted suggestions in order.
    pub steps: Vec<Step>,
    /// Suggestions the expert stand-in rejected, by kind.
    pub rejected: HashMap<String, usize>,
}

impl Trajectory {
    fn end(&self) -> Metrics {
        self.steps.last().map_or(self.start, |s| s.after)
    }
}

/// Every instance's corrections.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Per instance.
    pub trajectories: Vec<Trajectory>,
}

/// Where the expert tree puts each paper: the chain of expert nodes from the root to it.
struct Expert {
    chains: HashMap<String, Vec<usize>>,
    headings: Vec<String>,
}

impl Expert {
    fn new(truth: &Tree) -> Expert {
        fn walk(node: &Tree, chain: &mut Vec<usize>, expert: &mut Expert) {
            let here = expert.headings.len();
            expert.headings.push(node.name.clone());
            chain.push(here);
            for paper in &node.papers {
                expert.chains.entry(normalize_title(paper)).or_insert_with(|| chain.clone());
            }
            node.children.iter().for_each(|child| walk(child, chain, expert));
            chain.pop();
        }
        let mut expert = Expert { chains: HashMap::new(), headings: Vec::new() };
        walk(truth, &mut Vec::new(), &mut expert);
        expert
    }

    fn chain(&self, title: &str) -> Option<&[usize]> {
        self.chains.get(&normalize_title(title)).map(Vec::as_slice)
    }

    /// Mean depth of the lowest common expert ancestor over pairs of distinct papers, one from
    /// each set (papers the expert does not place are left out); none without a pair.
    fn closeness(&self, a: &[&str], b: &[&str]) -> Option<f64> {
        let (mut sum, mut pairs) = (0usize, 0usize);
        for x in a {
            let Some(cx) = self.chain(x) else { continue };
            for y in b.iter().filter(|y| normalize_title(y) != normalize_title(x)) {
                let Some(cy) = self.chain(y) else { continue };
                sum += cx.iter().zip(cy).take_while(|(p, q)| p == q).count() - 1;
                pairs += 1;
            }
        }
        (pairs > 0).then(|| sum as f64 / pairs as f64)
    }

    /// The expert node most of `papers` sit under at depth one below the root (their section).
    fn section_shares(&self, papers: &[&str]) -> HashMap<usize, usize> {
        let mut counts = HashMap::new();
        for chain in papers.iter().filter_map(|p| self.chain(p)) {
            let at = chain.get(1).copied().unwrap_or(chain[0]);
            *counts.entry(at).or_insert(0) += 1;
        }
        counts
    }
}

fn titles_under(node: &MapNode) -> Vec<&str> {
    let mut out: Vec<&str> = node.papers.iter().map(String::as_str).collect();
    node.subtopics.iter().filter(|s| !s.filtered).for_each(|c| out.extend(titles_under(c)));
    out
}

fn title_of<'a>(map: &'a MapNode, paper: &str) -> Option<&'a str> {
    if let Some(at) = map.paper_ids.iter().position(|p| p == paper) {
        return map.papers.get(at).map(String::as_str);
    }
    map.subtopics.iter().find_map(|c| title_of(c, paper))
}

/// Whether the expert stand-in accepts `suggestion` on `map`.
fn agrees(expert: &Expert, map: &MapNode, suggestion: &Suggestion, cosine: &dyn Fn(&str, &str) -> f64) -> bool {
    let under = |id: &str| map.find(id).map(titles_under).unwrap_or_default();
    let closer = |moving: &[&str], to: &[&str], from: &[&str]| -> bool {
        let rest: Vec<&str> = from.iter().filter(|t| !moving.contains(t)).copied().collect();
        match (expert.closeness(moving, to), expert.closeness(moving, &rest)) {
            (Some(to), Some(from)) => to > from,
            (Some(_), None) => true,
            _ => false,
        }
    };
    let mut votes = (0usize, 0usize);
    for change in &suggestion.edits {
        let agreed = match change {
            Change::MovePaper { paper, from, to } => {
                let title = title_of(map, paper).unwrap_or_default();
                closer(&[title], &under(to), &under(from))
            }
            Change::RemovePaper { paper, .. } => expert.chain(title_of(map, paper).unwrap_or_default()).is_none(),
            Change::MoveNode { node, to } => {
                let from = map.parent_of(node).map(titles_under).unwrap_or_default();
                closer(&under(node), &under(to), &from)
            }
            Change::Merge { node, into } => {
                let (a, b) = (expert.section_shares(&under(node)), expert.section_shares(&under(into)));
                let top = |shares: &HashMap<usize, usize>| {
                    shares.iter().max_by_key(|(s, c)| (**c, usize::MAX - **s)).map(|(s, _)| *s)
                };
                top(&a).is_some() && top(&a) == top(&b)
            }
            Change::Split { node, papers, .. } => {
                let moving: Vec<&str> = papers.iter().filter_map(|p| title_of(map, p)).collect();
                let rest: Vec<&str> = under(node).into_iter().filter(|t| !moving.contains(t)).collect();
                match (
                    expert.closeness(&moving, &rest),
                    expert.closeness(&moving, &moving),
                    expert.closeness(&rest, &rest),
                ) {
                    (Some(between), Some(a), Some(b)) => between < a.min(b),
                    _ => false,
                }
            }
            Change::Rename { node, name } => {
                let old = map.find(node).map(|n| n.name.as_str()).unwrap_or_default();
                let best = |label: &str| expert.headings.iter().map(|h| cosine(label, h)).fold(0.0, f64::max);
                best(name) > best(old)
            }
        };
        if agreed { votes.0 += 1 } else { votes.1 += 1 }
    }
    votes.0 > votes.1
}

fn metrics(workspace: &Workspace, truth: &Tree, map: &MapNode) -> Result<Metrics> {
    let encoder = workspace.encoder(&Quiet)?;
    let tree = Tree::from(map);
    let sim = Embedded::new(encoder, &[truth, &tree], &workspace.settings().vector_cache("labels"));
    let scores = score_instance(truth, &tree, None, Scoring::default(), &sim);
    Ok(Metrics { ari: scores.leaf.ari, sem_path: scores.sem_path, nsr: scores.nsr })
}

/// Accept, one at a time, the suggestions the expert stand-in agrees with, checking the map again
/// after each, until none is agreed or [`MAX_ACCEPTED`] are.
pub fn correct(
    workspace: &Workspace,
    suite: &str,
    id: &str,
    title: &str,
    docs: &[Doc],
    truth: &Tree,
    options: Options,
) -> Result<Trajectory> {
    let encoder = workspace.encoder(&Quiet)?;
    let topic_vector = encoder.embed(&[title]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    let mut map = organize(title, &topic_vector, docs, &embed, options);
    let expert = Expert::new(truth);
    let cache = workspace.settings().vector_cache("labels");
    let cosine = |a: &str, b: &str| {
        let v = litnav_embed::embed_cached(encoder, &[a.to_string(), b.to_string()], &cache);
        f64::from(litnav_core::vector::dot(&v[0], &v[1]))
    };
    let mut trajectory = Trajectory {
        suite: suite.into(),
        id: id.into(),
        papers: docs.len(),
        start: metrics(workspace, truth, &map)?,
        steps: Vec::new(),
        rejected: HashMap::new(),
    };
    let mut judged: HashSet<String> = HashSet::new();
    while trajectory.steps.len() < MAX_ACCEPTED {
        let checks = litnav_app::maps::map_checks(workspace, &map, None, &Quiet)?;
        let mut accepted = None;
        for suggestion in checks.suggestions {
            let key = serde_json::to_string(&suggestion.edits).unwrap_or_default();
            if !judged.insert(key) {
                continue;
            }
            if agrees(&expert, &map, &suggestion, &cosine) {
                accepted = Some(suggestion);
                break;
            }
            let kind = serde_json::to_value(suggestion.kind).ok().and_then(|v| v.as_str().map(str::to_string));
            *trajectory.rejected.entry(kind.unwrap_or_default()).or_insert(0) += 1;
        }
        let Some(suggestion) = accepted else { break };
        let log: Vec<Edit> =
            suggestion.edits.iter().map(|change| Edit { who: None, when: None, change: change.clone() }).collect();
        map = litnav_app::edits::apply(&map, &log)?;
        let after = metrics(workspace, truth, &map)?;
        trajectory.steps.push(Step { kind: suggestion.kind, action: suggestion.action, after });
    }
    Ok(trajectory)
}

/// The corrections of the TaxoBench instances in `data` and of the Bloom-Eval `topics`.
pub fn run(workspace: &Workspace, data: &Path, topics: &[BloomTopic], options: Options) -> Result<Report> {
    let encoder = workspace.encoder(&Quiet)?;
    let cache = workspace.settings().vector_cache("papers");
    let (gold, _) = read_instances(data, "gt")?;
    let mut report = Report::default();
    for instance in &gold {
        let Ok(truth) = &instance.tree else { continue };
        let docs = instance_docs(&instance.record, encoder, &cache);
        let topic = instance.topic().unwrap_or("").to_string();
        report.trajectories.push(correct(workspace, "taxobench", &instance.id, &topic, &docs, truth, options)?);
    }
    for topic in topics {
        let trajectory = correct(workspace, "bloom-eval", &topic.id, &topic.title, &topic.docs, &topic.truth, options)?;
        report.trajectories.push(trajectory);
    }
    if report.trajectories.is_empty() {
        return Err(Error::input("no instance to correct"));
    }
    Ok(report)
}

fn delta(a: f64, b: f64) -> String {
    format!("{:+.3}", b - a)
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Corrections accepted where the expert tree agrees (litnav's default offline map; at most {MAX_ACCEPTED} per instance)"
        )?;
        writeln!(
            f,
            "{:<11} {:<14} {:>6} {:>8} {:>8} {:>13} {:>13} {:>13}",
            "suite", "instance", "papers", "accepted", "rejected", "ARI", "Sem-Path", "NSR"
        )?;
        let sem = |m: Metrics| m.sem_path.unwrap_or(0.0);
        for t in &self.trajectories {
            let (start, end) = (t.start, t.end());
            writeln!(
                f,
                "{:<11} {:<14} {:>6} {:>8} {:>8} {:>6.3} {:>6} {:>6.3} {:>6} {:>6.3} {:>6}",
                t.suite,
                t.id,
                t.papers,
                t.steps.len(),
                t.rejected.values().sum::<usize>(),
                start.ari,
                delta(start.ari, end.ari),
                sem(start),
                delta(sem(start), sem(end)),
                start.nsr,
                delta(start.nsr, end.nsr),
            )?;
        }
        let steps: usize = self.trajectories.iter().map(|t| t.steps.len()).sum();
        let per_edit = |metric: &dyn Fn(Metrics) -> f64| {
            let total: f64 = self.trajectories.iter().map(|t| metric(t.end()) - metric(t.start)).sum();
            total / steps.max(1) as f64
        };
        writeln!(
            f,
            "{steps} edits accepted over {} instances; mean change per accepted edit: ARI {:+.4}, Sem-Path {:+.4}, NSR {:+.4}",
            self.trajectories.len(),
            per_edit(&|m| m.ari),
            per_edit(&|m| sem(m)),
            per_edit(&|m| m.nsr),
        )?;
        writeln!(f, "\nBy kind of suggestion: accepted (mean ΔARI, ΔSem-Path, ΔNSR of the edit) / rejected")?;
        let mut kinds: HashMap<String, (usize, f64, f64, f64, usize)> = HashMap::new();
        for t in &self.trajectories {
            let mut before = t.start;
            for step in &t.steps {
                let kind = serde_json::to_value(step.kind).ok().and_then(|v| v.as_str().map(str::to_string));
                let entry = kinds.entry(kind.unwrap_or_default()).or_default();
                entry.0 += 1;
                entry.1 += step.after.ari - before.ari;
                entry.2 += sem(step.after) - sem(before);
                entry.3 += step.after.nsr - before.nsr;
                before = step.after;
            }
            for (kind, count) in &t.rejected {
                kinds.entry(kind.clone()).or_default().4 += count;
            }
        }
        let mut kinds: Vec<_> = kinds.into_iter().collect();
        kinds.sort_by(|a, b| a.0.cmp(&b.0));
        for (kind, (accepted, ari, sem_path, nsr, rejected)) in kinds {
            let mean = |x: f64| if accepted > 0 { format!("{:+.4}", x / accepted as f64) } else { "—".into() };
            writeln!(f, "  {kind:<22} {accepted:>4} ({}, {}, {}) / {rejected}", mean(ari), mean(sem_path), mean(nsr))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(name: &str, papers: &[&str]) -> Tree {
        Tree::leaf(name, papers.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn closeness_is_the_mean_depth_of_the_lowest_common_expert_ancestor() {
        let truth = Tree::node(
            "root",
            vec![Tree::node("a", vec![leaf("a1", &["p1", "p2"]), leaf("a2", &["p3"])]), leaf("b", &["p4"])],
        );
        let expert = Expert::new(&truth);
        assert_eq!(expert.closeness(&["p1"], &["p2"]), Some(2.0), "same leaf, depth 2");
        assert_eq!(expert.closeness(&["p1"], &["p3"]), Some(1.0), "same section");
        assert_eq!(expert.closeness(&["p1"], &["p4"]), Some(0.0), "only the root");
        assert_eq!(expert.closeness(&["p1"], &["p2", "p4", "unknown"]), Some(1.0));
        assert_eq!(expert.closeness(&["p1"], &["p1"]), None, "a paper is not paired with itself");
    }

    #[test]
    fn the_stand_in_accepts_moves_toward_the_experts_grouping_and_refuses_the_others() {
        let truth = Tree::node("root", vec![leaf("a", &["p1", "p2", "p3"]), leaf("b", &["p4", "p5", "p6"])]);
        let expert = Expert::new(&truth);
        let mut map = MapNode::new("root".into(), String::new(), 1.0);
        map.id = "root".into();
        let node = |id: &str, papers: &[&str]| {
            let mut n = MapNode::new(id.into(), String::new(), 0.5);
            n.id = id.into();
            n.papers = papers.iter().map(|p| p.to_string()).collect();
            n.paper_ids = papers.iter().map(|p| format!("id-{p}")).collect();
            n
        };
        map.subtopics = vec![node("x", &["p1", "p2", "p4"]), node("y", &["p5", "p6", "p3"])];
        let suggestion = |change: Change| Suggestion {
            id: String::new(),
            kind: ProblemKind::SiblingPaperOverlap,
            node: String::new(),
            action: String::new(),
            edits: vec![change],
        };
        let cosine = |_: &str, _: &str| 0.0;
        let toward = Change::MovePaper { paper: "id-p4".into(), from: "x".into(), to: "y".into() };
        let away = Change::MovePaper { paper: "id-p1".into(), from: "x".into(), to: "y".into() };
        assert!(agrees(&expert, &map, &suggestion(toward), &cosine));
        assert!(!agrees(&expert, &map, &suggestion(away), &cosine));
        let merge = Change::Merge { node: "x".into(), into: "y".into() };
        assert!(!agrees(&expert, &map, &suggestion(merge), &cosine), "their papers are mostly in different sections");
        let remove = Change::RemovePaper { paper: "id-p1".into(), from: "x".into() };
        assert!(!agrees(&expert, &map, &suggestion(remove), &cosine), "the expert places p1");
    }
}
