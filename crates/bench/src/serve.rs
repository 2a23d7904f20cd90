//! The server under load, on loopback only: a map is built through the API, then `clients`
//! concurrent clients (closed loop: each sends its next request when the last is answered; each
//! client sends one kind of request, the kinds spread evenly over the clients) send search
//! (hybrid with repeated and with new queries, BM25), paper and map-reading requests for
//! `seconds`. Reported per endpoint: requests, errors, latency percentiles; and the process's
//! resident memory sampled every second (server and clients share the process; the clients keep
//! fixed-size latency histograms, so their own memory does not grow with the requests).

use crate::Result;
use litnav_app::{Error, Workspace};
use litnav_server::{AppState, Guard};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The kind of request that sends a query never sent before.
const NEW_QUERY: usize = 5;

/// Latencies of one kind of request in logarithmic buckets 1% wide (fixed size, so a long run
/// does not grow the process it measures; percentiles are exact to 1%).
#[derive(Clone)]
struct Latencies {
    counts: Vec<u64>,
    errors: usize,
    max_ms: f64,
}

/// Bucket width: each bucket's upper bound is 1% above its lower one.
const GROWTH: f64 = 1.01;
/// Buckets: 1 µs up to ~10 minutes.
const BUCKETS: usize = 2100;

impl Latencies {
    fn new() -> Latencies {
        Latencies { counts: vec![0; BUCKETS], errors: 0, max_ms: 0.0 }
    }

    fn record(&mut self, ms: f64, ok: bool) {
        let micros = (ms * 1000.0).max(1.0);
        let bucket = (micros.ln() / GROWTH.ln()).floor() as usize;
        self.counts[bucket.min(BUCKETS - 1)] += 1;
        self.max_ms = self.max_ms.max(ms);
        self.errors += usize::from(!ok);
    }

    fn merge(&mut self, other: &Latencies) {
        self.counts.iter_mut().zip(&other.counts).for_each(|(a, b)| *a += b);
        self.errors += other.errors;
        self.max_ms = self.max_ms.max(other.max_ms);
    }

    fn requests(&self) -> usize {
        self.counts.iter().sum::<u64>() as usize
    }

    /// The `p`-th percentile (nearest rank), as the middle of its bucket, ms (at most the maximum).
    fn percentile(&self, p: f64) -> f64 {
        let total = self.requests();
        if total == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0) * total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (bucket, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let middle = GROWTH.powf(bucket as f64 + 0.5) / 1000.0;
                return middle.min(self.max_ms);
            }
        }
        self.max_ms
    }
}

/// How the load is made.
#[derive(Debug, Clone)]
pub struct Options {
    /// Concurrent clients.
    pub clients: usize,
    /// Seconds of load.
    pub seconds: f64,
    /// The topic of the map the reading requests read.
    pub topic: String,
    /// New queries per second in all, sent on a fixed schedule (open loop: a late answer does
    /// not delay the next query, and latency counts from the time a query was due); `None`: the
    /// new-query clients run in a closed loop like the others.
    pub new_query_rate: Option<f64>,
}

/// One endpoint under load.
#[derive(Debug, Clone, Serialize)]
pub struct EndpointLoad {
    /// What was asked.
    pub endpoint: String,
    /// Requests answered.
    pub requests: usize,
    /// Requests that failed (a status other than 200, or no answer).
    pub errors: usize,
    /// Median latency, ms (to 1%).
    pub p50_ms: f64,
    /// 99th-percentile latency, ms (to 1%).
    pub p99_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
}

