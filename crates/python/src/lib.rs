//! litnav in Python: the native module `litnav._litnav`, wrapped by the `litnav` package
//! (`python/litnav`). Each function is one call into `litnav-app` with the interpreter released
//! while it runs; structured answers cross as JSON text (the package turns them into dicts and
//! lists) — except the retrieval scorer's, small answers asked for in loops, which cross as the
//! Python objects themselves — and vectors as raw little-endian `float32` bytes (NumPy reads
//! them without a copy). No rule lives here: defaults and checks are the application's.

use litnav_app::edges::{EdgeGraph, Papers};
use litnav_app::maps;
use litnav_app::relations::MetricOptions;
use litnav_app::request::{
    CompatName, ExpandParams, MapParams, MeasureName, MetricParams, ModelParams, NeighbourhoodName, RankParams,
    ReadingName, ScoreSurveyParams, SearchParams, SimilarityName, UnitsName,
};
use litnav_app::score::taxobench::{self, Lines};
use litnav_app::score::trec::ScoreTable;
use litnav_app::score::{clusters, tree};
use litnav_app::survey;
use litnav_app::{CorpusSession, Progress, Quiet, Settings, Workspace};
use litnav_core::HasKind;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyList, PyString};
use std::path::PathBuf;
use std::sync::Mutex;

mod clusterings;
mod in_place;

/// Large blocks on huge pages, as in the `litnav` command ([`litnav_core::memory::LargePages`]),
/// from mimalloc rather than glibc's allocator: the module's own allocations only; Python's stay
/// Python's. The module's calls share their work with helper threads ([`litnav_app::parallel`]),
/// and under glibc a block one thread allocated and another frees or grows makes that thread take
/// the first one's heap lock: reading TREC files on two threads waited on such locks about three
/// times a call (`strace`), and its threads' parts took about twice as long as under mimalloc, whose
/// threads give such blocks back without a lock (BENCHMARKS.md, litnav in Python).
#[global_allocator]
static ALLOCATOR: litnav_core::memory::LargePages<mimalloc::MiMalloc> =
    litnav_core::memory::LargePages(mimalloc::MiMalloc);

create_exception!(_litnav, Failure, PyException, "A litnav error, raised as (kind, code, message).");

/// Progress nobody watches that stops at Ctrl-C: between steps (and between chunks of vectors) it
/// lets Python run its signal handlers on the calling thread; the exception one raises
/// (`KeyboardInterrupt`) is kept, the operation ends as cancelled, and the call raises the
/// exception itself.
#[derive(Default)]
struct Interruptible {
    raised: Mutex<Option<PyErr>>,
}

impl Progress for Interruptible {
    fn cancelled(&self) -> bool {
        let mut raised = self.raised.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if raised.is_none()
            && let Err(error) = Python::attach(|py| py.check_signals())
        {
            *raised = Some(error);
        }
        raised.is_some()
    }
}

impl Interruptible {
    /// The call's answer: the signal's exception when one stopped it, else the result.
    fn finish<T>(self, result: litnav_app::Result<T>) -> PyResult<T> {
        let raised = self.raised.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        match (result, raised) {
            (Err(_), Some(interrupt)) => Err(interrupt),
            (result, _) => result.map_err(fail),
        }
    }
}

/// A litnav error as the exception the package maps to a class by its kind.
fn fail(error: litnav_app::Error) -> PyErr {
    // The message and each cause, as the command line shows them on separate lines.
    let mut message = error.to_string();
    let mut cause = std::error::Error::source(&error);
    while let Some(inner) = cause {
        message.push_str(&format!("\n  caused by: {inner}"));
        cause = inner.source();
    }
    Failure::new_err((error.kind().name(), error.code().row().code, message))
}

/// A request's options from the JSON object the package sends (the server's names and types).
fn parse_options<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> litnav_app::Result<T> {
    serde_json::from_str(text).map_err(|e| litnav_app::Error::input(format!("{what}: {e}")))
}

