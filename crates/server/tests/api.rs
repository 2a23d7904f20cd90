//! The HTTP API through the router itself (no socket): statuses, limits, guards, JSON errors,
//! relations and exports read back by litnav's own readers; on the real litbench corpus (tier
//! `datasets`), maps and expansions as jobs, browsing, scoring and a re-ingest while serving.

#![allow(clippy::unwrap_used)]

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use litnav_app::{IngestRequest, Settings, Workspace};
use litnav_server::state::StoredMap;
use litnav_server::{AppState, Guard, router};
use std::collections::HashMap;
use std::path::Path;
use tower::ServiceExt;

const HOST: &str = "127.0.0.1:8780";

/// A workspace in `home`; tests of the default tier never load the encoder.
fn workspace(home: &Path) -> Workspace {
    let mut env = HashMap::new();
    env.insert("LITNAV_HOME".to_string(), home.display().to_string());
    Workspace::new(Settings::from_vars(&env, None).unwrap())
}

/// A workspace in `home` with the encoder the testkit installs (tier `datasets`).
fn workspace_with_encoder(home: &Path) -> Workspace {
    let mut env = HashMap::new();
    env.insert("LITNAV_HOME".to_string(), home.display().to_string());
    env.insert("LITNAV_MODEL".to_string(), litnav_testkit::model_dir().display().to_string());
    Workspace::new(Settings::from_vars(&env, None).unwrap())
}

/// The mini fixture (12 papers, citations, contexts with sentiment) as a served corpus.
fn mini(home: &Path) -> AppState {
    let fixture = litnav_testkit::fixture("mini");
    let workspace = workspace(home);
    let corpus = home.join("corpus");
    let request = IngestRequest {
        files: vec![fixture.join("papers.jsonl"), fixture.join("citations.csv")],
        contexts: vec![fixture.join("contexts-a.jsonl"), fixture.join("contexts-b.jsonl")],
        ..IngestRequest::default()
    };
    workspace.ingest(&corpus, &request).unwrap();
    AppState::new(workspace, corpus, home.join("maps"), None, Guard::loopback(8780)).unwrap()
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn error_code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap().to_string()
    }
}

async fn send(state: &AppState, request: Request<Body>) -> Answer {
    let response = router(state.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes().to_vec();
    Answer { status, headers, body }
}

async fn get(state: &AppState, uri: &str) -> Answer {
    send(state, Request::get(uri).header(header::HOST, HOST).body(Body::empty()).unwrap()).await
}

async fn post(state: &AppState, uri: &str, body: serde_json::Value) -> Answer {
    with_body(state, Request::post(uri), body).await
}

async fn put(state: &AppState, uri: &str, body: serde_json::Value) -> Answer {
    with_body(state, Request::put(uri), body).await
}

async fn with_body(state: &AppState, request: axum::http::request::Builder, body: serde_json::Value) -> Answer {
    let request = request
        .header(header::HOST, HOST)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    send(state, request).await
}

fn node(id: &str, name: &str, papers: &[&str], children: Vec<litnav_organize::MapNode>) -> litnav_organize::MapNode {
    let mut node = litnav_organize::MapNode::new(name.to_string(), format!("about {name}"), 0.6);
    node.id = id.to_string();
    node.paper_ids = papers.iter().map(|p| p.to_string()).collect();
    node.papers = node.paper_ids.clone();
    node.subtopics = children;
    node
}

/// A hand-made map over the mini papers, stored as the server stores maps.
fn store_map(state: &AppState) -> String {
    let map = node(
        "root",
        "molecules",
        &[],
        vec![
            node(
                "t1",
                "Graph networks",
                &[],
                vec![
                    node("t1.s1", "Message passing", &["m01", "m02", "m05"], vec![]),
                    node("t1.s2", "Pretraining", &["m03", "m04"], vec![]),
                ],
            ),
            node("t2", "Docking", &["m09", "m12"], vec![]),
        ],
    );
    let id = "00112233445566aa".to_string();
    state
        .maps()
        .put(StoredMap {
            id: id.clone(),
            topic: "molecules".into(),
            request: serde_json::json!({}),
            parent: None,
            expanded: None,
            map,
            notices: Vec::new(),
            coverage: None,
            checks: None,
            edits: Vec::new(),
            original: None,
            revision: 0,
        })
        .unwrap();
    id
}

#[tokio::test]
async fn health_search_and_errors_are_json() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let health = get(&state, "/api/health").await;
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(health.json()["papers"], 12);
    assert!(health.headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap().starts_with("default-src 'self'"));

    let hits = get(&state, "/api/search?q=message+passing+molecules&k=3&mode=bm25").await;
    assert_eq!(hits.status, StatusCode::OK, "{}", hits.text());
    let hits = hits.json();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 3);
    for hit in hits {
        for field in ["id", "title", "year", "score"] {
            assert!(hit.get(field).is_some(), "{hit} has {field}");
        }
    }
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");

    for (uri, status, code) in [
        ("/api/search?k=3", StatusCode::BAD_REQUEST, "input"),
        ("/api/search?q=x&k=0", StatusCode::BAD_REQUEST, "input"),
        ("/api/search?q=x&k=many", StatusCode::BAD_REQUEST, "input"),
        ("/api/search?q=x&mode=fuzzy", StatusCode::BAD_REQUEST, "input"),
        ("/api/search?q=x&scan=sometimes", StatusCode::BAD_REQUEST, "input"),
        ("/api/papers/nope", StatusCode::NOT_FOUND, "not_found"),
        ("/api/maps/0123456789abcdef", StatusCode::NOT_FOUND, "not_found"),
        ("/api/maps/..%2F..%2Fetc%2Fpasswd", StatusCode::NOT_FOUND, "not_found"),
        ("/api/jobs/nope", StatusCode::NOT_FOUND, "not_found"),
        ("/no/such/page", StatusCode::NOT_FOUND, "not_found"),
        ("/api/path?from=m05", StatusCode::BAD_REQUEST, "input"),
    ] {
        let answer = get(&state, uri).await;
        assert_eq!(answer.status, status, "{uri}: {}", answer.text());
        assert_eq!(answer.error_code(), code, "{uri}");
        assert!(!answer.json()["error"]["message"].as_str().unwrap().is_empty());
    }
}

