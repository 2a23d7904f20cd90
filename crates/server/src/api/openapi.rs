//! `GET /api/openapi.json`: the API described from the endpoint table the router is made of.

use super::{In, endpoints};
use litnav_app::codes::Code;
use litnav_app::request::analytics::{AnalyticsQuery, EngineParams};
use litnav_app::request::{Defaults, ExpandParams, FetchParams, MapParams, OptionDoc};
use serde_json::{Map, Value, json};

/// A request type of the application as a JSON object schema: each option's type, meaning,
/// choices and default.
fn object_schema<T: Defaults>() -> Value {
    schema_of(T::docs(), &T::defaults())
}

/// An object schema of documented options with their defaults.
fn schema_of(docs: Vec<OptionDoc>, defaults: &Map<String, Value>) -> Value {
    let properties: Map<String, Value> = docs
        .into_iter()
        .map(|doc| {
            let mut property = json!({"type": doc.kind, "description": doc.about});
            if let Some(default) = defaults.get(&doc.name).filter(|v| !v.is_null()) {
                property["default"] = default.clone();
            }
            if let Some(choices) = &doc.choices {
                property["enum"] = choices.split(", ").map(|c| json!(c)).collect();
            }
            (doc.name, property)
        })
        .collect();
    json!({"type": "object", "properties": properties})
}

/// The OpenAPI 3.1 document of this server's API.
pub fn document() -> Value {
    let mut paths = Map::new();
    for endpoint in endpoints() {
        let parameters: Vec<Value> = endpoint
            .params
            .iter()
            .map(|p| {
                let mut schema = json!({"type": p.kind});
                if let Some(default) = &p.default {
                    schema["default"] = default.clone();
                }
                if let Some(choices) = &p.choices {
                    schema["enum"] = choices.split(", ").map(|c| json!(c)).collect();
                }
                json!({
                    "name": p.name,
                    "in": if p.location == In::Path { "path" } else { "query" },
                    "required": p.required,
                    "description": p.about,
                    "schema": schema,
                })
            })
            .collect();
        let media = if endpoint.streaming { "text/event-stream" } else { "application/json" };
        let mut operation = json!({
            "summary": endpoint.summary,
            "parameters": parameters,
            "responses": {
                "2XX": {"description": endpoint.answers, "content": {media: {}}},
                "default": {
                    "description": "an error: {\"error\": {\"code\", \"message\"}}",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
            },
        });
        if let Some(body) = endpoint.body {
            let schema = match endpoint.path {
                "/api/maps" => {
                    let fetch = json!({"description": "fetch the topic's field from OpenAlex into the served corpus first (needs `litnav serve --allow-network`)"});
                    let mut schema = merge(object_schema::<MapParams>(), json!({"required": MapParams::REQUIRED}));
                    schema["properties"]["fetch"] = merge(object_schema::<FetchParams>(), fetch);
                    schema
                }
                "/api/maps/{id}/nodes/{node}/expand" => object_schema::<ExpandParams>(),
                "/api/analytics/{query}" => analytics_schema(),
                _ => json!({"type": "object"}),
            };
            operation["requestBody"] = json!({
                "required": true,
                "description": body,
                "content": {"application/json": {"schema": schema}},
            });
        }
        if endpoint.path == "/api/search" {
            operation["responses"]["2XX"]["content"]["application/json"] =
                json!({"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Hit"}}});
        }
        let entry = paths.entry(endpoint.path.to_string()).or_insert_with(|| json!({}));
        entry[endpoint.method] = operation;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "litnav",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Find, organize, relate and measure scientific literature: the navigator's HTTP API. Ids are content-derived, so every URL is a permalink.",
        },
        "paths": paths,
        "components": {"schemas": {
            "Error": {
                "type": "object",
                "required": ["error"],
                "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {
                    "code": {"type": "string", "enum": Code::ALL.iter().map(|c| c.row().code).collect::<Vec<_>>()},
                    "message": {"type": "string"},
                }}},
            },
            "Hit": {
                "type": "object",
                "required": ["id", "title", "year", "score"],
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "year": {"type": ["integer", "null"]},
                    "score": {"type": "number"},
                    "known": {"type": "string", "description": "how the query named this paper (id, doi, openalex, arxiv, title, near title), when it did: such a paper comes first"},
                },
            },
        }},
    })
}

/// The analytics body: the engine's options and every query's own (each query takes its own).
fn analytics_schema() -> Value {
    let mut docs = EngineParams::docs();
    let mut defaults = EngineParams::defaults();
    for name in AnalyticsQuery::NAMES {
        for doc in AnalyticsQuery::docs(name) {
            if !docs.iter().any(|known| known.name == doc.name) {
                docs.push(doc);
            }
        }
        defaults.extend(AnalyticsQuery::defaults(name).unwrap_or_default());
    }
    schema_of(docs, &defaults)
}

/// `base` with `extra`'s keys added.
fn merge(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(base), Value::Object(extra)) = (&mut base, extra) {
        base.extend(extra);
    }
    base
}

/// `GET /api/openapi.json`.
pub(super) async fn serve() -> axum::Json<Value> {
    axum::Json(document())
}
