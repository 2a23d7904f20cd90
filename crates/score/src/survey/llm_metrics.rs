//! The LLM metrics: EFid, FCons, OTC, CF, TFSim, SCS, CAA (extraction, matching, checking, each a
//! validated LLM step), and FAP, FNov, ROQ (GRADE, a rubric per ability).
//!
//! A step whose answer stays invalid after the repair is skipped, recorded in the trace and counted
//! in the metric's evidence (`invalid_steps`); the metric goes on with the other steps, and fails
//! (rather than scoring what nothing measured) when every step was invalid. An endpoint that fails (down, refusing, offline without
//! a cached answer) fails the metric with its reason, and the remaining LLM metrics are reported
//! as not run with that reason instead of each waiting for the same timeout.

use super::deterministic::themes;
use super::{Metric, MetricScore, SurveyOptions, TraceStep};
use litnav_eval::bloom;
use litnav_llm::prompts::StatementKind;
use litnav_llm::structured::Answer;
use litnav_llm::{Client, judges, survey as steps};
use litnav_session::error::{Error, Result};
use litnav_session::progress::Progress;
use litnav_session::workspace::Workspace;
use litnav_survey::Survey;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};

/// Why the LLM metrics do not run without a client.
pub const NO_ENDPOINT: &str = "no LLM endpoint";

/// Candidates a matching step shows per generated item.
const CANDIDATES: usize = 5;
/// Generated items per matching call.
const MATCH_BATCH: usize = 8;

/// What the LLM metrics share while they run.
pub struct Context<'a> {
    workspace: &'a Workspace,
    expert: &'a Survey,
    generated: &'a Survey,
    options: &'a SurveyOptions,
    llm: Option<&'a Client>,
    topic: &'a str,
    progress: &'a dyn Progress,
    trace: Vec<TraceStep>,
    down: Option<String>,
}

/// Why a step or metric stopped.
enum Stop {
    /// The endpoint failed: the metric fails, and the remaining LLM metrics are not run.
    Endpoint(String),
    /// Something else went wrong (the encoder, a cache).
    Other(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Other(e)
    }
}

type StepResult<T> = std::result::Result<T, Stop>;

