//! The OpenAlex source and the snowball against the stand-in on loopback: paging, merged works,
//! every fault the client must survive, the key never written anywhere, the cache that makes a
//! second fetch free and an interrupted one resumable.

#![allow(clippy::unwrap_used)]

use litnav_fetch::http::HttpConfig;
use litnav_fetch::openalex::OpenAlex;
use litnav_fetch::stand_in::{Faults, StandIn, work_from_paper};
use litnav_fetch::{ApiKey, Plan, Snowball, Unwatched, fetch};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// 40 works: 0–14 about graph neural networks, the rest about other things. Work i cites i+1
/// and i+20 (when they exist); work 25 is cited under an old id, W9025, merged into W1025.
fn works() -> Vec<Value> {
    (0..40u64)
        .map(|i| {
            let topic = if i < 15 { "graph neural networks for molecules" } else { "protein folding dynamics" };
            let paper = json!({
                "id": i, "title": format!("Study {i} of {topic}"), "abstract": format!("We look at {topic} again."),
                "year": 2000 + i, "venue": "Journal", "authors": ["A. Author"],
            });
            let cited = [i + 1, i + 20].into_iter().filter(|&j| j < 40).map(|j| if j == 25 { 9025 } else { 1000 + j });
            let references: Vec<String> = cited.map(|n| format!("W{n}")).collect();
            let mut work = work_from_paper(&paper, 1000 + i, &references);
            work["cited_by_count"] = json!(40 - i);
            work
        })
        .collect()
}

fn stand_in() -> StandIn {
    StandIn::start(works(), BTreeMap::from([("W9025".to_string(), "W1025".to_string())])).unwrap()
}

fn config(cache: &Path) -> HttpConfig {
    HttpConfig {
        timeout: Duration::from_millis(1500),
        backoff: Duration::from_millis(20),
        rate: 1000.0,
        cache_dir: Some(cache.to_path_buf()),
        // The stand-in listens on loopback: the tests name it as a user's --api-url would.
        trusted_host: Some("127.0.0.1".to_string()),
        ..HttpConfig::default()
    }
}

fn plan(max: usize, snowball: Snowball) -> Plan {
    Plan { topic: "graph neural networks".into(), max, snowball, snowball_max: 100, citing_per_work: 5 }
}

const BOTH: Snowball = Snowball { references: true, citations: true };

#[test]
fn the_topic_is_paged_by_cursor_and_snowballed_through_filters() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    let fetched = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap();
    let report = &fetched.report;
    assert_eq!(report.hits, 12);
    // 12 hits cite 13 (=W1012), 20..31 (W9025 among them, merged into W1025); works 0..11 are cited by
    // the hits themselves only, so citers add nothing outside the hits.
    assert_eq!(report.references, 13, "{report:?}");
    assert_eq!(report.merged, 1);
    assert_eq!(report.not_found, 0);
    assert_eq!(report.works, 25);
    let w1005 = fetched.works.iter().find(|w| w.id == "W1005").unwrap();
    assert_eq!(w1005.references, ["W1006", "W1025"], "the merged id is pointed at its new work");
    // The hits' 24 references, and W1020–W1030 citing their next.
    assert_eq!(report.citations, 24 + 11);
    // One search (a page of 12), the 13 ids in one OR filter, one cites: call per hit, and two
    // singletons for the merged id (its 301, then the work it moved to).
    assert_eq!((report.calls.search, report.calls.list, report.calls.singleton), (1, 1 + 12, 2));
    let log = server.log();
    assert!(log.iter().any(|l| l.contains("filter=openalex%3AW")), "{log:?}");
    assert!(log.iter().any(|l| l.starts_with("/works/W9025")));
    assert_eq!(report.calls.remaining.as_deref().map(|r| r.parse::<u64>().is_ok()), Some(true));
}