/// Refuse what needs an LLM: the package organizes offline.
fn offline(needs_llm: bool) -> litnav_app::Result<()> {
    match needs_llm {
        true => Err(litnav_app::Error::input("llm: the Python package organizes offline (use `litnav map --llm`)")),
        false => Ok(()),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> litnav_app::Result<String> {
    serde_json::to_string(value).map_err(|e| litnav_app::Error::internal(e.to_string()))
}

/// TaxoBench lines given as a path (`is_path`) or as the JSON text of a list of parsed lines.
fn parse_lines(name: &str, is_path: bool, text: &str) -> litnav_app::Result<Option<Vec<serde_json::Value>>> {
    if is_path {
        return Ok(None);
    }
    serde_json::from_str(text).map(Some).map_err(|e| litnav_app::Error::input(format!("{name}: {e}")))
}

fn lines<'a>(name: &'a str, text: &'a str, values: &'a Option<Vec<serde_json::Value>>) -> Lines<'a> {
    match values {
        None => Lines::File(std::path::Path::new(text)),
        Some(values) => Lines::Parsed { name, values },
    }
}

/// TaxoBench's metrics of `predictions` against `data`, each given as `(text, is_path)`: a path,
/// or the JSON text of the parsed lines; JSON of `{summary, per_instance, problems}`.
#[pyfunction]
#[pyo3(signature = (data, predictions, similarity, threshold, lambda_))]
fn score_taxobench(
    py: Python<'_>,
    data: (String, bool),
    predictions: (String, bool),
    similarity: String,
    threshold: f64,
    lambda_: f64,
) -> PyResult<String> {
    py.detach(|| {
        let kind = similarity.parse::<SimilarityName>()?.kind();
        let data_values = parse_lines("data", data.1, &data.0)?;
        let prediction_values = parse_lines("predictions", predictions.1, &predictions.0)?;
        let data = lines("data", &data.0, &data_values);
        let predictions = lines("predictions", &predictions.0, &prediction_values);
        let scored = taxobench::score(&Workspace::load()?, data, predictions, kind, threshold, lambda_, &Quiet)?;
        to_json(&scored)
    })
    .map_err(fail)
}

/// The reference-free checks of `prediction` and, when a `reference` is given, every tree metric
/// against it; each tree `(text, is_path)`: a JSON file's path, or the JSON text of a tree; JSON
/// as `eval tree --json`.
#[pyfunction]
#[pyo3(signature = (reference, prediction, similarity, threshold, lambda_, tsd_threshold))]
fn score_tree(
    py: Python<'_>,
    reference: Option<(String, bool)>,
    prediction: (String, bool),
    similarity: String,
    threshold: f64,
    lambda_: f64,
    tsd_threshold: f64,
) -> PyResult<String> {
    py.detach(|| {
        let read = |(text, is_path): &(String, bool), name: &str| -> litnav_app::Result<tree::Tree> {
            if *is_path {
                return tree::read_tree(std::path::Path::new(text));
            }
            let value = serde_json::from_str(text).map_err(|e| litnav_app::Error::input(format!("{name}: {e}")))?;
            tree::tree_of_value(&value, name)
        };
        let reference = reference.as_ref().map(|given| read(given, "reference")).transpose()?;
        let prediction = read(&prediction, "prediction")?;
        let kind = similarity.parse::<SimilarityName>()?.kind();
        let options = tree::TreeOptions { threshold, lambda: lambda_, tsd_threshold, ..Default::default() };
        to_json(&tree::evaluate(&Workspace::load()?, reference.as_ref(), &prediction, kind, options, None, &Quiet)?)
    })
    .map_err(fail)
}