impl<'a> Context<'a> {
    pub fn new(
        workspace: &'a Workspace,
        expert: &'a Survey,
        generated: &'a Survey,
        options: &'a SurveyOptions,
        llm: Option<&'a Client>,
        topic: &'a str,
        progress: &'a dyn Progress,
    ) -> Context<'a> {
        Context { workspace, expert, generated, options, llm, topic, progress, trace: Vec::new(), down: None }
    }

    /// The trace and the client's usage.
    pub fn finish(self) -> (Vec<TraceStep>, Option<litnav_llm::Usage>) {
        (self.trace, self.llm.map(Client::usage))
    }

    /// Run one LLM metric (or say why it does not run).
    pub fn run(&mut self, metric: Metric) -> MetricScore {
        let Some(client) = self.llm else {
            return MetricScore::not_run(metric, NO_ENDPOINT);
        };
        if let Some(why) = &self.down {
            return MetricScore::not_run(metric, format!("the LLM endpoint failed earlier: {why}"));
        }
        self.progress.stage(&format!("{} ({}) with the LLM", metric.name(), metric.key()));
        let result = match metric {
            Metric::EFid => self.entity_fidelity(client),
            Metric::FCons => self.statement_alignment(client, Metric::FCons, StatementKind::Factual),
            Metric::Caa => self.statement_alignment(client, Metric::Caa, StatementKind::Critical),
            Metric::Otc => self.outline_topic_coverage(client),
            Metric::Cf => self.citation_faithfulness(client),
            Metric::TfSim => self.thematic_focus(client),
            Metric::Scs => self.structural_clarity(client),
            Metric::Fap => self.grade(client, judges::Aspect::FrameworkApplication),
            Metric::FNov => self.grade(client, judges::Aspect::FrameworkNovelty),
            Metric::Roq => self.grade(client, judges::Aspect::ResearchOutlook),
            other => unreachable!("{} needs no LLM", other.key()),
        };
        let steps = self.trace.iter().filter(|s| s.metric == metric.key());
        let (asked, invalid) = steps.fold((0, 0), |(n, bad), s| (n + 1, bad + usize::from(s.error.is_some())));
        match result {
            Ok(_) if asked > 0 && invalid == asked => MetricScore::failed(
                metric,
                format!("all {asked} of the model's answers for it stayed invalid (the trace has them)"),
            ),
            Ok(score) if invalid > 0 => score.with_note("invalid_steps", json!(invalid)),
            Ok(score) => score,
            Err(Stop::Endpoint(why)) => {
                self.down = Some(why.clone());
                MetricScore::failed(metric, why)
            }
            Err(Stop::Other(e)) => MetricScore::failed(metric, e.to_string()),
        }
    }

    /// Record a step's answer; an answer invalid after the repair is `None` (recorded too).
    fn step<T>(
        &mut self,
        metric: Metric,
        step: String,
        result: litnav_llm::Result<Answer<T>>,
    ) -> StepResult<Option<T>> {
        match result {
            Ok(answer) => {
                self.trace.push(TraceStep {
                    metric: metric.key(),
                    step,
                    answer: answer.raw,
                    repaired: answer.repaired,
                    cached: answer.cached,
                    error: None,
                });
                Ok(Some(answer.value))
            }
            Err(e @ litnav_llm::Error::Invalid { .. }) => {
                let answer = match &e {
                    litnav_llm::Error::Invalid { answer, .. } => answer.clone(),
                    _ => String::new(),
                };
                self.trace.push(TraceStep {
                    metric: metric.key(),
                    step,
                    answer,
                    repaired: true,
                    cached: false,
                    error: Some(e.to_string()),
                });
                Ok(None)
            }
            Err(e) => Err(Stop::Endpoint(e.to_string())),
        }
    }

    /// A survey's text in passages of at most `chunk_chars` characters (whole paragraphs, each
    /// passage opened by its section's heading), at most `max_passages` of them spread evenly.
    fn passages(&self, survey: &Survey) -> Vec<String> {
        let mut passages = Vec::new();
        let mut current = String::new();
        for section in &survey.sections {
            for paragraph in &section.paragraphs {
                if !current.is_empty() && current.len() + paragraph.text.len() > self.options.chunk_chars {
                    passages.push(std::mem::take(&mut current));
                }
                if current.is_empty() && !section.heading.is_empty() {
                    current.push_str(&format!("## {}\n\n", section.heading));
                }
                let room = self.options.chunk_chars.saturating_sub(current.len()).max(200);
                current.extend(paragraph.text.chars().take(room));
                current.push_str("\n\n");
            }
        }
        if !current.trim().is_empty() {
            passages.push(current);
        }
        spread(passages, self.options.max_passages)
    }

    fn side(&self, expert: bool) -> (&'a Survey, &'static str) {
        if expert { (self.expert, "expert") } else { (self.generated, "generated") }
    }

    /// Unit vectors of short texts, through litnav's label cache.
    fn vectors(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let encoder = self.workspace.encoder(self.progress)?;
        Ok(litnav_embed::embed_cached(encoder, texts, &self.workspace.settings().vector_cache("labels")))
    }

    /// Match generated items to expert items: each generated item is shown its closest expert items
    /// (MiniLM cosine) and the model picks the one that means the same, or none; an expert item
    /// keeps its first match. Returns (generated index, expert index) pairs.
    fn match_lists(
        &mut self,
        client: &Client,
        metric: Metric,
        what: &str,
        generated: &[String],
        expert: &[String],
    ) -> StepResult<Vec<(usize, usize)>> {
        if generated.is_empty() || expert.is_empty() {
            return Ok(Vec::new());
        }
        let (gv, ev) = (self.vectors(generated)?, self.vectors(expert)?);
        let shortlists: Vec<Vec<usize>> = gv
            .iter()
            .map(|g| {
                let mut scored: Vec<(f32, usize)> =
                    ev.iter().enumerate().map(|(j, e)| (litnav_core::vector::dot(g, e), j)).collect();
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                scored.into_iter().take(CANDIDATES).map(|(_, j)| j).collect()
            })
            .collect();
        let mut taken = vec![false; expert.len()];
        let mut pairs = Vec::new();
        for (batch, start) in (0..generated.len()).step_by(MATCH_BATCH).enumerate() {
            let end = (start + MATCH_BATCH).min(generated.len());
            let items: Vec<(&str, Vec<&str>)> = (start..end)
                .map(|g| (generated[g].as_str(), shortlists[g].iter().map(|&e| expert[e].as_str()).collect()))
                .collect();
            let answer = steps::match_items(client, what, &items);
            let Some(choices) = self.step(metric, format!("matching batch {}", batch + 1), answer)? else { continue };
            for (offset, choice) in choices.into_iter().enumerate() {
                let g = start + offset;
                if let Some(e) = choice.map(|c| shortlists[g][c])
                    && !taken[e]
                {
                    taken[e] = true;
                    pairs.push((g, e));
                }
            }
        }
        Ok(pairs)
    }

    /// EFid: entities of both surveys (by kind), matched within each kind; P/R/F1 over distinct
    /// entities, DS over the matched pairs' occurrence counts.
    fn entity_fidelity(&mut self, client: &Client) -> StepResult<MetricScore> {
        let metric = Metric::EFid;
        let mut sides = Vec::new();
        for expert in [true, false] {
            let (survey, label) = self.side(expert);
            // kind → name (as first written) by its lowercase form.
            let mut found: [BTreeMap<String, String>; 3] = Default::default();
            for (i, passage) in self.passages(survey).iter().enumerate() {
                let answer = steps::entities(client, passage);
                let Some(entities) = self.step(metric, format!("{label} passage {}", i + 1), answer)? else { continue };
                for (kind, names) in
                    [entities.methods_models, entities.datasets, entities.evaluation_metrics].into_iter().enumerate()
                {
                    for name in names {
                        let key = name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
                        found[kind].entry(key).or_insert(name);
                    }
                }
            }
            let text = survey.body_text().to_lowercase();
            let counted: [Vec<(String, f64)>; 3] = found.map(|names| {
                names.into_iter().map(|(key, name)| (name, text.matches(key.as_str()).count().max(1) as f64)).collect()
            });
            sides.push(counted);
        }
        let (expert, generated) = (&sides[0], &sides[1]);
        let (mut matched, mut pc, mut qc) = (Vec::new(), Vec::new(), Vec::new());
        for kind in 0..3 {
            let g: Vec<String> = generated[kind].iter().map(|(n, _)| n.clone()).collect();
            let e: Vec<String> = expert[kind].iter().map(|(n, _)| n.clone()).collect();
            for (gi, ei) in self.match_lists(client, metric, "entities", &g, &e)? {
                pc.push(expert[kind][ei].1);
                qc.push(generated[kind][gi].1);
                matched.push(json!({"generated": g[gi], "expert": e[ei], "generated_count": generated[kind][gi].1, "expert_count": expert[kind][ei].1}));
            }
        }
        let total = |side: &[Vec<(String, f64)>; 3]| side.iter().map(Vec::len).sum::<usize>();
        let prf = bloom::prf(matched.len(), total(generated), total(expert));
        let ds = bloom::distributional_similarity(&pc, &qc, self.options.compat);
        Ok(MetricScore::prf(metric, prf, Some(ds)).with_evidence(json!({
            "expert_entities": total(expert), "generated_entities": total(generated), "matched": matched,
        })))
    }

    /// Statements of one kind from both surveys, deduplicated.
    fn statements(
        &mut self,
        client: &Client,
        metric: Metric,
        kind: StatementKind,
        expert: bool,
    ) -> StepResult<Vec<String>> {
        let (survey, label) = self.side(expert);
        let mut out: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, passage) in self.passages(survey).iter().enumerate() {
            let answer = steps::statements(client, kind, passage);
            let Some(statements) = self.step(metric, format!("{label} passage {}", i + 1), answer)? else { continue };
            for s in statements {
                if seen.insert(s.trim().to_lowercase()) {
                    out.push(s.trim().to_string());
                }
            }
        }
        Ok(out)
    }

    /// FCons and CAA: the generated survey's statements matched to the expert's; P/R/F1.
    fn statement_alignment(&mut self, client: &Client, metric: Metric, kind: StatementKind) -> StepResult<MetricScore> {
        let expert = self.statements(client, metric, kind, true)?;
        let generated = self.statements(client, metric, kind, false)?;
        let what = if kind == StatementKind::Factual { "claims" } else { "critical statements" };
        let pairs = self.match_lists(client, metric, what, &generated, &expert)?;
        let prf = bloom::prf(pairs.len(), generated.len(), expert.len());
        let matched: Vec<_> =
            pairs.iter().map(|&(g, e)| json!({"generated": generated[g], "expert": expert[e]})).collect();
        Ok(MetricScore::prf(metric, prf, None).with_evidence(json!({
            "expert_statements": expert.len(), "generated_statements": generated.len(), "matched": matched,
        })))
    }

    /// OTC: the generated outline's headings matched to the expert's (numbers removed, the title
    /// left out); precision over generated headings, recall over expert headings.
    fn outline_topic_coverage(&mut self, client: &Client) -> StepResult<MetricScore> {
        let headings = |s: &Survey| -> Vec<String> {
            s.outline
                .iter()
                .filter(|h| h.level > 0)
                .map(|h| bloom::clean_heading(&h.text))
                .filter(|h| !h.is_empty())
                .collect()
        };
        let (expert, generated) = (headings(self.expert), headings(self.generated));
        let pairs = self.match_lists(client, Metric::Otc, "topics", &generated, &expert)?;
        let prf = bloom::prf(pairs.len(), generated.len(), expert.len());
        let matched: Vec<_> =
            pairs.iter().map(|&(g, e)| json!({"generated": generated[g], "expert": expert[e]})).collect();
        Ok(MetricScore::prf(Metric::Otc, prf, None).with_evidence(
            json!({"expert_headings": expert.len(), "generated_headings": generated.len(), "matched": matched}),
        ))
    }

    /// CF: each (sentence, cited paper) of the generated survey checked against the paper's title
    /// and abstract. Recall: sentences with at least one supporting citation ÷ citing sentences;
    /// precision: citations that are their sentence's only support ÷ all citations (Bloom-Eval's
    /// reading of Wang et al.'s citation recall and precision).
    fn citation_faithfulness(&mut self, client: &Client) -> StepResult<MetricScore> {
        let survey = self.generated;
        let mut pairs: Vec<(usize, &str, usize)> = Vec::new();
        for (s, (_, _, sentence)) in survey.citing_sentences().enumerate() {
            for &r in &sentence.references {
                pairs.push((s, sentence.text.as_str(), r));
            }
        }
        if pairs.is_empty() {
            return Ok(MetricScore::not_run(
                Metric::Cf,
                "the generated survey has no sentence citing a bibliography entry",
            ));
        }
        let sampled = spread(pairs, self.options.max_citations);
        let mut support: BTreeMap<usize, Vec<bool>> = BTreeMap::new();
        for (i, (sentence_index, sentence, reference)) in sampled.iter().enumerate() {
            let entry = &survey.bibliography[*reference];
            let answer = steps::citation_support(
                client,
                sentence,
                &entry.title,
                entry.abstract_text.as_deref().unwrap_or("(no abstract)"),
            );
            if let Some(verdict) = self.step(Metric::Cf, format!("citation {}", i + 1), answer)? {
                support.entry(*sentence_index).or_default().push(verdict.supported);
            }
        }
        let sentences = support.len();
        let supported_sentences = support.values().filter(|v| v.iter().any(|s| *s)).count();
        let citations: usize = support.values().map(Vec::len).sum();
        let precise = support.values().filter(|v| v.iter().filter(|s| **s).count() == 1).count();
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let (recall, precision) = (ratio(supported_sentences, sentences), ratio(precise, citations));
        let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
        Ok(MetricScore::prf(Metric::Cf, (precision, recall, f1), None).with_evidence(json!({
            "citations_checked": citations, "citing_sentences": sentences, "supported_sentences": supported_sentences,
            "citations_total": survey.citing_sentences().map(|(_, _, s)| s.references.len()).sum::<usize>(),
        })))
    }

    /// TFSim: the generated bibliography's themes matched to the expert's (by name); P/R/F1 as
    /// Bloom-Eval's script counts them, DS over each matched expert theme's size against the sizes
    /// of the generated themes matched to it.
    fn thematic_focus(&mut self, client: &Client) -> StepResult<MetricScore> {
        let expert = themes(self.workspace, self.expert, self.progress)?;
        let generated = themes(self.workspace, self.generated, self.progress)?;
        let names = |t: &[super::deterministic::Theme]| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        let (en, gn) = (names(&expert), names(&generated));
        let pairs = self.match_lists(client, Metric::TfSim, "topics", &gn, &en)?;
        let prf = bloom::prf(pairs.len(), generated.len(), expert.len());
        let mut by_expert: BTreeMap<usize, f64> = BTreeMap::new();
        for &(g, e) in &pairs {
            *by_expert.entry(e).or_default() += generated[g].size as f64;
        }
        let p: Vec<f64> = by_expert.keys().map(|&e| expert[e].size as f64).collect();
        let q: Vec<f64> = by_expert.values().copied().collect();
        let ds = bloom::distributional_similarity(&p, &q, self.options.compat);
        let matched: Vec<_> = pairs.iter().map(|&(g, e)| json!({"generated": gn[g], "expert": en[e]})).collect();
        Ok(MetricScore::prf(Metric::TfSim, prf, Some(ds))
            .with_evidence(json!({"expert_themes": en, "generated_themes": gn, "matched": matched})))
    }

    /// SCS of each survey: 1 − (redundant heading pairs in different branches) ÷ headings.
    fn structural_clarity(&mut self, client: &Client) -> StepResult<MetricScore> {
        let mut values = Vec::new();
        let mut evidence = serde_json::Map::new();
        for expert in [true, false] {
            let (survey, label) = self.side(expert);
            let (listing, ids, parents) = outline_listing(survey);
            if ids.len() < 2 {
                values.push(Some(1.0));
                continue;
            }
            let answer = steps::redundant_headings(client, &listing, &ids);
            // An answer that stayed invalid leaves this survey without a value (never a perfect one).
            let Some(pairs) = self.step(Metric::Scs, format!("{label} outline"), answer)? else {
                values.push(None);
                continue;
            };
            let verified: Vec<&(String, String)> =
                pairs.iter().filter(|(a, b)| parents.get(a) != parents.get(b)).collect();
            values.push(Some(1.0 - verified.len() as f64 / ids.len() as f64));
            evidence.insert(label.to_string(), json!({"headings": ids.len(), "redundant_pairs": verified}));
        }
        let Some(generated) = values[1] else {
            return Ok(MetricScore::failed(
                Metric::Scs,
                "the model's answer for the generated outline stayed invalid (the trace has them)",
            ));
        };
        let mut score = MetricScore::per_survey(Metric::Scs, values[0].unwrap_or(f64::NAN), generated);
        score.expert = values[0];
        Ok(score.with_evidence(serde_json::Value::Object(evidence)))
    }

    /// FAP, FNov, ROQ: GRADE on the part of each survey the ability shows in.
    fn grade(&mut self, client: &Client, aspect: judges::Aspect) -> StepResult<MetricScore> {
        let metric = match aspect {
            judges::Aspect::FrameworkApplication => Metric::Fap,
            judges::Aspect::FrameworkNovelty => Metric::FNov,
            judges::Aspect::ResearchOutlook => Metric::Roq,
        };
        let (expert, generated) = (
            excerpt(self.expert, aspect, self.options.grade_chars),
            excerpt(self.generated, aspect, self.options.grade_chars),
        );
        let answer = judges::grade_aspect(client, aspect, self.topic, &expert, &generated).map(|grade| Answer {
            raw: serde_json::to_string(&grade).unwrap_or_default(),
            value: grade,
            repaired: false,
            cached: false,
        });
        Ok(match self.step(metric, "rubric and scores".into(), answer)? {
            Some(grade) => {
                MetricScore { score: Some(grade.score), ..MetricScore::new(metric) }.with_evidence(json!(grade))
            }
            // `run` reports it: every answer of the metric stayed invalid.
            None => MetricScore::new(metric),
        })
    }
}

