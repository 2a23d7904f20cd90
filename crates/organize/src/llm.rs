//! Knowledge Navigator's LLM stage on top of a clustered map: the Cluster Reader names, describes
//! and filters every subtopic (one call each), then the Thematic Organizer groups the kept
//! subtopics into themes (one call). The offline map supplies the clusters; the LLM replaces its
//! names and its theme grouping. A subtopic whose answer stays invalid after the repair keeps its
//! offline name, and the trace says why; a network failure stops the run with the endpoint's error.

use crate::{MapNode, assign_ids};
use litnav_llm::navigator::{self, ClusterReading};
use litnav_llm::prompts::PaperText;
use litnav_llm::{Client, Error, Usage};
use serde::Serialize;

/// What the LLM stage did, for audit.
#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    /// Per subtopic, in map order.
    pub subtopics: Vec<SubtopicTrace>,
    /// The Thematic Organizer repaired its first answer.
    pub themes_repaired: bool,
    /// litnav had to fix the theme partition itself: why.
    pub themes_fixed_by_litnav: Option<String>,
    /// The Thematic Organizer's answer was unusable even after the repair (the subtopics stay
    /// ungrouped): why.
    pub themes_error: Option<String>,
    /// Calls, cache hits and tokens.
    pub usage: Usage,
}

/// One subtopic's reading.
#[derive(Debug, Clone, Serialize)]
pub struct SubtopicTrace {
    /// The offline name the cluster had.
    pub offline_name: String,
    /// The Cluster Reader's answer, when valid.
    pub reading: Option<ClusterReading>,
    /// The answer needed the repair round-trip.
    pub repaired: bool,
    /// Why the offline name was kept, when it was.
    pub error: Option<String>,
}

/// Rename, filter and regroup the subtopics of `map` (an `organize` result) with the LLM. At most
/// `papers_per_cluster` papers (the most central first, as the map lists them) are shown per call.
pub fn refine(
    map: MapNode,
    topic: &str,
    client: &Client,
    papers_per_cluster: usize,
) -> Result<(MapNode, Trace), Error> {
    let mut root = map;
    let (mut leaves, mut filtered) = take_leaves(&mut root);
    // One Cluster Reader call per subtopic, in parallel up to the client's concurrency limit.
    let readings: Vec<Result<litnav_llm::structured::Answer<ClusterReading>, Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = leaves
            .iter()
            .map(|leaf| {
                let papers: Vec<PaperText<'_>> = leaf
                    .papers
                    .iter()
                    .zip(leaf.abstracts.iter().map(Option::as_deref).chain(std::iter::repeat(None)))
                    .take(papers_per_cluster.max(1))
                    .map(|(title, abstract_text)| PaperText { title, abstract_text })
                    .collect();
                scope.spawn(move || navigator::read_cluster(client, topic, &papers))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Config("a Cluster Reader thread panicked".into()))))
            .collect()
    });
    let mut traces = Vec::new();
    let mut kept = Vec::new();
    for (mut leaf, reading) in leaves.drain(..).zip(readings) {
        let offline_name = leaf.name.clone();
        match reading {
            Ok(answer) => {
                let reading = answer.value;
                leaf.name = reading.name.trim().to_string();
                leaf.description = format!("{} (relatedness {}/5)", reading.description.trim(), reading.relatedness);
                let related = reading.related;
                traces.push(SubtopicTrace {
                    offline_name,
                    reading: Some(reading),
                    repaired: answer.repaired,
                    error: None,
                });
                if related {
                    kept.push(leaf);
                } else {
                    leaf.filtered = true;
                    leaf.description.push_str(" Filtered by the Cluster Reader: not related to the topic.");
                    filtered.push(leaf);
                }
            }
            Err(e @ Error::Invalid { .. }) => {
                traces.push(SubtopicTrace { offline_name, reading: None, repaired: true, error: Some(e.to_string()) });
                kept.push(leaf);
            }
            Err(e) => return Err(e),
        }
    }
    let listing: Vec<(String, String)> = kept.iter().map(|n| (n.name.clone(), n.description.clone())).collect();
    let themes = if kept.len() >= 4 { Some(navigator::organize_themes(client, topic, &listing)) } else { None };
    let mut themes_error = None;
    let (themes_repaired, themes_fixed_by_litnav) = match themes {
        Some(Err(e @ Error::Invalid { .. })) => {
            themes_error = Some(e.to_string());
            root.subtopics = kept;
            (true, None)
        }
        Some(Err(e)) => return Err(e),
        // One theme holding everything adds a level and no information: keep the subtopics flat.
        Some(Ok(themes)) if themes.themes.len() < 2 => {
            root.subtopics = kept;
            (themes.repaired, themes.fixed_by_litnav)
        }
        None => {
            root.subtopics = kept;
            (false, None)
        }
        Some(Ok(themes)) => {
            let mut slots: Vec<Option<MapNode>> = kept.into_iter().map(Some).collect();
            root.subtopics = themes
                .themes
                .iter()
                .map(|theme| {
                    let children: Vec<MapNode> = theme.subtopics.iter().filter_map(|&i| slots[i].take()).collect();
                    let mut node = MapNode::new(
                        theme.name.clone(),
                        format!(
                            "Theme of {}.",
                            children.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join("; ")
                        ),
                        children.iter().map(|c| c.relevance).fold(0.0, f64::max),
                    );
                    node.subtopics = children;
                    node
                })
                .collect();
            (themes.repaired, themes.fixed_by_litnav)
        }
    };
    if !filtered.is_empty() {
        let count: usize = filtered.iter().map(|n| n.paper_ids.len()).sum();
        let mut bucket = MapNode::new(
            "Filtered: unrelated to the topic".into(),
            format!("{count} paper(s) in subtopics judged unrelated to the topic; kept for inspection."),
            0.0,
        );
        bucket.filtered = true;
        bucket.subtopics = filtered;
        root.subtopics.push(bucket);
    }
    assign_ids(&mut root.subtopics, "");
    let trace =
        Trace { subtopics: traces, themes_repaired, themes_fixed_by_litnav, themes_error, usage: client.usage() };
    Ok((root, trace))
}

/// Every subtopic holding papers, in map order, split into (kept, already filtered); the root is
/// left with no children.
fn take_leaves(root: &mut MapNode) -> (Vec<MapNode>, Vec<MapNode>) {
    let (mut kept, mut filtered) = (Vec::new(), Vec::new());
    let mut stack: Vec<MapNode> = std::mem::take(&mut root.subtopics).into_iter().rev().collect();
    while let Some(mut node) = stack.pop() {
        if node.subtopics.is_empty() {
            if node.filtered { filtered.push(node) } else { kept.push(node) }
        } else {
            stack.extend(std::mem::take(&mut node.subtopics).into_iter().rev());
        }
    }
    (kept, filtered)
}