/// Knowledge Navigator's clustering scores (ARI, NMI, Rc@p, Rv@p and the random baseline) of
/// `predicted` against `gold`, each a mapping of document to cluster(s) or a sequence of
/// (document, cluster) pairs (`clusterings`) or, with `paths`, the two files `eval clusters`
/// reads; JSON as its `--json`.
#[pyfunction]
#[pyo3(signature = (gold, predicted, coverage_percent, random_runs, seed, paths))]
fn score_clusters(
    py: Python<'_>,
    gold: &Bound<'_, PyAny>,
    predicted: &Bound<'_, PyAny>,
    coverage_percent: f64,
    random_runs: usize,
    seed: Option<u64>,
    paths: Option<(PathBuf, PathBuf)>,
) -> PyResult<String> {
    let aligned = match paths {
        Some(_) => None,
        None => Some(clusterings::aligned(gold, predicted, random_runs > 0)?),
    };
    py.detach(|| {
        let seed = match seed {
            Some(seed) => seed,
            None if random_runs > 0 => Settings::load()?.seed,
            None => litnav_core::DEFAULT_SEED,
        };
        let options = clusters::ClusterOptions { coverage: coverage_percent / 100.0, random_runs, seed };
        let scores = match (&paths, &aligned) {
            (_, Some(aligned)) => clusters::score_aligned(aligned, options)?,
            (Some((gold, predicted)), None) => clusters::score_cluster_files(gold, predicted, options)?,
            (None, None) => return Err(litnav_app::Error::internal("score_clusters: neither paths nor clusterings")),
        };
        to_json(&scores)
    })
    .map_err(fail)
}

/// Bloom-Eval's metrics of the `generated` survey against the `expert` one (directories in
/// Bloom-Eval's layout or Markdown files), offline: the metrics that need an LLM report why they
/// did not run. `metrics` are abbreviations (none: all 16); JSON as `eval survey --json`.
#[pyfunction]
#[pyo3(signature = (expert, generated, metrics, compat, topic, corpus, extras))]
#[allow(clippy::too_many_arguments)] // The package's keyword arguments, one each.
fn score_survey(
    py: Python<'_>,
    expert: PathBuf,
    generated: PathBuf,
    metrics: Vec<String>,
    compat: String,
    topic: Option<String>,
    corpus: Option<PathBuf>,
    extras: bool,
) -> PyResult<String> {
    let progress = Interruptible::default();
    let answer = py.detach(|| {
        let workspace = Workspace::load()?;
        let params = ScoreSurveyParams {
            metrics,
            compat: Some(compat.parse::<CompatName>()?),
            topic,
            extras: Some(extras),
            ..ScoreSurveyParams::default()
        };
        let options = params.options()?;
        let report =
            survey::evaluate_files(&workspace, &expert, &generated, corpus.as_deref(), &options, None, &progress)?;
        to_json(&report)
    });
    progress.finish(answer)
}

/// Retrieval metrics of `run` (query → document → score, ranked as trec_eval ranks) against
/// `qrels` (query → document → grade) at the cut-offs `k`: `eval retrieval --json`'s answer as
/// Python objects (`retrieval_answer`).
///
/// Both are read where they are (`in_place`): no id is copied and no entry is counted. A run's
/// scores are read once; only the documents that reach the deepest cut-off are graded, by
/// looking them up in the query's judgments (Python caches a string's hash in it), and ids are
/// compared only between tied scores. What is not a `dict` of exact `str` to `float` or `int`
/// raises `TypeError`, and the package then converts the mappings and says what was wrong.
#[pyfunction]
#[pyo3(signature = (qrels, run, k, per_query))]
fn score_retrieval(
    py: Python<'_>,
    qrels: &Bound<'_, PyDict>,
    run: &Bound<'_, PyDict>,
    k: Vec<usize>,
    per_query: bool,
) -> PyResult<Py<PyAny>> {
    let depth = litnav_app::score::trec::deepest(&k);
    let mut queries = Vec::with_capacity(qrels.len());
    for (query, judged) in qrels.iter() {
        let name = query.cast::<PyString>()?.to_cow()?.into_owned();
        let docs = run.get_item(&query)?.map(|docs| docs.cast_into::<PyDict>()).transpose()?;
        let graded = in_place::graded_query(&judged.cast_into::<PyDict>()?, docs.as_ref(), depth, &name)?;
        queries.push((name, graded));
    }
    // The run's unjudged queries are not scored, but they are checked as the judged ones are.
    for (query, docs) in run.iter().filter(|(query, _)| !qrels.contains(query).unwrap_or(false)) {
        in_place::check_documents(&docs.cast_into::<PyDict>()?, &query.cast::<PyString>()?.to_cow()?)?;
    }
    queries.sort_by(|a, b| a.0.cmp(&b.0));
    let table = py.detach(|| ScoreTable::of(queries, &k)).map_err(fail)?;
    retrieval_answer(py, table, per_query)
}