#[tokio::test]
async fn guards_refuse_rebinding_drive_by_posts_and_large_bodies() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let rebound =
        Request::get("/api/health").header(header::HOST, "attacker.example:8780").body(Body::empty()).unwrap();
    let answer = send(&state, rebound).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(answer.error_code(), "forbidden");

    let drive_by = Request::post("/api/export")
        .header(header::HOST, HOST)
        .header(header::ORIGIN, "http://evil.example")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"ids":["m01"]}"#))
        .unwrap();
    assert_eq!(send(&state, drive_by).await.status, StatusCode::FORBIDDEN);

    let huge = serde_json::json!({"ids": vec!["m01".repeat(100); 5000]});
    let answer = post(&state, "/api/export", huge).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", answer.text());
    assert_eq!(answer.error_code(), "input");

    let bad_json = Request::post("/api/maps")
        .header(header::HOST, HOST)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{\"topic\": "))
        .unwrap();
    let answer = send(&state, bad_json).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.error_code(), "input");
    let typo = post(&state, "/api/maps", serde_json::json!({"topik": "x"})).await;
    assert_eq!(typo.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", typo.text());
    assert!(typo.json()["error"]["message"].as_str().unwrap().contains("topik"));
    let no_llm = post(&state, "/api/maps", serde_json::json!({"topic": "x", "llm": true})).await;
    assert_eq!(no_llm.status, StatusCode::BAD_REQUEST);
    assert!(no_llm.json()["error"]["message"].as_str().unwrap().contains("--llm"));
    let share = post(&state, "/api/maps", serde_json::json!({"topic": "x", "min_score": 1.5})).await;
    assert_eq!(share.status, StatusCode::BAD_REQUEST);
    assert!(share.json()["error"]["message"].as_str().unwrap().contains("min_score"));
    let cosine = post(&state, "/api/maps", serde_json::json!({"topic": "x", "min_relevance": -3})).await;
    assert_eq!(cosine.status, StatusCode::BAD_REQUEST);
    let said = cosine.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(said.starts_with("min_relevance: ") && said.contains("between -1 and 1, not -3"), "{said}");
}

#[tokio::test]
async fn a_paper_has_every_relation_and_a_path_has_its_sentences() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let answer = get(&state, "/api/papers/m01").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let paper = answer.json();
    assert_eq!(paper["paper"]["title"], "Graph neural networks for molecule property prediction");
    assert!(paper["profile"]["in_degree"].as_u64().unwrap() >= 3);
    assert!(paper["profile"].get("disruption").is_some() && paper["profile"].get("novelty").is_some());
    let citers = paper["citers"]["citers"].as_array().unwrap();
    let m05 = citers.iter().find(|c| c["id"] == "m05").unwrap();
    assert_eq!(m05["sentiment"], "positive");
    assert!(m05["context"].as_str().unwrap().contains("Message passing over atoms"));
    let m09 = citers.iter().find(|c| c["id"] == "m09").unwrap();
    assert_eq!(m09["sentiment"], "negative");

    let path = get(&state, "/api/path?from=m05&to=m01").await;
    assert_eq!(path.status, StatusCode::OK, "{}", path.text());
    let path = path.json();
    let hops = path["hops"].as_array().unwrap();
    assert!(!hops.is_empty());
    assert_eq!(hops[0]["citing"]["id"], "m05");
    assert_eq!(hops.last().unwrap()["cited"]["id"], "m01");
    if hops.len() == 1 {
        assert!(hops[0]["sentences"][0].as_str().unwrap().contains("[m01]"));
    }
}

/// Rankings answer what the application ranks; analytics on the served corpus answer the CLI's
/// report, and their values are the in-memory graph's (the same ranking); unknown options and
/// a cluster engine are refused by name.
#[tokio::test]
async fn rankings_and_analytics_answer_the_applications_values() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let cited = get(&state, "/api/rankings/citations?k=3").await;
    assert_eq!(cited.status, StatusCode::OK, "{}", cited.text());
    let cited = cited.json();
    assert_eq!(cited["papers"].as_array().unwrap().len(), 3);
    assert_eq!(cited["papers"][0]["id"], "m01", "{cited}");
    let disruption = get(&state, "/api/rankings/disruption?k=5&window=3&scinet_form=true").await;
    assert_eq!(disruption.status, StatusCode::OK, "{}", disruption.text());
    for (uri, refused) in [
        ("/api/rankings/disruption?kk=3", "unknown option `kk`"),
        ("/api/rankings/pagerank", "unknown measure"),
        ("/api/rankings/citations?k=0", "k:"),
    ] {
        let answer = get(&state, uri).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{uri}: {}", answer.text());
        assert!(answer.text().contains(refused), "{uri}: {}", answer.text());
    }

    let computed = get(&state, "/api/rankings/disruption?k=12").await.json();
    let analytics = post(&state, "/api/analytics/cd", serde_json::json!({"engine": "memory"})).await;
    if cfg!(not(feature = "analytics")) {
        assert_eq!(analytics.status, StatusCode::BAD_REQUEST, "{}", analytics.text());
        assert!(analytics.text().contains("analytics"), "{}", analytics.text());
        return;
    }
    assert_eq!(analytics.status, StatusCode::OK, "{}", analytics.text());
    let analytics = analytics.json();
    assert_eq!(analytics["report"]["engine"], "memory");
    assert_eq!(analytics["report"]["papers"], 12, "{analytics}");
    assert!(!analytics["ranking"]["papers"].as_array().unwrap().is_empty(), "{analytics}");
    assert_eq!(analytics["ranking"]["papers"], computed["papers"], "the engine's values are the graph's");
    let local =
        post(&state, "/api/analytics/novelty", serde_json::json!({"engine": "local", "units": "references"})).await;
    assert_eq!(local.status, StatusCode::OK, "{}", local.text());
    assert_eq!(local.json()["report"]["engine"], "datafusion");
    let coupling = post(&state, "/api/analytics/coupling", serde_json::json!({"top": 3})).await.json();
    assert!(coupling["ranking"].is_null() && coupling["report"]["top"] == 3, "{coupling}");
    for (query, body, refused) in [
        ("cd", serde_json::json!({"top": 3}), "top"),
        ("cd", serde_json::json!({"engine": "ballista"}), "own process"),
        ("cd", serde_json::json!({"spill_dir": "/tmp"}), "own process"),
        ("pagerank", serde_json::json!({}), "unknown analytics query"),
    ] {
        let answer = post(&state, &format!("/api/analytics/{query}"), body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{query}: {}", answer.text());
        assert!(answer.text().contains(refused), "{query}: {}", answer.text());
    }
}

