//! `litnav`: the command-line face of litnav. Thin by design: parse flags, call the application
//! layer (`litnav-app`), print. Errors print as one readable message with its causes (and, where
//! it helps, the flag or command that fixes it) and exit 1; a closed pipe (`litnav search … |
//! head`) exits quietly. The command is this library's [`main_with`], so that the Python package
//! can carry the same command (its `litnav` script calls it).

mod commands;
mod hints;
mod progress;

use clap::{CommandFactory, FromArgMatches, Parser};
use commands::Command;
use litnav_app::request::{Defaults, ExpandParams, FetchParams, MapParams, MetricParams, SearchParams};

/// litnav finds the papers that matter for a topic, organizes them, relates them through their
/// citations and measures all of it against expert surveys. Offline by default.
#[derive(Debug, Parser)]
#[command(name = "litnav", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Set (to anything) to have litnav print its peak resident memory on standard error as it exits
/// (`litnav bench memory` reads it from every command it runs).
const PEAK_MEMORY_VARIABLE: &str = "LITNAV_PEAK_MEMORY";

/// The command line's grammar: the derived one, with the defaults the application decides shown in
/// the help of the options that take them (the request types hold no clap defaults, so that every
/// default has one definition).
fn grammar() -> clap::Command {
    Cli::command()
        .mut_subcommand("search", show_defaults::<SearchParams>)
        .mut_subcommand("map", |map| show_defaults::<MapParams>(show_defaults::<FetchParams>(map)))
        .mut_subcommand("expand", show_defaults::<ExpandParams>)
        .mut_subcommand("relations", |relations| {
            ["disruption", "novelty", "citations", "paper"]
                .into_iter()
                .fold(relations, |relations, query| relations.mut_subcommand(query, show_defaults::<MetricParams>))
        })
        .mut_subcommand("fetch", |fetch| fetch.mut_subcommand("openalex", show_defaults::<FetchParams>))
}

