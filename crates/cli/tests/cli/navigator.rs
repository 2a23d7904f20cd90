//! Knowledge Navigator's evaluation: clusterings scored against gold clusters, and the Subtopic
//! Expander's retrieval on litbench.

use crate::util::*;

/// Twelve documents in three gold clusters of four; the prediction splits them into four
/// clusters, and d03 (gold a, predicted p1) is also listed in p0.
fn write_clusterings(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let gold = dir.join("gold.jsonl");
    let lines: Vec<String> =
        (0..12).map(|i| format!(r#"{{"id": "d{i:02}", "cluster": "{}"}}"#, ["a", "b", "c"][i / 4])).collect();
    std::fs::write(&gold, lines.join("\n")).unwrap();
    let predicted = dir.join("predicted.jsonl");
    let clusters = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3];
    let mut lines: Vec<String> =
        clusters.iter().enumerate().map(|(i, c)| format!(r#"{{"id": "d{i:02}", "cluster": {c}}}"#)).collect();
    lines.push(r#"{"id": "d03", "cluster": 0}"#.into());
    lines.push(r#"{"id": "d99", "cluster": 0}"#.into());
    lines.push(r#"{"id": "d04", "cluster": [1]}"#.into());
    std::fs::write(&predicted, lines.join("\n")).unwrap();
    (gold, predicted)
}

#[test]
fn clusterings_scored_as_knowledge_navigator_scores_them() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, predicted) = write_clusterings(dir.path());
    let out = litnav(&["eval", "clusters", "--gold", path(&gold), "--predicted", path(&predicted), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let scores = &report["scores"];
    // scikit-learn 1.7: adjusted_rand_score / normalized_mutual_info_score of the first memberships.
    assert!((scores["ari"].as_f64().unwrap() - 0.40310077519379844).abs() < 1e-12, "{report}");
    assert!((scores["nmi"].as_f64().unwrap() - 0.6280760724651604).abs() < 1e-12, "{report}");
    // By hand: a is covered by p0 alone thanks to d03's second membership (4 of 12 documents);
    // b needs p1 and p2, c needs p3 and p2 (6 of 12 each).
    assert!((scores["rc"].as_f64().unwrap() - 5.0 / 3.0).abs() < 1e-12, "{report}");
    assert!((scores["rv"].as_f64().unwrap() - 4.0 / 9.0).abs() < 1e-12, "{report}");
    assert_eq!(report["secondary_memberships"], 1);
    assert_eq!((report["documents"].as_u64(), report["only_in_predicted"].as_u64()), (Some(12), Some(1)));
    // The unreadable line is named and skipped; the rest is scored.
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].as_str().unwrap().ends_with("predicted.jsonl:15: field `cluster`: expected a string or a number")
    );
    // Random assignments of the same sizes do far worse.
    assert!(report["random"]["ari"].as_f64().unwrap() < 0.2 && report["random"]["rc"].as_f64().unwrap() > 1.9);

    // A litnav map as the prediction: leaves are clusters, `also` a secondary membership.
    let map = dir.path().join("map.json");
    let leaf = |id: &str, ids: &[&str], also: &str| {
        serde_json::json!({"id": id, "name": id, "description": "", "relevance": 0.5, "paper_ids": ids,
            "also": if also.is_empty() { serde_json::json!([]) } else { serde_json::json!([{"id": also, "title": "", "weight": 0.3}]) }})
    };
    let root = serde_json::json!({"id": "root", "name": "topic", "description": "", "relevance": 1.0, "subtopics": [
        leaf("t1", &["d00", "d01", "d02"], "d03"), leaf("t2", &["d03", "d04", "d05"], ""),
        leaf("t3", &["d06", "d07", "d08"], ""), leaf("t4", &["d09", "d10", "d11"], "")]});
    std::fs::write(&map, root.to_string()).unwrap();
    let out = litnav(&["eval", "clusters", "--gold", path(&gold), "--predicted", path(&map), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let from_map: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(from_map["scores"], report["scores"]);

    // Text output: a table beside the random baseline.
    let out = litnav(&["eval", "clusters", "--gold", path(&gold), "--predicted", path(&map)]);
    assert!(stdout(&out).contains("clustering     0.4031   0.6281     1.67    44.4%"), "{}", stdout(&out));
    // Nothing in common: an error, not a score.
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, r#"{"id": "zz", "cluster": "a"}"#).unwrap();
    let out = litnav(&["eval", "clusters", "--gold", path(&gold), "--predicted", path(&other)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("share no document"), "{}", stderr(&out));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn bench_clusters_on_a_small_litbench_pool() {
    let report = bench_report(&["clusters", "--per-topic", "10"]);
    assert_eq!(report["topics"], 19);
    assert!(report["documents"].as_u64().unwrap() > 150);
    let random = &report["random"];
    assert!(random["ari"].as_f64().unwrap().abs() < 0.05, "{report}");
    // Every method recovers the surveys far better than chance, and needs fewer clusters to show
    // a reader most of a topic.
    for row in report["rows"].as_array().unwrap() {
        let s = &row["scores"];
        assert!(
            s["ari"].as_f64().unwrap() > 0.2 && s["nmi"].as_f64().unwrap() > random["nmi"].as_f64().unwrap(),
            "{row}"
        );
        assert!(s["rc"].as_f64().unwrap() < random["rc"].as_f64().unwrap(), "{row}");
    }
}

/// `bench expander` with litnav's offline expansion and the Subtopic Expander on the local model.
#[test]
#[cfg_attr(
    not(all(feature = "datasets", feature = "llm-server")),
    ignore = "needs ../shared/datasets, the encoder and the local llama.cpp server (tiers `datasets`, `llm-server`)"
)]
fn bench_expander_with_every_query_type() {
    let url = litnav_testkit::llm_server();
    let report = bench_report(&[
        "expander",
        "--cluster-size",
        "5",
        "--llm",
        "--llm-url",
        url,
        "--llm-papers",
        "2",
        "--llm-timeout",
        "600",
    ]);
    let rows = report["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["query"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let topics = report["topics"].as_array().unwrap();
    assert!(topics.len() >= 15);
    for row in rows {
        let (p, r) = (row["precision"].as_array().unwrap(), row["recall"].as_array().unwrap());
        assert!(p.iter().chain(r).all(|v| (0.0..=1.0).contains(&v.as_f64().unwrap())), "{row}");
        // Recall only grows with K.
        assert!(r.windows(2).all(|w| w[0].as_f64() <= w[1].as_f64()), "{row}");
        assert!(row["fallbacks"].as_u64().unwrap() <= topics.len() as u64);
    }
    // The original query is the survey title; the offline expansion starts from it and (nearly
    // always) adds the cluster's key phrases.
    let mut expanded = 0;
    for topic in topics {
        let queries = topic["queries"].as_array().unwrap();
        let original = queries[0][1].as_str().unwrap();
        assert!(queries[1][1].as_str().unwrap().starts_with(original.trim()), "{topic}");
        expanded += usize::from(queries[1][1] != queries[0][1]);
    }
    assert!(expanded * 2 > topics.len(), "{report}");
}
