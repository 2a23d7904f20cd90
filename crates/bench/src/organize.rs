//! The organizer's quality benchmark: Bottom-Up organization of the TaxoBench instances (their
//! expert paper sets; the expert taxonomies as truth), scored with TaxoBench's metrics, side by
//! side with the LLM-built trees shipped in `predictions_example.jsonl`.

use crate::peer::run_python;
use crate::taxobench::{Embedded, pair_files, read_instances};
use crate::{Error, Result};
use litnav_embed::Encoder;
use litnav_eval::taxobench::{InstanceScores, Tree, score_instance};
use litnav_organize::{Doc, MapNode, Method, Options, organize};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

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
}

/// A map as a TaxoBench tree (names, children, paper titles).
pub fn map_to_tree(map: &MapNode) -> Tree {
    Tree {
        name: map.name.clone(),
        children: map.subtopics.iter().map(map_to_tree).collect(),
        papers: map.papers.clone(),
    }
}

/// The papers of a TaxoBench `data.jsonl` line (`pdfs: [{title, abs}]`).
pub fn instance_docs(line: &Value, encoder: &Encoder, cache: &Path) -> Vec<Doc> {
    let pdfs = line["pdfs"].as_array().cloned().unwrap_or_default();
    let items: Vec<(String, Option<String>)> = pdfs
        .iter()
        .filter_map(|p| p["title"].as_str().map(|t| (t.to_string(), p["abs"].as_str().map(str::to_string))))
        .collect();
    let texts: Vec<String> = items
        .iter()
        .map(|(t, a)| litnav_corpus::Paper { title: t.clone(), abstract_text: a.clone(), ..Default::default() }.text())
        .collect();
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
const OFFLINE_METHODS: [(Method, &str); 3] = [
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

/// The LLM rows of one instance: the Ward map refined by the LLM stage, and the one-call
/// Bottom-Up tree. Timed from the start of each.
fn llm_trees(
    client: &litnav_llm::Client,
    topic: &str,
    ward_map: MapNode,
    docs: &[Doc],
) -> Result<Vec<(String, Tree, f64)>> {
    let llm_error = |e: litnav_llm::Error| Error::Peer(format!("LLM: {e}"));
    let started = Instant::now();
    let (refined, _) = litnav_organize::llm::refine(ward_map, topic, client, 12).map_err(llm_error)?;
    let refined_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let papers: Vec<litnav_llm::prompts::PaperText<'_>> =
        docs.iter().map(|d| litnav_llm::prompts::PaperText { title: &d.title, abstract_text: None }).collect();
    let taxonomy = litnav_llm::navigator::bottom_up(client, topic, &papers).map_err(llm_error)?;
    let titles: Vec<&str> = docs.iter().map(|d| d.title.as_str()).collect();
    let tree = Tree::from_json(&taxonomy.to_taxobench(topic, &titles)).map_err(|e| Error::Input(e.to_string()))?;
    Ok(vec![
        ("litnav + LLM: Ward + Cluster Reader + Themes".to_string(), map_to_tree(&refined), refined_seconds),
        ("LLM Bottom-Up (one call, litnav client)".to_string(), tree, started.elapsed().as_secs_f64()),
    ])
}

/// Run the benchmark on TaxoBench files; with `llm`, also litnav's LLM stage on the Ward map
/// (Cluster Reader + Thematic Organizer) and TaxoBench's one-call Bottom-Up LLM organizer.
pub fn run(
    data: &Path,
    predictions: &Path,
    encoder: &Encoder,
    options: Options,
    llm: Option<&litnav_llm::Client>,
) -> Result<Vec<Row>> {
    let cache = litnav_embed::install::litnav_home().join("cache").join("papers.bin");
    let text =
        std::fs::read_to_string(data).map_err(|e| Error::Input(format!("cannot read {}: {e}", data.display())))?;
    let lines: Vec<Value> =
        text.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| serde_json::from_str(l).ok()).collect();
    let (gold, _) = read_instances(data, "gt")?;
    let paired = pair_files(data, predictions)?;
    let mut rows = Vec::new();
    for (line, instance) in lines.iter().zip(&gold) {
        let Ok(gt) = &instance.tree else { continue };
        let topic = line["survey_topic"].as_str().or(line["survey"].as_str()).unwrap_or("").to_string();
        let docs = instance_docs(line, encoder, &cache);
        let topic_vector = encoder.embed(&[topic.as_str()]).pop().unwrap_or_default();
        let embed = |texts: &[String]| encoder.embed(texts);
        let mut built = Vec::new();
        for (method, name, map, seconds) in offline_maps(&topic, &topic_vector, &docs, &embed, options) {
            built.push((name, map_to_tree(&map), seconds));
            if let (Some(client), Method::Ward) = (llm, method) {
                built.extend(llm_trees(client, &topic, map, &docs)?);
            }
        }
        let llm = paired.pairs.iter().find(|(id, _, _)| *id == instance.id).map(|(_, _, p)| p.clone());
        let mut trees: Vec<&Tree> = vec![gt];
        trees.extend(built.iter().map(|(_, t, _)| t));
        if let Some(p) = &llm {
            trees.push(p);
        }
        let sim = Embedded::new(encoder, &trees);
        for (name, tree, seconds) in &built {
            rows.push(Row {
                suite: "taxobench".into(),
                id: instance.id.clone(),
                method: name.clone(),
                scores: score_instance(gt, tree, 0.92, 1.0, &sim),
                papers: docs.len(),
                seconds: *seconds,
            });
        }
        if let Some(p) = llm {
            rows.push(Row {
                suite: "taxobench".into(),
                id: instance.id.clone(),
                method: "LLM trees (predictions_example)".into(),
                scores: score_instance(gt, &p, 0.92, 1.0, &sim),
                papers: docs.len(),
                seconds: 0.0,
            });
        }
    }
    Ok(rows)
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
                "texts": texts, "seed": 42,
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
    let read = |name: &str| -> Result<Vec<Value>> {
        let path = litbench.join(name);
        let text =
            std::fs::read_to_string(&path).map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?;
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| Error::Input(format!("{}:{}: {e}", path.display(), i + 1)))
            })
            .collect()
    };
    let assignments = read("assignments.jsonl")?;
    let mut topics = Vec::new();
    for topic in read("topics.jsonl")? {
        let id = topic["topic_id"].as_str().unwrap_or_default().to_string();
        if topic["outline"].is_null() || id.starts_with("taxo_") {
            continue;
        }
        let ids: Vec<String> = topic["reference_ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let docs = docs_for(&ids);
        let titles: std::collections::HashMap<&str, &str> =
            docs.iter().map(|d| (d.id.as_str(), d.title.as_str())).collect();
        let mut placements: Vec<(Vec<String>, String)> = Vec::new();
        for row in assignments.iter().filter(|r| r["topic_id"] == id.as_str() && r["primary"] == true) {
            let Some(title) = row["paper_id"].as_str().and_then(|p| titles.get(p)) else { continue };
            let path: Vec<String> = row["section_path"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect();
            placements.push((path, (*title).to_string()));
        }
        let title = topic["title"].as_str().unwrap_or_default().to_string();
        let truth = outline_tree(&title, &topic["outline"], &[], &placements);
        topics.push(BloomTopic { id, title, truth, docs });
    }
    Ok(topics)
}

/// The outline as a tree named by section titles, each paper at the section its path names.
fn outline_tree(name: &str, node: &Value, path: &[String], placements: &[(Vec<String>, String)]) -> Tree {
    let children = node["children"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|child| {
            let mut child_path = path.to_vec();
            child_path.push(child["name"].as_str().unwrap_or_default().to_string());
            outline_tree(child["title"].as_str().unwrap_or_default(), child, &child_path, placements)
        })
        .collect();
    let papers = if path.is_empty() {
        Vec::new()
    } else {
        placements.iter().filter(|(p, _)| p.as_slice() == path).map(|(_, t)| t.clone()).collect()
    };
    Tree { name: name.to_string(), children, papers }
}

/// Organize every Bloom-Eval topic's references with each offline method and score the maps
/// against the outlines (TaxoBench's metrics; NSR is the heading soft recall).
pub fn run_bloom(topics: &[BloomTopic], encoder: &Encoder, options: Options) -> Vec<Row> {
    let mut rows = Vec::new();
    for topic in topics {
        let topic_vector = encoder.embed(&[topic.title.as_str()]).pop().unwrap_or_default();
        let embed = |texts: &[String]| encoder.embed(texts);
        let built: Vec<(String, Tree, f64)> = offline_maps(&topic.title, &topic_vector, &topic.docs, &embed, options)
            .into_iter()
            .map(|(_, name, map, seconds)| (name, map_to_tree(&map), seconds))
            .collect();
        let mut trees: Vec<&Tree> = vec![&topic.truth];
        trees.extend(built.iter().map(|(_, t, _)| t));
        let sim = Embedded::new(encoder, &trees);
        for (name, tree, seconds) in &built {
            rows.push(Row {
                suite: "bloom-eval".into(),
                id: topic.id.clone(),
                method: name.clone(),
                scores: score_instance(&topic.truth, tree, 0.92, 1.0, &sim),
                papers: topic.docs.len(),
                seconds: *seconds,
            });
        }
    }
    rows
}
