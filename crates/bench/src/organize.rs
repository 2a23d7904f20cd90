//! The organizer's quality benchmark: Bottom-Up organization of the TaxoBench instances (their
//! expert paper sets; the expert taxonomies as truth), scored with TaxoBench's metrics, side by
//! side with the LLM-built trees shipped in `predictions_example.jsonl`.

use crate::peer::run_python;
use crate::{Error, Result};
use litnav_app::score::similarity::Embedded;
use litnav_app::score::taxobench::{pair_files, read_instances};
use litnav_app::{Quiet, Workspace};
use litnav_embed::Encoder;
use litnav_eval::taxobench::Options as Scoring;
use litnav_eval::taxobench::{InstanceScores, score_instance};
use litnav_eval::tree::{Tree, normalize_title};
use litnav_organize::{Doc, MapNode, Method, Options, organize};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

/// What the benchmark reports: every method's scores, and the diagnostic ceilings.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Report {
    /// One row per instance and method.
    pub rows: Vec<Row>,
    /// One per instance.
    pub ceilings: Vec<Ceiling>,
    /// Rows that could not be produced (an LLM's answer unusable after repair, a timeout), each
    /// with its instance and reason.
    pub failures: Vec<String>,
}

/// How far the paper vectors themselves can carry a leaf partition, for one instance. It uses the
/// truth, so it is a diagnostic of the representation, not a method.
#[derive(Debug, Clone, Serialize)]
pub struct Ceiling {
    /// `taxobench` or `bloom-eval`.
    pub suite: String,
    /// Instance id.
    pub id: String,
    /// ROC AUC of the cosine between two papers as a test of "same expert leaf" over every pair
    /// of papers the truth places (ties count one half): 0.5 is chance, 1 a perfect separation.
    pub pair_auc_raw: f64,
    /// The same in the organizer's clustering space (vectors centered on the set's mean).
    pub pair_auc_centered: f64,
    /// Best leaf ARI of any cut of the default method's dendrogram (k chosen with the truth).
    pub oracle_ari: f64,
    /// The k of that cut.
    pub oracle_k: usize,
    /// Leaf ARI of cutting the papers, in the order the input lists them, into as many contiguous
    /// runs as the truth has leaves. Above 0 when the file's order carries the truth (TaxoBench's
    /// does), which a system reading the list in order, such as an LLM, can exploit; litnav's
    /// organizer ignores the order, and its LLM Bottom-Up row shows the model papers by id.
    pub order_ari: f64,
}

/// The ceiling of one instance: papers matched to the truth's leaves by normalized title.
pub fn ceiling(suite: &str, id: &str, docs: &[Doc], truth: &Tree) -> Ceiling {
    use litnav_eval::clustering::adjusted_rand_index;
    use litnav_organize::cluster;
    let leaf_of: std::collections::HashMap<String, usize> =
        truth.paper_nodes().into_iter().map(|(title, node)| (normalize_title(&title), node)).collect();
    let placed: Vec<(usize, usize)> = docs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| leaf_of.get(&normalize_title(&d.title)).map(|&leaf| (i, leaf)))
        .collect();
    let raw: Vec<Vec<f32>> = docs.iter().map(|d| d.vector.clone()).collect();
    let space = cluster::centered(&raw);
    let truth_labels: Vec<usize> = placed.iter().map(|&(_, leaf)| leaf).collect();
    let dendrogram = cluster::agglomerate(&space, cluster::Linkage::Average);
    let (oracle_ari, oracle_k) = (2..docs.len())
        .map(|k| {
            let labels = dendrogram.cut(k);
            let predicted: Vec<usize> = placed.iter().map(|&(i, _)| labels[i]).collect();
            (adjusted_rand_index(&truth_labels, &predicted), k)
        })
        .fold((f64::NEG_INFINITY, 0), |best, next| if next.0 > best.0 { next } else { best });
    let leaves = truth_labels.iter().collect::<std::collections::HashSet<_>>().len();
    let runs: Vec<usize> = (0..placed.len()).map(|i| i * leaves / placed.len().max(1)).collect();
    Ceiling {
        suite: suite.into(),
        id: id.into(),
        pair_auc_raw: pair_auc(&raw, &placed),
        pair_auc_centered: pair_auc(&space, &placed),
        oracle_ari,
        oracle_k,
        order_ari: adjusted_rand_index(&truth_labels, &runs),
    }
}

