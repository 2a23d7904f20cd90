//! Corrections by hand: an edit log (rename a node, move a subtopic, move or remove a paper,
//! merge two siblings, split a node in two) applied to a map, entry by entry. A log that does not
//! fit the map — an unknown node, a paper placed twice, a move that would make a cycle — is refused
//! with the entry that does not fit; the map is never half edited. Node ids stay as they were
//! (permalinks keep pointing at the same nodes); a split's new node gets the next free id beside
//! its sibling.

use litnav_organize::MapNode;
use litnav_session::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// One entry of an edit log: who made which change, when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    /// Who made it (free text; the web page sends the reader's name when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
    /// When (RFC 3339 text, as the face that recorded it wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// The change.
    #[serde(flatten)]
    pub change: Change,
}

/// A change to a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Change {
    /// Give a node a new name.
    Rename {
        /// The node's id.
        node: String,
        /// Its new name.
        name: String,
    },
    /// Move a subtopic (with everything under it) under another node.
    MoveNode {
        /// The subtopic's id.
        node: String,
        /// Its new parent's id (`root` for a theme).
        to: String,
    },
    /// Move a paper from one leaf to another.
    MovePaper {
        /// The paper's corpus id.
        paper: String,
        /// The leaf it is in.
        from: String,
        /// The leaf it goes to.
        to: String,
    },
    /// Take a paper out of a leaf (out of the map when it is nowhere else).
    RemovePaper {
        /// The paper's corpus id.
        paper: String,
        /// The leaf it is in.
        from: String,
    },
    /// Merge a node into its sibling: its papers and subtopics join the sibling, it goes.
    Merge {
        /// The node that goes.
        node: String,
        /// The sibling that takes its content.
        into: String,
    },
    /// Split a leaf in two: the papers named go to a new sibling leaf with the name given.
    Split {
        /// The leaf.
        node: String,
        /// The papers that move to the new leaf (some, not all, of the leaf's).
        papers: Vec<String>,
        /// The new leaf's name.
        name: String,
    },
}

impl Change {
    /// The change's name, as the log writes it.
    pub fn op(&self) -> &'static str {
        match self {
            Change::Rename { .. } => "rename",
            Change::MoveNode { .. } => "move_node",
            Change::MovePaper { .. } => "move_paper",
            Change::RemovePaper { .. } => "remove_paper",
            Change::Merge { .. } => "merge",
            Change::Split { .. } => "split",
        }
    }
}

/// Read an edit log: JSON lines, one edit each (blank lines skipped), or one JSON array. Errors
/// name the file and line.
pub fn read_log(path: &std::path::Path) -> Result<Vec<Edit>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    parse_log(&text, &path.display().to_string())
}

/// An edit log's text (see [`read_log`]); `name` names it in errors.
pub fn parse_log(text: &str, name: &str) -> Result<Vec<Edit>> {
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(text).map_err(|e| Error::input(format!("{name}: not an edit log: {e}")));
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| serde_json::from_str(line).map_err(|e| Error::input(format!("{name}:{}: {e}", i + 1))))
        .collect()
}

/// `map` with every edit of `log` applied in order. The first entry that does not fit stops it:
/// the error names the entry (`edits[3] (merge)`) and why; `map` itself is left as it was.
pub fn apply(map: &MapNode, log: &[Edit]) -> Result<MapNode> {
    let mut edited = map.clone();
    for (i, edit) in log.iter().enumerate() {
        apply_one(&mut edited, &edit.change)
            .map_err(|why| Error::input(format!("edits[{i}] ({}): {why}", edit.change.op())))?;
    }
    let mut before = std::collections::HashMap::new();
    paper_sets(map, &mut before);
    refresh_descriptions(&mut edited, &before);
    Ok(edited)
}