/// Retrieval metrics of the TREC run file `run` against the qrels file `qrels`, read natively;
/// `eval retrieval --json`'s answer as Python objects.
#[pyfunction]
#[pyo3(signature = (qrels, run, k, per_query))]
fn score_retrieval_files(
    py: Python<'_>,
    qrels: PathBuf,
    run: PathBuf,
    k: Vec<usize>,
    per_query: bool,
) -> PyResult<Py<PyAny>> {
    let table = py.detach(|| ScoreTable::of_files(&qrels, &run, &k)).map_err(fail)?;
    retrieval_answer(py, table, per_query)
}

/// `eval retrieval --json`'s answer built from the table as Python objects: each metric's name
/// is made once and shared by every row's dict (asked for in loops, the answer would otherwise
/// cost as much as the scoring).
fn retrieval_answer(py: Python<'_>, table: ScoreTable, per_query: bool) -> PyResult<Py<PyAny>> {
    let names: Vec<Bound<'_, PyString>> = table.metrics.iter().map(|name| PyString::new(py, name)).collect();
    let scores = |values: &[f64]| -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in names.iter().zip(values) {
            dict.set_item(name, PyFloat::new(py, *value))?;
        }
        Ok(dict)
    };
    let answer = PyDict::new(py);
    answer.set_item("queries", table.rows.len())?;
    answer.set_item("mean", scores(&table.mean)?)?;
    if per_query {
        let (query, values) = (PyString::new(py, "query"), PyString::new(py, "scores"));
        let rows = PyList::empty(py);
        for (name, row) in &table.rows {
            let entry = PyDict::new(py);
            entry.set_item(&query, name)?;
            entry.set_item(&values, scores(row)?)?;
            rows.append(entry)?;
        }
        answer.set_item("per_query", rows)?;
    } else {
        answer.set_item("per_query", py.None())?;
    }
    Ok(answer.into_any().unbind())
}

/// The CD index of each paper of `times` over `edges` under `reading` (`subsequent`,
/// `all-time`), in `times`' order (`None`: undefined).
#[pyfunction]
#[pyo3(signature = (times, edges, window, reading))]
fn cd_index(
    py: Python<'_>,
    times: Vec<(String, Option<i32>)>,
    edges: Vec<(String, String)>,
    window: Option<u32>,
    reading: String,
) -> PyResult<Vec<(String, Option<f64>)>> {
    py.detach(|| {
        let reading: ReadingName = reading.parse()?;
        litnav_app::edges::cd_index(&times, &edges, window, reading.reading())
    })
    .map_err(fail)
}

/// Whole numbers given as one block of little-endian `int64` (a NumPy or Arrow column's bytes).
fn numbers(name: &str, block: &[u8]) -> litnav_app::Result<Vec<i64>> {
    if !block.len().is_multiple_of(8) {
        return Err(litnav_app::Error::input(format!("{name}: not a block of 64-bit integers")));
    }
    Ok(block.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default())).collect())
}

/// A year given as a whole number, `i64::MIN` meaning unknown.
fn year(position: usize, value: i64) -> litnav_app::Result<Option<i32>> {
    if value == i64::MIN {
        return Ok(None);
    }
    i32::try_from(value)
        .map(Some)
        .map_err(|_| litnav_app::Error::input(format!("times[{position}]: year {value} is out of range")))
}

/// How disruption and novelty are computed, from the JSON object of the server's metric options
/// (`window`, `reading`, `units`, `nulls`, `seed`; a seed left out is the settings').
fn metric_options(what: &str, params: &str) -> litnav_app::Result<MetricOptions> {
    let params: MetricParams = parse_options(what, params)?;
    params.resolve(seed_or_settings(params.seed)?)
}

/// The seed given, or the settings' (read only when the seed is left to them).
fn seed_or_settings(seed: Option<u64>) -> litnav_app::Result<u64> {
    match seed {
        Some(seed) => Ok(seed),
        None => Ok(Settings::load()?.seed),
    }
}

/// A citation graph from lists, answering in the order its papers were given.
#[pyclass(frozen, module = "litnav._litnav")]
struct CitationGraph {
    inner: EdgeGraph,
}

