//! Integration tests of lexical search on the real litbench corpus.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_corpus::{Catalog, MergeReport, Paper, ReadOptions, Topic, readers};
use litnav_search::{BuildOptions, LexicalIndex, SearchQuery};
use litnav_testkit::datasets;
use std::collections::HashSet;
use std::sync::OnceLock;

struct Fixture {
    papers: Vec<Paper>,
    topics: Vec<Topic>,
    index: LexicalIndex,
    _dir: tempfile::TempDir,
}

/// litbench papers and topics, indexed once for the whole test binary.
fn litbench() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut catalog = Catalog::default();
        let mut report = MergeReport::default();
        for file in ["litbench/corpus.jsonl", "litbench/topics.jsonl"] {
            let contents = readers::read_file(&datasets().join(file), ReadOptions::default()).expect("read litbench");
            catalog.merge(contents.items, &mut report).expect("merge litbench");
        }
        let (papers, topics) = catalog.into_parts().expect("litbench papers");
        let dir = tempfile::tempdir().expect("tempdir");
        LexicalIndex::build(dir.path(), &papers[..], BuildOptions::default()).expect("build index");
        let index = LexicalIndex::open(dir.path()).expect("open index");
        Fixture { papers, topics, index, _dir: dir }
    })
}

/// ResearchArena's discovery protocol on one topic: query = survey title, candidates = non-surveys
/// published before the survey. Returns (recall@100, chance recall@100).
fn discovery_recall(fixture: &Fixture, topic: &Topic, k: usize) -> (f64, f64) {
    let query = SearchQuery { k, before: topic.year, exclude_surveys: true, ..SearchQuery::new(topic.title.clone()) };
    let hits = fixture.index.search(&query).expect("search");
    let relevant: HashSet<&str> = topic.reference_ids.iter().map(String::as_str).collect();
    let found = hits.iter().filter(|h| relevant.contains(h.id.as_str())).count();
    let candidates = fixture
        .papers
        .iter()
        .filter(|p| !p.is_survey && topic.year.is_none_or(|y| p.year.is_some_and(|py| py < y)))
        .count();
    let recall = found as f64 / relevant.len() as f64;
    let chance = (k as f64 / candidates as f64).min(1.0);
    (recall, chance)
}