/// A work without a title among the works the hits cite; markup in a title, front matter, an
/// erratum and a retracted work among the hits: the fetch finishes, leaves out what it cannot keep and counts every case.
#[test]
fn works_as_openalex_really_answers_them_are_kept_cleaned_or_left_out_and_counted() {
    let mut works = works();
    // W1021 is one of the works the hits cite.
    works[21]["title"] = Value::Null;
    works[21]["display_name"] = Value::Null;
    works[5]["title"] = json!("Study 5 of <i>graph</i> neural networks &amp; molecules");
    works[7]["type"] = json!("paratext");
    works[7]["is_paratext"] = json!(true);
    works[9]["is_retracted"] = json!(true);
    works[10]["type"] = json!("erratum");
    let server = StandIn::start(works, BTreeMap::from([("W9025".to_string(), "W1025".to_string())])).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    let fetched = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap();
    let report = &fetched.report;
    let counts = |map: &BTreeMap<String, usize>| map.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>();
    assert_eq!(counts(&report.skipped), ["no title: 1"], "{report:?}");
    assert_eq!(counts(&report.repaired), ["markup removed from the title: 1"]);
    assert_eq!(
        counts(&report.flagged),
        ["erratum (left out of maps): 1", "paratext (left out of maps): 1", "retracted: 1"]
    );
    assert_eq!(report.works, 24, "the untitled work is left out");
    assert!(fetched.works.iter().all(|w| w.id != "W1021"));
    let cleaned = fetched.works.iter().find(|w| w.id == "W1005").unwrap();
    assert_eq!(cleaned.title.as_deref(), Some("Study 5 of graph neural networks & molecules"));
    // The request asks for the fields that say what a work is.
    assert!(server.log().iter().all(|l| !l.contains("select=") || l.contains("is_retracted")), "{:?}", server.log());
}

#[test]
fn a_second_fetch_asks_nothing_and_an_interrupted_one_resumes() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    // Interrupted after the search and four more list calls: the answers so far are kept.
    server.inject(Faults { fail_after: Some(5), ..Faults::default() });
    let error = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap_err().to_string();
    assert!(error.contains("400"), "{error}");
    let asked = server.log().len();
    server.inject(Faults::default());
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    let resumed = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap().report;
    assert_eq!(resumed.calls.cached, 5, "the five answers before the interruption came from the cache");
    assert_eq!(server.log().len() - asked, resumed.calls.search + resumed.calls.list + resumed.calls.singleton);
    let before = server.log().len();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    let again = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap().report;
    assert_eq!(server.log().len(), before, "an identical fetch makes no call");
    assert_eq!((again.calls.search, again.calls.list, again.calls.singleton), (0, 0, 0));
    assert_eq!((again.works, again.citations), (resumed.works, resumed.citations));
}

#[test]
fn rate_limits_server_errors_slow_and_cut_answers_are_retried() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    server.inject(Faults {
        rate_limited: 1,
        server_errors: 1,
        slow: Some((1, Duration::from_secs(3))),
        cut: 1,
        ..Faults::default()
    });
    let started = std::time::Instant::now();
    let report = fetch(&source, &plan(12, Snowball::default()), &Unwatched).unwrap().report;
    assert_eq!(report.hits, 12);
    assert_eq!(report.calls.retries, 4, "{report:?}");
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After: 1 was honoured");
    // Nothing that failed was cached: a second run asks nothing and finds the same.
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    assert_eq!(fetch(&source, &plan(12, Snowball::default()), &Unwatched).unwrap().report.calls.cached, 1);
}

#[test]
fn a_429_without_retry_after_is_retried_with_exponential_backoff() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    server.inject(Faults { rate_limited_silently: 2, ..Faults::default() });
    let started = std::time::Instant::now();
    let report = fetch(&source, &plan(12, Snowball::default()), &Unwatched).unwrap().report;
    assert_eq!(report.hits, 12);
    assert_eq!(report.calls.retries, 2, "{report:?}");
    // Backoffs of 20 and 40 ms (the test's first backoff, doubled).
    assert!(started.elapsed() >= Duration::from_millis(60), "{:?}", started.elapsed());
}

