//! TaxoBench end to end, with litnav as the system under test (seed 000 §4):
//! - **Deep-Research mode**: each instance's `survey_topic` is all litnav gets. It retrieves from a
//!   corpus (the litbench corpus holds every TaxoBench paper among ~4,000 others) with the leakage
//!   filter — no surveys, so the expert survey itself never comes back; TaxoBench gives no survey
//!   dates, so no year filter —, maps what it found as `litnav map --topic` does, and answers with
//!   the map minus its "Filtered" branch.
//! - **Bottom-Up mode**: the instance's own papers (title + abstract) are organized, as
//!   `litnav map --papers data.jsonl --instance ID` does.
//!
//! Either way each answer becomes a TaxoBench prediction line (`hierarchy_tree`,
//! `retrieved_papers`), written to a file any scorer can re-score, and is scored with every
//! metric of `litnav eval taxobench`. An instance that cannot be answered (no topic, nothing
//! retrieved, an LLM failure) is reported and the run goes on.

use crate::Result;
use litnav_app::maps::{self, MapRequest, PaperSource};
use litnav_app::score::similarity::Kind;
use litnav_app::score::taxobench::{Pair, Summary, prediction_line, read_instances, score_pairs, summarize};
use litnav_app::{CorpusSession, Progress, Workspace};
use litnav_eval::taxobench::{InstanceScores, Options as Scoring};
use litnav_eval::tree::Tree;
use litnav_llm::Client;
use litnav_search::Filter;
use std::path::PathBuf;
use std::time::Instant;

/// Which TaxoBench mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Topic → retrieval → taxonomy.
    DeepResearch,
    /// The instance's papers → taxonomy.
    BottomUp,
}

impl Mode {
    /// The mode's name in commands and reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::DeepResearch => "deep-research",
            Mode::BottomUp => "bottom-up",
        }
    }
}

/// How the benchmark runs.
pub struct Options<'a> {
    /// The mode.
    pub mode: Mode,
    /// TaxoBench's `data.jsonl`.
    pub data: PathBuf,
    /// Where the prediction lines go.
    pub predictions_out: PathBuf,
    /// Papers retrieved per topic (Deep-Research).
    pub k: usize,
    /// The organizer's settings.
    pub organizer: litnav_organize::Options,
    /// The relevance floor of retrieved maps (default: `litnav map`'s).
    pub min_relevance: Option<f64>,
    /// The LLM stage, when asked for.
    pub llm: Option<&'a Client>,
    /// Papers per subtopic the LLM stage shows.
    pub llm_papers: usize,
    /// Organize with the LLM Bottom-Up organizer (`map --method llm`) instead of clustering.
    pub bottom_up: Option<litnav_app::maps::BottomUpSettings>,
    /// Label similarity of the hierarchy metrics.
    pub similarity: Kind,
    /// Only the first this many instances.
    pub limit: Option<usize>,
}

/// One instance answered and scored.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    /// Instance id.
    pub id: String,
    /// The topic litnav was given.
    pub topic: String,
    /// Papers litnav's answer holds.
    pub papers: usize,
    /// Seconds to answer (retrieval, organizing, the LLM stage).
    pub seconds: f64,
    /// Every metric.
    pub scores: InstanceScores,
}

/// The run's numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// The mode.
    pub mode: Mode,
    /// The organizer method.
    pub method: String,
    /// Whether the LLM stage ran.
    pub llm: bool,
    /// Instances in the data file.
    pub instances: usize,
    /// Scored instances.
    pub rows: Vec<Row>,
    /// Means over the scored instances.
    pub summary: Summary,
    /// Instances not answered, and why.
    pub problems: Vec<String>,
    /// The prediction file written.
    pub predictions: PathBuf,
}

