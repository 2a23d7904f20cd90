//! Survey evaluation: Bloom-Eval's 16 metrics (seed 001) of a generated survey against an expert
//! survey, grouped by Bloom's six tiers, with the evidence behind each.
//!
//! The deterministic metrics (HIRC, TBal, FMI, DSI, STS, SCons) always run; the LLM metrics
//! (EFid, FCons, OTC, CF, TFSim, SCS, CAA, FAP, FNov, ROQ) run when a client is given, and are
//! otherwise listed as not run with the reason — never as zero. A tier's mean is the seed's (Figure
//! 4): the arithmetic mean of its metrics' scores, where a P/R/F1 metric contributes its F1, a
//! metric with F1 and DS the mean of the two, a per-survey metric (FMI, DSI, TBal, SCS) the
//! generated survey's value, a GRADE metric its G/(G+H); the mean is over the metrics that ran, and
//! the report says how many of how many.
//!
//! Where litnav departs from Bloom-Eval's scripts, by design:
//! - **Themes** (TBal, TFSim) come from litnav's own organizer (offline, average linkage on the
//!   MiniLM vectors of "title. abstract", seeded), not BERTopic with nomic-embed; each subtopic of
//!   a bibliography's map is a theme.
//! - **LLM inputs** are passages of at most `chunk_chars` characters (small local models have small
//!   contexts; the scripts send whole surveys); entity counts are the entity's case-insensitive
//!   occurrences in the survey's text; matching shows the model, for each generated item, the five
//!   expert items closest to it by MiniLM cosine, and keeps each expert item's first match.
//! - **HIRC** counts the references the generated survey cites (the seed's `R_gen`); the scripts
//!   count every entry of its reference list (`Compat::BloomEval`).

mod deterministic;
mod llm_metrics;

pub use llm_metrics::NO_ENDPOINT;

use litnav_eval::bloom::Compat;
use litnav_session::error::{Error, Result};
use litnav_session::progress::Progress;
use litnav_session::session::CorpusSession;
use litnav_session::workspace::Workspace;
use litnav_survey::{Layout, Problems, Survey};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Bloom's six tiers, in order.
pub const TIERS: [&str; 6] = ["Memory", "Comprehension", "Application", "Analysis", "Evaluation", "Creation"];

/// One of Bloom-Eval's 16 metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Metric {
    /// Entity Fidelity (F1 + DS).
    EFid,
    /// High-Impact Reference Coverage (F1).
    Hirc,
    /// Factual Consistency (F1).
    FCons,
    /// Outline Topic Coverage (F1).
    Otc,
    /// Citation Faithfulness (F1).
    Cf,
    /// Thematic Focus Similarity (F1 + DS).
    TfSim,
    /// Thematic Balance (1 − Gini).
    TBal,
    /// Formatting Integrity.
    Fmi,
    /// Document Structure Integrity.
    Dsi,
    /// Framework Application (GRADE).
    Fap,
    /// Semantic Tree Similarity.
    Sts,
    /// Shape Consistency.
    SCons,
    /// Structural Clarity Score.
    Scs,
    /// Critical Analysis Alignment (F1).
    Caa,
    /// Framework Novelty (GRADE).
    FNov,
    /// Research Outlook Quality (GRADE).
    Roq,
}

impl Metric {
    /// All 16, in the seed's order.
    pub const ALL: [Metric; 16] = [
        Metric::EFid,
        Metric::Hirc,
        Metric::FCons,
        Metric::Otc,
        Metric::Cf,
        Metric::TfSim,
        Metric::TBal,
        Metric::Fmi,
        Metric::Dsi,
        Metric::Fap,
        Metric::Sts,
        Metric::SCons,
        Metric::Scs,
        Metric::Caa,
        Metric::FNov,
        Metric::Roq,
    ];

