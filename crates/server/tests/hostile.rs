//! A server others can reach, probed as a hostile client would (issue #81): every route with a
//! foreign Origin and without its token, bodies and ids built to hurt, fetches that name where to
//! connect, budgets spent, jobs told to stop — and no answer that shows the machine's paths.
//! Every connection stays on loopback: the OpenAlex stand-in and a silent LLM endpoint listen on
//! 127.0.0.1, and addresses the server must refuse are refused before a packet is sent.

#![allow(clippy::unwrap_used)]

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use litnav_app::{IngestRequest, Settings, Workspace};
use litnav_fetch::stand_in::{Faults, StandIn, work_from_paper};
use litnav_server::budget::Budgets;
use litnav_server::{AppState, Guard, router};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};
use tower::ServiceExt;

const HOST: &str = "127.0.0.1:8780";
const TOKEN: &str = "a-token-of-twenty-chars";

/// The mini fixture served from `home`, offline (no encoder download), under `guard`.
fn served(home: &Path, guard: Guard, llm: Option<litnav_app::LlmOptions>) -> AppState {
    let mut env = HashMap::new();
    env.insert("LITNAV_HOME".to_string(), home.display().to_string());
    env.insert("LITNAV_OFFLINE".to_string(), "1".to_string());
    env.insert("LITNAV_MODEL".to_string(), home.join("no-model").display().to_string());
    let workspace = Workspace::new(Settings::from_vars(&env, None).unwrap());
    let fixture = litnav_testkit::fixture("mini");
    let corpus = home.join("corpus");
    if !corpus.exists() {
        let request = IngestRequest {
            files: vec![fixture.join("papers.jsonl"), fixture.join("citations.csv")],
            contexts: vec![fixture.join("contexts-a.jsonl"), fixture.join("contexts-b.jsonl")],
            ..IngestRequest::default()
        };
        workspace.ingest(&corpus, &request).unwrap();
    }
    AppState::new(workspace, corpus, home.join("maps"), llm, guard).unwrap()
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
}

async fn send(state: &AppState, request: Request<Body>) -> Answer {
    let response = router(state.clone()).oneshot(request).await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Answer { status, headers, text: String::from_utf8_lossy(&body).into_owned() }
}

fn request(method: &str, uri: &str) -> axum::http::request::Builder {
    Request::builder().method(method).uri(uri).header(header::HOST, HOST)
}

async fn get(state: &AppState, uri: &str) -> Answer {
    send(state, request("GET", uri).body(Body::empty()).unwrap()).await
}

async fn post(state: &AppState, uri: &str, body: Value) -> Answer {
    let built = request("POST", uri).header(header::CONTENT_TYPE, "application/json");
    send(state, built.body(Body::from(body.to_string())).unwrap()).await
}

async fn delete(state: &AppState, uri: &str) -> Answer {
    send(state, request("DELETE", uri).body(Body::empty()).unwrap()).await
}

/// An endpoint's path with sample values in its parameters.
fn sample(path: &str) -> String {
    path.replace("{id}", "0123456789abcdef")
        .replace("{node}", "t1")
        .replace("{paper}", "m01")
        .replace("{measure}", "disruption")
        .replace("{query}", "cd")
        .replace("{format}", "bibtex")
}

/// Ten works about molecules for the stand-in, each citing the next.
fn works() -> Vec<Value> {
    (0..10u64)
        .map(|i| {
            let paper = json!({
                "id": i, "title": format!("Graph networks for molecules, part {i}"),
                "abstract": "Molecules as graphs.", "year": 2010 + i, "venue": "J", "authors": ["A. B."],
            });
            let next: Vec<String> = (i + 1 < 10).then(|| format!("W{}", 501 + i)).into_iter().collect();
            work_from_paper(&paper, 500 + i, &next)
        })
        .collect()
}

/// Whether `text` shows any of the machine's places: the test's home, the user's home.
fn shows_the_machine(text: &str, home: &Path) -> bool {
    let user_home = std::env::var("HOME").unwrap_or_default();
    text.contains(&home.display().to_string()) || (user_home.len() > 1 && text.contains(&user_home))
}