#[pymethods]
impl CitationGraph {
    /// The graph of papers `ids` (text) with `years` and optional `venues`, and the edges
    /// `citing[i]` → `cited[i]`.
    #[staticmethod]
    fn of_text(
        py: Python<'_>,
        ids: Vec<String>,
        years: Vec<Option<i32>>,
        venues: Option<Vec<Option<String>>>,
        citing: Vec<String>,
        cited: Vec<String>,
    ) -> PyResult<CitationGraph> {
        py.detach(|| {
            let papers = Papers { ids: &ids, years: &years, venues: venues.as_deref() };
            Ok(CitationGraph { inner: EdgeGraph::build(papers, &citing, &cited)? })
        })
        .map_err(fail)
    }

    /// The graph of papers with whole-number ids, every list a block of little-endian `int64`
    /// (`years`: `i64::MIN` where unknown).
    #[staticmethod]
    fn of_numbers(
        py: Python<'_>,
        ids: &[u8],
        years: &[u8],
        venues: Option<Vec<Option<String>>>,
        citing: &[u8],
        cited: &[u8],
    ) -> PyResult<CitationGraph> {
        py.detach(|| {
            let ids = numbers("ids", ids)?;
            let years = numbers("times", years)?
                .into_iter()
                .enumerate()
                .map(|(i, y)| year(i, y))
                .collect::<litnav_app::Result<Vec<_>>>()?;
            let (citing, cited) = (numbers("edges", citing)?, numbers("edges", cited)?);
            let papers = Papers { ids: &ids, years: &years, venues: venues.as_deref() };
            Ok(CitationGraph { inner: EdgeGraph::build(papers, &citing, &cited)? })
        })
        .map_err(fail)
    }

    /// Papers and kept edges.
    fn size(&self) -> (usize, usize) {
        (self.inner.len(), self.inner.edge_count())
    }

    /// CD per paper in the given order: JSON of the counts and values when `detail`, else the
    /// index alone as little-endian `float64` bytes (NaN: undefined).
    fn cd_index(&self, py: Python<'_>, window: Option<u32>, reading: String, detail: bool) -> PyResult<Py<PyAny>> {
        let answer = py
            .detach(|| {
                let reading: ReadingName = reading.parse()?;
                let values = self.inner.disruption(window, reading.reading());
                if detail {
                    return to_json(&values).map(Answer::Text);
                }
                Ok(Answer::Bytes(values.iter().flat_map(|d| d.cd.unwrap_or(f64::NAN).to_le_bytes()).collect()))
            })
            .map_err(fail)?;
        Ok(answer.into_python(py))
    }

    /// Uzzi novelty per paper in the given order, JSON (`units`: `venues` or `references`).
    /// `params` are the metric options as JSON (`units`, `nulls`, `seed`).
    fn novelty(&self, py: Python<'_>, params: String) -> PyResult<String> {
        py.detach(|| to_json(&self.inner.novelty(&metric_options("novelty", &params)?)?)).map_err(fail)
    }
}

/// The citation paths from `source` (citing) to `target` (cited) in `on` (a `CitationGraph` or a
/// `Corpus`), JSON as `relations path`: the one definition behind both classes' `citation_path`.
#[pyfunction]
fn citation_path(
    py: Python<'_>,
    on: &Bound<'_, PyAny>,
    source: String,
    target: String,
    max_hops: usize,
    shortest_limit: usize,
) -> PyResult<String> {
    let path = |paths: &(dyn Fn() -> litnav_app::Result<litnav_app::relations::PathReport> + Sync)| {
        py.detach(|| to_json(&paths()?)).map_err(fail)
    };
    if let Ok(graph) = on.cast::<CitationGraph>() {
        let graph = &graph.get().inner;
        return path(&|| graph.path(&source, &target, max_hops, shortest_limit));
    }
    let corpus = on.cast::<Corpus>()?;
    let session = &corpus.get().session;
    path(&|| session.path(&source, &target, max_hops, shortest_limit))
}

/// An answer computed without the interpreter, turned into a Python object with it.
enum Answer {
    Text(String),
    Bytes(Vec<u8>),
}

