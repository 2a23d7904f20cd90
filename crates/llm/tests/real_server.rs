//! The LLM layer against a real llama.cpp server (SmolLM2-135M-Instruct, started by
//! `scripts/llm-server.sh`, which builds it once) on real TaxoBench data: the Cluster Reader on a
//! survey's papers, the Thematic Organizer on an expert taxonomy's subtopics, the tree judge on that
//! taxonomy. The assertions are on validated structure, never on the model's wording.
//!
//! A 135M-parameter model often says inconsistent things (relatedness 1 yet "related"); the layer
//! must catch that. A rejected answer is checked as a rejection: `Error::Invalid` whose last answer
//! is schema-shaped JSON — the request, the JSON-schema constraint and the meaning check all ran.
//! But no test passes on rejections alone: each needs at least one validated answer, checked here
//! again (the server samples at temperature 0 with a fixed seed, so which answers validate is
//! stable), and the Cluster Reader, which this model often contradicts, is tried on several real
//! clusters. Anything else fails (no server, HTTP errors, timeouts, unparseable replies).

#![allow(clippy::unwrap_used)]

use litnav_core::PaperText;
use litnav_llm::{Client, Config, Error, judges, navigator};
use serde_json::Value;
use std::time::Duration;

fn server() -> &'static str {
    litnav_testkit::llm_server()
}

fn client() -> Client {
    // No cache: these tests exist to exercise the real HTTP + JSON-schema path.
    Client::new(Config { base_url: server().to_string(), timeout: Duration::from_secs(300), ..Config::default() })
}

/// The answer's value, or `None` when the model's (schema-shaped) answer failed a meaning check.
fn validated<T>(result: Result<T, Error>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(Error::Invalid { problem, answer, .. }) => {
            let parsed = litnav_llm::structured::extract_json(&answer);
            assert!(parsed.is_ok(), "the JSON-schema constraint did not hold: {problem}: {answer}");
            eprintln!("meaning check rejected the model's answer (as it should): {problem}");
            None
        }
        Err(other) => panic!("the real server path failed: {other}"),
    }
}

/// The answer's value, which must have passed every check.
fn required<T>(result: Result<T, Error>) -> T {
    match result {
        Ok(value) => value,
        Err(other) => panic!("the real server's answer was expected to validate: {other}"),
    }
}

fn instances() -> Vec<Value> {
    let path = litnav_testkit::datasets().join("taxobench/data.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn instance() -> Value {
    instances().swap_remove(0)
}

fn names(node: &Value, depth: usize, out: &mut Vec<(usize, String)>) {
    out.push((depth, node["name"].as_str().unwrap().to_string()));
    for child in node["subtopics"].as_array().into_iter().flatten() {
        names(child, depth + 1, out);
    }
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn cluster_reader_reads_a_real_cluster() {
    let c = client();
    let mut readings = Vec::new();
    // The first four papers of each TaxoBench instance, until one reading passes every check.
    for instance in instances() {
        let pdfs = instance["pdfs"].as_array().unwrap();
        let papers: Vec<PaperText<'_>> = pdfs
            .iter()
            .take(4)
            .map(|p| PaperText { title: p["title"].as_str().unwrap(), abstract_text: p["abs"].as_str() })
            .collect();
        let topic = instance["survey_topic"].as_str().unwrap_or("a survey topic");
        if let Some(answer) = validated(navigator::read_cluster(&c, topic, &papers)) {
            readings.push(answer.value);
            break;
        }
    }
    assert!(c.usage().calls >= 1 && c.usage().completion_tokens > 0);
    let reading = readings.pop().expect("no real cluster got a reading that passed the meaning checks");
    assert!(!reading.name.trim().is_empty() && !reading.description.trim().is_empty());
    assert!((1..=5).contains(&reading.relatedness));
    assert_eq!(reading.related, reading.relatedness >= 3);
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn thematic_organizer_places_every_real_subtopic_once() {
    let instance = instance();
    let mut all = Vec::new();
    names(&instance["gt"], 0, &mut all);
    let subtopics: Vec<(String, String)> =
        all.iter().filter(|(depth, _)| *depth >= 2).take(8).map(|(_, n)| (n.clone(), String::new())).collect();
    assert!(subtopics.len() >= 4);
    let themes =
        navigator::organize_themes(&client(), "personalized alignment of large language models", &subtopics).unwrap();
    let mut placed: Vec<usize> = themes.themes.iter().flat_map(|t| t.subtopics.clone()).collect();
    placed.sort();
    assert_eq!(placed, (0..subtopics.len()).collect::<Vec<_>>(), "every subtopic exactly once");
    assert!(themes.themes.iter().all(|t| !t.name.trim().is_empty() && !t.subtopics.is_empty()));
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn tree_judge_scores_a_real_expert_taxonomy() {
    let instance = instance();
    let mut all = Vec::new();
    names(&instance["gt"], 0, &mut all);
    let outline: String =
        all.iter().filter(|(d, _)| *d <= 3).map(|(d, n)| format!("{}- {n}\n", "  ".repeat(*d))).collect();
    let topic = "personalized alignment of large language models";
    let judgement = required(judges::judge_tree(&client(), topic, &outline));
    assert_eq!(judgement.dimensions.len(), 4);
    assert!(judgement.dimensions.values().all(|j| (1..=5).contains(&j.score) && !j.reason.trim().is_empty()));
    assert!((1.0..=5.0).contains(&judgement.mean));
    assert!(!judgement.raw.is_empty());
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn citation_sentiment_labels_a_real_passage() {
    let passage = "We evaluate with BLEU (Papineni et al., 2002), which correlates well with human judgments.";
    let c = client();
    let judged = required(judges::citation_sentiment(&c, "Bleu: a method for automatic evaluation", passage));
    // The label is typed (an out-of-vocabulary answer fails to parse and is repaired); the reason
    // must be there.
    assert!(!judged.reason.trim().is_empty(), "{judged:?}");
    assert!(c.usage().calls >= 1);
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn paper_ratings_and_path_rationality_on_real_papers() {
    let c = client();
    let bleu = litnav_core::PaperText::new(
        "Bleu: a method for automatic evaluation of machine translation",
        Some(
            "Human evaluations of machine translation are expensive. We propose a quick, inexpensive, language-independent method of automatic evaluation that correlates highly with human evaluation.",
        ),
    );
    let mut rated = 0;
    for property in [judges::PaperProperty::Novelty, judges::PaperProperty::Disruption] {
        if let Some(verdict) = validated(judges::rate_paper(&c, property, bleu)) {
            // The schema bounds the score; the meaning check wants a reason.
            assert!((1..=10).contains(&verdict.score) && !verdict.reason.trim().is_empty(), "{verdict:?}");
            rated += 1;
        }
    }
    let ibm =
        litnav_core::PaperText::new("The mathematics of statistical machine translation: parameter estimation", None);
    if let Some(verdict) = validated(judges::judge_path(&c, &[ibm, bleu])) {
        assert!((1..=10).contains(&verdict.score));
        rated += 1;
    }
    assert!(rated >= 1, "none of the three verdicts passed the meaning checks");
    assert!(c.usage().calls >= 3);
}
