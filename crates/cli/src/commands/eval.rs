//! `litnav eval`: score other systems' outputs with the field's metrics.

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use litnav_eval::hierarchy::LabelSimilarity;
use litnav_eval::taxobench::{Tree, score_instance};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Scorers.
#[derive(Debug, Subcommand)]
pub enum Scorer {
    /// Score TaxoBench predictions (`id`, `hierarchy_tree`) against TaxoBench's `data.jsonl`
    /// (`id`, `gt`): retrieval P/R/F1 after title alignment, leaf ARI / V-measure (end-to-end and
    /// on aligned papers), Sem-Path, US-TED / US-NTED and NSR / NSP / Soft-F1.
    Taxobench(TaxobenchArgs),
    /// Compare any two trees (TaxoBench JSON, litnav maps, or outlines with `children`):
    /// US-TED/US-NTED, NSR/NSP/Soft-F1 (= heading soft recall/precision), Bloom-Eval STS and Shape
    /// Consistency, ordered TED, ResearchArena's Tree Semantic Distance — and, when both trees
    /// hold papers, the retrieval, leaf and Sem-Path metrics.
    Tree(TreeArgs),
    /// Score a ranked run against relevance judgments, TREC style: Recall/Precision/nDCG@k and MRR.
    Retrieval(RetrievalArgs),
    /// SciNet path-wise scores of retrieved papers against the citation graph: Consistency
    /// (share of the maximum-citation path's inner papers retrieved) and Connectivity (the
    /// retrieved papers link the endpoints by citations).
    Paths(super::scinet::PathScoreArgs),
    /// SciNet ego-centric scores of retrieved papers: SoS (mean corpus percentile of their
    /// disruption or novelty) and Recall@k of the field's k most disruptive or novel papers.
    Ego(super::scinet::EgoScoreArgs),
    /// LLM judges (tree, GRADE, path rationality), each printing its full trace as JSON.
    #[command(subcommand)]
    Judge(super::judge::Judge),
}

#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    /// The reference (expert) tree, a JSON file.
    #[arg(long, value_name = "FILE")]
    reference: PathBuf,
    /// The predicted tree, a JSON file.
    #[arg(long, value_name = "FILE")]
    prediction: PathBuf,
    /// Title-alignment threshold (for trees with papers).
    #[arg(long, default_value_t = 0.92)]
    threshold: f64,
    /// Sem-Path's penalty per unmatched ancestor.
    #[arg(long, default_value_t = 1.0)]
    lambda: f64,
    /// Cosine above which Tree Semantic Distance relabels for free.
    #[arg(long, default_value_t = 0.8)]
    tsd_threshold: f64,
    /// Label similarity.
    #[arg(long, value_enum, default_value_t = SimilarityArg::Embedding)]
    similarity: SimilarityArg,
    #[command(flatten)]
    model: super::embed::ModelArgs,
    /// Print the scores as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RetrievalArgs {
    /// Relevance judgments, TREC qrels: `query 0 document grade` per line (grade > 0 = relevant).
    #[arg(long, value_name = "FILE")]
    qrels: PathBuf,
    /// The run, TREC format: `query Q0 document rank score tag` per line.
    #[arg(long, value_name = "FILE")]
    run: PathBuf,
    /// Cut-offs for Recall/Precision/nDCG.
    #[arg(long, value_delimiter = ',', default_value = "10,100")]
    k: Vec<usize>,
    /// Also print per-query scores.
    #[arg(long)]
    per_query: bool,
    /// Print the scores as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SimilarityArg {
    /// max(0, cosine) of all-MiniLM-L6-v2 embeddings — TaxoBench's definition.
    Embedding,
    /// difflib ratio of normalized labels: no model needed, NOT comparable to published numbers.
    String,
}

#[derive(Debug, clap::Args)]
pub struct TaxobenchArgs {
    /// TaxoBench's data.jsonl (expert taxonomies in `gt`).
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// Predictions: JSON lines with `id` and `hierarchy_tree`.
    #[arg(long, value_name = "FILE")]
    predictions: PathBuf,
    /// Title-alignment threshold.
    #[arg(long, default_value_t = 0.92)]
    threshold: f64,
    /// Sem-Path's penalty per unmatched ancestor.
    #[arg(long, default_value_t = 1.0)]
    lambda: f64,
    /// Label similarity for the hierarchy metrics.
    #[arg(long, value_enum, default_value_t = SimilarityArg::Embedding)]
    similarity: SimilarityArg,
    /// Write one JSON line of scores per instance here.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    model: super::embed::ModelArgs,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(scorer: Scorer) -> Result<()> {
    match scorer {
        Scorer::Taxobench(args) => taxobench(args),
        Scorer::Tree(args) => tree(args),
        Scorer::Retrieval(args) => retrieval(args),
        Scorer::Paths(args) => super::scinet::paths(args),
        Scorer::Ego(args) => super::scinet::ego(args),
        Scorer::Judge(judge) => super::judge::run(judge),
    }
}

