//! The tools: each one a request type of `litnav-app` (its JSON schema is the tool's input
//! schema, its doc comments the descriptions, its `resolve` the defaults and the checks) and the
//! service that answers it. The answer is what the command's `--json` prints — an object, as the
//! protocol wants structured content, so lists are under a name — with a few lines of text.

use crate::Litnav;
use litnav_app::request::{
    CitationsParams, ExpandNodeParams, FetchTopicParams, LinesOrFile, MapParams, PaperParams, PathParams,
    RelatedParams, RelationName, ScoreSurveyParams, ScoreTaxobenchParams, SearchParams,
};
use litnav_app::score::taxobench::{self, Lines};
use litnav_app::{Error, Progress, Result, SearchRequest};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One tool: its fixed name, what it does, its input schema and how it is answered.
pub struct Tool {
    /// The name agents call it by (fixed: part of litnav's interface).
    pub name: &'static str,
    /// A human-readable title.
    pub title: &'static str,
    /// What it does and answers, for the agent choosing a tool.
    pub about: &'static str,
    /// The request type's JSON schema.
    pub schema: fn() -> Map<String, Value>,
    /// Whether it only reads (a map or an expansion is kept for later calls, which is not a
    /// change of the corpus).
    pub read_only: bool,
    /// Whether it opens network connections (offered only where the server's owner allows it).
    pub network: bool,
    /// Whether it needs files of the server's machine named by the call (offered only where
    /// calls may name them: not on a web server).
    pub reads_files: bool,
    /// The answer to a call's arguments.
    pub answer: fn(&Litnav, Map<String, Value>, &dyn Progress) -> Result<Answer>,
}

/// A tool's answer: the structured content and its summary in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The command's JSON, as an object.
    pub structured: Value,
    /// A few lines for a reader (the client shows them; a model reads them first).
    pub summary: String,
}

impl Answer {
    /// `value` as its command prints it: written as JSON text and read back, so that an `f32`
    /// keeps its shortest form (`0.7566291`, where a conversion to a JSON value widens it to
    /// `0.7566291093826294`).
    fn of<T: Serialize>(value: &T, summary: String) -> Result<Answer> {
        let text = serde_json::to_string(value).map_err(|e| Error::internal(e.to_string()))?;
        let structured = serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string()))?;
        Ok(Answer { structured, summary })
    }
}

/// Every tool, in the order they are listed.
pub fn all() -> Vec<Tool> {
    vec![
        Tool {
            name: "search",
            title: "Search the corpus",
            about: "Rank the corpus's papers for a query, as `litnav search --json` (under `hits`): the expanded \
                    search by default; a pasted title, DOI, arXiv or OpenAlex id puts its paper first. \
                    ResearchArena's leakage filters: `before` (a year) and `exclude_surveys`. Or `like`: the \
                    papers nearest one paper's vector.",
            schema: schema::<SearchParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: search,
        },
        Tool {
            name: "paper",
            title: "One paper",
            about: "A paper's record (title, abstract, year, venue, authors, identifiers, whether its source \
                    marks it retracted) and its citation profile: citations in and out, disruption (CD index) \
                    and novelty with their percentiles, the papers most co-cited and coupled with it.",
            schema: schema::<PaperParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: paper,
        },
        Tool {
            name: "citations",
            title: "References and citers",
            about: "The papers a paper cites (in the corpus) and the papers citing it, with the sentence that \
                    cites it and its sentiment where the corpus holds citation contexts.",
            schema: schema::<CitationsParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: citations,
        },
        Tool {
            name: "related",
            title: "Related papers",
            about: "Papers related to a paper: co-cited with it, coupled with it (shared references), \
                    co-mentioned in one paragraph, or similar by their vectors.",
            schema: schema::<RelatedParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: related,
        },
        Tool {
            name: "path",
            title: "Citation path",
            about: "The maximum-citation path from a citing paper to a cited one through what cites what (SciNet), \
                    the shortest paths and the distance.",
            schema: schema::<PathParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: path,
        },
        Tool {
            name: "map",
            title: "Map a topic",
            about: "Organize a topic's papers into a map — themes and subtopics with names, descriptions and their \
                    papers — as `litnav map --json` (with the coverage verdict and the map's checks), plus the \
                    map's `id` for `expand` and the resource litnav://maps/{id}. Takes a minute on a large \
                    corpus: it reports progress and can be cancelled.",
            schema: schema::<MapParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: map,
        },
        Tool {
            name: "expand",
            title: "Expand a subtopic",
            about: "Grow one subtopic of a map made by `map`: retrieve new papers for it and organize them into a \
                    sub-map (as `litnav expand --json`), itself a map with an `id` that can be expanded again.",
            schema: schema::<ExpandNodeParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: expand,
        },
        Tool {
            name: "score_taxobench",
            title: "Score taxonomies (TaxoBench)",
            about: "Score taxonomies against TaxoBench's expert ones, as the benchmark does (the public scorer's \
                    metrics: retrieval P/R/F1 after title alignment, leaf ARI and V-measure, Sem-Path, US-TED, \
                    NSR/NSP/Soft-F1): prediction lines `{id, hierarchy_tree}` given inline or as a file. Answers \
                    the summary (`litnav eval taxobench --json`), the scores per instance and the problems.",
            schema: schema::<ScoreTaxobenchParams>,
            read_only: true,
            network: false,
            reads_files: false,
            answer: score_taxobench,
        },
        Tool {
            name: "score_survey",
            title: "Score a survey (Bloom-Eval)",
            about: "Score a generated survey against an expert one with Bloom-Eval's 16 metrics in six tiers \
                    (`litnav eval survey --json`); those needing an LLM say why they did not run unless `llm` is \
                    asked for and the server has one. The generated survey as a file or as Markdown text.",
            schema: schema::<ScoreSurveyParams>,
            read_only: true,
            network: false,
            reads_files: true,
            answer: score_survey,
        },
        Tool {
            name: "fetch_openalex",
            title: "Fetch a field from OpenAlex",
            about: "Fetch a topic's field from OpenAlex into the corpus this server serves — the works the topic \
                    search finds, the works they cite and the works citing them, with the citations among them \
                    (as `litnav fetch openalex --json`) — so the other tools answer from it. Offered only when \
                    the server's owner allows network connections; reports progress and can be cancelled.",
            schema: schema::<FetchTopicParams>,
            read_only: false,
            network: true,
            reads_files: false,
            answer: fetch_openalex,
        },
    ]
}

