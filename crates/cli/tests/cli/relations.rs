//! Relations on the real ACL Anthology Network and SciNet's scorers.

use crate::util::*;

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn relations_on_aan_reproduce_the_reference_and_read_contexts() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("aan");
    let aan = datasets().join("citations/aan");
    let contexts = dir.path().join("contexts.jsonl");
    std::fs::write(
        &contexts,
        concat!(
            r#"{"citing_id":"P03-1021","cited_id":"J93-2003","paragraph":"intro-2","text":"IBM Model 4 (Brown et al.) and BLEU","sentiment":"neutral"}"#,
            "\n",
            r#"{"citing_id":"P03-1021","cited_id":"P02-1040","paragraph":"intro-2","text":"IBM Model 4 (Brown et al.) and BLEU"}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&aan.join("papers.jsonl")),
        path(&aan.join("citations.csv")),
        "--contexts",
        path(&contexts),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(datasets().join("../reference/aan_graph.json")).unwrap())
            .unwrap();

    // One paper's profile: CD as the cdindex package computes it (D10-1001, the issue's example:
    // 0.0678 against the all-time reading's 0.0087), and the all-time reading's counts exactly.
    let cdindex: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(datasets().join("../reference/aan_cdindex.json")).unwrap())
            .unwrap();
    for (window, key) in [(None, "cd_all"), (Some("5"), "cd_5"), (Some("10"), "cd_10")] {
        let mut args = vec!["relations", "paper", "--corpus", path(&corpus), "D10-1001", "--json"];
        args.extend(window.iter().flat_map(|w| ["--window", *w]));
        let out = litnav(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(report["disruption"]["cd"], cdindex["papers"]["D10-1001"][key], "{key}");
    }
    let out =
        litnav(&["relations", "paper", "--corpus", path(&corpus), "A00-1031", "--cd-reading", "all-time", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expected = &reference["cd_sample"]["A00-1031"];
    for key in ["n_i", "n_j", "n_k", "cd", "cd_nok"] {
        assert_eq!(report["disruption"][key], expected[key], "{key}");
    }
    assert_eq!(report["cd_reading"], "all-time");
    assert_eq!(report["in_degree"], expected["in_degree"]);
    assert!(report["novelty"]["p10"].is_number());
    let percentile = report["disruption_percentile"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&percentile));

    // A reference path, through the command.
    let case = &reference["max_citation_paths"][1];
    let out = litnav(&[
        "relations",
        "path",
        "--corpus",
        path(&corpus),
        case["source"].as_str().unwrap(),
        case["target"].as_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let ids: Vec<&serde_json::Value> =
        report["max_citation_path"]["papers"].as_array().unwrap().iter().map(|p| &p["id"]).collect();
    assert_eq!(ids, case["path"].as_array().unwrap().iter().collect::<Vec<_>>());
    assert_eq!(report["max_citation_path"]["total_in_degree"], case["total_in_degree"]);

    // Rankings: a topic's papers, most disruptive first, values non-increasing.
    let out = litnav(&[
        "relations",
        "disruption",
        "--corpus",
        path(&corpus),
        "--topic",
        "statistical machine translation",
        "-k",
        "10",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let scores: Vec<f64> = report["papers"].as_array().unwrap().iter().map(|p| p["score"].as_f64().unwrap()).collect();
    assert_eq!(scores.len(), 10);
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    // As text: each CD index with the counts behind it (ties told apart), citation counts whole.
    let words = ["relations", "disruption", "--corpus", path(&corpus), "--topic", "statistical machine translation"];
    let out = litnav(&[&words[..], &["-k", "3"]].concat());
    let first = stdout(&out).lines().nth(1).unwrap_or_default().to_string();
    let counts = &report["papers"][0];
    let expected = format!("(n_i {}, n_j {}, n_k {})", counts["n_i"], counts["n_j"], counts["n_k"]);
    assert!(first.contains(&expected), "{first:?} lacks {expected}");
    let out = litnav(&["relations", "citations", "--corpus", path(&corpus), "-k", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = stdout(&out).lines().nth(1).unwrap_or_default().to_string();
    let count = first.split_whitespace().nth(1).unwrap_or_default();
    assert!(count.parse::<u64>().is_ok(), "a count is whole: {first:?}");

    let out = litnav(&["relations", "co-cited", "--corpus", path(&corpus), "P02-1040", "-k", "3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["related"][0]["id"], "P03-1021");

    let out = litnav(&["relations", "co-mentioned", "--corpus", path(&corpus), "J93-2003", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["co_mentioned"][0]["paper_id"], "P02-1040");

    // Who cites J93-2003 neutrally (from the ingested context's label).
    let out =
        litnav(&["relations", "citers", "--corpus", path(&corpus), "J93-2003", "--sentiment", "neutral", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let ids: Vec<&str> = report["citers"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["P03-1021"]);

    // SciNet's path scores: the true inner papers retrieved → Consistency 1 and Connectivity 1;
    // only the endpoints' neighbours → lower.
    let queries = dir.path().join("paths.jsonl");
    let truth: Vec<&str> = case["path"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let line = |retrieved: &[&str]| {
        serde_json::json!({"source": truth[0], "target": truth[truth.len() - 1], "retrieved": retrieved}).to_string()
    };
    std::fs::write(&queries, format!("{}\n{}\n", line(&truth[1..truth.len() - 1]), line(&truth[1..2]))).unwrap();
    let out = litnav(&["eval", "paths", "--corpus", path(&corpus), path(&queries), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["per_query"][0]["consistency"], 1.0);
    assert_eq!(report["per_query"][0]["connectivity"], true);
    assert!(report["per_query"][1]["consistency"].as_f64().unwrap() < 1.0);
    assert_eq!(report["per_query"][1]["connectivity"], false);
    assert_eq!(report["connectivity"], 0.5);

    // Ego-centric scores: retrieving the field's own top papers gives Recall@k = 1.
    let out = litnav(&["relations", "novelty", "--corpus", path(&corpus), "--topic", "parsing", "-k", "5", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let top: Vec<String> = serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()["papers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    std::fs::write(&queries, serde_json::json!({"topic": "parsing", "retrieved": top}).to_string()).unwrap();
    let out = litnav(&[
        "eval",
        "ego",
        "--corpus",
        path(&corpus),
        path(&queries),
        "--measure",
        "novelty",
        "-k",
        "5",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["recall"], 1.0);
    assert!(report["sos"].as_f64().unwrap() > 90.0);

    // An unknown id and a bad contexts file are clear errors.
    let out = litnav(&["relations", "paper", "--corpus", path(&corpus), "NOPE-0000"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no paper with id `NOPE-0000`"), "{}", stderr(&out));
    std::fs::write(&contexts, "{\"citing_id\":\"P03-1021\",\"paragraph\":\"x\",\"text\":\"y\"}\n").unwrap();
    let out =
        litnav(&["ingest", "--corpus", path(&corpus), path(&aan.join("papers.jsonl")), "--contexts", path(&contexts)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("contexts.jsonl:1: field `cited_id`: missing"), "{}", stderr(&out));
}
