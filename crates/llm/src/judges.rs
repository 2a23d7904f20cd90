//! LLM judges with their full traces: TaxoBench's four-dimension tree judge, Bloom-Eval's GRADE
//! (a weighted rubric first, then differential scoring of a generated survey against the expert
//! one; score = G / (G + H)) and SciNet's path-rationality judge.

use crate::Result;
use crate::client::Client;
use crate::prompts;
use crate::structured::{Task, ask};
use litnav_core::{PaperText, Sentiment};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One judged dimension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    /// The score.
    pub score: u8,
    /// Why, in the judge's words.
    pub reason: String,
}

/// The tree judge's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeJudgement {
    /// Per dimension (coverage, sibling_organization, hierarchical_logic, topology): 1–5 and why.
    pub dimensions: BTreeMap<String, Judged>,
    /// Mean of the four scores.
    pub mean: f64,
    /// The judge's answer, verbatim.
    pub raw: String,
    /// The answer needed the repair round-trip.
    pub repaired: bool,
}

/// Judge a taxonomy given as an indented outline.
pub fn judge_tree(client: &Client, topic: &str, outline: &str) -> Result<TreeJudgement> {
    judge_tree_task(client, "tree_judge", prompts::tree_judge(topic, outline))
}

/// Judge a taxonomy against the expert's, both as indented outlines, as TaxoBench's LLM-as-Judge
/// does (the same four dimensions, each asked of the candidate relative to the expert).
pub fn judge_tree_against(client: &Client, topic: &str, expert: &str, outline: &str) -> Result<TreeJudgement> {
    judge_tree_task(client, "tree_judge_against_expert", prompts::tree_judge_against(topic, expert, outline))
}

/// Whether each of `children` belongs under `parent` in a taxonomy of `topic`, by the LLM: one
/// verdict per child, in order.
pub fn entailment(client: &Client, topic: &str, parent: &str, children: &[String]) -> Result<Vec<bool>> {
    #[derive(Deserialize)]
    struct Verdicts {
        entailed: Vec<bool>,
    }
    let task = Task {
        name: "entailment".into(),
        messages: prompts::entailment(topic, parent, children),
        schema: prompts::entailment_schema(children.len()),
        // Models pretty-print the list: a line of about six tokens per verdict.
        max_tokens: 64 + 12 * children.len() as u32,
    };
    let answer = ask(client, &task, |verdicts: &Verdicts| {
        if verdicts.entailed.len() == children.len() {
            Ok(())
        } else {
            Err(format!("give {} verdicts, one per subcategory, not {}", children.len(), verdicts.entailed.len()))
        }
    })?;
    Ok(answer.value.entailed)
}

fn judge_tree_task(client: &Client, name: &str, messages: Vec<crate::Message>) -> Result<TreeJudgement> {
    let task = Task { name: name.into(), messages, schema: prompts::tree_judge_schema(), max_tokens: 900 };
    let answer = ask(client, &task, |dimensions: &BTreeMap<String, Judged>| {
        for (name, _) in prompts::TREE_DIMENSIONS {
            let judged = dimensions.get(name).ok_or_else(|| format!("the `{name}` score is missing"))?;
            if !(1..=5).contains(&judged.score) {
                return Err(format!("the `{name}` score {} is outside 1 to 5", judged.score));
            }
            if judged.reason.trim().is_empty() {
                return Err(format!("the `{name}` reason is empty"));
            }
        }
        Ok(())
    })?;
    let dimensions: BTreeMap<String, Judged> = answer
        .value
        .into_iter()
        .filter(|(name, _)| prompts::TREE_DIMENSIONS.iter().any(|(known, _)| known == name))
        .collect();
    let mean = dimensions.values().map(|j| j.score as f64).sum::<f64>() / dimensions.len() as f64;
    Ok(TreeJudgement { dimensions, mean, raw: answer.raw, repaired: answer.repaired })
}

/// A rubric criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    /// What a good survey must do.
    pub criterion: String,
    /// 1 (minor) to 5 (essential).
    pub weight: u8,
}

#[derive(Debug, Deserialize)]
struct Rubric {
    criteria: Vec<Criterion>,
}

/// The differential score of one criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionScore {
    /// 1-based criterion number.
    pub criterion: usize,
    /// The generated survey's score, 0–10.
    pub generated: f64,
    /// The expert survey's score, 0–10.
    pub expert: f64,
    /// The evidence cited.
    pub evidence: String,
}

