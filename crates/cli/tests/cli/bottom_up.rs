//! `litnav map --method llm`: TaxoBench's LLM Bottom-Up organizer as a map method, with its input
//! settings, against a scripted endpoint (the flow and every repair) and the real server.

use crate::util::*;
use litnav_llm::fake::{Behaviour, serve_with};
use serde_json::{Value, json};
use std::process::Command;

/// 24 real litbench papers of one topic in a file.
fn papers(dir: &std::path::Path) -> std::path::PathBuf {
    let papers = dir.join("papers.jsonl");
    let corpus = std::fs::read_to_string(datasets().join("litbench/corpus.jsonl")).unwrap();
    let lines: Vec<&str> = corpus.lines().filter(|l| l.contains("\"cs_01_llm\"")).take(24).collect();
    std::fs::write(&papers, lines.join("\n")).unwrap();
    papers
}

fn map(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_litnav"))
        .arg("map")
        .args(args)
        .env("LITNAV_HOME", home)
        .env("LITNAV_MODEL", litnav_embed_model())
        .output()
        .unwrap()
}

/// The scripted model. Extractions: a summary for every paper; a core task for every paper but
/// the two whose title starts with "Finding" (two words, refused twice). Bottom-Up: categories by the
/// parity of the number, subcategories by the number mod 4 — and it checks that the notes were
/// shown. Themes: all categories of one parity together.
fn answer(request: &Value) -> Behaviour {
    let task = request["response_format"]["json_schema"]["name"].as_str().unwrap_or("");
    let prompt = request["messages"][1]["content"].as_str().unwrap_or("");
    let answer = match task {
        "paper_summary" => json!({"problem": "Models answer with unwarranted confidence", "motivation": "",
            "methods": ["sampling several answers"], "conclusions": [], "contributions": ["a scoring rule"]}),
        "core_task" if prompt.contains("Title: Finding") => json!({"core_task": "Finding things"}),
        "core_task" => json!({"core_task": "estimating how reliable language model answers are"}),
        // The map's checks: every subtopic belongs under its parent.
        "entailment" => {
            json!({"entailed": vec![true; prompt.lines().filter(|l| l.split_once(". ").is_some_and(|(n, _)| n.parse::<u32>().is_ok())).count()]})
        }
        "bottom_up" => {
            assert!(prompt.contains("Core task: estimating how reliable"), "{prompt}");
            assert!(prompt.contains("Contributions: a scoring rule"), "{prompt}");
            let numbers: Vec<u64> =
                prompt.lines().filter_map(|l| l.strip_prefix('[')?.split_once(']')?.0.parse().ok()).collect();
            let parity = |p: u64| if p.is_multiple_of(2) { "Even Methods" } else { "Odd Methods" };
            let categories: Vec<Value> = ["Even Methods", "Odd Methods"]
                .iter()
                .map(|name| {
                    let subs: Vec<Value> = (0..4)
                        .filter_map(|r| {
                            let papers: Vec<u64> =
                                numbers.iter().copied().filter(|&n| parity(n) == *name && n % 4 == r).collect();
                            (!papers.is_empty()).then(|| json!({"name": format!("Kind {r}"), "papers": papers}))
                        })
                        .collect();
                    json!({"name": name, "subcategories": subs})
                })
                .collect();
            json!({ "categories": categories })
        }
        _ => {
            let numbered: Vec<(u64, bool)> = prompt
                .lines()
                .filter_map(|l| {
                    let (n, rest) = l.split_once(". ")?;
                    Some((n.trim().parse().ok()?, rest.starts_with("Even")))
                })
                .collect();
            let pick = |even: bool| numbered.iter().filter(|(_, e)| *e == even).map(|(n, _)| *n).collect::<Vec<_>>();
            json!({"themes": [{"name": "Even Work", "subtopics": pick(true)}, {"name": "Odd Work", "subtopics": pick(false)}]})
        }
    };
    Behaviour::Answer(answer.to_string())
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn the_llm_bottom_up_method_batches_extracts_and_places_every_paper_once() {
    let dir = tempfile::tempdir().unwrap();
    let papers = papers(dir.path());
    let server = serve_with(|_, request| answer(request)).unwrap();
    let (out_map, trace, prediction) =
        (dir.path().join("map.json"), dir.path().join("trace.json"), dir.path().join("prediction.jsonl"));
    let home = dir.path().join("home");
    let args = [
        "--topic",
        "large language models",
        "--papers",
        path(&papers),
        "--method",
        "llm",
        "--input",
        "core-task",
        "--llm-batch",
        "8",
        "--llm-url",
        &server.url,
        "--out",
        path(&out_map),
        "--llm-trace",
        path(&trace),
        "--taxobench-out",
        path(&prediction),
    ];
    let out = map(&home, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&out_map).unwrap()).unwrap();
    let mut placed = all_paper_ids(&value);
    placed.sort();
    placed.dedup();
    assert_eq!(placed.len(), 24, "every paper exactly once");
    assert_distinct_names(&value);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    assert_eq!(report["input"], "core-task");
    // Three requests of eight; their six categories, two names, merged into two (too few to
    // group into themes).
    let requests = report["trace"]["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 3, "{report}");
    assert!(requests.iter().all(|r| r["papers"] == 8 && r["organized_offline"].is_null()));
    assert_eq!(report["trace"]["groupings"], json!([]));
    let themes: Vec<&str> =
        value["subtopics"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    // Each name's three categories are one, their subcategories merged by name too.
    assert_eq!(themes, ["Even Methods", "Odd Methods"]);
    let kinds: Vec<&str> =
        value["subtopics"][0]["subtopics"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Kind 0", "Kind 2"]);
    // Ids and relevance on every node; the prediction line carries the tree and the papers.
    assert_eq!(value["subtopics"][0]["id"], "t1");
    assert!(value["subtopics"][0]["relevance"].as_f64().unwrap() > 0.0);
    let line: Value = serde_json::from_str(std::fs::read_to_string(&prediction).unwrap().trim()).unwrap();
    assert_eq!(line["retrieved_papers"].as_array().unwrap().len(), 24);
    // Papers whose core task could not be extracted are shown without a note, and listed.
    let failed = report["notes_failed"].as_array().unwrap();
    assert_eq!((report["noted"].as_u64(), failed.len()), (Some(22), 2), "{report}");
    for failure in failed {
        assert!(failure["title"].as_str().unwrap().starts_with("Finding"), "{failure}");
        assert!(failure["error"].as_str().unwrap().contains("5 to 15 words"), "{failure}");
    }
    assert!(stderr(&out).contains("2 paper(s) shown without their core task and contributions"), "{}", stderr(&out));

    // The same run again is served by the cache alone.
    let mut offline = args.to_vec();
    offline.push("--llm-offline");
    let out = map(&home, &offline);
    assert!(out.status.success(), "{}", stderr(&out));
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&out_map).unwrap()).unwrap();
    assert_eq!(again, value);

    // Flags that cannot apply are refused, not ignored; an endpoint that is down is named.
    let out = map(&home, &["--topic", "x", "--papers", path(&papers), "--input", "summary"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("input and llm_batch set the LLM Bottom-Up organizer: they need method llm"),
        "{}",
        stderr(&out)
    );
    let out = map(
        &home,
        &[
            "--topic",
            "x",
            "--papers",
            path(&papers),
            "--method",
            "llm",
            "--llm-url",
            "http://127.0.0.1:9/v1",
            "--no-cache",
        ],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("127.0.0.1:9"), "{}", stderr(&out));
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn the_llm_bottom_up_method_on_a_real_server() {
    // Six real papers with their summaries, one request: whatever the 135M model answers, every
    // paper ends up placed exactly once and the trace says what was repaired.
    let dir = tempfile::tempdir().unwrap();
    let all = papers(dir.path());
    let six: Vec<String> = std::fs::read_to_string(&all).unwrap().lines().take(6).map(str::to_string).collect();
    std::fs::write(&all, six.join("\n")).unwrap();
    let (out_map, trace) = (dir.path().join("map.json"), dir.path().join("trace.json"));
    let url = llm_server();
    let out = map(
        &dir.path().join("home"),
        &[
            "--topic",
            "large language models",
            "--papers",
            path(&all),
            "--method",
            "llm",
            "--input",
            "summary",
            "--llm-url",
            &url,
            "--llm-timeout",
            "600",
            "--out",
            path(&out_map),
            "--llm-trace",
            path(&trace),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&out_map).unwrap()).unwrap();
    let mut placed = all_paper_ids(&value);
    placed.sort();
    placed.dedup();
    assert_eq!(placed.len(), 6);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    assert_eq!(report["trace"]["requests"].as_array().unwrap().len(), 1);
    assert_eq!(report["noted"].as_u64().unwrap() + report["notes_failed"].as_array().unwrap().len() as u64, 6);
    assert!(report["trace"]["usage"]["calls"].as_u64().unwrap() >= 7, "six extractions and the organizer: {report}");
}