/// Measured with the default boosts (BENCHMARKS.md): the weakest topic (gs_05, a survey-methods
/// guide) reaches 0.094, the mean is 0.435; chance is about 0.03 on every topic.
const FLOOR: f64 = 0.09;
const MEAN_FLOOR: f64 = 0.42;
/// Every topic must beat chance by at least this factor (the weakest does by 3.1).
const LIFT_FLOOR: f64 = 3.0;

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn every_topic_ranks_its_expert_references_far_above_chance() {
    let fixture = litbench();
    assert_eq!(fixture.topics.len(), 19);
    let mut recalls = Vec::new();
    for topic in &fixture.topics {
        let (recall, chance) = discovery_recall(fixture, topic, 100);
        eprintln!("{:<8} recall@100 {recall:.3}  chance {chance:.3}  {}", topic.id, topic.title);
        assert!(recall >= FLOOR, "{}: recall@100 {recall:.3} is below the floor", topic.id);
        assert!(
            recall >= LIFT_FLOOR * chance,
            "{}: recall@100 {recall:.3} is not well above chance {chance:.3}",
            topic.id
        );
        recalls.push(recall);
    }
    let mean = recalls.iter().sum::<f64>() / recalls.len() as f64;
    eprintln!("mean recall@100 {mean:.3}");
    assert!(mean >= MEAN_FLOOR, "mean recall@100 {mean:.3} fell below the measured floor");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn filters_hold_for_every_hit() {
    let fixture = litbench();
    let surveys: HashSet<&str> = fixture.papers.iter().filter(|p| p.is_survey).map(|p| p.id.as_str()).collect();
    let query = SearchQuery {
        k: 300,
        before: Some(2020),
        exclude_surveys: true,
        ..SearchQuery::new("transformer survey review")
    };
    let hits = fixture.index.search(&query).expect("search");
    assert!(hits.len() >= 200, "only {} hits", hits.len());
    for hit in &hits {
        assert!(hit.year.is_some_and(|y| y < 2020), "{hit:?} is not before 2020");
        assert!(!surveys.contains(hit.id.as_str()), "{hit:?} is a survey");
    }
    let unfiltered = fixture.index.search(&SearchQuery { k: 50, ..SearchQuery::new("survey") }).expect("search");
    assert!(unfiltered.iter().any(|h| surveys.contains(h.id.as_str())), "surveys must be findable without the filter");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn ranking_is_sorted_deterministic_and_bounded_by_k() {
    let fixture = litbench();
    let query = SearchQuery { k: 25, ..SearchQuery::new("in-context learning with large language models") };
    let first = fixture.index.search(&query).expect("search");
    assert_eq!(first.len(), 25);
    assert!(first.windows(2).all(|w| w[0].score >= w[1].score));
}

/// Indexing threads spread papers over segments differently from build to build; rankings must
/// not change, ties at the k-th place included. Short generic queries produce many exact ties.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn rankings_do_not_depend_on_indexing_threads() {
    let fixture = litbench();
    let build = |threads| {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = BuildOptions { threads, memory_budget: 64 << 20 };
        LexicalIndex::build(dir.path(), &fixture.papers[..], options).expect("build");
        (LexicalIndex::open(dir.path()).expect("open"), dir)
    };
    let (one, _a) = build(1);
    let (three, _b) = build(3);
    let mut queries: Vec<String> =
        ["model", "learning", "network", "quantum", "iron", "survey"].map(String::from).to_vec();
    queries.extend(fixture.papers.iter().step_by(97).map(|p| p.title.clone()));
    let mut ties_at_cutoff = 0;
    for text in &queries {
        for k in [1, 10, 100] {
            let query = SearchQuery { k, ..SearchQuery::new(text.clone()) };
            let (a, b) = (one.search(&query).expect("search"), three.search(&query).expect("search"));
            if let Some(at) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                panic!("{text:?} k={k}: rankings differ at rank {}: {:?} vs {:?}", at + 1, a.get(at), b.get(at));
            }
            let wide = one.search(&SearchQuery { k: k + 1, ..query.clone() }).expect("search");
            if wide.len() > k && wide[k].score == wide[k - 1].score {
                ties_at_cutoff += 1;
            }
        }
    }
    assert!(ties_at_cutoff > 0, "the queries must exercise ties at the cut-off");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn title_matches_outweigh_abstract_matches() {
    let fixture = litbench();
    let key = litnav_corpus::title_key("Attention is all you need");
    let paper =
        fixture.papers.iter().find(|p| litnav_corpus::title_key(&p.title) == key).expect("attention paper in litbench");
    let hits = fixture.index.search(&SearchQuery::new(paper.title.clone())).expect("search");
    assert_eq!(hits[0].id, paper.id);
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn empty_and_stopword_queries_are_errors() {
    let fixture = litbench();
    for text in ["", "   ", "the of and", "?!"] {
        match fixture.index.search(&SearchQuery::new(text)) {
            Err(litnav_search::Error::EmptyQuery { .. }) => {}
            other => panic!("{text:?}: expected EmptyQuery, got {other:?}"),
        }
    }
}

/// A small index of made-up papers (no datasets needed).
fn small_index(dir: &std::path::Path) {
    let papers: Vec<Paper> = (0..30)
        .map(|i| Paper {
            id: format!("p{i}"),
            title: format!("graph neural networks for molecule {i}"),
            abstract_text: Some(format!("message passing and attention, variant {i}")),
            year: Some(2000 + i),
            ..Paper::default()
        })
        .collect();
    LexicalIndex::build(dir, &papers[..], BuildOptions { memory_budget: 16 << 20, threads: 1 }).unwrap();
}

/// Fuzzing found that the search engine panics on a segment file of 4 to 7 bytes
/// (fuzz/regressions/lexical_index); every file of the index, cut or with a byte changed, must
/// give an error naming the index — or, where the damage does not matter, answers — never a panic.
#[test]
fn every_damaged_index_file_is_an_error_never_a_panic() {
    let template = tempfile::tempdir().unwrap();
    small_index(template.path());
    let mut files: Vec<_> = std::fs::read_dir(template.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    files.sort();
    let mut refused = 0;
    for file in &files {
        for damage in ["cut to 5 bytes", "emptied", "a byte changed"] {
            let dir = tempfile::tempdir().unwrap();
            for entry in std::fs::read_dir(template.path()).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
            }
            let target = dir.path().join(file);
            let mut bytes = std::fs::read(&target).unwrap();
            match damage {
                "cut to 5 bytes" => bytes.truncate(5),
                "emptied" => bytes.clear(),
                _ => {
                    let middle = bytes.len() / 2;
                    if let Some(byte) = bytes.get_mut(middle) {
                        *byte ^= 0x5A;
                    }
                }
            }
            std::fs::write(&target, bytes).unwrap();
            let outcome = std::panic::catch_unwind(|| {
                LexicalIndex::open(dir.path()).and_then(|index| index.search(&SearchQuery::new("graph molecule")))
            });
            let what = format!("{} {damage}", file.to_string_lossy());
            match outcome.unwrap_or_else(|_| panic!("{what}: a panic escaped")) {
                Err(error) => {
                    refused += 1;
                    assert!(error.to_string().contains(&dir.path().display().to_string()), "{what}: {error}");
                }
                Ok(hits) => assert!(hits.len() <= 10, "{what}"),
            }
        }
    }
    eprintln!("{refused} of {} damaged indexes refused; the others answered", 3 * files.len());
    assert!(refused >= 2 * (files.len() - 2), "cut and emptied index files are refused: {refused}");
}

/// `count` made-up papers about `word` added to the corpus at `dir` (a new generation each time).
fn ingest_synthetic(dir: &std::path::Path, count: usize, word: &str) {
    use litnav_search::lexical;
    let file = dir.with_extension(format!("{word}.jsonl"));
    let lines: Vec<String> = (0..count)
        .map(|i| serde_json::json!({"id": format!("{word}{i}"), "title": format!("{word} paper {i}")}).to_string())
        .collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    litnav_corpus::ingest_files(dir, &[file], ReadOptions::default(), |staging| {
        LexicalIndex::build(&staging.dir.join(lexical::ARTIFACT), staging.records, BuildOptions::default()).unwrap();
        Ok(vec![lexical::ARTIFACT.into()])
    })
    .unwrap();
}

#[test]
fn an_open_retriever_keeps_its_generation_while_the_corpus_is_ingested_again() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("corpus");
    ingest_synthetic(&dir, 5, "graphs");
    let retriever = litnav_search::Retriever::open(&dir, None).unwrap();
    let first = litnav_corpus::Corpus::locate(&dir).unwrap().1;
    assert_eq!(retriever.lexical().generation(), Some(1));
    // A re-ingest commits generation 2 and would collect generation 1, which the retriever holds.
    ingest_synthetic(&dir, 7, "proteins");
    assert!(first.is_dir(), "the leased generation stays on disk");
    let hits = retriever.search(&SearchQuery::new("graphs"), litnav_search::Mode::Bm25).unwrap();
    assert_eq!(hits.len(), 5, "the retriever reads its own generation whole");
    drop(retriever);
    // Once released, the next writer collects it.
    ingest_synthetic(&dir, 3, "cells");
    assert!(!first.is_dir(), "a released generation is collected");
    let fresh = litnav_search::Retriever::open(&dir, None).unwrap();
    assert_eq!(fresh.lexical().generation(), Some(3));
    assert_eq!(fresh.search(&SearchQuery::new("cells"), litnav_search::Mode::Bm25).unwrap().len(), 3);
}
