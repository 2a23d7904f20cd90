//! A polite HTTP client for scholarly APIs: requests paced below the source's rate, every answer
//! kept in an on-disk cache keyed by the request (never by the API key, which is added only as the
//! request leaves), redirects handed back to the caller (a merged work answers 301), and counts of
//! what was asked, answered from the cache, and read.
//!
//! Retries: a 429, a 403 that does not name the key (a rate limit), a 5xx, a cut answer and a
//! transport failure are tried again, up to [`HttpConfig::attempts`] in all. Each wait is the
//! answer's `Retry-After` (seconds or an HTTP date) when it gives one, else the exponential backoff
//! (1 s, 2 s, 4 s, …), and never longer than [`HttpConfig::longest_wait`] — except that a 429
//! whose `Retry-After` is longer than that (OpenAlex's daily allowance, renewed at midnight) fails
//! at once, saying when it renews. A 401, and a 403 naming the key, fail at once, saying where the
//! key came from. Every wait — the pacing, a backoff, an answer still on its way — looks every 50 ms
//! whether the caller asked to stop.
//!
//! Redirects are never followed by the client (a merged work's new id is asked for at the same
//! API), and a host resolving to a non-public address is refused before connecting unless the
//! owner named it ([`crate::destinations`]).

use crate::Observer;
use crate::destinations::{GuardedResolver, proxy_host, refused_in};
use crate::error::{Error, Result};
use litnav_core::stop::{Ended, run_unless, sleep_unless};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use ureq::unversioned::transport::DefaultConnector;

/// The kinds of call a source prices differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A full-text search (OpenAlex: ten times a list call).
    Search,
    /// A list or filter call.
    List,
    /// One entity by id (OpenAlex: free).
    Singleton,
}

/// An API key and where it came from, so that an error can say which key was refused without
/// showing it. `Debug` never prints the key.
#[derive(Clone, PartialEq)]
pub struct ApiKey {
    /// The key.
    pub value: String,
    /// Where it came from, in words ("from the environment variable OPENALEX_API_KEY").
    pub origin: String,
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey({} characters, {})", self.value.chars().count(), self.origin)
    }
}

/// How the client behaves.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The longest one exchange may take.
    pub timeout: Duration,
    /// Attempts per request, the first included.
    pub attempts: u32,
    /// The first backoff; each further one doubles it.
    pub backoff: Duration,
    /// The longest wait before a retry, backoff or `Retry-After`; a 429 asking for longer fails
    /// the request with its time.
    pub longest_wait: Duration,
    /// Requests per second at most.
    pub rate: f64,
    /// Where answers are kept (`None`: not kept).
    pub cache_dir: Option<PathBuf>,
    /// The host the owner named (`--api-url`), which may resolve to any address; every other host
    /// must resolve to public addresses only ([`crate::destinations`]).
    pub trusted_host: Option<String>,
    /// Calls this client may still send, shared with whoever granted them (a server's daily
    /// budget per caller); `None`: unbounded. Answers from the cache cost nothing.
    pub allowance: Option<std::sync::Arc<Allowance>>,
}

/// A number of calls to a source that several clients draw from.
#[derive(Debug)]
pub struct Allowance {
    left: std::sync::atomic::AtomicUsize,
}

impl Allowance {
    /// An allowance of `calls` calls.
    pub fn new(calls: usize) -> Allowance {
        Allowance { left: std::sync::atomic::AtomicUsize::new(calls) }
    }

    /// Calls left.
    pub fn left(&self) -> usize {
        self.left.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Take one call; `false` when none is left.
    pub fn take(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.left.fetch_update(SeqCst, SeqCst, |left| left.checked_sub(1)).is_ok()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            timeout: Duration::from_secs(60),
            attempts: 5,
            backoff: Duration::from_secs(1),
            longest_wait: Duration::from_secs(120),
            rate: 10.0,
            cache_dir: None,
            trusted_host: None,
            allowance: None,
        }
    }
}

