//! How many of a topic's papers a map keeps, measured against expert reference lists. For every
//! litbench topic the survey's title is the topic: its top-k papers are retrieved as `litnav map`
//! retrieves them, the score floor keeps those whose relevance over their nearest hits reaches a
//! share of the best, the kept papers are organized, and the subtopics below a relevance
//! threshold are filtered. A survey's references are the relevant papers; for each setting the
//! benchmark reports how many papers the map keeps, what share of them are relevant (precision)
//! and what share of the relevant papers retrieval brought in the map keeps (recall). Floor 0 and
//! threshold 0 keep everything: retrieval alone. A leave-one-out row chooses the setting on 18
//! topics and scores it on the 19th.

use crate::Result;
use crate::organize::{read_json_lines, strings};
use litnav_app::maps::MAP_FLOOR;
use litnav_organize::{Doc, MapNode, Options, organize};
use litnav_search::ScoreFloor;
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

/// One way of choosing a map's papers: a score floor over a neighbourhood, then a subtopic
/// filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Setting {
    /// Nearest hits the floor's judging pass averages over (0 with floor 0, which judges none).
    pub neighbours: usize,
    /// The score floor's share of the best (0: every retrieved paper).
    pub floor: f32,
    /// Minimum subtopic relevance.
    pub threshold: f64,
}

impl Setting {
    /// The score floor of this setting, keeping at least [`MAP_FLOOR`]'s count.
    fn score_floor(&self) -> ScoreFloor {
        ScoreFloor { share: self.floor, neighbours: self.neighbours, ..MAP_FLOOR }
    }
}

/// Every setting, in the order the benchmark measures them: each floor over each neighbourhood
/// (floor 0 once: it keeps every paper), each with every threshold.
pub fn settings(neighbours: &[usize], floors: &[f32], thresholds: &[f64]) -> Vec<Setting> {
    let mut floored: Vec<(usize, f32)> = Vec::new();
    for &floor in floors {
        for &n in neighbours {
            let pair = if floor <= 0.0 { (0, 0.0) } else { (n, floor) };
            if !floored.contains(&pair) {
                floored.push(pair);
            }
        }
    }
    floored
        .into_iter()
        .flat_map(|(neighbours, floor)| {
            thresholds.iter().map(move |&threshold| Setting { neighbours, floor, threshold })
        })
        .collect()
}

/// One topic at one setting.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// litbench topic id.
    pub topic: String,
    /// How the papers were chosen.
    #[serde(flatten)]
    pub setting: Setting,
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

