//! Maps and expansions: every paper placed once, deterministic, rendered, and the page in a browser.

use crate::util::*;
use std::process::Command;

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
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
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
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
    // Most relevant first, at every level.
    fn relevance_first(node: &serde_json::Value) {
        let children = node["subtopics"].as_array().cloned().unwrap_or_default();
        let relevance: Vec<f64> = children.iter().map(|c| c["relevance"].as_f64().unwrap()).collect();
        assert!(relevance.windows(2).all(|w| w[0] >= w[1]), "{} lists {relevance:?}", node["name"]);
        children.iter().for_each(relevance_first);
    }
    relevance_first(&map);
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
#[cfg_attr(not(feature = "browser"), ignore = "needs Chromium (tier `browser`)")]
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
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
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
    // The file is what --json prints: the tree and, beside it, the coverage verdict and checks.
    assert!(map["coverage"]["covered"].is_boolean() && map["checks"].is_object(), "{}", map["coverage"]);
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
    assert!(stderr(&out).contains("new papers retrieved for “"), "{}", stderr(&out));
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
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
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

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn a_corpus_map_applies_the_leakage_filters() {
    // The built-in litbench corpus of the benchmarks' home (vectors cached there).
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("map.html");
    let map_of = |min_score: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args(["map", "--topic", "vision transformers", "--k", "60", "--before", "2021", "--exclude-surveys"])
            .args(["--min-score", min_score, "--json", "--html", path(&page)])
            .env("LITNAV_HOME", litnav_testkit::home().join("test-cache").join("bench-home"))
            .env("LITNAV_MODEL", litnav_embed_model())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        (serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap(), stderr(&out))
    };
    // --min-score 0 keeps every one of the k; a floor keeps the papers near the topic's core, and at
    // least 20 (over 60 hits the relevance is flat: the default floor keeps all 60), and says so.
    let (map, said) = map_of("0");
    let ids = all_paper_ids(&map);
    assert_eq!(ids.len(), 60);
    assert!(!said.contains("score floor"), "{said}");
    let (core, said) = map_of("0.8");
    let core = all_paper_ids(&core);
    assert!((20..60).contains(&core.len()), "{} papers above the floor", core.len());
    let kept = format!("the score floor kept {} of the 60 papers retrieved (those near the topic's core)", core.len());
    assert!(said.contains(&kept), "{said}");
    // The page says it too, under the map's title.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(&format!("<p class=\"note\">{kept}</p>")), "{html}");
    let (_, said) = map_of("0.32");
    assert!(said.contains("nearly all reach it"), "{said}");
    assert!(core.iter().all(|id| ids.contains(id)), "the floor only leaves papers out");
    let corpus = std::fs::read_to_string(datasets().join("litbench/corpus.jsonl")).unwrap();
    let years: std::collections::HashMap<String, Option<i64>> = corpus
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v["year"].as_i64())
        })
        .collect();
    for id in &ids {
        let year = years.get(id).copied().flatten();
        assert!(year.is_some_and(|y| y < 2021), "{id} ({year:?}) is not before 2021");
    }
    fn titles(node: &serde_json::Value, out: &mut Vec<String>) {
        out.extend(node["papers"].as_array().into_iter().flatten().map(|t| t.as_str().unwrap().to_lowercase()));
        node["subtopics"].as_array().into_iter().flatten().for_each(|c| titles(c, out));
    }
    let mut listed = Vec::new();
    titles(&map, &mut listed);
    assert!(listed.iter().all(|t| !t.contains("a survey")), "surveys left out: {listed:?}");
    let out = litnav(&["map", "--topic", "x", "--min-score", "1.5"]);
    assert!(stderr(&out).contains("between 0 and 1, not 1.5"), "{}", stderr(&out));
    let out = litnav(&["map", "--topic", "x", "--min-relevance", "2"]);
    assert!(stderr(&out).contains("min_relevance: ") && stderr(&out).contains("between -1 and 1"), "{}", stderr(&out));
    // On a paper file the filters have nothing to filter: refused, not ignored.
    let out = litnav(&["map", "--topic", "x", "--papers", "x.jsonl", "--before", "2020"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("a paper file is organized whole"), "{}", stderr(&out));
}

/// Corrections by hand: a log of edits applied to a map reproduces the edited map from its
/// inputs, its checks are made on the edited map, and a log that does not fit is refused naming
/// the entry.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn a_map_takes_an_edit_log_and_refuses_one_that_does_not_fit() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let data = datasets().join("taxobench/data.jsonl");
    let args = ["map", "--topic", "LLM-based agents", "--papers", path(&data), "--instance", "64", "--model", &model];
    let out = litnav(&[&args[..], &["--json"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let map: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let leaves: Vec<&serde_json::Value> = map["subtopics"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["subtopics"].as_array().into_iter().flatten())
        .filter(|s| s["subtopics"].as_array().is_none_or(Vec::is_empty))
        .collect();
    let (first, second) = (leaves[0], leaves[1]);
    let paper = first["paper_ids"][0].as_str().unwrap();
    let log = dir.path().join("edits.jsonl");
    let lines = [
        serde_json::json!({"op": "rename", "node": first["id"], "name": "Renamed by hand", "who": "tester"}),
        serde_json::json!({"op": "move_paper", "paper": paper, "from": first["id"], "to": second["id"]}),
    ];
    std::fs::write(&log, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let out = litnav(&[&args[..], &["--json", "--edits", path(&log)]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let edited: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let find = |id: &serde_json::Value| {
        fn walk<'a>(node: &'a serde_json::Value, id: &serde_json::Value) -> Option<&'a serde_json::Value> {
            if &node["id"] == id {
                return Some(node);
            }
            node["subtopics"].as_array().into_iter().flatten().find_map(|c| walk(c, id))
        }
        walk(&edited, id).unwrap().clone()
    };
    assert_eq!(find(&first["id"])["name"], "Renamed by hand");
    assert!(find(&second["id"])["paper_ids"].as_array().unwrap().iter().any(|p| p == paper));
    assert!(!find(&first["id"])["paper_ids"].as_array().unwrap().iter().any(|p| p == paper));
    assert_eq!(all_paper_ids(&edited).len(), all_paper_ids(&map).len(), "a move keeps every paper once");
    assert!(edited["checks"]["problems"].is_array(), "the checks are made on the edited map");

    std::fs::write(&log, "{\"op\": \"merge\", \"node\": \"t1\", \"into\": \"t99\"}\n").unwrap();
    let out = litnav(&[&args[..], &["--edits", path(&log)]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("edits[0] (merge): t1 and t99 are not siblings"), "{}", stderr(&out));

    // The checks' suggested corrections are edit log entries `--edits` takes as they are.
    let suggestions = map["checks"]["suggestions"].as_array().unwrap();
    let suggestion = suggestions.first().expect("a map of this size has a correction to suggest");
    let entries: String = suggestion["edits"].as_array().unwrap().iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(&log, entries).unwrap();
    let out = litnav(&[&args[..], &["--edits", path(&log)]].concat());
    assert!(out.status.success(), "{suggestion}: {}", stderr(&out));
    let out = litnav(&args);
    let action = suggestion["action"].as_str().unwrap();
    assert!(stdout(&out).contains("suggested corrections:") && stdout(&out).contains(action), "{}", stdout(&out));
}
