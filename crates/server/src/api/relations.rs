//! Relations across the corpus: papers ranked by a measure, and citation analytics (the queries
//! of `litnav analytics`) run on the served corpus.

use super::blocking;
use super::extract::{Json, Path, Query};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::State;
use litnav_app::analytics::SessionAnalytics;
use litnav_app::relations::Ranking;
use litnav_app::request::analytics::{AnalyticsQuery, EngineParams};
use litnav_app::request::{Defaults, EngineName, MeasureName, RankParams};
use serde_json::{Map, Value};

/// `GET /api/rankings/{measure}`: as `litnav relations disruption|novelty|citations --json`.
pub(super) async fn ranking(
    State(state): State<AppState>,
    Path(measure): Path<String>,
    Query(params): Query<Map<String, Value>>,
) -> ApiResult<axum::Json<Ranking>> {
    let measure = measure.parse::<MeasureName>()?.measure();
    let params: RankParams = options_of(params, &RankParams::docs())?;
    let request = params.resolve(measure, state.workspace().settings().seed)?;
    let ranking = blocking(move || Ok(state.session()?.rank(&request)?)).await?;
    Ok(axum::Json(ranking))
}

/// `T` from query or body options, every name checked against `T`'s documented options (a
/// request type whose options are gathered from parts cannot refuse unknown names itself).
fn options_of<T: serde::de::DeserializeOwned>(
    options: Map<String, Value>,
    documented: &[litnav_app::request::OptionDoc],
) -> ApiResult<T> {
    let mut typed = Map::new();
    for (name, value) in options {
        let Some(doc) = documented.iter().find(|doc| doc.name == name.as_str()) else {
            let known: Vec<&str> = documented.iter().map(|doc| doc.name.as_str()).collect();
            return Err(ApiError::input(format!("unknown option `{name}` (one of {})", known.join(", "))));
        };
        // Query strings carry every value as text: numbers and booleans are read back as such.
        let value = match value {
            Value::String(text) if doc.kind != "string" => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            other => other,
        };
        typed.insert(name, value);
    }
    serde_json::from_value(Value::Object(typed)).map_err(|e| ApiError::input(e.to_string()))
}

/// `POST /api/analytics/{query}`: the query's options and the engine's in one JSON object.
pub(super) async fn analytics(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<Map<String, Value>>,
) -> ApiResult<axum::Json<SessionAnalytics>> {
    let engine_names = EngineParams::docs();
    let (engine, own): (Map<String, Value>, Map<String, Value>) =
        body.into_iter().partition(|(key, _)| engine_names.iter().any(|doc| doc.name == key.as_str()));
    let engine: EngineParams = options_of(engine, &engine_names)?;
    if engine.engine == Some(EngineName::Ballista) || engine.scheduler.is_some() || engine.spill_dir.is_some() {
        return Err(ApiError::input(
            "engine: the server runs analytics in its own process (memory or local, no spill_dir); a Ballista \
             cluster is `litnav analytics --engine ballista`",
        ));
    }
    let query = AnalyticsQuery::from_json(&name, Value::Object(own))?;
    let work = state.workspace().settings().home.join("server/analytics");
    let answer = blocking(move || {
        let session = state.session()?;
        Ok(litnav_app::analytics::run_on_session(&session, &query, &engine, &work)?)
    })
    .await?;
    Ok(axum::Json(answer))
}