#[tokio::test]
async fn baskets_and_maps_export_in_every_format_and_read_back() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let ids = ["m01", "m05", "m09"];
    for format in ["bibtex", "ris", "csv", "json", "markdown", "html"] {
        let answer =
            post(&state, "/api/export", serde_json::json!({"ids": ids, "format": format, "title": "my basket"})).await;
        assert_eq!(answer.status, StatusCode::OK, "{format}: {}", answer.text());
        assert!(
            answer.headers[header::CONTENT_DISPOSITION]
                .to_str()
                .unwrap()
                .starts_with("attachment; filename=\"my-basket.")
        );
        let text = answer.text();
        match format {
            "bibtex" | "json" => {
                // litnav's own readers read the file back: same titles, years and venues.
                let file = home.path().join(format!("basket.{}", if format == "bibtex" { "bib" } else { "json" }));
                std::fs::write(&file, &text).unwrap();
                let read = litnav_corpus::readers::read_file(&file, litnav_corpus::ReadOptions::default()).unwrap();
                let papers: Vec<&litnav_corpus::Paper> = read
                    .items
                    .iter()
                    .filter_map(|item| match item {
                        litnav_corpus::readers::Item::Paper(record) => Some(&record.paper),
                        _ => None,
                    })
                    .collect();
                let titles: Vec<String> = papers.iter().map(|p| p.title.clone()).collect();
                assert_eq!(titles.len(), 3, "{format}");
                assert!(
                    titles.contains(&"Graph neural networks for molecule property prediction".to_string()),
                    "{titles:?}"
                );
                assert!(papers.iter().all(|p| p.year.is_some() && p.venue.is_some()), "{format}");
            }
            "csv" => {
                let mut reader = csv::Reader::from_reader(text.as_bytes());
                let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
                assert_eq!(rows.len(), 3);
                assert_eq!(&rows[0][0], "m01");
            }
            "ris" => assert_eq!(text.matches("ER  - ").count(), 3),
            "markdown" => assert!(text.starts_with("# my basket\n")),
            _ => assert!(text.contains("<html") && text.contains("Graph neural networks")),
        }
    }
    let unknown = post(&state, "/api/export", serde_json::json!({"ids": ["m01", "zz"]})).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let bad = post(&state, "/api/export", serde_json::json!({"ids": ["m01"], "format": "docx"})).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);

    let map = store_map(&state);
    let bib = get(&state, &format!("/api/maps/{map}/export?format=bibtex")).await;
    assert_eq!(bib.status, StatusCode::OK);
    assert_eq!(bib.text().matches("\n@").count() + usize::from(bib.text().starts_with('@')), 7);
    let json = get(&state, &format!("/api/maps/{map}/export?format=json")).await;
    assert_eq!(json.json()["subtopics"][0]["name"], "Graph networks");
}

/// Corrections by hand: a log replaces the map under its permalink (exports and checks follow),
/// undo is a shorter log, a log that does not fit is refused naming its entry, and a change made
/// on an older revision (a second tab) is refused with a message, the other tab's change kept.
#[tokio::test]
async fn a_maps_edit_log_changes_its_permalink_exports_and_checks_and_refuses_stale_tabs() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let map = store_map(&state);
    let edits_uri = format!("/api/maps/{map}/edits");
    let empty = get(&state, &edits_uri).await.json();
    assert_eq!(empty, serde_json::json!({"revision": 0, "edits": []}));
    let rename = serde_json::json!({"op": "rename", "node": "t2", "name": "Docking by hand", "who": "tab A"});
    let remove = serde_json::json!({"op": "remove_paper", "paper": "m12", "from": "t2", "who": "tab A"});
    let first = put(&state, &edits_uri, serde_json::json!({"revision": 0, "edits": [rename, remove]})).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    assert_eq!(first.json()["revision"], 1);
    let read = get(&state, &format!("/api/maps/{map}")).await.json();
    let t2 = read["map"]["subtopics"].as_array().unwrap().iter().find(|n| n["id"] == "t2").unwrap().clone();
    assert_eq!(t2["name"], "Docking by hand");
    assert_eq!(read["papers"], 6, "{read}");
    let bibtex = get(&state, &format!("/api/maps/{map}/export?format=bibtex")).await.text();
    assert!(!bibtex.contains("m12") && bibtex.contains("m09"), "{bibtex}");
    let checks = get(&state, &format!("/api/maps/{map}/checks")).await.json();
    assert_eq!(checks["papers"], 6);
    assert_eq!(get(&state, &edits_uri).await.json()["edits"][0]["who"], "tab A");

    // A second tab still on revision 0 is refused, and tab A's edits stay.
    let stale = put(&state, &edits_uri, serde_json::json!({"revision": 0, "edits": []})).await;
    assert_eq!(stale.status, StatusCode::CONFLICT, "{}", stale.text());
    assert!(stale.text().contains("edited elsewhere") && stale.text().contains("revision 1"), "{}", stale.text());
    assert_eq!(get(&state, &edits_uri).await.json()["edits"].as_array().unwrap().len(), 2);

    // A log that does not fit is refused whole, naming the entry; the map stays as it was.
    let bad = serde_json::json!({"op": "merge", "node": "t1", "into": "t9"});
    let refused = put(&state, &edits_uri, serde_json::json!({"revision": 1, "edits": [rename, bad]})).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text());
    assert!(refused.text().contains("edits[1] (merge)"), "{}", refused.text());
    assert_eq!(get(&state, &edits_uri).await.json()["revision"], 1);

    // Undo both: the map as built again, under the same id.
    let undone = put(&state, &edits_uri, serde_json::json!({"revision": 1, "edits": []})).await;
    assert_eq!(undone.json()["revision"], 2);
    let read = get(&state, &format!("/api/maps/{map}")).await.json();
    assert_eq!(read["papers"], 7);
    assert!(read["map"]["subtopics"].as_array().unwrap().iter().any(|n| n["name"] == "Docking"));
    let unknown =
        put(&state, "/api/maps/0123456789abcdef/edits", serde_json::json!({"revision": 0, "edits": []})).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn suggested_corrections_and_a_proposed_split_apply_and_a_subtopic_exports_alone() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let map = store_map(&state);
    let edits_uri = format!("/api/maps/{map}/edits");
    // Only a leaf of four papers or more splits.
    let small = get(&state, &format!("/api/maps/{map}/split/t1.s1")).await;
    assert_eq!(small.status, StatusCode::BAD_REQUEST, "{}", small.text());
    assert!(small.text().contains("4 or more"), "{}", small.text());
    let inner = get(&state, &format!("/api/maps/{map}/split/t1")).await;
    assert!(inner.text().contains("only a leaf splits"), "{}", inner.text());
    assert_eq!(get(&state, &format!("/api/maps/{map}/split/t9")).await.status, StatusCode::NOT_FOUND);
    let grow = serde_json::json!({"op": "move_paper", "paper": "m03", "from": "t1.s2", "to": "t1.s1"});
    let grown = put(&state, &edits_uri, serde_json::json!({"revision": 0, "edits": [grow]})).await;
    assert_eq!(grown.status, StatusCode::OK, "{}", grown.text());
    let proposal = get(&state, &format!("/api/maps/{map}/split/t1.s1")).await;
    assert_eq!(proposal.status, StatusCode::OK, "{}", proposal.text());
    let split = proposal.json()["edits"][0].clone();
    assert_eq!((split["op"].as_str(), split["node"].as_str()), (Some("split"), Some("t1.s1")), "{split}");
    let moved = split["papers"].as_array().unwrap().len();
    assert!((1..4).contains(&moved), "some, not all, of the leaf's 4 papers: {split}");
    let body = serde_json::json!({"revision": 1, "edits": [grow, split]});
    assert_eq!(put(&state, &edits_uri, body).await.status, StatusCode::OK);
    let log = get(&state, &edits_uri).await.json();
    let read = get(&state, &format!("/api/maps/{map}")).await.json();
    let t1 = read["map"]["subtopics"].as_array().unwrap().iter().find(|n| n["id"] == "t1").unwrap().clone();
    assert_eq!(t1["subtopics"].as_array().unwrap().len(), 3, "the new part beside the leaf: {t1}");
    // A subtopic alone as BibTeX; a node the map lacks is 404.
    let docking = get(&state, &format!("/api/maps/{map}/export?format=bibtex&node=t2")).await.text();
    assert!(docking.contains("m09") && docking.contains("m12") && !docking.contains("m01"), "{docking}");
    let none = get(&state, &format!("/api/maps/{map}/export?format=bibtex&node=t9")).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND, "{}", none.text());

    // Every suggestion's edits, appended to the log, are a log the server takes.
    let checks = get(&state, &format!("/api/maps/{map}/checks")).await.json();
    let suggestions = checks["suggestions"].as_array().unwrap();
    for suggestion in suggestions {
        assert!(suggestion["action"].as_str().is_some_and(|a| !a.is_empty()), "{suggestion}");
        let mut edits = log["edits"].as_array().unwrap().clone();
        edits.extend(suggestion["edits"].as_array().unwrap().iter().cloned());
        let revision = get(&state, &edits_uri).await.json()["revision"].clone();
        let taken = put(&state, &edits_uri, serde_json::json!({"revision": revision, "edits": edits})).await;
        assert_eq!(taken.status, StatusCode::OK, "{suggestion}: {}", taken.text());
    }
}

