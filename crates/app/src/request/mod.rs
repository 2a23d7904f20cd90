//! Requests as the faces receive them, defined once. Each request type here is what the CLI parses
//! its flags into (clap derives behind the `clap` feature) and what the server deserializes its
//! query strings and bodies into; every option is optional in it, one method (`filled`) decides
//! every default, one (`resolve`) validates and gives the library's request. The OpenAPI
//! document's parameters, types and defaults come from [`Defaults`], and a test of the workspace
//! walks every option of every request to check that the CLI, the server and the document agree.
//!
//! [`names`] holds the options chosen by name, each with one table of names.

pub mod analytics;
pub mod fetch;
pub mod ingest;
pub mod map;
pub mod names;
pub mod relations;
pub mod score;
pub mod search;
pub mod workspace;

pub use fetch::{FetchParams, FetchTopicParams};
pub use map::{ExpandNodeParams, ExpandParams, MapParams};
pub use names::{
    CompatName, EngineName, FusionName, InputName, MeasureName, MethodName, ModeName, NeighbourhoodName, PrecisionName,
    ReadingName, RelationName, ScanName, SimilarityName, SnowballName, SourceName, UnitsName,
};
pub use relations::{CitationsParams, MetricParams, PaperParams, PathParams, RankParams, RelatedParams};
pub use score::{LinesOrFile, ScoreSurveyParams, ScoreTaxobenchParams};
pub use search::SearchParams;
pub use workspace::{LlmParams, ModelParams, SERVING_QUERY_PRECISION};

use serde_json::{Map, Value};

/// One option of a request, as documentation shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionDoc {
    /// Its name in the API (the CLI's flag is the same with dashes).
    pub name: String,
    /// Its JSON type (`string`, `integer`, `number`, `boolean`).
    pub kind: &'static str,
    /// What it means: the field's doc comment (the CLI's help says the same).
    pub about: String,
    /// The values it takes, when chosen by name.
    pub choices: Option<String>,
}

/// What documentation and the defaults test need of a request type.
pub trait Defaults: schemars::JsonSchema {
    /// The options that must be given.
    const REQUIRED: &'static [&'static str];

    /// Options of which one must be given, none alone required (a search's words or a paper's
    /// id); they have no default.
    const ONE_OF: &'static [&'static str] = &[];

    /// Every option, in the order the type declares them, from its JSON schema ([`docs_of`]).
    fn docs() -> Vec<OptionDoc> {
        docs_of::<Self>()
    }

    /// Every option's default by its API name (`null` where the default is "not set").
    fn defaults() -> Map<String, Value>;
}

/// The documentation of `T`'s options, read from its JSON schema (derived by schemars): each
/// option's name as serde spells it, its JSON type, its choices when it is chosen by name, and its
/// meaning — the field's doc comment, which is also its CLI help, so that every description is
/// written once. An option that is itself a request (a map's `fetch`) is left out: it is
/// documented as a request of its own.
pub fn docs_of<T: schemars::JsonSchema + ?Sized>() -> Vec<OptionDoc> {
    let schema = schemars::schema_for!(T);
    let root = schema.as_value();
    let resolve = |value: &Value| -> Value {
        let referenced = |value: &Value| -> Value {
            match value.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
                Some(name) => root["$defs"][name].clone(),
                None => value.clone(),
            }
        };
        // An `Option<T>` is `T` or null: the option's type is `T`'s.
        let variants = value.get("anyOf").or_else(|| value.get("oneOf")).and_then(Value::as_array);
        match variants {
            Some(variants) => {
                variants.iter().find(|v| v.get("type") != Some(&Value::from("null"))).map_or(Value::Null, referenced)
            }
            None => referenced(value),
        }
    };
    let Some(properties) = root.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .filter_map(|(name, property)| {
            let option = resolve(property);
            if option.get("properties").is_some() {
                return None;
            }
            let about = [property.get("title"), property.get("description")]
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ");
            let choices = option
                .get("enum")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "));
            Some(OptionDoc { name: name.clone(), kind: json_kind(&option), about, choices })
        })
        .collect()
}

/// The JSON type of an option's schema (its first type other than null).
fn json_kind(option: &Value) -> &'static str {
    let types: Vec<&str> = match option.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    match types.into_iter().find(|kind| *kind != "null") {
        Some("integer") => "integer",
        Some("number") => "number",
        Some("boolean") => "boolean",
        Some("array") => "array",
        _ => "string",
    }
}

/// `command`'s options named in `defaults`, each help ending with its default there: the request
/// types carry no clap defaults (every default has one definition, in `filled`), so the CLI's
/// help shows the application's.
#[cfg(feature = "clap")]
pub fn show_defaults(command: clap::Command, defaults: Map<String, Value>) -> clap::Command {
    defaults.into_iter().filter(|(_, value)| !value.is_null()).fold(command, |command, (name, value)| {
        if !command.get_arguments().any(|arg| arg.get_id() == name.as_str()) {
            return command;
        }
        let shown = value.as_str().map_or_else(|| value.to_string(), str::to_string);
        command.mut_arg(name, |arg| {
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            arg.help(format!("{help} [default: {shown}]"))
        })
    })
}

/// The id of what `parts` describe (a map by its corpus and request; an expansion by its map,
/// node and options): 16 hex digits of their SHA-1, each part ended by a zero byte. The server's
/// permalinks and the MCP server's maps are named by it.
pub fn digest(parts: &[&str]) -> String {
    let mut hasher = sha1_smol::Sha1::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest().to_string()[..16].to_string()
}

/// A request's options as a JSON object by API name.
fn to_map<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option a request serializes is documented, and every documented one is an option
    /// with a description.
    fn documented<T: Defaults>() {
        let docs = T::docs();
        for doc in &docs {
            assert!(doc.about.len() > 10, "{} has no description", doc.name);
        }
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        for name in T::defaults().keys() {
            assert!(names.contains(&name.as_str()), "{name} has a default but no documentation");
        }
        for name in &names {
            let given = T::REQUIRED.contains(name) || T::ONE_OF.contains(name);
            assert!(T::defaults().contains_key(*name) || given, "{name} has no default");
        }
    }

    #[test]
    fn every_option_is_documented_once_with_its_default() {
        documented::<SearchParams>();
        documented::<FetchParams>();
        documented::<MapParams>();
        documented::<ExpandParams>();
        documented::<MetricParams>();
        documented::<RankParams>();
        documented::<PathParams>();
        documented::<analytics::EngineParams>();
    }

    #[test]
    fn an_options_documentation_is_its_doc_comment_with_its_type_and_choices() {
        let docs = SearchParams::docs();
        let doc = |name: &str| docs.iter().find(|d| d.name == name).unwrap().clone();
        assert_eq!(doc("q").about, "What to look for, in plain words (no query syntax); this or `like`.");
        assert_eq!((doc("k").kind, doc("alpha").kind, doc("exclude_surveys").kind), ("integer", "number", "boolean"));
        assert_eq!(doc("mode").choices.as_deref(), Some(ModeName::names().as_str()));
        assert_eq!(doc("mode").kind, "string");
        // A nested request is documented on its own.
        assert!(MapParams::docs().iter().all(|d| d.name != "fetch"));
        assert!(MapParams::docs().iter().any(|d| d.name == "llm_papers"));
    }
}