/// Mann–Whitney ROC AUC of pairwise cosine for "same leaf" over all pairs of `placed` (point,
/// leaf); 0.5 when either class of pairs is empty.
fn pair_auc(vectors: &[Vec<f32>], placed: &[(usize, usize)]) -> f64 {
    let mut pairs: Vec<(f32, bool)> = Vec::new();
    for (a, &(i, leaf_i)) in placed.iter().enumerate() {
        for &(j, leaf_j) in &placed[a + 1..] {
            pairs.push((litnav_core::vector::dot(&vectors[i], &vectors[j]), leaf_i == leaf_j));
        }
    }
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
    let positives = pairs.iter().filter(|p| p.1).count() as f64;
    let negatives = pairs.len() as f64 - positives;
    if positives == 0.0 || negatives == 0.0 {
        return 0.5;
    }
    // Sum of the positives' ranks (1-based, ties at their mean rank).
    let mut rank_sum = 0.0;
    let mut start = 0;
    while start < pairs.len() {
        let end = start + pairs[start..].iter().take_while(|p| p.0 == pairs[start].0).count();
        let mean_rank = (start + 1 + end) as f64 / 2.0;
        rank_sum += mean_rank * pairs[start..end].iter().filter(|p| p.1).count() as f64;
        start = end;
    }
    (rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives)
}

/// One instance's scores for one method.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// `taxobench` or `bloom-eval`.
    pub suite: String,
    /// Instance id.
    pub id: String,
    /// Method name.
    pub method: String,
    /// TaxoBench scores.
    pub scores: InstanceScores,
    /// Papers organized.
    pub papers: usize,
    /// Seconds to organize (0 for precomputed trees).
    pub seconds: f64,
    /// The tree's checks without a reference (none when they could not be computed).
    pub checks: Option<litnav_eval::checks::TreeChecks>,
}

/// The method name of the rows that score the expert tree itself (its checks beside the
/// machines'; its reference scores are perfect by construction).
pub const EXPERT: &str = "expert tree (the reference itself)";

/// The reference-free checks of `tree`, for its row.
fn checks_of(workspace: &Workspace, tree: &Tree) -> Option<litnav_eval::checks::TreeChecks> {
    litnav_app::score::tree::check(workspace, tree, None, &Quiet).ok()
}

/// The papers of a TaxoBench `data.jsonl` line (`pdfs: [{title, abs}]`).
pub fn instance_docs(line: &Value, encoder: &Encoder, cache: &Path) -> Vec<Doc> {
    let pdfs = line["pdfs"].as_array().cloned().unwrap_or_default();
    let items: Vec<(String, Option<String>)> = pdfs
        .iter()
        .filter_map(|p| p["title"].as_str().map(|t| (t.to_string(), p["abs"].as_str().map(str::to_string))))
        .collect();
    let texts: Vec<String> =
        items.iter().map(|(t, a)| litnav_core::PaperText::new(t, a.as_deref()).passage()).collect();
    let vectors = litnav_embed::embed_cached(encoder, &texts, cache);
    items
        .into_iter()
        .zip(vectors)
        .map(|((title, abstract_text), vector)| Doc {
            id: litnav_corpus::title_id(&title),
            title,
            year: None,
            abstract_text,
            vector,
        })
        .collect()
}

/// The offline methods the organizer benchmarks compare, with their names in reports.
const OFFLINE_METHODS: [(Method, &str); 4] = [
    (Method::Average, "average linkage + c-TF-IDF"),
    (Method::KMeans, "k-means + c-TF-IDF"),
    (Method::Navigator, "UMAP + GMM + c-TF-IDF"),
    (Method::Ward, "Ward + c-TF-IDF"),
];

/// Each offline method's map of `docs` (named `litnav offline: …`), with the seconds it took.
fn offline_maps(
    topic: &str,
    topic_vector: &[f32],
    docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    options: Options,
) -> Vec<(Method, String, MapNode, f64)> {
    OFFLINE_METHODS
        .into_iter()
        .map(|(method, name)| {
            let started = Instant::now();
            let map = organize(topic, topic_vector, docs, embed, Options { method, ..options });
            (method, format!("litnav offline: {name}"), map, started.elapsed().as_secs_f64())
        })
        .collect()
}

/// The LLM the benchmark's LLM rows use.
#[derive(Clone, Copy)]
pub struct LlmStage<'a> {
    /// The configured client.
    pub client: &'a litnav_llm::Client,
    /// Papers shown to the Cluster Reader per cluster (`--llm-papers`).
    pub papers_per_cluster: usize,
}