#[tokio::test]
async fn a_stored_map_is_browsed_by_node_graph_timeline_and_placement() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let map = store_map(&state);
    let read = get(&state, &format!("/api/maps/{map}")).await.json();
    assert_eq!(read["papers"], 7);
    // Its checks without a reference name problems by the map's node ids.
    let checks = get(&state, &format!("/api/maps/{map}/checks")).await;
    assert_eq!(checks.status, StatusCode::OK);
    let checks = checks.json();
    assert_eq!(checks["papers"], 7);
    let ids: Vec<&str> = checks["problems"].as_array().unwrap().iter().map(|p| p["node"].as_str().unwrap()).collect();
    assert!(ids.iter().all(|id| *id == "root" || id.starts_with('t')), "{ids:?}");
    assert_eq!(get(&state, "/api/maps/0000000000000000/checks").await.status, StatusCode::NOT_FOUND);
    let listed = get(&state, &format!("/api/maps/{map}/maps")).await;
    assert_eq!(listed.status, StatusCode::NOT_FOUND);
    let list = get(&state, "/api/maps").await.json();
    assert_eq!(list[0]["id"], map.as_str());

    let page = get(&state, &format!("/api/maps/{map}/nodes/t1/papers?sort=year")).await.json();
    assert_eq!(page["total"], 5);
    let years: Vec<i64> = page["papers"].as_array().unwrap().iter().map(|p| p["year"].as_i64().unwrap()).collect();
    assert!(years.windows(2).all(|w| w[0] >= w[1]), "newest first: {years:?}");
    let ranged = get(&state, &format!("/api/maps/{map}/nodes/root/papers?from=2018&to=2019&limit=1")).await.json();
    assert_eq!(ranged["papers"].as_array().unwrap().len(), 1);
    assert!(ranged["total"].as_u64().unwrap() >= 1);
    let text = get(&state, &format!("/api/maps/{map}/nodes/root/papers?q=ATTENTION")).await.json();
    assert_eq!(text["papers"][0]["id"], "m02");
    // While filters are on, the tree's counts: every node's equals its filtered listing's total.
    for filters in ["from=2018&to=2019", "q=graph", "min_citations=1", "venue=zz-no-such-venue"] {
        let counts = get(&state, &format!("/api/maps/{map}/counts?{filters}")).await.json();
        let counts = counts["counts"].as_object().unwrap();
        assert_eq!(counts.len(), 5, "{filters}: the root, two themes, two subtopics: {counts:?}");
        for (node, count) in counts {
            let page = get(&state, &format!("/api/maps/{map}/nodes/{node}/papers?{filters}")).await.json();
            assert_eq!(count, &page["total"], "{filters}, {node}");
        }
    }
    let ranged = get(&state, &format!("/api/maps/{map}/counts?from=2018&to=2019")).await.json();
    assert!((1..7).contains(&ranged["counts"]["root"].as_u64().unwrap()), "the range narrows: {ranged}");
    let unfiltered = get(&state, &format!("/api/maps/{map}/counts")).await.json();
    assert_eq!(unfiltered["counts"]["root"], 7);
    assert_eq!(get(&state, "/api/maps/ffffffffffffffff/counts?from=2000").await.status, StatusCode::NOT_FOUND);
    assert_eq!(get(&state, &format!("/api/maps/{map}/nodes/t9/papers")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(get(&state, &format!("/api/maps/{map}/nodes/t1/papers?limit=0")).await.status, StatusCode::BAD_REQUEST);

    let graph = get(&state, &format!("/api/maps/{map}/graph?cap=5")).await.json();
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 5);
    assert_eq!(graph["omitted"], 2);
    assert!(!graph["edges"].as_array().unwrap().is_empty());
    let again = get(&state, &format!("/api/maps/{map}/graph?cap=5")).await.json();
    assert_eq!(graph, again, "the same map always looks the same");
    assert_eq!(get(&state, &format!("/api/maps/{map}/graph?cap=6000")).await.status, StatusCode::BAD_REQUEST);

    let timeline = get(&state, &format!("/api/maps/{map}/timeline")).await.json();
    let total: u64 = timeline["themes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["counts"].as_array().unwrap())
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(total + timeline["undated"].as_u64().unwrap(), 7);

    let placement = get(&state, &format!("/api/maps/{map}/papers/m03")).await.json();
    assert_eq!(placement["node"], "t1.s2");
    assert_eq!(placement["path"], serde_json::json!(["molecules", "Graph networks", "Pretraining"]));
}

#[tokio::test]
async fn the_openapi_description_lists_every_route_and_matches_its_snapshot() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let answer = get(&state, "/api/openapi.json").await;
    assert_eq!(answer.status, StatusCode::OK);
    let document = answer.json();
    let paths = document["paths"].as_object().unwrap();
    for endpoint in litnav_server::api::endpoints() {
        assert!(paths[endpoint.path].get(endpoint.method).is_some(), "{} {}", endpoint.method, endpoint.path);
    }
    let body = &document["paths"]["/api/maps"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(body["properties"]["min_score"]["default"], serde_json::json!(0.32), "the documented floor is maps'");
    assert_eq!(body["required"], serde_json::json!(["topic"]));
    let snapshot = litnav_testkit::package_dir().join("openapi.json");
    let written = serde_json::to_string_pretty(&document).unwrap() + "\n";
    if std::env::var_os("LITNAV_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&snapshot, &written).unwrap();
    }
    let committed = std::fs::read_to_string(&snapshot).unwrap_or_default();
    assert!(
        committed == written,
        "crates/server/openapi.json is out of date: run `LITNAV_UPDATE_SNAPSHOTS=1 cargo test -p litnav-server --test api` and commit it"
    );
}

#[tokio::test]
async fn the_page_and_its_files_are_served_and_nothing_else() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let page = get(&state, "/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text().contains("<script src=\"/static/app.js\" defer></script>"));
    assert!(!page.text().contains("<script>"), "no inline script: the CSP forbids it");
    for file in ["/static/app.js", "/static/app.css", "/static/icon.svg"] {
        assert_eq!(get(&state, file).await.status, StatusCode::OK, "{file}");
    }
    assert_eq!(get(&state, "/static/../Cargo.toml").await.status, StatusCode::NOT_FOUND);
    assert_eq!(get(&state, "/static/secret.txt").await.status, StatusCode::NOT_FOUND);
}

