//! The map's relevance filter, measured against expert reference lists. For every litbench topic
//! the survey's title is the topic: its top-k papers are retrieved as `litnav map` retrieves them,
//! organized, and the subtopics below a relevance threshold are filtered. A survey's references
//! are the relevant papers; at each threshold the benchmark reports how many papers the map keeps,
//! what share of them are relevant (precision) and what share of the relevant papers retrieval
//! brought in the map keeps (recall). Threshold 0 keeps everything: retrieval alone.

use crate::Result;
use crate::organize::{read_json_lines, strings};
use litnav_organize::{Doc, MapNode, Options, organize};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

/// A litbench topic: its survey's title and the ids of the papers the survey cites.
#[derive(Debug, Clone)]
pub struct SurveyTopic {
    /// litbench topic id.
    pub id: String,
    /// The survey's title: the topic.
    pub title: String,
    /// Corpus ids of the survey's references.
    pub references: HashSet<String>,
}

/// Every topic of litbench's `topics.jsonl`.
pub fn survey_topics(litbench: &Path) -> Result<Vec<SurveyTopic>> {
    Ok(read_json_lines(&litbench.join("topics.jsonl"))?
        .iter()
        .map(|topic| SurveyTopic {
            id: topic["topic_id"].as_str().unwrap_or_default().to_string(),
            title: topic["title"].as_str().unwrap_or_default().to_string(),
            references: strings(&topic["reference_ids"]).into_iter().collect(),
        })
        .collect())
}

/// One topic at one threshold.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// litbench topic id.
    pub topic: String,
    /// Minimum subtopic relevance.
    pub threshold: f64,
    /// Papers retrieved.
    pub retrieved: usize,
    /// Relevant papers among them.
    pub retrieved_relevant: usize,
    /// Papers the map keeps (outside the "Filtered" node).
    pub kept: usize,
    /// Relevant papers among them.
    pub kept_relevant: usize,
}

impl Cell {
    /// Share of the kept papers that are relevant (0 when none is kept).
    pub fn precision(&self) -> f64 {
        ratio(self.kept_relevant, self.kept)
    }

    /// Share of the retrieved relevant papers that are kept (1 when none was retrieved).
    pub fn recall(&self) -> f64 {
        if self.retrieved_relevant == 0 { 1.0 } else { ratio(self.kept_relevant, self.retrieved_relevant) }
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// Organize one topic's retrieved papers at each threshold and count what is kept.
pub fn measure(
    topic: &SurveyTopic,
    topic_vector: &[f32],
    docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    thresholds: &[f64],
    options: Options,
) -> Vec<Cell> {
    let relevant = |id: &String| topic.references.contains(id);
    let retrieved_relevant = docs.iter().filter(|d| relevant(&d.id)).count();
    thresholds
        .iter()
        .map(|&threshold| {
            let map =
                organize(&topic.title, topic_vector, docs, embed, Options { min_relevance: threshold, ..options });
            let kept = kept_paper_ids(&map);
            Cell {
                topic: topic.id.clone(),
                threshold,
                retrieved: docs.len(),
                retrieved_relevant,
                kept: kept.len(),
                kept_relevant: kept.iter().filter(|id| relevant(id)).count(),
            }
        })
        .collect()
}

/// Ids of the papers a map shows outside its "Filtered" node.
fn kept_paper_ids(map: &MapNode) -> Vec<String> {
    map.subtopics.iter().filter(|node| !node.filtered).flat_map(MapNode::all_paper_ids).collect()
}

/// Means over topics at one threshold.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Minimum subtopic relevance.
    pub threshold: f64,
    /// Mean papers kept per topic.
    pub kept: f64,
    /// Mean precision.
    pub precision: f64,
    /// Mean recall.
    pub recall: f64,
}

/// Mean kept count, precision and recall per threshold (macro-averaged over topics), in the order
/// of `thresholds`.
pub fn summarize(cells: &[Cell], thresholds: &[f64]) -> Vec<Summary> {
    thresholds
        .iter()
        .map(|&threshold| {
            let at: Vec<&Cell> = cells.iter().filter(|c| c.threshold == threshold).collect();
            let mean = |f: &dyn Fn(&Cell) -> f64| {
                if at.is_empty() { 0.0 } else { at.iter().map(|c| f(c)).sum::<f64>() / at.len() as f64 }
            };
            Summary {
                threshold,
                kept: mean(&|c| c.kept as f64),
                precision: mean(&Cell::precision),
                recall: mean(&Cell::recall),
            }
        })
        .collect()
}

/// The map-filter benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Papers retrieved per topic.
    pub k: usize,
    /// Means per threshold.
    pub summary: Vec<Summary>,
    /// Every topic at every threshold.
    pub topics: Vec<Cell>,
}