/// The load run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Concurrent clients.
    pub clients: usize,
    /// Seconds of load.
    pub seconds: f64,
    /// Requests per second, all endpoints.
    pub throughput: f64,
    /// Per endpoint.
    pub endpoints: Vec<EndpointLoad>,
    /// Resident memory when the load began, MiB.
    pub rss_start_mib: f64,
    /// Resident memory ten seconds into the load (clients and caches warm), MiB.
    pub rss_10s_mib: f64,
    /// Resident memory when it ended, MiB.
    pub rss_end_mib: f64,
    /// Most resident memory seen, MiB.
    pub rss_max_mib: f64,
    /// Resident memory when the load began and every 10 s after, MiB.
    pub rss_every_10s_mib: Vec<f64>,
    /// Seconds to build the map the reading requests read.
    pub map_seconds: f64,
    /// The precision the server encoded search queries in (`f32` or `f16`, as `/api/health`).
    pub query_precision: litnav_app::request::PrecisionName,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} clients for {:.0} s on loopback: {:.0} requests/s; resident memory {:.0} MiB before, {:.0} after 10 s, {:.0} at the end (max {:.0}); map built in {:.1} s; queries encoded in {}",
            self.clients,
            self.seconds,
            self.throughput,
            self.rss_start_mib,
            self.rss_10s_mib,
            self.rss_end_mib,
            self.rss_max_mib,
            self.map_seconds,
            self.query_precision.name()
        )?;
        let series: Vec<String> = self.rss_every_10s_mib.iter().map(|m| format!("{m:.0}")).collect();
        writeln!(f, "resident memory every 10 s, MiB: {}", series.join(" "))?;
        writeln!(
            f,
            "{:<28} {:>9} {:>7} {:>9} {:>9} {:>9}",
            "endpoint", "requests", "errors", "p50 ms", "p99 ms", "max ms"
        )?;
        for e in &self.endpoints {
            writeln!(
                f,
                "{:<28} {:>9} {:>7} {:>9.2} {:>9.2} {:>9.2}",
                e.endpoint, e.requests, e.errors, e.p50_ms, e.p99_ms, e.max_ms
            )?;
        }
        Ok(())
    }
}

fn resident_mib() -> f64 {
    litnav_core::memory::resident_mib().unwrap_or(0.0)
}

/// A search URL with a query never sent before: a paper's title and the request's number.
fn new_query(base: &str, titles: &[String], i: usize) -> String {
    format!("{base}/api/search?q={}&k=10&mode=hybrid", query_text(&format!("{} {i}", titles[i % titles.len()])))
}

/// Words as a query string's value (a title may hold `&`, `#`, `%` or `+`).
fn query_text(words: &str) -> String {
    form_urlencoded::byte_serialize(words.as_bytes()).collect()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn get_json(agent: &ureq::Agent, url: &str) -> Result<serde_json::Value> {
    let mut response = agent.get(url).call().map_err(|e| Error::unavailable(format!("{url}: {e}")))?;
    response.body_mut().read_json().map_err(|e| Error::unavailable(format!("{url}: {e}")))
}

/// Run the load against a server over the corpus at `corpus`.
pub fn run(workspace: Workspace, corpus: PathBuf, options: &Options) -> Result<Report> {
    litnav_core::memory::limit_allocator_arenas(litnav_server::ALLOCATOR_ARENAS);
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let maps = tempfile::tempdir()?;
    let query_precision = litnav_app::request::PrecisionName::of(workspace.query_precision());
    let state = AppState::new(workspace, corpus, maps.path().to_path_buf(), None, Guard::loopback(port))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("a runtime for the server: {e}")))?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime.spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        litnav_server::serve_until(listener, state, async {
            let _ = stopped.await;
        })
        .await
    });
    let base = format!("http://127.0.0.1:{port}");
    let outcome = load(&base, options, query_precision);
    let _ = stop.send(());
    let _ = runtime.block_on(server);
    runtime.shutdown_timeout(Duration::from_secs(5));
    outcome
}

