//! A deterministic stand-in for an OpenAI-compatible endpoint, for tests of what litnav does with
//! answers (parsing, validation, repair, retries, timeouts) without a model. It listens on a free
//! local port and answers each chat-completion request as a rule decides from the request's order
//! and body. The capabilities themselves are also tested against a real llama.cpp server.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the fake endpoint does with one request.
#[derive(Debug, Clone)]
pub enum Behaviour {
    /// 200 with a chat completion whose message content is this text.
    Answer(String),
    /// This HTTP status and body.
    Status(u16, String),
    /// Read the request, answer nothing for this long, then close the connection.
    Hang(Duration),
}

/// A running fake endpoint (it serves until the process ends).
pub struct FakeServer {
    /// Base URL to give a [`crate::Config`] (`http://127.0.0.1:PORT/v1`).
    pub url: String,
    /// Every request body received, in arrival order.
    pub requests: Arc<Mutex<Vec<Value>>>,
}

type Rule = dyn Fn(usize, &Value) -> Behaviour + Send + Sync;

/// Serve `script` in order, one behaviour per request; the last one repeats.
pub fn serve(script: Vec<Behaviour>) -> std::io::Result<FakeServer> {
    serve_with(move |i, _| {
        script.get(i.min(script.len().saturating_sub(1))).cloned().unwrap_or(Behaviour::Status(500, "empty".into()))
    })
}

/// Serve each request as `rule(index, request body)` decides: for callers that send requests
/// concurrently, where arrival order is not fixed but the content is.
pub fn serve_with(rule: impl Fn(usize, &Value) -> Behaviour + Send + Sync + 'static) -> std::io::Result<FakeServer> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/v1", listener.local_addr()?);
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&requests);
    let rule: Arc<Rule> = Arc::new(rule);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let Some(body) = read_request(&stream) else { continue };
            let index = {
                let Ok(mut seen) = seen.lock() else { return };
                seen.push(body.clone());
                seen.len() - 1
            };
            let rule = Arc::clone(&rule);
            // One thread per connection: a hanging answer must not hold up concurrent callers.
            std::thread::spawn(move || respond(stream, rule(index, &body)));
        }
    });
    Ok(FakeServer { url, requests })
}

/// The JSON body of one HTTP request (`None` when it is not readable JSON).
fn read_request(stream: &TcpStream) -> Option<Value> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn respond(mut stream: TcpStream, behaviour: Behaviour) {
    let (status, text) = match behaviour {
        Behaviour::Answer(content) => (
            200,
            json!({"choices": [{"message": {"role": "assistant", "content": content}}],
                   "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
            .to_string(),
        ),
        Behaviour::Status(status, text) => (status, text),
        Behaviour::Hang(pause) => {
            std::thread::sleep(pause);
            return;
        }
    };
    let response = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = stream.write_all(response.as_bytes());
}