/// What was asked and read, for the report.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Calls {
    /// Search calls sent.
    pub search: usize,
    /// List calls sent.
    pub list: usize,
    /// Singleton calls sent.
    pub singleton: usize,
    /// Requests answered from the cache, without a call.
    pub cached: usize,
    /// Attempts repeated after a transient failure.
    pub retries: usize,
    /// Bytes of answers read from the network.
    pub bytes: u64,
    /// The source's last word on what is left of the allowance (`X-RateLimit-Remaining`).
    pub remaining: Option<String>,
    /// The source's daily limit (`X-RateLimit-Limit`).
    pub limit: Option<String>,
}

/// An answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status")]
pub enum Answer {
    /// 200, with its body.
    #[serde(rename = "200")]
    Body {
        /// The body.
        body: String,
    },
    /// A redirect (301: a merged entity) to this location.
    #[serde(rename = "301")]
    Moved {
        /// Where the entity is now.
        location: String,
    },
    /// 404: the entity does not exist.
    #[serde(rename = "404")]
    Missing,
}

/// The client.
pub struct Http {
    agent: ureq::Agent,
    config: HttpConfig,
    key: Option<ApiKey>,
    source_name: &'static str,
    last_call: Mutex<Option<Instant>>,
    calls: Mutex<Calls>,
}

/// What one attempt came to.
enum Attempt {
    Done(Answer),
    /// Worth another attempt, after at least this long.
    Transient(String, Option<Duration>),
}

impl Http {
    /// A client for `source_name` (used in messages) with `key` added to every request.
    pub fn new(source_name: &'static str, config: HttpConfig, key: Option<ApiKey>) -> Http {
        // The environment's proxy, read once: the agent goes through it, and the guard lets its
        // host through (a proxy on the owner's own network is the owner's choice).
        let proxy = ureq::Proxy::try_from_env();
        let trusted = config.trusted_host.iter().cloned().chain(proxy.as_ref().map(proxy_host)).collect();
        let agent_config = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(proxy)
            .user_agent(concat!("litnav/", env!("CARGO_PKG_VERSION")))
            .build();
        let resolver = GuardedResolver::new(trusted);
        let agent = ureq::Agent::with_parts(agent_config, DefaultConnector::new(), resolver);
        Http { agent, config, key, source_name, last_call: Mutex::new(None), calls: Mutex::new(Calls::default()) }
    }