/// A request with `Accept-Encoding: gzip`.
fn gzip_get(uri: &str) -> Request<Body> {
    Request::get(uri).header(header::HOST, HOST).header(header::ACCEPT_ENCODING, "gzip").body(Body::empty()).unwrap()
}

#[tokio::test]
async fn answers_are_gzipped_when_asked_and_event_streams_never() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let map = store_map(&state);
    for uri in [
        "/api/search?q=message+passing+molecules&k=5&mode=bm25".to_string(),
        format!("/api/maps/{map}"),
        "/api/papers/m05".to_string(),
        "/static/app.js".to_string(),
    ] {
        let plain = get(&state, &uri).await;
        assert_eq!(plain.status, StatusCode::OK, "{uri}");
        assert!(plain.headers.get(header::CONTENT_ENCODING).is_none(), "{uri}: not compressed unless asked");
        let zipped = send(&state, gzip_get(&uri)).await;
        assert_eq!(zipped.headers[header::CONTENT_ENCODING], "gzip", "{uri}");
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&zipped.body[..]), &mut unzipped).unwrap();
        assert_eq!(unzipped, plain.body, "{uri}: the same bytes once unzipped");
    }
    // An event stream stays plain text even when the client accepts gzip (a compressor would hold
    // events back until its buffer fills).
    let (job, _) = state.jobs().start("0123456789abcdef", "map", "molecules");
    job.running();
    let response = router(state.clone()).oneshot(gzip_get("/api/jobs/0123456789abcdef/events")).await.unwrap();
    assert_eq!(response.headers()[header::CONTENT_TYPE], "text/event-stream");
    assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
    job.finish(Ok("0123456789abcdef".into()));
    let text = String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(text.contains("event: job") && text.contains("\"state\":\"done\""), "{text}");
}

#[tokio::test]
async fn a_client_that_leaves_an_event_stream_costs_nothing() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let (job, _) = state.jobs().start("00000000000000aa", "map", "molecules");
    job.running();
    for _ in 0..20 {
        let response = router(state.clone()).oneshot(gzip_get("/api/jobs/00000000000000aa/events")).await.unwrap();
        let mut body = response.into_body();
        let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(String::from_utf8_lossy(&first).contains("\"state\":\"running\""));
        assert_eq!(job.watchers(), 1, "the stream follows the job");
        drop(body);
        // The forwarding task notices the closed channel and lets go of the job.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while job.watchers() > 0 {
            assert!(std::time::Instant::now() < deadline, "a stream whose client left still follows the job");
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }
    // The job goes on and finishes normally.
    job.finish(Ok("00000000000000aa".into()));
    assert_eq!(get(&state, "/api/jobs/00000000000000aa").await.json()["state"], "done");
}