/// The LLM rows of one instance: the default method's map refined by the LLM stage, the LLM
/// Bottom-Up organizer's map (`litnav map --method llm`) and Knowledge Navigator's Direct-Gen baseline (an outline from the topic
/// alone: no papers, so only the heading metrics — NSR, US-NTED — mean anything), each timed from
/// its start. A row whose LLM calls fail is an `Err`
/// saying why, so one bad answer does not end the benchmark.
fn llm_trees(
    llm: LlmStage<'_>,
    topic: &str,
    topic_vector: &[f32],
    offline_map: MapNode,
    docs: &[Doc],
    embed: &(dyn Fn(&[String]) -> Vec<Vec<f32>> + Sync),
) -> Vec<std::result::Result<(String, Tree, f64), String>> {
    let refined_row = {
        let name = "litnav + LLM: average linkage + Cluster Reader + Themes";
        let started = Instant::now();
        litnav_organize::llm::refine(offline_map, topic, llm.client, llm.papers_per_cluster)
            .map(|(refined, _)| (name.to_string(), Tree::from(&refined), started.elapsed().as_secs_f64()))
            .map_err(|e| format!("{name}: {e}"))
    };
    let bottom_up_row = {
        let name = "LLM Bottom-Up (map --method llm: title + abstract, 25 per request)";
        let started = Instant::now();
        // The method shows the model the papers by id (a hash of the title), never in the file's
        // order: TaxoBench's files list an instance's papers in the order of the expert
        // taxonomy, and cutting that list into k contiguous runs alone scores ARI 0.44.
        litnav_organize::bottom_up::bottom_up_map(
            topic,
            topic_vector,
            docs,
            &[],
            "",
            embed,
            llm.client,
            litnav_organize::bottom_up::BottomUpOptions::default(),
        )
        .map(|(map, _)| (name.to_string(), Tree::from(&map), started.elapsed().as_secs_f64()))
        .map_err(|e| format!("{name}: {e}"))
    };
    let direct_gen_row = {
        let name = "LLM Direct-Gen (topic only, headings)";
        let started = Instant::now();
        litnav_llm::navigator::direct_outline(llm.client, topic)
            .map(|answer| (name.to_string(), answer.value, started.elapsed().as_secs_f64()))
            .map_err(|e| format!("{name}: {e}"))
    };
    vec![refined_row, bottom_up_row, direct_gen_row]
}

/// Run the benchmark on TaxoBench files; with `llm`, also litnav's LLM stage on the default method's map
/// (Cluster Reader + Thematic Organizer) and the LLM Bottom-Up organizer (`map --method llm`) and Direct-Gen.
pub fn run(
    workspace: &Workspace,
    data: &Path,
    predictions: &Path,
    options: Options,
    llm: Option<LlmStage<'_>>,
) -> Result<Report> {
    let encoder = workspace.encoder(&Quiet)?;
    let cache = workspace.settings().vector_cache("papers");
    let labels = workspace.settings().vector_cache("labels");
    let (gold, _) = read_instances(data, "gt")?;
    let paired = pair_files(data, predictions)?;
    let mut report = Report::default();
    for instance in &gold {
        let Ok(gt) = &instance.tree else { continue };
        let line = &instance.record;
        let topic = instance.topic().unwrap_or("").to_string();
        let docs = instance_docs(line, encoder, &cache);
        report.ceilings.push(ceiling("taxobench", &instance.id, &docs, gt));
        let topic_vector = encoder.embed(&[topic.as_str()]).pop().unwrap_or_default();
        let embed = |texts: &[String]| encoder.embed(texts);
        let mut built = Vec::new();
        for (method, name, map, seconds) in offline_maps(&topic, &topic_vector, &docs, &embed, options) {
            built.push((name, Tree::from(&map), seconds));
            if let Some(stage) = llm.filter(|_| method == Method::default()) {
                for row in llm_trees(stage, &topic, &topic_vector, map, &docs, &embed) {
                    match row {
                        Ok(row) => built.push(row),
                        Err(why) => report.failures.push(format!("instance {}: {why}", instance.id)),
                    }
                }
            }
        }
        let llm = paired.pairs.iter().find(|pair| pair.id == instance.id).map(|pair| pair.predicted.clone());
        let mut trees: Vec<&Tree> = vec![gt];
        trees.extend(built.iter().map(|(_, t, _)| t));
        if let Some(p) = &llm {
            trees.push(p);
        }
        let sim = Embedded::new(encoder, &trees, &labels);
        let row = |method: String, tree: &Tree, seconds: f64| Row {
            suite: "taxobench".into(),
            id: instance.id.clone(),
            method,
            scores: score_instance(gt, tree, None, Scoring::default(), &sim),
            papers: docs.len(),
            seconds,
            checks: checks_of(workspace, tree),
        };
        for (name, tree, seconds) in &built {
            report.rows.push(row(name.clone(), tree, *seconds));
        }
        if let Some(p) = llm {
            report.rows.push(row("LLM trees (predictions_example)".into(), &p, 0.0));
        }
        report.rows.push(row(EXPERT.into(), gt, 0.0));
    }
    Ok(report)
}

