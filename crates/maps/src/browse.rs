//! Browsing a map: one node's papers sorted and filtered, the citation graph of a map's papers
//! with positions to draw it, papers per theme per year, why a paper is in the map, and a
//! sub-map grafted where its subtopic was. The server's page asks for these; they are typed
//! results like every other report.

use litnav_corpus::Paper;
use litnav_graph::layout::{LayoutOptions, force_layout};
use litnav_organize::MapNode;
use litnav_session::error::{Error, Result};
use litnav_session::relations::PaperRef;
use litnav_session::session::CorpusSession;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// How a node's papers are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// The map's own order (most central to the subtopic first).
    #[default]
    Map,
    /// Newest first.
    Year,
    /// Most cited first.
    Citations,
    /// By title.
    Title,
}

impl SortBy {
    /// The order with this name (`map`, `year`, `citations`, `title`).
    pub fn parse(name: &str) -> Result<SortBy> {
        match name {
            "map" | "relevance" => Ok(SortBy::Map),
            "year" => Ok(SortBy::Year),
            "citations" => Ok(SortBy::Citations),
            "title" => Ok(SortBy::Title),
            other => Err(Error::input(format!("unknown sort {other:?} (one of map, year, citations, title)"))),
        }
    }
}

/// Which of a node's papers, in which order.
#[derive(Debug, Clone, Default)]
pub struct PaperQuery {
    /// Order.
    pub sort: SortBy,
    /// Earliest year (papers of unknown year are left out when a range is given).
    pub from: Option<i32>,
    /// Latest year.
    pub to: Option<i32>,
    /// Words that must all occur in the title, abstract, authors or venue (case-insensitive).
    pub text: Option<String>,
    /// A venue the paper's venue must contain (case-insensitive).
    pub venue: Option<String>,
    /// Fewest citations (the paper's citation count, else its in-corpus citations).
    pub min_citations: Option<u64>,
    /// Rows skipped.
    pub offset: usize,
    /// Rows returned.
    pub limit: usize,
}

/// A paper in a listing.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Year.
    pub year: Option<i32>,
    /// Venue.
    pub venue: Option<String>,
    /// Authors.
    pub authors: Vec<String>,
    /// Citations (the record's count, else in-corpus citations).
    pub citations: u64,
    /// The node (leaf) of the map the paper is placed in.
    pub node: String,
    /// Its source marks it retracted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
}

/// One page of a node's papers.
#[derive(Debug, Clone, Serialize)]
pub struct PaperPage {
    /// The node.
    pub node: String,
    /// Its name.
    pub name: String,
    /// Papers at or below the node that pass the filters.
    pub total: usize,
    /// The rows asked for.
    pub papers: Vec<Listed>,
}

/// Citations of a paper as listings count them: the record's count when the source gave one,
/// else the papers of the corpus citing it.
pub fn citations(session: &CorpusSession, paper: &Paper) -> Result<u64> {
    if let Some(count) = paper.citation_count {
        return Ok(count);
    }
    let graph = &session.citations()?.graph;
    Ok(graph.find(&paper.id).map_or(0, |n| graph.in_degree(n) as u64))
}

/// The papers at or below `node_id` (each once), filtered, sorted and paged.
pub fn node_papers(session: &CorpusSession, map: &MapNode, node_id: &str, query: &PaperQuery) -> Result<PaperPage> {
    let node = find(map, node_id)?;
    let filter = Filter::new(query);
    let mut listed = Vec::new();
    let mut seen = HashSet::new();
    for (leaf, id) in placements(node) {
        if !seen.insert(id) {
            continue;
        }
        let Some(paper) = session.paper(id)? else { continue };
        let Some(cited) = filter.passes(session, paper)? else { continue };
        listed.push(Listed {
            id: paper.id.clone(),
            title: paper.title.clone(),
            year: paper.year,
            venue: paper.venue.clone(),
            authors: paper.authors.clone(),
            citations: cited,
            node: leaf.to_string(),
            retracted: paper.retracted,
        });
    }
    match query.sort {
        SortBy::Map => {}
        SortBy::Year => listed.sort_by(|a, b| b.year.cmp(&a.year).then_with(|| a.id.cmp(&b.id))),
        SortBy::Citations => listed.sort_by(|a, b| b.citations.cmp(&a.citations).then_with(|| a.id.cmp(&b.id))),
        SortBy::Title => listed.sort_by_key(|a| a.title.to_lowercase()),
    }
    let total = listed.len();
    let papers = listed.into_iter().skip(query.offset).take(query.limit).collect();
    Ok(PaperPage { node: node.id.clone(), name: node.name.clone(), total, papers })
}

