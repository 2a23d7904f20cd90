//! ResearchArena (seed 002) end to end on a corpus's topics: its three tasks with its baselines.
//!
//! - **Discovery**: each topic's survey title → the top 100 non-surveys published before the
//!   survey (topics without a year: no date filter) → Recall and Precision at 10 and 100 against
//!   the survey's references.
//! - **Selection**: the same rankings scored with graded relevance — nDCG at 10, 30, 100 and MRR,
//!   trec_eval's way (linear gains; MRR at the first reference of any grade). The paper grades
//!   references *influential* (2) or not (1) with a learned classifier (Valenzuela et al., 2015);
//!   litbench has no such labels, so litnav uses that classifier's strongest feature, how often
//!   the survey cites the paper: grade 2 when the survey's text cites it twice or more
//!   (`assignments.jsonl`, `n_citations_in_section` summed over sections), else 1. Topics whose
//!   assignments are expert placements (TaxoBench) have no counts: every reference is grade 1.
//! - **Baselines** (§6.1): *Title* (the lower-cased title as the query), *Zero-shot* (the LLM
//!   writes the query), *Decomposer* (the LLM writes one query per sub-question; the rankings are
//!   fused by reciprocal rank fusion, k = 60, as the paper says — its public code merges by raw
//!   score instead, offered as [`Merge::Score`]), each with BM25, dense and hybrid retrieval; and *litnav*: its default, expanded
//!   search ([`litnav_search::Expansion`]).
//! - **Organization** (bonus task): the references given (*oracle*) or litnav's own top 100
//!   (*end to end*) organized into a mind-map, scored against the survey's heading tree (its
//!   outline, or its expert taxonomy) with Heading Soft Recall, Heading Entity Recall (offline
//!   extractor: [`litnav_eval::entities`]), Tree Semantic Distance (cosine > 0.8 relabels for
//!   free) and ordered TED. Systems: the paper's clustering baseline
//!   ([`litnav_organize::typology::ward_typology`]) and litnav's map.
//!
//! A topic the LLM cannot serve (no usable query) is reported and left out of that baseline's
//! row; every row says how many topics it scored. With `out`, the graded qrels and every row's
//! run are written as TREC files; with a peer Python, trec_eval (`pytrec-eval-terrier`) scores
//! the same files in the same run and every value is compared.

use crate::Result;
use litnav_app::score::similarity::Embedded;
use litnav_app::score::trec::{self, Qrels, RetrievalReport, Run};
use litnav_app::score::tree::{TreeOptions, TreeReport, compare};
use litnav_app::{CorpusSession, Quiet, Workspace};
use litnav_corpus::Topic;
use litnav_eval::tree::Tree;
use litnav_llm::Client;
use litnav_organize::typology::ward_typology;
use litnav_search::hybrid::{Fusion, reciprocal_rank_fusion};
use litnav_search::{Expansion, Hit, Mode, Retriever, SearchQuery};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Depth of every ranking.
pub const DEPTH: usize = 100;

/// The RRF constant of the Decomposer's fusion.
pub const RRF_K: f32 = 60.0;

/// Cut-offs of the scores.
pub const CUTOFFS: [usize; 3] = [10, 30, 100];

/// A discovery baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    /// The survey's title, lower-cased.
    Title,
    /// One LLM-written query.
    ZeroShot,
    /// LLM-written sub-queries fused by RRF.
    Decomposer,
    /// litnav's best: the expanded search (hybrid with feedback, widened by the neighbours of
    /// its best hits).
    Litnav,
}

impl Baseline {
    /// Its name in commands and reports.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Title => "title",
            Baseline::ZeroShot => "zero-shot",
            Baseline::Decomposer => "decomposer",
            Baseline::Litnav => "litnav",
        }
    }

    fn needs_llm(self) -> bool {
        matches!(self, Baseline::ZeroShot | Baseline::Decomposer)
    }
}

/// A retrieval model a baseline's queries go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Retrieval {
    /// BM25 over title and abstract.
    Bm25,
    /// Dense (MiniLM, exact).
    Dense,
    /// BM25 and dense fused by RRF.
    Hybrid,
}

