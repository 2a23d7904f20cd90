//! Searches made as an agent makes them: `search` tool calls to a `litnav mcp` child process over
//! the protocol, through the official SDK's client (`rmcp`), each call timed.

use crate::Result;
use litnav_app::Error;
use litnav_search::Hit;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A client session with `litnav mcp` serving one corpus.
pub struct McpSearch {
    runtime: tokio::runtime::Runtime,
    client: Option<RunningService<RoleClient, ()>>,
    /// Tool calls made.
    pub calls: usize,
    /// Time spent in them, end to end (the request written, the answer read and parsed).
    pub elapsed: Duration,
}

impl McpSearch {
    /// Start `binary mcp --corpus corpus` and initialize a session with it.
    pub fn start(binary: &Path, corpus: &Path) -> Result<McpSearch> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| Error::internal(format!("cannot start the MCP client's runtime: {e}")))?;
        let mut command = tokio::process::Command::new(binary);
        command.arg("mcp").arg("--corpus").arg(corpus);
        let client = runtime.block_on(async {
            let (process, _) = TokioChildProcess::builder(command)
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| Error::unavailable(format!("cannot start {} mcp: {e}", binary.display())))?;
            ().serve(process).await.map_err(|e| Error::unavailable(format!("litnav mcp did not initialize: {e}")))
        })?;
        let mut agent = McpSearch { runtime, client: Some(client), calls: 0, elapsed: Duration::ZERO };
        // The server opens its corpus and loads the vectors on its first call: that is not the
        // protocol's cost, so one dense search is made first and not counted.
        let mut warm = Map::new();
        warm.insert("q".into(), "warm-up".into());
        warm.insert("k".into(), 1.into());
        warm.insert("mode".into(), "dense".into());
        agent.search(warm)?;
        (agent.calls, agent.elapsed) = (0, Duration::ZERO);
        Ok(agent)
    }

    /// The hits of one `search` call with `arguments` (the tool's, as an agent writes them).
    pub fn search(&mut self, arguments: Map<String, Value>) -> Result<Vec<Hit>> {
        let client = self.client.as_ref().ok_or_else(|| Error::internal("the MCP session has ended"))?;
        let started = Instant::now();
        let call = CallToolRequestParams::new("search").with_arguments(arguments);
        let result = self
            .runtime
            .block_on(client.call_tool(call))
            .map_err(|e| Error::unavailable(format!("the search tool call failed: {e}")))?;
        let hits = match (result.is_error, result.structured_content) {
            (Some(true), answer) => {
                let why = answer.map_or_else(String::new, |a| a["error"].as_str().unwrap_or_default().to_string());
                return Err(Error::input(format!("the search tool refused: {why}")));
            }
            (_, Some(answer)) => serde_json::from_value(answer["hits"].clone())
                .map_err(|e| Error::internal(format!("the search tool's hits: {e}")))?,
            (_, None) => return Err(Error::internal("the search tool answered no structured content")),
        };
        self.elapsed += started.elapsed();
        self.calls += 1;
        Ok(hits)
    }
}

impl Drop for McpSearch {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            // Closing the session ends the child; a failure to say goodbye changes no result.
            let _ = self.runtime.block_on(client.cancel());
        }
    }
}
