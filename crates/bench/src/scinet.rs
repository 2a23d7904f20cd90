//! SciNet's three task families on real data (seed 003): query sets built from a corpus's
//! citation graph and citation contexts, answered by content-only retrieval (BM25, dense MiniLM)
//! and by litnav's relation-aware answers, and scored with `litnav eval ego|pairs|paths` — the
//! seed's central claim ("content-only retrieval misses disruptive papers") measured here.
//!
//! - **Ego** (AAN): ten ACL subfields as free-text topics; a subfield's papers are its 300 best
//!   BM25 matches; the truth is their 50 most disruptive (CD) or most novel (Uzzi) papers.
//!   Recall@50 and SoS.
//! - **Pair** (AAN and litbench): "which papers cite Q" and "which papers are co-cited with Q" for
//!   the most cited AAN papers (Cite-Acc, CoMention-Acc); "which papers are mentioned in the
//!   same paragraph as Q" for the litbench papers with the most co-mentions in the 14 expert
//!   surveys' paragraphs (`ingest --surveys`; CoMention-Acc, CoMention-Paragraph). 50 queries
//!   per family by default, as SciNet's lists are 50 long.
//! - **Path** (AAN): (old, new) pairs three citation hops apart (50 by default), written old → new
//!   as SciNet writes them; the truth is the maximum-citation path. Consistency and Connectivity
//!   of 10 retrieved papers.
//!
//! Content-only systems query with the topic, or with the query paper's title (excluding the paper
//! itself), or with both endpoint titles. litnav's answers read the graph and contexts the truth
//! is made from, so for the ego and path tasks and for co-mention they are the truth itself (an
//! upper bound, reported as such); for citers they are the graph's citers.

use crate::Result;
use litnav_app::relations::{Measure, MetricOptions, Neighbourhood, RankRequest};
use litnav_app::score::{pairwise, scinet};
use litnav_app::{CorpusSession, IngestRequest, Progress, SearchRequest, Workspace};
use litnav_graph::Node;
use litnav_search::Mode;
use serde::Serialize;
use serde_json::json;
use std::path::Path;

/// AAN subfields the ego task asks about.
const SUBFIELDS: [&str; 10] = [
    "statistical machine translation",
    "dependency parsing",
    "sentiment analysis",
    "named entity recognition",
    "word sense disambiguation",
    "coreference resolution",
    "semantic role labeling",
    "question answering",
    "discourse structure",
    "speech recognition",
];

/// Answers per ego and pair query (SciNet's 50).
const K: usize = 50;
/// Papers retrieved per path query.
const PATH_K: usize = 10;
/// A subfield's papers: its best BM25 matches.
const POOL: usize = 300;

/// The systems compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum System {
    /// BM25 over title and abstract.
    Bm25,
    /// MiniLM cosine.
    Dense,
    /// litnav's relation-aware answer.
    Relations,
}

impl System {
    const ALL: [System; 3] = [System::Bm25, System::Dense, System::Relations];

    fn name(self) -> &'static str {
        match self {
            System::Bm25 => "BM25",
            System::Dense => "dense (MiniLM)",
            System::Relations => "litnav relations",
        }
    }
}

/// One system's ego scores for one measure.
#[derive(Debug, Clone, Serialize)]
pub struct EgoRow {
    /// Disruption or novelty.
    pub measure: Measure,
    /// The system.
    pub system: System,
    /// Mean Recall@50.
    pub recall: Option<f64>,
    /// Mean SoS (percentile).
    pub sos: Option<f64>,
}

/// One system's pair scores on one query family.
#[derive(Debug, Clone, Serialize)]
pub struct PairRow {
    /// The query family.
    pub family: &'static str,
    /// The system.
    pub system: System,
    /// The scores.
    pub scores: PairNumbers,
}

/// The four pair-wise numbers (those the family asks for).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PairNumbers {
    /// Cite-Acc.
    pub cite_acc: Option<f64>,
    /// CoMention-Acc.
    pub comention_acc: Option<f64>,
    /// CoMention-Paragraph.
    pub comention_paragraph: Option<f64>,
}

/// One system's path scores.
#[derive(Debug, Clone, Serialize)]
pub struct PathRow {
    /// The system.
    pub system: System,
    /// Mean Consistency.
    pub consistency: Option<f64>,
    /// Share of connected answers.
    pub connectivity: Option<f64>,
}

/// How many queries a pair-wise family asked: (family, queries).
pub type FamilySize = (&'static str, usize);

/// The benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Ego queries (subfields).
    pub ego_queries: usize,
    /// Ego scores.
    pub ego: Vec<EgoRow>,
    /// Pair queries per family.
    pub pair_queries: Vec<FamilySize>,
    /// Pair scores.
    pub pairs: Vec<PairRow>,
    /// Path queries.
    pub path_queries: usize,
    /// Path scores.
    pub paths: Vec<PathRow>,
    /// Seconds for the whole run (corpora built earlier are reused).
    pub seconds: f64,
}