impl Answer {
    fn into_python(self, py: Python<'_>) -> Py<PyAny> {
        match self {
            Answer::Text(text) => text.into_pyobject(py).map(|s| s.into_any().unbind()).unwrap_or_else(|e| match e {}),
            Answer::Bytes(bytes) => PyBytes::new(py, &bytes).into_any().unbind(),
        }
    }
}

/// The workspace `encode` uses, loaded on its first call and kept: the encoder's 90 MB of weights
/// are read once per process, not once per call (settings changed afterwards are not seen).
fn encoding_workspace() -> litnav_app::Result<&'static Workspace> {
    static KEPT: std::sync::OnceLock<Workspace> = std::sync::OnceLock::new();
    if let Some(workspace) = KEPT.get() {
        return Ok(workspace);
    }
    let loaded = Workspace::load()?;
    Ok(KEPT.get_or_init(|| loaded))
}

/// Sentence vectors of `texts`: `(bytes, rows, dimension)`, row-major little-endian `float32`.
#[pyfunction]
fn encode<'py>(py: Python<'py>, texts: Vec<String>) -> PyResult<(Bound<'py, PyBytes>, usize, usize)> {
    let (bytes, dim) = py
        .detach(|| -> litnav_app::Result<(Vec<u8>, usize)> {
            let vectors = encoding_workspace()?.encoder(&Quiet)?.embed(&texts);
            let dim = vectors.first().map_or(litnav_embed::DIM, Vec::len);
            Ok((vectors.iter().flatten().flat_map(|v| v.to_le_bytes()).collect(), dim))
        })
        .map_err(fail)?;
    Ok((PyBytes::new(py, &bytes), texts.len(), dim))
}

/// Ingest `files` (papers, topics, edges; formats detected unless `format` names one) into the
/// corpus at `corpus` (created if needed); JSON of the report as `ingest --json`.
#[pyfunction]
#[pyo3(signature = (corpus, files, format, skip_bad, contexts, surveys, vectors=None, vectors_model=None))]
#[allow(clippy::too_many_arguments)]
fn ingest(
    py: Python<'_>,
    corpus: PathBuf,
    files: Vec<PathBuf>,
    format: Option<String>,
    skip_bad: bool,
    contexts: Vec<PathBuf>,
    surveys: Vec<PathBuf>,
    vectors: Option<PathBuf>,
    vectors_model: Option<String>,
) -> PyResult<String> {
    py.detach(|| {
        let format = match format.as_deref() {
            None => None,
            Some(name) => Some(litnav_corpus::readers::Format::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = litnav_corpus::readers::Format::ALL.iter().map(|(_, n)| *n).collect();
                litnav_app::Error::input(format!("format: `{name}` is not one of {}", known.join(", ")))
            })?),
        };
        let vectors =
            vectors.map(|file| litnav_app::supplied::VectorsInput { file, model: vectors_model.unwrap_or_default() });
        let request = litnav_app::IngestRequest { files, format, skip_bad, contexts, surveys, vectors };
        to_json(&Workspace::load()?.ingest(&corpus, &request)?)
    })
    .map_err(fail)
}

/// A corpus opened once: its papers and lexical index read, vectors loaded on first dense use.
#[pyclass(frozen, module = "litnav._litnav")]
struct Corpus {
    workspace: Workspace,
    session: CorpusSession,
}

#[pymethods]
impl Corpus {
    /// Open the corpus in `path` (none: the built-in litbench corpus, built on first use), its
    /// encoder chosen by `model` (JSON of the CLI's model options: `model`, `threads`,
    /// `query_precision`).
    #[new]
    #[pyo3(signature = (path=None, model=None))]
    fn new(py: Python<'_>, path: Option<PathBuf>, model: Option<String>) -> PyResult<Corpus> {
        let progress = Interruptible::default();
        let opened = py.detach(|| {
            let params: ModelParams = parse_options("model", model.as_deref().unwrap_or("{}"))?;
            let workspace = params.workspace()?;
            let session = workspace.open(path.as_deref(), &progress)?;
            Ok(Corpus { workspace, session })
        });
        progress.finish(opened)
    }

