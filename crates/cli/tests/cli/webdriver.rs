//! A small WebDriver client (the W3C protocol over HTTP) driving Debian's Chromium through
//! chromedriver, for the browser tests. Only loopback traffic: chromedriver and the page.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.agent.delete(&format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Browser {
    /// Start chromedriver and a headless Chromium session with a `width`×`height` window.
    pub fn start(width: u32, height: u32) -> Browser {
        let port = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("this test needs chromedriver (`apt-get install chromium-driver`; tier `browser`)");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while agent.get(&format!("{base}/status")).call().is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "chromedriver did not start listening");
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut args: Vec<String> = litnav_testkit::CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--window-size={width},{height}"));
        let capabilities = serde_json::json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": litnav_testkit::chromium().display().to_string(), "args": args},
        }}});
        let mut browser = Browser { driver, base, session: String::new(), agent };
        let answer = browser.call("POST", "/session", Some(capabilities));
        browser.session = answer["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {answer}")).to_string();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<serde_json::Value>) -> serde_json::Value {
        let url = if path == "/session" {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let mut response = match method {
            "POST" => self.agent.post(&url).send_json(body.unwrap_or_else(|| serde_json::json!({}))),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self.agent.get(&url).call(),
        }
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
        let value: serde_json::Value = response.body_mut().read_json().unwrap();
        if !response.status().is_success() {
            panic!("{method} {path}: {}", value["value"]);
        }
        value.get("value").cloned().unwrap_or(value)
    }

    pub fn go(&self, url: &str) {
        self.call("POST", "/url", Some(serde_json::json!({"url": url})));
    }

    /// Run a script in the page and return its value.
    pub fn script(&self, script: &str, args: serde_json::Value) -> serde_json::Value {
        self.call("POST", "/execute/sync", Some(serde_json::json!({"script": script, "args": args})))
    }

    /// Wait (at most `seconds`) until `condition` — a script expression — is truthy.
    pub fn wait_for(&self, condition: &str, seconds: u64) {
        let started = Instant::now();
        loop {
            if self.script(&format!("return !!({condition});"), serde_json::json!([])) == serde_json::json!(true) {
                return;
            }
            if started.elapsed() > Duration::from_secs(seconds) {
                let page = self.script("return document.body.innerText.slice(0, 2000);", serde_json::json!([]));
                panic!("waited {seconds} s for `{condition}`; the page shows: {page}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn element(&self, css: &str) -> String {
        let found = self.call("POST", "/element", Some(serde_json::json!({"using": "css selector", "value": css})));
        found.as_object().and_then(|o| o.values().next()).and_then(|v| v.as_str()).unwrap().to_string()
    }

    pub fn click(&self, css: &str) {
        let element = self.element(css);
        self.call("POST", &format!("/element/{element}/click"), None);
    }

    pub fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css);
        self.call("POST", &format!("/element/{element}/clear"), None);
        self.call("POST", &format!("/element/{element}/value"), Some(serde_json::json!({"text": text})));
    }

    /// Save a PNG screenshot of the window.
    pub fn screenshot(&self, path: &std::path::Path) {
        let encoded = self.call("GET", "/screenshot", None);
        std::fs::write(path, base64_decode(encoded.as_str().unwrap())).unwrap();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u32> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, d)| acc | (d << (18 - 6 * i)));
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}
