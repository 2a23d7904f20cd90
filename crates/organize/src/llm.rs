//! Knowledge Navigator's LLM stage on top of a clustered map: the Cluster Reader names, describes
//! and filters every subtopic (one call each), then the Thematic Organizer groups the kept
//! subtopics into themes (one call). The offline map supplies the clusters; the LLM replaces its
//! names and its theme grouping. A subtopic whose answer stays invalid after the repair keeps its
//! offline name, and the trace says why; a network failure stops the run with the endpoint's error.

use crate::{MapNode, assign_ids, distinct_names};
use litnav_core::PaperText;
use litnav_llm::navigator::{self, ClusterReading};
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
    let (leaves, mut filtered) = take_leaves(&mut root);
    let readings = read_clusters(&leaves, topic, client, papers_per_cluster);
    // Offline names by each subtopic's first paper: they tell apart subtopics the LLM named alike.
    let offline_names: std::collections::HashMap<String, String> =
        leaves.iter().filter_map(|leaf| Some((leaf.paper_ids.first()?.clone(), leaf.name.clone()))).collect();
    let mut traces = Vec::new();
    let mut kept = Vec::new();
    for (leaf, reading) in leaves.into_iter().zip(readings) {
        let (leaf, trace) = apply_reading(leaf, reading)?;
        traces.push(trace);
        if leaf.filtered { filtered.push(leaf) } else { kept.push(leaf) }
    }
    let grouped = group_into_themes(kept, topic, client)?;
    root.subtopics = grouped.nodes;
    if let Some(bucket) = filtered_bucket(filtered) {
        root.subtopics.push(bucket);
    }
    distinct_names(&mut root, &|node| {
        let offline = offline_names.get(node.paper_ids.first()?)?;
        (!offline.eq_ignore_ascii_case(&node.name)).then(|| offline.clone())
    });
    for theme in root.subtopics.iter_mut().filter(|n| !n.filtered && !n.subtopics.is_empty()) {
        let names: Vec<&str> = theme.subtopics.iter().map(|c| c.name.as_str()).collect();
        theme.description = format!("Theme of {}.", names.join("; "));
    }
    assign_ids(&mut root.subtopics, "");
    let trace = Trace {
        subtopics: traces,
        themes_repaired: grouped.repaired,
        themes_fixed_by_litnav: grouped.fixed_by_litnav,
        themes_error: grouped.error,
        usage: client.usage(),
    };
    Ok((root, trace))
}

type Reading = Result<litnav_llm::structured::Answer<ClusterReading>, Error>;

/// One Cluster Reader call per subtopic, in parallel up to the client's concurrency limit.
fn read_clusters(leaves: &[MapNode], topic: &str, client: &Client, papers_per_cluster: usize) -> Vec<Reading> {
    let read = |leaf: &MapNode| {
        let papers: Vec<PaperText<'_>> = leaf
            .papers
            .iter()
            .zip(leaf.abstracts.iter().map(Option::as_deref).chain(std::iter::repeat(None)))
            .take(papers_per_cluster.max(1))
            .map(|(title, abstract_text)| PaperText { title, abstract_text })
            .collect();
        navigator::read_cluster(client, topic, &papers)
    };
    client
        .map_parallel(leaves, read, |_| false, &|_| {})
        .into_iter()
        .map(|reading| reading.unwrap_or_else(|| Err(Error::Config("a Cluster Reader thread panicked".into()))))
        .collect()
}

/// A subtopic renamed and described by its reading (and marked filtered when the reader judged it
/// unrelated), or kept as it was when the answer stayed invalid; a failing endpoint is an error.
fn apply_reading(mut leaf: MapNode, reading: Reading) -> Result<(MapNode, SubtopicTrace), Error> {
    let offline_name = leaf.name.clone();
    match reading {
        Ok(answer) => {
            let reading = answer.value;
            leaf.name = reading.name.trim().to_string();
            leaf.description = format!("{} (relatedness {}/5)", reading.description.trim(), reading.relatedness);
            if !reading.related {
                leaf.filtered = true;
                leaf.description.push_str(" Filtered by the Cluster Reader: not related to the topic.");
            }
            let trace = SubtopicTrace { offline_name, reading: Some(reading), repaired: answer.repaired, error: None };
            Ok((leaf, trace))
        }
        Err(e @ Error::Invalid { .. }) => {
            Ok((leaf, SubtopicTrace { offline_name, reading: None, repaired: true, error: Some(e.to_string()) }))
        }
        Err(e) => Err(e),
    }
}

