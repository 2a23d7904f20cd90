//! TaxoBench end to end: litnav as the system under test in both modes, and maps exported as
//! prediction lines.

use crate::util::*;
use serde_json::Value;

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn names(tree: &Value) -> Vec<String> {
    let mut out = vec![tree["name"].as_str().unwrap_or("").to_string()];
    for child in tree["subtopics"].as_array().into_iter().flatten() {
        out.extend(names(child));
    }
    out
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn deep_research_mode_answers_scores_and_writes_rescorable_predictions() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::read_to_string(datasets().join("taxobench/data.jsonl")).unwrap();
    let instance_34 = real.lines().find(|l| l.starts_with("{\"id\": 34,")).unwrap();
    let mut no_topic: Value = serde_json::from_str(instance_34).unwrap();
    no_topic["id"] = Value::from(99);
    no_topic.as_object_mut().unwrap().retain(|k, _| k != "survey_topic" && k != "survey");
    let data = dir.path().join("data.jsonl");
    std::fs::write(&data, format!("{instance_34}\n{no_topic}\n")).unwrap();
    let out = dir.path().join("predictions.jsonl");
    let report = bench_report(&[
        "taxobench",
        "--mode",
        "deep-research",
        "--data",
        path(&data),
        "--out",
        path(&out),
        "--similarity",
        "string",
    ]);
    assert_eq!(report["mode"], "deep-research");
    assert_eq!(report["instances"], 2);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let problems = report["problems"].to_string();
    assert!(problems.contains("instance 99 skipped: no `survey_topic`"), "{problems}");
    // The litbench corpus holds the instance's papers: retrieval finds some, not all.
    let recall = rows[0]["scores"]["recall"].as_f64().unwrap();
    assert!(recall > 0.3 && recall < 1.0, "recall {recall}");
    let predicted = lines(&out);
    assert_eq!(predicted.len(), 1);
    assert_eq!(predicted[0]["id"], 34, "ids keep TaxoBench's type, so the public scorer pairs them");
    let tree = &predicted[0]["hierarchy_tree"];
    assert!(!names(tree).iter().any(|n| n.starts_with("Filtered")), "the Filtered branch is not an answer");
    let retrieved = predicted[0]["retrieved_papers"].as_array().unwrap();
    assert_eq!(retrieved.len() as u64, rows[0]["papers"].as_u64().unwrap());
    // The file re-scores to the report's numbers.
    let rescored = litnav(&[
        "eval",
        "taxobench",
        "--data",
        path(&data),
        "--predictions",
        path(&out),
        "--similarity",
        "string",
        "--json",
    ]);
    assert!(rescored.status.success(), "{}", stderr(&rescored));
    let rescored: Value = serde_json::from_str(&stdout(&rescored)).unwrap();
    for key in ["retrieval_recall", "retrieval_precision", "leaf_ari", "leaf_v_measure_cap", "sem_path", "us_nted"] {
        assert_eq!(rescored[key], report["summary"][key], "{key}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn bottom_up_mode_organizes_the_instances_own_papers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("predictions.jsonl");
    let report =
        bench_report(&["taxobench", "--mode", "bottom-up", "--limit", "1", "--out", path(&out), "--method", "ward"]);
    assert_eq!(report["method"], "ward");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let scores = &rows[0]["scores"];
    assert_eq!((scores["recall"].as_f64(), scores["precision"].as_f64()), (Some(1.0), Some(1.0)));
    assert!(scores["ari"].as_f64().unwrap() > 0.0);
    assert!(report["summary"]["similarity"].as_str().unwrap().starts_with("embedding"));
    assert_eq!(lines(&out).len(), 1);
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn a_map_exports_as_a_prediction_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = dir.path().join("line.jsonl");
    let data = datasets().join("taxobench/data.jsonl");
    let model = litnav_embed_model();
    let out = litnav(&[
        "map",
        "--model",
        &model,
        "--topic",
        "LLM-generated content detection",
        "--papers",
        path(&data),
        "--instance",
        "34",
        "--taxobench-out",
        path(&line),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let predicted = lines(&line);
    assert_eq!(predicted[0]["id"], 34);
    assert_eq!(predicted[0]["survey_topic"], "LLM-generated content detection");
    let scored = litnav(&[
        "eval",
        "taxobench",
        "--data",
        path(&data),
        "--predictions",
        path(&line),
        "--similarity",
        "public",
        "--json",
    ]);
    assert!(scored.status.success(), "{}", stderr(&scored));
    let scored: Value = serde_json::from_str(&stdout(&scored)).unwrap();
    assert_eq!(scored["n_scored"], 1);
    assert_eq!(scored["retrieval_recall"], 1.0);
}

/// The checks that need no reference, on the expert trees of TaxoBench: each finds what was
/// broken on purpose — a sibling renamed to another's name, a leaf renamed "Others", a wrapper
/// with a single child — at the node where it was done, with a reason; and with a reference the
/// comparison and the checks come together.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn trees_are_checked_without_a_reference_and_each_planted_problem_is_found_where_it_was_planted() {
    let data = lines(&datasets().join("taxobench/data.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    for line in &data {
        let expert = dir.path().join("expert.json");
        std::fs::write(&expert, line["gt"].to_string()).unwrap();
        let out = litnav(&["eval", "tree", "--prediction", path(&expert), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let checks = &serde_json::from_str::<Value>(&stdout(&out)).unwrap()["checks"];
        assert!(checks["nodes"].as_u64().unwrap() > 3 && checks["papers"].as_u64().unwrap() > 10, "{checks}");
        let rho = checks["semantic_taxonomic_correlation"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&rho), "{checks}");
        for problem in checks["problems"].as_array().unwrap() {
            assert!(problem["reason"].as_str().unwrap().len() > 10, "{problem}");
        }
    }
    // Plant three problems in the first expert tree, under its first theme with two children.
    let mut broken = data[0]["gt"].clone();
    let themes = broken["subtopics"].as_array_mut().unwrap();
    let theme = themes.iter_mut().find(|t| t["subtopics"].as_array().is_some_and(|s| s.len() >= 2)).unwrap();
    let first_name = theme["subtopics"][0]["name"].as_str().unwrap().to_string();
    theme["subtopics"][1]["name"] = first_name.clone().into();
    let wrapped = theme["subtopics"][0].clone();
    theme["subtopics"][0] = serde_json::json!({"name": "Wrapper of one", "subtopics": [wrapped]});
    let last = themes.len() - 1;
    themes[last]["name"] = "Others".into();
    let planted = dir.path().join("broken.json");
    std::fs::write(&planted, broken.to_string()).unwrap();
    let out = litnav(&["eval", "tree", "--prediction", path(&planted), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let problems = serde_json::from_str::<Value>(&stdout(&out)).unwrap()["checks"]["problems"].clone();
    let found = |kind: &str, name: &str| {
        problems.as_array().unwrap().iter().any(|p| p["kind"] == kind && p["name"].as_str() == Some(name))
    };
    assert!(found("duplicate_name", &first_name), "the renamed sibling is a duplicate: {problems:#}");
    assert!(found("unbalanced", "Wrapper of one"), "{problems:#}");
    assert!(found("generic_name", "Others"), "{problems:#}");
    // Outline output: the same problems, one line each.
    let out = litnav(&["eval", "tree", "--prediction", path(&planted)]);
    assert!(stdout(&out).contains("“Others”: its name says nothing about what is in it"), "{}", stdout(&out));

    // With a reference: the comparison's metrics and the checks of the prediction.
    let expert = dir.path().join("expert.json");
    std::fs::write(&expert, data[0]["gt"].to_string()).unwrap();
    let out = litnav(&["eval", "tree", "--reference", path(&expert), "--prediction", path(&planted), "--json"]);
    let both: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(both["nsr"].as_f64().unwrap() > 0.5 && both["checks"]["problems"].as_array().unwrap().len() >= 3, "{both}");
}