/// The similarity the flags ask for, over the labels of `trees`.
fn similarity(
    kind: SimilarityArg,
    model: &super::embed::ModelArgs,
    trees: &[&Tree],
) -> Result<Box<dyn LabelSimilarity>> {
    use litnav_bench::taxobench::{Embedded, Textual};
    Ok(match kind {
        SimilarityArg::String => Box::new(Textual),
        SimilarityArg::Embedding => Box::new(Embedded::new(&model.load()?, trees)),
    })
}

fn read_tree(path: &Path) -> Result<Tree> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: Value = serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", path.display()))?;
    // Accept a bare tree or a TaxoBench line holding one.
    let tree =
        value.get("hierarchy_tree").or_else(|| value.get("gt")).or_else(|| value.get("taxonomy")).unwrap_or(&value);
    Tree::from_json(tree).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

fn tree(args: TreeArgs) -> Result<()> {
    use litnav_eval::{hierarchy, ordered};
    let reference = read_tree(&args.reference)?;
    let predicted = read_tree(&args.prediction)?;
    let sim = similarity(args.similarity, &args.model, &[&reference, &predicted])?;
    let cosine = |a: &str, b: &str| sim.similarity(a, b);
    let (nsr, nsp, soft_f1) = hierarchy::nsr_nsp_soft_f1(&reference, &predicted, sim.as_ref());
    let mut report = serde_json::json!({
        "us_ted": hierarchy::us_ted(&reference, &predicted, sim.as_ref()),
        "us_nted": hierarchy::us_nted(&reference, &predicted, sim.as_ref()),
        "nsr": nsr,
        "nsp": nsp,
        "soft_f1": soft_f1,
        "heading_soft_recall": nsr,
        "sts": ordered::semantic_tree_similarity(&reference, &predicted, &cosine),
        "shape_consistency": ordered::shape_consistency(&reference, &predicted),
        "tree_semantic_distance": ordered::tree_semantic_distance(&reference, &predicted, &cosine, args.tsd_threshold),
        "ordered_ted": ordered::tree_edit_distance(&reference, &predicted, &|a, b| if a == b { 0.0 } else { 1.0 }),
        "reference_nodes": ordered::node_count(&reference),
        "prediction_nodes": ordered::node_count(&predicted),
    });
    if !reference.paper_nodes().is_empty() && !predicted.paper_nodes().is_empty() {
        let scores = score_instance(&reference, &predicted, args.threshold, args.lambda, sim.as_ref());
        if let (Value::Object(report), Value::Object(extra)) = (&mut report, serde_json::to_value(&scores)?) {
            for (key, value) in extra {
                report.entry(key).or_insert(value);
            }
        }
    }
    report["similarity"] = Value::String(similarity_name(args.similarity).into());
    if args.json {
        return super::print_json(&report);
    }
    print_numbers(&report);
    Ok(())
}

fn similarity_name(kind: SimilarityArg) -> &'static str {
    match kind {
        SimilarityArg::Embedding => "embedding:all-MiniLM-L6-v2",
        SimilarityArg::String => "string:difflib-ratio",
    }
}

fn print_numbers(report: &Value) {
    if let Value::Object(map) = report {
        for (key, value) in map {
            match value {
                Value::Number(n) if n.is_u64() => println!("  {key:<24} {n}"),
                Value::Number(n) => println!("  {key:<24} {:.6}", n.as_f64().unwrap_or(f64::NAN)),
                Value::String(s) => println!("  {key:<24} {s}"),
                _ => {}
            }
        }
    }
}

/// Judgments: query → document → grade.
type Qrels = std::collections::BTreeMap<String, HashMap<String, f64>>;

fn read_qrels(path: &Path) -> Result<Qrels> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut qrels = Qrels::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [query, _, document, grade] = fields[..] else {
            bail!(
                "{}:{}: a qrels line has 4 fields (query iteration document grade), found {}",
                path.display(),
                i + 1,
                fields.len()
            );
        };
        let grade: f64 = grade
            .parse()
            .with_context(|| format!("{}:{}: field `grade`: `{grade}` is not a number", path.display(), i + 1))?;
        qrels.entry(query.to_string()).or_default().insert(document.to_string(), grade);
    }
    Ok(qrels)
}