/// For every node of the map (the root included), how many of the papers at or below it (each
/// once) pass the query's filters — what a tree shows beside each name while filters are on.
/// Sorting and paging are ignored.
pub fn node_counts(session: &CorpusSession, map: &MapNode, query: &PaperQuery) -> Result<BTreeMap<String, usize>> {
    let filter = Filter::new(query);
    let mut passing = HashSet::new();
    for (_, id) in placements(map) {
        if let Some(paper) = session.paper(id)?
            && filter.passes(session, paper)?.is_some()
        {
            passing.insert(id);
        }
    }
    let mut counts = BTreeMap::new();
    count_below(map, &passing, &mut counts);
    Ok(counts)
}

/// Fill `counts` for `node` and every node below it; returns the passing papers at or below it.
fn count_below<'m>(
    node: &'m MapNode,
    passing: &HashSet<&str>,
    counts: &mut BTreeMap<String, usize>,
) -> HashSet<&'m str> {
    let mut below: HashSet<&str> =
        node.paper_ids.iter().map(String::as_str).filter(|id| passing.contains(id)).collect();
    for child in &node.subtopics {
        below.extend(count_below(child, passing, counts));
    }
    counts.insert(node.id.clone(), below.len());
    below
}

/// A query's filters, prepared once.
struct Filter<'q> {
    query: &'q PaperQuery,
    words: Vec<String>,
    venue: Option<String>,
}

impl<'q> Filter<'q> {
    fn new(query: &'q PaperQuery) -> Filter<'q> {
        let words = query.text.as_deref().unwrap_or("").split_whitespace().map(str::to_lowercase).collect();
        let venue = query.venue.as_deref().map(str::to_lowercase).filter(|v| !v.is_empty());
        Filter { query, words, venue }
    }

    /// The paper's citations when it passes every filter, None when it does not.
    fn passes(&self, session: &CorpusSession, paper: &Paper) -> Result<Option<u64>> {
        let in_range = match (self.query.from, self.query.to) {
            (None, None) => true,
            (from, to) => paper.year.is_some_and(|y| from.is_none_or(|f| y >= f) && to.is_none_or(|t| y <= t)),
        };
        if !in_range || !matches_words(paper, &self.words) {
            return Ok(None);
        }
        if let Some(venue) = &self.venue
            && !paper.venue.as_deref().is_some_and(|v| v.to_lowercase().contains(venue.as_str()))
        {
            return Ok(None);
        }
        let cited = citations(session, paper)?;
        Ok(self.query.min_citations.is_none_or(|min| cited >= min).then_some(cited))
    }
}

fn matches_words(paper: &Paper, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let haystack = format!(
        "{} {} {} {}",
        paper.title,
        paper.abstract_text.as_deref().unwrap_or(""),
        paper.authors.join(" "),
        paper.venue.as_deref().unwrap_or("")
    )
    .to_lowercase();
    words.iter().all(|w| haystack.contains(w.as_str()))
}

fn find<'m>(map: &'m MapNode, node_id: &str) -> Result<&'m MapNode> {
    map.find(node_id).ok_or_else(|| Error::not_found(format!("the map has no node with id {node_id:?}")))
}

/// Every (leaf id, paper id) at or below `node`, in map order.
fn placements(node: &MapNode) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = node.paper_ids.iter().map(|id| (node.id.as_str(), id.as_str())).collect();
    for child in &node.subtopics {
        out.extend(placements(child));
    }
    out
}

/// A theme (top-level node) of a map, as views colour it.
#[derive(Debug, Clone, Serialize)]
pub struct Theme {
    /// Node id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Whether it is the map's "Filtered" branch.
    pub filtered: bool,
}

fn themes(map: &MapNode) -> Vec<Theme> {
    map.subtopics
        .iter()
        .map(|t| Theme { id: t.id.clone(), name: t.name.clone(), filtered: t.filtered || t.id == "filtered" })
        .collect()
}

