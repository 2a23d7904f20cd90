//! Does a map say when its corpus does not cover its topic? For each litbench survey, its title
//! is retrieved as `litnav map` retrieves it, from three corpora: the built-in one, which holds the
//! survey's references (the map must not warn); the same without the papers of the topic's
//! surveys (the expert survey's references and those of an LLM-written survey on the same topic:
//! the protocol); and without the papers of the topic's field, which also leaves out the
//! references of every survey sharing at least [`FIELD_OVERLAP`] of its references with it (so
//! that a Vision Transformer survey is not judged on a corpus that still holds the multimodal
//! transformer survey's Vision Transformers). Both "without" corpora must warn. Every map's
//! coverage evidence is kept; the verdict's rule — a floor on the topic's closeness to its nearest
//! papers and on the support of the topic's words — is chosen on 18 surveys and applied to the
//! 19th (leave-one-out), and the shares right both ways are reported for the rule litnav ships, the
//! best rule in sample and the held-out choice, under each protocol. The rule was chosen on survey
//! titles, but a person types a short name of a field; so each survey's short form ([`TYPED_FORMS`])
//! goes through the same three corpora and is scored the same way, on its own.

use crate::Result;
use crate::map_filter::{SurveyTopic, survey_topics};
use litnav_app::coverage::{COVERAGE_RULE, Coverage, CoverageRule};
use litnav_app::maps;
use litnav_app::{CorpusSession, IngestRequest, Progress, Workspace};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Write;
use std::path::Path;

/// The least share of either survey's references two surveys must share to be of one field.
pub const FIELD_OVERLAP: f64 = 0.05;

/// What a person would type for each litbench topic: a short name of its field, written for this
/// benchmark before any of them was measured (BENCHMARKS.md, "What people type").
pub const TYPED_FORMS: &[(&str, &str)] = &[
    ("cs_01", "vision transformers"),
    ("cs_02", "in-context learning"),
    ("cs_04", "domain generalization"),
    ("cs_05", "time series transformers"),
    ("cs_07", "continual learning"),
    ("cs_08", "class-incremental learning"),
    ("cs_10", "multimodal transformers"),
    ("gs_01", "NLRP3 inflammasome"),
    ("gs_03", "random quantum circuits"),
    ("gs_05", "survey experiments in economics"),
    ("gs_06", "transportability of causal effects"),
    ("gs_08", "hepcidin and iron metabolism"),
    ("gs_09", "generalized symmetries"),
    ("gs_10", "deep eutectic solvents"),
    ("taxo_1", "personalized alignment of LLMs"),
    ("taxo_2", "value alignment of AI agents"),
    ("taxo_28", "uncertainty quantification for LLMs"),
    ("taxo_34", "detecting LLM-generated text"),
    ("taxo_64", "LLM-based agents"),
];

/// The short form of `topic` a person would type, if one is written.
fn typed_form(topic: &str) -> Option<&'static str> {
    TYPED_FORMS.iter().find(|(id, _)| *id == topic).map(|(_, form)| *form)
}

/// One survey's three maps.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// litbench topic id.
    pub topic: String,
    /// The topic as mapped: the survey's title, or its typed form.
    pub title: String,
    /// Papers of the topic's surveys (left out of the second corpus).
    pub references: usize,
    /// The surveys of the same field (their papers are also left out of the third corpus).
    pub field: Vec<String>,
    /// Papers left out of the third corpus.
    pub field_papers: usize,
    /// The map from the corpus that holds them.
    pub with: Coverage,
    /// The map from the corpus without the topic's surveys' papers.
    pub without: Coverage,
    /// The map from the corpus without the field's papers.
    pub without_field: Coverage,
}

/// Which corpus a map that must warn came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Protocol {
    /// Without the topic's surveys' papers.
    Survey,
    /// Without the papers of every survey of the field.
    Field,
}

