//! The HTTP API: one table of endpoints from which both the router and `GET /api/openapi.json`
//! are made, so the description cannot leave a route out. Handlers are thin: they parse, call
//! litnav-app on a blocking thread, and answer with its typed results as JSON.

mod edits;
mod extract;
mod jobs;
mod maps;
pub mod openapi;
mod papers;
mod relations;
mod search;

pub use extract::query_of;
pub(crate) use extract::{blocking, blocking_with_turn};

use crate::state::AppState;
use axum::routing::{MethodRouter, delete, get, post, put};
use litnav_app::request::{Defaults, MetricParams, PathParams, RankParams, SearchParams};
use serde_json::Value;
use std::borrow::Cow;

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum In {
    /// In the path.
    Path,
    /// In the query string.
    Query,
}

/// A parameter of an endpoint.
#[derive(Debug, Clone)]
pub struct Param {
    /// Name.
    pub name: Cow<'static, str>,
    /// Where it goes.
    pub location: In,
    /// JSON type (`string`, `integer`, `number`, `boolean`).
    pub kind: &'static str,
    /// Whether it must be given.
    pub required: bool,
    /// What it means (with its default, when `default` does not give it).
    pub about: Cow<'static, str>,
    /// Its default, when the request type defines one.
    pub default: Option<Value>,
    /// The values it takes, when chosen by name.
    pub choices: Option<String>,
}

const fn path(name: &'static str, about: &'static str) -> Param {
    Param {
        name: Cow::Borrowed(name),
        location: In::Path,
        kind: "string",
        required: true,
        about: Cow::Borrowed(about),
        default: None,
        choices: None,
    }
}

/// Every option of a request type of the application as a query parameter, with its default.
fn request_params<T: Defaults>() -> Vec<Param> {
    let defaults = T::defaults();
    T::docs()
        .into_iter()
        .map(|doc| Param {
            required: T::REQUIRED.contains(&doc.name.as_str()),
            default: defaults.get(&doc.name).filter(|v| !v.is_null()).cloned(),
            name: Cow::Owned(doc.name),
            location: In::Query,
            kind: doc.kind,
            about: Cow::Owned(doc.about),
            choices: doc.choices,
        })
        .collect()
}

/// The filters of a map's paper listings and of its tree's counts.
const PAPER_FILTERS: [Param; 5] = [
    query("from", "integer", "earliest year"),
    query("to", "integer", "latest year"),
    query("q", "string", "words that must all occur in title, abstract, authors or venue"),
    query("venue", "string", "text the venue must contain"),
    query("min_citations", "integer", "fewest citations"),
];

const fn query(name: &'static str, kind: &'static str, about: &'static str) -> Param {
    Param {
        name: Cow::Borrowed(name),
        location: In::Query,
        kind,
        required: false,
        about: Cow::Borrowed(about),
        default: None,
        choices: None,
    }
}

/// One endpoint: its method, path, description and handler.
pub struct Endpoint {
    /// `get`, `post`, `put` or `delete`.
    pub method: &'static str,
    /// The path, with `{name}` for path parameters.
    pub path: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Its parameters.
    pub params: Vec<Param>,
    /// The JSON body it reads, described (POST).
    pub body: Option<&'static str>,
    /// What it answers.
    pub answers: &'static str,
    /// An event stream (no time limit, no compression).
    pub streaming: bool,
    /// The handler.
    pub handler: MethodRouter<AppState>,
}

const ID: Param = path("id", "a map's id (16 hex digits)");
const NODE: Param = path("node", "a node's id in the map (`t2`, `t2.s1`)");

