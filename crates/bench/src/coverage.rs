//! Does a map say when its corpus does not cover its topic? For each litbench survey, its title
//! is mapped twice as `litnav map` maps it: from the built-in corpus, which holds the survey's
//! references (the map must not warn), and from a corpus built without them (it must). Every
//! map's coverage evidence is kept; the verdict's rule — a floor on the topic's closeness to its
//! nearest papers, on the support of the topic's words, or both — is chosen on 18 surveys and
//! applied to the 19th (leave-one-out), and the share right both ways is reported for the rule
//! litnav ships and for the held-out choice.

use crate::Result;
use crate::map_filter::{SurveyTopic, survey_topics};
use litnav_app::coverage::{COVERAGE_RULE, Coverage, CoverageRule};
use litnav_app::maps::{self, MAP_FLOOR, MapRequest, PaperSource};
use litnav_app::{CorpusSession, IngestRequest, Progress, Workspace};
use litnav_organize::Options;
use serde::Serialize;
use std::fmt;
use std::io::Write;
use std::path::Path;

/// One survey's two maps.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// litbench topic id.
    pub topic: String,
    /// The survey's title.
    pub title: String,
    /// References the survey cites (left out of the second corpus).
    pub references: usize,
    /// The map from the corpus that holds them.
    pub with: Coverage,
    /// The map from the corpus without them.
    pub without: Coverage,
}

/// Shares right for one rule.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Score {
    /// Maps from the full corpus that did not warn.
    pub covered_right: f64,
    /// Maps from the corpus without the references that warned.
    pub uncovered_right: f64,
}

/// The whole benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every survey.
    pub cases: Vec<Case>,
    /// The rule litnav ships ([`COVERAGE_RULE`]) and how it scores.
    pub shipped: (CoverageRule, Score),
    /// The best rule on all surveys (in sample).
    pub best: (CoverageRule, Score),
    /// Each survey judged by the rule chosen on the other 18.
    pub held_out: Score,
    /// The rule chosen for each held-out survey.
    pub held_out_rules: Vec<(String, CoverageRule)>,
}

/// Map every survey with and without its references.
pub fn run(workspace: &Workspace, litbench: &Path, progress: &dyn Progress) -> Result<Report> {
    let topics = survey_topics(litbench)?;
    let full = workspace.open(None, progress)?;
    let mut cases = Vec::new();
    for (done, topic) in topics.iter().enumerate() {
        progress.stage(&format!("mapping {} with and without its references", topic.id));
        let without_dir = corpus_without(workspace, litbench, topic, progress)?;
        let without = CorpusSession::open(&without_dir)?;
        cases.push(Case {
            topic: topic.id.clone(),
            title: topic.title.clone(),
            references: topic.references.len(),
            with: coverage_of(workspace, &full, &topic.title)?,
            without: coverage_of(workspace, &without, &topic.title)?,
        });
        progress.advance(done + 1, topics.len());
    }
    let shipped = (COVERAGE_RULE, score(&cases.iter().collect::<Vec<_>>(), COVERAGE_RULE));
    let best = best_rule(&cases.iter().collect::<Vec<_>>());
    let mut held_right = (0usize, 0usize);
    let mut held_out_rules = Vec::new();
    for case in &cases {
        let others: Vec<&Case> = cases.iter().filter(|c| c.topic != case.topic).collect();
        let (rule, _) = best_rule(&others);
        held_right.0 += usize::from(verdict(&case.with, rule));
        held_right.1 += usize::from(!verdict(&case.without, rule));
        held_out_rules.push((case.topic.clone(), rule));
    }
    let n = cases.len().max(1) as f64;
    let held_out = Score { covered_right: held_right.0 as f64 / n, uncovered_right: held_right.1 as f64 / n };
    Ok(Report { cases, shipped, best, held_out, held_out_rules })
}

/// The map's coverage of `topic` from `session`, built as `litnav map` builds it.
fn coverage_of(workspace: &Workspace, session: &CorpusSession, topic: &str) -> Result<Coverage> {
    let request = MapRequest {
        topic: topic.to_string(),
        source: PaperSource::Retrieve { k: maps::DEFAULT_MAP_PAPERS, filter: Default::default(), floor: MAP_FLOOR },
        options: Options { seed: workspace.settings().seed, ..Options::default() },
        min_relevance: None,
        llm_papers: maps::DEFAULT_LLM_PAPERS,
        bottom_up: None,
    };
    let outcome = maps::build_map(workspace, Some(session), &request, None, &litnav_app::Quiet)?;
    outcome.coverage.ok_or_else(|| litnav_app::Error::internal("a retrieved map came without its coverage"))
}