#[derive(Debug, Deserialize)]
struct Comparison {
    scores: Vec<CriterionScore>,
}

/// GRADE's result with its trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grade {
    /// The rubric generated from the expert survey.
    pub rubric: Vec<Criterion>,
    /// Scores per criterion, in rubric order.
    pub scores: Vec<CriterionScore>,
    /// Σ weight × generated score.
    pub g: f64,
    /// Σ weight × expert score.
    pub h: f64,
    /// G / (G + H): 0.5 means on par with the expert survey; 0 when both are 0.
    pub score: f64,
}

/// An ability GRADE judges: Bloom-Eval's Framework Application, Framework Novelty and Research
/// Outlook Quality each generate their own rubric (seed 001, A.2 and B.3, B.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Aspect {
    /// Framework Application (FAP): choosing an organizing framework and applying it consistently.
    FrameworkApplication,
    /// Framework Novelty (FNov): a fresh lens that reorganizes the field.
    FrameworkNovelty,
    /// Research Outlook Quality (ROQ): foresight and value of the future directions proposed.
    ResearchOutlook,
}

impl Aspect {
    /// What the rubric is about, in the judge's words.
    pub fn description(self) -> &'static str {
        match self {
            Aspect::FrameworkApplication => {
                "choosing a recognized way of organizing the field (by method family, by task, chronologically, by                  problem) and applying it consistently through the whole survey"
            }
            Aspect::FrameworkNovelty => {
                "proposing an organizing framework that looks at the field through a fresh lens, regrouping its                  work in an insightful way instead of repeating existing classifications"
            }
            Aspect::ResearchOutlook => {
                "identifying future research directions that are specific, well-argued from the state of the art,                  and valuable for the field"
            }
        }
    }

    /// Bloom-Eval's abbreviation.
    pub fn key(self) -> &'static str {
        match self {
            Aspect::FrameworkApplication => "FAP",
            Aspect::FrameworkNovelty => "FNov",
            Aspect::ResearchOutlook => "ROQ",
        }
    }
}

/// GRADE: a rubric from the expert survey's outline, then both surveys scored on it.
pub fn grade(client: &Client, topic: &str, expert: &str, generated: &str) -> Result<Grade> {
    grade_with(client, topic, expert, generated, prompts::grade_rubric(topic, expert), "grade_rubric")
}

/// GRADE of one ability: a rubric for that ability from the expert survey, then both surveys
/// scored on it.
pub fn grade_aspect(client: &Client, aspect: Aspect, topic: &str, expert: &str, generated: &str) -> Result<Grade> {
    let messages = prompts::grade_aspect_rubric(topic, aspect.description(), expert);
    grade_with(client, topic, expert, generated, messages, &format!("grade_rubric_{}", aspect.key()))
}

fn grade_with(
    client: &Client,
    topic: &str,
    expert: &str,
    generated: &str,
    rubric_messages: Vec<crate::Message>,
    rubric_name: &str,
) -> Result<Grade> {
    let rubric_task = Task {
        name: rubric_name.into(),
        messages: rubric_messages,
        schema: prompts::grade_rubric_schema(),
        max_tokens: 500,
    };
    let rubric = ask(client, &rubric_task, |r: &Rubric| {
        if r.criteria.is_empty() || r.criteria.len() > 12 {
            return Err(format!("{} criteria; give 4 to 8", r.criteria.len()));
        }
        match r.criteria.iter().find(|c| !(1..=5).contains(&c.weight) || c.criterion.trim().is_empty()) {
            Some(c) => Err(format!("criterion \"{}\" needs text and a weight from 1 to 5", c.criterion)),
            None => Ok(()),
        }
    })?
    .value
    .criteria;
    let listing: String =
        rubric.iter().enumerate().map(|(i, c)| format!("{}. {} (weight {})\n", i + 1, c.criterion, c.weight)).collect();
    let compare_task = Task {
        name: "grade_compare".into(),
        messages: prompts::grade_compare(topic, &listing, expert, generated),
        schema: prompts::grade_compare_schema(rubric.len()),
        max_tokens: 1500,
    };
    let count = rubric.len();
    let comparison = ask(client, &compare_task, |c: &Comparison| {
        let numbers: Vec<i64> = c.scores.iter().map(|s| s.criterion as i64).collect();
        crate::navigator::check_partition(&numbers.iter().map(|&n| vec![n]).collect::<Vec<_>>(), count)
            .map_err(|e| format!("scores must cover each criterion once: {e}"))?;
        match c.scores.iter().find(|s| !(0.0..=10.0).contains(&s.generated) || !(0.0..=10.0).contains(&s.expert)) {
            Some(s) => Err(format!("criterion {}: scores must lie in 0 to 10", s.criterion)),
            None => Ok(()),
        }
    })?;
    let mut scores = comparison.value.scores;
    scores.sort_by_key(|s| s.criterion);
    let weighted = |pick: fn(&CriterionScore) -> f64| -> f64 {
        scores.iter().map(|s| rubric[s.criterion - 1].weight as f64 * pick(s)).sum()
    };
    let (g, h) = (weighted(|s| s.generated), weighted(|s| s.expert));
    let score = if g + h > 0.0 { g / (g + h) } else { 0.0 };
    Ok(Grade { rubric, scores, g, h, score })
}