/// The tool named `name`.
pub fn find(name: &str) -> Option<Tool> {
    all().into_iter().find(|tool| tool.name == name)
}

/// `T`'s JSON schema as an object (what the protocol's `inputSchema` is).
fn schema<T: schemars::JsonSchema>() -> Map<String, Value> {
    match schemars::schema_for!(T).to_value() {
        Value::Object(object) => object,
        _ => Map::new(),
    }
}

/// The arguments as `T`: a name `T` does not take, or a value of the wrong type, is an input error
/// naming the argument (serde names the path; names are checked against the schema's properties
/// because a request with a flattened part cannot refuse unknown names itself).
pub fn arguments<T: DeserializeOwned + schemars::JsonSchema>(arguments: Map<String, Value>) -> Result<T> {
    let schema = schema::<T>();
    let known: Vec<&String> =
        schema.get("properties").and_then(Value::as_object).map_or(Vec::new(), |p| p.keys().collect());
    if let Some(unknown) = arguments.keys().find(|name| !known.contains(name)) {
        let names: Vec<&str> = known.iter().map(|name| name.as_str()).collect();
        return Err(Error::input(format!("{unknown}: not an argument of this tool (it takes {})", names.join(", "))));
    }
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        // serde's own message names a missing field; a misplaced value is named by its path.
        if path == "." { Error::input(message) } else { Error::input(format!("{path}: {message}")) }
    })
}

fn search(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let request = arguments::<SearchParams>(given)?.resolve()?;
    let hits = litnav.search(&request, progress)?;
    let mut summary = match (&request.like, hits.len()) {
        (_, 0) => "no papers match".to_string(),
        (Some(id), n) => format!("{n} papers nearest {id}:"),
        (None, n) => format!("{n} papers for “{}”:", request.query),
    };
    for (rank, hit) in hits.iter().take(SUMMARY_LINES).enumerate() {
        let known = hit.known.as_ref().map_or(String::new(), |by| format!(" (named by its {by})"));
        summary.push_str(&format!(
            "\n{}. {} ({}) [{}]{known}",
            rank + 1,
            hit.title,
            litnav_app::year(hit.year),
            hit.id
        ));
    }
    Answer::of(&Hits { paper: None, hits: &hits }, summary)
}