impl Retrieval {
    /// Its name in commands and reports.
    pub fn name(self) -> &'static str {
        match self {
            Retrieval::Bm25 => "bm25",
            Retrieval::Dense => "dense",
            Retrieval::Hybrid => "hybrid",
        }
    }

    fn mode(self) -> Mode {
        match self {
            Retrieval::Bm25 => Mode::Bm25,
            Retrieval::Dense => Mode::Dense,
            Retrieval::Hybrid => Mode::Hybrid(Fusion::Rrf(RRF_K)),
        }
    }
}

/// One of the paper's three tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    /// Recall and Precision at 10 and 100.
    Discovery,
    /// Graded nDCG at 10, 30, 100 and MRR.
    Selection,
    /// Mind-maps against the surveys' heading trees.
    Organization,
}

/// How the Decomposer merges its sub-queries' rankings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Merge {
    /// Reciprocal rank fusion, k = 60 (the paper's text).
    #[default]
    Rrf,
    /// Every hit of every sub-query by its raw score, best first (the paper's public code, which
    /// keeps a paper found twice twice; litnav keeps its best score once, as a ranking must).
    Score,
}

/// Relevance grades of (topic, paper) pairs that are not 1.
pub type Grades = HashMap<(String, String), f64>;

/// The selection grades from litbench's `assignments.jsonl`: 2 for a reference the survey's text
/// cites twice or more, else (absent here) 1.
pub fn read_grades(assignments: &Path) -> Result<Grades> {
    let mut mentions: HashMap<(String, String), u64> = HashMap::new();
    for row in crate::organize::read_json_lines(assignments)? {
        if row["method"] != "citation_context" {
            continue;
        }
        let (Some(topic), Some(paper)) = (row["topic_id"].as_str(), row["paper_id"].as_str()) else { continue };
        let count = row["n_citations_in_section"].as_u64().unwrap_or(1);
        *mentions.entry((topic.to_string(), paper.to_string())).or_default() += count;
    }
    Ok(mentions.into_iter().filter(|(_, n)| *n >= 2).map(|(key, _)| (key, 2.0)).collect())
}

/// How the benchmark runs.
pub struct Options<'a> {
    /// The tasks to run (discovery and selection share their rankings).
    pub tasks: Vec<Task>,
    /// Discovery baselines to run.
    pub baselines: Vec<Baseline>,
    /// Retrieval models for the query baselines (litnav has its own).
    pub retrievals: Vec<Retrieval>,
    /// The LLM of Zero-shot and Decomposer.
    pub llm: Option<&'a Client>,
    /// Selection grades (empty: every reference grade 1).
    pub grades: Grades,
    /// Only the first N topics.
    pub limit: Option<usize>,
    /// Directory for the qrels and run files.
    pub out: Option<PathBuf>,
    /// Python with `pytrec_eval` to score the same files.
    pub peer: Option<PathBuf>,
    /// How the Decomposer merges its rankings.
    pub merge: Merge,
    /// Settings of litnav's map in the organization task.
    pub organizer: litnav_organize::Options,
    /// Also run every discovery search as an agent would, a `search` tool call to `litnav mcp`
    /// (this binary), and compare ([`McpCheck`]).
    pub via_mcp: Option<PathBuf>,
}

/// One baseline with one retrieval model over every topic.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Baseline name.
    pub baseline: String,
    /// Retrieval model name.
    pub retrieval: String,
    /// trec_eval-style scores (means and per topic).
    pub scores: RetrievalReport,
    /// Seconds spent retrieving (LLM time excluded).
    pub seconds: f64,
}

/// One organization result.
#[derive(Debug, Clone, Serialize)]
pub struct OrganizationRow {
    /// Topic id.
    pub topic: String,
    /// `oracle` or `end-to-end`.
    pub setting: String,
    /// The system.
    pub system: String,
    /// Papers organized.
    pub papers: usize,
    /// Every tree metric against the survey's heading tree.
    pub scores: TreeReport,
}

