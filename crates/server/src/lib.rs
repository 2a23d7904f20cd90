//! `litnav serve`: the navigator as a web application over an HTTP API.
//!
//! One process serves one corpus: the page (`/`, three panes, all state in the URL, the
//! JavaScript and CSS compiled into the binary) and the JSON API under `/api/` that the page —
//! and any other tool — uses. Every answer comes from `litnav-app`, the library under the CLI
//! too, so `litnav … --json` and the API answer with the same shapes. Long operations (maps,
//! expansions) are jobs with a state, an event stream and a cancel.
//!
//! - [`api`]: the endpoint table (router and OpenAPI description from one list) and handlers.
//! - [`state`]: the workspace, the session of the corpus's current generation, stored maps.
//! - [`jobs`]: jobs reporting litnav's progress, cancellable between steps.
//! - [`guard`]: loopback by default, Host and Origin checks, the token, security headers.
//! - [`error`]: litnav's error kinds as HTTP statuses with JSON bodies.
//! - [`budget`]: what a caller may spend: jobs at once, fetch calls a day, maps a minute.
//! - [`redact`]: answers that say nothing of the machine (its paths become what they are).

pub mod api;
pub mod budget;
pub mod error;
pub mod guard;
pub mod jobs;
mod page;
pub mod redact;
pub mod state;

/// The API's OpenAPI document (`GET /api/openapi.json`).
pub use api::openapi;
pub use error::{ApiError, ApiResult};
pub use guard::Guard;
pub use state::AppState;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::MethodRouter;
use litnav_app::{LlmOptions, Workspace};
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tower_http::compression::CompressionLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

/// The largest request body (a basket of ten thousand ids fits).
pub const BODY_LIMIT: usize = 1 << 20;

/// How long a request other than an event stream may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How a server is started.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The corpus served.
    pub corpus_dir: PathBuf,
    /// Where maps are stored (they outlive the process: their URLs are permalinks).
    pub maps_dir: PathBuf,
    /// Listen beyond loopback (then `token` is required).
    pub allow_remote: bool,
    /// The token requests must carry when the server is reachable from other machines.
    pub token: Option<String>,
    /// The LLM endpoint jobs may use, when one was configured.
    pub llm: Option<LlmOptions>,
    /// Whether jobs may open network connections (a map that fetches its field from OpenAlex);
    /// without it the server never connects anywhere.
    pub allow_network: bool,
    /// The API fetches go to (default: OpenAlex's public one). The owner's choice alone: a
    /// request naming a URL is refused, and only this host may be on a private network.
    pub api_url: Option<String>,
    /// What a caller may spend.
    pub budgets: budget::Budgets,
}

impl ServeOptions {
    /// The guard these options call for, or why they are refused: an address beyond loopback
    /// needs `allow_remote` and a token.
    pub fn guard(&self, port: u16) -> Result<Guard, litnav_app::Error> {
        guard_for(self.addr, self.allow_remote, self.token.as_deref(), port)
    }
}

/// The guard of a server at `addr` (listening on `port`), or why the address is refused: beyond
/// loopback needs `allow_remote` and a token of at least 16 characters.
pub fn guard_for(
    addr: SocketAddr,
    allow_remote: bool,
    token: Option<&str>,
    port: u16,
) -> Result<Guard, litnav_app::Error> {
    if addr.ip().is_loopback() {
        return Ok(match token {
            Some(token) => Guard { token: Some(token.to_string()), ..Guard::loopback(port) },
            None => Guard::loopback(port),
        });
    }
    if !allow_remote {
        return Err(litnav_app::Error::input(format!(
            "{} is not a loopback address: serving other machines needs an explicit opt-in and a token",
            addr.ip()
        )));
    }
    match token {
        Some(token) if token.len() >= 16 => Ok(Guard::remote(token.to_string())),
        Some(_) => Err(litnav_app::Error::input("a token must be at least 16 characters long")),
        None => Err(litnav_app::Error::input("serving beyond loopback needs a token")),
    }
}