    /// Bloom-Eval's abbreviation.
    pub fn key(self) -> &'static str {
        match self {
            Metric::EFid => "EFid",
            Metric::Hirc => "HIRC",
            Metric::FCons => "FCons",
            Metric::Otc => "OTC",
            Metric::Cf => "CF",
            Metric::TfSim => "TFSim",
            Metric::TBal => "TBal",
            Metric::Fmi => "FMI",
            Metric::Dsi => "DSI",
            Metric::Fap => "FAP",
            Metric::Sts => "STS",
            Metric::SCons => "SCons",
            Metric::Scs => "SCS",
            Metric::Caa => "CAA",
            Metric::FNov => "FNov",
            Metric::Roq => "ROQ",
        }
    }

    /// The metric's full name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::EFid => "Entity Fidelity",
            Metric::Hirc => "High-Impact Reference Coverage",
            Metric::FCons => "Factual Consistency",
            Metric::Otc => "Outline Topic Coverage",
            Metric::Cf => "Citation Faithfulness",
            Metric::TfSim => "Thematic Focus Similarity",
            Metric::TBal => "Thematic Balance",
            Metric::Fmi => "Formatting Integrity",
            Metric::Dsi => "Document Structure Integrity",
            Metric::Fap => "Framework Application",
            Metric::Sts => "Semantic Tree Similarity",
            Metric::SCons => "Shape Consistency",
            Metric::Scs => "Structural Clarity Score",
            Metric::Caa => "Critical Analysis Alignment",
            Metric::FNov => "Framework Novelty",
            Metric::Roq => "Research Outlook Quality",
        }
    }

    /// Its tier (index into [`TIERS`]).
    pub fn tier(self) -> usize {
        match self {
            Metric::EFid | Metric::Hirc | Metric::FCons => 0,
            Metric::Otc | Metric::Cf | Metric::TfSim | Metric::TBal => 1,
            Metric::Fmi | Metric::Dsi | Metric::Fap => 2,
            Metric::Sts | Metric::SCons | Metric::Scs => 3,
            Metric::Caa => 4,
            Metric::FNov | Metric::Roq => 5,
        }
    }

    /// Whether it needs an LLM.
    pub fn needs_llm(self) -> bool {
        !matches!(self, Metric::Hirc | Metric::TBal | Metric::Fmi | Metric::Dsi | Metric::Sts | Metric::SCons)
    }

    /// The metric with this abbreviation (case-insensitive).
    pub fn from_key(key: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.key().eq_ignore_ascii_case(key.trim()))
    }

    /// The metrics `keys` name (every one when there are none); an unknown key is an error that
    /// lists the names.
    pub fn from_keys(keys: &[String]) -> litnav_session::Result<BTreeSet<Metric>> {
        if keys.is_empty() {
            return Ok(Metric::ALL.into_iter().collect());
        }
        keys.iter()
            .map(|key| {
                Metric::from_key(key).ok_or_else(|| {
                    let names: Vec<&str> = Metric::ALL.iter().map(|m| m.key()).collect();
                    litnav_session::Error::input(format!(
                        "metrics: `{key}` is not one of Bloom-Eval's 16 metrics ({})",
                        names.join(", ")
                    ))
                })
            })
            .collect()
    }
}

/// How to evaluate.
#[derive(Debug, Clone)]
pub struct SurveyOptions {
    /// The metrics to compute (default: all 16).
    pub metrics: BTreeSet<Metric>,
    /// The seed's readings, or Bloom-Eval's scripts'.
    pub compat: Compat,
    /// Longest passage an LLM extraction step is shown, in characters.
    pub chunk_chars: usize,
    /// At most this many passages per survey go to each extraction (spread evenly over the text).
    pub max_passages: Option<usize>,
    /// At most this many (sentence, cited paper) pairs are checked for Citation Faithfulness.
    pub max_citations: Option<usize>,
    /// Characters of each survey GRADE shows the judge.
    pub grade_chars: usize,
    /// The topic (default: the expert survey's title).
    pub topic: Option<String>,
    /// Also compute readability similarity, 10-gram overlap and output tokens.
    pub extras: bool,
}

impl Default for SurveyOptions {
    fn default() -> Self {
        SurveyOptions {
            metrics: Metric::ALL.into_iter().collect(),
            compat: Compat::Seed,
            chunk_chars: 6000,
            max_passages: None,
            max_citations: None,
            grade_chars: 6000,
            topic: None,
            extras: true,
        }
    }
}

/// Whether a metric ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It ran and has a score.
    Computed,
    /// It was not run (no LLM endpoint, not asked for, an input it needs is missing).
    NotRun,
    /// It ran and failed (the endpoint went down, every answer was unusable).
    Failed,
}

/// One metric's result.
#[derive(Debug, Clone, Serialize)]
pub struct MetricScore {
    /// Abbreviation.
    pub key: &'static str,
    /// Full name.
    pub name: &'static str,
    /// Whether it ran.
    pub status: Status,
    /// Why it did not run, or failed.
    pub reason: Option<String>,
    /// The value entering the tier mean.
    pub score: Option<f64>,
    /// Precision, when the metric has one.
    pub precision: Option<f64>,
    /// Recall, when the metric has one.
    pub recall: Option<f64>,
    /// F1, when the metric has one.
    pub f1: Option<f64>,
    /// Distributional Similarity, when the metric has one.
    pub ds: Option<f64>,
    /// The expert survey's own value (per-survey metrics).
    pub expert: Option<f64>,
    /// The generated survey's own value (per-survey metrics).
    pub generated: Option<f64>,
    /// What the value rests on: matched pairs, counts, rubric, sizes.
    pub evidence: serde_json::Value,
}