/// `items` thinned to at most `limit`, spread evenly (all when no limit).
fn spread<T>(items: Vec<T>, limit: Option<usize>) -> Vec<T> {
    match limit {
        Some(limit) if limit < items.len() => {
            let n = items.len();
            let keep: std::collections::BTreeSet<usize> = (0..limit).map(|i| i * n / limit).collect();
            items.into_iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, x)| x).collect()
        }
        _ => items,
    }
}

/// The outline with Bloom-Eval's heading ids (`H1`, `H1_2`, …), the ids, and each id's parent.
fn outline_listing(survey: &Survey) -> (String, Vec<String>, HashMap<String, String>) {
    let mut lines = Vec::new();
    let mut ids = Vec::new();
    let mut parents = HashMap::new();
    let mut last_at_level: HashMap<usize, String> = HashMap::new();
    let mut counters: HashMap<String, usize> = HashMap::new();
    for heading in &survey.outline {
        let parent =
            heading.level.checked_sub(1).and_then(|l| last_at_level.get(&l).cloned()).unwrap_or_else(|| "root".into());
        let prefix = if parent == "root" { "H".to_string() } else { parent.replace('.', "_") };
        let counter = counters.entry(prefix.clone()).or_default();
        *counter += 1;
        let id = if parent == "root" { format!("H{counter}") } else { format!("{prefix}_{counter}") };
        lines.push(format!("{}{id}: {}", "  ".repeat(heading.level), bloom::clean_heading(&heading.text)));
        parents.insert(id.clone(), parent);
        last_at_level.insert(heading.level, id.clone());
        ids.push(id);
    }
    (lines.join("\n"), ids, parents)
}

