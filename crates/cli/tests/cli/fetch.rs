//! Your own field: `litnav fetch openalex` and `litnav map --fetch openalex` against the OpenAlex
//! stand-in on loopback, serving the shared datasets' real citation networks (CiteSeer and AAN) as
//! OpenAlex works. No test here reaches the internet.

use crate::util::*;
use litnav_fetch::stand_in::{Faults, StandIn, dataset_works};
use std::path::Path;
use std::process::{Command, Output};

fn stand_in() -> StandIn {
    let (works, moved) = dataset_works(&datasets()).unwrap();
    StandIn::start(works, moved).unwrap()
}

/// `litnav ARGS` with its own home (fresh answer cache) and `OPENALEX_API_KEY` set to `key`.
fn litnav_with(home: &Path, key: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(args)
        .env("LITNAV_HOME", home)
        .env("LITNAV_DATASETS", datasets())
        .env("OPENALEX_API_KEY", key)
        .output()
        .expect("run litnav")
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(files_under(&path)) } else { files.push(path) }
    }
    files
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn a_field_is_fetched_with_its_citations_once_and_the_key_is_kept_nowhere() {
    let server = stand_in();
    server.inject(Faults { key: Some("test-key-5f1e".into()), rate_limited: 1, server_errors: 1, ..Faults::default() });
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("smt");
    let args = [
        "fetch",
        "openalex",
        "--topic",
        "statistical machine translation",
        "--corpus",
        path(&corpus),
        "--api-url",
        server.url(),
        "--max",
        "60",
        "--snowball-max",
        "140",
        "--rate",
        "50",
        "--json",
    ];
    let out = litnav_with(home.path(), "test-key-5f1e", &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let fetch = &report["fetch"];
    assert_eq!(fetch["hits"], 60);
    assert!(fetch["references"].as_u64().unwrap() > 50, "{fetch}");
    assert!(fetch["citing"].as_u64().unwrap() > 10, "{fetch}");
    // Every work found is in the corpus but those OpenAlex gives no title.
    let untitled = fetch["skipped"]["no title"].as_u64().unwrap_or(0);
    assert_eq!(
        fetch["works"].as_u64().unwrap() + untitled,
        60 + fetch["references"].as_u64().unwrap() + fetch["citing"].as_u64().unwrap()
    );
    assert!(fetch["merged"].as_u64().unwrap() > 0, "merged works were followed: {fetch}");
    assert_eq!(fetch["calls"]["search"], 1);
    assert_eq!(fetch["calls"]["retries"], 2, "the 429 and the 500 were retried");
    let citations = fetch["citations"].as_u64().unwrap();
    assert!(citations > 100, "{fetch}");
    // The corpus is a normal corpus, its graph holding every citation among the fetched works.
    let info = litnav_with(home.path(), "", &["info", "--corpus", path(&corpus), "--json"]);
    assert!(info.status.success(), "{}", stderr(&info));
    let info: serde_json::Value = serde_json::from_str(&stdout(&info)).unwrap();
    assert_eq!(info["papers"].as_u64(), fetch["works"].as_u64(), "{info}");
    assert_eq!(info["edges"].as_u64(), Some(citations), "{info}");
    // A second identical fetch asks the stand-in nothing.
    let asked = server.log().len();
    let again = litnav_with(home.path(), "test-key-5f1e", &args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(server.log().len(), asked);
    let again: serde_json::Value = serde_json::from_str(&stdout(&again)).unwrap();
    assert_eq!(again["fetch"]["calls"]["list"], 0);
    assert_eq!(again["fetch"]["works"], fetch["works"]);
    // The key went with every request and is kept in no file litnav wrote.
    assert!(server.log().iter().all(|l| l.contains("api_key=test-key-5f1e")));
    for file in files_under(home.path()) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains("test-key-5f1e"), "{}", file.display());
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn a_wrong_key_an_unknown_topic_and_a_stranger_are_clear_errors_that_write_nothing() {
    let server = stand_in();
    server.inject(Faults { key: Some("the-right-key".into()), ..Faults::default() });
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("field");
    let fetch = |key: &str, topic: &str, url: &str| {
        litnav_with(
            home.path(),
            key,
            &["fetch", "openalex", "--topic", topic, "--corpus", path(&corpus), "--api-url", url],
        )
    };
    let wrong = fetch("a-wrong-key-77", "machine translation", server.url());
    assert!(!wrong.status.success());
    let message = stderr(&wrong);
    assert!(message.contains("refused the API key from the environment variable OPENALEX_API_KEY"), "{message}");
    assert!(!message.contains("a-wrong-key-77"), "{message}");
    let empty = fetch("", "machine translation", server.url());
    assert!(stderr(&empty).contains("the OpenAlex API key from the environment variable OPENALEX_API_KEY is empty"));
    let unknown = fetch("the-right-key", "zzyzx quasicrystal", server.url());
    assert!(
        stderr(&unknown).contains("OpenAlex has no works for the topic \"zzyzx quasicrystal\""),
        "{}",
        stderr(&unknown)
    );
    let flag = litnav_with(
        home.path(),
        "",
        &["fetch", "openalex", "--topic", "x", "--corpus", path(&corpus), "--api-url", "ftp://example.org"],
    );
    assert!(stderr(&flag).contains("must start with http:// or https://"), "{}", stderr(&flag));
    server.inject(Faults { not_openalex: true, ..Faults::default() });
    let stranger = fetch("k", "machine translation", server.url());
    assert!(
        stderr(&stranger).contains("did not answer as OpenAlex does: the answer is not JSON"),
        "{}",
        stderr(&stranger)
    );
    assert!(!corpus.exists(), "no failed fetch wrote a corpus");
}

/// Every node's retracted paper ids at or below `node`.
fn all_retracted(node: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> =
        node["retracted"].as_array().into_iter().flatten().map(|id| id.as_str().unwrap().to_string()).collect();
    for child in node["subtopics"].as_array().into_iter().flatten() {
        ids.extend(all_retracted(child));
    }
    ids
}

/// The papers a corpus's current generation holds, as stored.
fn stored_papers(corpus: &Path) -> Vec<serde_json::Value> {
    let file = files_under(corpus).into_iter().filter(|f| f.ends_with("papers.jsonl")).max().expect("a generation");
    std::fs::read_to_string(file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The stand-in answers as OpenAlex really does: works without a title, titles with markup, front
/// matter, errata, retracted works, and a search whose pages list a work again. The fetch finishes,
/// writes clean titles, and its report counts every case.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn a_field_as_openalex_really_answers_is_fetched_whole_and_clean_and_every_repair_counted() {
    let server = stand_in();
    server.inject(Faults { repeat_across_pages: true, ..Faults::default() });
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("parsing");
    let args = [
        "fetch",
        "openalex",
        "--topic",
        "parsing",
        "--corpus",
        path(&corpus),
        "--api-url",
        server.url(),
        "--max",
        "150",
        "--snowball-max",
        "900",
        "--rate",
        "100",
        "--json",
    ];
    let out = litnav_with(home.path(), "k", &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap();
    let fetch = &report["fetch"];
    assert_eq!(fetch["hits"], 150, "a work listed twice does not take a hit's place: {fetch}");
    assert!(fetch["calls"]["search"].as_u64().unwrap() >= 2, "{fetch}");
    assert!(fetch["skipped"]["listed again by the topic search"].as_u64().unwrap() >= 1, "{fetch}");
    for (counts, reason) in [
        ("skipped", "no title"),
        ("repaired", "markup removed from the title"),
        ("flagged", "paratext (left out of maps)"),
        ("flagged", "erratum (left out of maps)"),
        ("flagged", "retracted"),
    ] {
        assert!(fetch[counts][reason].as_u64().unwrap_or(0) > 0, "{counts} counts {reason}: {fetch}");
    }
    assert!(stderr(&out).contains("Left out: ") && stderr(&out).contains("Marked: "), "{}", stderr(&out));
    // The corpus holds every work kept, two records of one paper (same title) merged into one.
    let papers = stored_papers(&corpus);
    let merged = report["ingest"]["merge"]["papers_merged"].as_u64().unwrap();
    assert_eq!(papers.len() as u64, fetch["works"].as_u64().unwrap() - merged);
    for paper in &papers {
        let title = paper["title"].as_str().unwrap();
        assert!(!title.contains("<i>") && !title.contains("&amp;") && !title.contains("<sub>"), "{title}");
    }
    let typed = papers.iter().filter(|p| p["type"] == "paratext").count() as u64;
    assert!((1..=fetch["flagged"]["paratext (left out of maps)"].as_u64().unwrap()).contains(&typed));
    let retracted = papers.iter().filter(|p| p["retracted"] == true).count() as u64;
    assert!((1..=fetch["flagged"]["retracted"].as_u64().unwrap()).contains(&retracted));
    // A search shows the mark beside a retracted work.
    let withdrawn = papers.iter().find(|p| p["retracted"] == true).unwrap();
    let title = withdrawn["title"].as_str().unwrap();
    let search = ["search", "--corpus", path(&corpus), "--query", title, "--mode", "bm25", "--k", "3"];
    let found = litnav_with(home.path(), "", &search);
    let line = stdout(&found).lines().find(|l| l.contains(withdrawn["id"].as_str().unwrap())).map(str::to_string);
    assert!(line.as_deref().is_some_and(|l| l.ends_with("RETRACTED")), "{line:?}\n{}", stderr(&found));
    // Every citation among the fetched works is counted, those made through merged ids included
    // (the fetch again, as a library: its works keep their OpenAlex ids).
    let cache = tempfile::tempdir().unwrap();
    let config = litnav_fetch::HttpConfig {
        rate: 1000.0,
        cache_dir: Some(cache.path().to_path_buf()),
        trusted_host: Some("127.0.0.1".into()),
        ..litnav_fetch::HttpConfig::default()
    };
    let source = litnav_fetch::openalex::OpenAlex::new(server.url(), None, config).unwrap();
    let plan = litnav_fetch::Plan { max: 150, snowball_max: 900, ..litnav_fetch::Plan::new("parsing") };
    let fetched = litnav_fetch::fetch(&source, &plan, &litnav_fetch::Unwatched).unwrap();
    assert_eq!(fetched.report.citations as u64, fetch["citations"].as_u64().unwrap());
    let ids: Vec<String> = fetched.works.iter().map(|w| w.id.clone()).collect();
    let aliases: Vec<String> = fetched.works.iter().flat_map(|w| w.aliases.clone()).collect();
    let (all, through_unmet_merged_ids) = citations_among(&ids, &aliases);
    // A citation is lost only when a snowballed work cites a fetched one under a merged id that
    // the fetch never met (it would cost a call per reference outside the field to find out).
    let found = fetched.report.citations as u64;
    assert!(found <= all && found >= all - through_unmet_merged_ids, "{found} of {all}: {fetch}");
}

/// The citations the stand-in's works make among the works `ids` (OpenAlex's), merged ids
/// resolved, and how many of them go through a merged id that is not among `aliases`.
fn citations_among(ids: &[String], aliases: &[String]) -> (u64, u64) {
    let (works, moved) = dataset_works(&datasets()).unwrap();
    let short = |id: &str| id.rsplit('/').next().unwrap().to_string();
    let fetched: std::collections::HashSet<String> = ids.iter().cloned().collect();
    let (mut citations, mut unmet) = (0, 0);
    for work in works.iter().filter(|w| fetched.contains(&short(w["id"].as_str().unwrap()))) {
        let mut cited = std::collections::HashMap::new();
        for reference in work["referenced_works"].as_array().unwrap().iter().map(|r| short(r.as_str().unwrap())) {
            let through_unmet = moved.contains_key(&reference) && !aliases.contains(&reference);
            let target = moved.get(&reference).cloned().unwrap_or(reference);
            if fetched.contains(&target) {
                *cited.entry(target).or_insert(true) &= through_unmet;
            }
        }
        citations += cited.len() as u64;
        unmet += cited.values().filter(|unmet| **unmet).count() as u64;
    }
    (citations, unmet)
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn map_fetches_its_field_then_maps_it_with_a_citation_graph() {
    let model = litnav_embed_model();
    let server = stand_in();
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("mt");
    let html = home.path().join("map.html");
    let out = litnav_with(
        home.path(),
        "k",
        &[
            "map",
            "--topic",
            "machine translation",
            "--fetch",
            "openalex",
            "--corpus",
            path(&corpus),
            "--api-url",
            server.url(),
            "--max",
            "80",
            "--snowball-max",
            "120",
            "--rate",
            "50",
            "--model",
            &model,
            "--html",
            path(&html),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("works for “machine translation” from OpenAlex"), "{}", stderr(&out));
    let map: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(map["coverage"]["covered"], true, "a fetched field covers its topic: {}", map["coverage"]);
    let in_map = all_paper_ids(&map);
    assert!(in_map.len() >= 20);
    // Front matter and errata stay out of the map; a retracted work in it is marked.
    let papers = stored_papers(&corpus);
    let of_type = |types: &[&str]| -> Vec<String> {
        let typed = papers.iter().filter(|p| types.iter().any(|t| p["type"] == *t));
        typed.map(|p| p["id"].as_str().unwrap().to_string()).collect()
    };
    let not_research = of_type(&["paratext", "erratum"]);
    assert!(!not_research.is_empty(), "the field holds front matter or errata");
    assert!(in_map.iter().all(|id| !not_research.contains(id)), "{not_research:?} kept out of the map");
    assert!(stderr(&out).contains("left out of the map as not research"), "{}", stderr(&out));
    let retracted: Vec<&str> =
        papers.iter().filter(|p| p["retracted"] == true).map(|p| p["id"].as_str().unwrap()).collect();
    let marked = all_retracted(&map);
    assert_eq!(marked.len(), in_map.iter().filter(|id| retracted.contains(&id.as_str())).count(), "{marked:?}");
    if !marked.is_empty() {
        assert!(std::fs::read_to_string(&html).unwrap().contains("class=\"retracted\""), "the page marks it");
    }
    // Without --fetch, fetch flags are refused rather than ignored.
    let stray = litnav_with(home.path(), "", &["map", "--topic", "x", "--max", "5"]);
    assert!(stderr(&stray).contains("go with fetch"), "{}", stderr(&stray));
}

/// A proxy the environment names (`HTTP_PROXY`), on the owner's own network, is the owner's
/// choice: the fetch goes through it instead of being refused as a private address. The "proxy"
/// here is a listener on loopback that records the request and answers 400.
#[test]
fn a_fetch_goes_through_the_proxy_the_environment_names() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let heard = std::thread::spawn(move || {
        // Nothing heard within 60 s (a refused proxy) is an empty head, not a hang.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(_) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                Err(_) => return String::new(),
            }
        };
        stream.set_nonblocking(false).unwrap();
        stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).map(|n| n == 1).unwrap_or(false) {
            head.push(byte[0]);
        }
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        String::from_utf8_lossy(&head).into_owned()
    });
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("c");
    let mut command = Command::new(env!("CARGO_BIN_EXE_litnav"));
    for name in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "http_proxy"] {
        command.env_remove(name);
    }
    let out = command
        .args(["fetch", "openalex", "--topic", "graph neural networks", "--corpus", path(&corpus)])
        .args(["--api-url", "http://api.openalex.invalid", "--max", "5"])
        .env("HTTP_PROXY", format!("http://127.0.0.1:{port}"))
        .env("LITNAV_HOME", home.path())
        .output()
        .unwrap();
    let head = heard.join().unwrap();
    // ureq tunnels through an HTTP proxy (CONNECT), for http:// targets too.
    assert!(head.starts_with("CONNECT api.openalex.invalid:80 "), "the proxy heard: {head:?}; {}", stderr(&out));
    assert!(!out.status.success(), "the proxy answered 400");
    assert!(!stderr(&out).contains("connects only to public addresses"), "{}", stderr(&out));
}