const SPEED_PEER: &str = include_str!("../peers/bertopic_style_peer.py");

/// One method's time to organize a paper set.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// Method name.
    pub method: String,
    /// Seconds from vectors to a named map (median of 3 runs).
    pub seconds: f64,
    /// Subtopics produced.
    pub subtopics: usize,
}

/// What the BERTopic-style Python pipeline reported.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct PeerTiming {
    /// Importing numpy, umap-learn, scikit-learn.
    pub imports_seconds: f64,
    /// UMAP.
    pub umap_seconds: f64,
    /// HDBSCAN.
    pub hdbscan_seconds: f64,
    /// Class-based TF-IDF.
    pub ctfidf_seconds: f64,
    /// Clusters found.
    pub clusters: usize,
    /// Papers HDBSCAN left unassigned.
    pub outliers: usize,
}

/// Time every offline method on `docs` (vectors already computed), and the BERTopic-style Python
/// pipeline on the same vectors when `python` (with umap-learn and scikit-learn) is given.
pub fn speed(
    topic: &str,
    topic_vector: &[f32],
    docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    python: Option<&Path>,
) -> Result<(Vec<Timing>, Option<PeerTiming>)> {
    let mut timings = Vec::new();
    for (method, name) in OFFLINE_METHODS {
        let mut seconds = Vec::new();
        let mut subtopics = 0;
        for _ in 0..3 {
            let started = Instant::now();
            let map = organize(topic, topic_vector, docs, embed, Options { method, ..Options::default() });
            seconds.push(started.elapsed().as_secs_f64());
            subtopics = count_leaves(&map);
        }
        seconds.sort_by(f64::total_cmp);
        timings.push(Timing { method: name.into(), seconds: seconds[1], subtopics });
    }
    let peer = match python {
        None => None,
        Some(python) => {
            let scratch = tempfile::tempdir()?;
            let path = scratch.path().join("vectors.f32");
            let bytes: Vec<u8> = docs.iter().flat_map(|d| d.vector.iter().flat_map(|v| v.to_le_bytes())).collect();
            std::fs::write(&path, bytes)?;
            let texts: Vec<String> =
                docs.iter().map(|d| format!("{}. {}", d.title, d.abstract_text.as_deref().unwrap_or(""))).collect();
            let job = serde_json::json!({
                "vectors": path, "n": docs.len(), "dim": docs.first().map_or(0, |d| d.vector.len()),
                "texts": texts, "seed": litnav_core::DEFAULT_SEED,
            });
            Some(run_python(python, SPEED_PEER, &job, "pip install umap-learn scikit-learn")?)
        }
    };
    Ok((timings, peer))
}

fn count_leaves(node: &MapNode) -> usize {
    if node.subtopics.is_empty() {
        usize::from(!node.paper_ids.is_empty())
    } else {
        node.subtopics.iter().map(count_leaves).sum()
    }
}

/// One litbench Bloom-Eval topic ready to organize: its survey title, the expert outline with each
/// reference placed at its primary section (derived from citation contexts), and its papers.
pub struct BloomTopic {
    /// Topic id (`cs_01`, …).
    pub id: String,
    /// The survey's title (the topic query).
    pub title: String,
    /// Truth: the outline with papers (titles) at their primary sections.
    pub truth: Tree,
    /// The references with vectors.
    pub docs: Vec<Doc>,
}

