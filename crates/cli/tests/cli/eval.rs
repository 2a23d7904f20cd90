//! The scorers: TaxoBench files, any two trees, TREC runs.

use crate::util::*;

/// `eval taxobench --json` with `extra` flags: the summary and the warnings.
fn eval_taxobench(
    data: &std::path::Path,
    predictions: &std::path::Path,
    extra: &[&str],
) -> (serde_json::Value, String) {
    let args = ["eval", "taxobench", "--data", path(data), "--predictions", path(predictions), "--json"];
    let out = litnav(&[&args[..], extra].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    (serde_json::from_str(&stdout(&out)).unwrap(), stderr(&out))
}

/// `eval taxobench` on TaxoBench's shared data and example predictions.
fn score_the_shared_example(extra: &[&str]) -> serde_json::Value {
    let taxobench = datasets().join("taxobench");
    eval_taxobench(&taxobench.join("data.jsonl"), &taxobench.join("predictions_example.jsonl"), extra).0
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn eval_taxobench_reproduces_the_reference_means() {
    let model = litnav_embed_model();
    let got = score_the_shared_example(&["--model", &model]);
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(datasets().join("../reference/taxobench_examples.json")).unwrap(),
    )
    .unwrap();
    let mean = &reference["mean"];
    assert_eq!(got["n_scored"], 5);
    let keys = [
        ("leaf_ari", "ari", 1e-9),
        ("leaf_v_measure", "v_measure", 1e-9),
        ("leaf_homogeneity", "homogeneity", 1e-9),
        ("leaf_completeness", "completeness", 1e-9),
        ("retrieval_recall", "recall", 1e-9),
        ("retrieval_precision", "precision", 1e-9),
        ("retrieval_f1", "f1", 1e-9),
        ("leaf_ari_cap", "ari_cap", 1e-9),
        ("sem_path", "sem_path", 1e-4),
        ("us_ted", "us_ted", 1e-4),
        ("us_nted", "us_nted", 1e-4),
        ("nsr", "nsr", 1e-4),
        ("nsp", "nsp", 1e-4),
        ("soft_f1", "soft_f1", 1e-4),
    ];
    for (ours, theirs, tolerance) in keys {
        let (a, b) = (got[ours].as_f64().unwrap(), mean[theirs].as_f64().unwrap());
        assert!((a - b).abs() <= tolerance, "{ours} = {a}, reference {b}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn eval_taxobench_reports_malformed_predictions_per_instance() {
    let dir = tempfile::tempdir().unwrap();
    let data = datasets().join("taxobench/data.jsonl");
    let predictions = dir.path().join("preds.jsonl");
    std::fs::write(
        &predictions,
        concat!(
            "{\"id\": 1, \"hierarchy_tree\": {\"name\": \"T\", \"subtopics\": [{\"name\": \"A\", \"papers\": [\"Decoding-Time Language Model Alignment with Multiple Objectives\"]}]}}\n",
            "{\"id\": 2, \"hierarchy_tree\": [1, 2, 3]}\n",
            "{\"id\": 28, \"hierarchy_tree\": {\"name\": \"empty\"}}\n",
            "{\"id\": 34, \"hierarchy_tree\": {\"name\": \"T\", \"subtopics\": [{\"name\": \"A\", \"papers\": [42]}]}}\n",
            "{\"hierarchy_tree\": {\"name\": \"no id\"}}\n",
            "not json at all\n",
            "{\"id\": 64, \"hierarchy_tree\": {\"name\": \"T\", \"papers\": [\"Same Paper\", \"same paper!\"]}}\n",
        ),
    )
    .unwrap();
    let (got, warnings) = eval_taxobench(&data, &predictions, &["--similarity", "string"]);
    assert_eq!(got["n_scored"], 3);
    assert_eq!(got["similarity"], "string:difflib-ratio");
    assert!(
        warnings.contains("preds.jsonl:2: instance 2 skipped: `hierarchy_tree`: the root is not an object"),
        "{warnings}"
    );
    assert!(
        warnings.contains("instance 28: the prediction holds no papers; scored as retrieving nothing"),
        "{warnings}"
    );
    assert!(
        warnings.contains(
            "preds.jsonl:4: instance 34 skipped: `hierarchy_tree`: paper 0 of `subtopics[0]` is neither a title"
        ),
        "{warnings}"
    );
    assert!(warnings.contains("preds.jsonl:5: line skipped: field `id` is missing"), "{warnings}");
    assert!(warnings.contains("preds.jsonl:6: line skipped: not valid JSON"), "{warnings}");
    assert!(warnings.contains("preds.jsonl:7: instance 64: paper \"Same Paper\" is listed 2 times"), "{warnings}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn eval_taxobench_public_reading_equals_the_public_scorer() {
    let got = score_the_shared_example(&["--similarity", "public"]);
    // What the public scorer prints on these files (../shared/peers/README.md; `litnav bench eval
    // --peer` compares every key and instance in one run).
    for (key, expected) in [("leaf_ari", 0.19628453821984887), ("sem_path", 0.2915258463053524)] {
        let value = got[key].as_f64().unwrap();
        assert!((value - expected).abs() < 1e-12, "{key} = {value}, the public scorer's {expected}");
    }
    assert_eq!(got["similarity"], "public:taxobench-package");
}

/// Gold: R → a [P1, P2], b [P3, P4]. Prediction: X → a [P1, P2], b [P3], c [P9], and it says it
/// retrieved six papers, four of them the gold's.
#[test]
fn eval_taxobench_honours_retrieved_papers_and_reports_v_cap() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.jsonl");
    let predictions = dir.path().join("preds.jsonl");
    std::fs::write(
        &data,
        r#"{"id": 7, "gt": {"name": "R", "subtopics": [{"name": "a", "papers": ["Paper one", "Paper two"]}, {"name": "b", "papers": ["Paper three", "Paper four"]}]}}"#,
    )
    .unwrap();
    std::fs::write(
        &predictions,
        concat!(
            r#"{"id": 7, "hierarchy_tree": {"name": "X", "subtopics": [{"name": "a", "papers": ["Paper one", "Paper two"]}, {"name": "b", "papers": ["Paper three"]}, {"name": "c", "papers": ["Paper nine"]}]}, "#,
            r#""retrieved_papers": ["Paper one", "Paper two", "Paper three", "Paper four", "Paper five", {"title": "Paper six"}]}"#,
            "
",
            r#"{"id": 8, "hierarchy_tree": {"name": "X", "papers": ["Paper one"]}, "retrieved_papers": 5}"#,
            "\n"
        ),
    )
    .unwrap();
    for similarity in ["string", "public"] {
        let (got, warnings) = eval_taxobench(&data, &predictions, &["--similarity", similarity]);
        let close = |key: &str, expected: f64| {
            let value = got[key].as_f64().unwrap();
            assert!((value - expected).abs() < 1e-12, "{similarity}: {key} = {value}, expected {expected}");
        };
        close("retrieval_recall", 1.0);
        close("retrieval_precision", 4.0 / 6.0);
        close("retrieval_f1", 0.8);
        // The three aligned papers sit exactly as in the gold: ARI∩ = V∩ = 1.
        close("leaf_ari_cap", 1.0);
        close("leaf_v_measure_cap", 1.0);
        // Each aligned paper's chain [R, a] against [X, a]: one mismatched name (ratio 0), cost 1.
        close("sem_path", 0.5);
        assert!(warnings.contains("preds.jsonl:2: instance 8: `retrieved_papers` ignored: not an array"));
    }
}

#[test]
fn eval_tree_and_retrieval_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    std::fs::write(
        &a,
        r#"{"name": "R", "subtopics": [{"name": "A", "papers": ["p1", "p2"]}, {"name": "B", "papers": ["p3"]}]}"#,
    )
    .unwrap();
    std::fs::write(
        &b,
        r#"{"name": "R", "subtopics": [{"name": "B", "papers": ["p3"]}, {"name": "A", "papers": ["p2", "p1"]}]}"#,
    )
    .unwrap();
    let out = litnav(&[
        "eval",
        "tree",
        "--reference",
        path(&a),
        "--prediction",
        path(&b),
        "--similarity",
        "string",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(got["us_ted"], 0.0, "sibling order is free for US-TED");
    assert_eq!(got["ordered_ted"], 2.0, "but not for the ordered TED");
    assert_eq!(got["ari"], 1.0);
    assert_eq!(got["sem_path"], 1.0);
    assert_eq!(got["shape_consistency"], 1.0);
    assert_eq!(got["similarity"], "string:difflib-ratio");

    let qrels = dir.path().join("qrels");
    let run = dir.path().join("run");
    std::fs::write(&qrels, "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d9 1\n").unwrap();
    // Equal scores for d1 and dZ: trec_eval puts the larger id (dZ) first.
    std::fs::write(&run, "q1 Q0 d2 1 9.0 x\nq1 Q0 d1 2 7.0 x\nq1 Q0 dZ 3 7.0 x\nq2 Q0 d5 1 1.0 x\n").unwrap();
    let out = litnav(&["eval", "retrieval", "--qrels", path(&qrels), "--run", path(&run), "--k", "1,3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(got["queries"], 2);
    let mean = &got["mean"];
    assert_eq!(mean["recall@1"], 0.25);
    assert_eq!(mean["mrr"], 0.5);
    // q1 nDCG@3: DCG = 2 + 0 + 1/log2(4); IDCG = 2 + 1/log2(3); q2 scores 0.
    let q1 = 2.5 / (2.0 + 1.0 / 3f64.log2());
    assert!((mean["ndcg@3"].as_f64().unwrap() - q1 / 2.0).abs() < 1e-12);

    std::fs::write(&run, "q1 Q0 d2 1 high x\n").unwrap();
    let out = litnav(&["eval", "retrieval", "--qrels", path(&qrels), "--run", path(&run)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("run:1: field `score`: `high` is not a number"), "{}", stderr(&out));
}

/// κ and ρ of two raters, as scikit-learn's `cohen_kappa_score` and SciPy's `spearmanr` give them
/// for these scores (0.9239130434782609 quadratic-weighted, ρ 0.9814814814814815); a bad line and
/// an unpaired id are reported, not fatal.
#[test]
fn eval_agreement_matches_scikit_learn_and_scipy() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("judge.jsonl"), dir.path().join("human.jsonl"));
    let (first, second) = ([1, 2, 3, 3, 2, 5, 4], [1, 2, 3, 4, 2, 5, 5]);
    let lines = |scores: &[i32]| -> String {
        scores.iter().enumerate().map(|(i, s)| format!("{{\"id\": {i}, \"coverage\": {s}}}\n")).collect()
    };
    std::fs::write(&a, lines(&first) + "{\"id\": 99, \"coverage\": 3}\n").unwrap();
    std::fs::write(&b, lines(&second) + "not json\n").unwrap();
    let out = litnav(&["eval", "agreement", path(&a), path(&b), "--weights", "quadratic", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["paired"], 7);
    let coverage = &report["scores"][0];
    assert!((coverage["kappa"].as_f64().unwrap() - 0.9239130434782609).abs() < 1e-12);
    assert!((coverage["spearman"].as_f64().unwrap() - 0.9814814814814815).abs() < 1e-12);
    let problems = report["problems"].to_string();
    assert!(problems.contains("human.jsonl:8: line skipped: not a JSON object"), "{problems}");
    assert!(problems.contains("1 id(s) only here"), "{problems}");
}

/// `export topics|qrels` round-trips through `eval retrieval`: a run that ranks each topic's
/// judged papers first scores Recall@k 1 at a k past the longest list; one that ranks them after
/// as many unjudged papers scores 0 at that depth.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn exported_topics_and_qrels_score_any_run() {
    let home = litnav_testkit::home().join("test-cache").join("bench-home");
    let export = |what: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args(["export", what])
            .env("LITNAV_HOME", &home)
            .env("LITNAV_MODEL", litnav_embed_model())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let (topics, qrels) = (export("topics"), export("qrels"));
    let topic_ids: Vec<&str> = topics.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert!(topic_ids.len() >= 19 && topic_ids.contains(&"cs_01"), "{topic_ids:?}");
    let mut judged: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for line in qrels.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!((fields.len(), fields[1], fields[3]), (4, "0", "1"), "{line}");
        judged.entry(fields[0]).or_default().push(fields[2]);
    }
    assert_eq!(judged.keys().copied().collect::<Vec<_>>().len(), topic_ids.len());
    let deepest = judged.values().map(Vec::len).max().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (qrels_file, perfect, buried) =
        (dir.path().join("qrels"), dir.path().join("perfect.run"), dir.path().join("buried.run"));
    std::fs::write(&qrels_file, &qrels).unwrap();
    let mut perfect_run = String::new();
    let mut buried_run = String::new();
    for (topic, papers) in &judged {
        for (rank, paper) in papers.iter().enumerate() {
            perfect_run.push_str(&format!("{topic} Q0 {paper} {} {} t\n", rank + 1, 1000 - rank));
            buried_run.push_str(&format!("{topic} Q0 {paper} {} {} t\n", deepest + rank + 1, 1000 - deepest - rank));
        }
        for filler in 0..deepest {
            buried_run.push_str(&format!("{topic} Q0 unjudged{filler} {} {} t\n", filler + 1, 2000 - filler));
        }
    }
    std::fs::write(&perfect, perfect_run).unwrap();
    std::fs::write(&buried, buried_run).unwrap();
    let k = deepest.to_string();
    for (run, expected) in [(&perfect, 1.0), (&buried, 0.0)] {
        let out = litnav(&["eval", "retrieval", "--qrels", path(&qrels_file), "--run", path(run), "--k", &k, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(report["queries"].as_u64().unwrap() as usize, topic_ids.len());
        assert_eq!(report["mean"][format!("recall@{k}")].as_f64(), Some(expected), "{report}");
    }
}
