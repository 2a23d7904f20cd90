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
    assert_eq!(
        fetch["works"].as_u64(),
        Some(60 + fetch["references"].as_u64().unwrap() + fetch["citing"].as_u64().unwrap())
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
    assert!(all_paper_ids(&map).len() >= 20);
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
