//! One default per option: what the CLI resolves when a flag is absent, what the server
//! resolves when a parameter is absent and what the OpenAPI document says must be one value —
//! and, where the library has a request of its own with defaults (a search, a fetch plan, the
//! citation measures), that value is the library's: both faces' requests resolve to it.

use litnav_app::request::Defaults;
use litnav_app::request::analytics::{AnalyticsQuery, EngineParams};
use litnav_app::request::{ExpandParams, FetchParams, MapParams, MetricParams, PathParams, RankParams, SearchParams};
use litnav_cli::commands::{self, Command};
use litnav_cli::{grammar, parse};
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
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["schema"].get("default").cloned().unwrap_or(Value::Null)))
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
    let library = litnav_app::SearchRequest::new("x");
    assert_eq!(args.params.resolve().unwrap(), library, "the CLI's search is the library's default one");
    assert_eq!(server.resolve().unwrap(), library, "the server's search is the library's default one");
}

#[test]
fn fetch_has_one_default_per_option_in_the_cli_the_server_and_the_document() {
    let words = ["litnav", "fetch", "openalex", "--topic", "x", "--corpus", "d"];
    let Command::Fetch(commands::fetch::Source::Openalex(args)) = parse(words).unwrap().command else { panic!() };
    let cli = as_map(&args.params.filled());
    // The server's map body carries the same options as `fetch`.
    let server: FetchParams = serde_json::from_str("{}").unwrap();
    agree::<FetchParams>(cli, as_map(&server.filled()), documented_body("/api/maps", "post", true));
    let library = litnav_fetch::Plan::new("x");
    assert_eq!(args.params.plan("x").unwrap(), library, "the CLI's fetch is the library's default plan");
    assert_eq!(server.plan("x").unwrap(), library, "the server's fetch is the library's default plan");
    let rate = litnav_fetch::HttpConfig::default().rate;
    assert_eq!((args.params.rate().unwrap(), server.rate().unwrap()), (rate, rate), "the HTTP client's rate");
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
    let library = litnav_app::maps::MapRequest::new("x", 7);
    assert_eq!(args.params().resolve(7).unwrap(), library, "the CLI's map is the library's default one");
    assert_eq!(server.resolve(7).unwrap(), library, "the server's map is the library's default one");
}

#[test]
fn expand_has_one_default_per_option_in_the_cli_the_server_and_the_document() {
    let words = ["litnav", "expand", "--map", "m.json", "--subtopic", "t1"];
    let Command::Expand(args) = parse(words).unwrap().command else { panic!() };
    let cli = as_map(&args.params().filled());
    let server: ExpandParams = serde_json::from_str("{}").unwrap();
    let document = documented_body("/api/maps/{id}/nodes/{node}/expand", "post", false);
    agree::<ExpandParams>(cli, as_map(&server.filled()), document);
    let library = litnav_app::maps::ExpandRequest::new("t1", 7);
    assert_eq!(args.params().resolve("t1", 7).unwrap(), library, "the CLI's expansion is the library's default one");
    assert_eq!(server.resolve("t1", 7).unwrap(), library, "the server's expansion is the library's default one");
}

#[test]
fn citation_measures_have_one_default_per_option_in_the_cli_the_server_and_the_document() {
    let words = ["litnav", "relations", "paper", "p1"];
    let Command::Relations(commands::relations::Query::Paper(args)) = parse(words).unwrap().command else { panic!() };
    let cli = as_map(&args.metric.filled());
    let server: MetricParams = litnav_server::api::query_of("/api/papers/p1").unwrap();
    agree::<MetricParams>(cli, as_map(&server.filled()), documented("/api/papers/{paper}", "get"));
    assert_eq!(MetricParams::defaults()["reading"], "subsequent");
    let library = litnav_app::relations::MetricOptions { seed: 7, ..Default::default() };
    assert_eq!(args.metric.resolve(7).unwrap(), library, "the CLI's measures are the library's defaults");
    assert_eq!(server.resolve(7).unwrap(), library, "the server's measures are the library's defaults");
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

#[test]
fn rankings_have_one_default_per_option_in_the_cli_the_server_and_the_document() {
    let words = ["litnav", "relations", "disruption"];
    let Command::Relations(commands::relations::Query::Disruption(args)) = parse(words).unwrap().command else {
        panic!()
    };
    let server: RankParams = litnav_server::api::query_of("/api/rankings/disruption").unwrap();
    let document = documented("/api/rankings/{measure}", "get");
    agree::<RankParams>(as_map(&args.params.filled()), as_map(&server.filled()), document);
    let disruption = litnav_app::relations::Measure::Disruption;
    let library = litnav_app::relations::RankRequest::new(disruption, 7);
    assert_eq!(args.params.resolve(disruption, 7).unwrap(), library, "the CLI's ranking is the library's default one");
    assert_eq!(server.resolve(disruption, 7).unwrap(), library, "the server's ranking is the library's default one");
}

#[test]
fn paths_have_one_default_per_option_in_the_cli_the_server_and_the_document() {
    let Command::Relations(commands::relations::Query::Path(args)) =
        parse(["litnav", "relations", "path", "a", "b"]).unwrap().command
    else {
        panic!()
    };
    let server: PathParams = litnav_server::api::query_of("/api/path?from=a&to=b").unwrap();
    agree::<PathParams>(as_map(&args.params.filled()), as_map(&server.filled()), documented("/api/path", "get"));
    let library = litnav_app::request::relations::PathRequest::new("a", "b");
    assert_eq!(args.params.resolve().unwrap(), library, "the CLI's path is the library's default one");
    assert_eq!(server.resolve().unwrap(), library, "the server's path is the library's default one");
}

#[test]
fn analytics_have_one_default_per_option_in_the_cli_the_server_and_the_document() {
    let document = documented_body("/api/analytics/{query}", "post", false);
    for name in AnalyticsQuery::NAMES {
        let words = ["litnav", "analytics", name, "--parquet", "p", "--out", "o"];
        let Command::Analytics(query) = parse(words).unwrap().command else { panic!() };
        let (cli_query, cli_engine) = commands::analytics::request(query);
        // The server's body: the query's options and the engine's, from an empty object.
        let server_query = AnalyticsQuery::from_json(name, serde_json::json!({})).unwrap();
        let server_engine: EngineParams = serde_json::from_str("{}").unwrap();
        agree::<EngineParams>(as_map(&cli_engine.filled()), as_map(&server_engine.filled()), document.clone());
        assert_eq!(cli_query.filled(), server_query.filled(), "{name}");
        for (option, default) in AnalyticsQuery::defaults(name).unwrap() {
            assert_eq!(document[&option], default, "{name} {option}: the OpenAPI document's default");
        }
    }
    assert_eq!(EngineParams::defaults()["engine"], "local");
}