impl Protocol {
    fn uncovered(self, case: &Case) -> &Coverage {
        match self {
            Protocol::Survey => &case.without,
            Protocol::Field => &case.without_field,
        }
    }
}

/// Shares right for one rule.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Score {
    /// Maps from the full corpus that did not warn.
    pub covered_right: f64,
    /// Maps from the corpus without the references that warned.
    pub uncovered_right: f64,
}

/// How the rules score under one protocol.
#[derive(Debug, Clone, Serialize)]
pub struct Scores {
    /// The protocol.
    pub protocol: Protocol,
    /// The rule litnav ships ([`COVERAGE_RULE`]).
    pub shipped: Score,
    /// The best rule on all surveys (in sample).
    pub best: (CoverageRule, Score),
    /// Each survey judged by the rule chosen on the other 18.
    pub held_out: Score,
    /// The rule chosen for each held-out survey.
    pub held_out_rules: Vec<(String, CoverageRule)>,
}

/// The whole benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every survey, mapped by its title.
    pub cases: Vec<Case>,
    /// The rule litnav ships.
    pub shipped: CoverageRule,
    /// Under the protocol, then under the field's.
    pub scores: Vec<Scores>,
    /// Every survey with a typed form, mapped by that form.
    pub typed: Vec<Case>,
    /// The typed forms' scores, under the protocol, then under the field's.
    pub typed_scores: Vec<Scores>,
}

/// Retrieve every survey's topic from the three corpora.
pub fn run(workspace: &Workspace, litbench: &Path, progress: &dyn Progress) -> Result<Report> {
    let topics = survey_topics(litbench)?;
    let corpus = read_corpus(litbench)?;
    let tagged = papers_by_topic(&corpus);
    let full = workspace.open(None, progress)?;
    let mut cases = Vec::new();
    let mut typed = Vec::new();
    for (done, topic) in topics.iter().enumerate() {
        progress.stage(&format!("retrieving {} with and without its field", topic.id));
        let own = tagged.get(&topic.id).cloned().unwrap_or_default();
        let field: Vec<String> = same_field(topic, &topics);
        let mut field_papers = own.clone();
        for other in &field {
            field_papers.extend(tagged.get(other).into_iter().flatten().cloned());
        }
        let without = CorpusSession::open(&corpus_without(workspace, &corpus, &topic.id, &own, progress)?)?;
        let without_field = CorpusSession::open(&corpus_without(
            workspace,
            &corpus,
            &format!("{}-field", topic.id),
            &field_papers,
            progress,
        )?)?;
        let case = |title: &str| -> Result<Case> {
            Ok(Case {
                topic: topic.id.clone(),
                title: title.to_string(),
                references: own.len(),
                field: field.clone(),
                field_papers: field_papers.len(),
                with: coverage_of(workspace, &full, title)?,
                without: coverage_of(workspace, &without, title)?,
                without_field: coverage_of(workspace, &without_field, title)?,
            })
        };
        cases.push(case(&topic.title)?);
        if let Some(form) = typed_form(&topic.id) {
            typed.push(case(form)?);
        }
        progress.advance(done + 1, topics.len());
    }
    let both = |cases: &[Case]| [Protocol::Survey, Protocol::Field].into_iter().map(|p| scores(cases, p)).collect();
    let (scores, typed_scores) = (both(&cases), both(&typed));
    Ok(Report { cases, shipped: COVERAGE_RULE, scores, typed, typed_scores })
}

fn scores(cases: &[Case], protocol: Protocol) -> Scores {
    let all: Vec<&Case> = cases.iter().collect();
    let shipped = score(&all, COVERAGE_RULE, protocol);
    let best = best_rule(&all, protocol);
    let mut held_right = (0usize, 0usize);
    let mut held_out_rules = Vec::new();
    for case in cases {
        let others: Vec<&Case> = cases.iter().filter(|c| c.topic != case.topic).collect();
        let (rule, _) = best_rule(&others, protocol);
        held_right.0 += usize::from(verdict(&case.with, rule));
        held_right.1 += usize::from(!verdict(protocol.uncovered(case), rule));
        held_out_rules.push((case.topic.clone(), rule));
    }
    let n = cases.len().max(1) as f64;
    let held_out = Score { covered_right: held_right.0 as f64 / n, uncovered_right: held_right.1 as f64 / n };
    Scores { protocol, shipped, best, held_out, held_out_rules }
}

