//! The chat-completions client.

use crate::cache::{Cache, Entry};
use crate::{Error, Result};
use litnav_core::stop::{Ended, run_unless, sleep_unless};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Where and how to call the model. `Debug` hides the API key.
#[derive(Clone, PartialEq)]
pub struct Config {
    /// Base URL of the OpenAI-compatible API, up to and including `/v1`.
    pub base_url: String,
    /// Model name sent with every request.
    pub model: String,
    /// Bearer token, when the endpoint needs one.
    pub api_key: Option<String>,
    /// Time limit of one HTTP exchange.
    pub timeout: Duration,
    /// Further attempts after a failed exchange (network error, timeout, HTTP 429 or 5xx).
    pub retries: u32,
    /// Pause before the first retry; doubled before each later one.
    pub backoff: Duration,
    /// Requests in flight at once, at most.
    pub concurrency: usize,
    /// Sampling temperature (0: as deterministic as the server allows).
    pub temperature: f64,
    /// Seed sent to servers that accept one.
    pub seed: u64,
    /// Completion-token limit per request.
    pub max_tokens: u32,
    /// Never call the network; answer from the cache or fail.
    pub offline: bool,
    /// Response cache directory (`None`: no cache).
    pub cache_dir: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &litnav_core::secret::Hidden(self.api_key.as_deref()))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("concurrency", &self.concurrency)
            .field("temperature", &self.temperature)
            .field("seed", &self.seed)
            .field("max_tokens", &self.max_tokens)
            .field("offline", &self.offline)
            .field("cache_dir", &self.cache_dir)
            .finish()
    }
}

/// The local server `scripts/llm-server.sh` starts.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8717/v1";

impl Default for Config {
    fn default() -> Self {
        Config {
            base_url: DEFAULT_BASE_URL.into(),
            model: "default".into(),
            api_key: None,
            timeout: Duration::from_secs(120),
            retries: 1,
            backoff: Duration::from_millis(500),
            concurrency: 2,
            temperature: 0.0,
            seed: litnav_core::DEFAULT_SEED,
            max_tokens: 2048,
            offline: false,
            cache_dir: None,
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: "system".into(), content: content.into() }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: "user".into(), content: content.into() }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message { role: "assistant".into(), content: content.into() }
    }
}

/// Calls and tokens so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Requests answered by the endpoint.
    pub calls: u64,
    /// Requests answered from the cache.
    pub cache_hits: u64,
    /// Retries made.
    pub retries: u64,
    /// Prompt tokens the endpoint reported (cache hits included, as recorded).
    pub prompt_tokens: u64,
    /// Completion tokens reported.
    pub completion_tokens: u64,
}

/// Whether the caller asked to stop (a server job's cancel flag).
pub type StopCheck = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

/// A chat-completions client. Shareable across threads.
pub struct Client {
    config: Config,
    stop: Option<StopCheck>,
    agent: ureq::Agent,
    cache: Option<Cache>,
    schema_supported: AtomicBool,
    slots: Mutex<usize>,
    slot_freed: Condvar,
    calls: AtomicU64,
    cache_hits: AtomicU64,
    retries: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The assistant's text.
    pub content: String,
    /// Whether it came from the cache.
    pub cached: bool,
}

impl Client {
    /// A client for `config`.
    pub fn new(config: Config) -> Client {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .new_agent();
        let cache = config.cache_dir.clone().map(Cache::new);
        Client {
            stop: None,
            agent,
            cache,
            schema_supported: AtomicBool::new(true),
            slots: Mutex::new(config.concurrency.max(1)),
            slot_freed: Condvar::new(),
            calls: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            prompt_tokens: AtomicU64::new(0),
            completion_tokens: AtomicU64::new(0),
            config,
        }
    }