/// Run the benchmark. The AAN corpus and litbench with the surveys' contexts are built under
/// litnav's home on the first run.
/// `queries` per pair and path family (SciNet-sized: 50), and as many subfields (at most 10).
pub fn run(workspace: &Workspace, queries: usize, progress: &dyn Progress) -> Result<Report> {
    let started = std::time::Instant::now();
    let datasets = workspace.settings().datasets()?.to_path_buf();
    let aan_dir = datasets.join("citations/aan");
    let aan = workspace.dataset_corpus(
        "aan",
        &IngestRequest {
            files: vec![aan_dir.join("papers.jsonl"), aan_dir.join("citations.csv")],
            ..IngestRequest::default()
        },
        progress,
    )?;
    let litbench = datasets.join("litbench");
    let mut surveys: Vec<_> = std::fs::read_dir(datasets.join("bloom-eval"))
        .map_err(|e| litnav_app::Error::io(&datasets.join("bloom-eval"), &e))?
        .filter_map(|e| e.ok().map(|e| e.path().join("human")))
        .filter(|p| p.is_dir())
        .collect();
    surveys.sort();
    let with_contexts = workspace.dataset_corpus(
        "litbench-surveys",
        &IngestRequest {
            files: vec![litbench.join("corpus.jsonl"), litbench.join("topics.jsonl")],
            surveys,
            ..IngestRequest::default()
        },
        progress,
    )?;
    let aan = CorpusSession::open(&aan)?;
    let with_contexts = CorpusSession::open(&with_contexts)?;
    let scratch = tempfile::tempdir()?;
    let answerer = Answerer { workspace, progress, queries };
    progress.stage("SciNet ego-centric task on AAN");
    let ego = ego_task(&aan, &answerer, scratch.path())?;
    progress.stage("SciNet pair-wise task");
    let (pair_queries, pairs) = pair_task(&aan, &with_contexts, &answerer, scratch.path())?;
    progress.stage("SciNet path-wise task on AAN");
    let (path_queries, paths) = path_task(&aan, &answerer, scratch.path())?;
    Ok(Report {
        ego_queries: queries.min(SUBFIELDS.len()),
        ego,
        pair_queries,
        pairs,
        path_queries,
        paths,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Content-only answers.
struct Answerer<'a> {
    workspace: &'a Workspace,
    progress: &'a dyn Progress,
    /// Queries per family.
    queries: usize,
}

impl Answerer<'_> {
    /// The top `k` ids for `query` by BM25 or dense retrieval, without `exclude`.
    fn retrieve(
        &self,
        session: &CorpusSession,
        system: System,
        query: &str,
        k: usize,
        exclude: &[&str],
    ) -> Result<Vec<String>> {
        let mode = if system == System::Dense { Mode::Dense } else { Mode::Bm25 };
        let request = SearchRequest { k: k + exclude.len(), mode, ..SearchRequest::new(query) };
        let hits = match mode {
            Mode::Bm25 => session.search_lexical(&request)?,
            _ => session.search(&request, self.workspace.encoder(self.progress)?, self.progress)?,
        };
        Ok(hits.into_iter().map(|h| h.id).filter(|id| !exclude.contains(&id.as_str())).take(k).collect())
    }
}

fn write_jsonl(path: &Path, lines: &[serde_json::Value]) -> Result<()> {
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>())?;
    Ok(())
}

fn ego_task(aan: &CorpusSession, answerer: &Answerer<'_>, scratch: &Path) -> Result<Vec<EgoRow>> {
    let mut rows = Vec::new();
    for measure in [Measure::Disruption, Measure::Novelty] {
        for system in System::ALL {
            let mut lines = Vec::new();
            for topic in SUBFIELDS.iter().take(answerer.queries) {
                let retrieved = match system {
                    System::Relations => {
                        let request = RankRequest {
                            measure,
                            topic: Some(topic.to_string()),
                            pool: POOL,
                            k: K,
                            scinet_form: false,
                            metric: MetricOptions::default(),
                        };
                        aan.rank(&request)?.papers.into_iter().map(|p| p.paper.id).collect()
                    }
                    _ => answerer.retrieve(aan, system, topic, K, &[])?,
                };
                lines.push(json!({"topic": topic, "retrieved": retrieved}));
            }
            let file = scratch.join("ego.jsonl");
            write_jsonl(&file, &lines)?;
            let scores = scinet::score_ego(aan, &file, measure, K, POOL, None, answerer.progress)?;
            rows.push(EgoRow { measure, system, recall: scores.recall, sos: scores.sos });
        }
    }
    Ok(rows)
}