/// Answer every instance of `options.data` with litnav, write the predictions, score them.
/// `session` is the corpus Deep-Research mode retrieves from.
pub fn run(
    workspace: &Workspace,
    session: Option<&CorpusSession>,
    options: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Report> {
    let (instances, mut problems) = read_instances(&options.data, "gt")?;
    let total = instances.len();
    let mut pairs = Vec::new();
    let mut lines = String::new();
    let mut seconds = Vec::new();
    for instance in instances.into_iter().take(options.limit.unwrap_or(usize::MAX)) {
        let at = format!("instance {}", instance.id);
        let topic = instance.topic().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
        let gold = match instance.tree {
            Ok(tree) => tree,
            Err(why) => {
                problems.push(format!("{at} skipped: {why}"));
                continue;
            }
        };
        let Some(topic) = topic else {
            problems.push(format!("{at} skipped: no `survey_topic` (or `survey`) to give the system"));
            continue;
        };
        progress.stage(&format!("{at}: {topic}"));
        let started = Instant::now();
        let map = match answer(workspace, session, options, &instance.id, &topic, progress) {
            Ok(map) => map,
            Err(e) => {
                problems.push(format!("{at} not answered: {e}"));
                continue;
            }
        };
        seconds.push(started.elapsed().as_secs_f64());
        lines.push_str(&prediction_line(&instance.id, &topic, &map).to_string());
        lines.push('\n');
        let predicted = map.kept_tree();
        let retrieved = Some(predicted.listed_titles());
        pairs.push(Pair { id: instance.id, gold, predicted, retrieved, topic: Some(topic) });
    }
    litnav_corpus::store::write_atomically(&options.predictions_out, lines.as_bytes())?;
    let trees: Vec<&Tree> = pairs.iter().flat_map(|p| [&p.gold, &p.predicted]).collect();
    let sim = options.similarity.build(workspace, &trees, progress)?;
    let scoring = Scoring { reading: options.similarity.reading(), ..Scoring::default() };
    let scored = score_pairs(&pairs, scoring, sim.as_ref());
    let summary = summarize(&scored, scoring, options.similarity.name());
    let rows = scored
        .into_iter()
        .zip(seconds)
        .zip(&pairs)
        .map(|(((id, scores), seconds), pair)| Row {
            id,
            topic: pair.topic.clone().unwrap_or_default(),
            papers: pair.predicted.paper_nodes().len(),
            seconds,
            scores,
        })
        .collect();
    Ok(Report {
        mode: options.mode,
        method: match options.bottom_up {
            Some(settings) => format!("LLM Bottom-Up, {} per request, input {}", settings.batch, settings.input.name()),
            None => format!("{:?}", options.organizer.method).to_lowercase(),
        },
        llm: options.llm.is_some() && options.bottom_up.is_none(),
        instances: total,
        rows,
        summary,
        problems,
        predictions: options.predictions_out.clone(),
    })
}

/// litnav's map for one instance.
fn answer(
    workspace: &Workspace,
    session: Option<&CorpusSession>,
    options: &Options<'_>,
    id: &str,
    topic: &str,
    progress: &dyn Progress,
) -> Result<litnav_organize::MapNode> {
    let source = match options.mode {
        Mode::DeepResearch => {
            // Every one of the k: the deep-research setting scores retrieval's recall too.
            PaperSource::Retrieve(maps::MapPapers {
                k: options.k,
                filter: Filter { before: None, exclude_surveys: true },
                floor: litnav_search::ScoreFloor::NONE,
                include: None,
            })
        }
        Mode::BottomUp => PaperSource::File { path: options.data.clone(), instance: Some(id.to_string()) },
    };
    let request = MapRequest {
        topic: topic.to_string(),
        source,
        options: options.organizer,
        min_relevance: options.min_relevance,
        llm_papers: options.llm_papers,
        bottom_up: options.bottom_up,
    };
    Ok(maps::build_map(workspace, session, &request, options.llm, progress)?.map)
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "TaxoBench, {} mode: litnav ({}{}) on {} of {} instances; label similarity {}",
            self.mode.name(),
            self.method,
            if self.llm { " + LLM stage" } else { "" },
            self.rows.len(),
            self.instances,
            self.summary.similarity
        )?;
        writeln!(
            f,
            "{:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>6} {:>6} {:>7}  topic",
            "id", "papers", "R", "P", "F1", "ARI", "V", "ARI∩", "V∩", "SemPth", "NTED", "SoftF1", "seconds"
        )?;
        for row in &self.rows {
            let s = &row.scores;
            let sem = s.sem_path.map_or("—".to_string(), |v| format!("{v:.3}"));
            writeln!(
                f,
                "{:>6} {:>6} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>7} {:>6.3} {:>6.3} {:>7.1}  {}",
                row.id,
                row.papers,
                s.leaf.recall,
                s.leaf.precision,
                s.leaf.f1,
                s.leaf.ari,
                s.leaf.v_measure,
                s.leaf.ari_cap,
                s.leaf.v_measure_cap,
                sem,
                s.us_nted,
                s.soft_f1,
                row.seconds,
                truncate(&row.topic, 50)
            )?;
        }
        let m = &self.summary;
        let sem = m.sem_path.map_or("—".to_string(), |v| format!("{v:.3}"));
        writeln!(
            f,
            "{:>6} {:>6} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>7} {:>6.3} {:>6.3}",
            "mean",
            "",
            m.retrieval_recall,
            m.retrieval_precision,
            m.retrieval_f1,
            m.leaf_ari,
            m.leaf_v_measure,
            m.leaf_ari_cap,
            m.leaf_v_measure_cap,
            sem,
            m.us_nted,
            m.soft_f1
        )?;
        for problem in &self.problems {
            writeln!(f, "  note: {problem}")?;
        }
        writeln!(f, "predictions written to {} (re-score with `litnav eval taxobench`)", self.predictions.display())
    }
}

fn truncate(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
