//! Jobs: their state, a stream of it, cancelling.

use super::extract::Path;
use crate::error::{ApiError, ApiResult};
use crate::jobs::{Job, JobView};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::wrappers::ReceiverStream;

/// The event stream of a job.
type Events = Sse<axum::response::sse::KeepAliveStream<ReceiverStream<Result<Event, Infallible>>>>;

/// `202 Accepted` for a job started (or joined while it runs): `body`, and the job's URL as the
/// Location.
pub(super) fn accepted(job: &Job, body: impl serde::Serialize) -> Response {
    let mut response = (StatusCode::ACCEPTED, axum::Json(body)).into_response();
    if let Ok(location) = format!("/api/jobs/{}", job.view().id).parse() {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

fn job(state: &AppState, id: &str) -> ApiResult<Arc<Job>> {
    state.0.jobs.get(id).ok_or_else(|| {
        ApiError::not_found(format!("no job {id:?} (jobs last as long as the server; a finished job's map stays)"))
    })
}

pub(super) async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<axum::Json<JobView>> {
    Ok(axum::Json(job(&state, &id)?.view()))
}

pub(super) async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<axum::Json<JobView>> {
    let job = job(&state, &id)?;
    job.cancel();
    Ok(axum::Json(job.view()))
}

/// Every change of the job as an event, until it ends or the server stops. A forwarding task
/// feeds the response; when the client goes away its channel closes and the task ends with it.
pub(super) async fn events(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Events> {
    let job = job(&state, &id)?;
    let mut changes = job.subscribe();
    let mut stopping = state.0.shutdown.subscribe();
    let (sender, receiver) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        loop {
            let view = job.view();
            let last = view.state.is_final();
            let Ok(event) = Event::default().event("job").json_data(&view) else { break };
            if sender.send(Ok(event)).await.is_err() || last {
                break;
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { break },
                _ = stopping.changed() => break,
                _ = sender.closed() => break,
            }
        }
    });
    Ok(Sse::new(ReceiverStream::new(receiver)).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