/// The `n` nodes with the highest `key`, ties by node.
fn top_nodes(nodes: impl Iterator<Item = Node>, n: usize, key: impl Fn(Node) -> usize) -> Vec<Node> {
    let mut all: Vec<Node> = nodes.collect();
    all.sort_by_key(|&node| (std::cmp::Reverse(key(node)), node));
    all.truncate(n);
    all
}

fn pair_task(
    aan: &CorpusSession,
    with_contexts: &CorpusSession,
    answerer: &Answerer<'_>,
    scratch: &Path,
) -> Result<(Vec<FamilySize>, Vec<PairRow>)> {
    let graph = &aan.citations()?.graph;
    let cited = top_nodes(graph.nodes(), answerer.queries, |n| graph.in_degree(n));
    let contexts = &with_contexts.citations()?.contexts;
    let evidence = litnav_graph::evidence::PairEvidence::new(&with_contexts.citations()?.graph, contexts);
    let mut mentioned: Vec<&str> = contexts.iter().map(|c| c.cited_id.as_str()).collect();
    mentioned.sort_unstable();
    mentioned.dedup();
    let mut by_co_mentions: Vec<(usize, &str)> =
        mentioned.iter().map(|&id| (evidence.co_mentions_of(id).len(), id)).collect();
    by_co_mentions.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let co_mentioned: Vec<&str> = by_co_mentions.iter().take(answerer.queries).map(|&(_, id)| id).collect();

    let families: [(&'static str, &CorpusSession, Vec<String>, &str); 3] = [
        ("AAN: who cites Q", aan, cited.iter().map(|&n| graph.id(n).to_string()).collect(), "cite"),
        ("AAN: co-cited with Q", aan, cited.iter().map(|&n| graph.id(n).to_string()).collect(), "co-mention"),
        (
            "litbench surveys: same paragraph as Q",
            with_contexts,
            co_mentioned.iter().map(|s| s.to_string()).collect(),
            "co-mention",
        ),
    ];
    let mut sizes = Vec::new();
    let mut rows = Vec::new();
    for (family, session, papers, task) in families {
        sizes.push((family, papers.len()));
        let queries: Vec<serde_json::Value> =
            papers.iter().enumerate().map(|(i, p)| json!({"id": format!("q{i}"), "paper": p, "task": task})).collect();
        let query_file = scratch.join("pair-queries.jsonl");
        write_jsonl(&query_file, &queries)?;
        for system in System::ALL {
            let mut answers = Vec::new();
            for (i, paper) in papers.iter().enumerate() {
                let retrieved = match system {
                    System::Relations => relation_answer(session, family, paper)?,
                    _ => {
                        let title = session.paper(paper)?.map_or(paper.as_str(), |p| p.title.as_str());
                        answerer.retrieve(session, system, title, K, &[paper])?
                    }
                };
                answers.push(json!({"id": format!("q{i}"), "retrieved": retrieved}));
            }
            let answer_file = scratch.join("pair-answers.jsonl");
            write_jsonl(&answer_file, &answers)?;
            let scores = pairwise::score_pairs(session, &query_file, &answer_file, K, None, answerer.progress)?;
            rows.push(PairRow {
                family,
                system,
                scores: PairNumbers {
                    cite_acc: scores.cite_acc,
                    comention_acc: scores.comention_acc,
                    comention_paragraph: scores.comention_paragraph,
                },
            });
        }
    }
    Ok((sizes, rows))
}

/// litnav's relation-aware answer to a pair query.
fn relation_answer(session: &CorpusSession, family: &str, paper: &str) -> Result<Vec<String>> {
    if family.starts_with("litbench") {
        return Ok(session.co_mentioned(paper, K)?.co_mentioned.into_iter().map(|m| m.mention.paper_id).collect());
    }
    if family.contains("co-cited") {
        return Ok(session
            .neighbours(paper, Neighbourhood::CoCited, K)?
            .related
            .into_iter()
            .map(|r| r.paper.id)
            .collect());
    }
    // Citers, the most cited first.
    let graph = &session.citations()?.graph;
    let citers = top_nodes(graph.citers(session.node(paper)?).iter().copied(), K, |n| graph.in_degree(n));
    Ok(citers.into_iter().map(|n| graph.id(n).to_string()).collect())
}

/// (old, new) pairs three citation hops apart: for the most cited papers in turn, the most cited
/// paper reached from them by following citers three times and by no shorter way.
fn path_pairs(aan: &CorpusSession, queries: usize) -> Result<Vec<(Node, Node)>> {
    let graph = &aan.citations()?.graph;
    let mut pairs = Vec::new();
    for old in top_nodes(graph.nodes(), graph.len(), |n| graph.in_degree(n)) {
        if pairs.len() == queries {
            break;
        }
        // Breadth-first along "cited by", three levels.
        let mut seen = std::collections::HashSet::from([old]);
        let mut level = vec![old];
        for _ in 0..3 {
            let mut next = Vec::new();
            for &n in &level {
                for &c in graph.citers(n) {
                    if seen.insert(c) {
                        next.push(c);
                    }
                }
            }
            level = next;
        }
        if let Some(&new) = top_nodes(level.into_iter(), 1, |n| graph.in_degree(n)).first() {
            pairs.push((old, new));
        }
    }
    Ok(pairs)
}

fn path_task(aan: &CorpusSession, answerer: &Answerer<'_>, scratch: &Path) -> Result<(usize, Vec<PathRow>)> {
    let graph = &aan.citations()?.graph;
    let pairs = path_pairs(aan, answerer.queries)?;
    let title = |n: Node| -> Result<String> { Ok(aan.paper(graph.id(n))?.map_or(String::new(), |p| p.title.clone())) };
    let mut rows = Vec::new();
    for system in System::ALL {
        let mut lines = Vec::new();
        for &(old, new) in &pairs {
            let (old_id, new_id) = (graph.id(old), graph.id(new));
            let retrieved: Vec<String> = match system {
                System::Relations => {
                    let report = aan.path(new_id, old_id, litnav_graph::paths::DEFAULT_MAX_HOPS, 1)?;
                    let papers = report.max_citation_path.map(|p| p.papers).unwrap_or_default();
                    papers.into_iter().map(|p| p.id).filter(|id| id != old_id && id != new_id).collect()
                }
                _ => answerer.retrieve(
                    aan,
                    system,
                    &format!("{} {}", title(old)?, title(new)?),
                    PATH_K,
                    &[old_id, new_id],
                )?,
            };
            // SciNet writes the endpoints old → new.
            lines.push(json!({"source": old_id, "target": new_id, "retrieved": retrieved}));
        }
        let file = scratch.join("paths.jsonl");
        write_jsonl(&file, &lines)?;
        let scores = scinet::score_paths(aan, &file, litnav_graph::paths::DEFAULT_MAX_HOPS, None, answerer.progress)?;
        rows.push(PathRow { system, consistency: scores.consistency, connectivity: scores.connectivity });
    }
    Ok((pairs.len(), rows))
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "      -".to_string(), |v| format!("{:>6.2}%", 100.0 * v))
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "SciNet's tasks on real data ({:.0} s)", self.seconds)?;
        writeln!(
            f,
            "\nEgo-centric, AAN, {} subfields (truth: the 50 top papers of 300 BM25 matches)",
            self.ego_queries
        )?;
        writeln!(
            f,
            "  {:<18} {:>16} {:>14} {:>13} {:>11}",
            "system", "Disruption-R@50", "Disruption-SoS", "Novelty-R@50", "Novelty-SoS"
        )?;
        for system in System::ALL {
            let get = |m: Measure| self.ego.iter().find(|r| r.system == system && r.measure == m);
            let (d, n) = (get(Measure::Disruption), get(Measure::Novelty));
            writeln!(
                f,
                "  {:<18} {:>16} {:>14} {:>13} {:>11}",
                system.name(),
                percent(d.and_then(|r| r.recall)),
                d.and_then(|r| r.sos).map_or("-".into(), |v| format!("{v:.1}")),
                percent(n.and_then(|r| r.recall)),
                n.and_then(|r| r.sos).map_or("-".into(), |v| format!("{v:.1}")),
            )?;
        }
        writeln!(f, "\nPair-wise")?;
        for (family, size) in &self.pair_queries {
            writeln!(f, "  {family} ({size} queries)")?;
            for row in self.pairs.iter().filter(|r| r.family == *family) {
                let s = row.scores;
                let mut parts = Vec::new();
                if s.cite_acc.is_some() {
                    parts.push(format!("Cite-Acc {}", percent(s.cite_acc)));
                }
                if s.comention_acc.is_some() {
                    parts.push(format!("CoMention-Acc {}", percent(s.comention_acc)));
                }
                if family.starts_with("litbench") {
                    parts.push(format!("CoMention-Paragraph {}", percent(s.comention_paragraph)));
                }
                writeln!(f, "    {:<18} {}", row.system.name(), parts.join("  "))?;
            }
        }
        writeln!(
            f,
            "\nPath-wise, AAN, {} pairs three hops apart (old → new), {} papers retrieved",
            self.path_queries, PATH_K
        )?;
        for row in &self.paths {
            writeln!(
                f,
                "  {:<18} Consistency {}  Connectivity {}",
                row.system.name(),
                percent(row.consistency),
                percent(row.connectivity)
            )?;
        }
        writeln!(f, "\nlitnav relations answers from the graph and contexts the truth is built from: an upper bound.")
    }
}
