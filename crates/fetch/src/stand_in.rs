//! A stand-in for OpenAlex's API on loopback, for tests and benchmarks: litnav never reaches the
//! internet in either. It serves works in OpenAlex's JSON (built by the caller, e.g. from the
//! shared datasets' papers and citations) through the endpoints a fetch uses — `search` with
//! cursor paging, the `openalex:` OR filter, `cites:` sorted by `cited_by_count`, singletons with
//! 301 for merged works and 404 for unknown ones, `select`, `per_page` checked (1–100), the
//! `api_key` checked when one is required, rate-limit headers — and injects the faults a client
//! must survive: 429 with `Retry-After`, 500, a slow answer, a body cut short, an answer that is
//! not JSON. It binds 127.0.0.1 only and serves one connection per thread until dropped.

use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Faults to inject, each into the next so many list or search calls.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// The key every request must carry (`None`: any or none).
    pub key: Option<String>,
    /// Answer 429 with `Retry-After: 1`.
    pub rate_limited: usize,
    /// Answer 429 without `Retry-After`.
    pub rate_limited_silently: usize,
    /// Answer 429 with `Retry-After: 86400` (the daily allowance spent).
    pub allowance_spent: usize,
    /// Answer 503 with `Retry-After: 3600` (longer than a client should wait).
    pub unavailable_for_long: usize,
    /// Answer 500.
    pub server_errors: usize,
    /// Answer after this long.
    pub slow: Option<(usize, Duration)>,
    /// Promise more bytes than are sent, then close.
    pub cut: usize,
    /// Answer every request with an HTML page (not OpenAlex at all).
    pub not_openalex: bool,
    /// Answer 400 to every list or search call after this many (an interruption that lasts).
    pub fail_after: Option<usize>,
    /// Begin each page after the first with the last work of the page before (a work listed
    /// twice, as paging a changing index can).
    pub repeat_across_pages: bool,
}

/// One request the stand-in received: its path and query, as sent.
pub type Logged = String;

struct Index {
    works: Vec<Value>,
    by_id: HashMap<String, usize>,
    citers: HashMap<String, Vec<usize>>,
    moved: HashMap<String, String>,
    words: Vec<HashMap<String, usize>>,
}

struct Shared {
    index: Index,
    faults: Mutex<Faults>,
    log: Mutex<Vec<Logged>>,
    lists: Mutex<usize>,
    stop: AtomicBool,
}

/// The running stand-in.
pub struct StandIn {
    url: String,
    shared: Arc<Shared>,
}

