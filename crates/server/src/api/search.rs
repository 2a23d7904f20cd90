//! The corpus: health, what it holds, its stored surveys, and search.

use super::extract::Query;
use super::{blocking, blocking_with_turn};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use litnav_app::Quiet;
use litnav_app::request::{ModeName, SearchParams};
use litnav_search::Mode;
use serde::Serialize;

#[derive(Serialize)]
pub(super) struct Health {
    status: &'static str,
    version: &'static str,
    /// The corpus directory's name (never its path).
    corpus: String,
    generation: u64,
    papers: usize,
    jobs_running: usize,
    /// Whether the server has an LLM endpoint (for jobs that ask for one).
    llm: bool,
    /// Whether jobs may open network connections (`--allow-network`: maps that fetch their field).
    network: bool,
    /// The corpus's vectors: ready, or how far computing them has come (searches are answered
    /// by BM25 until they are ready).
    vectors: crate::state::WarmingView,
    /// The precision of the weights search queries are encoded with (`--query-precision`).
    query_precision: litnav_app::request::PrecisionName,
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
        corpus: state.corpus_name(),
        generation: session.corpus().manifest().generation,
        papers: session.len(),
        jobs_running: state.0.jobs.running(),
        llm: state.0.llm.is_some(),
        network: state.0.network,
        vectors: crate::state::WarmingView { ready: session.dense_ready(), ..state.warming() },
        query_precision: litnav_app::request::PrecisionName::of(state.workspace().query_precision()),
    }))
}

/// `GET /api/usage`.
pub(super) async fn usage(State(state): State<AppState>) -> Json<crate::budget::UsageView> {
    Json(state.usage().view(state.0.jobs.running()))
}

pub(super) async fn corpus(State(state): State<AppState>) -> ApiResult<Json<litnav_app::info::CorpusReport>> {
    // The directory by its name: a remote caller learns nothing of the server's paths.
    let name = state.corpus_name().into();
    let report = blocking(move || Ok(litnav_app::info::report(state.session()?.corpus())?)).await?;
    Ok(Json(litnav_app::info::CorpusReport { corpus: name, ..report }))
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

pub(super) async fn search(State(state): State<AppState>, Query(params): Query<SearchParams>) -> ApiResult<Response> {
    let mut request = params.resolve()?;
    let asked = params.filled().mode.unwrap_or_default();
    let (hits, used, notice) = blocking_with_turn(move |turn| {
        let session = state.session()?;
        let warming = state.warming();
        // Papers like one are found by their vectors: a dense search.
        let mut used = if request.like.is_some() { ModeName::Dense } else { asked };
        let mut notice = None;
        let cold = !session.dense_ready() && warming.under_way();
        let progress = || match (warming.done, warming.total) {
            (Some(done), Some(total)) => format!(" ({done} of {total} papers)"),
            _ => " (loading the encoder)".to_string(),
        };
        if cold && request.like.is_some() {
            return Err(ApiError::with_code(
                litnav_app::codes::Code::Unavailable,
                format!(
                    "papers like one are found by their vectors, which are being computed{}; ask again soon",
                    progress()
                ),
            ));
        }
        if !matches!(request.mode, Mode::Bm25) && cold {
            // A cold corpus answers at once, lexically, while its vectors are computed.
            request.mode = Mode::Bm25;
            used = ModeName::Bm25;
            notice = Some(format!("answered by bm25: the corpus's vectors are being computed{}", progress()));
        }
        let encoder = || {
            let encoder = state.workspace().encoder(&Quiet)?;
            if !session.query_is_encoded(&request) {
                // A new query waits for the encoder without keeping other requests from the cores.
                drop(turn);
                session.encode_query(&request, encoder, &Quiet)?;
            }
            Ok(encoder)
        };
        Ok((session.answer_with(&request, encoder, &Quiet)?, used, notice))
    })
    .await?;
    let mut response = Json(hits).into_response();
    let headers = response.headers_mut();
    headers.insert(SEARCH_MODE, HeaderValue::from_static(used.name()));
    if let Some(notice) = notice.and_then(|n| HeaderValue::from_str(&n).ok()) {
        headers.insert(SEARCH_NOTICE, notice);
    }
    Ok(response)
}

/// The header every search answer carries: the mode that ranked it.
pub(crate) const SEARCH_MODE: HeaderName = HeaderName::from_static("litnav-search-mode");

/// The header a search answer carries when it was not ranked as asked: why.
pub(crate) const SEARCH_NOTICE: HeaderName = HeaderName::from_static("litnav-search-notice");
