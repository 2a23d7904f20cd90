//! Concurrency and the built-in corpus: what happens when two litnav processes meet, and when the
//! default corpus is damaged.

use crate::util::*;
use std::process::{Command, Stdio};

/// Start `litnav args` in the background with `home` as its LITNAV_HOME.
fn spawn(args: &[&str], home: &std::path::Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(args)
        .env("LITNAV_HOME", home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn two_concurrent_ingests_keep_every_context() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let mini = fixture("mini");
    let (papers, edges) = (mini.join("papers.jsonl"), mini.join("citations.csv"));
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&papers), path(&edges)]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Both start before either commits; the second waits for the first's lock and then reads the
    // contexts the first committed.
    let children: Vec<_> = ["contexts-a.jsonl", "contexts-b.jsonl"]
        .iter()
        .map(|file| {
            let contexts = mini.join(file);
            spawn(&["ingest", "--corpus", path(&corpus), path(&papers), "--contexts", path(&contexts)], dir.path())
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // Every context of both files is kept: m01 is co-mentioned with m02 (file a), and cited
    // negatively by m09 (file b).
    let out = litnav(&["relations", "co-mentioned", "--corpus", path(&corpus), "m01", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["co_mentioned"][0]["paper_id"], "m02");
    let out = litnav(&["relations", "citers", "--corpus", path(&corpus), "m01", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let sentiment =
        |id: &str| report["citers"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()["sentiment"].clone();
    assert_eq!((sentiment("m05"), sentiment("m09")), (serde_json::json!("positive"), serde_json::json!("negative")));
    let out = litnav(&["relations", "citers", "--corpus", path(&corpus), "m12", "--sentiment", "neutral", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["citers"][0]["id"], "m03");
}

#[test]
fn a_damaged_default_corpus_is_reported_and_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let builtin = home.path().join("corpora/litbench");
    std::fs::create_dir_all(builtin.join("gen-000001")).unwrap();
    std::fs::write(builtin.join("manifest.json"), "{ not json").unwrap();
    std::fs::write(builtin.join("gen-000001/papers.jsonl"), "{\"id\": \"kept\"}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["search", "--mode", "bm25", "-q", "anything"])
        .env("LITNAV_HOME", home.path())
        .env_remove("LITNAV_CORPUS")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(message.contains("cannot be used and was left as it is"), "{message}");
    assert!(message.contains("manifest.json is damaged"), "{message}");
    assert_eq!(std::fs::read_to_string(builtin.join("manifest.json")).unwrap(), "{ not json");
    assert!(builtin.join("gen-000001/papers.jsonl").is_file(), "nothing of the damaged corpus was deleted");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn two_concurrent_embeds_leave_one_consistent_cache() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&fixture("mini/papers.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let args = ["embed", "--corpus", path(&corpus), "--model", &model, "--threads", "1", "--json"];
    let children = [spawn(&args, dir.path()), spawn(&args, dir.path())];
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // One record per paper (a writer that lost the race skipped what the other wrote), and a third
    // run finds every vector.
    let cache = corpus.join("vectors/all-MiniLM-L6-v2.bin");
    assert_eq!(std::fs::metadata(&cache).unwrap().len(), 16 + 12 * (16 + 384 * 4));
    let out = litnav(&args);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((report["already_cached"].as_u64(), report["encoded"].as_u64()), (Some(12), Some(0)));
}