/// trec_eval run beside litnav on the same files.
#[derive(Debug, Clone, Serialize)]
pub struct PeerCheck {
    /// Values compared.
    pub values: usize,
    /// Largest absolute difference.
    pub max_difference: f64,
    /// trec_eval's seconds to evaluate every run (inside Python, files read).
    pub peer_seconds: f64,
    /// litnav's seconds to score the same runs (files read).
    pub litnav_seconds: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Report {
    /// The tasks run.
    pub tasks: Vec<Task>,
    /// Topics with references.
    pub topics: usize,
    /// Discovery and selection rows.
    pub rows: Vec<Row>,
    /// Organization rows.
    pub organization: Vec<OrganizationRow>,
    /// What could not be done, per topic.
    pub problems: Vec<String>,
    /// The trec_eval comparison, when a peer ran.
    pub peer: Option<PeerCheck>,
    /// Where the TREC files went.
    pub files: Option<PathBuf>,
    /// The same searches as MCP tool calls, when asked for (`--via mcp`).
    pub mcp: Option<McpCheck>,
}

/// The discovery searches made again as an agent makes them: tool calls over the protocol to
/// `litnav mcp` on the same corpus.
#[derive(Debug, Clone, Serialize, Default)]
pub struct McpCheck {
    /// Tool calls made.
    pub calls: usize,
    /// Rows whose ranked lists equal the direct run's, topic by topic.
    pub identical_rows: usize,
    /// Rows compared.
    pub rows: usize,
    /// Rows that differ, with the first topic where they do.
    pub differing: Vec<String>,
    /// Seconds the direct searches took, and the same searches as tool calls.
    pub direct_seconds: f64,
    /// Seconds of the tool calls, end to end (request written, answer read and parsed).
    pub mcp_seconds: f64,
    /// The protocol's cost per call: (MCP − direct) / calls, in milliseconds.
    pub overhead_ms_per_call: f64,
}

/// Run the benchmark on a session's topics.
pub fn run(workspace: &Workspace, session: &CorpusSession, options: &Options<'_>) -> Result<Report> {
    let encoder = workspace.encoder(&Quiet)?;
    let retriever = session.dense(encoder, &Quiet)?;
    let topics: Vec<&Topic> = session
        .topics()
        .iter()
        .filter(|t| !t.reference_ids.is_empty())
        .take(options.limit.unwrap_or(usize::MAX))
        .collect();
    let qrels = qrels(&topics, &options.grades);
    let mut report = Report { tasks: options.tasks.clone(), topics: topics.len(), ..Report::default() };
    let mut runs: Vec<(String, Run)> = Vec::new();
    let ranked = options.tasks.iter().any(|t| matches!(t, Task::Discovery | Task::Selection));
    let mut agent = match &options.via_mcp {
        Some(binary) => Some(crate::mcp_search::McpSearch::start(binary, session.dir())?),
        None => None,
    };
    let mut check = McpCheck::default();
    for &baseline in options.baselines.iter().filter(|_| ranked) {
        if baseline.needs_llm() && options.llm.is_none() {
            report.problems.push(format!("{}: needs an LLM (--llm); not run", baseline.name()));
            continue;
        }
        let queries = baseline_queries(baseline, &topics, options.llm, &mut report.problems);
        let retrievals: Vec<Option<Retrieval>> = match baseline {
            Baseline::Litnav => vec![None],
            _ => options.retrievals.iter().copied().map(Some).collect(),
        };
        for retrieval in retrievals {
            let name = retrieval.map_or("expanded", Retrieval::name);
            let started = Instant::now();
            let mut run = Run::new();
            let mut direct = |query: &SearchQuery, retrieval: Option<Retrieval>| {
                search_directly(session, retriever, query, retrieval)
            };
            for topic in &topics {
                let Some(texts) = queries.get(topic.id.as_str()) else { continue };
                let hits = rank(topic, texts, retrieval, options.merge, &mut direct)?;
                if hits.is_empty() {
                    report.problems.push(format!(
                        "{} / {name} on topic {}: nothing retrieved",
                        baseline.name(),
                        topic.id
                    ));
                    continue;
                }
                run.insert(topic.id.clone(), hits.into_iter().map(|h| h.id).collect());
            }
            let seconds = started.elapsed().as_secs_f64();
            if let Some(agent) = agent.as_mut() {
                let label = format!("{} / {name}", baseline.name());
                compare_through_mcp(agent, &topics, &queries, retrieval, options.merge, &run, &label, &mut check)?;
                check.direct_seconds += seconds;
            }
            let judged = judged_in(&qrels, &run);
            if judged.is_empty() {
                continue;
            }
            report.rows.push(Row {
                baseline: baseline.name().into(),
                retrieval: name.into(),
                scores: trec::score(&judged, &run, &CUTOFFS, true)?,
                seconds,
            });
            runs.push((format!("{}-{}", baseline.name(), name.replace(" + ", "-")), run));
        }
    }
    if let Some(agent) = &agent {
        check.calls = agent.calls;
        check.mcp_seconds = agent.elapsed.as_secs_f64();
        check.overhead_ms_per_call = 1000.0 * (check.mcp_seconds - check.direct_seconds) / (check.calls.max(1) as f64);
        report.mcp = Some(check);
    }
    if ranked && (options.out.is_some() || options.peer.is_some()) {
        let scratch = tempfile::tempdir()?;
        let dir = options.out.clone().unwrap_or_else(|| scratch.path().to_path_buf());
        write_trec_files(&dir, &qrels, &runs)?;
        if let Some(python) = &options.peer {
            report.peer = Some(check_with_trec_eval(python, &dir, &runs)?);
        }
        report.files = options.out.clone();
    }
    if options.tasks.contains(&Task::Organization) {
        organize_topics(workspace, session, retriever, &topics, options, &mut report)?;
    }
    Ok(report)
}

/// The judged references of every topic, graded.
fn qrels(topics: &[&Topic], grades: &Grades) -> Qrels {
    topics
        .iter()
        .map(|t| {
            let judged = t
                .reference_ids
                .iter()
                .map(|p| (p.clone(), grades.get(&(t.id.clone(), p.clone())).copied().unwrap_or(1.0)))
                .collect();
            (t.id.clone(), judged)
        })
        .collect()
}

/// The judgments of the topics a run answers (a topic the baseline could not serve is not scored,
/// as trec_eval does not score a query missing from the run).
fn judged_in(qrels: &Qrels, run: &Run) -> Qrels {
    qrels.iter().filter(|(q, _)| run.contains_key(*q)).map(|(q, j)| (q.clone(), j.clone())).collect()
}

/// Each topic's queries under a baseline; topics the LLM cannot serve are reported and absent.
fn baseline_queries(
    baseline: Baseline,
    topics: &[&Topic],
    llm: Option<&Client>,
    problems: &mut Vec<String>,
) -> HashMap<String, Vec<String>> {
    let mut queries = HashMap::new();
    for topic in topics {
        let written = match (baseline, llm) {
            (Baseline::Title, _) => Ok(vec![topic.title.to_lowercase()]),
            (Baseline::Litnav, _) => Ok(vec![topic.title.clone()]),
            (Baseline::ZeroShot, Some(client)) => {
                litnav_llm::queries::zero_shot_query(client, &topic.title).map(|a| vec![a.value])
            }
            (Baseline::Decomposer, Some(client)) => {
                litnav_llm::queries::decomposed_queries(client, &topic.title).map(|a| a.value)
            }
            (_, None) => continue,
        };
        match written {
            Ok(texts) => {
                queries.insert(topic.id.clone(), texts);
            }
            Err(why) => problems.push(format!("{} on topic {}: no usable query ({why})", baseline.name(), topic.id)),
        }
    }
    queries
}

/// What answers one query of a ranking: the library itself, or a tool call over MCP (`None`: a
/// query of stop words only, which finds nothing lexically).
type Searcher<'a> = dyn FnMut(&SearchQuery, Option<Retrieval>) -> Result<Option<Vec<Hit>>> + 'a;

/// A topic's top `DEPTH` under the leakage filters: one query searched, several fused by RRF;
/// `None` is litnav's expanded search. `search` answers one query (`None`: a query of stop words
/// only, which finds nothing lexically: the other queries still count).
fn rank(
    topic: &Topic,
    texts: &[String],
    retrieval: Option<Retrieval>,
    merge: Merge,
    search: &mut Searcher<'_>,
) -> Result<Vec<Hit>> {
    let query =
        |text: &str| SearchQuery { k: DEPTH, before: topic.year, exclude_surveys: true, ..SearchQuery::new(text) };
    if retrieval.is_none() {
        let title = texts.first().map(String::as_str).unwrap_or(&topic.title);
        return Ok(search(&query(title), None)?.unwrap_or_default());
    }
    let mut rankings = Vec::new();
    for text in texts {
        if let Some(hits) = search(&query(text), retrieval)? {
            rankings.push(hits);
        }
    }
    Ok(match rankings.len() {
        1 => rankings.pop().unwrap_or_default(),
        _ if merge == Merge::Score => by_best_score(rankings),
        _ => reciprocal_rank_fusion(&rankings.iter().map(Vec::as_slice).collect::<Vec<_>>(), RRF_K, DEPTH),
    })
}

/// One query searched by the library itself.
fn search_directly(
    session: &CorpusSession,
    retriever: &Retriever,
    query: &SearchQuery,
    retrieval: Option<Retrieval>,
) -> Result<Option<Vec<Hit>>> {
    let Some(retrieval) = retrieval else {
        let text_of = |hit: &Hit| session.seed_text(hit);
        return Ok(Some(retriever.search_expanded(query, Expansion::default(), &text_of)?));
    };
    match retriever.search(query, retrieval.mode()) {
        Ok(hits) => Ok(Some(hits)),
        Err(litnav_search::Error::EmptyQuery { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// One query as an agent asks it: the `search` tool's arguments for it, written through the
/// tool's own request type (so every name is one the tool takes).
fn tool_arguments(query: &SearchQuery, retrieval: Option<Retrieval>) -> serde_json::Map<String, serde_json::Value> {
    use litnav_app::request::{FusionName, ModeName, SearchParams};
    let hybrid = retrieval == Some(Retrieval::Hybrid);
    let mode = match retrieval {
        None => ModeName::Expanded,
        Some(Retrieval::Bm25) => ModeName::Bm25,
        Some(Retrieval::Dense) => ModeName::Dense,
        Some(Retrieval::Hybrid) => ModeName::Hybrid,
    };
    let params = SearchParams {
        k: Some(query.k),
        mode: Some(mode),
        fusion: hybrid.then_some(FusionName::Rrf),
        rrf_k: hybrid.then_some(RRF_K),
        before: query.before,
        exclude_surveys: Some(query.exclude_surveys),
        ..SearchParams::new(query.text.clone())
    };
    match serde_json::to_value(params) {
        // Options left unset are left out, as an agent leaves them out.
        Ok(serde_json::Value::Object(arguments)) => arguments.into_iter().filter(|(_, v)| !v.is_null()).collect(),
        _ => serde_json::Map::new(),
    }
}

/// Every topic's ranking of one row again through the protocol, compared with the direct `run`.
#[allow(clippy::too_many_arguments)] // One row's parts, as the direct loop has them.
fn compare_through_mcp(
    agent: &mut crate::mcp_search::McpSearch,
    topics: &[&Topic],
    queries: &HashMap<String, Vec<String>>,
    retrieval: Option<Retrieval>,
    merge: Merge,
    run: &Run,
    label: &str,
    check: &mut McpCheck,
) -> Result<()> {
    let mut through =
        |query: &SearchQuery, retrieval: Option<Retrieval>| agent.search(tool_arguments(query, retrieval)).map(Some);
    let mut first_difference = None;
    for topic in topics {
        let Some(texts) = queries.get(topic.id.as_str()) else { continue };
        let hits = rank(topic, texts, retrieval, merge, &mut through)?;
        let ids: Vec<String> = hits.into_iter().map(|h| h.id).collect();
        let direct = run.get(&topic.id).cloned().unwrap_or_default();
        if ids != direct && first_difference.is_none() {
            first_difference = Some(topic.id.clone());
        }
    }
    check.rows += 1;
    match first_difference {
        None => check.identical_rows += 1,
        Some(topic) => check.differing.push(format!("{label}: topic {topic}")),
    }
    Ok(())
}

/// Every hit of every ranking at its best raw score, best first (ties by id), the top `DEPTH`.
fn by_best_score(rankings: Vec<Vec<Hit>>) -> Vec<Hit> {
    let mut best: HashMap<String, Hit> = HashMap::new();
    for hit in rankings.into_iter().flatten() {
        match best.get(&hit.id) {
            Some(kept) if kept.score >= hit.score => {}
            _ => {
                best.insert(hit.id.clone(), hit);
            }
        }
    }
    let mut hits: Vec<Hit> = best.into_values().collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    hits.truncate(DEPTH);
    hits
}

/// The graded qrels (`qrels.txt`) and one run file per row (`NAME.run`), trec_eval's formats.
fn write_trec_files(dir: &Path, qrels: &Qrels, runs: &[(String, Run)]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| litnav_app::Error::io(dir, &e))?;
    let mut text = String::new();
    for (query, judged) in qrels {
        let mut docs: Vec<(&String, &f64)> = judged.iter().collect();
        docs.sort_by(|a, b| a.0.cmp(b.0));
        for (doc, grade) in docs {
            text.push_str(&format!("{query} 0 {doc} {grade}\n"));
        }
    }
    write_file(&dir.join("qrels.txt"), &text)?;
    for (name, run) in runs {
        let mut text = String::new();
        let mut queries: Vec<&String> = run.keys().collect();
        queries.sort();
        for query in queries {
            let ranking = &run[query];
            for (rank, doc) in ranking.iter().enumerate() {
                // Scores fall with rank, so trec_eval's score order is the ranking's order.
                text.push_str(&format!("{query} Q0 {doc} {} {} {name}\n", rank + 1, ranking.len() - rank));
            }
        }
        write_file(&dir.join(format!("{name}.run")), &text)?;
    }
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| litnav_app::Error::io(path, &e))
}

const TREC_EVAL_PEER: &str = include_str!("../peers/trec_eval_peer.py");

/// Score the written files with trec_eval and compare every per-topic value with litnav's, which
/// re-reads the same files (so both sides pay for parsing).
fn check_with_trec_eval(python: &Path, dir: &Path, runs: &[(String, Run)]) -> Result<PeerCheck> {
    #[derive(serde::Deserialize)]
    struct PeerReport {
        seconds: f64,
        /// run → topic → measure → value.
        runs: BTreeMap<String, BTreeMap<String, BTreeMap<String, f64>>>,
    }
    let names: Vec<&str> = runs.iter().map(|(n, _)| n.as_str()).collect();
    let job = serde_json::json!({"qrels": dir.join("qrels.txt"), "runs": names, "dir": dir});
    let peer: PeerReport = crate::peer::run_python(python, TREC_EVAL_PEER, &job, "pip install pytrec-eval-terrier")?;
    // The same work as the peer's: the qrels read once, every run read and scored.
    let started = Instant::now();
    let judged = trec::read_qrels(&dir.join("qrels.txt"))?;
    let mut ours = Vec::new();
    for name in &names {
        let run = trec::read_run(&dir.join(format!("{name}.run")))?;
        let answered: std::collections::HashSet<String> = run.keys().cloned().collect();
        ours.push((trec::score(&judged, &run, &CUTOFFS, true)?, answered));
    }
    let litnav_seconds = started.elapsed().as_secs_f64();
    let measures = [
        ("recall@10", "recall_10"),
        ("recall@100", "recall_100"),
        ("precision@10", "P_10"),
        ("precision@100", "P_100"),
        ("ndcg@10", "ndcg_cut_10"),
        ("ndcg@30", "ndcg_cut_30"),
        ("ndcg@100", "ndcg_cut_100"),
        ("mrr", "recip_rank"),
    ];
    let (mut values, mut max_difference) = (0, 0.0f64);
    for (name, (report, answered)) in names.iter().zip(&ours) {
        let theirs = peer
            .runs
            .get(*name)
            .ok_or_else(|| litnav_app::Error::unavailable(format!("trec_eval skipped run {name}")))?;
        // A topic the run does not answer scores 0 here and is skipped by trec_eval.
        for topic in report.per_query.iter().flatten().filter(|t| answered.contains(&t.query)) {
            let Some(their_topic) = theirs.get(&topic.query) else {
                return Err(litnav_app::Error::unavailable(format!(
                    "trec_eval did not score topic {} of {name}",
                    topic.query
                )));
            };
            for (mine, their_key) in measures {
                let a = topic.scores.get(mine).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
                let b = their_topic.get(their_key).copied().unwrap_or(f64::NAN);
                max_difference = max_difference.max((a - b).abs());
                values += 1;
            }
        }
    }
    Ok(PeerCheck { values, max_difference, peer_seconds: peer.seconds, litnav_seconds })
}

/// The organization task on every topic with a heading tree.
fn organize_topics(
    workspace: &Workspace,
    session: &CorpusSession,
    retriever: &Retriever,
    topics: &[&Topic],
    options: &Options<'_>,
    report: &mut Report,
) -> Result<()> {
    let encoder = workspace.encoder(&Quiet)?;
    let labels = workspace.settings().vector_cache("labels");
    let embed = |texts: &[String]| encoder.embed(texts);
    for topic in topics {
        let Some(truth) = litnav_app::score::tree::survey_tree(topic) else {
            report.problems.push(format!("organization on topic {}: no outline or taxonomy to compare with", topic.id));
            continue;
        };
        let mut direct =
            |query: &SearchQuery, retrieval: Option<Retrieval>| search_directly(session, retriever, query, retrieval);
        let retrieved = rank(topic, std::slice::from_ref(&topic.title), None, Merge::Rrf, &mut direct)?;
        let retrieved_ids: Vec<String> = retrieved.into_iter().map(|h| h.id).collect();
        let settings = [
            ("oracle", session.docs(&topic.reference_ids, encoder, &Quiet)?),
            ("end-to-end", session.docs(&retrieved_ids, encoder, &Quiet)?),
        ];
        let topic_vector = encoder.embed(&[topic.title.as_str()]).pop().unwrap_or_default();
        let mut built: Vec<(&str, &str, usize, Tree)> = Vec::new();
        for (setting, docs) in &settings {
            built.push((setting, "clustering (Ward typology)", docs.len(), ward_typology(&topic.title, docs)));
            let map = litnav_organize::organize(&topic.title, &topic_vector, docs, &embed, options.organizer);
            built.push((setting, "litnav map", docs.len(), Tree::from(&map)));
        }
        let mut trees: Vec<&Tree> = vec![&truth];
        trees.extend(built.iter().map(|(_, _, _, t)| t));
        let sim = Embedded::new(encoder, &trees, &labels);
        for (setting, system, papers, tree) in &built {
            report.organization.push(OrganizationRow {
                topic: topic.id.clone(),
                setting: (*setting).into(),
                system: (*system).into(),
                papers: *papers,
                scores: compare(&truth, tree, TreeOptions::default(), &sim, "embedding"),
            });
        }
    }
    Ok(())
}

impl Row {
    /// The mean of score `key` (`recall@100`, `ndcg@10`, …) over the topics.
    pub fn mean(&self, key: &str) -> f64 {
        self.scores.mean.get(key).and_then(serde_json::Value::as_f64).unwrap_or(0.0)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "ResearchArena on {} topics: top {DEPTH} non-surveys published before each survey; relevant = its \
             references (selection grade 2 = cited twice or more in its text, else 1)",
            self.topics
        )?;
        let tables: [(Task, [(&str, &str); 4]); 2] = [
            (
                Task::Discovery,
                [("R@10", "recall@10"), ("R@100", "recall@100"), ("P@10", "precision@10"), ("P@100", "precision@100")],
            ),
            (
                Task::Selection,
                [("nDCG@10", "ndcg@10"), ("nDCG@30", "ndcg@30"), ("nDCG@100", "ndcg@100"), ("MRR", "mrr")],
            ),
        ];
        for (task, columns) in tables.iter().filter(|(task, _)| self.tasks.contains(task) && !self.rows.is_empty()) {
            writeln!(f, "\n{task:?}")?;
            write!(f, "{:<12} {:<18} {:>6}", "baseline", "retrieval", "topics")?;
            columns.iter().try_for_each(|(name, _)| write!(f, " {name:>8}"))?;
            writeln!(f)?;
            for row in &self.rows {
                write!(f, "{:<12} {:<18} {:>6}", row.baseline, row.retrieval, row.scores.queries)?;
                columns.iter().try_for_each(|(_, key)| write!(f, " {:>8.4}", row.mean(key)))?;
                writeln!(f)?;
            }
        }
        if !self.organization.is_empty() {
            write_organization(f, &self.organization)?;
        }
        if let Some(mcp) = &self.mcp {
            writeln!(
                f,
                "\nThrough MCP (`search` tool calls to litnav mcp, the SDK's client): {} of {} rows rank every topic \
                 as the direct run; {} calls, {:.2} s against {:.2} s direct: {:.2} ms a call for the protocol",
                mcp.identical_rows, mcp.rows, mcp.calls, mcp.mcp_seconds, mcp.direct_seconds, mcp.overhead_ms_per_call
            )?;
            mcp.differing.iter().try_for_each(|row| writeln!(f, "  differs: {row}"))?;
        }
        if let Some(peer) = &self.peer {
            writeln!(
                f,
                "\ntrec_eval (pytrec-eval-terrier) on the same files: {} values, largest difference {:.1e}; scoring \
                 {:.4} s (trec_eval {:.4} s, {:.1}x)",
                peer.values,
                peer.max_difference,
                peer.litnav_seconds,
                peer.peer_seconds,
                peer.peer_seconds / peer.litnav_seconds.max(1e-9)
            )?;
        }
        if let Some(dir) = &self.files {
            writeln!(f, "\nqrels.txt and one .run file per row written to {}", dir.display())?;
        }
        if !self.problems.is_empty() {
            writeln!(f, "\nNot scored:")?;
            self.problems.iter().try_for_each(|p| writeln!(f, "  {p}"))?;
        }
        Ok(())
    }
}

/// Means per setting and system, then per topic.
fn write_organization(f: &mut std::fmt::Formatter<'_>, rows: &[OrganizationRow]) -> std::fmt::Result {
    writeln!(
        f,
        "\nOrganization against the surveys' heading trees (HSR = heading soft recall, HER = heading entity \
         recall, TSD = tree semantic distance, TED = ordered tree edit distance; lower distances are better)"
    )?;
    writeln!(
        f,
        "{:<10} {:<28} {:>6} {:>6} {:>7} {:>7} {:>8} {:>8} {:>6}",
        "setting", "system", "topics", "papers", "HSR", "HER", "TSD", "TED", "nodes"
    )?;
    let mut groups: Vec<(&str, &str)> = rows.iter().map(|r| (r.setting.as_str(), r.system.as_str())).collect();
    groups.sort_unstable();
    groups.dedup();
    for (setting, system) in groups {
        let of: Vec<&OrganizationRow> = rows.iter().filter(|r| r.setting == setting && r.system == system).collect();
        let mean = |value: &dyn Fn(&OrganizationRow) -> f64| of.iter().map(|r| value(r)).sum::<f64>() / of.len() as f64;
        let entities: Vec<f64> = of.iter().filter_map(|r| r.scores.heading_entity_recall).collect();
        writeln!(
            f,
            "{setting:<10} {system:<28} {:>6} {:>6.0} {:>7.4} {:>7.4} {:>8.2} {:>8.2} {:>6.0}",
            of.len(),
            mean(&|r| r.papers as f64),
            mean(&|r| r.scores.heading_soft_recall),
            entities.iter().sum::<f64>() / entities.len().max(1) as f64,
            mean(&|r| r.scores.tree_semantic_distance),
            mean(&|r| r.scores.ordered_ted),
            mean(&|r| r.scores.prediction_nodes as f64),
        )?;
    }
    writeln!(f, "\nper topic: HSR / HER / TSD")?;
    for row in rows {
        writeln!(
            f,
            "{:<8} {:<10} {:<28} {:>6} {:.3} / {} / {:.0}",
            row.topic,
            row.setting,
            row.system,
            row.papers,
            row.scores.heading_soft_recall,
            row.scores.heading_entity_recall.map_or("-".into(), |v| format!("{v:.3}")),
            row.scores.tree_semantic_distance
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, score: f32) -> Hit {
        Hit { id: id.into(), title: id.into(), year: None, score, known: None }
    }

    #[test]
    fn merging_by_score_keeps_each_paper_once_at_its_best() {
        let merged = by_best_score(vec![vec![hit("a", 3.0), hit("b", 1.0)], vec![hit("b", 5.0), hit("c", 3.0)]]);
        let order: Vec<(&str, f32)> = merged.iter().map(|h| (h.id.as_str(), h.score)).collect();
        assert_eq!(order, [("b", 5.0), ("a", 3.0), ("c", 3.0)]);
    }
}