/// Search hits as an object (serialized directly, not through `json!`, whose values would widen
/// an `f32` score).
#[derive(Serialize)]
struct Hits<'a> {
    /// The paper they are like (`related` with `similar`).
    #[serde(skip_serializing_if = "Option::is_none")]
    paper: Option<&'a str>,
    hits: &'a [litnav_search::Hit],
}

/// A paper and its citation profile.
#[derive(Serialize)]
struct PaperAnswer<'a> {
    paper: &'a litnav_corpus::Paper,
    profile: &'a litnav_app::relations::PaperProfile,
}

/// Papers a summary names at most.
const SUMMARY_LINES: usize = 5;

fn paper(litnav: &Litnav, given: Map<String, Value>, _: &dyn Progress) -> Result<Answer> {
    let params = arguments::<PaperParams>(given)?;
    let metric = params.metric.resolve(litnav.workspace().settings().seed)?;
    let session = litnav.session()?;
    let paper = session.require(&params.id)?.clone();
    let profile = session.profile(&params.id, &metric)?;
    let summary = format!(
        "{} ({}) [{}]{}: cited by {} and citing {} papers of the corpus",
        paper.title,
        litnav_app::year(paper.year),
        paper.id,
        litnav_app::relations::retracted_mark(paper.retracted),
        profile.in_degree,
        profile.out_degree,
    );
    Answer::of(&PaperAnswer { paper: &paper, profile: &profile }, summary)
}

fn citations(litnav: &Litnav, given: Map<String, Value>, _: &dyn Progress) -> Result<Answer> {
    let params = arguments::<CitationsParams>(given)?;
    let shown = params.citers_shown()?;
    let citations = litnav.session()?.citations_of(&params.id, shown)?;
    let summary = format!(
        "{} cites {} papers of the corpus and is cited by {} ({} listed)",
        params.id,
        citations.references.len(),
        citations.citers_total,
        citations.citers.citers.len()
    );
    Answer::of(&citations, summary)
}

fn related(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let params = arguments::<RelatedParams>(given)?;
    let k = params.k()?;
    let session = litnav.session()?;
    let id = &params.id;
    match (params.relation, params.relation.neighbourhood()) {
        (_, Some(which)) => {
            let neighbours = session.neighbours(id, which, k)?;
            let summary = format!("{} papers {} with {id}", neighbours.related.len(), params.relation);
            Answer::of(&neighbours, summary)
        }
        (RelationName::CoMentioned, None) => {
            let mentions = session.co_mentioned(id, k)?;
            Answer::of(&mentions, format!("{} papers co-mentioned with {id}", mentions.co_mentioned.len()))
        }
        (_, None) => {
            let request = SearchRequest { like: Some(id.clone()), k, ..SearchRequest::new("") };
            let hits = litnav.search(&request, progress)?;
            Answer::of(&Hits { paper: Some(id), hits: &hits }, format!("{} papers similar to {id}", hits.len()))
        }
    }
}

fn path(litnav: &Litnav, given: Map<String, Value>, _: &dyn Progress) -> Result<Answer> {
    let request = arguments::<PathParams>(given)?.resolve()?;
    let report = litnav.session()?.path(&request.from, &request.to, request.max_hops, request.shortest_limit)?;
    let summary = report.to_string();
    Answer::of(&report, summary)
}

fn map(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let params = arguments::<MapParams>(given)?;
    let built = litnav.map(params, progress)?;
    Ok(Answer { summary: litnav_organize::render::outline(&built.map), structured: built.printed.clone() })
}

fn expand(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let params = arguments::<ExpandNodeParams>(given)?;
    let built = litnav.expand(params, progress)?;
    Ok(Answer { summary: litnav_organize::render::outline(&built.map), structured: built.printed.clone() })
}

fn score_taxobench(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let params = arguments::<ScoreTaxobenchParams>(given)?;
    let (threshold, lambda, similarity) = params.options()?;
    if !litnav.host().reads_files() {
        let named = [("predictions", Some(&params.predictions)), ("data", params.data.as_ref())];
        if let Some((name, _)) = named.iter().find(|(_, given)| matches!(given, Some(LinesOrFile::File(_)))) {
            return Err(Error::input(format!(
                "{name}: this server reads no files of its machine for a call; give the lines themselves"
            )));
        }
    }
    let default_data;
    let data = match &params.data {
        Some(given) => lines_of("data", given),
        None => {
            default_data = litnav.workspace().settings().datasets()?.join("taxobench/data.jsonl");
            Lines::File(&default_data)
        }
    };
    let predictions = lines_of("predictions", &params.predictions);
    let scored =
        taxobench::score(litnav.workspace(), data, predictions, similarity.kind(), threshold, lambda, progress)?;
    let mut summary =
        format!("TaxoBench scores over {} instance(s); {}", scored.per_instance.len(), similarity.caption());
    summary.push('\n');
    summary.push_str(&litnav_app::score::numbers(&scored.summary));
    for problem in &scored.problems {
        summary.push_str(&format!("\nproblem: {problem}"));
    }
    Answer::of(&scored, summary)
}