/// Ranked documents per query, ordered as trec_eval orders them: by score, decreasing, ties by
/// document id in decreasing order (the file's rank column is ignored, as trec_eval does).
fn read_run(path: &Path) -> Result<HashMap<String, Vec<String>>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut scored: HashMap<String, Vec<(f64, String)>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [query, _, document, _, score, ..] = fields[..] else {
            bail!(
                "{}:{}: a run line has 6 fields (query Q0 document rank score tag), found {}",
                path.display(),
                i + 1,
                fields.len()
            );
        };
        let score: f64 = score
            .parse()
            .with_context(|| format!("{}:{}: field `score`: `{score}` is not a number", path.display(), i + 1))?;
        scored.entry(query.to_string()).or_default().push((score, document.to_string()));
    }
    Ok(scored
        .into_iter()
        .map(|(query, mut docs)| {
            docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
            (query, docs.into_iter().map(|(_, d)| d).collect())
        })
        .collect())
}

fn retrieval(args: RetrievalArgs) -> Result<()> {
    use litnav_eval::retrieval::{ndcg_graded_at, precision_at, recall_at, reciprocal_rank};
    let qrels = read_qrels(&args.qrels)?;
    let run = read_run(&args.run)?;
    let mut per_query = Vec::new();
    for (query, judged) in &qrels {
        let relevant: std::collections::HashSet<&str> =
            judged.iter().filter(|(_, g)| **g > 0.0).map(|(d, _)| d.as_str()).collect();
        if relevant.is_empty() {
            continue;
        }
        let grades: HashMap<&str, f64> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
        let empty = Vec::new();
        let ranking: Vec<&str> = run.get(query).unwrap_or(&empty).iter().map(String::as_str).collect();
        let mut scores = serde_json::Map::new();
        for &k in &args.k {
            scores.insert(format!("recall@{k}"), serde_json::json!(recall_at(&ranking, &relevant, k)));
            scores.insert(format!("precision@{k}"), serde_json::json!(precision_at(&ranking, &relevant, k)));
            scores.insert(format!("ndcg@{k}"), serde_json::json!(ndcg_graded_at(&ranking, &grades, k)));
        }
        scores.insert("mrr".into(), serde_json::json!(reciprocal_rank(&ranking, &relevant, ranking.len())));
        per_query.push((query.clone(), scores));
    }
    if per_query.is_empty() {
        bail!("{} judges no query relevant to anything", args.qrels.display());
    }
    let mut mean = serde_json::Map::new();
    for key in per_query[0].1.keys() {
        let total: f64 = per_query.iter().map(|(_, s)| s[key].as_f64().unwrap_or(0.0)).sum();
        mean.insert(key.clone(), serde_json::json!(total / per_query.len() as f64));
    }
    let report = serde_json::json!({
        "queries": per_query.len(),
        "mean": mean,
        "per_query": if args.per_query { serde_json::json!(per_query.iter().map(|(q, s)| serde_json::json!({"query": q, "scores": s})).collect::<Vec<_>>()) } else { Value::Null },
    });
    if args.json {
        return super::print_json(&report);
    }
    println!("{} queries with relevant documents (queries missing from the run score 0)", per_query.len());
    print_numbers(&Value::Object(mean));
    if args.per_query {
        for (query, scores) in &per_query {
            println!("query {query}");
            print_numbers(&Value::Object(scores.clone()));
        }
    }
    Ok(())
}

fn taxobench(args: TaxobenchArgs) -> Result<()> {
    use litnav_bench::taxobench::{pair_files, score_pairs, summarize};
    let paired = pair_files(&args.data, &args.predictions)?;
    let trees: Vec<&Tree> = paired.pairs.iter().flat_map(|(_, g, p)| [g, p]).collect();
    let sim = similarity(args.similarity, &args.model, &trees)?;
    let scored = score_pairs(&paired.pairs, args.threshold, args.lambda, sim.as_ref());
    if let Some(path) = &args.output {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        );
        for (id, scores) in &scored {
            let mut line = serde_json::to_value(scores)?;
            line["id"] = Value::String(id.clone());
            writeln!(file, "{line}")?;
        }
        file.flush()?;
    }
    let summary = summarize(&scored, args.threshold, args.lambda, similarity_name(args.similarity));
    for problem in &paired.problems {
        eprintln!("warning: {problem}");
    }
    if args.json {
        return super::print_json(&summary);
    }
    let label = match args.similarity {
        SimilarityArg::Embedding => "label similarity: all-MiniLM-L6-v2 clipped cosine (TaxoBench's)",
        SimilarityArg::String => "label similarity: STRING RATIO — not comparable to published TaxoBench numbers",
    };
    println!("TaxoBench scores over {} instance(s); {label}", scored.len());
    print_numbers(&summary);
    Ok(())
}