    /// Search with a request given as the JSON text of the server's search query
    /// (`{"q": …, "k": …, "mode": …}`); JSON of the hits as `search --json` prints them.
    fn search(&self, py: Python<'_>, request: String) -> PyResult<String> {
        let progress = Interruptible::default();
        let answer = py.detach(|| {
            let params: SearchParams = parse_options("search", &request)?;
            let request = params.resolve()?;
            let hits = self.session.answer(&request, &self.workspace, &progress)?;
            to_json(&hits)
        });
        progress.finish(answer)
    }

    /// A map of the corpus's papers for the options `params` (JSON of a map request, as the
    /// server's body), organized offline; JSON as `litnav map --json` prints it. With `html`, the
    /// map's page is also written there. An edit log (a JSON-lines file at `edits_path`, or its
    /// lines in `edits_lines`) is applied to the map first.
    #[pyo3(signature = (params, html, edits_path, edits_lines))]
    fn map(
        &self,
        py: Python<'_>,
        params: String,
        html: Option<PathBuf>,
        edits_path: Option<PathBuf>,
        edits_lines: Option<String>,
    ) -> PyResult<String> {
        let progress = Interruptible::default();
        let answer = py.detach(|| {
            let params: MapParams = parse_options("map", &params)?;
            offline(params.needs_llm())?;
            let request = params.resolve(self.workspace.settings().seed)?;
            let mut outcome = maps::build_map(&self.workspace, Some(&self.session), &request, None, &progress)?;
            let log = match (&edits_path, &edits_lines) {
                (Some(path), _) => Some((litnav_app::edits::read_log(path)?, path.display().to_string())),
                (None, Some(lines)) => Some((litnav_app::edits::parse_log(lines, "edits")?, "edits".to_string())),
                (None, None) => None,
            };
            if let Some((log, source)) = log {
                outcome = outcome.edited(&self.workspace, &log, &source, None, &progress)?;
            }
            if let Some(path) = &html {
                litnav_corpus::store::write_atomically(path, outcome.html().as_bytes())?;
            }
            to_json(&outcome.printed()?)
        });
        progress.finish(answer)
    }

    /// A paper's citation profile (degrees, CD, novelty, percentiles, co-cited and coupled
    /// papers), JSON as `relations paper --json`.
    fn paper(&self, py: Python<'_>, id: String, params: String) -> PyResult<String> {
        py.detach(|| to_json(&self.session.profile(&id, &metric_options("paper", &params)?)?)).map_err(fail)
    }

    /// Papers ranked by `measure` (`disruption`, `novelty`, `citations`): the whole corpus or a
    /// topic's papers, with the ranking's options as the server names them (JSON); JSON as
    /// `relations disruption|novelty|citations --json`.
    fn rank(&self, py: Python<'_>, measure: String, params: String) -> PyResult<String> {
        py.detach(|| {
            let measure = measure.parse::<MeasureName>()?.measure();
            let params: RankParams = parse_options("rank", &params)?;
            let request = params.resolve(measure, seed_or_settings(params.metric.seed)?)?;
            to_json(&self.session.rank(&request)?)
        })
        .map_err(fail)
    }

    /// Papers most co-cited (`co-cited`) or coupled (`coupled`) with a paper, JSON.
    fn neighbours(&self, py: Python<'_>, id: String, which: String, k: usize) -> PyResult<String> {
        py.detach(|| {
            let which = which.parse::<NeighbourhoodName>()?.neighbourhood();
            to_json(&self.session.neighbours(&id, which, k)?)
        })
        .map_err(fail)
    }

    /// How two papers relate (citation either way, co-citation, coupling), JSON.
    fn pair(&self, py: Python<'_>, a: String, b: String) -> PyResult<String> {
        py.detach(|| to_json(&self.session.pair(&a, &b)?)).map_err(fail)
    }

    /// The papers citing `id` and how their citation contexts speak of it (offline), JSON.
    fn citers(&self, py: Python<'_>, id: String) -> PyResult<String> {
        py.detach(|| to_json(&self.session.citers(&id, None, None, &Quiet)?)).map_err(fail)
    }