/// Heaps the C allocator may keep in a serving process ([`litnav_core::memory::limit_allocator_arenas`]):
/// with glibc's default (eight per core) resident memory creeps up under steady load.
pub const ALLOCATOR_ARENAS: usize = 2;

/// The application: the API, the page, and the layers around them.
pub fn router(state: AppState) -> Router {
    let mut by_path: BTreeMap<&'static str, MethodRouter<AppState>> = BTreeMap::new();
    let mut streams = Router::new();
    for endpoint in api::endpoints() {
        if endpoint.streaming {
            streams = streams.route(endpoint.path, endpoint.handler);
            continue;
        }
        let merged = match by_path.remove(endpoint.path) {
            Some(existing) => existing.merge(endpoint.handler),
            None => endpoint.handler,
        };
        by_path.insert(endpoint.path, merged);
    }
    let mut timed = Router::new();
    for (path, handler) in by_path {
        timed = timed.route(path, handler);
    }
    let timed =
        timed.merge(page::routes()).layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, REQUEST_TIMEOUT));
    let guard = state.0.guard.clone();
    // The MCP endpoint streams (no time limit) and is guarded as the API is.
    let mcp = litnav_mcp::http_service(litnav_mcp::Litnav::new(state.clone()), state.0.mcp_stop.clone());
    Router::new()
        .merge(timed)
        .merge(streams)
        .nest_service("/mcp", mcp)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(guard, guard::guard))
        // The default predicate leaves event streams (and small bodies) uncompressed.
        .layer(CompressionLayer::new())
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
        .with_state(state)
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("nothing at {} (the API is described at /api/openapi.json)", uri.path()))
}

/// Serve on `listener` until `stop` completes; then event streams end, jobs are cancelled and
/// requests in flight finish.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    state: AppState,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(state.clone());
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            stop.await;
            tracing::info!("shutting down: cancelling jobs, finishing requests in flight");
            state.0.shutdown.send_replace(true);
            state.0.mcp_stop.cancel();
            state.0.jobs.cancel_all();
        })
        .await
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn termination() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => {
                let _ = interrupt.await;
                return;
            }
        };
        tokio::select! {
            _ = interrupt => {},
            _ = terminate.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// Run a server until Ctrl-C or SIGTERM: `ready` gets the URL to open once the socket accepts
/// connections. Requests are logged on standard error.
pub fn run(workspace: Workspace, options: ServeOptions, ready: impl FnOnce(&str)) -> Result<(), litnav_app::Error> {
    litnav_core::memory::limit_allocator_arenas(ALLOCATOR_ARENAS);
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .with_max_level(Level::INFO)
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| litnav_app::Error::internal(format!("starting the server's runtime: {e}")))?;
    // Validate before binding: a refused address must not open a socket.
    options.guard(options.addr.port())?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(options.addr))
        .map_err(|e| litnav_app::Error::unavailable(format!("cannot listen on {}: {e}", options.addr)))?;
    let addr = listener.local_addr()?;
    let guard = options.guard(addr.port())?;
    let state =
        AppState::new(workspace, options.corpus_dir.clone(), options.maps_dir.clone(), options.llm.clone(), guard)?
            .with_network(options.allow_network)
            .with_api_url(options.api_url.clone())
            .with_budgets(options.budgets);
    let host =
        if addr.ip().is_loopback() && addr.is_ipv4() { format!("127.0.0.1:{}", addr.port()) } else { addr.to_string() };
    let url = match &options.token {
        Some(token) => format!("http://{host}/?token={token}"),
        None => format!("http://{host}/"),
    };
    let warm = state.clone();
    runtime.spawn_blocking(move || warm.warm_up());
    ready(&url);
    let served = runtime.block_on(serve_until(listener, state, termination()));
    runtime.shutdown_timeout(Duration::from_secs(10));
    served.map_err(|e| litnav_app::Error::unavailable(format!("serving on {addr}: {e}")))
}
