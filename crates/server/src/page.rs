//! The page: HTML, JavaScript and CSS compiled into the binary (no CDN, no build step). Only
//! these fixed names are served; no route reads a path a client sends.

use crate::state::AppState;
use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

const INDEX: &str = include_str!("../static/index.html");
const SCRIPT: &str = include_str!("../static/app.js");
const STYLE: &str = include_str!("../static/app.css");
const ICON: &str = include_str!("../static/icon.svg");

fn file(kind: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body)
}

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(|| async { file("text/html; charset=utf-8", INDEX) }))
        .route("/static/app.js", get(|| async { file("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/static/app.css", get(|| async { file("text/css; charset=utf-8", STYLE) }))
        .route("/static/icon.svg", get(|| async { file("image/svg+xml", ICON) }))
}
