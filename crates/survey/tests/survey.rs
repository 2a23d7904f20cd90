//! The survey reader on Bloom-Eval's own surveys, against what Bloom-Eval's scripts report for
//! them (`../shared/peers/bloom-eval`, run on the same files: FMI 0.9551 / 1.0000 and DSI 0.50 /
//! 0.00 on cs_01's expert and LLM surveys).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_eval::bloom::document_structure_integrity;
use litnav_survey::markers::formatting_integrity;
use litnav_survey::{Layout, Survey, text};
use std::path::PathBuf;

fn bloom() -> PathBuf {
    litnav_testkit::datasets().join("bloom-eval")
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn every_expert_survey_reads_with_its_citations_resolved() {
    let mut topics: Vec<PathBuf> =
        std::fs::read_dir(bloom()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("human").is_dir()).collect();
    topics.sort();
    assert_eq!(topics.len(), 14);
    for topic in topics {
        let survey = Survey::read(&topic.join("human")).unwrap();
        assert_eq!(survey.layout, Layout::BloomEval);
        assert!(!survey.bibliography.is_empty(), "{}", topic.display());
        assert!(survey.citing_sentences().count() > 10, "{}: citing sentences", topic.display());
        // Numbered, parenthesized-number and author–year styles all resolve: a good share of every
        // bibliography is reached by the text's markers.
        let cited = survey.citation_counts().iter().filter(|c| **c > 0).count();
        let share = cited as f64 / survey.bibliography.len() as f64;
        eprintln!("{}: {cited} of {} entries cited", topic.display(), survey.bibliography.len());
        assert!(
            cited >= 20 && share >= 0.3,
            "{}: {cited} of {} entries cited",
            topic.display(),
            survey.bibliography.len()
        );
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn cs_01_matches_bloom_evals_formatting_and_structure_scores() {
    let expert = Survey::read(&bloom().join("cs_01/human")).unwrap();
    let generated = Survey::read(&bloom().join("cs_01/llm")).unwrap();
    let fmi = |s: &Survey| formatting_integrity(&s.cited, &s.defined).score;
    assert!((fmi(&expert) - 0.9551).abs() < 5e-5, "{}", fmi(&expert));
    assert_eq!(fmi(&generated), 1.0);
    assert_eq!(formatting_integrity(&expert.cited, &expert.defined).uncited.len(), 11);
    let dsi = |s: &Survey| {
        let headings = text::atx_headings(&s.content);
        document_structure_integrity(&headings.iter().map(String::as_str).collect::<Vec<_>>()).0
    };
    assert_eq!((dsi(&expert), dsi(&generated)), (0.5, 0.0));
    // The same LLM survey as Markdown: its references section defines and its text cites the
    // same 397 numbers.
    let markdown = Survey::read(&bloom().join("cs_01/llm/A Survey on Vision Transformers.md")).unwrap();
    assert_eq!(markdown.layout, Layout::Markdown);
    assert_eq!(markdown.title, "A Comprehensive Survey on Vision Transformers");
    assert_eq!(fmi(&markdown), 1.0);
    assert_eq!(markdown.cited.len(), 397);
    let titles =
        |s: &Survey| s.bibliography.iter().map(|r| litnav_survey::markers::lookup_key(&r.title)).collect::<Vec<_>>();
    let (a, b) = (titles(&markdown), titles(&generated));
    assert_eq!(a.len(), b.len());
    assert!(a == b, "the Markdown and the JSON bibliographies list the same titles");
}
