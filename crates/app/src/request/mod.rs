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

pub use fetch::FetchParams;
pub use map::{ExpandParams, MapParams};
pub use names::{
    CompatName, EngineName, FusionName, InputName, MeasureName, MethodName, ModeName, NeighbourhoodName, PrecisionName,
    ReadingName, ScanName, SimilarityName, SnowballName, SourceName, UnitsName,
};
pub use relations::{MetricParams, PathParams, RankParams};
pub use search::SearchParams;
pub use workspace::{LlmParams, ModelParams, SERVING_QUERY_PRECISION};

use serde_json::{Map, Value};

/// One option of a request, as documentation shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionDoc {
    /// Its name in the API (the CLI's flag is the same with dashes).
    pub name: &'static str,
    /// Its JSON type (`string`, `integer`, `number`, `boolean`).
    pub kind: &'static str,
    /// What it means.
    pub about: String,
    /// The values it takes, when chosen by name.
    pub choices: Option<String>,
}

impl OptionDoc {
    /// A plain option.
    pub fn new(name: &'static str, kind: &'static str, about: &str) -> OptionDoc {
        OptionDoc { name, kind, about: about.to_string(), choices: None }
    }

    /// An option chosen by name among `choices` (comma-separated).
    pub fn choice(name: &'static str, choices: String, about: &str) -> OptionDoc {
        OptionDoc { name, kind: "string", about: about.to_string(), choices: Some(choices) }
    }
}

/// What documentation and the defaults test need of a request type.
pub trait Defaults {
    /// The options that must be given.
    const REQUIRED: &'static [&'static str];

    /// Every option, in the order the faces list them.
    fn docs() -> Vec<OptionDoc>;

    /// Every option's default by its API name (`null` where the default is "not set").
    fn defaults() -> Map<String, Value>;
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

    /// Every option a request serializes is documented, and every documented one is an option.
    fn documented<T: Defaults>() {
        let names: Vec<&str> = T::docs().iter().map(|d| d.name).collect();
        for name in T::defaults().keys() {
            assert!(names.contains(&name.as_str()), "{name} has a default but no documentation");
        }
        for name in &names {
            assert!(T::defaults().contains_key(*name) || T::REQUIRED.contains(name), "{name} has no default");
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
}