    /// This client, giving up on a request (its retries and its wait for an answer) within
    /// 50 ms of `stop` saying so, with [`Error::Stopped`]; an answer that arrives later is dropped.
    pub fn with_stop(mut self, stop: StopCheck) -> Client {
        self.stop = Some(stop);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Calls and tokens so far.
    pub fn usage(&self) -> Usage {
        Usage {
            calls: self.calls.load(Ordering::Relaxed),
            cache_hits: self.cache_hits.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            prompt_tokens: self.prompt_tokens.load(Ordering::Relaxed),
            completion_tokens: self.completion_tokens.load(Ordering::Relaxed),
        }
    }

    /// Ask the model. `schema` (a name and a JSON schema) is sent as `response_format` while the
    /// endpoint accepts it; an endpoint that rejects it is asked again without, once, and never
    /// sent one again. `max_tokens` lowers the configured completion limit for this request
    /// (small models that ramble stop sooner).
    pub fn chat(&self, messages: &[Message], schema: Option<(&str, &Value)>, max_tokens: Option<u32>) -> Result<Reply> {
        let use_schema = schema.filter(|_| self.schema_supported.load(Ordering::Relaxed));
        let limit = max_tokens.map_or(self.config.max_tokens, |m| m.min(self.config.max_tokens));
        let body = self.body(messages, use_schema, limit);
        match self.complete(&body) {
            Err(Error::Status { status: 400, body: text, .. })
                if use_schema.is_some() && text.contains("response_format") =>
            {
                self.schema_supported.store(false, Ordering::Relaxed);
                self.complete(&self.body(messages, None, limit))
            }
            other => other,
        }
    }

    fn body(&self, messages: &[Message], schema: Option<(&str, &Value)>, max_tokens: u32) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "seed": self.config.seed,
            "max_tokens": max_tokens,
        });
        if let Some((name, schema)) = schema {
            body["response_format"] =
                json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": true}});
        }
        body
    }

    /// The cache, then (unless offline) the endpoint with retries.
    fn complete(&self, body: &Value) -> Result<Reply> {
        let key = Cache::key(&json!({ "url": self.config.base_url, "request": body }));
        if let Some(entry) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            self.prompt_tokens.fetch_add(entry.prompt_tokens, Ordering::Relaxed);
            self.completion_tokens.fetch_add(entry.completion_tokens, Ordering::Relaxed);
            return Ok(Reply { content: entry.content, cached: true });
        }
        if self.config.offline {
            return Err(Error::Offline);
        }
        let entry = self.with_slot(|| self.post_with_retries(body))?;
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.prompt_tokens.fetch_add(entry.prompt_tokens, Ordering::Relaxed);
        self.completion_tokens.fetch_add(entry.completion_tokens, Ordering::Relaxed);
        if let Some(cache) = &self.cache {
            cache.put(&key, &entry)?;
        }
        Ok(Reply { content: entry.content, cached: false })
    }

    /// Run `work` holding one of the `concurrency` slots.
    fn with_slot<T>(&self, work: impl FnOnce() -> T) -> T {
        {
            let mut free = self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            while *free == 0 {
                free = self.slot_freed.wait(free).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            *free -= 1;
        }
        let result = work();
        *self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) += 1;
        self.slot_freed.notify_one();
        result
    }

    fn post_with_retries(&self, body: &Value) -> Result<Entry> {
        let mut pause = self.config.backoff;
        let mut attempt = 0;
        loop {
            match self.post(body) {
                Err(e) if attempt < self.config.retries && retryable(&e) => {
                    attempt += 1;
                    self.retries.fetch_add(1, Ordering::Relaxed);
                    self.sleep_unless_stopped(pause)?;
                    pause *= 2;
                }
                other => return other,
            }
        }
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|stop| stop())
    }

    /// Wait `pause` before a retry, unless the caller stops first ([`litnav_core::stop`]).
    fn sleep_unless_stopped(&self, pause: Duration) -> Result<()> {
        sleep_unless(pause, &|| self.stopped()).map_err(|_| Error::Stopped)
    }

    /// One exchange. With a stop check it runs on a thread of its own while this one watches the
    /// check ([`run_unless`]: a blocking exchange cannot be interrupted; an abandoned one ends by
    /// its timeout).
    fn post(&self, body: &Value) -> Result<Entry> {
        let exchange = Exchange {
            agent: self.agent.clone(),
            url: format!("{}/chat/completions", self.config.base_url.trim_end_matches('/')),
            key: self.config.api_key.clone(),
            body: body.to_string(),
            timeout: self.config.timeout,
        };
        if self.stop.is_none() {
            return exchange.send();
        }
        match run_unless(move || exchange.send(), &|| self.stopped()) {
            Ok(answer) => answer,
            Err(Ended::Stopped) => Err(Error::Stopped),
            Err(Ended::Lost) => Err(Error::Protocol {
                url: self.config.base_url.clone(),
                message: "the request's thread ended without an answer".into(),
            }),
        }
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("config", &self.config).field("stoppable", &self.stop.is_some()).finish()
    }
}