    /// What was asked and read so far.
    pub fn calls(&self) -> Calls {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// `url`'s answer: from the cache when it holds it, else from the network — after `check`
    /// accepted a body (an answer `check` refuses is not kept, so the next run asks again). Every
    /// wait ends early, with [`Error::Cancelled`], when `observer` says the user asked to stop.
    pub fn get(
        &self,
        url: &str,
        kind: CallKind,
        check: &dyn Fn(&str) -> Result<()>,
        observer: &dyn Observer,
    ) -> Result<Answer> {
        if let Some(answer) = self.cached(url)? {
            self.count(|c| c.cached += 1);
            return Ok(answer);
        }
        if let Some(allowance) = &self.config.allowance
            && !allowance.take()
        {
            return Err(Error::Budget(format!(
                "{url}: the calls this fetch may make are spent (the server's daily budget of {} calls)",
                self.source_name
            )));
        }
        self.count(|c| match kind {
            CallKind::Search => c.search += 1,
            CallKind::List => c.list += 1,
            CallKind::Singleton => c.singleton += 1,
        });
        let mut last = String::new();
        for attempt in 0..self.config.attempts.max(1) {
            if attempt > 0 {
                self.count(|c| c.retries += 1);
            }
            match self.attempt(url, observer)? {
                Attempt::Done(answer) => {
                    if let Answer::Body { body } = &answer {
                        check(body)?;
                    }
                    self.keep(url, &answer)?;
                    return Ok(answer);
                }
                Attempt::Transient(message, wait) => {
                    last = message;
                    if attempt + 1 < self.config.attempts {
                        let backoff = self.config.backoff.saturating_mul(2u32.saturating_pow(attempt));
                        let pause = wait.unwrap_or(backoff).min(self.config.longest_wait);
                        sleep_unless_stopped(pause, observer, "waiting to retry")?;
                    }
                }
            }
        }
        Err(Error::Unavailable {
            url: url.to_string(),
            message: format!("{last} (gave up after {} attempts)", self.config.attempts.max(1)),
        })
    }

    fn attempt(&self, url: &str, observer: &dyn Observer) -> Result<Attempt> {
        self.pace(observer)?;
        let (agent, owned_url) = (self.agent.clone(), url.to_string());
        let key = self.key.as_ref().map(|k| k.value.clone());
        let reply = match run_unless_stopped(move || exchange(&agent, &owned_url, key.as_deref()), observer)? {
            Ok(reply) => reply,
            Err(error) => {
                if let Some(refused) = refused_in(&error) {
                    return Err(Error::Destination { url: url.to_string(), refused: refused.clone() });
                }
                return Ok(Attempt::Transient(
                    self.redact(litnav_core::http::describe(&error, self.config.timeout)),
                    None,
                ));
            }
        };
        let Reply { status, retry_after, remaining, limit, location, body } = reply;
        self.count(|c| {
            c.remaining = remaining.or(c.remaining.take());
            c.limit = limit.or(c.limit.take());
        });
        let body = match body {
            Ok(body) => body,
            Err(error) => {
                return Ok(Attempt::Transient(self.redact(format!("the answer was cut off ({error})")), None));
            }
        };
        self.count(|c| c.bytes += body.len() as u64);
        let said = || self.redact(said(&body));
        Ok(match status {
            200 => Attempt::Done(Answer::Body { body }),
            301 | 302 | 307 | 308 => match location {
                Some(location) => Attempt::Done(Answer::Moved { location }),
                None => {
                    return Err(Error::Protocol {
                        url: url.to_string(),
                        message: format!("{status} without a Location to follow"),
                    });
                }
            },
            404 => Attempt::Done(Answer::Missing),
            401 => return Err(self.key_refused(status, said())),
            403 if said().to_lowercase().contains("key") => return Err(self.key_refused(status, said())),
            403 => Attempt::Transient(format!("403: {} (the rate limit; slowing down)", said()), retry_after),
            429 => match retry_after {
                Some(wait) if wait > self.config.longest_wait => {
                    return Err(Error::Refused {
                        url: url.to_string(),
                        status,
                        message: format!(
                            "{} (the daily allowance is spent, renewed in {:.0} minutes; the answers fetched so far are kept and a later run resumes from them)",
                            said(),
                            wait.as_secs_f64() / 60.0
                        ),
                    });
                }
                wait => Attempt::Transient(format!("429: {} (too many requests; slowing down)", said()), wait),
            },
            500..=599 => Attempt::Transient(format!("{status}: {}", said()), retry_after),
            _ => return Err(Error::Refused { url: url.to_string(), status, message: said() }),
        })
    }

    /// `message` with the key, should a transport error quote the request, masked.
    fn redact(&self, message: String) -> String {
        match &self.key {
            Some(key) if !key.value.is_empty() => message.replace(&key.value, "[key]"),
            _ => message,
        }
    }

    fn key_refused(&self, status: u16, message: String) -> Error {
        let origin = self.key.as_ref().map_or_else(|| "(none was given)".to_string(), |k| k.origin.clone());
        Error::Key { source_name: self.source_name, origin, status, message }
    }

    /// Wait until the next call keeps below the rate.
    fn pace(&self, observer: &dyn Observer) -> Result<()> {
        let Ok(mut last) = self.last_call.lock() else { return Ok(()) };
        let gap = Duration::from_secs_f64(1.0 / self.config.rate.max(0.001));
        if let Some(previous) = *last {
            let since = previous.elapsed();
            if since < gap {
                sleep_unless_stopped(gap - since, observer, "pacing requests")?;
            }
        }
        *last = Some(Instant::now());
        Ok(())
    }

    fn count(&self, change: impl FnOnce(&mut Calls)) {
        if let Ok(mut calls) = self.calls.lock() {
            change(&mut calls);
        }
    }

    fn cache_path(&self, url: &str) -> Option<PathBuf> {
        let dir = self.config.cache_dir.as_ref()?;
        let digest = sha1_smol::Sha1::from(url.as_bytes()).digest().to_string();
        Some(dir.join(&digest[..2]).join(format!("{digest}.json")))
    }

    fn cached(&self, url: &str) -> Result<Option<Answer>> {
        let Some(path) = self.cache_path(url) else { return Ok(None) };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        // A damaged entry is asked again rather than trusted.
        let entry: Option<CacheEntry> = serde_json::from_str(&text).ok();
        Ok(entry.filter(|e| e.url == url).map(|e| e.answer))
    }

    fn keep(&self, url: &str, answer: &Answer) -> Result<()> {
        let Some(path) = self.cache_path(url) else { return Ok(()) };
        let entry = CacheEntry { url: url.to_string(), answer: answer.clone() };
        let text = serde_json::to_string(&entry).map_err(|e| Error::io(&path, e))?;
        write_atomically(&path, text.as_bytes())
    }
}

/// One cached answer, with the request it answers (so a hash collision is never served).
#[derive(Serialize, Deserialize)]
struct CacheEntry {
    url: String,
    answer: Answer,
}

/// Write `bytes` to `path` whole or not at all ([`litnav_core::files::write_atomically`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    litnav_core::files::write_atomically(path, bytes).map_err(|e| Error::io(path, e))
}