fn load(base: &str, options: &Options, query_precision: litnav_app::request::PrecisionName) -> Result<Report> {
    let client = agent();
    // The map the reading requests read, built through the API.
    let started = Instant::now();
    let mut answer = client
        .post(&format!("{base}/api/maps"))
        .send_json(serde_json::json!({"topic": options.topic}))
        .map_err(|e| Error::unavailable(format!("starting the map: {e}")))?;
    let job: serde_json::Value = answer.body_mut().read_json().map_err(|e| Error::internal(e.to_string()))?;
    let map = job["map"].as_str().ok_or_else(|| Error::internal(format!("no map in {job}")))?.to_string();
    loop {
        let view = get_json(&client, &format!("{base}/api/jobs/{map}"))?;
        match view["state"].as_str() {
            Some("done") => break,
            Some("failed" | "cancelled") => return Err(Error::internal(format!("the map failed: {view}"))),
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    }
    let map_seconds = started.elapsed().as_secs_f64();
    let read = get_json(&client, &format!("{base}/api/maps/{map}"))?;
    let tree: litnav_organize::MapNode = serde_json::from_value(read["map"].clone())
        .map_err(|e| Error::internal(format!("the server's map does not read back: {e}")))?;
    let mut papers = tree.all_paper_ids();
    papers.sort();
    papers.dedup();
    let nodes: Vec<String> = tree.subtopics.iter().map(|n| n.id.clone()).collect();
    let topics = get_json(&client, &format!("{base}/api/topics"))?;
    let queries: Vec<String> =
        topics.as_array().into_iter().flatten().filter_map(|t| t["title"].as_str().map(String::from)).collect();
    if papers.is_empty() || nodes.is_empty() || queries.is_empty() {
        return Err(Error::internal("the map or the corpus's topics are empty"));
    }
    // Hybrid search twice: the survey titles again and again (what a cache of query vectors
    // answers), and a new query every time (a paper's title and the request's number: the encoder
    // runs for each).
    let kinds = ["search (hybrid)", "search (bm25)", "paper", "map", "node papers", "search (hybrid, new query)"];
    let titles: Vec<String> = litnav_eval::tree::Tree::from(&tree).listed_titles();
    let url = |kind: usize, i: usize| -> String {
        match kind {
            0 => format!("{base}/api/search?q={}&k=10&mode=hybrid", query_text(&queries[i % queries.len()])),
            1 => format!("{base}/api/search?q={}&k=10&mode=bm25", query_text(&queries[i % queries.len()])),
            2 => format!("{base}/api/papers/{}", papers[i % papers.len()]),
            3 => format!("{base}/api/maps/{map}"),
            4 => format!("{base}/api/maps/{map}/nodes/{}/papers?sort=citations", nodes[i % nodes.len()]),
            _ => new_query(base, &titles, i),
        }
    };
    // Warm up: every request kind once (first paper request computes the corpus's metrics).
    for kind in 0..kinds.len() {
        get_json(&client, &url(kind, 0))?;
    }
    let done = Arc::new(AtomicBool::new(false));
    let samples = Arc::new(std::sync::Mutex::new(vec![resident_mib()]));
    let sampler = {
        let (done, samples) = (Arc::clone(&done), Arc::clone(&samples));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(1));
                if let Ok(mut s) = samples.lock() {
                    s.push(resident_mib());
                }
            }
        })
    };
    // Paced new-query clients each send every `interval`, staggered over it.
    let new_query_clients = (0..options.clients).filter(|c| c % kinds.len() == NEW_QUERY).count().max(1);
    let pace = options.new_query_rate.map(|rate| Duration::from_secs_f64(new_query_clients as f64 / rate));
    let deadline = Instant::now() + Duration::from_secs_f64(options.seconds);
    let load_started = Instant::now();
    let workers: Vec<_> = (0..options.clients)
        .map(|c| {
            let url = &url;
            let urls: Vec<Vec<String>> =
                (0..kinds.len()).map(|k| (0..64).map(|i| url(k, c * 64 + i)).collect()).collect();
            let (base, titles, clients) = (base.to_string(), titles.clone(), options.clients);
            std::thread::spawn(move || {
                let agent = agent();
                let mut seen = Latencies::new();
                // Each client sends one kind of request, as users each doing one thing would.
                let kind = c % urls.len();
                // Request numbers are unique across clients (new queries are never repeated).
                let mut i = c;
                let stagger = pace.map_or(Duration::ZERO, |interval| {
                    interval.mul_f64((c / urls.len()) as f64 / new_query_clients as f64)
                });
                let mut due = Instant::now() + stagger;
                while Instant::now() < deadline {
                    let fresh;
                    let target = if kind == NEW_QUERY {
                        fresh = new_query(&base, &titles, i);
                        &fresh
                    } else {
                        &urls[kind][(i / clients) % urls[kind].len()]
                    };
                    let sent = match pace.filter(|_| kind == NEW_QUERY) {
                        Some(interval) => {
                            std::thread::sleep(due.saturating_duration_since(Instant::now()));
                            let sent = due;
                            due += interval;
                            sent
                        }
                        None => Instant::now(),
                    };
                    let ok = match agent.get(target).call() {
                        Ok(mut response) => {
                            let good = response.status() == 200;
                            good && response.body_mut().read_to_vec().is_ok()
                        }
                        Err(_) => false,
                    };
                    seen.record(sent.elapsed().as_secs_f64() * 1000.0, ok);
                    i += clients;
                }
                (kind, seen)
            })
        })
        .collect();
    let mut by_kind = vec![Latencies::new(); kinds.len()];
    for worker in workers {
        let (kind, seen) = worker.join().map_err(|_| Error::internal("a load client panicked"))?;
        by_kind[kind].merge(&seen);
    }
    let elapsed = load_started.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    let samples = samples.lock().map(|s| s.clone()).unwrap_or_default();
    let endpoints = kinds
        .iter()
        .zip(&by_kind)
        .map(|(name, seen)| EndpointLoad {
            endpoint: match options.new_query_rate.filter(|_| name == &kinds[NEW_QUERY]) {
                Some(rate) => format!("{name}, {rate}/s"),
                None => name.to_string(),
            },
            requests: seen.requests(),
            errors: seen.errors,
            p50_ms: seen.percentile(50.0),
            p99_ms: seen.percentile(99.0),
            max_ms: seen.max_ms,
        })
        .collect::<Vec<_>>();
    let requests: usize = by_kind.iter().map(Latencies::requests).sum();
    Ok(Report {
        clients: options.clients,
        seconds: elapsed,
        throughput: requests as f64 / elapsed.max(1e-9),
        endpoints,
        rss_start_mib: samples.first().copied().unwrap_or(0.0),
        rss_10s_mib: samples.get(10).or(samples.last()).copied().unwrap_or(0.0),
        rss_end_mib: samples.last().copied().unwrap_or(0.0),
        rss_max_mib: samples.iter().copied().fold(0.0, f64::max),
        rss_every_10s_mib: samples.iter().step_by(10).copied().collect(),
        map_seconds,
        query_precision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_are_escaped_for_a_url() {
        assert_eq!(query_text("Q&A: 100% #1 a+b"), "Q%26A%3A+100%25+%231+a%2Bb");
    }

    #[test]
    fn histogram_percentiles_are_within_one_percent_of_the_exact_ones() {
        let mut latencies = Latencies::new();
        let samples: Vec<f64> = (1..=10_000).map(|i| 0.05 * f64::from(i)).collect();
        for &ms in &samples {
            latencies.record(ms, true);
        }
        latencies.record(3.0, false);
        assert_eq!(latencies.requests(), 10_001);
        assert_eq!(latencies.errors, 1);
        for (p, exact) in [(50.0, 250.0), (99.0, 495.0)] {
            let got = latencies.percentile(p);
            assert!((got - exact).abs() / exact < 0.01, "p{p}: {got} vs {exact}");
        }
        assert_eq!(latencies.max_ms, 500.0);
        assert!((latencies.percentile(100.0) - 500.0).abs() < 5.0);
    }
}
