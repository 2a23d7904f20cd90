//! Maps: built and expanded as jobs, then read whole or by node, drawn as a citation graph or a
//! timeline, scored against a stored survey, exported.

use super::blocking;
use super::extract::{Json, Path, Query};
use crate::error::{ApiError, ApiResult};
use crate::jobs::{Job, JobView};
use crate::state::{AppState, MapSummary, StoredMap};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use litnav_app::browse::{self, PaperQuery, SortBy};
use litnav_app::export::{self, Format};
use litnav_app::fetch::{FetchRequest, fetch_openalex};
use litnav_app::maps;
use litnav_app::request::{ExpandParams, FetchParams, MapParams};
use litnav_app::score::{similarity, tree};
use litnav_app::{Progress, Quiet};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A job and the map it makes.
#[derive(Serialize)]
pub(super) struct Started {
    job: JobView,
    map: String,
}

fn accepted(job: &Job, map: &str) -> Response {
    super::jobs::accepted(job, Started { job: job.view(), map: map.to_string() })
}

pub(super) async fn create(State(state): State<AppState>, Json(body): Json<MapParams>) -> ApiResult<Response> {
    state.usage().map_request()?;
    let topic = body.topic()?;
    let body = MapParams { topic: Some(topic.clone()), ..body };
    // Refused now, not as a failed job: bad options, a fetch the server may not make, an LLM it
    // does not have.
    let request = body.resolve(state.workspace().settings().seed)?;
    if let Some(fetch) = &body.fetch {
        state.network()?;
        fetch.as_requested(&topic, "fetch.api_url")?;
        state.usage().fetch_allowance()?;
    }
    if body.needs_llm() {
        state.llm()?;
    }
    let id = body.map_id(&state.0.corpus_dir)?;
    if state.0.maps.contains(&id) {
        return Ok(accepted(&state.0.jobs.done(&id, "map", &topic), &id));
    }
    state.admit_job(&id)?;
    let (job, new) = state.0.jobs.start(&id, "map", &topic);
    if new {
        let (state, job, id) = (state.clone(), Arc::clone(&job), id.clone());
        tokio::task::spawn_blocking(move || {
            let outcome = build(&state, &job, &id, &body, &request);
            job.finish(outcome);
        });
    }
    Ok(accepted(&job, &id))
}

/// Wait for the jobs before this one (one computes at a time), unless cancelled meanwhile. The
/// wait is one step of the job, shown once.
fn take_turn<'s>(state: &'s AppState, job: &Job) -> ApiResult<std::sync::MutexGuard<'s, ()>> {
    let turn = litnav_app::progress::take_turn(&state.0.heavy, job, "another job")?;
    job.running();
    Ok(turn)
}

/// The map job: `body` as received (stored with the map), `request` as resolved from it.
fn build(
    state: &AppState,
    job: &Arc<Job>,
    id: &str,
    body: &MapParams,
    request: &maps::MapRequest,
) -> ApiResult<String> {
    let _turn = take_turn(state, job)?;
    state.await_vectors(job)?;
    let mut fetch_notice = None;
    if let Some(params) = &body.fetch {
        let fetch = FetchRequest {
            topic: request.topic.clone(),
            corpus: state.0.corpus_dir.clone(),
            params: FetchParams { api_url: state.api_url().map(str::to_string), ..params.clone() },
            api_key: None,
            allowance: Some(state.usage().fetch_allowance()?),
        };
        let fetched = fetch_openalex(state.workspace(), &fetch, job.as_ref())?;
        fetch_notice = Some(litnav_app::fetch::summary(&fetched.fetch));
    }
    let session = state.session()?;
    let client = if body.needs_llm() { Some(state.llm_for(job)?) } else { None };
    let outcome = maps::build_map(state.workspace(), Some(&session), request, client.as_ref(), job.as_ref())?;
    job.check("storing the map")?;
    state.0.maps.put(StoredMap {
        id: id.to_string(),
        topic: request.topic.clone(),
        request: serde_json::to_value(body).map_err(|e| ApiError::internal(e.to_string()))?,
        parent: None,
        expanded: None,
        map: outcome.map,
        notices: fetch_notice.into_iter().chain(outcome.notices).map(|n| crate::redact::scrub(&n)).collect(),
        coverage: outcome.coverage,
        checks: outcome.checks,
        edits: Vec::new(),
        original: None,
        revision: 0,
    })?;
    Ok(id.to_string())
}

pub(super) async fn list(State(state): State<AppState>) -> ApiResult<axum::Json<Vec<MapSummary>>> {
    Ok(axum::Json(blocking(move || Ok(state.0.maps.list())).await?))
}

#[derive(Serialize)]
pub(super) struct MapAnswer {
    id: String,
    topic: String,
    request: serde_json::Value,
    parent: Option<String>,
    expanded: Option<String>,
    papers: usize,
    map: litnav_organize::MapNode,
    notices: Vec<String>,
    coverage: Option<litnav_app::coverage::Coverage>,
    /// The edit log's revision and length (the log itself: `GET /api/maps/{id}/edits`).
    revision: u64,
    edits: usize,
}