impl MetricScore {
    pub(crate) fn new(metric: Metric) -> MetricScore {
        MetricScore {
            key: metric.key(),
            name: metric.name(),
            status: Status::Computed,
            reason: None,
            score: None,
            precision: None,
            recall: None,
            f1: None,
            ds: None,
            expert: None,
            generated: None,
            evidence: serde_json::Value::Null,
        }
    }

    pub(crate) fn not_run(metric: Metric, reason: impl Into<String>) -> MetricScore {
        MetricScore { status: Status::NotRun, reason: Some(reason.into()), ..MetricScore::new(metric) }
    }

    pub(crate) fn failed(metric: Metric, reason: impl Into<String>) -> MetricScore {
        MetricScore { status: Status::Failed, reason: Some(reason.into()), ..MetricScore::new(metric) }
    }

    /// A P/R/F1 metric; `ds` joins the score (their mean) when given.
    pub(crate) fn prf(metric: Metric, (p, r, f1): (f64, f64, f64), ds: Option<f64>) -> MetricScore {
        let score = ds.map_or(f1, |ds| (f1 + ds) / 2.0);
        MetricScore {
            score: Some(score),
            precision: Some(p),
            recall: Some(r),
            f1: Some(f1),
            ds,
            ..MetricScore::new(metric)
        }
    }

    /// A per-survey metric: the generated survey's value is the score.
    pub(crate) fn per_survey(metric: Metric, expert: f64, generated: f64) -> MetricScore {
        MetricScore {
            score: Some(generated),
            expert: Some(expert),
            generated: Some(generated),
            ..MetricScore::new(metric)
        }
    }

    pub(crate) fn with_evidence(mut self, evidence: serde_json::Value) -> MetricScore {
        self.evidence = evidence;
        self
    }

    /// One more entry in the evidence object.
    pub(crate) fn with_note(mut self, key: &str, value: serde_json::Value) -> MetricScore {
        if !self.evidence.is_object() {
            self.evidence = serde_json::json!({});
        }
        self.evidence[key] = value;
        self
    }
}

/// A tier's metrics and mean.
#[derive(Debug, Clone, Serialize)]
pub struct TierScore {
    /// Bloom's name for it.
    pub tier: &'static str,
    /// Mean score of the metrics that ran.
    pub mean: Option<f64>,
    /// Metrics that ran.
    pub computed: usize,
    /// Metrics of the tier asked for.
    pub metrics_total: usize,
    /// The metrics.
    pub metrics: Vec<MetricScore>,
}

/// What a survey is made of.
#[derive(Debug, Clone, Serialize)]
pub struct SurveySummary {
    /// The file or directory.
    pub path: PathBuf,
    /// Its layout.
    pub layout: Layout,
    /// Its title.
    pub title: String,
    /// Outline headings.
    pub headings: usize,
    /// Sections of text.
    pub sections: usize,
    /// Paragraphs.
    pub paragraphs: usize,
    /// Sentences citing at least one entry.
    pub citing_sentences: usize,
    /// Bibliography entries.
    pub bibliography: usize,
    /// Entries resolved to corpus papers (with a corpus).
    pub resolved: Option<usize>,
    /// Counted problems.
    pub problems: Problems,
}

impl SurveySummary {
    fn of(survey: &Survey) -> SurveySummary {
        let resolved = survey
            .bibliography
            .iter()
            .any(|r| r.paper_id.is_some())
            .then(|| survey.bibliography.iter().filter(|r| r.paper_id.is_some()).count());
        SurveySummary {
            path: survey.path.clone(),
            layout: survey.layout,
            title: survey.title.clone(),
            headings: survey.outline.len(),
            sections: survey.sections.len(),
            paragraphs: survey.sections.iter().map(|s| s.paragraphs.len()).sum(),
            citing_sentences: survey.citing_sentences().count(),
            bibliography: survey.bibliography.len(),
            resolved,
            problems: survey.problems.clone(),
        }
    }
}

