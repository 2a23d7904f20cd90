//! Corrections by hand: a map's edit log, read and replaced whole. The page keeps its undo and
//! redo stacks and sends the log it wants; the server applies it to the map as built (refusing
//! a log that does not fit, naming the entry), stores the edited map under the same id — the
//! permalink, exports and scores then show it — and refuses a log made on an older revision, so
//! two tabs editing one map never drop each other's changes silently.

use super::blocking;
use super::extract::{Json, Path};
use crate::error::{ApiError, ApiResult};
use crate::state::{AppState, StoredMap};
use axum::extract::State;
use litnav_app::codes::Code;
use litnav_app::edits::{self, Edit};
use serde::{Deserialize, Serialize};

/// A map's edit log and its revision.
#[derive(Serialize)]
pub(super) struct EditLog {
    revision: u64,
    edits: Vec<Edit>,
}

/// `GET /api/maps/{id}/edits`.
pub(super) async fn read(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<axum::Json<EditLog>> {
    let stored = blocking(move || state.0.maps.get(&id)).await?;
    Ok(axum::Json(EditLog { revision: stored.revision, edits: stored.edits.clone() }))
}

/// The log a page wants, and the revision it was made on.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewLog {
    revision: u64,
    edits: Vec<Edit>,
}

/// `PUT /api/maps/{id}/edits`: the map becomes the map as built with `edits` applied.
pub(super) async fn replace(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(body): Json<NewLog>,
) -> ApiResult<axum::Json<EditLog>> {
    let answer = blocking(move || {
        let _editing = state.0.editing.lock().map_err(|_| ApiError::internal("the edit lock is poisoned"))?;
        let stored = state.0.maps.get(&id)?;
        if body.revision != stored.revision {
            return Err(ApiError::with_code(
                Code::Conflict,
                format!(
                    "map {id} was edited elsewhere: your change was made on revision {}, the map is at revision {} \
                     ({} edits); reload it to see those changes, then make yours again",
                    body.revision,
                    stored.revision,
                    stored.edits.len()
                ),
            ));
        }
        let original = stored.original.clone().unwrap_or_else(|| stored.map.clone());
        let map = edits::apply(&original, &body.edits)?;
        let revision = stored.revision + 1;
        let log = EditLog { revision, edits: body.edits.clone() };
        state.0.maps.put(StoredMap {
            map,
            // Made again when asked for (`GET /api/maps/{id}/checks`), on the edited map.
            checks: None,
            edits: body.edits,
            original: Some(original),
            revision,
            ..(*stored).clone()
        })?;
        Ok(log)
    })
    .await?;
    Ok(axum::Json(answer))
}

/// `GET /api/maps/{id}/split/{node}`: the split litnav proposes for a leaf, as a suggestion whose
/// edits the page appends to the log when the person accepts it.
pub(super) async fn propose_split(
    State(state): State<AppState>,
    Path((id, node)): Path<(String, String)>,
) -> ApiResult<axum::Json<litnav_app::suggest::Suggestion>> {
    let proposal = blocking(move || {
        let stored = state.0.maps.get(&id)?;
        Ok(litnav_app::suggest::propose_split(state.workspace(), &stored.map, &node, &litnav_app::Quiet)?)
    })
    .await?;
    Ok(axum::Json(proposal))
}