/// The kept subtopics under the Thematic Organizer's themes, and how that went.
struct Grouped {
    nodes: Vec<MapNode>,
    repaired: bool,
    fixed_by_litnav: Option<String>,
    error: Option<String>,
}

/// Group the kept subtopics into themes (four or more subtopics; otherwise, or when the answer is
/// unusable or one theme would hold everything, they stay flat). A theme of one subtopic is
/// replaced by the subtopic.
fn group_into_themes(kept: Vec<MapNode>, topic: &str, client: &Client) -> Result<Grouped, Error> {
    let flat = |nodes, repaired, fixed_by_litnav, error| Grouped { nodes, repaired, fixed_by_litnav, error };
    if kept.len() < 4 {
        return Ok(flat(kept, false, None, None));
    }
    let listing: Vec<(String, String)> = kept.iter().map(|n| (n.name.clone(), n.description.clone())).collect();
    let themes = match navigator::organize_themes(client, topic, &listing) {
        Ok(themes) => themes,
        Err(e @ Error::Invalid { .. }) => return Ok(flat(kept, true, None, Some(e.to_string()))),
        Err(e) => return Err(e),
    };
    // One theme holding everything adds a level and no information.
    if themes.themes.len() < 2 {
        return Ok(flat(kept, themes.repaired, themes.fixed_by_litnav, None));
    }
    let mut slots: Vec<Option<MapNode>> = kept.into_iter().map(Some).collect();
    let nodes = themes
        .themes
        .iter()
        .filter_map(|theme| {
            let mut children: Vec<MapNode> = theme.subtopics.iter().filter_map(|&i| slots[i].take()).collect();
            if children.len() < 2 {
                return children.pop();
            }
            // Described once the names are final.
            let relevance = children.iter().map(|c| c.relevance).fold(0.0, f64::max);
            let mut node = MapNode::new(theme.name.clone(), String::new(), relevance);
            node.subtopics = children;
            Some(node)
        })
        .collect();
    Ok(flat(nodes, themes.repaired, themes.fixed_by_litnav, None))
}

