//! Corrections litnav suggests from a map's checks, each a ready edit log a person accepts or
//! rejects with one click: merge two siblings whose names overlap, move papers to the leaf they
//! fit better, remove papers that fit nowhere, move a subtopic under the node it belongs to, give
//! a generic or restating node a name from its papers, and split a leaf that dominates its parent
//! (the split litnav proposes for any leaf on request, too). A suggestion is offered only when its
//! edits apply to the map as it is.

use crate::edits::{Change, Edit};
use litnav_eval::checks::{Problem, ProblemKind, TreeChecks};
use litnav_organize::MapNode;
use litnav_session::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// A map's checks without a reference (problems named by node id) and the corrections they suggest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapChecks {
    /// The checks.
    #[serde(flatten)]
    pub tree: TreeChecks,
    /// The corrections the problems suggest, in the problems' order.
    #[serde(default)]
    pub suggestions: Vec<Suggestion>,
}

/// One correction litnav suggests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Names it within the map's revision (`merge:t1.s2:t1.s1`), so a face can remember a rejection.
    pub id: String,
    /// The problem that suggests it.
    pub kind: ProblemKind,
    /// The node the problem is on.
    pub node: String,
    /// What accepting it does, in a line.
    pub action: String,
    /// The edits accepting it appends to the map's log.
    pub edits: Vec<Change>,
}

/// Unit vectors of labels and titles, by text.
pub type TextVectors = HashMap<String, Vec<f32>>;

/// The node at a checks path (`"2.1"`: the first kept subtopic of the second), the root for `""`.
pub fn node_at<'a>(map: &'a MapNode, path: &str) -> Option<&'a MapNode> {
    let mut node = map;
    for step in path.split('.').filter(|s| !s.is_empty()) {
        let index = step.parse::<usize>().ok()?.checked_sub(1)?;
        node = node.subtopics.iter().filter(|s| !s.filtered).nth(index)?;
    }
    Some(node)
}

/// `checks` (made on `map.kept_tree()` with `vectors`) with their nodes named by id, and the
/// corrections they suggest.
pub fn suggest(
    map: &MapNode,
    mut checks: TreeChecks,
    vectors: &TextVectors,
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
) -> MapChecks {
    let namer = Namer { map, vectors, embed };
    let mut suggestions: Vec<Suggestion> = Vec::new();
    for problem in &mut checks.problems {
        let node = node_at(map, &problem.node).unwrap_or(map);
        let other = problem.other.as_deref().and_then(|path| node_at(map, path));
        if let Some(found) = suggestion_for(problem, node, other, &namer)
            .filter(|s| !suggestions.iter().any(|seen| seen.id == s.id) && fits(map, &s.edits))
        {
            suggestions.push(found);
        }
        problem.node = node.id.clone();
        problem.other = other.map(|o| o.id.clone());
    }
    MapChecks { tree: checks, suggestions }
}

/// Whether `edits` apply to `map`.
fn fits(map: &MapNode, edits: &[Change]) -> bool {
    let log: Vec<Edit> = edits.iter().map(|change| Edit { who: None, when: None, change: change.clone() }).collect();
    !log.is_empty() && crate::edits::apply(map, &log).is_ok()
}

fn suggestion_for(problem: &Problem, node: &MapNode, other: Option<&MapNode>, namer: &Namer<'_>) -> Option<Suggestion> {
    let (id, action, edits) = match problem.kind {
        ProblemKind::SiblingLabelOverlap => {
            let into = other?;
            let action = format!("Merge “{}” into its sibling “{}”", node.name, into.name);
            (
                format!("merge:{}:{}", node.id, into.id),
                action,
                vec![Change::Merge { node: node.id.clone(), into: into.id.clone() }],
            )
        }
        ProblemKind::SiblingPaperOverlap => {
            let to = other?;
            let edits: Vec<Change> = placed(node, &problem.papers)
                .into_iter()
                .filter(|(_, from)| *from != to.id)
                .map(|(paper, from)| Change::MovePaper { paper, from, to: to.id.clone() })
                .collect();
            let action = format!("Move {} from “{}” to “{}”", papers(edits.len()), node.name, to.name);
            (format!("move_papers:{}:{}", node.id, to.id), action, edits)
        }
        ProblemKind::Gap => {
            let edits: Vec<Change> = placed(node, &problem.papers)
                .into_iter()
                .map(|(paper, from)| Change::RemovePaper { paper, from })
                .collect();
            let action =
                format!("Remove {} that fit none of “{}”'s subtopics from the map", papers(edits.len()), node.name);
            (format!("remove_papers:{}", node.id), action, edits)
        }
        ProblemKind::Unbalanced => return namer.split(other?),
        ProblemKind::NotEntailed => {
            let to = other?;
            let action = format!("Move “{}” under “{}”", node.name, to.name);
            (
                format!("move_node:{}:{}", node.id, to.id),
                action,
                vec![Change::MoveNode { node: node.id.clone(), to: to.id.clone() }],
            )
        }
        ProblemKind::RestatesParent
        | ProblemKind::RestatesTopic
        | ProblemKind::DuplicateName
        | ProblemKind::GenericName => {
            let name = namer.rename(node)?;
            let action = format!("Rename “{}” to “{name}”", node.name);
            (format!("rename:{}", node.id), action, vec![Change::Rename { node: node.id.clone(), name }])
        }
    };
    Some(Suggestion { id, kind: problem.kind, node: node.id.clone(), action, edits })
}