/// Each paper's theme index (the first theme holding it).
fn theme_of(map: &MapNode) -> HashMap<String, usize> {
    let mut of = HashMap::new();
    for (index, theme) in map.subtopics.iter().enumerate() {
        for id in theme.all_paper_ids() {
            of.entry(id).or_insert(index);
        }
    }
    for id in &map.paper_ids {
        of.entry(id.clone()).or_insert(map.subtopics.len());
    }
    of
}

/// A paper drawn in a citation graph.
#[derive(Debug, Clone, Serialize)]
pub struct GraphNode {
    /// The paper.
    #[serde(flatten)]
    pub paper: PaperRef,
    /// Citations (record count, else in-corpus).
    pub citations: u64,
    /// Index into the themes.
    pub theme: usize,
    /// Position in [-1, 1].
    pub x: f64,
    /// Position in [-1, 1].
    pub y: f64,
}

/// The citation graph among a map's papers, laid out.
#[derive(Debug, Clone, Serialize)]
pub struct MapGraph {
    /// The map's themes (node colours).
    pub themes: Vec<Theme>,
    /// The papers drawn (most cited first).
    pub nodes: Vec<GraphNode>,
    /// What the edges are: `citations`, or — when the papers cite none of each other —
    /// `similarity` (each paper joined to its nearest neighbours by their vectors' cosine).
    pub kind: &'static str,
    /// Why the edges are what they are, when they are not citations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Citations among them (`[citing, cited]`), or similarity links, as indices into `nodes`.
    pub edges: Vec<[usize; 2]>,
    /// The map's papers left out by the cap (the least cited).
    pub omitted: usize,
    /// The seed of the layout.
    pub seed: u64,
}

/// The citation graph of the map's papers: at most `cap` of them (the most cited), edges among
/// those drawn, positions from a seeded force layout in which each theme keeps together — the
/// same map always looks the same.
///
/// Where the drawn papers cite none of each other (a corpus without citations), the graph is their
/// nearest-neighbour similarity graph instead — each paper joined to its [`SIMILAR_NEIGHBOURS`]
/// most similar — labelled as such, so the map's structure still shows.
pub fn citation_graph(
    session: &CorpusSession,
    map: &MapNode,
    cap: usize,
    seed: u64,
    encoder: &litnav_embed::Encoder,
) -> Result<MapGraph> {
    let theme = theme_of(map);
    let graph = &session.citations()?.graph;
    let mut ids: Vec<String> = map.all_paper_ids();
    let mut seen = HashSet::new();
    ids.retain(|id| seen.insert(id.clone()) && graph.find(id).is_some());
    let mut counted: Vec<(u64, String)> = Vec::with_capacity(ids.len());
    for id in ids {
        let cited = session.paper(&id)?.map_or(Ok(0), |p| citations(session, p))?;
        counted.push((cited, id));
    }
    counted.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let omitted = counted.len().saturating_sub(cap);
    counted.truncate(cap);
    let index: HashMap<&str, usize> = counted.iter().enumerate().map(|(i, (_, id))| (id.as_str(), i)).collect();
    let mut edges = Vec::new();
    for (i, (_, id)) in counted.iter().enumerate() {
        let Some(node) = graph.find(id) else { continue };
        for &cited in graph.references(node) {
            if let Some(&j) = index.get(graph.id(cited)) {
                edges.push([i, j]);
            }
        }
    }
    let (kind, note) = if edges.is_empty() && counted.len() > 1 {
        let ids: Vec<String> = counted.iter().map(|(_, id)| id.clone()).collect();
        let vectors: Vec<Vec<f32>> =
            session.docs(&ids, encoder, &litnav_session::Quiet)?.into_iter().map(|d| d.vector).collect();
        edges = nearest_neighbour_links(&vectors, SIMILAR_NEIGHBOURS);
        let note = format!(
            "Similarity graph: these papers cite none of each other in this corpus, so each is joined to its \
             {SIMILAR_NEIGHBOURS} most similar instead.{}",
            if graph.edge_count() == 0 { " A corpus fetched from OpenAlex has the citations." } else { "" }
        );
        ("similarity", Some(note.trim().to_string()))
    } else {
        ("citations", None)
    };
    let groups: Vec<usize> = counted.iter().map(|(_, id)| theme.get(id).copied().unwrap_or(0)).collect();
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e[0], e[1])).collect();
    let positions = force_layout(&groups, &pairs, LayoutOptions { seed, ..LayoutOptions::default() });
    let mut nodes = Vec::with_capacity(counted.len());
    for (((cited, id), group), [x, y]) in counted.iter().zip(&groups).zip(positions) {
        let node = graph.find(id).ok_or_else(|| Error::internal("a drawn paper left the graph"))?;
        nodes.push(GraphNode { paper: session.paper_ref(node)?, citations: *cited, theme: *group, x, y });
    }
    Ok(MapGraph { themes: themes(map), nodes, kind, note, edges, omitted, seed })
}

