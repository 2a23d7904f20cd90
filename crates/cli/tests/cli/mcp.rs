//! `litnav mcp` spoken to as agents speak to it: JSON-RPC lines on its standard input and output
//! (every tier), and the MCP Inspector's command-line mode (tier `node`: Node.js and npm, the
//! Inspector installed once under ~/.cache/litnav/node). The Python tier drives it with the
//! reference Python client, tool by tool.

use crate::util::{litnav, path, stderr, stdout};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// The fixed tool names, in the order they are listed.
const TOOLS: [&str; 9] =
    ["search", "paper", "citations", "related", "path", "map", "expand", "score_taxobench", "score_survey"];

/// A corpus of a few OpenAlex works (the corpus crate's fixture).
fn small_corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let corpus = dir.join("c");
    let works = litnav_testkit::package_dir().join("../corpus/tests/fixtures/openalex_works.jsonl");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&works)]);
    assert!(out.status.success(), "{}", stderr(&out));
    corpus
}

/// A `litnav mcp` process and the lines it answers with, read on a thread of their own.
struct Session {
    child: Child,
    input: Option<ChildStdin>,
    answers: Receiver<String>,
    next_id: u64,
}

impl Session {
    fn start(corpus: &std::path::Path) -> Session {
        let home = std::env::temp_dir().join("litnav-cli-tests-home");
        Session::start_with(&["--corpus", path(corpus)], &home)
    }

    /// `litnav mcp ARGS` in the home `home`, initialized.
    fn start_with(args: &[&str], home: &std::path::Path) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_litnav"))
            .arg("mcp")
            .args(args)
            .env("LITNAV_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (sender, answers) = channel();
        let output = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let input = child.stdin.take();
        let mut session = Session { child, input, answers, next_id: 0 };
        let init =
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let answer = session.request("initialize", init);
        assert_eq!(answer["result"]["serverInfo"]["name"], "litnav", "{answer}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        let input = self.input.as_mut().unwrap();
        writeln!(input, "{message}").unwrap();
        input.flush().unwrap();
    }

    /// The answer to one request (notifications before it are passed over).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line =
                self.answers.recv_timeout(Duration::from_secs(120)).expect("litnav mcp answers within 2 minutes");
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))["result"].clone()
    }
}

/// The names of the tools a session lists.
fn tool_names(session: &mut Session) -> Vec<String> {
    let listed = session.request("tools/list", json!({}));
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

fn search_json(corpus: &std::path::Path, query: &str) -> Value {
    let out = litnav(&["search", "--corpus", path(corpus), "-q", query, "--mode", "bm25", "-k", "3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn an_agent_lists_the_tools_and_searches_as_litnav_search_does() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = small_corpus(dir.path());
    let mut session = Session::start(&corpus);
    let listed = session.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS);
    assert!(tools.iter().all(|tool| tool["inputSchema"]["type"] == "object"), "{listed}");

    let query = "attention is all you need";
    let answer = session.call("search", json!({"q": query, "mode": "bm25", "k": 3}));
    assert_eq!(answer["isError"], false, "{answer}");
    assert_eq!(answer["structuredContent"]["hits"], search_json(&corpus, query));
    assert!(answer["content"][0]["text"].as_str().unwrap().contains("(named by its title)"), "{answer}");

    // A bad argument is the tool's error, named; an unknown tool is the protocol's.
    let refused = session.call("search", json!({"q": query, "k": "three"}));
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["structuredContent"]["code"], "input");
    assert!(refused["structuredContent"]["error"].as_str().unwrap().starts_with("k: invalid type"), "{refused}");
    let unknown = session.request("tools/call", json!({"name": "summon", "arguments": {}}));
    assert!(unknown["error"]["message"].as_str().unwrap().contains("summon"), "{unknown}");
    let missing = session.call("paper", json!({"id": "no-such-paper"}));
    assert_eq!(
        (missing["isError"].clone(), missing["structuredContent"]["code"].clone()),
        (json!(true), json!("not_found"))
    );

    // The corpus as a resource, and the session ends when its input does.
    let read = session.request("resources/read", json!({"uri": "litnav://corpus"}));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap()["papers"], 3, "{text}");
    drop(session.input.take());
    let waited = (0..100).find_map(|_| {
        std::thread::sleep(Duration::from_millis(100));
        session.child.try_wait().unwrap()
    });
    assert!(waited.is_some_and(|status| status.success()), "litnav mcp ends when its input closes: {waited:?}");
}