/// The map's last node, holding the subtopics judged unrelated (none when there are none).
fn filtered_bucket(filtered: Vec<MapNode>) -> Option<MapNode> {
    if filtered.is_empty() {
        return None;
    }
    let count: usize = filtered.iter().map(|n| n.paper_ids.len()).sum();
    let mut bucket = MapNode::new(
        "Filtered: unrelated to the topic".into(),
        format!("{count} paper(s) in subtopics judged unrelated to the topic; kept for inspection."),
        0.0,
    );
    bucket.filtered = true;
    bucket.subtopics = filtered;
    Some(bucket)
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use litnav_llm::Config;
    use litnav_llm::fake::{self, Behaviour};
    use serde_json::{Value, json};

    fn leaf(name: &str, first_paper: usize, papers: usize) -> MapNode {
        let mut node = MapNode::new(name.into(), format!("Offline description of {name}."), 0.5);
        for i in first_paper..first_paper + papers {
            node.papers.push(format!("Paper {i}"));
            node.paper_ids.push(format!("p{i}"));
            node.years.push(None);
            node.abstracts.push(None);
        }
        node
    }

    /// Five subtopics the fake model reads: "Paper 0…" and "Paper 2…" both become "Confidence
    /// Estimation", "Paper 6…" is unrelated; the Thematic Organizer makes two themes of the four
    /// kept, the second of a single subtopic.
    fn answer(request: &Value) -> Behaviour {
        let task = request["response_format"]["json_schema"]["name"].as_str().unwrap_or("");
        let prompt = request["messages"][1]["content"].as_str().unwrap_or("");
        let reading = |name: &str, related: bool| {
            let relatedness = if related { 4 } else { 1 };
            json!({"description": "What these papers do.", "name": name, "relatedness": relatedness, "related": related})
                .to_string()
        };
        Behaviour::Answer(match task {
            "cluster_reader" if prompt.contains("Paper 6") => reading("Protein Folding", false),
            "cluster_reader" if prompt.contains("Paper 4") => reading("Semantic Entropy", true),
            "cluster_reader" if prompt.contains("Paper 8") => reading("Sampling Consistency", true),
            "cluster_reader" => reading("Confidence Estimation", true),
            _ => json!({"themes": [{"name": "Estimating Confidence", "subtopics": [1, 2, 4]},
                                   {"name": "Semantic Entropy", "subtopics": [3]}]})
            .to_string(),
        })
    }

    #[test]
    fn the_llm_stage_renames_filters_regroups_and_keeps_names_distinct() {
        let server = fake::serve_with(|_, request| answer(request)).unwrap();
        let client = Client::new(Config { base_url: server.url.clone(), ..Config::default() });
        let mut root = MapNode::new("uncertainty quantification".into(), String::new(), 1.0);
        root.subtopics = vec![leaf("Verbalized Confidence", 0, 2), leaf("Token Probabilities", 2, 2)];
        root.subtopics.push(leaf("Meaning Clusters", 4, 2));
        root.subtopics.push(leaf("Folding", 6, 2));
        root.subtopics.push(leaf("Resampling", 8, 2));
        let (map, trace) = refine(root, "uncertainty quantification", &client, 12).unwrap();

        let names: Vec<(&str, &str)> = map.subtopics.iter().map(|n| (n.id.as_str(), n.name.as_str())).collect();
        assert_eq!(
            names,
            [("t1", "Estimating Confidence"), ("t2", "Semantic Entropy"), ("t3", "Filtered: unrelated to the topic")]
        );
        let first_theme: Vec<&str> = map.subtopics[0].subtopics.iter().map(|n| n.name.as_str()).collect();
        // The second "Confidence Estimation" is told apart by its offline name.
        assert_eq!(
            first_theme,
            ["Confidence Estimation", "Confidence Estimation (Token Probabilities)", "Sampling Consistency"]
        );
        // A theme of one subtopic is replaced by it.
        assert!(map.subtopics[1].subtopics.is_empty());
        assert_eq!(
            map.subtopics[0].description,
            "Theme of Confidence Estimation; Confidence Estimation (Token Probabilities); Sampling Consistency."
        );
        assert!(map.subtopics[2].subtopics[0].filtered);
        assert_eq!(map.subtopics[2].subtopics[0].name, "Protein Folding");
        let mut ids = map.all_paper_ids();
        ids.sort();
        assert_eq!(ids, (0..10).map(|i| format!("p{i}")).collect::<Vec<_>>());
        assert_eq!(trace.subtopics.len(), 5);
        assert_eq!(trace.usage.calls, 6);
    }

    #[test]
    fn unreadable_readings_keep_each_subtopics_offline_name_and_say_why() {
        // Every Cluster Reader answer is prose, its repair too; the Thematic Organizer's as above.
        let server = fake::serve_with(|_, request| {
            match request["response_format"]["json_schema"]["name"].as_str().unwrap_or("") {
                "cluster_reader" => Behaviour::Answer("These papers are about many things.".into()),
                _ => answer(request),
            }
        })
        .unwrap();
        let client = Client::new(Config { base_url: server.url.clone(), ..Config::default() });
        let mut root = MapNode::new("uncertainty quantification".into(), String::new(), 1.0);
        root.subtopics = vec![leaf("Verbalized Confidence", 0, 2), leaf("Token Probabilities", 2, 2)];
        let (map, trace) = refine(root, "uncertainty quantification", &client, 12).unwrap();
        assert_eq!(trace.subtopics.len(), 2);
        for subtopic in &trace.subtopics {
            assert!(subtopic.reading.is_none(), "{subtopic:?}");
            assert!(subtopic.error.as_deref().is_some_and(|e| !e.is_empty()), "{subtopic:?}");
        }
        let mut names: Vec<String> = Vec::new();
        let mut stack: Vec<&MapNode> = map.subtopics.iter().collect();
        while let Some(node) = stack.pop() {
            if node.subtopics.is_empty() {
                names.push(node.name.clone());
            }
            stack.extend(&node.subtopics);
        }
        names.sort();
        assert_eq!(names, ["Token Probabilities", "Verbalized Confidence"]);
    }

    #[test]
    fn distinct_names_falls_back_to_the_parent_then_a_number() {
        let mut root = MapNode::new("Topic".into(), String::new(), 1.0);
        let mut theme = MapNode::new("Calibration".into(), String::new(), 1.0);
        theme.subtopics = vec![leaf("Methods", 0, 1), leaf("Methods", 1, 1), leaf("topic", 2, 1)];
        let mut other = MapNode::new("Methods".into(), String::new(), 1.0);
        other.subtopics = vec![leaf("Calibration", 3, 1)];
        root.subtopics = vec![theme, other];
        distinct_names(&mut root, &|_| None);
        let names: Vec<String> = root
            .subtopics
            .iter()
            .flat_map(|t| std::iter::once(t.name.clone()).chain(t.subtopics.iter().map(|s| s.name.clone())))
            .collect();
        assert_eq!(
            names,
            [
                "Calibration",
                "Methods",
                "Methods (Calibration)",
                "topic (Calibration)",
                "Methods (2)",
                "Calibration (Methods (2))"
            ]
        );
    }
}
