//! What the CLI tests share: running the binary, reading its output, walking maps.

use std::path::Path;
use std::process::{Command, Output};

pub use litnav_testkit::{datasets, fixture};

pub fn litnav(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(args)
        .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
        .output()
        .expect("run litnav")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The model directory, installed if needed (the same install `litnav model install` does).
pub fn litnav_embed_model() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_litnav")).args(["model", "install", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let installed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    installed["dir"].as_str().unwrap().to_string()
}

/// The JSON report of `litnav bench <args> --json`, run in a home kept across runs
/// (`test-cache/bench-home`): the corpora benchmarks build — AAN, the surveys' contexts, litbench,
/// each with every vector, about 13 minutes on two cores — are paid for once per machine.
pub fn bench_report(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .arg("bench")
        .args(args)
        .arg("--json")
        .env("LITNAV_HOME", litnav_testkit::home().join("test-cache").join("bench-home"))
        .env("LITNAV_MODEL", litnav_embed_model())
        .output()
        .expect("run litnav bench");
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("a JSON report")
}

/// Corpus ids of every paper at or below a map node (JSON), in map order.
pub fn all_paper_ids(node: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> =
        node["paper_ids"].as_array().into_iter().flatten().map(|id| id.as_str().unwrap().to_string()).collect();
    for child in node["subtopics"].as_array().into_iter().flatten() {
        ids.extend(all_paper_ids(child));
    }
    ids
}

/// Every node's name at or below `node`, in preorder.
pub fn all_names(node: &serde_json::Value) -> Vec<String> {
    let mut names = vec![node["name"].as_str().unwrap().to_string()];
    for child in node["subtopics"].as_array().into_iter().flatten() {
        names.extend(all_names(child));
    }
    names
}

pub fn assert_distinct_names(map: &serde_json::Value) {
    let names = all_names(map);
    let distinct: std::collections::HashSet<String> = names.iter().map(|n| n.to_lowercase()).collect();
    assert_eq!(distinct.len(), names.len(), "no two nodes share a name: {names:?}");
}

/// The LLM server of scripts/llm-server.sh, started if needed (it is built once per machine).
pub fn llm_server() -> String {
    litnav_testkit::llm_server().to_string()
}