/// The path judge's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathJudgement {
    /// 1 (arbitrary) to 10 (convincing lineage).
    pub score: u8,
    /// Why, naming the weakest step.
    pub reason: String,
}

/// A 1–10 verdict's meaning check: the score in range and a reason given.
fn check_one_to_ten(j: &PathJudgement) -> std::result::Result<(), String> {
    if !(1..=10).contains(&j.score) {
        Err(format!("score {} is outside 1 to 10", j.score))
    } else if j.reason.trim().is_empty() {
        Err("the reason is empty".into())
    } else {
        Ok(())
    }
}

/// A property SciNet asks an LLM to rate a paper on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PaperProperty {
    /// Novelty-LLM.
    Novelty,
    /// Disruption-LLM.
    Disruption,
}

impl PaperProperty {
    fn meaning(self) -> &'static str {
        match self {
            PaperProperty::Novelty => {
                "novelty: how far its ideas, methods or combinations of prior work depart from what the field \
                 already had (not its quality or popularity)."
            }
            PaperProperty::Disruption => {
                "disruptiveness: whether it opens a new direction that later work follows instead of its \
                 predecessors (high), or consolidates and extends an existing line of work (low)."
            }
        }
    }
}

/// SciNet's Novelty-LLM or Disruption-LLM rating of one paper (1–10, from title and abstract);
/// the verdict has the path judge's shape.
pub fn rate_paper(client: &Client, property: PaperProperty, paper: PaperText<'_>) -> Result<PathJudgement> {
    let task = Task {
        name: match property {
            PaperProperty::Novelty => "paper_novelty".into(),
            PaperProperty::Disruption => "paper_disruption".into(),
        },
        messages: prompts::paper_rating(
            property.meaning(),
            &prompts::paper_list(&[paper], crate::navigator::ABSTRACT_CHARS),
        ),
        schema: prompts::path_judge_schema(),
        max_tokens: 200,
    };
    Ok(ask(client, &task, check_one_to_ten)?.value)
}

/// SciNet's rationality judge on an ordered list of papers.
pub fn judge_path(client: &Client, papers: &[PaperText<'_>]) -> Result<PathJudgement> {
    let task = Task {
        name: "path_judge".into(),
        messages: prompts::path_judge(&prompts::paper_list(papers, crate::navigator::ABSTRACT_CHARS)),
        schema: prompts::path_judge_schema(),
        max_tokens: 250,
    };
    Ok(ask(client, &task, check_one_to_ten)?.value)
}

/// How a citing passage speaks of the cited work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationSentiment {
    /// The label.
    pub sentiment: Sentiment,
    /// Why, quoting the passage.
    pub reason: String,
}

/// SciNet's citation-sentiment judgement of one citing passage.
pub fn citation_sentiment(client: &Client, cited_title: &str, passage: &str) -> Result<CitationSentiment> {
    let task = Task {
        name: "citation_sentiment".into(),
        messages: prompts::citation_sentiment(cited_title, passage),
        schema: prompts::citation_sentiment_schema(),
        max_tokens: 200,
    };
    // A label outside the three fails to parse and is repaired like any malformed answer.
    Ok(ask(client, &task, |_: &CitationSentiment| Ok(()))?.value)
}