/// litbench without `topic`'s references, built once under litnav's home (its vectors seeded from
/// the built-in corpus's).
fn corpus_without(
    workspace: &Workspace,
    litbench: &Path,
    topic: &SurveyTopic,
    progress: &dyn Progress,
) -> Result<std::path::PathBuf> {
    let name = format!("litbench-without-{}", topic.id);
    let papers = workspace.settings().home.join("cache").join("bench-coverage").join(format!("{name}.jsonl"));
    if !papers.is_file() {
        let text = std::fs::read_to_string(litbench.join("corpus.jsonl"))
            .map_err(|e| litnav_app::Error::io(&litbench.join("corpus.jsonl"), &e))?;
        let mut kept = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let paper: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| litnav_app::Error::input(format!("litbench corpus.jsonl: {e}")))?;
            if !topic.references.contains(paper["id"].as_str().unwrap_or_default()) {
                writeln!(kept, "{line}")?;
            }
        }
        if let Some(dir) = papers.parent() {
            std::fs::create_dir_all(dir).map_err(|e| litnav_app::Error::io(dir, &e))?;
        }
        litnav_corpus::store::write_atomically(&papers, &kept)?;
    }
    let request = IngestRequest { files: vec![papers], ..IngestRequest::default() };
    workspace.dataset_corpus(&name, &request, progress)
}

fn verdict(coverage: &Coverage, rule: CoverageRule) -> bool {
    coverage.closeness >= rule.closeness && coverage.term_support >= rule.term_support
}

fn score(cases: &[&Case], rule: CoverageRule) -> Score {
    let n = cases.len().max(1) as f64;
    Score {
        covered_right: cases.iter().filter(|c| verdict(&c.with, rule)).count() as f64 / n,
        uncovered_right: cases.iter().filter(|c| !verdict(&c.without, rule)).count() as f64 / n,
    }
}

/// The rule that scores best on `cases`: the highest lower of the two shares, then the higher
/// sum; each threshold halfway between two observed values (or 0: no floor on that evidence).
fn best_rule(cases: &[&Case]) -> (CoverageRule, Score) {
    let candidates = |value: &dyn Fn(&Coverage) -> f32| -> Vec<f32> {
        let mut seen: Vec<f32> = cases.iter().flat_map(|c| [value(&c.with), value(&c.without)]).collect();
        seen.sort_by(f32::total_cmp);
        seen.dedup();
        std::iter::once(0.0).chain(seen.windows(2).map(|w| (w[0] + w[1]) / 2.0)).collect()
    };
    let closeness = candidates(&|c| c.closeness);
    let support = candidates(&|c| c.term_support);
    let mut best =
        (CoverageRule { closeness: 0.0, term_support: 0.0 }, Score { covered_right: 0.0, uncovered_right: 0.0 });
    let key = |s: &Score| (s.covered_right.min(s.uncovered_right), s.covered_right + s.uncovered_right);
    for &c in &closeness {
        for &t in &support {
            let rule = CoverageRule { closeness: c, term_support: t };
            let scored = score(cases, rule);
            if key(&scored) > key(&best.1) {
                best = (rule, scored);
            }
        }
    }
    best
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "coverage: each litbench survey's title mapped from the corpus with and without its references")?;
        writeln!(
            f,
            "{:<10} {:>5}  {:>9} {:>8} {:>6}  {:>9} {:>8} {:>6}",
            "topic", "refs", "closeness", "support", "warns", "closeness", "support", "warns"
        )?;
        writeln!(f, "{:<10} {:>5}  {:^25}  {:^25}", "", "", "with its references", "without them")?;
        for case in &self.cases {
            let warns = |c: &Coverage| if c.covered { "no" } else { "yes" };
            writeln!(
                f,
                "{:<10} {:>5}  {:>9.3} {:>8.3} {:>6}  {:>9.3} {:>8.3} {:>6}",
                case.topic,
                case.references,
                case.with.closeness,
                case.with.term_support,
                warns(&case.with),
                case.without.closeness,
                case.without.term_support,
                warns(&case.without)
            )?;
        }
        let row = |f: &mut fmt::Formatter<'_>, name: &str, rule: Option<CoverageRule>, s: Score| {
            let rule = rule.map_or_else(
                || "chosen on the other 18".to_string(),
                |r| format!("closeness ≥ {:.3}, support ≥ {:.3}", r.closeness, r.term_support),
            );
            writeln!(
                f,
                "{name:<10} {rule:<38} covered right {:.3}  uncovered right {:.3}",
                s.covered_right, s.uncovered_right
            )
        };
        row(f, "shipped", Some(self.shipped.0), self.shipped.1)?;
        row(f, "best", Some(self.best.0), self.best.1)?;
        row(f, "held out", None, self.held_out)
    }
}