#[tokio::test]
async fn a_remote_server_takes_its_token_from_the_printed_url_then_from_the_cookie() {
    let home = tempfile::tempdir().unwrap();
    drop(mini(home.path()));
    let token = "a-token-of-twenty-chars";
    let state = AppState::new(
        workspace(home.path()),
        home.path().join("corpus"),
        home.path().join("maps-remote"),
        None,
        Guard::remote(token.into()),
    )
    .unwrap();
    let with = |uri: &str, headers: &[(header::HeaderName, &str)]| {
        let mut request = Request::get(uri).header(header::HOST, "litnav.example:8780");
        for (name, value) in headers {
            request = request.header(name, *value);
        }
        request.body(Body::empty()).unwrap()
    };
    // Without the token: the page loads (it explains), the API refuses, health answers.
    assert_eq!(send(&state, with("/", &[])).await.status, StatusCode::OK);
    let refused = send(&state, with("/api/search?q=molecules", &[])).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains("token"));
    assert_eq!(send(&state, with("/api/health", &[])).await.status, StatusCode::OK);
    // The printed URL sets the cookie the page's own requests then carry.
    let opened = send(&state, with(&format!("/?token={token}"), &[])).await;
    let cookie = opened.headers[header::SET_COOKIE].to_str().unwrap().to_string();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let pair = cookie.split(';').next().unwrap().to_string();
    let searched = send(&state, with("/api/search?q=molecules&mode=bm25", &[(header::COOKIE, &pair)])).await;
    assert_eq!(searched.status, StatusCode::OK, "{}", searched.text());
    let bearer = format!("Bearer {token}");
    assert_eq!(send(&state, with("/api/papers/m05", &[(header::AUTHORIZATION, &bearer)])).await.status, StatusCode::OK);
    // A wrong or truncated token is refused, and no cookie is handed out for it.
    let wrong = format!("litnav_token={}", &token[..token.len() - 1]);
    assert_eq!(
        send(&state, with("/api/search?q=molecules", &[(header::COOKIE, &wrong)])).await.status,
        StatusCode::UNAUTHORIZED
    );
    let guessed = send(&state, with("/?token=guess", &[])).await;
    assert!(guessed.headers.get(header::SET_COOKIE).is_none());
    // The cookie does not let another site change anything.
    let drive_by = Request::post("/api/export")
        .header(header::HOST, "litnav.example:8780")
        .header(header::COOKIE, &pair)
        .header(header::ORIGIN, "http://evil.example")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"ids":["m01"]}"#))
        .unwrap();
    assert_eq!(send(&state, drive_by).await.status, StatusCode::FORBIDDEN);
}

/// The litbench corpus (with its topics) in `home`, with the vectors earlier runs computed.
fn litbench(home: &Path) -> AppState {
    let datasets = litnav_testkit::datasets().join("litbench");
    let workspace = workspace_with_encoder(home);
    let corpus = home.join("litbench");
    let request = IngestRequest {
        files: vec![datasets.join("corpus.jsonl"), datasets.join("topics.jsonl")],
        ..IngestRequest::default()
    };
    workspace.ingest(&corpus, &request).unwrap();
    litnav_testkit::seed_litbench_vectors(&corpus);
    AppState::new(workspace, corpus, home.join("maps"), None, Guard::loopback(8780)).unwrap()
}

#[tokio::test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
async fn half_precision_queries_are_said_in_health_and_find_what_f32_queries_find() {
    let home = tempfile::tempdir().unwrap();
    let exact = litbench(home.path());
    let corpus = home.path().join("litbench");
    let half_workspace =
        workspace_with_encoder(home.path()).with_query_precision(litnav_app::request::PrecisionName::F16.precision());
    let half = AppState::new(half_workspace, corpus, home.path().join("maps"), None, Guard::loopback(8780)).unwrap();
    assert_eq!(get(&exact, "/api/health").await.json()["query_precision"], "f32");
    assert_eq!(get(&half, "/api/health").await.json()["query_precision"], "f16");
    let mut same = 0;
    let queries = [
        "uncertainty quantification of large language models",
        "graph neural networks for molecules",
        "retrieval augmented generation",
    ];
    for query in queries {
        let uri = format!("/api/search?q={}&mode=dense&k=10", query.replace(' ', "+"));
        let ids = |answer: Answer| -> Vec<String> {
            answer.json().as_array().unwrap().iter().map(|hit| hit["id"].as_str().unwrap().to_string()).collect()
        };
        let (a, b) = (ids(get(&exact, &uri).await), ids(get(&half, &uri).await));
        assert_eq!(a.len(), 10);
        same += a.iter().filter(|id| b.contains(id)).count();
    }
    // Vectors within ~1e-4 of each other reorder at most a near-tie at the edge of a top 10.
    assert!(same >= 27, "{same} of 30 top-10 papers shared");
}