fn papers(count: usize) -> String {
    if count == 1 { "1 paper".into() } else { format!("{count} papers") }
}

/// Each of `titles` found in a leaf under `node`: its corpus id and the leaf's id.
fn placed(node: &MapNode, titles: &[String]) -> Vec<(String, String)> {
    let wanted: HashSet<&str> = titles.iter().map(String::as_str).collect();
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    visit_leaves(node, &mut |leaf| {
        for (title, id) in leaf.papers.iter().zip(&leaf.paper_ids) {
            if wanted.contains(title.as_str()) && seen.insert(id.clone()) {
                found.push((id.clone(), leaf.id.clone()));
            }
        }
    });
    found
}

fn visit_leaves<'a>(node: &'a MapNode, visit: &mut dyn FnMut(&'a MapNode)) {
    if node.subtopics.is_empty() {
        visit(node);
    }
    node.subtopics.iter().filter(|s| !s.filtered).for_each(|child| visit_leaves(child, visit));
}

/// The papers under a node, as (title, text to name them by).
fn papers_under(node: &MapNode) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    visit_leaves(node, &mut |leaf| {
        for (i, title) in leaf.papers.iter().enumerate() {
            let abstract_text = leaf.abstracts.get(i).cloned().flatten().unwrap_or_default();
            out.push((title.as_str(), format!("{title}. {title}. {abstract_text}")));
        }
    });
    out
}

/// Names for nodes and split parts, from their papers' key phrases against their siblings'.
struct Namer<'a> {
    map: &'a MapNode,
    vectors: &'a TextVectors,
    embed: &'a dyn Fn(&[String]) -> Vec<Vec<f32>>,
}

impl Namer<'_> {
    /// The best key phrase of `groups[0]` (titles and texts) against the other groups that no node
    /// of the map is named already.
    fn name(&self, groups: &[Vec<(&str, String)>]) -> Option<String> {
        let mut taken = HashSet::new();
        collect_names(self.map, &mut taken);
        let mut next = 0;
        let classes: Vec<Vec<(usize, &str)>> = groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .map(|(_, text)| {
                        next += 1;
                        (next, text.as_str())
                    })
                    .collect()
            })
            .collect();
        let centroids: Vec<Vec<f32>> = groups.iter().map(|group| self.centroid(group)).collect();
        let phrases = litnav_organize::label::key_phrases(&classes, &centroids, self.embed, 6, &self.map.name);
        phrases.into_iter().next()?.into_iter().find(|phrase| !taken.contains(&phrase.to_lowercase()))
    }

    fn centroid(&self, group: &[(&str, String)]) -> Vec<f32> {
        let mut sum: Vec<f64> = Vec::new();
        for (title, _) in group {
            let v = self.vectors.get(*title).map_or(&[][..], Vec::as_slice);
            sum.resize(sum.len().max(v.len()), 0.0);
            sum.iter_mut().zip(v).for_each(|(s, x)| *s += f64::from(*x));
        }
        let norm = sum.iter().map(|x| x * x).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
        sum.into_iter().map(|x| (x / norm) as f32).collect()
    }

    /// A name for a split's new part when no key phrase is free: a phrase of its first paper's
    /// title, else the leaf's name marked as its second part.
    fn fallback_name(&self, leaf: &MapNode, title: &str) -> String {
        let mut taken = HashSet::new();
        collect_names(self.map, &mut taken);
        litnav_organize::label::title_phrases(title)
            .into_iter()
            .find(|phrase| !taken.contains(&phrase.to_lowercase()))
            .unwrap_or_else(|| format!("{} (part 2)", leaf.name))
    }

    /// A name for `node` from its papers against its siblings'.
    fn rename(&self, node: &MapNode) -> Option<String> {
        let own = papers_under(node);
        if own.is_empty() {
            return None;
        }
        let mut groups = vec![own];
        if let Some(parent) = self.map.parent_of(&node.id) {
            groups.extend(parent.subtopics.iter().filter(|s| s.id != node.id && !s.filtered).map(papers_under));
        }
        self.name(&groups)
    }

    /// The split litnav proposes for `leaf`: two groups by spherical 2-means on its titles'
    /// vectors; the smaller goes to a new sibling named from its key phrases against the rest.
    fn split(&self, leaf: &MapNode) -> Option<Suggestion> {
        if !leaf.subtopics.is_empty() || leaf.paper_ids.len() < MIN_SPLIT || leaf.papers.len() != leaf.paper_ids.len() {
            return None;
        }
        let points: Vec<Vec<f32>> =
            leaf.papers.iter().map(|t| self.vectors.get(t).cloned().unwrap_or_default()).collect();
        if points.iter().any(Vec::is_empty) {
            return None;
        }
        let labels = litnav_organize::cluster::kmeans(&points, 2, SPLIT_SEED, 50).labels;
        let count = |c: usize| labels.iter().filter(|&&l| l == c).count();
        let moving = if count(1) <= count(0) { 1 } else { 0 };
        let moved = count(moving);
        if moved == 0 || moved == labels.len() {
            return None;
        }
        let texts = papers_under(leaf);
        let (mut part, mut rest) = (Vec::new(), Vec::new());
        for (paper, label) in texts.into_iter().zip(&labels) {
            if *label == moving { part.push(paper) } else { rest.push(paper) }
        }
        let first_title = part.first().map(|(title, _)| title.to_string()).unwrap_or_default();
        let name = self.name(&[part, rest]).unwrap_or_else(|| self.fallback_name(leaf, &first_title));
        let papers: Vec<String> =
            leaf.paper_ids.iter().zip(&labels).filter(|(_, l)| **l == moving).map(|(id, _)| id.clone()).collect();
        let action = format!(
            "Split “{}”: {} of its {} papers to a new sibling “{name}”",
            leaf.name,
            moved,
            leaf.paper_ids.len()
        );
        Some(Suggestion {
            id: format!("split:{}", leaf.id),
            kind: ProblemKind::Unbalanced,
            node: leaf.id.clone(),
            action,
            edits: vec![Change::Split { node: leaf.id.clone(), papers, name }],
        })
    }
}