/// The MCP Inspector (npm), installed once. The newest Inspectors ask for Node 22; 0.16.8 is the
/// last whose command-line mode runs on the machines' Node 20.
#[cfg(feature = "node")]
fn inspector() -> std::path::PathBuf {
    const VERSION: &str = "0.16.8";
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).expect("HOME is set");
    let dir = home.join(".cache/litnav/node/inspector");
    let binary = dir.join("node_modules/.bin/mcp-inspector");
    let stamp = dir.join("litnav-version");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(VERSION) || !binary.is_file() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("package.json"), "{\"private\": true}").unwrap();
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .arg(format!("@modelcontextprotocol/inspector@{VERSION}"))
            .current_dir(&dir)
            .status()
            .expect("npm (tier `node` needs Node.js and npm)");
        assert!(status.success(), "npm install of the MCP Inspector failed");
        std::fs::write(&stamp, VERSION).unwrap();
    }
    binary
}

#[test]
#[cfg_attr(not(feature = "node"), ignore = "tier `node`: needs Node.js, npm and the registry once")]
fn the_mcp_inspector_lists_litnavs_tools_and_calls_one() {
    #[cfg(feature = "node")]
    {
        let dir = tempfile::tempdir().unwrap();
        let corpus = small_corpus(dir.path());
        let inspect = |method: &[&str]| -> Value {
            let out = Command::new(inspector())
                .args(["--cli", env!("CARGO_BIN_EXE_litnav"), "mcp", "--corpus", path(&corpus), "--method"])
                .args(method)
                .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
                .output()
                .unwrap();
            assert!(out.status.success(), "the Inspector failed: {}", stderr(&out));
            serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
        };
        let listed = inspect(&["tools/list"]);
        let names: Vec<&str> =
            listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, TOOLS);
        let query = "attention is all you need";
        let called = inspect(&[
            "tools/call",
            "--tool-name",
            "search",
            "--tool-arg",
            &format!("q={query}"),
            "--tool-arg",
            "mode=bm25",
            "--tool-arg",
            "k=3",
        ]);
        assert_eq!(called["structuredContent"]["hits"], search_json(&corpus, query), "{called}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn a_server_its_owner_lets_out_fetches_a_field_and_answers_from_it() {
    use litnav_fetch::stand_in::{StandIn, dataset_works};
    let (works, moved) = dataset_works(&crate::util::datasets()).unwrap();
    let stand_in = StandIn::start(works, moved).unwrap();
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("smt");

    // Not offered, and not callable, unless the owner allows the network (and names the corpus).
    let small = small_corpus(home.path());
    let mut closed = Session::start_with(&["--corpus", path(&small)], home.path());
    assert!(!tool_names(&mut closed).iter().any(|name| name == "fetch_openalex"));
    let refused = closed.request("tools/call", json!({"name": "fetch_openalex", "arguments": {"topic": "x"}}));
    assert!(refused["error"]["message"].as_str().unwrap().contains("fetch_openalex"), "{refused}");
    let unnamed = litnav(&["mcp", "--allow-network"]);
    assert_eq!(unnamed.status.code(), Some(2), "--allow-network needs --corpus: {}", stderr(&unnamed));

    let mut open =
        Session::start_with(&["--corpus", path(&corpus), "--allow-network", "--api-url", stand_in.url()], home.path());
    assert_eq!(tool_names(&mut open).last().map(String::as_str), Some("fetch_openalex"));
    let chosen = open
        .call("fetch_openalex", json!({"topic": "statistical machine translation", "api_url": "http://127.0.0.1:9/"}));
    assert_eq!(chosen["isError"], true, "a call cannot choose the API: {chosen}");
    assert!(chosen["structuredContent"]["error"].as_str().unwrap().starts_with("api_url:"), "{chosen}");
    let topic = "statistical machine translation";
    let fetched = open.call("fetch_openalex", json!({"topic": topic, "max": 40, "snowball_max": 60, "rate": 50}));
    assert_eq!(fetched["isError"], false, "{fetched}");
    let fetch = &fetched["structuredContent"]["fetch"];
    assert_eq!(fetch["hits"], 40, "{fetch}");
    assert!(fetch["works"].as_u64().unwrap() > 40 && fetch["citations"].as_u64().unwrap() > 0, "{fetch}");
    // The next calls answer from the corpus the fetch wrote, as the command does.
    let answer = open.call("search", json!({"q": topic, "mode": "bm25", "k": 3}));
    assert_eq!(answer["structuredContent"]["hits"], search_json(&corpus, topic), "{answer}");
    let read = open.request("resources/read", json!({"uri": "litnav://corpus"}));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap()["papers"], fetch["works"], "{text}");
}