    /// Grow the subtopic `subtopic` of `map` (the JSON text of a map) with new papers into its
    /// own map for the options `params` (JSON of an expansion request), organized offline; JSON
    /// of the expansion (query, counts and the sub-map).
    fn expand(&self, py: Python<'_>, map: String, subtopic: String, params: String) -> PyResult<String> {
        let progress = Interruptible::default();
        let answer = py.detach(|| {
            let map: litnav_organize::MapNode = serde_json::from_str(&map)
                .map_err(|e| litnav_app::Error::input(format!("map: not a litnav map: {e}")))?;
            let params: ExpandParams = parse_options("expand", &params)?;
            offline(params.llm == Some(true))?;
            let request = params.resolve(&subtopic, self.workspace.settings().seed)?;
            to_json(&maps::expand(&self.workspace, &self.session, &map, &request, None, &progress)?)
        });
        progress.finish(answer)
    }

    /// The corpus's directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.session.dir().to_path_buf()
    }

    /// How many papers it holds.
    fn __len__(&self) -> usize {
        self.session.len()
    }
}

/// The `litnav` command run on `words` (the program's name first) in this process, as the
/// package's `litnav` script does; its exit status.
#[pyfunction]
fn main(py: Python<'_>, words: Vec<String>) -> i32 {
    py.detach(|| litnav_cli::main_with(words))
}

/// The application's defaults of the options the package's functions take, by name: the package's
/// signatures read them, so that each default has one definition.
fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use litnav_app::relations;
    let table = PyDict::new(py);
    table.set_item("threshold", taxobench::DEFAULT_THRESHOLD)?;
    table.set_item("lambda", taxobench::DEFAULT_LAMBDA)?;
    table.set_item("tsd_threshold", tree::DEFAULT_TSD_THRESHOLD)?;
    table.set_item("coverage_percent", clusters::DEFAULT_COVERAGE_PERCENT)?;
    table.set_item("random_runs", clusters::DEFAULT_RANDOM_RUNS)?;
    table.set_item("survey_extras", survey::SurveyOptions::default().extras)?;
    table.set_item("map_papers", maps::DEFAULT_MAP_PAPERS)?;
    table.set_item("expansion_papers", maps::DEFAULT_EXPANSION_PAPERS)?;
    table.set_item("expansion_relevance_floor", maps::EXPANSION_RELEVANCE_FLOOR)?;
    table.set_item("topic_pool", relations::DEFAULT_TOPIC_POOL)?;
    table.set_item("ranked", relations::DEFAULT_RANKED)?;
    table.set_item("neighbours", relations::DEFAULT_NEIGHBOURS)?;
    table.set_item("shortest_paths", relations::DEFAULT_SHORTEST_PATHS)?;
    table.set_item("max_hops", litnav_app::relations::DEFAULT_MAX_HOPS)?;
    let metric = MetricParams::default().filled();
    table.set_item("window", metric.window)?;
    table.set_item("nulls", metric.nulls)?;
    table.set_item("k", SearchParams::default().filled().k)?;
    table.set_item("cutoffs", pyo3::types::PyTuple::new(py, litnav_app::score::trec::DEFAULT_CUTOFFS)?)?;
    table.set_item("reading", metric.reading.map(ReadingName::name))?;
    table.set_item("units", metric.units.map(UnitsName::name))?;
    Ok(table)
}

#[pymodule]
fn _litnav(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Failure", m.py().get_type::<Failure>())?;
    m.add("DEFAULTS", defaults(m.py())?)?;
    m.add_function(wrap_pyfunction!(score_taxobench, m)?)?;
    m.add_function(wrap_pyfunction!(cd_index, m)?)?;
    m.add_function(wrap_pyfunction!(score_retrieval, m)?)?;
    m.add_function(wrap_pyfunction!(score_retrieval_files, m)?)?;
    m.add_function(wrap_pyfunction!(score_tree, m)?)?;
    m.add_function(wrap_pyfunction!(score_clusters, m)?)?;
    m.add_function(wrap_pyfunction!(score_survey, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(citation_path, m)?)?;
    m.add_function(wrap_pyfunction!(ingest, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_class::<Corpus>()?;
    m.add_class::<CitationGraph>()?;
    Ok(())
}