/// One chat-completions request, owned, so that it can be sent from another thread.
struct Exchange {
    agent: ureq::Agent,
    url: String,
    key: Option<String>,
    body: String,
    timeout: Duration,
}

impl Exchange {
    fn send(self) -> Result<Entry> {
        let Exchange { agent, url, key, body, timeout } = self;
        let mut request = agent.post(&url).header("Content-Type", "application/json");
        if let Some(key) = &key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let transport =
            |e: ureq::Error| Error::Transport { url: url.clone(), message: describe_transport(&e, timeout) };
        let mut response = request.send(body.as_bytes()).map_err(transport)?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().map_err(transport)?;
        if !(200..300).contains(&status) {
            let body: String = text.chars().take(300).collect();
            return Err(Error::Status { url, status, body });
        }
        parse_completion(&text).map_err(|message| Error::Protocol { url, message })
    }
}

impl Client {
    /// `work` on every item, as many at once as this client lets requests fly (`concurrency`
    /// workers), the results in the items' order. Once a result satisfies `stop`, items not yet
    /// begun are left undone (`None`): a dead endpoint fails a batch fast instead of waiting out
    /// every timeout. `done` hears how many items are finished after each one. `None` also marks
    /// an item whose work panicked.
    pub fn map_parallel<T: Sync, R: Send>(
        &self,
        items: &[T],
        work: impl Fn(&T) -> R + Sync,
        stop: impl Fn(&R) -> bool + Sync,
        done: &(dyn Fn(usize) + Sync),
    ) -> Vec<Option<R>> {
        let next = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        let stopped = AtomicBool::new(false);
        let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
        let workers = self.config.concurrency.clamp(1, items.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        if stopped.load(Ordering::Relaxed) {
                            break;
                        }
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)));
                        if let Ok(result) = result {
                            if stop(&result) {
                                stopped.store(true, Ordering::Relaxed);
                            }
                            if let Ok(mut slot) = slots[i].lock() {
                                *slot = Some(result);
                            }
                        }
                        done(finished.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                });
            }
        });
        slots.into_iter().map(|slot| slot.into_inner().ok().flatten()).collect()
    }
}

fn retryable(error: &Error) -> bool {
    match error {
        Error::Transport { .. } => true,
        Error::Status { status, .. } => *status == 429 || *status >= 500,
        _ => false,
    }
}

/// A transport failure in words, with what a person can do about the LLM endpoint.
fn describe_transport(error: &ureq::Error, timeout: Duration) -> String {
    let said = litnav_core::http::describe(error, timeout);
    if matches!(error, ureq::Error::Timeout(_)) {
        format!("{said} (LITNAV_LLM_TIMEOUT)")
    } else if litnav_core::http::is_unreachable(error) {
        format!("{said}; is the server running? (scripts/llm-server.sh start)")
    } else {
        said
    }
}

/// The assistant text and token counts of a chat-completions reply.
fn parse_completion(text: &str) -> std::result::Result<Entry, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let content = value["choices"][0]["message"]["content"]
        .as_str()
        .ok_or("no choices[0].message.content in the reply")?
        .to_string();
    Ok(Entry {
        content,
        prompt_tokens: value["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: value["usage"]["completion_tokens"].as_u64().unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_api_key() {
        let config = Config { api_key: Some("sk-do-not-log".into()), ..Config::default() };
        let shown = format!("{config:?}");
        assert!(!shown.contains("sk-do-not-log"), "{shown}");
        assert!(shown.contains("api_key: Some([hidden, 13 characters])"), "{shown}");
    }
}