/// Every endpoint of the API.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint {
            method: "get",
            path: "/api/health",
            summary: "Whether the server is up, and the corpus generation it serves",
            params: vec![],
            body: None,
            answers: "{status, version, corpus, generation, papers, jobs_running, llm, network, vectors: {started, ready, done, total}, query_precision}",
            streaming: false,
            handler: get(search::health),
        },
        Endpoint {
            method: "get",
            path: "/api/usage",
            summary: "The budgets per caller (jobs at once, fetch calls a day, maps a minute) and what was spent",
            params: vec![],
            body: None,
            answers: "{caller, budgets: {jobs_at_once, fetch_calls_per_day, maps_per_minute}, spent: {jobs_running, fetch_calls_today, maps_last_minute}}",
            streaming: false,
            handler: get(search::usage),
        },
        Endpoint {
            method: "get",
            path: "/api/openapi.json",
            summary: "This description of the API (OpenAPI 3.1)",
            params: vec![],
            body: None,
            answers: "an OpenAPI document",
            streaming: false,
            handler: get(openapi::serve),
        },
        Endpoint {
            method: "get",
            path: "/api/corpus",
            summary: "What the corpus holds: papers, topics, coverage of each field",
            params: vec![],
            body: None,
            answers: "the report of `litnav info --json`",
            streaming: false,
            handler: get(search::corpus),
        },
        Endpoint {
            method: "get",
            path: "/api/topics",
            summary: "The stored expert surveys a map can be scored against",
            params: vec![],
            body: None,
            answers: "[{id, title, year, references, taxonomy, outline}]",
            streaming: false,
            handler: get(search::topics),
        },
        Endpoint {
            method: "get",
            path: "/api/search",
            summary: "Rank the corpus's papers for a query",
            params: request_params::<SearchParams>(),
            body: None,
            answers: "[{id, title, year, score}] best first, as `litnav search --json`; the header Litnav-Search-Mode names the mode that ranked them (bm25 while a cold corpus computes its vectors, with Litnav-Search-Notice saying so)",
            streaming: false,
            handler: get(search::search),
        },
        Endpoint {
            method: "get",
            path: "/api/maps",
            summary: "The maps this server has built, newest first (at most 100)",
            params: vec![],
            body: None,
            answers: "[{id, topic, parent, papers}]",
            streaming: false,
            handler: get(maps::list),
        },
        Endpoint {
            method: "post",
            path: "/api/maps",
            summary: "Start building a map of a topic (a job; the same request joins the same job or map)",
            params: vec![],
            body: Some(
                "the map's options (topic required; every other option as `litnav map`'s, same defaults) and fetch?: the fetch's options",
            ),
            answers: "202 {job, map}: the job's state and the id its map will have",
            streaming: false,
            handler: post(maps::create),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}",
            summary: "A map: themes and subtopics with names, descriptions, relevance, papers; the Filtered branch with its reasons",
            params: vec![ID],
            body: None,
            answers: "{id, topic, request, parent, expanded, papers, map (with its corrections by hand applied), notices, coverage, revision, edits}",
            streaming: false,
            handler: get(maps::read),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/counts",
            summary: "For every node of a map, how many of its papers pass the filters (the tree's counts while filtering)",
            params: [vec![ID], PAPER_FILTERS.to_vec()].concat(),
            body: None,
            answers: "{counts: {node id: papers}}",
            streaming: false,
            handler: get(maps::node_counts),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/nodes/{node}/papers",
            summary: "The papers at or below a node, sorted, filtered and paged",
            params: vec![ID, NODE, query("sort", "string", "map (default), year, citations or title")]
                .into_iter()
                .chain(PAPER_FILTERS)
                .chain([
                    query("offset", "integer", "rows skipped (default 0)"),
                    query("limit", "integer", "rows (default 50, at most 1000)"),
                ])
                .collect(),
            body: None,
            answers: "{node, name, total, papers: [{id, title, year, venue, authors, citations, node}]}",
            streaming: false,
            handler: get(maps::node_papers),
        },
        Endpoint {
            method: "post",
            path: "/api/maps/{id}/nodes/{node}/expand",
            summary: "Grow a subtopic with new papers into its own sub-map, grafted into a new map (a job)",
            params: vec![ID, NODE],
            body: Some("the expansion's options, as `litnav expand`'s (optional; none: the defaults)"),
            answers: "202 {job, map}: the job and the id of the map with the graft",
            streaming: false,
            handler: post(maps::expand),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/papers/{paper}",
            summary: "Why a paper is in the map: its place, the node's relevance, secondary memberships",
            params: vec![ID, path("paper", "a paper id")],
            body: None,
            answers: "{paper, path, node, node_relevance, filtered_because, also_in}",
            streaming: false,
            handler: get(maps::placement),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/graph",
            summary: "The citation graph of the map's papers with positions (seeded layout) and a node cap",
            params: vec![ID, query("cap", "integer", "most papers drawn, the most cited (default 2000, at most 5000)")],
            body: None,
            answers: "{themes, nodes: [{id, title, year, cited_by, citations, theme, x, y}], edges: [[citing, cited]], omitted, seed}",
            streaming: false,
            handler: get(maps::graph),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/checks",
            summary: "Which parts of a map to distrust, by checks that need no expert tree: sibling overlap, gaps, balance, label problems, semantic-taxonomic correlation, parent-child entailment",
            params: vec![ID],
            body: None,
            answers: "{nodes, leaves, depth, papers, …, entailment, entailment_by, problems: [{kind, node, name, reason, other?, papers?}], suggestions: [{id, kind, node, action, edits}]}, as the `checks` of `litnav map --json`",
            streaming: false,
            handler: get(maps::checks),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/edits",
            summary: "A map's corrections by hand: its edit log and revision",
            params: vec![ID],
            body: None,
            answers: "{revision, edits: [{op, who?, when?, …}]} (the entries of `litnav map --edits`)",
            streaming: false,
            handler: get(edits::read),
        },
        Endpoint {
            method: "put",
            path: "/api/maps/{id}/edits",
            summary: "Replace a map's edit log (undo and redo send a shorter or longer one): the map becomes the map as built with it applied, under the same id",
            params: vec![ID],
            body: Some(
                "{revision: the revision the log was made on, edits: [entries as `litnav map --edits` reads them]}",
            ),
            answers: "{revision, edits}; 400 naming the first entry that does not fit; 409 when the map was edited elsewhere since that revision",
            streaming: false,
            handler: put(edits::replace),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/split/{node}",
            summary: "The split litnav proposes for a leaf: two groups of its papers by their titles' vectors, the smaller under a new name from its key phrases",
            params: vec![ID, path("node", "a leaf's id (4 papers or more)")],
            body: None,
            answers: "{id, kind, node, action, edits: [{op: \"split\", node, papers, name}]}; 400 for a node that does not split",
            streaming: false,
            handler: get(edits::propose_split),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/timeline",
            summary: "Papers per theme per year",
            params: vec![ID],
            body: None,
            answers: "{years, themes: [{id, name, filtered, counts}], undated}",
            streaming: false,
            handler: get(maps::timeline),
        },
        Endpoint {
            method: "post",
            path: "/api/maps/{id}/score",
            summary: "Score the map against a stored expert survey's taxonomy or outline (every tree metric)",
            params: vec![ID],
            body: Some("{survey: a topic id or title, similarity?: embedding|string|public}"),
            answers: "the report of `litnav eval tree --json`",
            streaming: false,
            handler: post(maps::score),
        },
        Endpoint {
            method: "get",
            path: "/api/maps/{id}/export",
            summary: "The map as a file: its papers as BibTeX, RIS or CSV; the map as JSON, Markdown or the HTML page",
            params: vec![
                ID,
                query("format", "string", "bibtex, ris, csv, json, markdown or html (default bibtex)"),
                query("node", "string", "a node's id: that subtopic alone (default: the whole map)"),
            ],
            body: None,
            answers: "the file, as an attachment",
            streaming: false,
            handler: get(maps::export),
        },
        Endpoint {
            method: "post",
            path: "/api/export",
            summary: "A basket of papers as a file",
            params: vec![],
            body: Some("{ids: [paper id], format?: bibtex|ris|csv|json|markdown|html, title?}"),
            answers: "the file, as an attachment",
            streaming: false,
            handler: post(papers::export),
        },
        Endpoint {
            method: "get",
            path: "/api/papers/{paper}",
            summary: "A paper with every relation litnav computes: CD (or why it is undefined), novelty, percentiles, citers with their contexts and sentiment, references, co-cited and coupled papers",
            params: [path("paper", "a paper id")].into_iter().chain(request_params::<MetricParams>()).collect(),
            body: None,
            answers: "{paper, profile, references, citers}",
            streaming: false,
            handler: get(papers::paper),
        },
        Endpoint {
            method: "post",
            path: "/api/papers/{paper}/sentiment",
            summary: "Classify the paper's citing mentions that have no sentiment with the server's LLM, as a job; the paper then shows the labels (kept while the corpus generation is served)",
            params: vec![path("paper", "a paper id")],
            body: None,
            answers: "202 {job, paper}; Location: the job (400 when the server has no LLM endpoint)",
            streaming: false,
            handler: post(papers::classify),
        },
        Endpoint {
            method: "get",
            path: "/api/path",
            summary: "The maximum-citation and shortest citation paths from one paper to another, hop by hop with the citing sentences",
            params: request_params::<PathParams>(),
            body: None,
            answers: "{report, hops: [{citing, cited, sentences}]}",
            streaming: false,
            handler: get(papers::path),
        },
        Endpoint {
            method: "get",
            path: "/api/rankings/{measure}",
            summary: "The corpus's papers (or a topic's) ranked by disruption, novelty or citations",
            params: [vec![path("measure", "disruption, novelty or citations")], request_params::<RankParams>()]
                .concat(),
            body: None,
            answers: "the ranking of `litnav relations disruption|novelty|citations --json`",
            streaming: false,
            handler: get(relations::ranking),
        },
        Endpoint {
            method: "post",
            path: "/api/analytics/{query}",
            summary: "Run a citation analytics query (as `litnav analytics`) on the served corpus's Parquet export; its values are then used by rankings and papers",
            params: vec![path("query", "cd, counts, cocitation, coupling or novelty")],
            body: Some("the query's options and the engine's (memory or local), as `litnav analytics QUERY`'s flags"),
            answers: "{report: as `litnav analytics QUERY --json`, ranking: the papers ranked by the values (cd, novelty, counts) or null}; 400 naming the feature when the server was built without `analytics`",
            streaming: false,
            handler: post(relations::analytics),
        },
        Endpoint {
            method: "get",
            path: "/api/jobs/{job}",
            summary: "A job's state: its steps so far, and its map or error once it ends",
            params: vec![path("job", "a job id")],
            body: None,
            answers: "{id, kind, title, state, steps, notices, map, error, elapsed_ms}",
            streaming: false,
            handler: get(jobs::read),
        },
        Endpoint {
            method: "delete",
            path: "/api/jobs/{job}",
            summary: "Cancel a job (it stops at its next step)",
            params: vec![path("job", "a job id")],
            body: None,
            answers: "the job's state",
            streaming: false,
            handler: delete(jobs::cancel),
        },
        Endpoint {
            method: "get",
            path: "/api/jobs/{job}/events",
            summary: "The job's state as a stream of server-sent events (`job`), until it ends; keep-alive comments every 15 s",
            params: vec![path("job", "a job id")],
            body: None,
            answers: "text/event-stream",
            streaming: true,
            handler: get(jobs::events),
        },
    ]
}