/// Metrics beside the 16 that the seed also reports.
#[derive(Debug, Clone, Serialize)]
pub struct Extras {
    /// Readability similarity (Flesch–Kincaid, Gunning fog, Coleman–Liau).
    pub readability_similarity: Option<f64>,
    /// The expert text's readability indices.
    pub expert_readability: Option<litnav_eval::bloom::Readability>,
    /// The generated text's readability indices.
    pub generated_readability: Option<litnav_eval::bloom::Readability>,
    /// Share of the generated text's distinct 10-grams found in the expert text.
    pub exact_10gram_overlap: f64,
    /// Tokens of the generated text (words and punctuation marks).
    pub output_tokens: usize,
}

/// One LLM step of the evaluation, for `--trace`.
#[derive(Debug, Clone, Serialize)]
pub struct TraceStep {
    /// The metric.
    pub metric: &'static str,
    /// The step (`expert passage 3`, `matching batch 2`, …).
    pub step: String,
    /// The answer as the model gave it (after the repair, when there was one).
    pub answer: String,
    /// The first answer needed the repair round-trip.
    pub repaired: bool,
    /// Answered from the cache.
    pub cached: bool,
    /// Why the step's answer was not used, when it was not.
    pub error: Option<String>,
}

/// The full evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct SurveyReport {
    /// The topic.
    pub topic: String,
    /// Whose readings were followed where the seed and the scripts differ.
    pub compat: &'static str,
    /// The expert survey.
    pub expert: SurveySummary,
    /// The generated survey.
    pub generated: SurveySummary,
    /// The six tiers.
    pub tiers: Vec<TierScore>,
    /// Readability, n-gram overlap, output tokens (when asked for).
    pub extras: Option<Extras>,
    /// LLM calls and tokens, when an LLM ran.
    pub llm_usage: Option<litnav_llm::Usage>,
    /// Every LLM step (written by `--trace`, left out of `--json`).
    #[serde(skip)]
    pub trace: Vec<TraceStep>,
}

impl SurveyReport {
    /// A metric's result by abbreviation.
    pub fn metric(&self, key: &str) -> Option<&MetricScore> {
        self.tiers.iter().flat_map(|t| &t.metrics).find(|m| m.key.eq_ignore_ascii_case(key))
    }
}

/// Read a survey, and with a corpus session, resolve its bibliography to corpus papers.
pub fn read_survey(path: &std::path::Path, session: Option<&CorpusSession>) -> Result<Survey> {
    let mut survey = Survey::read(path).map_err(|e| Error::input(e.to_string()))?;
    if let Some(session) = session {
        resolve_bibliography(&mut survey, session)?;
    }
    Ok(survey)
}

/// Read the surveys at `expert` and `generated` (their bibliographies resolved against the corpus
/// at `corpus`, when given) and evaluate the second against the first.
pub fn evaluate_files(
    workspace: &Workspace,
    expert: &std::path::Path,
    generated: &std::path::Path,
    corpus: Option<&std::path::Path>,
    options: &SurveyOptions,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn Progress,
) -> Result<SurveyReport> {
    let session = corpus.map(|dir| workspace.open(Some(dir), progress)).transpose()?;
    // The two surveys are read side by side, and freed side by side: reading (and freeing its
    // many small strings) is most of a deterministic evaluation.
    let (expert, generated) =
        rayon::join(|| read_survey(expert, session.as_ref()), || read_survey(generated, session.as_ref()));
    let (expert, generated) = (expert?, generated?);
    let report = evaluate(workspace, &expert, &generated, options, llm, progress);
    rayon::join(|| drop(expert), || drop(generated));
    report
}

/// Resolve bibliography entries to corpus papers: by exact normalized title, then by TaxoBench's
/// title alignment (difflib ratio ≥ 0.92, containment counts as 1); an entry without a citation
/// count takes the paper's. Returns how many entries resolved.
pub fn resolve_bibliography(survey: &mut Survey, session: &CorpusSession) -> Result<usize> {
    Ok(litnav_session::bibliography::resolve_against(survey, session.papers()?))
}