/// Links a similarity graph draws from each paper to its most similar others.
pub const SIMILAR_NEIGHBOURS: usize = 3;

/// Each vector joined to its `k` nearest others by cosine (unit vectors; ties by index), each link
/// once as `[smaller, larger]`, sorted.
pub fn nearest_neighbour_links(vectors: &[Vec<f32>], k: usize) -> Vec<[usize; 2]> {
    let mut links = std::collections::BTreeSet::new();
    for (i, a) in vectors.iter().enumerate() {
        let mut near: Vec<(f32, usize)> = vectors
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(j, b)| (litnav_core::vector::dot(a, b), j))
            .collect();
        near.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        for &(_, j) in near.iter().take(k) {
            links.insert([i.min(j), i.max(j)]);
        }
    }
    links.into_iter().collect()
}

/// Papers per theme per year.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// The years, oldest first (every year from the first to the last).
    pub years: Vec<i32>,
    /// Per theme, its papers in each year.
    pub themes: Vec<ThemeYears>,
    /// Papers of unknown year.
    pub undated: usize,
}

/// One theme's papers per year.
#[derive(Debug, Clone, Serialize)]
pub struct ThemeYears {
    /// The theme.
    #[serde(flatten)]
    pub theme: Theme,
    /// Papers in each of the timeline's years.
    pub counts: Vec<usize>,
}

/// How many papers each theme has in each year.
pub fn timeline(session: &CorpusSession, map: &MapNode) -> Result<Timeline> {
    let mut per_theme: Vec<BTreeMap<i32, usize>> = vec![BTreeMap::new(); map.subtopics.len()];
    let mut undated = 0;
    for (index, theme) in map.subtopics.iter().enumerate() {
        let mut seen = HashSet::new();
        for id in theme.all_paper_ids() {
            if !seen.insert(id.clone()) {
                continue;
            }
            match session.paper(&id)?.and_then(|p| p.year) {
                Some(year) => *per_theme[index].entry(year).or_default() += 1,
                None => undated += 1,
            }
        }
    }
    let first = per_theme.iter().filter_map(|m| m.keys().next().copied()).min();
    let last = per_theme.iter().filter_map(|m| m.keys().next_back().copied()).max();
    let years: Vec<i32> = match (first, last) {
        (Some(first), Some(last)) => (first..=last).collect(),
        _ => Vec::new(),
    };
    let themes = themes(map)
        .into_iter()
        .zip(per_theme)
        .map(|(theme, counts)| ThemeYears {
            theme,
            counts: years.iter().map(|y| counts.get(y).copied().unwrap_or(0)).collect(),
        })
        .collect();
    Ok(Timeline { years, themes, undated })
}

/// Why a paper is in a map.
#[derive(Debug, Clone, Serialize)]
pub struct Placement {
    /// The paper.
    pub paper: String,
    /// Names from the map's root to the node holding it.
    pub path: Vec<String>,
    /// That node's id.
    pub node: String,
    /// The node's relevance to the topic.
    pub node_relevance: f64,
    /// Whether the node is under the map's "Filtered" branch, with its reason.
    pub filtered_because: Option<String>,
    /// Other subtopics listing it as a secondary member, with the weight.
    pub also_in: Vec<(String, f64)>,
}