/// The part of a survey GRADE shows for an ability, cut to `max_chars`: the outline and the
/// opening for the framework abilities; the sections on the future (future, outlook, direction,
/// open, challenge, conclusion) for the research outlook, else the last sections.
fn excerpt(survey: &Survey, aspect: judges::Aspect, max_chars: usize) -> String {
    let outline: String = survey.outline.iter().map(|h| format!("{}{}\n", "  ".repeat(h.level), h.text)).collect();
    let section_text = |s: &litnav_survey::Section| {
        format!("## {}\n{}\n", s.heading, s.paragraphs.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n"))
    };
    let text = match aspect {
        judges::Aspect::ResearchOutlook => {
            let words = ["future", "outlook", "direction", "open", "challenge", "conclusion"];
            let chosen: Vec<&litnav_survey::Section> =
                survey.sections.iter().filter(|s| words.iter().any(|w| s.heading.to_lowercase().contains(w))).collect();
            let chosen = if chosen.is_empty() { survey.sections.iter().rev().take(2).collect() } else { chosen };
            chosen.into_iter().map(section_text).collect::<String>()
        }
        _ => format!("Outline:\n{outline}\n{}", survey.sections.iter().take(2).map(section_text).collect::<String>()),
    };
    text.chars().take(max_chars).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_keeps_an_even_sample() {
        assert_eq!(spread((0..10).collect(), Some(3)), [0, 3, 6]);
        assert_eq!(spread((0..3).collect(), Some(5)), [0, 1, 2]);
        assert_eq!(spread((0..4).collect(), None), [0, 1, 2, 3]);
    }
}