/// Read the Bloom-Eval topics of litbench (`topics.jsonl` + `assignments.jsonl`); `docs_for` turns
/// paper ids into documents with vectors (papers it cannot find are left out).
pub fn bloom_topics(litbench: &Path, docs_for: &dyn Fn(&[String]) -> Vec<Doc>) -> Result<Vec<BloomTopic>> {
    let assignments = read_json_lines(&litbench.join("assignments.jsonl"))?;
    let mut topics = Vec::new();
    for topic in read_json_lines(&litbench.join("topics.jsonl"))? {
        let id = topic["topic_id"].as_str().unwrap_or_default().to_string();
        if topic["outline"].is_null() || id.starts_with("taxo_") {
            continue;
        }
        let ids = strings(&topic["reference_ids"]);
        let docs = docs_for(&ids);
        let titles: std::collections::HashMap<&str, &str> =
            docs.iter().map(|d| (d.id.as_str(), d.title.as_str())).collect();
        let mut placements: Vec<(Vec<String>, String)> = Vec::new();
        for row in assignments.iter().filter(|r| r["topic_id"] == id.as_str() && r["primary"] == true) {
            let Some(title) = row["paper_id"].as_str().and_then(|p| titles.get(p)) else { continue };
            placements.push((strings(&row["section_path"]), (*title).to_string()));
        }
        let title = topic["title"].as_str().unwrap_or_default().to_string();
        let truth = litnav_app::score::tree::outline_tree(&title, &topic["outline"], &[], &placements);
        topics.push(BloomTopic { id, title, truth, docs });
    }
    Ok(topics)
}

/// Every non-blank line of a JSON-lines file, parsed; an error names the file and line.
pub(crate) fn read_json_lines(path: &Path) -> Result<Vec<Value>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::input(format!("cannot read {}: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| Error::input(format!("{}:{}: {e}", path.display(), i + 1))))
        .collect()
}

/// The strings of a JSON array (other items and non-arrays give nothing).
pub(crate) fn strings(value: &Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect()
}

/// Organize every Bloom-Eval topic's references with each offline method and score the maps
/// against the outlines (TaxoBench's metrics; NSR is the heading soft recall, the measure
/// Knowledge Navigator compares with Direct-Gen); with `llm`, the LLM rows too.
pub fn run_bloom(
    topics: &[BloomTopic],
    workspace: &Workspace,
    options: Options,
    llm: Option<LlmStage<'_>>,
) -> Result<Report> {
    let encoder = workspace.encoder(&Quiet)?;
    let labels = workspace.settings().vector_cache("labels");
    let mut report = Report::default();
    for topic in topics {
        report.ceilings.push(ceiling("bloom-eval", &topic.id, &topic.docs, &topic.truth));
        let topic_vector = encoder.embed(&[topic.title.as_str()]).pop().unwrap_or_default();
        let embed = |texts: &[String]| encoder.embed(texts);
        let mut built = Vec::new();
        for (method, name, map, seconds) in offline_maps(&topic.title, &topic_vector, &topic.docs, &embed, options) {
            built.push((name, Tree::from(&map), seconds));
            if let Some(stage) = llm.filter(|_| method == Method::default()) {
                for row in llm_trees(stage, &topic.title, &topic_vector, map, &topic.docs, &embed) {
                    match row {
                        Ok(row) => built.push(row),
                        Err(why) => report.failures.push(format!("topic {}: {why}", topic.id)),
                    }
                }
            }
        }
        let mut trees: Vec<&Tree> = vec![&topic.truth];
        trees.extend(built.iter().map(|(_, t, _)| t));
        let sim = Embedded::new(encoder, &trees, &labels);
        let row = |method: String, tree: &Tree, seconds: f64| Row {
            suite: "bloom-eval".into(),
            id: topic.id.clone(),
            method,
            scores: score_instance(&topic.truth, tree, None, Scoring::default(), &sim),
            papers: topic.docs.len(),
            seconds,
            checks: checks_of(workspace, tree),
        };
        for (name, tree, seconds) in &built {
            report.rows.push(row(name.clone(), tree, *seconds));
        }
        report.rows.push(row(EXPERT.into(), &topic.truth, 0.0));
    }
    Ok(report)
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Bottom-Up organization: TaxoBench instances (truth: expert taxonomies) and, with --bloom, litbench"
        )?;
        writeln!(
            f,
            "Bloom-Eval topics (truth: survey outlines, references at their primary sections). NSR = heading soft recall."
        )?;
        let line =
            |f: &mut std::fmt::Formatter<'_>, id: &str, method: &str, papers: String, s: [f64; 5], seconds: String| {
                writeln!(
                    f,
                    "{id:<6} {method:<46} {papers:>6} {:>7.3} {:>7.3} {:>9.3} {:>8.3} {:>6.3} {seconds:>8}",
                    s[0], s[1], s[2], s[3], s[4]
                )
            };
        let values = |r: &Row| {
            [
                r.scores.leaf.ari,
                r.scores.leaf.v_measure,
                r.scores.sem_path.unwrap_or(0.0),
                r.scores.us_nted,
                r.scores.nsr,
            ]
        };
        let mut suites: Vec<&str> = self.rows.iter().map(|r| r.suite.as_str()).collect();
        suites.dedup();
        for suite in suites {
            writeln!(f, "\n{suite}")?;
            writeln!(
                f,
                "{:<6} {:<46} {:>6} {:>7} {:>7} {:>9} {:>8} {:>6} {:>8}",
                "id", "method", "papers", "ARI", "V", "Sem-Path", "US-NTED", "NSR", "seconds"
            )?;
            let mine: Vec<&Row> = self.rows.iter().filter(|r| r.suite == suite).collect();
            for r in &mine {
                line(f, &r.id, &r.method, r.papers.to_string(), values(r), format!("{:.2}", r.seconds))?;
            }
            let mut methods: Vec<&str> = mine.iter().map(|r| r.method.as_str()).collect();
            methods.sort_unstable();
            methods.dedup();
            for method in methods {
                let of: Vec<&&Row> = mine.iter().filter(|r| r.method == method).collect();
                let mut mean = [0.0; 5];
                for r in &of {
                    mean.iter_mut().zip(values(r)).for_each(|(m, v)| *m += v / of.len() as f64);
                }
                line(f, "mean", method, String::new(), mean, String::new())?;
            }
        }
        write_ceilings(f, &self.ceilings)?;
        write_check_correlations(f, &self.rows)?;
        if !self.failures.is_empty() {
            writeln!(f, "\nRows not produced:")?;
            for failure in &self.failures {
                writeln!(f, "  {failure}")?;
            }
        }
        Ok(())
    }
}