/// The surveys sharing at least [`FIELD_OVERLAP`] of their or `topic`'s references with `topic`.
fn same_field(topic: &SurveyTopic, topics: &[SurveyTopic]) -> Vec<String> {
    topics
        .iter()
        .filter(|other| other.id != topic.id)
        .filter(|other| {
            let shared = topic.references.intersection(&other.references).count() as f64;
            let least = topic.references.len().min(other.references.len()).max(1) as f64;
            shared / least >= FIELD_OVERLAP
        })
        .map(|other| other.id.clone())
        .collect()
}

/// One line of litbench's `corpus.jsonl`: the paper's id, the topics whose surveys cite it, and the
/// line as written.
struct CorpusLine {
    id: String,
    sources: Vec<String>,
    text: String,
}

/// litbench's `corpus.jsonl`, read once.
fn read_corpus(litbench: &Path) -> Result<Vec<CorpusLine>> {
    let path = litbench.join("corpus.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| litnav_app::Error::io(&path, &e))?;
    let mut lines = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let paper: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| litnav_app::Error::input(format!("{}:{}: {e}", path.display(), number + 1)))?;
        let sources = paper["sources"].as_array().into_iter().flatten().filter_map(|s| s.as_str());
        lines.push(CorpusLine {
            id: paper["id"].as_str().unwrap_or_default().to_string(),
            sources: sources.map(str::to_string).collect(),
            text: line.to_string(),
        });
    }
    Ok(lines)
}

/// For each topic id, the corpus papers a survey of that topic cites: its `sources` name the topic
/// (`cs_01`) or a survey written on it by an LLM (`cs_01_llm`).
fn papers_by_topic(corpus: &[CorpusLine]) -> HashMap<String, HashSet<String>> {
    let mut tagged: HashMap<String, HashSet<String>> = HashMap::new();
    for paper in corpus {
        for source in &paper.sources {
            let topic = source.strip_suffix("_llm").unwrap_or(source);
            tagged.entry(topic.to_string()).or_default().insert(paper.id.clone());
        }
    }
    tagged
}

/// The map's coverage of `topic` from `session`, retrieved as `litnav map` retrieves it.
fn coverage_of(workspace: &Workspace, session: &CorpusSession, topic: &str) -> Result<Coverage> {
    let k = maps::DEFAULT_MAP_PAPERS;
    let retrieved = maps::retrieve_for_map(workspace, session, topic, &maps::MapPapers::new(k), &litnav_app::Quiet)?;
    Ok(retrieved.coverage)
}

/// litbench without the papers `left_out`, built once under litnav's home as
/// `litbench-without-{name}` (its vectors seeded from the built-in corpus's).
fn corpus_without(
    workspace: &Workspace,
    corpus: &[CorpusLine],
    name: &str,
    left_out: &HashSet<String>,
    progress: &dyn Progress,
) -> Result<std::path::PathBuf> {
    let name = format!("litbench-without-{name}");
    let papers = workspace.settings().home.join("cache").join("bench-coverage").join(format!("{name}.jsonl"));
    let mut kept = Vec::new();
    for paper in corpus.iter().filter(|paper| !left_out.contains(&paper.id)) {
        writeln!(kept, "{}", paper.text)?;
    }
    if std::fs::read(&papers).ok().as_deref() != Some(&kept[..]) {
        if let Some(dir) = papers.parent() {
            std::fs::create_dir_all(dir).map_err(|e| litnav_app::Error::io(dir, &e))?;
        }
        litnav_corpus::store::write_atomically(&papers, &kept)?;
    }
    let request = IngestRequest { files: vec![papers], ..IngestRequest::default() };
    workspace.dataset_corpus(&name, &request, progress)
}