/// Organize one topic's papers that passed a score floor (`docs`, of the `retrieved` ids) at each
/// threshold and count what is kept.
pub fn measure(
    topic: &SurveyTopic,
    topic_vector: &[f32],
    retrieved: &[String],
    (floor, docs): (ScoreFloor, &[Doc]),
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    thresholds: &[f64],
    options: Options,
) -> Vec<Cell> {
    let relevant = |id: &String| topic.references.contains(id);
    let retrieved_relevant = retrieved.iter().filter(|id| relevant(id)).count();
    thresholds
        .iter()
        .map(|&threshold| {
            let map =
                organize(&topic.title, topic_vector, docs, embed, Options { min_relevance: threshold, ..options });
            let kept = kept_paper_ids(&map);
            Cell {
                topic: topic.id.clone(),
                setting: Setting { neighbours: floor.neighbours, floor: floor.share, threshold },
                retrieved: retrieved.len(),
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

/// Means over topics at one setting.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The setting (`None` for the leave-one-out row: each topic has its own).
    pub setting: Option<Setting>,
    /// Mean papers kept per topic.
    pub kept: f64,
    /// Mean precision.
    pub precision: f64,
    /// Mean recall.
    pub recall: f64,
}

/// Mean kept count, precision and recall of `cells` (macro-averaged over topics).
fn mean_of(setting: Option<Setting>, cells: &[&Cell]) -> Summary {
    let mean = |f: &dyn Fn(&Cell) -> f64| {
        if cells.is_empty() { 0.0 } else { cells.iter().map(|c| f(c)).sum::<f64>() / cells.len() as f64 }
    };
    Summary { setting, kept: mean(&|c| c.kept as f64), precision: mean(&Cell::precision), recall: mean(&Cell::recall) }
}

/// The cells as a table: one row per setting (in `settings`' order), one column per topic (in
/// the order the cells first name them). A missing cell is an error in the caller's loop.
pub fn table(cells: &[Cell], settings: &[Setting]) -> Result<Vec<Vec<Cell>>> {
    let mut topics: Vec<&str> = Vec::new();
    for cell in cells {
        if !topics.contains(&cell.topic.as_str()) {
            topics.push(&cell.topic);
        }
    }
    settings
        .iter()
        .map(|setting| {
            topics
                .iter()
                .map(|topic| {
                    cells.iter().find(|c| c.topic == *topic && c.setting == *setting).cloned().ok_or_else(|| {
                        crate::Error::internal(format!("map-filter measured no cell for {topic} at {setting:?}"))
                    })
                })
                .collect()
        })
        .collect()
}

/// Means per setting (a row of [`table`]).
pub fn summarize(table: &[Vec<Cell>], settings: &[Setting]) -> Vec<Summary> {
    table.iter().zip(settings).map(|(row, setting)| mean_of(Some(*setting), &row.iter().collect::<Vec<_>>())).collect()
}

/// Recall the leave-one-out choice must keep on the other topics: the goal's.
pub const TARGET_RECALL: f64 = 0.85;

/// The setting with the best mean precision among those whose mean recall is at least
/// [`TARGET_RECALL`] (the best recall when none is); the first of equals.
fn most_precise_at_target_recall(rows: &[Vec<&Cell>]) -> usize {
    let means: Vec<Summary> = rows.iter().map(|row| mean_of(None, row)).collect();
    let better = |key: &dyn Fn(&Summary) -> f64, eligible: &dyn Fn(&Summary) -> bool| {
        (0..means.len()).filter(|&s| eligible(&means[s])).fold(None, |best: Option<usize>, s| match best {
            Some(b) if key(&means[b]) >= key(&means[s]) => Some(b),
            _ => Some(s),
        })
    };
    better(&|m| m.precision, &|m| m.recall >= TARGET_RECALL).or_else(|| better(&|m| m.recall, &|_| true)).unwrap_or(0)
}

/// For each topic, the most precise setting whose mean recall on the other topics reaches
/// [`TARGET_RECALL`] (the best recall when none does), scored on the topic itself.
pub fn leave_one_out(table: &[Vec<Cell>]) -> Vec<Cell> {
    crate::held_out::choices(table, most_precise_at_target_recall)
        .into_iter()
        .enumerate()
        .map(|(topic, chosen)| table[chosen][topic].clone())
        .collect()
}

/// The map-filter benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Papers retrieved per topic.
    pub k: usize,
    /// Papers every floor keeps at least.
    pub at_least: usize,
    /// Means per setting.
    pub summary: Vec<Summary>,
    /// Means of the leave-one-out choices.
    pub held_out: Summary,
    /// Each topic's leave-one-out choice and result.
    pub held_out_topics: Vec<Cell>,
    /// Every topic at every setting.
    pub topics: Vec<Cell>,
}

/// Retrieve each survey topic's top `k` papers from the session's corpus, keep those above each
/// floor over each neighbourhood (each keeping at least [`MAP_FLOOR`]'s count), organize them as
/// `litnav map` does, and measure the subtopic filter at every threshold.
pub fn run(
    workspace: &litnav_app::Workspace,
    session: &litnav_app::CorpusSession,
    litbench: &Path,
    k: usize,
    settings: &[Setting],
) -> Result<Report> {
    let progress = litnav_app::Quiet;
    let encoder = workspace.encoder(&progress)?;
    let embed = |texts: &[String]| encoder.embed(texts);
    let options = Options { seed: workspace.settings().seed, ..Options::default() };
    let mut floors: Vec<ScoreFloor> = Vec::new();
    for setting in settings {
        if !floors.contains(&setting.score_floor()) {
            floors.push(setting.score_floor());
        }
    }
    let thresholds_of = |floor: &ScoreFloor| -> Vec<f64> {
        settings.iter().filter(|s| s.score_floor() == *floor).map(|s| s.threshold).collect()
    };
    let mut cells = Vec::new();
    for topic in &survey_topics(litbench)? {
        let hits = session.retrieve(&topic.title, k, litnav_search::Filter::default(), encoder, &progress)?;
        let retrieved: Vec<String> = hits.iter().map(|hit| hit.id.clone()).collect();
        let topic_vector = encoder.embed(&[topic.title.as_str()]).pop().unwrap_or_default();
        for floor in &floors {
            let kept = session.above_floor(hits.clone(), *floor, encoder, &progress)?;
            let ids: Vec<String> = kept.into_iter().map(|hit| hit.id).collect();
            let docs = session.docs(&ids, encoder, &progress)?;
            let thresholds = thresholds_of(floor);
            cells.extend(measure(topic, &topic_vector, &retrieved, (*floor, &docs), &embed, &thresholds, options));
        }
    }
    let table = table(&cells, settings)?;
    let held_out_topics = leave_one_out(&table);
    let held_out = mean_of(None, &held_out_topics.iter().collect::<Vec<_>>());
    Ok(Report {
        k,
        at_least: MAP_FLOOR.at_least,
        summary: summarize(&table, settings),
        held_out,
        held_out_topics,
        topics: cells,
    })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let topics = self.topics.iter().map(|c| c.topic.as_str()).collect::<HashSet<_>>().len();
        writeln!(f, "{topics} litbench topics, top {} papers each; relevant = the survey's references", self.k)?;
        writeln!(f, "floor: share of the best neighbourhood relevance (at least {} papers kept)", self.at_least)?;
        writeln!(
            f,
            "{:>5}  {:>10}  {:>9}  {:>11}  {:>9}  {:>6}",
            "floor", "neighbours", "threshold", "kept papers", "precision", "recall"
        )?;
        for row in &self.summary {
            let Some(setting) = row.setting else { continue };
            writeln!(
                f,
                "{:>5.2}  {:>10}  {:>9.2}  {:>11.1}  {:>9.3}  {:>6.3}",
                setting.floor, setting.neighbours, setting.threshold, row.kept, row.precision, row.recall
            )?;
        }
        let chosen: Vec<String> = self
            .held_out_topics
            .iter()
            .map(|c| format!("{}: {:.2}/{}/{:.2}", c.topic, c.setting.floor, c.setting.neighbours, c.setting.threshold))
            .collect();
        writeln!(
            f,
            "leave-one-out (best precision at recall >= {TARGET_RECALL} on the other topics): kept {:.1}, precision {:.3}, recall {:.3}",
            self.held_out.kept, self.held_out.precision, self.held_out.recall
        )?;
        writeln!(f, "  chosen floor/neighbours/threshold per topic: {}", chosen.join(", "))
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
        let retrieved: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
        let cells =
            measure(&topic, &unit([1.0, 0.0]), &retrieved, (ScoreFloor::NONE, &docs), &embed, &[0.0, 0.5], options);
        assert_eq!((cells[0].kept, cells[0].kept_relevant, cells[0].retrieved_relevant), (12, 5, 5));
        assert_eq!((cells[0].precision(), cells[0].recall()), (5.0 / 12.0, 1.0));
        assert_eq!((cells[1].kept, cells[1].kept_relevant), (6, 4));
        assert_eq!((cells[1].precision(), cells[1].recall()), (4.0 / 6.0, 0.8));
        let settings = settings(&[8], &[0.0], &[0.0, 0.5]);
        let summary = summarize(&table(&cells, &settings).unwrap(), &settings);
        assert_eq!(summary[1].kept, 6.0);
        assert!(summary.iter().all(|s| (0.0..=1.0).contains(&s.precision) && (0.0..=1.0).contains(&s.recall)));
    }

    fn cell(topic: &str, floor: f32, kept: usize, kept_relevant: usize) -> Cell {
        let setting = Setting { neighbours: 8, floor, threshold: 0.0 };
        Cell { topic: topic.into(), setting, retrieved: 10, retrieved_relevant: 4, kept, kept_relevant }
    }

    #[test]
    fn leave_one_out_picks_the_most_precise_setting_that_keeps_recall_on_the_others() {
        // Floor 0.5 is precise everywhere but loses recall on b and c; floor 0.3 keeps it.
        let cells = vec![
            cell("a", 0.3, 6, 4),
            cell("a", 0.5, 4, 4),
            cell("b", 0.3, 6, 4),
            cell("b", 0.5, 2, 2),
            cell("c", 0.3, 5, 4),
            cell("c", 0.5, 2, 2),
        ];
        let settings = settings(&[8], &[0.3, 0.5], &[0.0]);
        let chosen = leave_one_out(&table(&cells, &settings).unwrap());
        let floors: Vec<(&str, f32)> = chosen.iter().map(|c| (c.topic.as_str(), c.setting.floor)).collect();
        // Held out a: b and c at 0.5 keep half their relevant papers, so 0.3 is chosen, and so on.
        assert_eq!(floors, [("a", 0.3), ("b", 0.3), ("c", 0.3)]);
        let lenient = vec![cell("a", 0.3, 6, 4), cell("a", 0.5, 4, 4), cell("b", 0.3, 6, 4), cell("b", 0.5, 4, 4)];
        let chosen = leave_one_out(&table(&lenient, &settings).unwrap());
        assert!(chosen.iter().all(|c| c.setting.floor == 0.5));
        // A setting the cells lack is an error, not a silently empty mean.
        assert!(table(&lenient, &super::settings(&[8], &[0.4], &[0.0])).is_err());
    }

    #[test]
    fn floor_zero_is_one_setting_whatever_the_neighbourhoods() {
        let all = settings(&[8, 20], &[0.0, 0.3], &[0.0, 0.35]);
        let pairs: Vec<(usize, f32, f64)> = all.iter().map(|s| (s.neighbours, s.floor, s.threshold)).collect();
        assert_eq!(
            pairs,
            [(0, 0.0, 0.0), (0, 0.0, 0.35), (8, 0.3, 0.0), (8, 0.3, 0.35), (20, 0.3, 0.0), (20, 0.3, 0.35)]
        );
    }
}