pub(super) async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<axum::Json<MapAnswer>> {
    let stored = blocking(move || state.0.maps.get(&id)).await?;
    let mut ids = stored.map.all_paper_ids();
    ids.sort();
    ids.dedup();
    Ok(axum::Json(MapAnswer {
        id: stored.id.clone(),
        topic: stored.topic.clone(),
        request: stored.request.clone(),
        parent: stored.parent.clone(),
        expanded: stored.expanded.clone(),
        papers: ids.len(),
        map: stored.map.clone(),
        notices: stored.notices.clone(),
        coverage: stored.coverage.clone(),
        revision: stored.revision,
        edits: stored.edits.len(),
    }))
}

#[derive(Deserialize)]
pub(super) struct PaperParams {
    sort: Option<String>,
    from: Option<i32>,
    to: Option<i32>,
    q: Option<String>,
    venue: Option<String>,
    min_citations: Option<u64>,
    offset: Option<usize>,
    limit: Option<usize>,
}

/// Every node's count of the papers that pass the filters (what the tree shows while they are on).
#[derive(Debug, Serialize)]
pub(super) struct NodeCounts {
    counts: std::collections::BTreeMap<String, usize>,
}

pub(super) async fn node_counts(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<PaperParams>,
) -> ApiResult<axum::Json<NodeCounts>> {
    let query = PaperQuery {
        from: params.from,
        to: params.to,
        text: params.q,
        venue: params.venue,
        min_citations: params.min_citations,
        ..PaperQuery::default()
    };
    let counts = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        Ok(browse::node_counts(&*state.session()?, &stored.map, &query)?)
    })
    .await?;
    Ok(axum::Json(NodeCounts { counts }))
}

pub(super) async fn node_papers(
    State(state): State<AppState>,
    Path((id, node)): Path<(String, String)>,
    Query(params): Query<PaperParams>,
) -> ApiResult<axum::Json<browse::PaperPage>> {
    let limit = params.limit.unwrap_or(50);
    if limit == 0 || limit > 1000 {
        return Err(ApiError::input(format!("limit must be between 1 and 1000, not {limit}")));
    }
    let query = PaperQuery {
        sort: SortBy::parse(params.sort.as_deref().unwrap_or("map"))?,
        from: params.from,
        to: params.to,
        text: params.q,
        venue: params.venue,
        min_citations: params.min_citations,
        offset: params.offset.unwrap_or(0),
        limit,
    };
    let page = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        Ok(browse::node_papers(&*state.session()?, &stored.map, &node, &query)?)
    })
    .await?;
    Ok(axum::Json(page))
}

pub(super) async fn expand(
    State(state): State<AppState>,
    Path((id, node)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    state.usage().map_request()?;
    // The body is optional: no body expands with the defaults.
    let body: ExpandParams = if body.iter().all(u8::is_ascii_whitespace) {
        ExpandParams::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::input(format!("the expansion's JSON body: {e}")))?
    };
    let request = body.resolve(&node, state.workspace().settings().seed)?;
    if body.llm == Some(true) {
        state.llm()?;
    }
    let parent = blocking({
        let state = state.clone();
        move || state.0.maps.get(&id)
    })
    .await?;
    let subtopic =
        parent.map.find(&node).ok_or_else(|| ApiError::not_found(format!("map {} has no node {node:?}", parent.id)))?;
    let title = format!("{} › {}", parent.topic, subtopic.name);
    let new_id = body.expansion_id(&parent.id, &node)?;
    if state.0.maps.contains(&new_id) {
        return Ok(accepted(&state.0.jobs.done(&new_id, "expand", &title), &new_id));
    }
    state.admit_job(&new_id)?;
    let (job, new) = state.0.jobs.start(&new_id, "expand", &title);
    if new {
        let (state, job, new_id) = (state.clone(), Arc::clone(&job), new_id.clone());
        tokio::task::spawn_blocking(move || {
            let outcome = grow(&state, &job, &new_id, &parent, &node, &body, &request);
            job.finish(outcome);
        });
    }
    Ok(accepted(&job, &new_id))
}

fn grow(
    state: &AppState,
    job: &Arc<Job>,
    id: &str,
    parent: &StoredMap,
    node: &str,
    body: &ExpandParams,
    request: &maps::ExpandRequest,
) -> ApiResult<String> {
    let _turn = take_turn(state, job)?;
    let session = state.session()?;
    let client = if body.llm == Some(true) { Some(state.llm_for(job)?) } else { None };
    let expansion = maps::expand(state.workspace(), &session, &parent.map, request, client.as_ref(), job.as_ref())?;
    job.check("grafting the sub-map into the map")?;
    let grafted = browse::graft(&parent.map, node, &expansion.map)?;
    state.0.maps.put(StoredMap {
        id: id.to_string(),
        topic: parent.topic.clone(),
        request: parent.request.clone(),
        parent: Some(parent.id.clone()),
        expanded: Some(node.to_string()),
        map: grafted,
        notices: parent.notices.iter().cloned().chain([expansion.notice()]).collect(),
        coverage: parent.coverage.clone(),
        checks: None,
        edits: Vec::new(),
        original: None,
        revision: 0,
    })?;
    Ok(id.to_string())
}

