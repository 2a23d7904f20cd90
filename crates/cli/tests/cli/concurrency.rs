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
    // Both start before either commits: the test holds the corpus's write lock until both wait
    // on it (the kernel lists them as blocked), so the second to get it must read the contexts
    // the first committed.
    let lock = std::fs::File::options().write(true).open(corpus.join(".lock")).unwrap();
    lock.lock().unwrap();
    let children: Vec<_> = ["contexts-a.jsonl", "contexts-b.jsonl"]
        .iter()
        .map(|file| {
            let contexts = mini.join(file);
            spawn(&["ingest", "--corpus", path(&corpus), path(&papers), "--contexts", path(&contexts)], dir.path())
        })
        .collect();
    wait_for_blocked_locks(&corpus.join(".lock"), 2);
    lock.unlock().unwrap();
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

/// Wait (at most a minute) until `count` processes are blocked on the flock of `file`, as the
/// kernel's /proc/locks shows them (`->` marks a waiting request; the inode names the file).
fn wait_for_blocked_locks(file: &std::path::Path, count: usize) {
    use std::os::unix::fs::MetadataExt;
    let inode = format!(":{} ", std::fs::metadata(file).unwrap().ino());
    let started = std::time::Instant::now();
    loop {
        let locks = std::fs::read_to_string("/proc/locks").unwrap();
        let blocked = locks.lines().filter(|l| l.contains("-> FLOCK") && l.contains(&inode)).count();
        if blocked >= count {
            return;
        }
        assert!(started.elapsed().as_secs() < 60, "only {blocked} of {count} ingests reached the lock:\n{locks}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
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