/// Do the checks that need no reference mean anything? Spearman's ρ of each check with ARI,
/// Sem-Path and NSR over the machines' rows (method × instance; the expert rows are perfect by
/// construction and left out), each check oriented so that a positive ρ means it agrees; then
/// each check's mean on the machines' trees and on the experts'.
fn write_check_correlations(f: &mut std::fmt::Formatter<'_>, rows: &[Row]) -> std::fmt::Result {
    let machines: Vec<&Row> = rows.iter().filter(|r| r.method != EXPERT && r.checks.is_some()).collect();
    let experts: Vec<&Row> = rows.iter().filter(|r| r.method == EXPERT && r.checks.is_some()).collect();
    let Some(first) = machines.first().and_then(|r| r.checks.as_ref()) else { return Ok(()) };
    writeln!(
        f,
        "\nChecks without a reference against the reference metrics: Spearman ρ over {} machine trees",
        machines.len()
    )?;
    writeln!(f, "(oriented: positive = the check agrees with the metric); means on machine and expert trees.")?;
    writeln!(
        f,
        "{:<34} {:>8} {:>9} {:>8} {:>10} {:>10}",
        "check", "ρ ARI", "ρ Sem-Path", "ρ NSR", "machines", "experts"
    )?;
    // ARI, Sem-Path, NSR.
    let references: [fn(&Row) -> Option<f64>; 3] =
        [|r| Some(r.scores.leaf.ari), |r| r.scores.sem_path, |r| Some(r.scores.nsr)];
    for (index, (name, sign, _)) in first.measures().into_iter().enumerate() {
        let value = |r: &Row| r.checks.as_ref().and_then(|c| c.measures()[index].2);
        let rho = |reference: fn(&Row) -> Option<f64>| {
            let pairs: Vec<(f64, f64)> =
                machines.iter().filter_map(|r| Some((value(r)? * f64::from(sign), reference(r)?))).collect();
            let (a, b): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
            litnav_eval::agreement::spearman(&a, &b).map_or("—".to_string(), |rho| format!("{rho:+.3}"))
        };
        let mean = |of: &[&Row]| {
            let values: Vec<f64> = of.iter().filter_map(|r| value(r)).collect();
            if values.is_empty() {
                "—".to_string()
            } else {
                format!("{:.3}", values.iter().sum::<f64>() / values.len() as f64)
            }
        };
        let [ari, sem, nsr] = references.map(rho);
        writeln!(f, "{name:<34} {ari:>8} {sem:>9} {nsr:>8} {:>10} {:>10}", mean(&machines), mean(&experts))?;
    }
    Ok(())
}