/// Which parts of a map to distrust: its checks without a reference, problems named by node id.
pub(super) async fn checks(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<litnav_app::suggest::MapChecks>> {
    let checks = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        match &stored.checks {
            Some(checks) => Ok(checks.clone()),
            None => {
                // A server started with an LLM judges entailment with it, as its maps were checked.
                let llm = if state.0.llm.is_some() { Some(state.llm()?) } else { None };
                Ok(litnav_app::maps::map_checks(state.workspace(), &stored.map, llm.as_ref(), &Quiet)?)
            }
        }
    })
    .await?;
    Ok(axum::Json(checks))
}

pub(super) async fn placement(
    State(state): State<AppState>,
    Path((id, paper)): Path<(String, String)>,
) -> ApiResult<axum::Json<browse::Placement>> {
    let stored = blocking(move || state.0.maps.get(&id)).await?;
    Ok(axum::Json(browse::placement(&stored.map, &paper)?))
}

#[derive(Deserialize)]
pub(super) struct GraphParams {
    cap: Option<usize>,
}

/// The most papers a citation graph draws.
const MAX_GRAPH_NODES: usize = 5000;

pub(super) async fn graph(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<GraphParams>,
) -> ApiResult<axum::Json<browse::MapGraph>> {
    let cap = params.cap.unwrap_or(2000);
    if cap == 0 || cap > MAX_GRAPH_NODES {
        return Err(ApiError::input(format!("cap must be between 1 and {MAX_GRAPH_NODES}, not {cap}")));
    }
    let graph = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        let seed = state.workspace().settings().seed;
        let encoder = state.workspace().encoder(&Quiet)?;
        Ok(browse::citation_graph(&*state.session()?, &stored.map, cap, seed, encoder)?)
    })
    .await?;
    Ok(axum::Json(graph))
}

pub(super) async fn timeline(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<browse::Timeline>> {
    let timeline = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        Ok(browse::timeline(&*state.session()?, &stored.map)?)
    })
    .await?;
    Ok(axum::Json(timeline))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScoreBody {
    survey: String,
    #[serde(default)]
    similarity: Option<String>,
}

pub(super) async fn score(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(body): Json<ScoreBody>,
) -> ApiResult<axum::Json<tree::TreeReport>> {
    let kind = match &body.similarity {
        Some(name) => name.parse::<litnav_app::request::SimilarityName>()?.kind(),
        None => similarity::Kind::Embedding,
    };
    let report = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        let session = state.session()?;
        let topic = session
            .topic(&body.survey)
            .ok_or_else(|| ApiError::not_found(format!("no stored survey {:?} (see /api/topics)", body.survey)))?;
        let reference = tree::survey_tree(topic).ok_or_else(|| {
            ApiError::not_found(format!("the survey {:?} has neither a taxonomy nor an outline", topic.title))
        })?;
        let predicted = litnav_eval::tree::Tree::from(&stored.map);
        let sim = kind.build(state.workspace(), &[&reference, &predicted], &Quiet)?;
        let options = tree::TreeOptions { reading: kind.reading(), ..tree::TreeOptions::default() };
        Ok(tree::compare(&reference, &predicted, options, sim.as_ref(), kind.name()))
    })
    .await?;
    Ok(axum::Json(report))
}

#[derive(Deserialize)]
pub(super) struct ExportParams {
    format: Option<String>,
    /// A node's id: export that subtopic alone.
    node: Option<String>,
}

/// A file as a download (an attachment is saved, never rendered in the server's origin).
pub(crate) fn attachment(text: String, format: Format, stem: &str) -> Response {
    let stem: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).take(60).collect();
    let disposition = format!("attachment; filename=\"{stem}.{}\"", format.extension());
    let mut response = text.into_response();
    let headers = response.headers_mut();
    if let (Ok(kind), Ok(disposition)) = (format.media_type().parse(), disposition.parse()) {
        headers.insert(header::CONTENT_TYPE, kind);
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    response
}

pub(super) async fn export(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<ExportParams>,
) -> ApiResult<Response> {
    let format = Format::parse(params.format.as_deref().unwrap_or("bibtex"))?;
    let (text, topic) = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        let (node, name) = match params.node.as_deref().filter(|n| *n != "root") {
            Some(node) => {
                let found = stored.map.find(node).ok_or_else(|| {
                    ApiError::with_code(litnav_app::codes::Code::NotFound, format!("map {id} has no node {node:?}"))
                })?;
                (found, format!("{} - {}", stored.topic, found.name))
            }
            None => (&stored.map, stored.topic.clone()),
        };
        Ok((export::map(&*state.session()?, node, &stored.notices, format)?, name))
    })
    .await?;
    Ok(attachment(text, format, &topic))
}
