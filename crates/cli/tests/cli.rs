//! End-to-end tests of the `litnav` binary: what a user types, what they see.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn datasets() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets")
}

fn litnav(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(args)
        .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
        .output()
        .expect("run litnav")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn ingest_info_and_search_on_litbench() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let litbench = datasets().join("litbench");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&litbench.join("corpus.jsonl")),
        path(&litbench.join("topics.jsonl")),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["manifest"]["papers"], 3967);
    assert_eq!(report["manifest"]["topics"], 19);

    let out = litnav(&["info", "--corpus", path(&corpus), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(info["papers"], 3967);
    assert_eq!(info["artifacts"][0], "lexical");
    let abstract_coverage = info["coverage"].as_array().unwrap().iter().find(|c| c["field"] == "abstract").unwrap();
    assert_eq!(abstract_coverage["papers"], 3952);

    let out = litnav(&[
        "search",
        "--corpus",
        path(&corpus),
        "--query",
        "Hepcidin and Iron in Health and Disease",
        "--k",
        "7",
        "--before",
        "2023",
        "--exclude-surveys",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(hits.len(), 7);
    for hit in &hits {
        let keys: Vec<&str> = hit.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "title", "year", "score"]);
        assert!(hit["year"].as_i64().unwrap() < 2023);
    }
    assert!(hits[0]["title"].as_str().unwrap().to_lowercase().contains("hepcidin"));

    let out = litnav(&["search", "--corpus", path(&corpus), "-q", "hepcidin", "-k", "3"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().count(), 3, "human output: one line per hit");
}

#[test]
fn errors_are_one_clear_message_and_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\": \"1\", \"title\": \"ok\"}\n{\"id\": \"2\", \"year\": 1999}\n").unwrap();
    let corpus = dir.path().join("c");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(message.contains("bad.jsonl:2: field `title`: is missing"), "{message}");
    assert!(message.contains("the corpus is unchanged"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
    assert!(!corpus.join("manifest.json").exists());

    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&bad), "--skip-bad"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("skipped 1 malformed record(s)"), "{}", stdout(&out));

    let out = litnav(&["search", "--corpus", path(&dir.path().join("missing")), "-q", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not exist; create a corpus with `litnav ingest"), "{}", stderr(&out));

    let out = litnav(&["search", "--corpus", path(&corpus), "-q", "the of"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("has no searchable words"), "{}", stderr(&out));

    let out = litnav(&["ingest", "--corpus", path(&corpus), "--format", "nonsense", path(&bad)]);
    assert_eq!(out.status.code(), Some(2), "clap rejects unknown formats");
}

/// kill -9 at any moment of an ingest must leave the previous corpus readable and searchable,
/// never a half-written one.
#[test]
fn kill_during_ingest_leaves_the_previous_corpus_readable() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let aan = datasets().join("citations/aan");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&datasets().join("litbench/corpus.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut outcomes = Vec::new();
    // Kill after increasing delays: early (reading), middle (indexing), late (committing).
    for delay_ms in [30u64, 150, 400, 700, 1000, 1500, 2500] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args([
                "ingest",
                "--corpus",
                path(&corpus),
                path(&aan.join("papers.jsonl")),
                path(&aan.join("citations.csv")),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let killed = child.kill().is_ok();
        child.wait().unwrap();
        let out = litnav(&["info", "--corpus", path(&corpus), "--json"]);
        assert!(out.status.success(), "after kill at {delay_ms} ms the corpus must open: {}", stderr(&out));
        let info: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let papers = info["papers"].as_u64().unwrap();
        // Either the previous state or the previous state plus all of AAN, never in between.
        assert!(papers == 3967 || papers == 3967 + 18_041, "after kill at {delay_ms} ms: {papers} papers");
        if papers > 3967 {
            assert_eq!(info["edges"], 82_898);
        }
        let out = litnav(&["search", "--corpus", path(&corpus), "-q", "vision transformer", "--json"]);
        assert!(out.status.success(), "after kill at {delay_ms} ms search must work: {}", stderr(&out));
        outcomes.push((delay_ms, killed, papers));
    }
    eprintln!("kill outcomes (delay ms, killed, papers): {outcomes:?}");
    assert!(
        outcomes.iter().any(|(_, killed, papers)| *killed && *papers == 3967),
        "at least one kill must land mid-ingest"
    );
}

#[test]
fn help_reads_well() {
    let out = litnav(&["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    for command in ["ingest", "info", "search", "bench"] {
        assert!(help.contains(command), "{help}");
    }
    let out = litnav(&["search", "--help"]);
    let help = stdout(&out);
    assert!(
        help.contains("--before <YEAR>") && help.contains("--exclude-surveys") && help.contains("--json"),
        "{help}"
    );
}

#[test]
fn embed_prints_the_reference_vectors() {
    let model = litnav_embed_model();
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(datasets().join("../reference/minilm_vectors.json")).unwrap())
            .unwrap();
    let items = reference["items"].as_array().unwrap();
    let texts: Vec<&str> = items.iter().take(3).map(|i| i["text"].as_str().unwrap()).collect();
    let mut args = vec!["embed", "--json", "--model", model.as_str()];
    for text in &texts {
        args.extend(["--text", text]);
    }
    let out = litnav(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(printed.len(), 3);
    for (got, expected) in printed.iter().zip(items) {
        assert_eq!(got["text"], expected["text"]);
        let got: Vec<f64> = got["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let expected: Vec<f64> = expected["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(got.len(), 384);
        let worst = got.iter().zip(&expected).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-4, "CLI vector differs from sentence-transformers by {worst}");
    }
}

#[test]
fn dense_and_hybrid_search_embed_the_corpus_on_first_use() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/tests/fixtures");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&fixtures.join("openalex_works.jsonl")),
        path(&fixtures.join("references.bib")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for mode in ["dense", "hybrid"] {
        let out = litnav(&[
            "search",
            "--corpus",
            path(&corpus),
            "-q",
            "machine translation with attention",
            "--mode",
            mode,
            "--model",
            &model,
            "--json",
        ]);
        assert!(out.status.success(), "{mode}: {}", stderr(&out));
        let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(hits.len(), 5, "{mode}");
    }
    let out = litnav(&["embed", "--corpus", path(&corpus), "--model", &model, "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((report["papers"].as_u64(), report["encoded"].as_u64()), (Some(5), Some(0)), "vectors are reused");
}

/// The model directory, installed if needed (the same install `litnav model install` does).
fn litnav_embed_model() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_litnav")).args(["model", "install", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let installed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    installed["dir"].as_str().unwrap().to_string()
}

#[test]
fn eval_taxobench_reproduces_the_reference_means() {
    let model = litnav_embed_model();
    let taxobench = datasets().join("taxobench");
    let out = litnav(&[
        "eval",
        "taxobench",
        "--data",
        path(&taxobench.join("data.jsonl")),
        "--predictions",
        path(&taxobench.join("predictions_example.jsonl")),
        "--model",
        &model,
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
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
    let out = litnav(&[
        "eval",
        "taxobench",
        "--data",
        path(&data),
        "--predictions",
        path(&predictions),
        "--similarity",
        "string",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(got["n_scored"], 2);
    assert_eq!(got["similarity"], "string:difflib-ratio");
    let warnings = stderr(&out);
    assert!(
        warnings.contains("preds.jsonl:2: instance 2 skipped: `hierarchy_tree`: the root is not an object"),
        "{warnings}"
    );
    assert!(warnings.contains("instance 28 skipped: the predicted tree is empty"), "{warnings}");
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

/// Corpus ids of every paper at or below a map node (JSON), in map order.
fn all_paper_ids(node: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> =
        node["paper_ids"].as_array().into_iter().flatten().map(|id| id.as_str().unwrap().to_string()).collect();
    for child in node["subtopics"].as_array().into_iter().flatten() {
        ids.extend(all_paper_ids(child));
    }
    ids
}

/// Every node's name at or below `node`, in preorder.
fn all_names(node: &serde_json::Value) -> Vec<String> {
    let mut names = vec![node["name"].as_str().unwrap().to_string()];
    for child in node["subtopics"].as_array().into_iter().flatten() {
        names.extend(all_names(child));
    }
    names
}

fn assert_distinct_names(map: &serde_json::Value) {
    let names = all_names(map);
    let distinct: std::collections::HashSet<String> = names.iter().map(|n| n.to_lowercase()).collect();
    assert_eq!(distinct.len(), names.len(), "no two nodes share a name: {names:?}");
}

#[test]
fn deeper_levels_place_every_paper_once_and_repeat_no_name() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let out_json = dir.path().join("deep.json");
    let data = datasets().join("taxobench/data.jsonl");
    let args = ["map", "--topic", "LLM-based agents", "--papers", path(&data), "--instance", "64"];
    let out = litnav(&[&args[..], &["--recurse-above", "6", "--model", &model, "--out", path(&out_json)]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let map: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_json).unwrap()).unwrap();
    let ids = all_paper_ids(&map);
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (57, 57), "every paper of instance 64 placed once");
    fn depth(node: &serde_json::Value) -> usize {
        1 + node["subtopics"].as_array().into_iter().flatten().map(depth).max().unwrap_or(0)
    }
    assert!(depth(&map) >= 4, "some subtopic was organized again");
    assert_distinct_names(&map);
}

#[test]
fn map_places_every_paper_once_deterministically_and_renders() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    // One TaxoBench instance: its 43 papers, organized bottom-up.
    let data = std::fs::read_to_string(datasets().join("taxobench/data.jsonl")).unwrap();
    let line = data.lines().find(|l| l.contains("\"id\": 28")).unwrap();
    let input = dir.path().join("instance.jsonl");
    std::fs::write(&input, format!("{line}\n")).unwrap();
    // The same instance with its papers in reverse order (the file lists them in the expert
    // taxonomy's order): the map must not change.
    let mut reversed: serde_json::Value = serde_json::from_str(line).unwrap();
    reversed["pdfs"].as_array_mut().unwrap().reverse();
    let reversed_input = dir.path().join("reversed.jsonl");
    std::fs::write(&reversed_input, format!("{reversed}\n")).unwrap();
    let run = |name: &str, input: &std::path::Path| {
        let out_json = dir.path().join(format!("{name}.json"));
        let out_html = dir.path().join(format!("{name}.html"));
        let out_md = dir.path().join(format!("{name}.md"));
        let out = litnav(&[
            "map",
            "--topic",
            "Uncertainty quantification of large language models",
            "--papers",
            path(input),
            "--model",
            &model,
            "--out",
            path(&out_json),
            "--html",
            path(&out_html),
            "--markdown",
            path(&out_md),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        (
            std::fs::read(&out_json).unwrap(),
            std::fs::read_to_string(&out_html).unwrap(),
            std::fs::read_to_string(&out_md).unwrap(),
        )
    };
    let (first, html, markdown) = run("a", &input);
    let (second, _, _) = run("b", &input);
    assert_eq!(first, second, "same input, same map, byte for byte");
    let (reordered, _, _) = run("c", &reversed_input);
    assert_eq!(first, reordered, "the papers' order does not change the map");
    let map: serde_json::Value = serde_json::from_slice(&first).unwrap();
    let mut ids = Vec::new();
    fn collect(node: &serde_json::Value, ids: &mut Vec<String>) {
        let papers = node["papers"].as_array().map_or(0, Vec::len);
        let paper_ids = node["paper_ids"].as_array().map_or(0, Vec::len);
        assert_eq!(papers, paper_ids, "papers and paper_ids align");
        for id in node["paper_ids"].as_array().into_iter().flatten() {
            ids.push(id.as_str().unwrap().to_string());
        }
        let children = node["subtopics"].as_array().map_or(0, Vec::len);
        assert!(children != 1, "a node with one child only repeats it: {}", node["name"]);
        for child in node["subtopics"].as_array().into_iter().flatten() {
            assert!(child["id"].is_string() && child["description"].is_string() && child["relevance"].is_number());
            collect(child, ids);
        }
    }
    collect(&map, &mut ids);
    assert_distinct_names(&map);
    let names = all_names(&map);
    assert_eq!(ids.len(), 43, "every paper placed");
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), 43, "and placed once");
    assert!(map["subtopics"].as_array().unwrap().len() >= 2);
    // A node's description counts the papers it was named from: its own subtree's papers.
    for theme in map["subtopics"].as_array().unwrap() {
        let count = all_paper_ids(theme).len();
        let description = theme["description"].as_str().unwrap();
        assert!(description.starts_with(&format!("{count} paper(s)")), "{description} vs {count} papers below it");
    }
    for name in names.iter().skip(1) {
        assert!(html.contains(&name.replace('&', "&amp;")), "the page shows {name}");
        assert!(markdown.contains(name.as_str()), "the outline shows {name}");
    }
    assert!(html.contains("<details") && html.contains("class=\"abstract\""));
}

/// The map page, opened in a real browser (headless Chromium, which `.ci/run` installs), shows
/// every theme and subtopic as a clickable summary.
#[test]
fn map_page_opens_in_headless_chromium() {
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok_and(|o| o.status.success()))
        .expect("this test needs Chromium: `apt-get install chromium` (.ci/run installs it)");
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read_to_string(datasets().join("taxobench/data.jsonl")).unwrap();
    let input = dir.path().join("instance.jsonl");
    std::fs::write(&input, format!("{}\n", data.lines().find(|l| l.contains("\"id\": 64")).unwrap())).unwrap();
    let (json, html) = (dir.path().join("map.json"), dir.path().join("map.html"));
    let out = litnav(&[
        "map",
        "--topic",
        "LLM-based agents",
        "--papers",
        path(&input),
        "--model",
        &model,
        "--out",
        path(&json),
        "--html",
        path(&html),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let profile = dir.path().join("profile");
    let dom = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(dom.status.success(), "chromium failed: {}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    let map: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let themes = map["subtopics"].as_array().unwrap();
    assert!(themes.len() >= 2);
    for theme in themes {
        let name = theme["name"].as_str().unwrap().replace('&', "&amp;");
        assert!(dom.contains(&format!("<summary>{name} ")), "the rendered page shows theme {name}");
    }
    assert!(dom.matches("<details class=\"paper\">").count() == 57, "all 57 papers are on the page");
}

#[test]
fn expand_grows_a_subtopic_into_its_own_map() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&datasets().join("taxobench/data.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let map_path = dir.path().join("map.json");
    let out = litnav(&[
        "map",
        "--corpus",
        path(&corpus),
        "--topic",
        "large language models",
        "--k",
        "120",
        "--model",
        &model,
        "--out",
        path(&map_path),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let map: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&map_path).unwrap()).unwrap();
    // The first leaf of the map.
    let mut node = &map["subtopics"][0];
    while node["subtopics"].is_array() {
        node = &node["subtopics"][0];
    }
    let id = node["id"].as_str().unwrap();
    let original: Vec<&str> = node["paper_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let out = litnav(&[
        "expand",
        "--map",
        path(&map_path),
        "--subtopic",
        id,
        "--corpus",
        path(&corpus),
        "--k",
        "30",
        "--model",
        &model,
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("expansion query:"), "{}", stderr(&out));
    let sub: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expanded = all_paper_ids(&sub);
    assert!(original.iter().all(|id| expanded.iter().any(|e| e == id)), "the subtopic's own papers stay");
    assert!(expanded.len() > original.len(), "new papers were added");
    let unique: std::collections::HashSet<&String> = expanded.iter().collect();
    assert_eq!(unique.len(), expanded.len(), "each paper once");
    let out = litnav(&[
        "expand",
        "--map",
        path(&map_path),
        "--subtopic",
        "t99",
        "--corpus",
        path(&corpus),
        "--model",
        &model,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the map has no node with id \"t99\""), "{}", stderr(&out));
}

#[test]
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

    // One paper's profile carries the reference counts and values exactly.
    let out = litnav(&["relations", "paper", "--corpus", path(&corpus), "A00-1031", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expected = &reference["cd_sample"]["A00-1031"];
    for key in ["n_i", "n_j", "n_k", "cd", "cd_nok"] {
        assert_eq!(report["disruption"][key], expected[key], "{key}");
    }
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

/// The LLM server of scripts/llm-server.sh, started if needed (it is built once per machine).
fn llm_server() -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/llm-server.sh");
    assert!(Command::new("bash").arg(&script).arg("start").status().unwrap().success());
    let url = Command::new("bash").arg(&script).arg("url").output().unwrap();
    String::from_utf8(url.stdout).unwrap().trim().to_string()
}

#[test]
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
    for reading in readings {
        // Either a validated reading (then the map uses its name) or the reason it was rejected.
        assert!(reading["reading"].is_object() || reading["error"].is_string(), "{reading}");
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
    let mut leaf = &value["subtopics"][0];
    while leaf["subtopics"].is_array() {
        leaf = &leaf["subtopics"][0];
    }
    let out = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["expand", "--map", path(&map), "--subtopic", leaf["id"].as_str().unwrap(), "--corpus", path(&corpus)])
        .args(["--k", "10", "--llm", "--llm-url", &url, "--llm-papers", "3", "--llm-timeout", "600", "--json"])
        .env("LITNAV_HOME", &cache)
        .env("LITNAV_MODEL", litnav_embed_model())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("expansion query: "), "{}", stderr(&out));
    let sub: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(sub["subtopics"].is_array() || sub["paper_ids"].is_array());

    // A judge on the real map: four dimensions, scores in range, with reasons — or a clear
    // rejection of the small model's answer.
    let out = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["eval", "judge", "tree", "--tree", path(&map), "--llm-url", &url, "--no-cache", "--llm-timeout", "600"])
        .output()
        .unwrap();
    if out.status.success() {
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let dims = report["judgement"]["dimensions"].as_object().unwrap();
        assert_eq!(dims.len(), 4);
        assert!(dims.values().all(|d| (1..=5).contains(&d["score"].as_u64().unwrap())));
    } else {
        assert!(stderr(&out).contains("invalid after one repair"), "{}", stderr(&out));
    }
}

#[test]
fn map_takes_one_taxobench_instance_by_id() {
    let data = datasets().join("taxobench/data.jsonl");
    let model = litnav_embed_model();
    let map = |instance: &str| {
        Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args([
                "map",
                "--topic",
                "personalized alignment",
                "--papers",
                path(&data),
                "--instance",
                instance,
                "--json",
            ])
            .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
            .env("LITNAV_MODEL", &model)
            .output()
            .unwrap()
    };
    let out = map("1");
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(value["description"].as_str().unwrap().starts_with("38 papers"), "{}", value["description"]);
    let out = map("999");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no papers of instance or topic `999`"), "{}", stderr(&out));
    assert!(stderr(&out).contains("taxobench:28"), "{}", stderr(&out));
}