/// Retrieve each survey topic's top `k` papers from the session's corpus, organize them as
/// `litnav map` does, and measure the filter at every threshold.
pub fn run(
    workspace: &litnav_app::Workspace,
    session: &litnav_app::CorpusSession,
    litbench: &Path,
    k: usize,
    thresholds: &[f64],
) -> Result<Report> {
    let progress = litnav_app::Quiet;
    let encoder = workspace.encoder(&progress)?;
    let embed = |texts: &[String]| encoder.embed(texts);
    let mut cells = Vec::new();
    for topic in &survey_topics(litbench)? {
        let ids = session.retrieve_ids(&topic.title, k, litnav_search::Filter::default(), encoder, &progress)?;
        let docs = session.docs(&ids, encoder, &progress)?;
        let topic_vector = encoder.embed(&[topic.title.as_str()]).pop().unwrap_or_default();
        let options = Options { seed: workspace.settings().seed, ..Options::default() };
        cells.extend(measure(topic, &topic_vector, &docs, &embed, thresholds, options));
    }
    Ok(Report { k, summary: summarize(&cells, thresholds), topics: cells })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let topics = self.topics.iter().map(|c| c.topic.as_str()).collect::<std::collections::HashSet<_>>().len();
        writeln!(f, "{topics} litbench topics, top {} papers each; relevant = the survey's references", self.k)?;
        writeln!(f, "{:>9}  {:>11}  {:>9}  {:>6}", "threshold", "kept papers", "precision", "recall")?;
        for row in &self.summary {
            writeln!(f, "{:>9.2}  {:>11.1}  {:>9.3}  {:>6.3}", row.threshold, row.kept, row.precision, row.recall)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::organize::tests::unit;

    #[test]
    fn a_far_cluster_is_filtered_and_counted_out() {
        // Six papers near the topic (four of them references), six far from it (one reference).
        let docs: Vec<Doc> = (0..12)
            .map(|i| Doc {
                id: format!("p{i}"),
                title: if i < 6 { format!("graph networks study {i}") } else { format!("protein folding study {i}") },
                year: None,
                abstract_text: None,
                vector: if i < 6 { unit([1.0, 0.01 * i as f32]) } else { unit([0.01 * i as f32, 1.0]) },
            })
            .collect();
        let topic = SurveyTopic {
            id: "t".into(),
            title: "graph networks".into(),
            references: ["p0", "p1", "p2", "p3", "p7"].iter().map(|s| s.to_string()).collect(),
        };
        let embed = |texts: &[String]| texts.iter().map(|_| unit([1.0, 0.0])).collect::<Vec<_>>();
        let options = Options { themes: false, ..Options::default() };
        let cells = measure(&topic, &unit([1.0, 0.0]), &docs, &embed, &[0.0, 0.5], options);
        assert_eq!((cells[0].kept, cells[0].kept_relevant, cells[0].retrieved_relevant), (12, 5, 5));
        assert_eq!((cells[0].precision(), cells[0].recall()), (5.0 / 12.0, 1.0));
        assert_eq!((cells[1].kept, cells[1].kept_relevant), (6, 4));
        assert_eq!((cells[1].precision(), cells[1].recall()), (4.0 / 6.0, 0.8));
        let summary = summarize(&cells, &[0.0, 0.5]);
        assert_eq!(summary[1].kept, 6.0);
        assert!(summary.iter().all(|s| (0.0..=1.0).contains(&s.precision) && (0.0..=1.0).contains(&s.recall)));
    }
}