/// Each node's papers (at or below it), sorted, by node id.
fn paper_sets(node: &MapNode, out: &mut std::collections::HashMap<String, Vec<String>>) {
    let mut ids = node.all_paper_ids();
    ids.sort_unstable();
    out.insert(node.id.clone(), ids);
    node.subtopics.iter().for_each(|child| paper_sets(child, out));
}

/// Descriptions that still say what is under each node once the edits have moved papers: a node
/// whose papers changed gets its count again and, when a paper it named as most representative
/// has left, the first two it holds now (a leaf keeps the organizer's order, moved papers last);
/// the key phrases it was described by stay. A node the edits made (a split's part) is described
/// the same way.
fn refresh_descriptions(node: &mut MapNode, before: &std::collections::HashMap<String, Vec<String>>) {
    let mut ids = node.all_paper_ids();
    ids.sort_unstable();
    if before.get(&node.id) != Some(&ids) {
        node.description = redescribe(node, ids.len());
    }
    node.subtopics.iter_mut().for_each(|child| refresh_descriptions(child, before));
}

fn redescribe(node: &MapNode, count: usize) -> String {
    let titles = titles_beneath(node);
    let (head, named) = node.description.split_once(" Most representative: ").unwrap_or((&node.description, ""));
    let still_here = !named.is_empty()
        && named.trim_end_matches('.').split("; ").all(|t| titles.iter().any(|x| t.starts_with(x.as_str())));
    let head = match head.split_once(' ') {
        Some((number, rest)) if number.parse::<usize>().is_ok() => format!("{count} {rest}"),
        _ if head.is_empty() => format!("{count} paper(s), placed by hand."),
        _ => head.to_string(),
    };
    let named = if still_here {
        named.to_string()
    } else {
        format!("{}.", titles.iter().take(2).cloned().collect::<Vec<_>>().join("; "))
    };
    if titles.is_empty() { head } else { format!("{head} Most representative: {named}") }
}

fn titles_beneath(node: &MapNode) -> Vec<String> {
    let mut titles = node.papers.clone();
    node.subtopics.iter().for_each(|child| titles.extend(titles_beneath(child)));
    titles
}

fn apply_one(map: &mut MapNode, change: &Change) -> std::result::Result<(), String> {
    match change {
        Change::Rename { node, name } => {
            if name.trim().is_empty() {
                return Err("a node's name cannot be empty".into());
            }
            node_mut(map, node)?.name = name.trim().to_string();
        }
        Change::MoveNode { node, to } => move_node(map, node, to)?,
        Change::MovePaper { paper, from, to } => {
            if from == to {
                return Err(format!("paper {paper} is already in {to}"));
            }
            let target = node_mut(map, to)?;
            if !target.subtopics.is_empty() {
                return Err(format!("{to} has subtopics: papers go to leaves"));
            }
            if target.paper_ids.iter().any(|p| p == paper) {
                return Err(format!("paper {paper} is already in {to}"));
            }
            let entry = take_paper(node_mut(map, from)?, paper, from)?;
            put_paper(node_mut(map, to)?, entry);
        }
        Change::RemovePaper { paper, from } => {
            take_paper(node_mut(map, from)?, paper, from)?;
        }
        Change::Merge { node, into } => merge(map, node, into)?,
        Change::Split { node, papers, name } => split(map, node, papers, name)?,
    }
    Ok(())
}

fn node_mut<'a>(map: &'a mut MapNode, id: &str) -> std::result::Result<&'a mut MapNode, String> {
    map.find_mut(id).ok_or_else(|| format!("the map has no node {id:?}"))
}

