//! The LLM stage, the Subtopic Expander and a judge on the real llama.cpp server.

use crate::util::*;
use std::process::Command;

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn map_with_the_llm_stage_and_a_judge_on_a_real_server() {
    // 24 real litbench papers cited by its LLM survey; the LLM stage names, filters and groups
    // their clusters.
    let dir = tempfile::tempdir().unwrap();
    let papers = dir.path().join("papers.jsonl");
    let corpus = std::fs::read_to_string(datasets().join("litbench/corpus.jsonl")).unwrap();
    let first_topic: Vec<&str> = corpus.lines().filter(|l| l.contains("\"cs_01_llm\"")).take(24).collect();
    std::fs::write(&papers, first_topic.join("\n")).unwrap();
    let url = llm_server();
    let (map, trace) = (dir.path().join("map.json"), dir.path().join("trace.json"));
    let cache = dir.path().join("home");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "map",
            "--topic",
            "large language models",
            "--papers",
            path(&papers),
            "--out",
            path(&map),
            "--llm",
            "--llm-url",
            &url,
            "--llm-papers",
            "3",
            "--llm-trace",
            path(&trace),
            // The server has one slot and other tests queue on it.
            "--llm-timeout",
            "600",
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args(&args)
            .env("LITNAV_HOME", &cache)
            .env("LITNAV_MODEL", litnav_embed_model())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    // Every paper is placed exactly once, filtered subtopics included.
    let mut placed = all_paper_ids(&value);
    assert_eq!(placed.len(), 24);
    placed.sort();
    placed.dedup();
    assert_eq!(placed.len(), 24);
    let trace: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let readings = trace["subtopics"].as_array().unwrap();
    assert!(!readings.is_empty());
    // Each subtopic's trace holds exactly one of a validated reading and the reason it was
    // rejected (what each outcome does to the map is tested with a deterministic endpoint in
    // litnav-organize: `the_llm_stage_renames_…`, `unreadable_readings_keep_…`).
    for reading in readings {
        assert_ne!(reading["reading"].is_object(), reading["error"].is_string(), "{reading}");
    }
    assert!(trace["usage"]["calls"].as_u64().unwrap() >= readings.len() as u64);

    // The same run again is answered from the cache: no call reaches the server.
    let out = run(&["--llm-offline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let again: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    assert_eq!(again, value);

    // The Subtopic Expander writes the query for a real subtopic (a corpus of the same papers).
    let corpus = dir.path().join("corpus");
    let out = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["ingest", "--corpus", path(&corpus), path(&papers)])
        .env("LITNAV_HOME", &cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The largest subtopic (maps list the most relevant first, which may be a paper or two),
    // with no relevance floor: the sub-map is named after the small model's name for it, so a
    // floor could file every sub-subtopic under "Filtered" and leave the LLM stage nothing to read.
    fn largest_leaf(node: &serde_json::Value) -> &serde_json::Value {
        match node["subtopics"].as_array() {
            Some(children) => children
                .iter()
                .map(largest_leaf)
                .max_by_key(|leaf| leaf["paper_ids"].as_array().map_or(0, Vec::len))
                .unwrap_or(node),
            None => node,
        }
    }
    let leaf = largest_leaf(&value);
    let out = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["expand", "--map", path(&map), "--subtopic", leaf["id"].as_str().unwrap(), "--corpus", path(&corpus)])
        .args(["--k", "10", "--min-relevance", "0", "--llm", "--llm-url", &url, "--llm-papers", "3"])
        .args(["--llm-timeout", "600", "--json"])
        .args(["--llm-trace", path(&dir.path().join("expand-trace.json"))])
        .env("LITNAV_HOME", &cache)
        .env("LITNAV_MODEL", litnav_embed_model())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("new papers retrieved for “"), "{}", stderr(&out));
    let sub: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    // The sub-map places every paper of the subtopic it grew from.
    let placed = all_paper_ids(&sub);
    for id in leaf["paper_ids"].as_array().unwrap() {
        assert!(placed.iter().any(|p| p == id.as_str().unwrap()), "{id} is not in the sub-map");
    }
    // The sub-map went through the LLM stage (the Cluster Reader read its subtopics), as the
    // help says.
    let sub_trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("expand-trace.json")).unwrap()).unwrap();
    assert!(!sub_trace["subtopics"].as_array().unwrap().is_empty(), "{sub_trace}");

    // A judge on the real map, alone and against TaxoBench's expert tree of the same topic (as a
    // batch of one): four dimensions, scores in range, with reasons — or a clear rejection of the
    // small model's answer, counted, not fatal, in the batch.
    let judge = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args(["eval", "judge", "tree"])
            .args(args)
            .args(["--llm-url", &url, "--no-cache", "--llm-timeout", "600"])
            .output()
            .unwrap()
    };
    let out = judge(&["--tree", path(&map)]);
    if out.status.success() {
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let dims = report["judgement"]["dimensions"].as_object().unwrap();
        assert_eq!(dims.len(), 4);
        assert!(dims.values().all(|d| (1..=5).contains(&d["score"].as_u64().unwrap())));
    } else {
        assert!(stderr(&out).contains("invalid after one repair"), "{}", stderr(&out));
    }
    let map_json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    let predictions = dir.path().join("prediction.jsonl");
    std::fs::write(&predictions, format!("{}\n", serde_json::json!({"id": 28, "hierarchy_tree": map_json}))).unwrap();
    let data = datasets().join("taxobench/data.jsonl");
    let out = judge(&["--data", path(&data), "--predictions", path(&predictions)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let batch: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let judged = batch["judged"].as_array().unwrap();
    let failed = batch["problems"].as_array().unwrap().iter().filter(|p| p.as_str().unwrap().contains("not judged"));
    assert_eq!(judged.len() + failed.count(), 1, "{batch}");
    for instance in judged {
        assert!(instance["verdict"]["outline"].as_str().unwrap().contains(map_json["name"].as_str().unwrap()));
        assert!(instance["scores"].as_object().unwrap().values().all(|s| (1..=5).contains(&s.as_u64().unwrap())));
    }
}

#[test]
#[cfg_attr(
    not(all(feature = "datasets", feature = "llm-server")),
    ignore = "needs ../shared/datasets and the local llama.cpp server (tiers `datasets`, `llm-server`)"
)]
fn a_trees_entailment_is_judged_by_the_llm_when_one_is_given_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let line = std::fs::read_to_string(datasets().join("taxobench/data.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let expert = dir.path().join("expert.json");
    std::fs::write(&expert, first["gt"].to_string()).unwrap();
    let checks = |extra: &[&str]| {
        let out = litnav(&[&["eval", "tree", "--prediction", path(&expert), "--json"][..], extra].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()["checks"].clone()
    };
    let offline = checks(&[]);
    assert!(offline["entailment_by"].as_str().unwrap().starts_with("offline"), "{offline}");
    let url = llm_server();
    let judged = checks(&["--llm", "--llm-url", &url, "--llm-timeout", "600"]);
    let by = judged["entailment_by"].as_str().unwrap();
    assert!(by.starts_with("LLM (") && by.contains("kind, part or aspect"), "{by}");
    let share = judged["entailment"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share), "{judged}");
    for problem in judged["problems"].as_array().unwrap().iter().filter(|p| p["kind"] == "not_entailed") {
        assert!(problem["reason"].as_str().unwrap().ends_with("the judge says"), "{problem}");
    }
    // The other checks do not depend on who judged entailment.
    assert_eq!(judged["balance"], offline["balance"]);
    assert_eq!(judged["gap_papers"], offline["gap_papers"]);
}