/// The diagnostic table: how well the paper vectors alone separate the truth's leaves.
fn write_ceilings(f: &mut std::fmt::Formatter<'_>, ceilings: &[Ceiling]) -> std::fmt::Result {
    writeln!(f, "\nCeiling of the representation (uses the truth: a diagnostic, not a method). Pair AUC: how well")?;
    writeln!(f, "cosine tells same-leaf from different-leaf pairs (0.5 = chance); oracle ARI: the best cut of the")?;
    writeln!(f, "default method's dendrogram, k chosen with the truth; order ARI: the input list cut into as many")?;
    writeln!(f, "contiguous runs as the truth has leaves (above 0: the file's order leaks the truth to any system")?;
    writeln!(f, "that reads it in order; litnav's organizer ignores it).")?;
    writeln!(
        f,
        "{:<11} {:<6} {:>14} {:>19} {:>11} {:>9} {:>10}",
        "suite", "id", "pair AUC raw", "pair AUC centered", "oracle ARI", "oracle k", "order ARI"
    )?;
    let mut suites: Vec<&str> = ceilings.iter().map(|c| c.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        let of: Vec<&Ceiling> = ceilings.iter().filter(|c| c.suite == suite).collect();
        for c in &of {
            writeln!(
                f,
                "{suite:<11} {:<6} {:>14.3} {:>19.3} {:>11.3} {:>9} {:>10.3}",
                c.id, c.pair_auc_raw, c.pair_auc_centered, c.oracle_ari, c.oracle_k, c.order_ari
            )?;
        }
        let mean = |g: fn(&Ceiling) -> f64| of.iter().map(|c| g(c)).sum::<f64>() / of.len() as f64;
        writeln!(
            f,
            "{suite:<11} {:<6} {:>14.3} {:>19.3} {:>11.3} {:>9} {:>10.3}",
            "mean",
            mean(|c| c.pair_auc_raw),
            mean(|c| c.pair_auc_centered),
            mean(|c| c.oracle_ari),
            "",
            mean(|c| c.order_ari)
        )?;
    }
    Ok(())
}

/// The organizer speed benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedReport {
    /// The topic whose papers were organized.
    #[serde(skip)]
    pub topic: String,
    /// Papers organized.
    pub papers: usize,
    /// litnav's methods.
    pub litnav: Vec<Timing>,
    /// The Python pipeline, when it ran.
    pub python: Option<PeerTiming>,
}

