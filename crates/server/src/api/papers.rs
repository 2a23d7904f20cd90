//! Papers: one paper with every relation, the path between two, and a basket as a file.

use super::blocking;
use super::extract::{Json, Path, Query};
use super::maps::attachment;
use crate::error::{ApiError, ApiResult};
use crate::jobs::JobView;
use crate::state::{AppState, digest};
use axum::extract::State;
use axum::response::Response;
use litnav_app::Progress;
use litnav_app::export::{self, Format};
use litnav_app::relations::{CitationsOf, PaperProfile, PaperRef, PathReport};
use litnav_app::request::MetricParams;
use litnav_app::request::relations::DEFAULT_CITERS_SHOWN;
use litnav_app::request::relations::{PathParams, PathRequest};
use litnav_corpus::Paper;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Serialize)]
pub(super) struct PaperAnswer {
    paper: Paper,
    profile: PaperProfile,
    #[serde(flatten)]
    citations: CitationsOf,
}

pub(super) async fn paper(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(metric): Query<MetricParams>,
) -> ApiResult<axum::Json<PaperAnswer>> {
    let metric = metric.resolve(state.workspace().settings().seed)?;
    let answer = blocking(move || {
        let session = state.session()?;
        let paper = session.require(&id)?.clone();
        let profile = session.profile(&id, &metric)?;
        let citations = session.citations_of(&id, DEFAULT_CITERS_SHOWN)?;
        Ok(PaperAnswer { paper, profile, citations })
    })
    .await?;
    Ok(axum::Json(answer))
}

/// A sentiment job and the paper whose mentions it classifies.
#[derive(Serialize)]
pub(super) struct Classifying {
    job: JobView,
    paper: String,
}

/// Classify a paper's mentions that have no sentiment with the server's LLM (SciNet's
/// Cite-Sentiment), as a job; once it is done, `GET /api/papers/{id}` shows the labels (kept
/// for the corpus generation, so each mention is classified once).
pub(super) async fn classify(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Response> {
    // Refused now, not as a failed job, when the server has no endpoint or no such paper.
    let client = state.llm()?;
    let title = {
        let (state, id) = (state.clone(), id.clone());
        blocking(move || Ok(state.session()?.require(&id)?.title.clone())).await?
    };
    let job_id = digest(&[&state.0.corpus_dir.display().to_string(), "sentiment", &id]);
    state.admit_job(&job_id)?;
    let (job, new) = state.0.jobs.start(&job_id, crate::jobs::SENTIMENT, &title);
    if new {
        let (state, job, id) = (state.clone(), Arc::clone(&job), id.clone());
        let stop = Arc::clone(&job);
        let client = client.with_stop(Arc::new(move || stop.cancelled()));
        tokio::task::spawn_blocking(move || {
            job.running();
            let outcome = state.session().and_then(|session| {
                session.citers(&id, None, Some(&client), &*job)?;
                Ok(id.clone())
            });
            job.finish(outcome);
        });
    }
    Ok(super::jobs::accepted(&job, Classifying { job: job.view(), paper: id }))
}

/// One hop of a path: who cites whom, in the citing paper's words.
#[derive(Serialize)]
pub(super) struct Hop {
    citing: PaperRef,
    cited: PaperRef,
    sentences: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct PathAnswer {
    report: PathReport,
    /// The hops of the maximum-citation path (else of the first shortest path).
    hops: Vec<Hop>,
}

pub(super) async fn path(
    State(state): State<AppState>,
    Query(params): Query<PathParams>,
) -> ApiResult<axum::Json<PathAnswer>> {
    let PathRequest { from, to, max_hops, shortest_limit } = params.resolve()?;
    let answer = blocking(move || {
        let session = state.session()?;
        let report = session.path(&from, &to, max_hops, shortest_limit)?;
        let papers: Vec<PaperRef> = match (&report.max_citation_path, report.shortest_paths.first()) {
            (Some(path), _) => path.papers.clone(),
            (None, Some(shortest)) => shortest.clone(),
            (None, None) => Vec::new(),
        };
        let hops = papers
            .windows(2)
            .map(|pair| {
                let sentences = session.citing_sentences(&pair[0].id, &pair[1].id, 3)?;
                Ok(Hop { citing: pair[0].clone(), cited: pair[1].clone(), sentences })
            })
            .collect::<ApiResult<Vec<_>>>()?;
        Ok(PathAnswer { report, hops })
    })
    .await?;
    Ok(axum::Json(answer))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BasketBody {
    ids: Vec<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    title: Option<String>,
}

/// The most papers a basket exports.
const MAX_BASKET: usize = 10_000;

pub(super) async fn export(State(state): State<AppState>, Json(body): Json<BasketBody>) -> ApiResult<Response> {
    let format = Format::parse(body.format.as_deref().unwrap_or("bibtex"))?;
    if body.ids.is_empty() || body.ids.len() > MAX_BASKET {
        return Err(ApiError::input(format!("a basket holds 1 to {MAX_BASKET} paper ids, not {}", body.ids.len())));
    }
    let title = body.title.unwrap_or_else(|| "litnav basket".to_string());
    let text = blocking({
        let title = title.clone();
        move || {
            let session = state.session()?;
            let papers = body.ids.iter().map(|id| session.require(id)).collect::<Result<Vec<_>, _>>()?;
            Ok(export::papers(&title, &papers, format)?)
        }
    })
    .await?;
    Ok(attachment(text, format, &title))
}
