//! SciNet's scorers on the repository's mini corpus, values worked out by hand from
//! `tests/fixtures/mini/` (its citation graph and contexts).

use crate::util::*;

/// The mini corpus with its citations and both context files.
fn mini_corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let corpus = dir.join("mini");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&fixture("mini/papers.jsonl")),
        path(&fixture("mini/citations.csv")),
        "--contexts",
        path(&fixture("mini/contexts-a.jsonl")),
        "--contexts",
        path(&fixture("mini/contexts-b.jsonl")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    corpus
}

fn write_lines(path: &std::path::Path, lines: &[serde_json::Value]) {
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

#[test]
fn pair_wise_answers_scored_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = mini_corpus(dir.path());
    let (queries, answers) = (dir.path().join("queries.jsonl"), dir.path().join("answers.jsonl"));
    use serde_json::json;
    write_lines(
        &queries,
        &[
            json!({"id": "q1", "paper": "m01", "task": "cite", "sentiment": "positive"}),
            json!({"id": "q2", "paper": "m01", "task": "co-mention"}),
            json!({"id": "q3", "paper": "m12", "task": "cite", "direction": "references"}),
            json!({"id": "q4", "paper": "m06", "task": "co-mention"}),
            json!({"id": "q5", "paper": "nope", "task": "cite"}),
            json!({"id": "q6", "paper": "m01", "task": "cites"}),
        ],
    );
    write_lines(
        &answers,
        &[
            json!({"id": "q1", "retrieved": ["m05", "m09", "m02", "m06", "zzz"]}),
            json!({"id": "q2", "retrieved": ["m02", "m12", "m11"]}),
            json!({"id": "q3", "retrieved": ["m10"]}),
            json!({"id": "q9", "retrieved": ["m01"]}),
            json!({"id": "q1", "retrieved": "m05"}),
        ],
    );
    let out = litnav(&[
        "eval",
        "pairs",
        "--corpus",
        path(&corpus),
        "--queries",
        path(&queries),
        "--answers",
        path(&answers),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let q = |id: &str| report["per_query"].as_array().unwrap().iter().find(|q| q["id"] == id).unwrap().clone();
    // q1: m05, m09 and m02 cite m01 (3/5); only m05's mention is positive (m09's is negative,
    // m02's citation has no context): 1/5, one citation unlabelled; zzz is no paper.
    assert_eq!((q("q1")["cite_acc"].as_f64(), q("q1")["cite_sentiment"].as_f64()), (Some(0.6), Some(0.2)));
    assert_eq!((q("q1")["unlabelled_citations"].as_u64(), q("q1")["unknown_answers"].as_u64()), (Some(1), Some(1)));
    // q2: m03 cites m02 and m01, m04 cites m12 and m01; nobody cites m11: 2/3. Only m02 shares a
    // paragraph with m01 (m05's s2-p1): 1/3.
    assert_eq!(q("q2")["comention_acc"].as_f64(), Some(2.0 / 3.0));
    assert_eq!(q("q2")["comention_paragraph"].as_f64(), Some(1.0 / 3.0));
    // q3: does m12 cite m10? No (m10 cites m12).
    assert_eq!(q("q3")["cite_acc"].as_f64(), Some(0.0));
    // q4 has no answer: 0, counted as unanswered.
    assert_eq!((q("q4")["comention_acc"].as_f64(), report["unanswered"].as_u64()), (Some(0.0), Some(1)));
    // Means over the queries each metric applies to.
    assert_eq!(report["cite_acc"].as_f64(), Some(0.3));
    assert_eq!(report["cite_sentiment"].as_f64(), Some(0.2));
    assert_eq!(report["comention_acc"].as_f64(), Some(1.0 / 3.0));
    // Bad lines are named and skipped; the rest is scored.
    let problems: Vec<&str> = report["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert!(
        problems[0].ends_with("queries.jsonl:5: field `paper`: `nope` is not a paper of the corpus"),
        "{problems:?}"
    );
    assert!(problems[1].ends_with("queries.jsonl:6: field `task`: `cites` is neither `cite` nor `co-mention`"));
    assert!(problems[2].ends_with("answers.jsonl:4: field `id`: `q9` names no query that could be scored"));
    assert!(problems[3].ends_with("answers.jsonl:5: field `retrieved`: expected a list of strings"));
    assert_eq!(report["queries"], 4);
    // The text report says the same.
    let out =
        litnav(&["eval", "pairs", "--corpus", path(&corpus), "--queries", path(&queries), "--answers", path(&answers)]);
    assert!(stdout(&out).contains("Cite-Acc            30.00%"), "{}", stdout(&out));
    // A file that is not JSON lines at all is an error.
    std::fs::write(&answers, "not json\n").unwrap();
    let out =
        litnav(&["eval", "pairs", "--corpus", path(&corpus), "--queries", path(&queries), "--answers", path(&answers)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("answers.jsonl:1: not JSON"), "{}", stderr(&out));
}

#[test]
fn path_queries_take_either_order_of_the_endpoints() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = mini_corpus(dir.path());
    let queries = dir.path().join("paths.jsonl");
    use serde_json::json;
    // m05 → m03 → m02 → m01 is a citation path (m05 cites m03, m03 cites m02, m02 cites m01).
    write_lines(
        &queries,
        &[
            json!({"source": "m05", "target": "m01", "retrieved": ["m03", "m02"]}),
            json!({"source": "m01", "target": "m05", "retrieved": ["m02", "m03"]}),
            json!({"source": "m01", "target": "m06", "retrieved": []}),
            json!({"source": "m01", "target": "zzz", "retrieved": []}),
        ],
    );
    let out = litnav(&["eval", "paths", "--corpus", path(&corpus), path(&queries), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = report["per_query"].as_array().unwrap();
    assert_eq!(rows[0]["truth"], json!(["m05", "m03", "m02", "m01"]));
    assert_eq!((rows[0]["reversed"].as_bool(), rows[1]["reversed"].as_bool()), (Some(false), Some(true)));
    for row in &rows[..2] {
        assert_eq!(
            (row["truth"].clone(), row["consistency"].as_f64(), row["connectivity"].as_bool()),
            (rows[0]["truth"].clone(), Some(1.0), Some(true))
        );
    }
    // No path between m01 and m06 either way.
    assert!(rows[2]["truth"].is_null() && rows[2]["consistency"].is_null());
    assert_eq!(report["without_truth"], 1);
    assert_eq!(
        report["problems"][0].as_str().unwrap().rsplit_once(": ").unwrap().1,
        "`zzz` is not a paper of the corpus"
    );
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn bench_scinet_on_a_few_real_queries() {
    let report = bench_report(&["scinet", "--queries", "3"]);
    assert_eq!((report["ego_queries"].as_u64(), report["path_queries"].as_u64()), (Some(3), Some(3)));
    // litnav's relation answers reproduce the truth they are built from; content-only retrieval
    // does not (SciNet's claim), on every family.
    for row in report["ego"].as_array().unwrap().iter().chain(report["paths"].as_array().unwrap()) {
        let value = row["recall"].as_f64().or(row["consistency"].as_f64()).unwrap();
        if row["system"] == "relations" {
            assert_eq!(value, 1.0, "{row}");
        } else {
            assert!(value < 1.0, "{row}");
        }
    }
    for row in report["pairs"].as_array().unwrap() {
        let s = &row["scores"];
        let value = s["cite_acc"].as_f64().or(s["comention_acc"].as_f64()).unwrap();
        assert!(if row["system"] == "relations" { value == 1.0 } else { value < 1.0 }, "{row}");
    }
}