fn verdict(coverage: &Coverage, rule: CoverageRule) -> bool {
    rule.covers(coverage.closeness, coverage.term_support)
}

fn score(cases: &[&Case], rule: CoverageRule, protocol: Protocol) -> Score {
    let n = cases.len().max(1) as f64;
    Score {
        covered_right: cases.iter().filter(|c| verdict(&c.with, rule)).count() as f64 / n,
        uncovered_right: cases.iter().filter(|c| !verdict(protocol.uncovered(c), rule)).count() as f64 / n,
    }
}

/// The rule that scores best on `cases`: the highest lower of the two shares, then the higher
/// sum; each threshold halfway between two observed values (or 0: no floor on that evidence).
fn best_rule(cases: &[&Case], protocol: Protocol) -> (CoverageRule, Score) {
    let candidates = |value: &dyn Fn(&Coverage) -> f32| -> Vec<f32> {
        let mut seen: Vec<f32> = cases.iter().flat_map(|c| [value(&c.with), value(protocol.uncovered(c))]).collect();
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
            let scored = score(cases, rule, protocol);
            if key(&scored) > key(&best.1) {
                best = (rule, scored);
            }
        }
    }
    best
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "coverage: each litbench survey's title retrieved from the corpus with its references, without the papers of its surveys, and without those of its field"
        )?;
        write_cases(f, &self.cases, |case| case.field.join(" "))?;
        write_scores(f, &self.scores, self.shipped, self.cases.len())?;
        writeln!(f, "the same for what a person would type: each survey's short form")?;
        write_cases(f, &self.typed, |case| case.title.clone())?;
        write_scores(f, &self.typed_scores, self.shipped, self.typed.len())
    }
}

/// One line per case: its three maps' evidence and verdicts, then `note`.
fn write_cases(f: &mut fmt::Formatter<'_>, cases: &[Case], note: impl Fn(&Case) -> String) -> fmt::Result {
    writeln!(
        f,
        "{:<8} {:>5} {:>5}  {:^22}  {:^22}  {:^22}",
        "topic", "refs", "field", "with", "without the survey", "without the field"
    )?;
    let cell =
        |c: &Coverage| format!("{:.3} {:.3} {:>4}", c.closeness, c.term_support, if c.covered { "no" } else { "warn" });
    for case in cases {
        writeln!(
            f,
            "{:<8} {:>5} {:>5}  {:^22}  {:^22}  {:^22}  {}",
            case.topic,
            case.references,
            case.field_papers,
            cell(&case.with),
            cell(&case.without),
            cell(&case.without_field),
            note(case)
        )?;
    }
    Ok(())
}

/// The shares right of the shipped, the best and the held-out rules under each protocol.
fn write_scores(f: &mut fmt::Formatter<'_>, all: &[Scores], shipped: CoverageRule, cases: usize) -> fmt::Result {
    for scores in all {
        writeln!(f, "protocol {:?}:", scores.protocol)?;
        let row = |f: &mut fmt::Formatter<'_>, name: &str, rule: Option<CoverageRule>, s: Score| {
            let rule = rule.map_or_else(
                || format!("chosen on the other {}", cases.saturating_sub(1)),
                |r| format!("closeness ≥ {:.3}, support ≥ {:.3}", r.closeness, r.term_support),
            );
            writeln!(
                f,
                "  {name:<10} {rule:<38} covered right {:.3}  uncovered right {:.3}",
                s.covered_right, s.uncovered_right
            )
        };
        row(f, "shipped", Some(shipped), scores.shipped)?;
        row(f, "best", Some(scores.best.0), scores.best.1)?;
        row(f, "held out", None, scores.held_out)?;
    }
    Ok(())
}