/// How long a `Retry-After` header asks to wait, read at `now`: a number of seconds or an HTTP
/// date (RFC 9110, section 10.2.3; a date already past asks for no wait). `None` when it is neither.
fn retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(1e9)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// What one exchange brought back: the status, the headers the client reads, and the body (or
/// why it could not be read whole).
struct Reply {
    status: u16,
    retry_after: Option<Duration>,
    remaining: Option<String>,
    limit: Option<String>,
    location: Option<String>,
    body: std::result::Result<String, String>,
}

/// One GET of `url` (with `key` added as it leaves).
fn exchange(agent: &ureq::Agent, url: &str, key: Option<&str>) -> std::result::Result<Reply, ureq::Error> {
    let mut request = agent.get(url);
    if let Some(key) = key {
        request = request.query("api_key", key);
    }
    let mut response = request.call()?;
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let (retry_after, remaining, limit, location) = (
        header("retry-after").and_then(|v| retry_after(&v, std::time::SystemTime::now())),
        header("x-ratelimit-remaining"),
        header("x-ratelimit-limit"),
        header("location"),
    );
    let body = response.body_mut().with_config().limit(256 << 20).read_to_string().map_err(|e| e.to_string());
    Ok(Reply { status: response.status().as_u16(), retry_after, remaining, limit, location, body })
}

/// `work` on a thread of its own while this one looks every 50 ms whether the user asked to
/// stop ([`litnav_core::stop::run_unless`]): a stopped exchange is left to end by its timeout,
/// its answer dropped.
fn run_unless_stopped<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
    observer: &dyn Observer,
) -> Result<T> {
    run_unless(work, &|| observer.cancelled()).map_err(|ended| match ended {
        Ended::Stopped => Error::Cancelled("while waiting for an answer".into()),
        Ended::Lost => Error::Cancelled("the exchange's thread ended without an answer".into()),
    })
}

/// Sleep `pause`, ending early with [`Error::Cancelled`] when `observer` says the user asked to stop.
fn sleep_unless_stopped(pause: Duration, observer: &dyn Observer, what: &str) -> Result<()> {
    sleep_unless(pause, &|| observer.cancelled()).map_err(|_| Error::Cancelled(format!("while {what}")))
}

/// What an error body says: its `message` (and `error`) when it is JSON, else its first words.
fn said(body: &str) -> String {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        let part = |k: &str| value.get(k).and_then(|v| v.as_str()).map(str::to_string);
        match (part("error"), part("message")) {
            (Some(error), Some(message)) => return format!("{error}: {message}"),
            (Some(one), None) | (None, Some(one)) => return one,
            _ => {}
        }
    }
    let text: String = body.chars().take(200).collect();
    if text.trim().is_empty() { "(no message)".to_string() } else { text.trim().to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    #[test]
    fn retry_after_is_read_as_seconds_or_as_an_http_date() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(retry_after(" 1.5 ", now), Some(Duration::from_millis(1500)));
        assert_eq!(retry_after("Sun, 06 Nov 1994 08:51:37 GMT", now), Some(Duration::from_secs(120)));
        assert_eq!(retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), Some(Duration::ZERO), "a past date");
        assert_eq!(retry_after("-3", now), None);
        assert_eq!(retry_after("NaN", now), None);
        assert_eq!(retry_after("soon", now), None);
        assert!(retry_after("1e300", SystemTime::now()).is_some(), "a huge number is capped, not a panic");
    }
}
