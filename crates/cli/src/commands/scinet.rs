//! `litnav eval paths` and `litnav eval ego`: SciNet's path-wise and ego-centric scores of another
//! system's retrieved papers, with litnav's citation graph as the ground truth.

use super::relations::{Loaded, Measure, MetricArgs};
use anyhow::{Context, Result, bail};
use litnav_graph::Node;
use litnav_graph::paths;
use litnav_graph::percentile::{PercentileTable, ego_score, top_k};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct PathScoreArgs {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// JSONL, one query per line: `source`, `target` (paper ids), `retrieved` (the system's
    /// papers, ids), optional `truth` (the ground-truth path; default: the maximum-citation path).
    file: PathBuf,
    /// Hop limit of the ground-truth path.
    #[arg(long, default_value_t = paths::DEFAULT_MAX_HOPS)]
    max_hops: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct EgoScoreArgs {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// JSONL, one query per line: `topic` (a stored topic's id or title, or free text whose BM25
    /// matches form the field) and `retrieved` (the system's papers, ids, in rank order).
    file: PathBuf,
    /// Which property the queries asked for.
    #[arg(long, value_enum)]
    measure: Measure,
    /// Size of the ground-truth set and of the retrieved list scored (Recall@k).
    #[arg(long, short, default_value_t = 50)]
    k: usize,
    /// How many BM25 matches a free-text topic takes.
    #[arg(long, default_value_t = 300)]
    pool: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// The records of a JSONL file with their line numbers; a bad line is an error naming it.
fn read_queries(file: &Path) -> Result<Vec<(usize, Value)>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let value: Value =
            serde_json::from_str(line).with_context(|| format!("{}:{}: not JSON", file.display(), i + 1))?;
        out.push((i + 1, value));
    }
    if out.is_empty() {
        bail!("{}: no queries", file.display());
    }
    Ok(out)
}

fn field_str<'v>(value: &'v Value, field: &str, file: &Path, line: usize) -> Result<&'v str> {
    value[field].as_str().with_context(|| format!("{}:{line}: field `{field}`: expected a string", file.display()))
}

fn field_ids(value: &Value, field: &str, file: &Path, line: usize) -> Result<Vec<String>> {
    let list = value[field]
        .as_array()
        .with_context(|| format!("{}:{line}: field `{field}`: expected a list of paper ids", file.display()))?;
    list.iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<Vec<_>>>()
        .with_context(|| format!("{}:{line}: field `{field}`: every entry must be a paper id string", file.display()))
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

pub fn paths(args: PathScoreArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.as_deref())?;
    let mut rows = Vec::new();
    for (line, query) in read_queries(&args.file)? {
        let at = |field: &str| format!("{}:{line}: field `{field}`", args.file.display());
        let source = loaded.node(field_str(&query, "source", &args.file, line)?).with_context(|| at("source"))?;
        let target = loaded.node(field_str(&query, "target", &args.file, line)?).with_context(|| at("target"))?;
        let retrieved_ids = field_ids(&query, "retrieved", &args.file, line)?;
        let retrieved: Vec<Node> = retrieved_ids.iter().filter_map(|id| loaded.graph.find(id)).collect();
        let truth: Option<Vec<Node>> = if query.get("truth").is_some() {
            let ids = field_ids(&query, "truth", &args.file, line)?;
            Some(ids.iter().map(|id| loaded.node(id)).collect::<Result<_>>().with_context(|| at("truth"))?)
        } else {
            paths::max_citation_path(&loaded.graph, source, target, args.max_hops).map(|p| p.nodes)
        };
        let consistency = truth.as_ref().map(|t| paths::consistency(&retrieved, t));
        let connectivity = paths::connectivity(&loaded.graph, source, target, &retrieved);
        rows.push(json!({
            "line": line,
            "source": loaded.graph.id(source),
            "target": loaded.graph.id(target),
            "truth": truth.as_ref().map(|t| t.iter().map(|&n| loaded.graph.id(n)).collect::<Vec<_>>()),
            "retrieved_not_in_corpus": retrieved_ids.len() - retrieved.len(),
            "consistency": consistency,
            "connectivity": connectivity,
        }));
    }
    let consistency = mean(rows.iter().filter_map(|r| r["consistency"].as_f64()));
    let connectivity = mean(rows.iter().map(|r| if r["connectivity"] == true { 1.0 } else { 0.0 }));
    let without_truth = rows.iter().filter(|r| r["truth"].is_null()).count();
    if args.json {
        return super::print_json(&json!({
            "queries": rows.len(),
            "without_truth": without_truth,
            "consistency": consistency,
            "connectivity": connectivity,
            "per_query": rows,
        }));
    }
    println!("{} path queries ({without_truth} without a ground-truth path within {} hops)", rows.len(), args.max_hops);
    println!("  Consistency  {}", consistency.map_or("—".into(), |c| format!("{c:.4}")));
    println!("  Connectivity {}", connectivity.map_or("—".into(), |c| format!("{c:.4}")));
    Ok(())
}

pub fn ego(args: EgoScoreArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.as_deref())?;
    let values = loaded.scores(args.measure, &MetricArgs::default(), false).values;
    let table = PercentileTable::new(values.iter().copied());
    let mut rows = Vec::new();
    for (line, query) in read_queries(&args.file)? {
        let topic = field_str(&query, "topic", &args.file, line)?;
        let mut retrieved = field_ids(&query, "retrieved", &args.file, line)?;
        retrieved.truncate(args.k);
        let field = loaded.candidates(Some(topic), args.pool)?;
        let field_values: Vec<Option<f64>> = field.iter().map(|&n| values[n as usize]).collect();
        let truth: Vec<&str> = top_k(&field_values, args.k, |i| loaded.tie_key(field[i]))
            .into_iter()
            .map(|i| loaded.graph.id(field[i]))
            .collect();
        let retrieved_values: Vec<Option<f64>> =
            retrieved.iter().map(|id| loaded.graph.find(id).and_then(|n| values[n as usize])).collect();
        let retrieved_ids: Vec<&str> = retrieved.iter().map(String::as_str).collect();
        let score = ego_score(&table, &retrieved_ids, &retrieved_values, &truth);
        rows.push(json!({ "line": line, "topic": topic, "field_papers": field.len(), "score": score }));
    }
    let sos = mean(rows.iter().filter_map(|r| r["score"]["sos"].as_f64()));
    let recall = mean(rows.iter().filter_map(|r| r["score"]["recall"].as_f64()));
    if args.json {
        return super::print_json(&json!({ "queries": rows.len(), "sos": sos, "recall": recall, "per_query": rows }));
    }
    let name = args.measure.name();
    println!("{} {name} queries", rows.len());
    println!("  {name}-SoS       {}", sos.map_or("—".into(), |s| format!("{s:.2}")));
    println!("  {name}-Recall@{} {}", args.k, recall.map_or("—".into(), |r| format!("{r:.4}")));
    Ok(())
}
