//! The corpus: health, what it holds, its stored surveys, and search.

use super::extract::Query;
use super::{blocking, blocking_with_turn};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use litnav_app::{Quiet, SearchRequest};
use litnav_search::hybrid::Fusion;
use litnav_search::{DenseScan, Expansion, Filter, Hit, Mode};
use serde::{Deserialize, Serialize};

#[derive(Serialize)]
pub(super) struct Health {
    status: &'static str,
    version: &'static str,
    corpus: String,
    generation: u64,
    papers: usize,
    jobs_running: usize,
    /// Whether the server has an LLM endpoint (for jobs that ask for one).
    llm: bool,
}

pub(super) async fn health(State(state): State<AppState>) -> ApiResult<Json<Health>> {
    let session = blocking({
        let state = state.clone();
        move || state.session()
    })
    .await?;
    Ok(Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        corpus: session.dir().display().to_string(),
        generation: session.corpus().manifest().generation,
        papers: session.papers().len(),
        jobs_running: state.0.jobs.running(),
        llm: state.0.llm.is_some(),
    }))
}

pub(super) async fn openapi() -> Json<serde_json::Value> {
    Json(crate::openapi::document())
}

pub(super) async fn corpus(State(state): State<AppState>) -> ApiResult<Json<litnav_app::info::CorpusReport>> {
    let report = blocking(move || Ok(litnav_app::info::report(state.session()?.corpus()))).await?;
    Ok(Json(report))
}

#[derive(Serialize)]
pub(super) struct TopicRow {
    id: String,
    title: String,
    year: Option<i32>,
    references: usize,
    taxonomy: bool,
    outline: bool,
}

pub(super) async fn topics(State(state): State<AppState>) -> ApiResult<Json<Vec<TopicRow>>> {
    let rows = blocking(move || {
        let session = state.session()?;
        Ok(session
            .topics()
            .iter()
            .map(|t| TopicRow {
                id: t.id.clone(),
                title: t.title.clone(),
                year: t.year,
                references: t.reference_ids.len(),
                taxonomy: t.taxonomy.is_some(),
                outline: t.outline.is_some(),
            })
            .collect())
    })
    .await?;
    Ok(Json(rows))
}

#[derive(Deserialize)]
pub(super) struct SearchParams {
    q: Option<String>,
    k: Option<usize>,
    mode: Option<String>,
    scan: Option<String>,
    before: Option<i32>,
    exclude_surveys: Option<bool>,
}

/// The largest `k` a search answers.
pub(crate) const MAX_K: usize = 1000;

pub(super) async fn search(
    State(state): State<AppState>,
    Query(params): Query<SearchParams>,
) -> ApiResult<Json<Vec<Hit>>> {
    let words = params.q.unwrap_or_default();
    if words.trim().is_empty() {
        return Err(ApiError::input("give the words to search for as `q`"));
    }
    let k = params.k.unwrap_or(10);
    if k == 0 || k > MAX_K {
        return Err(ApiError::input(format!("k must be between 1 and {MAX_K}, not {k}")));
    }
    let mode = match params.mode.as_deref().unwrap_or("hybrid") {
        "bm25" => Mode::Bm25,
        "dense" => Mode::Dense,
        "hybrid" => Mode::Hybrid(Fusion::default()),
        "expanded" => Mode::Expanded(Expansion::default()),
        other => {
            return Err(ApiError::input(format!("unknown mode {other:?} (one of bm25, dense, hybrid, expanded)")));
        }
    };
    let scan = match params.scan.as_deref() {
        None => None,
        Some("auto") => Some(DenseScan::Auto),
        Some("exact") => Some(DenseScan::Exact),
        Some("approximate") => Some(DenseScan::Approximate),
        Some(other) => {
            return Err(ApiError::input(format!("unknown scan {other:?} (one of auto, exact, approximate)")));
        }
    };
    let filter = Filter { before: params.before, exclude_surveys: params.exclude_surveys.unwrap_or(false) };
    let request = SearchRequest { k, mode, filter, scan, ..SearchRequest::new(words) };
    let hits = blocking_with_turn(move |turn| {
        let session = state.session()?;
        if matches!(mode, Mode::Bm25) {
            return Ok(session.search_lexical(&request)?);
        }
        let encoder = state.workspace().encoder(&Quiet)?;
        if !session.query_is_encoded(&request) {
            // A new query waits for the encoder without keeping other requests from the cores.
            drop(turn);
            session.encode_query(&request, encoder, &Quiet)?;
        }
        Ok(session.search(&request, encoder, &Quiet)?)
    })
    .await?;
    Ok(Json(hits))
}