async fn wait(state: &AppState, job: &str) -> Value {
    for _ in 0..600 {
        let view = get(state, &format!("/api/jobs/{job}")).await.json();
        if ["done", "failed", "cancelled"].contains(&view["state"].as_str().unwrap()) {
            return view;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("job {job} did not end");
}

/// How long after the job is told to stop (`DELETE`) it ends, and its last view.
async fn cancel(state: &AppState, job: &str) -> (Duration, Value) {
    let asked = Instant::now();
    assert_eq!(delete(state, &format!("/api/jobs/{job}")).await.status, StatusCode::OK);
    let view = wait(state, job).await;
    (asked.elapsed(), view)
}

#[tokio::test]
async fn every_route_refuses_a_foreign_origin_and_a_missing_or_wrong_token() {
    let home = tempfile::tempdir().unwrap();
    let local = served(home.path(), Guard::loopback(8780), None);
    let remote = served(home.path(), Guard::remote(TOKEN.to_string()), None);
    let endpoints = litnav_server::api::endpoints();
    assert!(endpoints.len() >= 30, "every route: {}", endpoints.len());
    for endpoint in &endpoints {
        let (method, uri) = (endpoint.method.to_uppercase(), sample(endpoint.path));
        if method != "GET" {
            let foreign = request(&method, &uri)
                .header(header::ORIGIN, "http://evil.example")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from("{}"))
                .unwrap();
            let answer = send(&local, foreign).await;
            assert_eq!(answer.status, StatusCode::FORBIDDEN, "{method} {uri}: {}", answer.text);
        }
        if uri == "/api/health" {
            continue;
        }
        // No token, a wrong one, the right one without its scheme.
        for token in [None, Some("Bearer wrong-token-of-twenty-chars"), Some(TOKEN)] {
            let mut built = request(&method, &uri).header(header::CONTENT_TYPE, "application/json");
            if let Some(token) = token {
                built = built.header(header::AUTHORIZATION, token);
            }
            let answer = send(&remote, built.body(Body::from("{}")).unwrap()).await;
            assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{method} {uri} with {token:?}: {}", answer.text);
        }
        if method == "GET" {
            let bearer = format!("Bearer {TOKEN}");
            let answer = send(
                &remote,
                request(&method, &uri).header(header::AUTHORIZATION, bearer).body(Body::empty()).unwrap(),
            )
            .await;
            assert_ne!(answer.status, StatusCode::UNAUTHORIZED, "{uri} with the token: {}", answer.text);
        }
    }
}

#[tokio::test]
async fn hostile_bodies_and_ids_get_clear_errors_that_name_no_path() {
    let home = tempfile::tempdir().unwrap();
    let state = served(home.path(), Guard::loopback(8780), None);
    let mut answers = Vec::new();
    // JSON nested far beyond any request: refused by the parser, not by a stack overflow.
    let nested = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let built = request("POST", "/api/maps").header(header::CONTENT_TYPE, "application/json");
    let answer = send(&state, built.body(Body::from(nested)).unwrap()).await;
    assert!(answer.status.is_client_error(), "{}", answer.text);
    assert_eq!(answer.json()["error"]["code"], "input");
    answers.push(answer);
    let deep_object = format!("{{\"topic\": {}1{}}}", "{\"a\":".repeat(5_000), "}".repeat(5_000));
    let built = request("POST", "/api/maps").header(header::CONTENT_TYPE, "application/json");
    let answer = send(&state, built.body(Body::from(deep_object)).unwrap()).await;
    assert!(answer.status.is_client_error(), "{}", answer.text);
    answers.push(answer);
    // Ids with traversal, NUL and control characters: not found, never a file outside.
    for uri in [
        "/api/papers/..%2F..%2F..%2Fetc%2Fpasswd",
        "/api/papers/%00",
        "/api/papers/m01%00.json",
        "/api/maps/..%2F..%2Fcorpus%2Fmanifest",
        "/api/maps/%2e%2e",
        "/api/maps/0123456789abcdef%00/nodes/t1",
        "/api/jobs/..%2F..%2F",
        "/api/path?from=%00&to=..%2Fm01",
    ] {
        let answer = get(&state, uri).await;
        assert!(answer.status.is_client_error(), "{uri}: {} {}", answer.status, answer.text);
        assert!(answer.json()["error"]["message"].is_string(), "{uri}: {}", answer.text);
        answers.push(answer);
    }
    // A paper that is not there is named by its id; the corpus by what it is.
    let missing = get(&state, "/api/papers/nope").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.json()["error"]["message"], "no paper with id `nope` in the corpus");
    answers.push(missing);
    let health = get(&state, "/api/health").await;
    assert_eq!(health.json()["corpus"], "corpus", "the directory's name");
    answers.push(health);
    let corpus = get(&state, "/api/corpus").await;
    assert_eq!(corpus.json()["corpus"], "corpus");
    answers.push(corpus);
    for answer in &answers {
        assert!(!shows_the_machine(&answer.text, home.path()), "a path in: {}", answer.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_trickles_is_waited_for_and_one_cut_off_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let state = served(home.path(), Guard::loopback(8780), None);
    // A valid body sent a byte every 20 ms (about a second in all).
    let text = r#"{"ids": ["m01", "m02"], "format": "csv"}"#;
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(1);
    tokio::spawn(async move {
        for byte in text.bytes() {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = sender.send(Ok(vec![byte])).await;
        }
    });
    let trickle = tokio_stream::wrappers::ReceiverStream::new(receiver);
    let built = request("POST", "/api/export").header(header::CONTENT_TYPE, "application/json");
    let answer = send(&state, built.body(Body::from_stream(trickle)).unwrap()).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert!(answer.text.contains("m01") || answer.text.lines().count() == 3, "{}", answer.text);
    // A body whose connection fails half-way: a clear client error, no job, no crash.
    let parts = vec![Ok(b"{\"topic\": \"mol".to_vec()), Err(std::io::Error::other("connection reset"))];
    let built = request("POST", "/api/maps").header(header::CONTENT_TYPE, "application/json");
    let answer = send(&state, built.body(Body::from_stream(tokio_stream::iter(parts))).unwrap()).await;
    assert!(answer.status.is_client_error(), "{} {}", answer.status, answer.text);
    assert_eq!(answer.json()["error"]["code"], "input", "{}", answer.text);
    assert_eq!(get(&state, "/api/health").await.json()["jobs_running"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_cannot_choose_where_the_server_fetches_from() {
    let stand_in = StandIn::start(works(), BTreeMap::new()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let state = served(home.path(), Guard::loopback(8780), None)
        .with_network(true)
        .with_api_url(Some(stand_in.url().to_string()));
    // A body naming a URL (a cloud's metadata service, the server's own ports) or a key: 400/422
    // before any job, and nothing sent anywhere.
    for url in ["http://169.254.169.254/latest/meta-data", "http://127.0.0.1:22", stand_in.url()] {
        let refused = post(&state, "/api/maps", json!({"topic": "molecules", "fetch": {"api_url": url}})).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(
            refused.json()["error"]["message"].as_str().unwrap().starts_with("fetch.api_url: "),
            "{}",
            refused.text
        );
    }
    let key = post(&state, "/api/maps", json!({"topic": "molecules", "fetch": {"api_key": "k"}})).await;
    assert_eq!(key.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", key.text);
    assert!(stand_in.log().is_empty(), "nothing reached the API: {:?}", stand_in.log());
    // The owner's API is where a fetch goes.
    let started = post(&state, "/api/maps", json!({"topic": "molecules", "k": 5, "fetch": {"max": 5}})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text);
    let view = wait(&state, started.json()["job"]["id"].as_str().unwrap()).await;
    assert!(stand_in.log().iter().any(|l| l.starts_with("/works?search=molecules")), "{:?}", stand_in.log());
    // The job went on to the map, which needs the encoder this home lacks: its error says so
    // without naming the machine's paths, the API's address included.
    let said = view.to_string();
    assert!(!shows_the_machine(&said, home.path()) && !said.contains(stand_in.url()), "{said}");
    assert_eq!(view["state"], "failed", "{view}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budgets_refuse_with_429_and_retry_after_and_usage_shows_what_was_spent() {
    let stand_in = StandIn::start(works(), BTreeMap::new()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let budgets = Budgets { jobs_at_once: 1, fetch_calls_per_day: 2, maps_per_minute: 4 };
    let state = served(home.path(), Guard::loopback(8780), None)
        .with_network(true)
        .with_api_url(Some(stand_in.url().to_string()))
        .with_budgets(budgets);
    // A fetch needing more than two calls stops at the budget, as a job failing with its code.
    let started = post(&state, "/api/maps", json!({"topic": "molecules", "fetch": {"max": 5}})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text);
    let view = wait(&state, started.json()["job"]["id"].as_str().unwrap()).await;
    assert_eq!(
        (view["state"].as_str(), view["error"]["code"].as_str()),
        (Some("failed"), Some("over_budget")),
        "{view}"
    );
    let usage = get(&state, "/api/usage").await.json();
    assert_eq!(usage["spent"]["fetch_calls_today"], 2, "{usage}");
    assert_eq!(usage["budgets"]["fetch_calls_per_day"], 2);
    // The day's calls are spent: the next fetch is refused at once, with when to ask again.
    let refused = post(&state, "/api/maps", json!({"topic": "molecules", "fetch": {"max": 6}})).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS, "{}", refused.text);
    let wait_seconds: u64 = refused.headers[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((1..=86_400).contains(&wait_seconds));
    // One job at once: a map waiting on a slow API holds the only slot.
    stand_in.inject(Faults { slow: Some((usize::MAX, Duration::from_secs(30))), ..Faults::default() });
    let other = tempfile::tempdir().unwrap();
    let state = served(other.path(), Guard::loopback(8780), None)
        .with_network(true)
        .with_api_url(Some(stand_in.url().to_string()))
        .with_budgets(Budgets { fetch_calls_per_day: 100, ..budgets });
    let slow = post(&state, "/api/maps", json!({"topic": "molecules", "fetch": {"max": 7}})).await;
    assert_eq!(slow.status, StatusCode::ACCEPTED, "{}", slow.text);
    let second = post(&state, "/api/maps", json!({"topic": "other molecules"})).await;
    assert_eq!(second.status, StatusCode::TOO_MANY_REQUESTS, "{}", second.text);
    assert_eq!(second.headers[header::RETRY_AFTER], "10");
    assert_eq!(get(&state, "/api/usage").await.json()["spent"]["jobs_running"], 1);
    // Map requests a minute: two counted, two more allowed, the fifth refused.
    for topic in ["a", "b"] {
        let answer = post(&state, "/api/maps", json!({"topic": topic})).await;
        assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS, "jobs are still full: {}", answer.text);
    }
    let fifth = post(&state, "/api/maps", json!({"topic": "c"})).await;
    assert_eq!(fifth.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(fifth.json()["error"]["message"].as_str().unwrap().contains("4 map requests a minute"), "{}", fifth.text);
    let usage = get(&state, "/api/usage").await.json();
    assert_eq!((usage["caller"].as_str(), usage["spent"]["maps_last_minute"].as_u64()), (Some("loopback"), Some(4)));
    let (_, view) = cancel(&state, slow.json()["job"]["id"].as_str().unwrap()).await;
    assert_eq!(view["state"], "cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_told_to_stop_ends_within_two_seconds_in_a_backoff_and_in_an_llm_call() {
    // A fetch waiting out a 503's backoff (the API asks for an hour; the client's longest wait
    // is two minutes).
    let stand_in = StandIn::start(works(), BTreeMap::new()).unwrap();
    stand_in.inject(Faults { unavailable_for_long: usize::MAX, ..Faults::default() });
    let home = tempfile::tempdir().unwrap();
    let state = served(home.path(), Guard::loopback(8780), None)
        .with_network(true)
        .with_api_url(Some(stand_in.url().to_string()));
    let started = post(&state, "/api/maps", json!({"topic": "molecules", "fetch": {"max": 5}})).await;
    let job = started.json()["job"]["id"].as_str().unwrap().to_string();
    while stand_in.log().is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (took, view) = cancel(&state, &job).await;
    assert_eq!(view["state"], "cancelled", "{view}");
    assert!(took < Duration::from_secs(2), "a backoff ended {took:?} after the stop");
    eprintln!("cancelled in a fetch's backoff: {:.0} ms", took.as_secs_f64() * 1000.0);
    let generation = get(&state, "/api/health").await.json()["generation"].clone();
    assert_eq!(generation, 1, "the corpus as it was");
    // What a fetch killed mid-way left beside the corpus (its process gone) is removed when a
    // server starts on it.
    let abandoned = home.path().join(".litnav-fetch-4194305-k1ll3d");
    std::fs::create_dir_all(abandoned.join("staging")).unwrap();
    drop(state);
    let _restarted = served(home.path(), Guard::loopback(8780), None);
    assert!(!abandoned.exists(), "an abandoned fetch's staging is removed at start");

    // An LLM endpoint that accepts the request and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", silent.local_addr().unwrap());
    let held = std::thread::spawn(move || silent.accept().map(|(stream, _)| stream));
    let other = tempfile::tempdir().unwrap();
    let llm = litnav_app::LlmOptions { url: Some(url), no_cache: true, ..Default::default() };
    let state = served(other.path(), Guard::loopback(8780), Some(llm));
    let started = post(&state, "/api/papers/m02/sentiment", json!({})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text);
    let job = started.json()["job"]["id"].as_str().unwrap().to_string();
    let _connection = held.join().unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (took, view) = cancel(&state, &job).await;
    assert_eq!(view["state"], "cancelled", "{view}");
    assert!(took < Duration::from_secs(2), "an LLM call ended {took:?} after the stop");
    eprintln!("cancelled in an LLM call: {:.0} ms", took.as_secs_f64() * 1000.0);
}