/// Poll a job until it ends (at most five minutes).
async fn wait(state: &AppState, job: &str) -> serde_json::Value {
    for _ in 0..3000 {
        let view = get(state, &format!("/api/jobs/{job}")).await.json();
        if ["done", "failed", "cancelled"].contains(&view["state"].as_str().unwrap()) {
            return view;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("job {job} did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
async fn maps_and_expansions_run_as_jobs_on_litbench() {
    let home = tempfile::tempdir().unwrap();
    let state = litbench(home.path());
    let topic = "uncertainty quantification of large language models";
    let started = post(&state, "/api/maps", serde_json::json!({"topic": topic, "k": 120})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text());
    let started = started.json();
    let id = started["map"].as_str().unwrap().to_string();
    assert_eq!(started["job"]["id"], id.as_str());
    let job = wait(&state, &id).await;
    assert_eq!(job["state"], "done", "{job}");
    assert!(job["steps"].as_array().unwrap().iter().any(|s| s["name"] == "retrieving papers"), "{job}");

    // The CLI's default search, by name: 20 hits, best first.
    let expanded = get(&state, "/api/search?q=uncertainty+quantification+of+language+models&k=20&mode=expanded").await;
    assert_eq!(expanded.status, StatusCode::OK, "{}", expanded.text());
    let scores: Vec<f64> = expanded.json().as_array().unwrap().iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert_eq!(scores.len(), 20);
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");

    // `scan` forces the dense side's scan per request: approximate builds (and saves) the IVF
    // index on first use, which litbench's size alone would never do.
    let ivf_files = || {
        std::fs::read_dir(home.path().join("litbench/vectors"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("ivf-"))
            .count()
    };
    let dense = |scan: &str| format!("/api/search?q=calibration+of+language+models&k=10&mode=dense&scan={scan}");
    let exact = get(&state, &dense("exact")).await;
    assert_eq!(exact.status, StatusCode::OK, "{}", exact.text());
    assert_eq!(ivf_files(), 0, "an exact scan needs no index");
    let approximate = get(&state, &dense("approximate")).await;
    assert_eq!(approximate.status, StatusCode::OK, "{}", approximate.text());
    assert_eq!(approximate.json().as_array().unwrap().len(), 10);
    assert_eq!(ivf_files(), 1, "the approximate scan went through the IVF index");

    // The same request is the same map: no second job.
    let again = post(&state, "/api/maps", serde_json::json!({"topic": topic, "k": 120})).await.json();
    assert_eq!(again["map"], id.as_str());
    assert_eq!(again["job"]["state"], "done");

    // The score floor keeps the topic's core: at least 20 of the 120, not all of them.
    let map = get(&state, &format!("/api/maps/{id}")).await.json();
    let kept = map["papers"].as_u64().unwrap();
    assert!((20..120).contains(&kept), "{kept} papers kept");
    // The map says so where it is read, not only in its job.
    let floor_said = format!("the score floor kept {kept} of the 120 papers retrieved");
    assert!(map["notices"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with(&floor_said)), "{map}");
    let theme = map["map"]["subtopics"][0]["id"].as_str().unwrap().to_string();
    let leaf = map["map"]["subtopics"][0]["subtopics"][0]["id"].as_str().unwrap_or(&theme).to_string();

    // Scoring against the stored survey of the topic.
    let topics = get(&state, "/api/topics").await.json();
    let survey = topics.as_array().unwrap().iter().find(|t| t["taxonomy"] == true || t["outline"] == true).unwrap();
    let scored = post(
        &state,
        &format!("/api/maps/{id}/score"),
        serde_json::json!({"survey": survey["id"], "similarity": "string"}),
    )
    .await;
    assert_eq!(scored.status, StatusCode::OK, "{}", scored.text());
    let scores = scored.json();
    // Soft recall is not bounded by 1 (see `heading_soft_recall`): this map scores 1.007.
    let nsr = scores["nsr"].as_f64().unwrap();
    assert!(nsr.is_finite() && (0.0..1.1).contains(&nsr), "{scores}");

    // Expand a subtopic: a new map with the sub-map grafted where the subtopic was.
    let expansion = post(&state, &format!("/api/maps/{id}/nodes/{leaf}/expand"), serde_json::json!({"k": 40})).await;
    assert_eq!(expansion.status, StatusCode::ACCEPTED, "{}", expansion.text());
    let grown = expansion.json()["map"].as_str().unwrap().to_string();
    assert_ne!(grown, id);
    let job = wait(&state, &grown).await;
    assert_eq!(job["state"], "done", "{job}");
    let grown_map = get(&state, &format!("/api/maps/{grown}")).await.json();
    assert_eq!(grown_map["parent"], id.as_str());
    let grown_said: Vec<&str> = grown_map["notices"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(grown_said[0].starts_with(&floor_said), "the map's own notices first: {grown_said:?}");
    assert!(grown_said.iter().any(|n| n.contains("new papers retrieved for")), "{grown_said:?}");
    assert!(
        grown_map["papers"].as_u64().unwrap() > kept,
        "new papers came in: {} of {kept}, {leaf}",
        grown_map["papers"]
    );
    let papers = get(&state, &format!("/api/maps/{grown}/nodes/{leaf}/papers?limit=1000")).await.json();
    assert!(papers["total"].as_u64().unwrap() > 0);

    // Cancel: a new map job stops at its next step, and its map is not stored.
    let other =
        post(&state, "/api/maps", serde_json::json!({"topic": "diffusion models for image generation"})).await.json();
    let other_id = other["map"].as_str().unwrap().to_string();
    let cancel = send(
        &state,
        Request::delete(format!("/api/jobs/{other_id}")).header(header::HOST, HOST).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(cancel.status, StatusCode::OK);
    let job = wait(&state, &other_id).await;
    assert_eq!(job["state"], "cancelled", "{job}");
    assert_eq!(get(&state, &format!("/api/maps/{other_id}")).await.status, StatusCode::NOT_FOUND);

    // A re-ingest while serving: the next request sees the new generation, whole.
    let before = get(&state, "/api/health").await.json();
    let extra = home.path().join("extra.jsonl");
    std::fs::write(&extra, r#"{"id":"new-1","title":"Calibrated uncertainty for served language models","abstract":"A paper added while the server runs.","year":2025}"#).unwrap();
    state
        .workspace()
        .ingest(&home.path().join("litbench"), &IngestRequest { files: vec![extra], ..IngestRequest::default() })
        .unwrap();
    let after = get(&state, "/api/health").await.json();
    assert_eq!(after["generation"].as_u64().unwrap(), before["generation"].as_u64().unwrap() + 1);
    assert_eq!(after["papers"].as_u64().unwrap(), before["papers"].as_u64().unwrap() + 1);
    let hits = get(&state, "/api/search?q=served+language+models+calibrated&mode=bm25&k=1").await.json();
    assert_eq!(hits[0]["id"], "new-1");
    // Maps built before still read.
    assert_eq!(get(&state, &format!("/api/maps/{id}/timeline")).await.status, StatusCode::OK);
}

#[tokio::test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs the encoder (tier `datasets`)")]
async fn an_unreachable_llm_endpoint_fails_the_job_with_its_reason() {
    let home = tempfile::tempdir().unwrap();
    let fixture = mini(home.path());
    // The same corpus, served with an LLM endpoint nobody listens on.
    let dead = litnav_app::LlmOptions {
        url: Some("http://127.0.0.1:9/v1".into()),
        timeout: Some(2.0),
        no_cache: true,
        ..Default::default()
    };
    let state = AppState::new(
        workspace_with_encoder(home.path()),
        home.path().join("corpus"),
        home.path().join("maps"),
        Some(dead),
        Guard::loopback(8780),
    )
    .unwrap();
    drop(fixture);
    let map = store_map(&state);
    let started = post(&state, &format!("/api/maps/{map}/nodes/t1.s1/expand"), serde_json::json!({"llm": true})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text());
    let job = wait(&state, started.json()["map"].as_str().unwrap()).await;
    assert_eq!(job["state"], "failed", "{job}");
    let message = job["error"]["message"].as_str().unwrap();
    assert!(message.contains("127.0.0.1:9"), "the failure names the endpoint: {job}");
    assert_eq!(job["error"]["code"], "llm_unreachable", "the code names the failure: {job}");
}

/// The mini corpus served with an LLM endpoint (`options`).
fn mini_with_llm(home: &Path, options: litnav_app::LlmOptions) -> AppState {
    drop(mini(home));
    AppState::new(workspace(home), home.join("corpus"), home.join("maps"), Some(options), Guard::loopback(8780))
        .unwrap()
}

#[tokio::test]
async fn classifying_mentions_needs_an_llm_endpoint_and_a_paper() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let refused = post(&state, "/api/papers/m02/sentiment", serde_json::json!({})).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text());
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains("--llm"), "{}", refused.text());
    // Nobody listens on port 9: refused before any job starts, for a paper that is not there.
    let dead =
        litnav_app::LlmOptions { url: Some("http://127.0.0.1:9/v1".into()), no_cache: true, ..Default::default() };
    let state = mini_with_llm(home.path(), dead);
    let missing = post(&state, "/api/papers/nope/sentiment", serde_json::json!({})).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND, "{}", missing.text());
    // Before any classification the paper says what an LLM could label.
    let paper = get(&state, "/api/papers/m02").await.json();
    assert_eq!(
        (paper["citers"]["without_sentiment"].as_u64(), paper["citers"]["llm_labelled"].as_u64()),
        (Some(1), Some(0))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
async fn a_sentiment_job_labels_a_papers_unlabelled_mentions_with_the_real_llm() {
    let home = tempfile::tempdir().unwrap();
    let url = litnav_testkit::llm_server().to_string();
    let state =
        mini_with_llm(home.path(), litnav_app::LlmOptions { url: Some(url), no_cache: true, ..Default::default() });
    let started = post(&state, "/api/papers/m02/sentiment", serde_json::json!({})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text());
    let location = started.headers[header::LOCATION].to_str().unwrap().to_string();
    let job = started.json()["job"]["id"].as_str().unwrap().to_string();
    assert_eq!(location, format!("/api/jobs/{job}"));
    let view = wait(&state, &job).await;
    assert_eq!(view["state"], "done", "{view}");
    assert_eq!((view["kind"].as_str(), view["paper"].as_str()), (Some("sentiment"), Some("m02")), "{view}");
    // The one unlabelled mention (m05's) now has the LLM's label, and the paper shows it.
    let citers = get(&state, "/api/papers/m02").await.json()["citers"].clone();
    assert_eq!(citers["without_sentiment"], 0, "{citers}");
    assert_eq!(citers["llm_labelled"], 1, "{citers}");
    let m05 = citers["citers"].as_array().unwrap().iter().find(|c| c["id"] == "m05").unwrap();
    assert!(["positive", "neutral", "negative"].contains(&m05["sentiment"].as_str().unwrap()), "{m05}");
    // Again: nothing left to classify, so no LLM call; the label stays.
    let again = post(&state, "/api/papers/m02/sentiment", serde_json::json!({})).await;
    let view = wait(&state, again.json()["job"]["id"].as_str().unwrap()).await;
    assert_eq!(view["state"], "done", "{view}");
    assert_eq!(get(&state, "/api/papers/m02").await.json()["citers"]["llm_labelled"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
async fn a_cold_corpus_answers_at_once_by_bm25_and_says_so_until_its_vectors_are_ready() {
    // 600 litbench papers no vector cache holds yet: serving them means encoding them first.
    let home = tempfile::tempdir().unwrap();
    let lines: Vec<String> = std::fs::read_to_string(litnav_testkit::datasets().join("litbench/corpus.jsonl"))
        .unwrap()
        .lines()
        .take(600)
        .map(str::to_string)
        .collect();
    let papers = home.path().join("papers.jsonl");
    std::fs::write(&papers, lines.join("\n") + "\n").unwrap();
    let workspace = workspace_with_encoder(home.path());
    let corpus = home.path().join("cold");
    workspace.ingest(&corpus, &IngestRequest { files: vec![papers], ..IngestRequest::default() }).unwrap();
    let state = AppState::new(workspace, corpus, home.path().join("maps"), None, Guard::loopback(8780)).unwrap();
    let warm = state.clone();
    let warming = tokio::task::spawn_blocking(move || warm.warm_up());
    // Wait for the warm-up to start encoding (the encoder loads first).
    let mut health = get(&state, "/api/health").await.json();
    for _ in 0..600 {
        if health["vectors"]["total"].is_u64() || health["vectors"]["ready"] == true {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        health = get(&state, "/api/health").await.json();
    }
    assert_eq!(health["vectors"]["ready"], false, "600 papers take longer than the encoder's load: {health}");
    assert_eq!(health["vectors"]["total"], 600, "{health}");
    let started = std::time::Instant::now();
    let lexical = get(&state, "/api/search?q=uncertainty+of+language+models&k=5").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "a cold search waited {:?}", started.elapsed());
    assert_eq!(lexical.status, StatusCode::OK);
    assert_eq!(lexical.headers["litnav-search-mode"], "bm25");
    let notice = lexical.headers["litnav-search-notice"].to_str().unwrap();
    assert!(notice.starts_with("answered by bm25: the corpus's vectors are being computed ("), "{notice}");
    assert_eq!(lexical.json().as_array().unwrap().len(), 5);
    warming.await.unwrap();
    let health = get(&state, "/api/health").await.json();
    assert_eq!(health["vectors"]["ready"], true, "{health}");
    let dense = get(&state, "/api/search?q=uncertainty+of+language+models&k=5").await;
    assert_eq!(dense.headers["litnav-search-mode"], "expanded");
    assert!(dense.headers.get("litnav-search-notice").is_none());
}

#[tokio::test]
async fn a_map_that_would_fetch_is_refused_without_allow_network() {
    let home = tempfile::tempdir().unwrap();
    let state = mini(home.path());
    let health = get(&state, "/api/health").await.json();
    assert_eq!(health["network"], false);
    let refused = post(&state, "/api/maps", serde_json::json!({"topic": "molecules", "fetch": {"max": 10}})).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains("--allow-network"), "{}", refused.text());
    // With network allowed, a bad fetch option is still refused before any job starts.
    let other = tempfile::tempdir().unwrap();
    let state = mini(other.path()).with_network(true);
    let bad =
        post(&state, "/api/maps", serde_json::json!({"topic": "molecules", "fetch": {"snowball": "sideways"}})).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("unknown snowball \\\"sideways\\\""), "{}", bad.text());
}