/// `command`'s options of request type `T`, each help ending with its default.
fn show_defaults<T: Defaults>(command: clap::Command) -> clap::Command {
    T::defaults().into_iter().filter(|(_, value)| !value.is_null()).fold(command, |command, (name, value)| {
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

fn parse(words: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>) -> Result<Cli, clap::Error> {
    let matches = grammar().try_get_matches_from(words)?;
    Cli::from_arg_matches(&matches)
}

/// Run the command `words` (the program's name first) and answer its exit status: 0 when it
/// succeeded (or printed help), 1 when it failed (the error printed on standard error), 2 for a
/// command line clap refused.
pub fn main_with(words: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>) -> i32 {
    let cli = match parse(words) {
        Ok(cli) => cli,
        Err(refused) => {
            // Help and version print on standard output, refusals on standard error.
            let _ = refused.print();
            return refused.exit_code();
        }
    };
    let outcome = commands::run(cli.command);
    if std::env::var_os(PEAK_MEMORY_VARIABLE).is_some()
        && let Some(mib) = litnav_core::memory::peak_resident_mib()
    {
        eprintln!("{}{mib:.1} MiB", litnav_bench::memory::PEAK_LINE);
    }
    match outcome {
        Ok(()) => 0,
        Err(error) if is_broken_pipe(&error) => 0,
        Err(error) => {
            eprint!("{}", hints::explain(&error));
            1
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}

#[cfg(test)]
mod tests {
    //! One default per option: what the CLI resolves when a flag is absent, what the server
    //! resolves when a parameter is absent and what the OpenAPI document says must be one value.

    #![allow(clippy::unwrap_used)]

    use super::*;
    use litnav_app::request::Defaults;
    use serde_json::{Map, Value};

    fn as_map<T: serde::Serialize>(value: &T) -> Map<String, Value> {
        serde_json::to_value(value).unwrap().as_object().unwrap().clone()
    }

    /// The OpenAPI document's default of every parameter of `method path`.
    fn documented(path: &str, method: &str) -> Map<String, Value> {
        let document = litnav_server::openapi::document();
        let parameters = document["paths"][path][method]["parameters"].as_array().unwrap().clone();
        parameters
            .iter()
            .map(|p| {
                (p["name"].as_str().unwrap().to_string(), p["schema"].get("default").cloned().unwrap_or(Value::Null))
            })
            .collect()
    }

    fn agree<T: Defaults>(cli: Map<String, Value>, server: Map<String, Value>, document: Map<String, Value>) {
        for (name, default) in T::defaults() {
            let (from_cli, from_server) = (&cli[&name], &server[&name]);
            let from_document = document.get(&name).unwrap_or_else(|| panic!("{name} is not in the OpenAPI document"));
            assert_eq!(from_cli, &default, "{name}: the CLI's default");
            assert_eq!(from_server, &default, "{name}: the server's default");
            assert_eq!(from_document, &default, "{name}: the OpenAPI document's default");
        }
    }

    #[test]
    fn search_has_one_default_per_option_in_the_cli_the_server_and_the_document() {
        let Command::Search(args) = parse(["litnav", "search", "--query", "x"]).unwrap().command else { panic!() };
        let cli = as_map(&args.params.filled());
        let server: SearchParams = litnav_server::api::query_of("/api/search?q=x").unwrap();
        agree::<SearchParams>(cli, as_map(&server.filled()), documented("/api/search", "get"));
        assert_eq!(SearchParams::defaults()["mode"], "expanded");
    }

    #[test]
    fn fetch_has_one_default_per_option_in_the_cli_the_server_and_the_document() {
        let words = ["litnav", "fetch", "openalex", "--topic", "x", "--corpus", "d"];
        let Command::Fetch(commands::fetch::Source::Openalex(args)) = parse(words).unwrap().command else { panic!() };
        let cli = as_map(&args.params.filled());
        // The server's map body carries the same options as `fetch`.
        let server: FetchParams = serde_json::from_str("{}").unwrap();
        agree::<FetchParams>(cli, as_map(&server.filled()), documented_body("/api/maps", "post", true));
    }

    /// The OpenAPI document's default of every property of `method path`'s JSON body (or of its
    /// `fetch` object).
    fn documented_body(path: &str, method: &str, fetch: bool) -> Map<String, Value> {
        let document = litnav_server::openapi::document();
        let schema = &document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"];
        let properties = if fetch { &schema["properties"]["fetch"]["properties"] } else { &schema["properties"] };
        properties
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, p)| (name.clone(), p.get("default").cloned().unwrap_or(Value::Null)))
            .collect()
    }

    #[test]
    fn map_has_one_default_per_option_in_the_cli_the_server_and_the_document() {
        let Command::Map(args) = parse(["litnav", "map", "--topic", "x"]).unwrap().command else { panic!() };
        let cli = as_map(&args.params().filled());
        let server: MapParams = serde_json::from_str(r#"{"topic": "x"}"#).unwrap();
        agree::<MapParams>(cli, as_map(&server.filled()), documented_body("/api/maps", "post", false));
        assert_eq!(MapParams::defaults()["k"], 200);
        assert_eq!(MapParams::defaults()["llm_papers"], 12);
    }

    #[test]
    fn expand_has_one_default_per_option_in_the_cli_the_server_and_the_document() {
        let words = ["litnav", "expand", "--map", "m.json", "--subtopic", "t1"];
        let Command::Expand(args) = parse(words).unwrap().command else { panic!() };
        let cli = as_map(&args.params().filled());
        let server: ExpandParams = serde_json::from_str("{}").unwrap();
        let document = documented_body("/api/maps/{id}/nodes/{node}/expand", "post", false);
        agree::<ExpandParams>(cli, as_map(&server.filled()), document);
    }

    #[test]
    fn citation_measures_have_one_default_per_option_in_the_cli_the_server_and_the_document() {
        let words = ["litnav", "relations", "paper", "p1"];
        let Command::Relations(commands::relations::Query::Paper(args)) = parse(words).unwrap().command else {
            panic!()
        };
        let cli = as_map(&args.metric.filled());
        let server: MetricParams = litnav_server::api::query_of("/api/papers/p1").unwrap();
        agree::<MetricParams>(cli, as_map(&server.filled()), documented("/api/papers/{paper}", "get"));
        assert_eq!(MetricParams::defaults()["reading"], "subsequent");
    }

    #[test]
    fn the_help_shows_the_applications_defaults() {
        let mut search = grammar().find_subcommand("search").unwrap().clone();
        let help = search.render_help().to_string();
        assert!(help.contains("[default: expanded]"), "{help}");
        assert!(help.contains("[default: 10]"), "{help}");
        let mut map = grammar().find_subcommand("map").unwrap().clone();
        let help = map.render_help().to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains("[default: average]") && help.contains("[default: 0.32]"), "{help}");
    }
}