/// The fewest papers a leaf needs for litnav to propose splitting it (two on each side).
pub const MIN_SPLIT: usize = 4;

/// The 2-means seed of split proposals (fixed: the same map gets the same proposal).
const SPLIT_SEED: u64 = 7;

fn collect_names(node: &MapNode, out: &mut HashSet<String>) {
    out.insert(node.name.to_lowercase());
    node.subtopics.iter().for_each(|child| collect_names(child, out));
}

/// The split litnav proposes for the leaf `node` of `map` (see the module's documentation).
pub fn propose_split(
    workspace: &litnav_session::Workspace,
    map: &MapNode,
    node: &str,
    progress: &dyn litnav_session::Progress,
) -> Result<Suggestion> {
    let leaf = map.find(node).ok_or_else(|| Error::not_found(format!("the map has no node {node:?}")))?;
    if !leaf.subtopics.is_empty() {
        return Err(Error::input(format!("{node} has subtopics: only a leaf splits")));
    }
    if leaf.paper_ids.len() < MIN_SPLIT {
        return Err(Error::input(format!(
            "{node} holds {} papers: litnav proposes a split for leaves of {MIN_SPLIT} or more",
            leaf.paper_ids.len()
        )));
    }
    let mut vectors = litnav_score::tree::text_vectors(workspace, &map.kept_tree(), progress)?;
    let encoder = workspace.encoder(progress)?;
    let cache = workspace.settings().vector_cache("labels");
    // A leaf under the "Filtered" branch is not in the kept tree: its titles are embedded here.
    let missing: Vec<String> = leaf.papers.iter().filter(|t| !vectors.contains_key(*t)).cloned().collect();
    vectors.extend(missing.iter().cloned().zip(litnav_embed::embed_cached(encoder, &missing, &cache)));
    let embed = |texts: &[String]| litnav_embed::embed_cached(encoder, texts, &cache);
    let namer = Namer { map, vectors: &vectors, embed: &embed };
    namer.split(leaf).ok_or_else(|| Error::input(format!("{node}'s papers do not fall into two groups")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use litnav_eval::checks::{CheckOptions, check};

    /// Vectors on named axes (`x1`, `x2`, … in a text), as the checks' own tests use.
    fn axes(texts: &[String]) -> TextVectors {
        texts
            .iter()
            .map(|text| {
                let mut v = vec![0.0f32; 8];
                for word in text.split_whitespace() {
                    if let Some(axis) = word.strip_prefix('x').and_then(|d| d.parse::<usize>().ok()) {
                        v[axis] += 1.0;
                    }
                }
                if v.iter().all(|x| *x == 0.0) {
                    v[7] = 1.0;
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                (text.clone(), v.into_iter().map(|x| x / norm).collect())
            })
            .collect()
    }

    fn leaf(id: &str, name: &str, titles: &[&str]) -> MapNode {
        let mut node = MapNode::new(name.into(), String::new(), 0.5);
        node.id = id.into();
        node.papers = titles.iter().map(|t| t.to_string()).collect();
        node.paper_ids = titles.iter().map(|t| format!("id {t}")).collect();
        node
    }

    fn texts(node: &MapNode, out: &mut Vec<String>) {
        out.push(node.name.clone());
        out.extend(node.papers.iter().cloned());
        node.subtopics.iter().for_each(|c| texts(c, out));
    }

    #[test]
    fn problems_suggest_edits_that_apply_and_name_nodes_by_id() {
        let mut vision = MapNode::new("x1 vision".into(), String::new(), 0.7);
        vision.id = "t1".into();
        vision.subtopics = vec![
            leaf("t1.s1", "x1 x2 detection", &["x1 x3 mask p1", "x1 x3 mask p2", "x1 x2 boxes p9"]),
            leaf("t1.s2", "x1 x3 segmentation", &["x1 x3 mask p3", "x1 x3 mask p4"]),
            leaf("t1.s3", "x1 x3 segmentation methods", &["x1 x3 mask p10"]),
        ];
        let mut language = MapNode::new("x4 language".into(), String::new(), 0.7);
        language.id = "t2".into();
        language.subtopics = vec![
            leaf("t2.s1", "Others", &["x4 x5 parsing trees p5", "x4 x5 parsing grammar p6"]),
            leaf("t2.s2", "x4 x6 translation", &["x4 x6 p7"]),
        ];
        let mut map = MapNode::new("x0 topic".into(), String::new(), 1.0);
        map.id = "root".into();
        map.subtopics = vec![vision, language];
        let mut all = Vec::new();
        texts(&map, &mut all);
        let vectors = axes(&all);
        let checks = check(&map.kept_tree(), &vectors, CheckOptions::default());
        let embed = |texts: &[String]| {
            let v = axes(texts);
            texts.iter().map(|t| v[t].clone()).collect()
        };
        let checked = suggest(&map, checks, &vectors, &embed);
        let by_id = |id: &str| checked.suggestions.iter().find(|s| s.id == id);
        let merge = by_id("merge:t1.s3:t1.s2").unwrap_or_else(|| panic!("{:#?}", checked.suggestions));
        assert_eq!(merge.action, "Merge “x1 x3 segmentation methods” into its sibling “x1 x3 segmentation”");
        let moves = by_id("move_papers:t1.s1:t1.s2").unwrap();
        assert_eq!(
            moves.edits,
            vec![
                Change::MovePaper { paper: "id x1 x3 mask p1".into(), from: "t1.s1".into(), to: "t1.s2".into() },
                Change::MovePaper { paper: "id x1 x3 mask p2".into(), from: "t1.s1".into(), to: "t1.s2".into() },
            ]
        );
        let rename = by_id("rename:t2.s1").unwrap();
        assert!(
            matches!(&rename.edits[0], Change::Rename { name, .. } if name.to_lowercase().contains("parsing")),
            "{rename:?}"
        );
        assert!(checked.tree.problems.iter().all(|p| map.find(&p.node).is_some()), "problems named by id");
        for suggestion in &checked.suggestions {
            assert!(fits(&map, &suggestion.edits), "{suggestion:?}");
        }
    }

    #[test]
    fn a_split_moves_the_smaller_group_under_a_new_name_and_small_leaves_do_not_split() {
        let mut map = MapNode::new("x0 topic".into(), String::new(), 1.0);
        map.id = "root".into();
        map.subtopics = vec![
            leaf(
                "t1",
                "x1 vision",
                &["x1 x2 boxes p1", "x1 x2 boxes p2", "x1 x2 boxes p3", "x1 x3 mask p4", "x1 x3 mask p5"],
            ),
            leaf("t2", "x4 language", &["x4 p6"]),
        ];
        let mut all = Vec::new();
        texts(&map, &mut all);
        let vectors = axes(&all);
        let embed = |texts: &[String]| {
            let v = axes(texts);
            texts.iter().map(|t| v[t].clone()).collect()
        };
        let namer = Namer { map: &map, vectors: &vectors, embed: &embed };
        let split = namer.split(&map.subtopics[0]).unwrap();
        let Change::Split { node, papers, name } = &split.edits[0] else { panic!("{split:?}") };
        assert_eq!(
            (node.as_str(), papers.as_slice()),
            ("t1", &["id x1 x3 mask p4".to_string(), "id x1 x3 mask p5".into()][..])
        );
        assert!(name.to_lowercase().contains("mask"), "{name}");
        assert!(namer.split(&map.subtopics[1]).is_none());
    }
}