fn move_node(map: &mut MapNode, id: &str, to: &str) -> std::result::Result<(), String> {
    if id == map.id {
        return Err("the root cannot move".into());
    }
    let moving = map.find(id).ok_or_else(|| format!("the map has no node {id:?}"))?;
    if moving.find(to).is_some() {
        return Err(format!("moving {id} under {to} would make a cycle ({to} is {id} or under it)"));
    }
    let target = map.find(to).ok_or_else(|| format!("the map has no node {to:?}"))?;
    if target.subtopics.is_empty() && !target.paper_ids.is_empty() {
        return Err(format!("{to} is a leaf holding papers: a subtopic goes under a node with subtopics"));
    }
    let parent = map.parent_of(id).map(|p| p.id.clone()).ok_or_else(|| format!("the map has no node {id:?}"))?;
    let siblings = &mut node_mut(map, &parent)?.subtopics;
    let at = siblings.iter().position(|c| c.id == id).ok_or_else(|| format!("the map has no node {id:?}"))?;
    let node = siblings.remove(at);
    node_mut(map, to)?.subtopics.push(node);
    Ok(())
}

/// A paper's entries in a node's parallel lists.
struct PaperEntry {
    id: String,
    title: String,
    year: Option<Option<i32>>,
    abstract_text: Option<Option<String>>,
}

fn take_paper(node: &mut MapNode, paper: &str, from: &str) -> std::result::Result<PaperEntry, String> {
    let at = node.paper_ids.iter().position(|p| p == paper).ok_or_else(|| format!("paper {paper} is not in {from}"))?;
    let parallel = |len: usize| len == node.paper_ids.len();
    // Its weight in this node says nothing about the next one.
    if parallel(node.paper_weights.len()) {
        node.paper_weights.remove(at);
    }
    let year = parallel(node.years.len()).then(|| node.years.remove(at));
    let abstract_text = parallel(node.abstracts.len()).then(|| node.abstracts.remove(at));
    let title = if node.papers.len() == node.paper_ids.len() { node.papers.remove(at) } else { String::new() };
    let id = node.paper_ids.remove(at);
    Ok(PaperEntry { id, title, year, abstract_text })
}

fn put_paper(node: &mut MapNode, entry: PaperEntry) {
    let parallel = |len: usize, node: &MapNode| len == node.paper_ids.len();
    if parallel(node.paper_weights.len(), node) {
        // A paper placed by hand belongs where it was put.
        node.paper_weights.push(1.0);
    }
    if parallel(node.years.len(), node) {
        node.years.push(entry.year.flatten());
    }
    if parallel(node.abstracts.len(), node) {
        node.abstracts.push(entry.abstract_text.flatten());
    }
    node.papers.push(entry.title);
    node.paper_ids.push(entry.id);
}

fn merge(map: &mut MapNode, id: &str, into: &str) -> std::result::Result<(), String> {
    if id == into {
        return Err(format!("{id} cannot merge into itself"));
    }
    let parent = map
        .parent_of(id)
        .map(|p| p.id.clone())
        .ok_or_else(|| format!("the map has no node {id:?} (or it is the root)"))?;
    if map.parent_of(into).map(|p| p.id.clone()).as_deref() != Some(parent.as_str()) {
        return Err(format!("{id} and {into} are not siblings"));
    }
    let siblings = &mut node_mut(map, &parent)?.subtopics;
    let at = siblings.iter().position(|c| c.id == id).ok_or_else(|| format!("the map has no node {id:?}"))?;
    let mut gone = siblings.remove(at);
    let target = node_mut(map, into)?;
    if !gone.paper_ids.is_empty() && !target.subtopics.is_empty() {
        return Err(format!("{into} has subtopics: {id}'s papers would sit beside them (merge into a leaf)"));
    }
    if !gone.subtopics.is_empty() && !target.paper_ids.is_empty() {
        return Err(format!("{into} is a leaf holding papers: {id}'s subtopics would sit beside them"));
    }
    while let Some(paper) = gone.paper_ids.first().cloned() {
        let entry = take_paper(&mut gone, &paper, id)?;
        if !target.paper_ids.contains(&entry.id) {
            put_paper(target, entry);
        }
    }
    target.subtopics.append(&mut gone.subtopics);
    Ok(())
}