/// Lines given inline (problems name them `name:N`) or by their file.
fn lines_of<'a>(name: &'a str, given: &'a LinesOrFile) -> Lines<'a> {
    match given {
        LinesOrFile::Lines(values) => Lines::Parsed { name, values },
        LinesOrFile::File(path) => Lines::File(Path::new(path)),
    }
}

fn score_survey(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let params = arguments::<ScoreSurveyParams>(given)?;
    let options = params.options()?;
    // A survey written inline is read from a file of its own, as a file given would be.
    let written;
    let generated: PathBuf = match (&params.generated, &params.generated_markdown) {
        (Some(path), None) => PathBuf::from(path),
        (None, Some(text)) => {
            written = tempfile_dir()?;
            let path = written.path().join("generated.md");
            std::fs::write(&path, text).map_err(|e| Error::internal(format!("cannot hold the survey's text: {e}")))?;
            path
        }
        _ => {
            return Err(Error::input(
                "generated, generated_markdown: give the generated survey one way, a path or its text",
            ));
        }
    };
    let client = litnav.llm_for(params.llm == Some(true), "llm")?;
    let mut report = litnav_app::survey::evaluate_files(
        litnav.workspace(),
        Path::new(&params.expert),
        &generated,
        None,
        &options,
        client.as_ref(),
        progress,
    )?;
    if params.generated_markdown.is_some() {
        // The text's place was this call's own: the report names what was given.
        report.generated.path = PathBuf::from("generated_markdown");
    }
    let summary = report.to_string();
    Answer::of(&report, summary)
}

fn fetch_openalex(litnav: &Litnav, given: Map<String, Value>, progress: &dyn Progress) -> Result<Answer> {
    let params = arguments::<FetchTopicParams>(given)?;
    let fetch = params.checked()?;
    let outcome = litnav.host().fetch(&params.topic, fetch, progress)?;
    let summary = litnav_app::fetch::summary(&outcome.fetch);
    Answer::of(&outcome, summary)
}

/// A directory removed when dropped.
fn tempfile_dir() -> Result<tempfile::TempDir> {
    tempfile::tempdir().map_err(|e| Error::internal(format!("cannot make a temporary directory: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tools_schema_is_its_request_types() {
        let search = find("search").unwrap();
        let schema = (search.schema)();
        assert_eq!(schema["type"], "object");
        let q = &schema["properties"]["q"];
        assert_eq!(q["description"], "What to look for, in plain words (no query syntax); this or `like`.");
        // A flattened part's options are the tool's own.
        let paper = (find("paper").unwrap().schema)();
        assert!(paper["properties"].get("window").is_some(), "{paper:?}");
        assert_eq!(paper["required"], json!(["id"]));
    }

    #[test]
    fn bad_arguments_are_named() {
        let given = |value: Value| value.as_object().unwrap().clone();
        let wrong = arguments::<SearchParams>(given(json!({"q": "x", "k": "ten"}))).unwrap_err().to_string();
        assert!(wrong.starts_with("k: invalid type: string \"ten\""), "{wrong}");
        let unknown = arguments::<SearchParams>(given(json!({"q": "x", "top": 3}))).unwrap_err().to_string();
        assert!(unknown.starts_with("top: not an argument of this tool (it takes q, like, k,"), "{unknown}");
        let missing = arguments::<PaperParams>(given(json!({"window": 5}))).unwrap_err().to_string();
        assert!(missing.contains("missing field `id`"), "{missing}");
        let relation = arguments::<RelatedParams>(given(json!({"id": "p", "relation": "cousins"}))).unwrap_err();
        assert!(
            relation.to_string().starts_with("relation: unknown relation \"cousins\" (one of co-cited,"),
            "{relation}"
        );
    }

    #[test]
    fn tool_names_are_unique() {
        let mut names: Vec<&str> = all().iter().map(|tool| tool.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all().len());
    }
}