#[test]
fn a_429_asking_for_longer_than_the_longest_wait_fails_at_once_saying_when_it_renews() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    server.inject(Faults { allowance_spent: 1, ..Faults::default() });
    let started = std::time::Instant::now();
    let error = fetch(&source, &plan(12, Snowball::default()), &Unwatched).unwrap_err().to_string();
    assert!(error.contains("daily allowance is spent, renewed in 1440 minutes"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(source_calls(&source), 1, "no retry of a spent allowance");
}

#[test]
fn a_long_retry_after_on_a_server_error_is_capped_at_the_longest_wait() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let config = HttpConfig { longest_wait: Duration::from_millis(200), ..config(cache.path()) };
    let source = OpenAlex::new(server.url(), None, config).unwrap();
    server.inject(Faults { unavailable_for_long: 2, ..Faults::default() });
    let started = std::time::Instant::now();
    let report = fetch(&source, &plan(12, Snowball::default()), &Unwatched).unwrap().report;
    assert_eq!(report.calls.retries, 2, "{report:?}");
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(400) && took < Duration::from_secs(10), "{took:?}");
}

/// An observer that asks to stop once `after` has passed.
struct StopAfter {
    started: std::time::Instant,
    after: Duration,
}

impl litnav_fetch::Observer for StopAfter {
    fn cancelled(&self) -> bool {
        self.started.elapsed() >= self.after
    }
}

#[test]
fn a_stop_ends_a_backoff_within_a_fraction_of_a_second() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    // Backoffs of 30 s, then 60 s: without the stop, the fetch would wait minutes.
    let config = HttpConfig { backoff: Duration::from_secs(30), ..config(cache.path()) };
    let source = OpenAlex::new(server.url(), None, config).unwrap();
    server.inject(Faults { rate_limited_silently: 3, ..Faults::default() });
    let observer = StopAfter { started: std::time::Instant::now(), after: Duration::from_millis(300) };
    let error = fetch(&source, &plan(12, Snowball::default()), &observer).unwrap_err();
    let took = observer.started.elapsed();
    assert!(matches!(error, litnav_fetch::Error::Cancelled(_)), "{error}");
    assert!(took < Duration::from_secs(2), "stopped after {took:?}");
}

#[test]
fn a_refused_key_is_named_by_its_origin_and_written_nowhere() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    server.inject(Faults { key: Some("right-key".into()), ..Faults::default() });
    let key = ApiKey { value: "wrong-key-123".into(), origin: "from the environment variable OPENALEX_API_KEY".into() };
    let source = OpenAlex::new(server.url(), Some(key), config(cache.path())).unwrap();
    let error = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap_err().to_string();
    assert_eq!(
        error,
        "OpenAlex refused the API key from the environment variable OPENALEX_API_KEY (401: Unauthorized: Invalid or missing API key)"
    );
    assert_eq!(source_calls(&source), 1, "a refused key is not retried");
    assert!(std::fs::read_dir(cache.path()).unwrap().next().is_none(), "a refusal is not cached");
    // With the right key the same requests are answered, and neither the cache nor the report holds it.
    let key = ApiKey { value: "right-key".into(), origin: "given on the command line".into() };
    assert!(!format!("{key:?}").contains("right-key"));
    let source = OpenAlex::new(server.url(), Some(key), config(cache.path())).unwrap();
    let fetched = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap();
    assert!(!serde_json::to_string(&fetched.report).unwrap().contains("right-key"));
    for entry in walk(cache.path()) {
        assert!(!std::fs::read_to_string(&entry).unwrap().contains("right-key"), "{}", entry.display());
    }
    assert!(server.log().iter().all(|l| l.contains("api_key=right-key") || l.contains("api_key=wrong-key")));
}

fn source_calls(source: &OpenAlex) -> usize {
    use litnav_fetch::Source;
    let calls = source.calls();
    calls.search + calls.list + calls.singleton
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}

