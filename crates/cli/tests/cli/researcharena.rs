//! ResearchArena end to end: the discovery and selection rankings written as TREC files that
//! re-score to the report's numbers (and made again through `litnav mcp`, to the same rankings), the Decomposer against a scripted endpoint (one topic it
//! cannot serve), and the organization task on the surveys' heading trees.

use crate::util::*;
use litnav_llm::fake::{Behaviour, serve_with};
use serde_json::Value;

fn row<'a>(report: &'a Value, baseline: &str, retrieval: &str) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["baseline"] == baseline && r["retrieval"] == retrieval)
        .unwrap_or_else(|| panic!("no {baseline} / {retrieval} row in {report}"))
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn rankings_are_scored_graded_and_written_as_rescorable_trec_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trec");
    let report = bench_report(&[
        "researcharena",
        "--task",
        "discovery,selection",
        "--retrieval",
        "bm25",
        "--limit",
        "3",
        "--out",
        path(&out),
        "--via",
        "mcp",
    ]);
    assert_eq!(report["topics"], 3);
    // Every search again as an agent makes it, a tool call to `litnav mcp`: the same rankings.
    let mcp = &report["mcp"];
    assert_eq!(
        (mcp["rows"].as_u64(), mcp["identical_rows"].as_u64(), mcp["calls"].as_u64()),
        (Some(2), Some(2), Some(6)),
        "{mcp}"
    );
    let title = row(&report, "title", "bm25");
    let litnav_row = row(&report, "litnav", "expanded");
    assert_eq!(title["scores"]["queries"], 3);
    for r in [title, litnav_row] {
        let recall = r["scores"]["mean"]["recall@100"].as_f64().unwrap();
        assert!(recall > 0.05 && recall < 1.0, "recall {recall}");
    }
    // Graded qrels: litbench's surveys cite some references twice or more (grade 2).
    let qrels = std::fs::read_to_string(out.join("qrels.txt")).unwrap();
    assert!(qrels.lines().any(|l| l.ends_with(" 2")) && qrels.lines().any(|l| l.ends_with(" 1")));
    // The run file re-scores to the report's numbers with `litnav eval retrieval`.
    let rescored = litnav(&[
        "eval",
        "retrieval",
        "--qrels",
        path(&out.join("qrels.txt")),
        "--run",
        path(&out.join("title-bm25.run")),
        "--k",
        "10,30,100",
        "--json",
    ]);
    assert!(rescored.status.success(), "{}", stderr(&rescored));
    let rescored: Value = serde_json::from_str(&stdout(&rescored)).unwrap();
    for key in ["recall@10", "recall@100", "precision@10", "ndcg@10", "ndcg@30", "ndcg@100", "mrr"] {
        assert_eq!(rescored["mean"][key], title["scores"]["mean"][key], "{key}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn the_decomposer_fuses_sub_queries_and_reports_topics_it_cannot_serve() {
    // Vision transformers get no usable sub-query (twice: the answer and its repair); the other
    // topics get two.
    let server = serve_with(|_, request| {
        let prompt = request["messages"].to_string();
        let answer = if prompt.contains("Vision Transformer") {
            serde_json::json!({"sub_questions": [{"question": "?", "query": "?"}]})
        } else {
            serde_json::json!({"sub_questions": [
                {"question": "Which models?", "query": "transformer models"},
                {"question": "Which learning settings?", "query": "continual learning benchmarks"}
            ]})
        };
        Behaviour::Answer(answer.to_string())
    })
    .unwrap();
    let report = bench_report(&[
        "researcharena",
        "--task",
        "discovery",
        "--baseline",
        "decomposer",
        "--retrieval",
        "bm25,dense",
        "--limit",
        "3",
        "--llm",
        "--llm-url",
        &server.url,
        "--no-cache",
    ]);
    let problems = report["problems"].to_string();
    assert!(problems.contains("decomposer on topic cs_01: no usable query"), "{problems}");
    for retrieval in ["bm25", "dense"] {
        let scored = row(&report, "decomposer", retrieval);
        assert_eq!(scored["scores"]["queries"], 2, "the run goes on without cs_01");
        assert!(scored["scores"]["mean"]["recall@100"].as_f64().unwrap() > 0.0);
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn organization_is_scored_against_the_surveys_heading_trees() {
    let report = bench_report(&["researcharena", "--task", "organization", "--limit", "1"]);
    let rows = report["organization"].as_array().unwrap();
    let systems: Vec<(String, String)> =
        rows.iter().map(|r| (r["setting"].to_string(), r["system"].to_string())).collect();
    assert_eq!(rows.len(), 4, "{systems:?}");
    for r in rows {
        let scores = &r["scores"];
        let hsr = scores["heading_soft_recall"].as_f64().unwrap();
        assert!(hsr > 0.3, "{r}");
        assert!(scores["heading_entity_recall"].as_f64().is_some(), "the outline names entities: {r}");
        assert!(scores["tree_semantic_distance"].as_f64().unwrap() <= scores["ordered_ted"].as_f64().unwrap());
    }
    let ward = rows.iter().find(|r| r["setting"] == "oracle" && r["system"] == "clustering (Ward typology)").unwrap();
    // The whole dendrogram: one heading per merge (the last is the root), one fewer than the papers.
    assert_eq!(ward["scores"]["prediction_nodes"].as_u64().unwrap() + 1, ward["papers"].as_u64().unwrap());
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn discovery_inside_a_larger_corpus_of_real_and_synthetic_distractors() {
    let report = bench_report(&[
        "researcharena",
        "--distractors",
        "0,22000",
        "--task",
        "discovery,selection",
        "--baseline",
        "title",
        "--retrieval",
        "bm25,dense",
        "--limit",
        "5",
    ]);
    let sizes = report["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 2, "{report}");
    let (alone, inside) = (&sizes[0], &sizes[1]);
    assert_eq!((alone["real"].as_u64(), alone["synthetic"].as_u64()), (Some(0), Some(0)));
    let (real, synthetic) = (inside["real"].as_u64().unwrap(), inside["synthetic"].as_u64().unwrap());
    // Every real paper of the datasets (AAN's and CiteSeer's) before any synthetic one.
    assert!(real > 20_000 && real + synthetic == 22_000 && synthetic > 0, "{inside}");
    assert_eq!(
        inside["papers"].as_u64().unwrap(),
        alone["papers"].as_u64().unwrap() + 22_000,
        "no distractor merged away"
    );
    let recall = |size: &Value, retrieval: &str| {
        let rows = size["report"]["rows"].as_array().unwrap();
        let row = rows.iter().find(|r| r["baseline"] == "title" && r["retrieval"] == retrieval).unwrap();
        assert_eq!(row["scores"]["queries"], 5);
        row["scores"]["mean"]["recall@100"].as_f64().unwrap()
    };
    // A dense scan scores litbench's papers as before and the distractors can only take places
    // in the top 100 from them; BM25's statistics change with the corpus (its recall can even
    // rise: rarer title words weigh more), so only its being scored is checked.
    assert!(recall(inside, "dense") < recall(alone, "dense"), "{report}");
    assert!(recall(inside, "bm25") > 0.0, "{report}");
    assert_eq!(report["published"][0][0], "BM25");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn scale_search_measures_every_step_at_each_size() {
    // CI's sizes (the IVF index the recall is measured on trains in a debug build here); a million
    // and more are a benchmark run and recorded (BENCHMARKS.md).
    let report = bench_report(&["scale-search", "--sizes", "3000,800", "--queries", "20"]);
    let sizes = report["sizes"].as_array().unwrap();
    assert_eq!(sizes.iter().map(|s| s["papers"].as_u64().unwrap()).collect::<Vec<_>>(), [800, 3_000], "{report}");
    for size in sizes {
        for step in ["ingest", "index", "open", "map"] {
            assert!(size[step]["failed"].is_null(), "{step}: {}", size[step]);
            assert!(size[step]["peak_mib"].as_f64().unwrap() > 0.0, "{step}: {}", size[step]);
        }
        assert!(size["bm25_p50_ms"].as_f64().unwrap() > 0.0);
        let recall = size["dense_recall_at_10"].as_f64().unwrap();
        assert!((0.5..=1.0).contains(&recall), "{size}");
        assert!(size["disk_mib"].as_f64().unwrap() > 1.0);
    }
    // The pool: the datasets' papers with an abstract.
    assert!(report["pool"].as_u64().unwrap() > 5_000, "{report}");
}