fn split(map: &mut MapNode, id: &str, papers: &[String], name: &str) -> std::result::Result<(), String> {
    if name.trim().is_empty() {
        return Err("the new node's name cannot be empty".into());
    }
    let parent = map
        .parent_of(id)
        .map(|p| p.id.clone())
        .ok_or_else(|| format!("the map has no node {id:?} (or it is the root)"))?;
    let node = node_mut(map, id)?;
    if !node.subtopics.is_empty() {
        return Err(format!("{id} has subtopics: only a leaf splits"));
    }
    if papers.is_empty() || papers.len() >= node.paper_ids.len() {
        return Err(format!("a split moves some of {id}'s {} papers, not none or all", node.paper_ids.len()));
    }
    let mut part = MapNode::new(name.trim().to_string(), String::new(), node.relevance);
    for paper in papers {
        let entry = take_paper(node, paper, id)?;
        put_paper(&mut part, entry);
    }
    let siblings = &mut node_mut(map, &parent)?.subtopics;
    part.id = free_id(siblings, &parent, id);
    let at = siblings.iter().position(|c| c.id == id).map_or(siblings.len(), |i| i + 1);
    siblings.insert(at, part);
    Ok(())
}

/// The next id beside `sibling` that no node under `parent` has (`t2.s1` → `t2.s7`).
fn free_id(siblings: &[MapNode], parent: &str, sibling: &str) -> String {
    let stem = sibling.rsplit_once('.').map_or_else(
        || sibling.trim_end_matches(char::is_numeric),
        |(_, last)| last.trim_end_matches(char::is_numeric),
    );
    let prefix =
        if parent == "root" || sibling.rsplit_once('.').is_none() { String::new() } else { format!("{parent}.") };
    (1..)
        .map(|n| format!("{prefix}{stem}{n}"))
        .find(|id| !siblings.iter().any(|s| s.id == *id || s.find(id).is_some()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(id: &str, name: &str, papers: &[&str]) -> MapNode {
        let description = format!(
            "{} paper(s) on {}. Most representative: Title of {}.",
            papers.len(),
            name.to_lowercase(),
            papers[0]
        );
        let mut node = MapNode::new(name.into(), description, 0.5);
        node.id = id.into();
        node.paper_ids = papers.iter().map(|p| p.to_string()).collect();
        node.papers = papers.iter().map(|p| format!("Title of {p}")).collect();
        node
    }

    fn map() -> MapNode {
        let mut t1 = MapNode::new("Vision".into(), String::new(), 0.7);
        t1.id = "t1".into();
        t1.subtopics = vec![leaf("t1.s1", "Detection", &["a", "b", "c"]), leaf("t1.s2", "Segmentation", &["d"])];
        let mut t2 = MapNode::new("Language".into(), String::new(), 0.7);
        t2.id = "t2".into();
        t2.subtopics = vec![leaf("t2.s1", "Parsing", &["e", "f"])];
        let mut root = MapNode::new("topic".into(), String::new(), 1.0);
        root.id = "root".into();
        root.subtopics = vec![t1, t2];
        root
    }

    fn edit(change: Change) -> Edit {
        Edit { who: Some("tester".into()), when: None, change }
    }

    #[test]
    fn each_change_does_what_it_says_and_ids_stay() {
        let log = vec![
            edit(Change::Rename { node: "t1.s1".into(), name: "Object Detection".into() }),
            edit(Change::MovePaper { paper: "c".into(), from: "t1.s1".into(), to: "t1.s2".into() }),
            edit(Change::RemovePaper { paper: "f".into(), from: "t2.s1".into() }),
            edit(Change::Split { node: "t1.s1".into(), papers: vec!["b".into()], name: "Tracking".into() }),
            edit(Change::MoveNode { node: "t1.s2".into(), to: "t2".into() }),
            edit(Change::Merge { node: "t2.s1".into(), into: "t1.s2".into() }),
        ];
        let edited = apply(&map(), &log).unwrap();
        let t1 = edited.find("t1").unwrap();
        assert_eq!(t1.subtopics.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Object Detection", "Tracking"]);
        assert_eq!(edited.find("t1.s1").unwrap().paper_ids, ["a"]);
        let tracking = &t1.subtopics[1];
        assert_eq!((tracking.id.as_str(), tracking.paper_ids.as_slice()), ("t1.s3", &["b".to_string()][..]));
        assert_eq!(tracking.papers, ["Title of b"], "the title goes with the id");
        let t2 = edited.find("t2").unwrap();
        assert_eq!(t2.subtopics.len(), 1, "t2.s1 merged into the moved t1.s2");
        assert_eq!(t2.subtopics[0].id, "t1.s2");
        assert_eq!(t2.subtopics[0].paper_ids, ["d", "c", "e"]);
        assert!(edited.find("t2.s1").is_none());
        assert_eq!(
            edited.find("t1.s1").unwrap().description,
            "1 paper(s) on detection. Most representative: Title of a."
        );
        assert_eq!(tracking.description, "1 paper(s), placed by hand. Most representative: Title of b.");
        assert_eq!(
            edited.find("t1.s2").unwrap().description,
            "3 paper(s) on segmentation. Most representative: Title of d.",
            "its own representative stayed"
        );
        let text: String = log.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
        assert_eq!(parse_log(&text, "log").unwrap(), log, "a log reads back as written");
        assert!(text.starts_with(r#"{"who":"tester","op":"rename","node":"t1.s1""#), "{text}");
    }

    #[test]
    fn a_log_that_does_not_fit_is_refused_naming_the_entry_and_the_map_is_untouched() {
        let original = map();
        let refuse = |change: Change, expected: &str| {
            let log = vec![edit(Change::Rename { node: "t1".into(), name: "Seeing".into() }), edit(change)];
            let error = apply(&original, &log).unwrap_err().to_string();
            assert!(error.starts_with("edits[1] (") && error.contains(expected), "{error}");
        };
        refuse(Change::Rename { node: "t9".into(), name: "x".into() }, "no node \"t9\"");
        refuse(Change::MovePaper { paper: "a".into(), from: "t1.s1".into(), to: "t1".into() }, "papers go to leaves");
        refuse(Change::MovePaper { paper: "a".into(), from: "t1.s2".into(), to: "t2.s1".into() }, "not in t1.s2");
        refuse(Change::MoveNode { node: "t1".into(), to: "t1.s1".into() }, "would make a cycle");
        refuse(Change::MoveNode { node: "t1".into(), to: "t1".into() }, "would make a cycle");
        refuse(Change::Merge { node: "t1.s1".into(), into: "t2.s1".into() }, "not siblings");
        refuse(Change::MoveNode { node: "t2.s1".into(), to: "t1.s1".into() }, "a leaf holding papers");
        refuse(Change::Split { node: "t1.s2".into(), papers: vec!["d".into()], name: "x".into() }, "not none or all");
        refuse(Change::Rename { node: "t1.s1".into(), name: "  ".into() }, "cannot be empty");
        assert_eq!(original, map());
        let twice = vec![
            edit(Change::MovePaper { paper: "a".into(), from: "t1.s1".into(), to: "t1.s2".into() }),
            edit(Change::MovePaper { paper: "a".into(), from: "t1.s1".into(), to: "t1.s2".into() }),
        ];
        assert!(
            apply(&original, &twice)
                .unwrap_err()
                .to_string()
                .contains("edits[1] (move_paper): paper a is already in t1.s2")
        );
        let bad =
            parse_log("{\"op\": \"rename\", \"node\": \"t1\", \"name\": \"x\"}\n{\"op\": \"fly\"}\n", "log.jsonl");
        assert!(bad.unwrap_err().to_string().starts_with("log.jsonl:2: "));
    }
}