/// The topic's top `k` papers from the session's corpus (vectors cached), organized by every
/// offline method, and by the Python pipeline with `python`.
pub fn speed_suite(
    workspace: &Workspace,
    session: &litnav_app::CorpusSession,
    topic: &str,
    k: usize,
    python: Option<&Path>,
) -> Result<SpeedReport> {
    let encoder = workspace.encoder(&Quiet)?;
    let hits = session.retrieve(topic, k, litnav_search::Filter::default(), encoder, &Quiet)?;
    let ids: Vec<String> = hits.into_iter().map(|hit| hit.id).collect();
    let docs = session.docs(&ids, encoder, &Quiet)?;
    let topic_vector = encoder.embed(&[topic]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    let (litnav, python) = speed(topic, &topic_vector, &docs, &embed, python)?;
    Ok(SpeedReport { topic: topic.to_string(), papers: docs.len(), litnav, python })
}

impl std::fmt::Display for SpeedReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "organizing {} litbench papers for {:?} (vectors cached):", self.papers, self.topic)?;
        for t in &self.litnav {
            writeln!(f, "  litnav {:<24} {:>7.2} s  {} subtopics", t.method, t.seconds, t.subtopics)?;
        }
        if let Some(p) = &self.python {
            writeln!(
                f,
                "  Python UMAP + HDBSCAN + c-TF-IDF {:>7.2} s  ({:.2} UMAP, {:.2} HDBSCAN, {:.2} c-TF-IDF; imports {:.1} s more), {} clusters, {} outliers",
                p.umap_seconds + p.hdbscan_seconds + p.ctfidf_seconds,
                p.umap_seconds,
                p.hdbscan_seconds,
                p.ctfidf_seconds,
                p.imports_seconds,
                p.clusters,
                p.outliers
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A 2-D vector scaled to unit length (also used by the map filter's tests).
    pub(crate) fn unit(v: [f32; 2]) -> Vec<f32> {
        let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
        vec![v[0] / n, v[1] / n]
    }

    #[test]
    fn pair_auc_by_hand() {
        let vectors = vec![unit([1.0, 0.0]), unit([1.0, 0.1]), unit([0.0, 1.0]), unit([0.1, 1.0])];
        // Leaves {0, 1} and {2, 3}: both same-leaf pairs are the two most similar: AUC 1.
        assert_eq!(pair_auc(&vectors, &[(0, 0), (1, 0), (2, 1), (3, 1)]), 1.0);
        // Leaves {0, 2} and {1, 3}: same-leaf cosines 0 and 0.198 rank 1st and 4th of six (the
        // different-leaf ones: 0.0995 twice, 0.995 twice): (1 + 4 − 2·3/2) / (2·4) = 0.25.
        assert!((pair_auc(&vectors, &[(0, 0), (1, 1), (2, 0), (3, 1)]) - 0.25).abs() < 1e-12);
        // Equal vectors tie: every pair has the same cosine, so AUC is one half.
        let same = vec![unit([1.0, 1.0]); 4];
        assert_eq!(pair_auc(&same, &[(0, 0), (1, 0), (2, 1), (3, 1)]), 0.5);
        // One class of pairs empty: 0.5.
        assert_eq!(pair_auc(&vectors, &[(0, 0), (1, 0)]), 0.5);
    }

    #[test]
    fn ceiling_of_a_perfectly_separated_set_is_exact() {
        let titles = ["Alpha one", "Alpha two", "Beta one", "Beta two", "Gamma one", "Gamma two"];
        let vectors = [[1.0, 0.0], [1.0, 0.05], [0.0, 1.0], [0.05, 1.0], [-1.0, 0.0], [-1.0, -0.05]];
        let docs: Vec<Doc> = titles
            .iter()
            .zip(vectors)
            .map(|(t, v)| Doc {
                id: t.to_string(),
                title: t.to_string(),
                year: None,
                abstract_text: None,
                vector: unit(v),
            })
            .collect();
        let leaf = |name: &str, papers: &[&str]| Tree {
            name: name.into(),
            children: Vec::new(),
            papers: papers.iter().map(|p| p.to_string()).collect(),
        };
        let truth = Tree {
            name: "root".into(),
            children: vec![
                leaf("A", &["alpha ONE", "Alpha two"]),
                leaf("B", &["Beta one", "Beta two"]),
                leaf("C", &["Gamma one", "Gamma two"]),
            ],
            papers: Vec::new(),
        };
        let c = ceiling("t", "x", &docs, &truth);
        assert_eq!((c.oracle_ari, c.oracle_k), (1.0, 3));
        assert_eq!(c.pair_auc_raw, 1.0);
        // Listed leaf by leaf, the order alone gives the truth; interleaved, it gives nothing.
        assert_eq!(c.order_ari, 1.0);
        let interleaved: Vec<Doc> = [0, 2, 4, 1, 3, 5].iter().map(|&i| docs[i].clone()).collect();
        assert!(ceiling("t", "x", &interleaved, &truth).order_ari < 0.0);
    }

    #[test]
    fn an_unreachable_llm_fails_its_rows_not_the_benchmark() {
        let docs: Vec<Doc> = (0..6)
            .map(|i| Doc {
                id: format!("p{i}"),
                title: format!("Paper {i} on graphs"),
                year: None,
                abstract_text: None,
                vector: unit([1.0, i as f32 / 10.0]),
            })
            .collect();
        let embed = |texts: &[String]| texts.iter().map(|_| unit([1.0, 0.0])).collect::<Vec<_>>();
        let map = organize("graphs", &unit([1.0, 0.0]), &docs, &embed, Options::default());
        // Nothing listens on port 9 (discard): every call fails fast.
        let config = litnav_llm::Config {
            base_url: "http://127.0.0.1:9/v1".into(),
            timeout: std::time::Duration::from_secs(2),
            backoff: std::time::Duration::from_millis(1),
            cache_dir: None,
            ..litnav_llm::Config::default()
        };
        let client = litnav_llm::Client::new(config);
        let rows = llm_trees(
            LlmStage { client: &client, papers_per_cluster: 12 },
            "graphs",
            &unit([1.0, 0.0]),
            map,
            &docs,
            &embed,
        );
        assert_eq!(rows.len(), 3);
        let errors: Vec<String> = rows.into_iter().map(|r| r.expect_err("no server")).collect();
        assert!(errors[0].starts_with("litnav + LLM"), "{}", errors[0]);
        assert!(errors[1].starts_with("LLM Bottom-Up"), "{}", errors[1]);
        assert!(errors[2].starts_with("LLM Direct-Gen"), "{}", errors[2]);
    }
}