/// Evaluate `generated` against `expert`.
pub fn evaluate(
    workspace: &Workspace,
    expert: &Survey,
    generated: &Survey,
    options: &SurveyOptions,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn Progress,
) -> Result<SurveyReport> {
    let topic = options.topic.clone().unwrap_or_else(|| expert.title.clone());
    let mut context = llm_metrics::Context::new(workspace, expert, generated, options, llm, &topic, progress);
    let wanted: Vec<Metric> = Metric::ALL.into_iter().filter(|m| options.metrics.contains(m)).collect();
    // The deterministic metrics first, side by side on every core (HIRC's title matching takes
    // longest; the others need not wait for it); a failure is reported as before, by the first
    // failing metric in the listed order. Then the LLM metrics, one at a time.
    let deterministic_metrics = || -> Vec<Option<Result<MetricScore>>> {
        let run = |&metric: &Metric| {
            (!metric.needs_llm()).then(|| {
                progress.stage(&format!("{} ({})", metric.name(), metric.key()));
                deterministic::run(metric, workspace, expert, generated, options, progress)
            })
        };
        wanted.par_iter().map(run).collect()
    };
    let (computed, extras) =
        rayon::join(deterministic_metrics, || options.extras.then(|| deterministic::extras(expert, generated)));
    let mut results = Vec::with_capacity(wanted.len());
    for (metric, computed) in wanted.into_iter().zip(computed) {
        let score = match computed {
            Some(score) => score?,
            None => context.run(metric),
        };
        results.push((metric, score));
    }
    let tiers = TIERS
        .iter()
        .enumerate()
        .map(|(t, &tier)| {
            let metrics: Vec<MetricScore> =
                results.iter().filter(|(m, _)| m.tier() == t).map(|(_, s)| s.clone()).collect();
            let scores: Vec<f64> = metrics.iter().filter_map(|m| m.score).collect();
            let mean = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
            TierScore { tier, mean, computed: scores.len(), metrics_total: metrics.len(), metrics }
        })
        .collect();
    let (trace, llm_usage) = context.finish();
    Ok(SurveyReport {
        topic,
        compat: match options.compat {
            Compat::Seed => "seed",
            Compat::BloomEval => "bloom-eval",
        },
        expert: SurveySummary::of(expert),
        generated: SurveySummary::of(generated),
        tiers,
        extras,
        llm_usage,
        trace,
    })
}

impl std::fmt::Display for SurveyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Bloom-Eval on \"{}\" ({} readings)", self.topic, self.compat)?;
        for (label, s) in [("expert", &self.expert), ("generated", &self.generated)] {
            writeln!(
                f,
                "  {label:<9} {}: {} headings, {} paragraphs, {} citing sentences, {} references{}; {} dangling markers, {} unused entries",
                s.path.display(),
                s.headings,
                s.paragraphs,
                s.citing_sentences,
                s.bibliography,
                s.resolved.map_or_else(String::new, |r| format!(" ({r} in the corpus)")),
                s.problems.dangling_markers.len(),
                s.problems.unused_entries.len()
            )?;
        }
        let number = |v: Option<f64>| v.map_or_else(|| "    -".to_string(), |v| format!("{v:>5.3}"));
        for tier in &self.tiers {
            if tier.metrics_total == 0 {
                continue;
            }
            writeln!(
                f,
                "\n{} — mean {} ({} of {} metrics)",
                tier.tier,
                number(tier.mean),
                tier.computed,
                tier.metrics_total
            )?;
            for m in &tier.metrics {
                match m.status {
                    Status::Computed => {
                        let mut parts = vec![format!("score {}", number(m.score))];
                        if m.f1.is_some() {
                            parts.push(format!("P {} R {} F1 {}", number(m.precision), number(m.recall), number(m.f1)));
                        }
                        if m.ds.is_some() {
                            parts.push(format!("DS {}", number(m.ds)));
                        }
                        if m.expert.is_some() {
                            parts.push(format!("expert {} generated {}", number(m.expert), number(m.generated)));
                        }
                        writeln!(f, "  {:<6} {:<32} {}", m.key, m.name, parts.join("  "))?;
                    }
                    _ => writeln!(
                        f,
                        "  {:<6} {:<32} {}: {}",
                        m.key,
                        m.name,
                        if m.status == Status::NotRun { "not run" } else { "failed" },
                        m.reason.as_deref().unwrap_or("")
                    )?,
                }
            }
        }
        if let Some(e) = &self.extras {
            writeln!(
                f,
                "\nreadability similarity {}, exact 10-gram overlap {:.4}, output tokens {}",
                number(e.readability_similarity),
                e.exact_10gram_overlap,
                e.output_tokens
            )?;
        }
        if let Some(usage) = &self.llm_usage {
            writeln!(
                f,
                "LLM: {} calls, {} from the cache, {} prompt and {} completion tokens",
                usage.calls, usage.cache_hits, usage.prompt_tokens, usage.completion_tokens
            )?;
        }
        Ok(())
    }
}