#[test]
fn a_host_on_the_machines_own_network_is_refused_before_anything_is_sent() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let untrusted = || HttpConfig { trusted_host: None, ..config(cache.path()) };
    // The stand-in itself, not named by the owner: loopback, refused; it heard nothing.
    let source = OpenAlex::new(server.url(), None, untrusted()).unwrap();
    let error = fetch(&source, &plan(5, BOTH), &Unwatched).err().unwrap();
    assert!(matches!(error, litnav_fetch::Error::Destination { .. }), "{error}");
    assert!(error.to_string().contains("a loopback address"), "{error}");
    assert!(server.log().is_empty(), "nothing reached the stand-in: {:?}", server.log());
    assert_eq!(source_calls(&source), 1, "refused once, not retried");
    // Private, link-local (a cloud's metadata service), unspecified, IPv6 loopback and unique
    // local: refused at resolution (literal addresses, so no lookup either), nothing sent.
    for (url, range) in [
        ("http://10.1.2.3:8080", "a private address"),
        ("http://169.254.169.254", "a link-local address"),
        ("http://0.0.0.0:9", "an unspecified address"),
        ("http://[::1]:9", "a loopback address"),
        ("http://[fd12::1]:9", "a private (unique local) address"),
    ] {
        let source = OpenAlex::new(url, None, untrusted()).unwrap();
        let error = fetch(&source, &plan(5, BOTH), &Unwatched).err().unwrap().to_string();
        assert!(error.contains("refused before connecting") && error.contains(range), "{url}: {error}");
    }
    // The same stand-in named by the owner is reached.
    let trusted = HttpConfig { trusted_host: litnav_fetch::destinations::host_of(server.url()), ..untrusted() };
    let source = OpenAlex::new(server.url(), None, trusted).unwrap();
    assert_eq!(fetch(&source, &plan(5, BOTH), &Unwatched).unwrap().report.hits, 5);
}

#[test]
fn bad_answers_and_bad_requests_are_clear_errors() {
    let server = stand_in();
    let cache = tempfile::tempdir().unwrap();
    let source = OpenAlex::new(server.url(), None, config(cache.path())).unwrap();
    let unknown = Plan { topic: "quantum gravity".into(), ..plan(12, BOTH) };
    let error = fetch(&source, &unknown, &Unwatched).unwrap_err().to_string();
    assert_eq!(error, "OpenAlex has no works for the topic \"quantum gravity\"; try other words for it");
    server.inject(Faults { not_openalex: true, ..Faults::default() });
    let error = fetch(&source, &plan(12, BOTH), &Unwatched).unwrap_err().to_string();
    assert!(error.contains("did not answer as OpenAlex does: the answer is not JSON"), "{error}");
    assert!(error.contains("it begins \"<html>"), "{error}");
    assert!(!error.contains("api_key"));
    let empty = Plan { topic: "  ".into(), ..plan(12, BOTH) };
    assert!(fetch(&source, &empty, &Unwatched).unwrap_err().to_string().starts_with("the topic is empty"));
}

/// Not a check: serves the stand-in with the datasets' CiteSeer and AAN for manual runs (README
/// screenshots, `litnav fetch openalex --api-url …` by hand) for `LITNAV_STAND_IN_SECONDS`
/// (default 600). `cargo test -p litnav-fetch --test openalex -- --ignored --nocapture serve_`.
#[test]
#[ignore = "a helper for manual runs, not a check"]
fn serve_the_stand_in_for_manual_runs() {
    let datasets = std::env::var_os("LITNAV_DATASETS").map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf(), std::path::PathBuf::from)
            .join("../../../shared/datasets")
    });
    let (works, moved) = litnav_fetch::stand_in::dataset_works(&datasets).unwrap();
    let server = StandIn::start(works, moved).unwrap();
    println!("stand-in at {}", server.url());
    let seconds = std::env::var("LITNAV_STAND_IN_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    std::thread::sleep(Duration::from_secs(seconds));
}