/// Where and why `paper` sits in `map`.
pub fn placement(map: &MapNode, paper: &str) -> Result<Placement> {
    let mut trail = Vec::new();
    if !locate(map, paper, &mut trail) {
        return Err(Error::not_found(format!("paper `{paper}` is not in this map")));
    }
    let holder = *trail.last().ok_or_else(|| Error::internal("an empty trail"))?;
    let filtered = trail.iter().find(|n| n.filtered || n.id == "filtered").map(|n| n.description.clone());
    let mut also_in = Vec::new();
    collect_also(map, paper, &mut also_in);
    Ok(Placement {
        paper: paper.to_string(),
        path: trail.iter().map(|n| n.name.clone()).collect(),
        node: holder.id.clone(),
        node_relevance: holder.relevance,
        filtered_because: filtered,
        also_in,
    })
}

fn locate<'m>(node: &'m MapNode, paper: &str, trail: &mut Vec<&'m MapNode>) -> bool {
    trail.push(node);
    if node.paper_ids.iter().any(|id| id == paper) || node.subtopics.iter().any(|c| locate(c, paper, trail)) {
        return true;
    }
    trail.pop();
    false
}

fn collect_also(node: &MapNode, paper: &str, out: &mut Vec<(String, f64)>) {
    if let Some(member) = node.also.iter().find(|m| m.id == paper) {
        out.push((node.id.clone(), member.weight));
    }
    for child in &node.subtopics {
        collect_also(child, paper, out);
    }
}

/// `map` with the node `at` grown into `sub`: the node keeps its id, name and relevance, takes
/// the sub-map's description, and its papers are replaced by the sub-map's subtopics, whose ids
/// are prefixed with the node's (`t2.s1` → `t2.s1.t1.s3`), so every id stays unique.
pub fn graft(map: &MapNode, at: &str, sub: &MapNode) -> Result<MapNode> {
    let mut grafted = map.clone();
    let node = grafted.find_mut(at).ok_or_else(|| Error::not_found(format!("the map has no node {at:?}")))?;
    let mut children = sub.subtopics.clone();
    for child in &mut children {
        prefix_ids(child, at);
    }
    node.description = sub.description.clone();
    node.subtopics = children;
    node.papers = sub.papers.clone();
    node.paper_ids = sub.paper_ids.clone();
    node.paper_weights = sub.paper_weights.clone();
    node.also = sub.also.clone();
    node.years.clear();
    node.abstracts.clear();
    Ok(grafted)
}

fn prefix_ids(node: &mut MapNode, prefix: &str) {
    node.id = format!("{prefix}.{}", node.id);
    for child in &mut node.subtopics {
        prefix_ids(child, prefix);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn node(id: &str, papers: &[&str], children: Vec<MapNode>) -> MapNode {
        let mut n = MapNode::new(id.to_uppercase(), String::new(), 0.5);
        n.id = id.to_string();
        n.paper_ids = papers.iter().map(|p| p.to_string()).collect();
        n.papers = n.paper_ids.clone();
        n.subtopics = children;
        n
    }

    #[test]
    fn graft_prefixes_ids_and_keeps_the_rest() {
        let map = node(
            "root",
            &[],
            vec![node("t1", &[], vec![node("t1.s1", &["a", "b"], vec![])]), node("t2", &["c"], vec![])],
        );
        let sub = node("sub", &[], vec![node("t1", &["a"], vec![]), node("t2", &["b", "d"], vec![])]);
        let grafted = graft(&map, "t1.s1", &sub).unwrap();
        let at = grafted.find("t1.s1").unwrap();
        assert!(at.paper_ids.is_empty());
        assert_eq!(at.subtopics.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["t1.s1.t1", "t1.s1.t2"]);
        assert_eq!(grafted.all_paper_ids(), ["a", "b", "d", "c"]);
        assert!(graft(&map, "t9", &sub).is_err());
    }

    #[test]
    fn placement_names_the_path_and_the_filter() {
        let mut filtered = node("filtered", &[], vec![node("filtered.s1", &["z"], vec![])]);
        filtered.filtered = true;
        filtered.description = "below the relevance floor".into();
        let map = node("root", &[], vec![node("t1", &["a"], vec![]), filtered]);
        let a = placement(&map, "a").unwrap();
        assert_eq!(a.path, ["ROOT", "T1"]);
        assert_eq!(a.filtered_because, None);
        let z = placement(&map, "z").unwrap();
        assert_eq!(z.node, "filtered.s1");
        assert_eq!(z.filtered_because.as_deref(), Some("below the relevance floor"));
        assert!(placement(&map, "nope").is_err());
    }
}
