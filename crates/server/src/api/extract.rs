//! Extractors whose rejections are the API's JSON errors (axum's own answer in plain text), and
//! the bridge to litnav's blocking library.

use crate::error::{ApiError, ApiResult};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use std::sync::{Arc, OnceLock};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Query parameters, or a 400 naming the bad one.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Query(query_from(&parts.uri)?))
    }
}

/// The query parameters of a request to `uri` (`/api/search?q=…`) as `T`, read exactly as the
/// handlers read them (for tests that compare the faces' defaults).
pub fn query_of<T: DeserializeOwned>(uri: &str) -> ApiResult<T> {
    let uri: axum::http::Uri = uri.parse().map_err(|e| ApiError::input(format!("not a URI: {e}")))?;
    query_from(&uri)
}

fn query_from<T: DeserializeOwned>(uri: &axum::http::Uri) -> ApiResult<T> {
    match axum::extract::Query::<T>::try_from_uri(uri) {
        Ok(axum::extract::Query(value)) => Ok(value),
        Err(rejection) => Err(ApiError::input(rejection.body_text())),
    }
}

/// Path parameters.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(rejection) => Err(ApiError::input(rejection.body_text())),
        }
    }
}

/// A JSON body, or a 400 (bad JSON, a missing or mistyped field) / 413 (too large) / 415 (not
/// JSON) with a JSON error.
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Json(value)),
            Err(rejection) => {
                let mut error = ApiError::input(rejection.body_text());
                error.status = rejection.status();
                Err(error)
            }
        }
    }
}

/// Run litnav's blocking work off the async threads, at most `turns()` requests' work at a time
/// (one per core and one more); the others wait their turn here, in arrival order. Without the
/// bound, every request in flight is a runnable thread and the scheduler shares the cores among
/// all of them: fifty cheap requests then slow each other down and starve the thread that
/// encodes new queries.
pub async fn blocking<T: Send + 'static>(work: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    blocking_with_turn(|_turn| work()).await
}

/// [`blocking`] for work that may have to wait for something else on the way (the query
/// encoder, which bounds its own threads): it gets its turn on the cores and may give it back by
/// dropping it, so that waiting does not keep other requests from the cores; what it does after
/// that runs without a turn.
pub async fn blocking_with_turn<T: Send + 'static>(
    work: impl FnOnce(Turn) -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    let permit = Arc::clone(cpu_turns())
        .acquire_owned()
        .await
        .map_err(|e| ApiError::internal(format!("the server's workers are shut: {e}")))?;
    // The turn goes with the work: a client that disconnects does not free the core its request
    // is still using.
    tokio::task::spawn_blocking(move || work(Turn { _permit: permit }))
        .await
        .map_err(|e| ApiError::internal(format!("a worker failed: {e}")))?
}

/// A request's turn on the cores (see [`blocking`]); dropping it lets the next request run.
pub struct Turn {
    _permit: OwnedSemaphorePermit,
}

/// The turns of [`blocking`]: one per core and one more, so that the cores stay busy while a
/// turn's holder briefly waits (a lock, a page fault). Measured under `litnav bench serve` (50
/// clients, three alternating 40 s runs each): unbounded, the cheap requests' p99 was 60–63 ms,
/// repeated hybrid searches' 66–70 and new queries' 266–291; with cores + 1 turns 50–54, 54–57
/// and 229–248 ms, for 7% fewer requests a second. Cores alone: 53–59 ms and 202–206 ms.
fn cpu_turns() -> &'static Arc<Semaphore> {
    static TURNS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    TURNS.get_or_init(|| Arc::new(Semaphore::new(turns())))
}

/// How many requests' blocking work runs at once.
pub(crate) fn turns() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()) + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn blocking_work_runs_at_most_turns_at_a_time() {
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let works: Vec<_> = (0..4 * turns())
            .map(|_| {
                let (running, most) = (Arc::clone(&running), Arc::clone(&most));
                tokio::spawn(blocking(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(50));
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok(())
                }))
            })
            .collect();
        for work in works {
            work.await.expect("joined").expect("ran");
        }
        // Never more than the turns (unbounded, the twelve-odd sleepers would overlap); more than
        // one, so the turns do run side by side.
        let most = most.load(Ordering::SeqCst);
        assert!((2..=turns()).contains(&most), "{most} ran at once with {} turns", turns());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_turn_given_back_lets_the_next_request_run() {
        // Every turn is taken by work that gives it back and then waits for work that can only
        // run on a turn: without the give-back this would never finish.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Arc::new(std::sync::Mutex::new(rx));
        let waiting: Vec<_> = (0..turns())
            .map(|_| {
                let rx = Arc::clone(&rx);
                tokio::spawn(blocking_with_turn(move |turn| {
                    drop(turn);
                    let got = rx.lock().expect("lock").recv_timeout(Duration::from_secs(10));
                    got.map_err(|_| ApiError::internal("no turn came free"))
                }))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        blocking(move || {
            (0..turns()).for_each(|_| tx.send(()).expect("send"));
            Ok(())
        })
        .await
        .expect("the last request ran");
        for work in waiting {
            work.await.expect("joined").expect("woke");
        }
    }
}