impl StandIn {
    /// Serve `works` (OpenAlex work records with `id` and `referenced_works`); `moved` maps merged
    /// ids to the ids of the works they were merged into.
    pub fn start(works: Vec<Value>, moved: BTreeMap<String, String>) -> std::io::Result<StandIn> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}", listener.local_addr()?);
        let shared = Arc::new(Shared {
            index: Index::new(works, moved),
            faults: Mutex::new(Faults::default()),
            log: Mutex::new(Vec::new()),
            lists: Mutex::new(0),
            stop: AtomicBool::new(false),
        });
        let serving = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if serving.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = Arc::clone(&serving);
                std::thread::spawn(move || {
                    let _ = serve(&shared, stream);
                });
            }
        });
        Ok(StandIn { url, shared })
    }

    /// The API's base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Set the faults to inject from now on.
    pub fn inject(&self, faults: Faults) {
        if let Ok(mut slot) = self.shared.faults.lock() {
            *slot = faults;
        }
        if let Ok(mut lists) = self.shared.lists.lock() {
            *lists = 0;
        }
    }

    /// Every request received so far.
    pub fn log(&self) -> Vec<Logged> {
        self.shared.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accepting thread so that it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

impl Index {
    fn new(works: Vec<Value>, moved: BTreeMap<String, String>) -> Index {
        let short = |v: &Value| v.as_str().map(|s| s.rsplit('/').next().unwrap_or(s).to_string()).unwrap_or_default();
        let by_id = works.iter().enumerate().map(|(i, w)| (short(&w["id"]), i)).collect();
        let mut citers: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, work) in works.iter().enumerate() {
            for cited in work["referenced_works"].as_array().into_iter().flatten() {
                let cited = short(cited);
                let cited = moved.get(&cited).cloned().unwrap_or(cited);
                citers.entry(cited).or_default().push(i);
            }
        }
        let words = works.iter().map(|w| word_counts(&searchable(w))).collect();
        Index { works, by_id, citers, moved: moved.into_iter().collect(), words }
    }

    /// Works matching every word of `text`, best first (title words count twice).
    fn search(&self, text: &str) -> Vec<usize> {
        let terms: Vec<String> = word_counts(text).into_keys().collect();
        let mut scored: Vec<(usize, usize)> = (0..self.works.len())
            .filter_map(|i| {
                let counts = &self.words[i];
                let hits: Vec<usize> = terms.iter().map(|t| counts.get(t).copied().unwrap_or(0)).collect();
                hits.iter().all(|&h| h > 0).then(|| (hits.iter().sum(), i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, i)| i).collect()
    }

    fn cited_by(&self, i: usize) -> u64 {
        self.works[i]["cited_by_count"].as_u64().unwrap_or(0)
    }
}

fn searchable(work: &Value) -> String {
    let title = work["title"].as_str().unwrap_or_default();
    let mut words: Vec<(u64, &str)> = Vec::new();
    if let Some(Value::Object(index)) = work.get("abstract_inverted_index") {
        for (word, positions) in index {
            for p in positions.as_array().into_iter().flatten() {
                words.push((p.as_u64().unwrap_or(0), word.as_str()));
            }
        }
    }
    words.sort();
    let abstract_text: Vec<&str> = words.into_iter().map(|(_, w)| w).collect();
    format!("{title} {title} {}", abstract_text.join(" "))
}

fn word_counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// An answer: status, extra headers, body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    cut: bool,
}

impl Reply {
    fn json(status: u16, body: Value) -> Reply {
        Reply { status, headers: Vec::new(), body: body.to_string(), cut: false }
    }

    fn error(status: u16, error: &str, message: &str) -> Reply {
        Reply::json(status, json!({"error": error, "message": message}))
    }

    /// This reply with a `Retry-After` of `seconds`.
    fn retry_after(mut self, seconds: &str) -> Reply {
        self.headers.push(("Retry-After".into(), seconds.into()));
        self
    }
}

fn serve(shared: &Shared, mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    if let Ok(mut log) = shared.log.lock() {
        log.push(target.clone());
    }
    let reply = answer(shared, &target);
    let reason = match reply.status {
        200 => "OK",
        301 => "Moved Permanently",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let length = if reply.cut { reply.body.len() * 2 } else { reply.body.len() };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n",
        reply.status
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    let body = if reply.cut { &reply.body[..reply.body.len() / 2] } else { reply.body.as_str() };
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// Take one from a fault's count.
fn take(count: &mut usize) -> bool {
    if *count > 0 {
        *count -= 1;
        true
    } else {
        false
    }
}

fn answer(shared: &Shared, target: &str) -> Reply {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let params: HashMap<String, String> =
        query.split('&').filter_map(|pair| pair.split_once('=')).map(|(k, v)| (decode(k), decode(v))).collect();
    let mut faults = match shared.faults.lock() {
        Ok(faults) => faults,
        Err(poisoned) => poisoned.into_inner(),
    };
    if faults.not_openalex {
        return Reply {
            status: 200,
            headers: Vec::new(),
            body: "<html><body>Welcome</body></html>".into(),
            cut: false,
        };
    }
    if let Some(key) = &faults.key
        && params.get("api_key") != Some(key)
    {
        return Reply::error(401, "Unauthorized", "Invalid or missing API key");
    }
    let single = path.strip_prefix("/works/");
    if single.is_none() {
        let seen = shared.lists.lock().map(|mut n| {
            *n += 1;
            *n
        });
        if let (Some(after), Ok(seen)) = (faults.fail_after, seen)
            && seen > after
        {
            return Reply::error(400, "Invalid query parameters error", "the stand-in was told to fail from here on");
        }
        if take(&mut faults.rate_limited) {
            return Reply::error(429, "Too Many Requests", "Rate limit exceeded").retry_after("1");
        }
        if take(&mut faults.rate_limited_silently) {
            return Reply::error(429, "Too Many Requests", "Rate limit exceeded");
        }
        if take(&mut faults.allowance_spent) {
            return Reply::error(429, "Too Many Requests", "Daily budget exceeded").retry_after("86400");
        }
        if take(&mut faults.unavailable_for_long) {
            return Reply::error(503, "Service Unavailable", "down for maintenance").retry_after("3600");
        }
        if take(&mut faults.server_errors) {
            return Reply::error(500, "Internal Server Error", "try again");
        }
    }
    // One fault per request: a slow answer arrives whole.
    let slow = match &mut faults.slow {
        Some((count, delay)) if single.is_none() && *count > 0 => {
            *count -= 1;
            Some(*delay)
        }
        _ => None,
    };
    let cut = single.is_none() && slow.is_none() && take(&mut faults.cut);
    let repeat = faults.repeat_across_pages;
    drop(faults);
    if let Some(delay) = slow {
        std::thread::sleep(delay);
    }
    let index = &shared.index;
    let select = params.get("select").map(|s| s.split(',').map(str::to_string).collect::<Vec<_>>());
    let shape = |i: usize| -> Value {
        let work = &index.works[i];
        match (&select, work) {
            (Some(fields), Value::Object(all)) => Value::Object(
                fields.iter().filter_map(|f| all.get(f).map(|v| (f.clone(), v.clone()))).collect::<Map<_, _>>(),
            ),
            _ => work.clone(),
        }
    };
    let mut reply = match single {
        Some(id) => match (index.by_id.get(id), index.moved.get(id)) {
            (Some(&i), _) => Reply::json(200, shape(i)),
            (None, Some(new)) => {
                let mut reply = Reply::json(301, json!({}));
                reply.headers.push(("Location".into(), format!("/works/{new}")));
                reply
            }
            (None, None) => Reply::error(404, "Not Found", &format!("Work {id} not found")),
        },
        None if path == "/works" => list(index, &params, &shape, repeat),
        None => Reply::error(404, "Not Found", "no such endpoint"),
    };
    reply.cut = cut;
    reply.headers.push(("X-RateLimit-Limit".into(), "100000".into()));
    let used = shared.log.lock().map(|l| l.len()).unwrap_or(0);
    reply.headers.push(("X-RateLimit-Remaining".into(), (100_000usize.saturating_sub(used * 10)).to_string()));
    reply
}

fn list(index: &Index, params: &HashMap<String, String>, shape: &dyn Fn(usize) -> Value, repeat: bool) -> Reply {
    let per_page: usize = match params.get("per_page").map(|p| p.parse::<usize>()) {
        None => 25,
        Some(Ok(n)) if (1..=100).contains(&n) => n,
        Some(_) => return Reply::error(400, "Invalid query parameters error", "per_page must be between 1 and 100"),
    };
    let mut found: Vec<usize> = match (params.get("search"), params.get("filter")) {
        (Some(text), None) => index.search(text),
        (None, Some(filter)) => match filter.split_once(':') {
            Some(("openalex", ids)) => ids.split('|').filter_map(|id| index.by_id.get(id).copied()).collect(),
            Some(("cites", id)) => index.citers.get(id).cloned().unwrap_or_default(),
            _ => return Reply::error(400, "Invalid query parameters error", &format!("unknown filter {filter}")),
        },
        _ => return Reply::error(400, "Invalid query parameters error", "give search or filter"),
    };
    match params.get("sort").map(String::as_str) {
        Some("cited_by_count:desc") => found.sort_by(|a, b| index.cited_by(*b).cmp(&index.cited_by(*a)).then(a.cmp(b))),
        Some(other) => return Reply::error(400, "Invalid query parameters error", &format!("cannot sort by {other}")),
        None => {}
    }
    let start = match params.get("cursor").map(String::as_str) {
        None | Some("*") => 0,
        Some(cursor) => match cursor.strip_prefix("after-").and_then(|n| n.parse().ok()) {
            Some(n) => n,
            None => return Reply::error(400, "Invalid query parameters error", "bad cursor"),
        },
    };
    let end = (start + per_page).min(found.len());
    let results: Vec<Value> = found.get(start..end).unwrap_or_default().iter().map(|&i| shape(i)).collect();
    let resume = if repeat && end - start > 1 { end - 1 } else { end };
    let next = (params.contains_key("cursor") && end < found.len()).then(|| format!("after-{resume}"));
    Reply::json(
        200,
        json!({"meta": {"count": found.len(), "per_page": per_page, "next_cursor": next}, "results": results}),
    )
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(&text[i + 1..i + 3], 16) {
                    Ok(byte) => out.push(byte),
                    Err(_) => out.extend_from_slice(&bytes[i..i + 3]),
                }
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Give a few works, by their number, the shapes of OpenAlex's real answers that a client must
/// take in its stride: no title at all (1 in 97), a title with HTML markup and an entity (1 in
/// 89), front matter (`paratext`, 1 in 83), a correction notice (`erratum`, 1 in 79), a
/// retracted work (1 in 73); every work says its language and whether it is paratext or
/// retracted, as the documented work object does.
pub fn real_shapes(works: &mut [Value]) {
    for work in works.iter_mut() {
        let number = work["id"].as_str().and_then(|id| id.rsplit('W').next()).and_then(|n| n.parse::<u64>().ok());
        let number = number.unwrap_or_default();
        work["language"] = json!("en");
        work["is_paratext"] = json!(false);
        work["is_retracted"] = json!(false);
        if number % 97 == 3 {
            work["title"] = Value::Null;
            work["display_name"] = Value::Null;
        } else if number % 89 == 5
            && let Some(title) = work["title"].as_str()
        {
            let (first, rest) = title.split_once(' ').unwrap_or((title, ""));
            let marked = format!("<i>{first}</i> {} &amp; <sub>2</sub>", rest.replace('&', "&amp;"));
            work["title"] = json!(marked);
            work["display_name"] = json!(marked);
        }
        if number % 83 == 7 {
            work["type"] = json!("paratext");
            work["is_paratext"] = json!(true);
        } else if number % 79 == 11 {
            work["type"] = json!("erratum");
        }
        if number % 73 == 13 {
            work["is_retracted"] = json!(true);
        }
    }
}

/// A paper of litnav's JSONL shape (`id`, `title`, `abstract`, `year`, `venue`, `authors`) as an
/// OpenAlex work numbered `number`, citing `references` (already OpenAlex ids).
pub fn work_from_paper(paper: &Value, number: u64, references: &[String]) -> Value {
    let mut inverted: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    if let Some(text) = paper["abstract"].as_str() {
        for (position, word) in text.split_whitespace().enumerate() {
            inverted.entry(word.to_string()).or_default().push(position);
        }
    }
    let authors: Vec<Value> = paper["authors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| json!({"author": {"display_name": name}}))
        .collect();
    json!({
        "id": format!("https://openalex.org/W{number}"),
        "doi": Value::Null,
        "title": paper["title"],
        "display_name": paper["title"],
        "publication_year": paper["year"],
        "publication_date": paper["year"].as_i64().map(|y| format!("{y}-01-01")),
        "abstract_inverted_index": if inverted.is_empty() { Value::Null } else { json!(inverted) },
        "authorships": authors,
        "primary_location": {"source": paper["venue"].as_str().map(|v| json!({"display_name": v}))},
        "cited_by_count": 0,
        "referenced_works": references.iter().map(|r| format!("https://openalex.org/{r}")).collect::<Vec<_>>(),
        "type": "article",
        "ids": {"openalex": format!("https://openalex.org/W{number}")},
    })
}

/// Works from papers (litnav's JSONL shape) and `citing_id,cited_id` edges: ids numbered from
/// `first`, `cited_by_count` counted within the set. Returns the works and the paper id → work id map.
pub fn works_from_papers(
    papers: &[Value],
    edges: &[(String, String)],
    first: u64,
) -> (Vec<Value>, HashMap<String, String>) {
    let ids: HashMap<String, String> = papers
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p["id"].as_str().map(|id| (id.to_string(), format!("W{}", first + i as u64))))
        .collect();
    let mut references: HashMap<&str, Vec<String>> = HashMap::new();
    let mut cited: HashMap<&str, u64> = HashMap::new();
    for (citing, target) in edges {
        if let (Some(_), Some(to)) = (ids.get(citing), ids.get(target)) {
            references.entry(citing.as_str()).or_default().push(to.clone());
            *cited.entry(target.as_str()).or_insert(0) += 1;
        }
    }
    let works = papers
        .iter()
        .enumerate()
        .map(|(i, paper)| {
            let id = paper["id"].as_str().unwrap_or_default();
            let mut work =
                work_from_paper(paper, first + i as u64, references.get(id).map_or(&[][..], |r| r.as_slice()));
            work["cited_by_count"] = json!(cited.get(id).copied().unwrap_or(0));
            work
        })
        .collect();
    (works, ids)
}

/// The shared datasets' real citation networks — CiteSeer (abstracts, 4,277 citations) and AAN
/// (18,041 ACL papers, 82,898 citations) — as OpenAlex works for the stand-in: CiteSeer numbered
/// from W1000000, AAN from W2000000. Every 50th cited work is cited under an old id (its number
/// plus 7000000) that the stand-in redirects, as OpenAlex does for merged works; a few works take
/// the other shapes OpenAlex's real answers have ([`real_shapes`]). Returns the works and the
/// merged ids.
pub fn dataset_works(datasets: &std::path::Path) -> std::io::Result<(Vec<Value>, BTreeMap<String, String>)> {
    let mut works = Vec::new();
    for (name, first) in [("citeseer", 1_000_000u64), ("aan", 2_000_000)] {
        let dir = datasets.join("citations").join(name);
        let papers: Vec<Value> = std::fs::read_to_string(dir.join("papers.jsonl"))?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
            .collect::<std::io::Result<_>>()?;
        let edges: Vec<(String, String)> = std::fs::read_to_string(dir.join("citations.csv"))?
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(',').map(|(a, b)| (a.trim().to_string(), b.trim().to_string())))
            .collect();
        works.extend(works_from_papers(&papers, &edges, first).0);
    }
    real_shapes(&mut works);
    let mut moved = BTreeMap::new();
    for work in &mut works {
        let Some(references) = work["referenced_works"].as_array_mut() else { continue };
        for reference in references.iter_mut() {
            let Some(number) =
                reference.as_str().and_then(|r| r.rsplit('W').next()).and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            if number % 50 == 0 {
                moved.insert(format!("W{}", number + 7_000_000), format!("W{number}"));
                *reference = json!(format!("https://openalex.org/W{}", number + 7_000_000));
            }
        }
    }
    Ok((works, moved))
}
