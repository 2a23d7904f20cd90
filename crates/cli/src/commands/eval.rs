//! `litnav eval`: score other systems' outputs with the field's metrics.

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use litnav_eval::hierarchy::LabelSimilarity;
use litnav_eval::taxobench::{InstanceScores, Tree, score_instance};
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
    }
}

/// Label similarity from precomputed embeddings.
struct Embedded(HashMap<String, Vec<f32>>);

impl LabelSimilarity for Embedded {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        match (self.0.get(a), self.0.get(b)) {
            (Some(x), Some(y)) => f64::from(litnav_embed::cosine(x, y)).max(0.0),
            _ => 0.0,
        }
    }
}

/// Label similarity without a model.
struct Textual;

impl LabelSimilarity for Textual {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        let (a, b) = (litnav_eval::taxobench::normalize_title(a), litnav_eval::taxobench::normalize_title(b));
        litnav_eval::difflib::ratio(&a, &b)
    }
}

/// One line of a TaxoBench file: its line number, instance id, and tree (or why it has none).
type Instance = (usize, String, std::result::Result<Tree, String>);

/// Read JSON lines into instances; ids may be numbers or strings.
fn read_instances(path: &Path, tree_key: &str) -> Result<Vec<Instance>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(line).with_context(|| format!("{}:{}: is not valid JSON", path.display(), i + 1))?;
        let id = match &value["id"] {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => bail!("{}:{}: field `id` is missing or not a number/string", path.display(), i + 1),
        };
        let tree = match value.get(tree_key) {
            None | Some(Value::Null) => Err(format!("no `{tree_key}`")),
            Some(tree) => Tree::from_json(tree).map_err(|e| format!("`{tree_key}`: {e}")),
        };
        out.push((i + 1, id, tree));
    }
    if out.is_empty() {
        bail!("{} holds no instances", path.display());
    }
    Ok(out)
}

fn taxobench(args: TaxobenchArgs) -> Result<()> {
    let data = read_instances(&args.data, "gt")?;
    let predictions = read_instances(&args.predictions, "hierarchy_tree")?;
    let mut predicted_by_id: HashMap<&str, (usize, &std::result::Result<Tree, String>)> = HashMap::new();
    let mut problems = Vec::new();
    for (line, id, tree) in &predictions {
        if predicted_by_id.insert(id, (*line, tree)).is_some() {
            problems.push(format!(
                "{}:{line}: instance {id} predicted twice; the last line is scored",
                args.predictions.display()
            ));
        }
    }
    // Pair every instance with its prediction; anything that cannot be scored is reported.
    let mut pairs = Vec::new();
    for (line, id, gt) in &data {
        let gt = match gt {
            Ok(tree) => tree,
            Err(e) => {
                problems.push(format!("{}:{line}: instance {id} skipped: {e}", args.data.display()));
                continue;
            }
        };
        match predicted_by_id.get(id.as_str()) {
            None => problems.push(format!("instance {id} skipped: no prediction")),
            Some((pline, Err(e))) => {
                problems.push(format!("{}:{pline}: instance {id} skipped: {e}", args.predictions.display()))
            }
            Some((_, Ok(tree))) if tree.children.is_empty() && tree.papers.is_empty() => {
                problems.push(format!("instance {id} skipped: the predicted tree is empty"))
            }
            Some((_, Ok(tree))) => pairs.push((id.clone(), gt, tree)),
        }
    }
    let sim: Box<dyn LabelSimilarity> = match args.similarity {
        SimilarityArg::String => Box::new(Textual),
        SimilarityArg::Embedding => {
            let encoder = args.model.load()?;
            let mut labels: Vec<&str> =
                pairs.iter().flat_map(|(_, g, p)| g.labels().into_iter().chain(p.labels())).collect();
            labels.sort_unstable();
            labels.dedup();
            let vectors = encoder.embed(&labels);
            Box::new(Embedded(labels.into_iter().map(str::to_string).zip(vectors).collect()))
        }
    };
    let scored: Vec<(String, InstanceScores)> = pairs
        .iter()
        .map(|(id, gt, tree)| (id.clone(), score_instance(gt, tree, args.threshold, args.lambda, sim.as_ref())))
        .collect();
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
    let summary = summarize(&scored, &args);
    for problem in &problems {
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
    if let Value::Object(map) = &summary {
        for (key, value) in map {
            if let Some(number) = value.as_f64() {
                println!("  {key:<22} {number:.6}");
            }
        }
    }
    Ok(())
}

/// Means over scored instances under the TaxoBench scorer's key names (Sem-Path over instances
/// that have aligned papers).
fn summarize(scored: &[(String, InstanceScores)], args: &TaxobenchArgs) -> Value {
    let n = scored.len().max(1) as f64;
    let mean = |f: &dyn Fn(&InstanceScores) -> f64| scored.iter().map(|(_, s)| f(s)).sum::<f64>() / n;
    let sem: Vec<f64> = scored.iter().filter_map(|(_, s)| s.sem_path).collect();
    serde_json::json!({
        "n_scored": scored.len(),
        "leaf_ari": mean(&|s| s.leaf.ari),
        "leaf_v_measure": mean(&|s| s.leaf.v_measure),
        "leaf_homogeneity": mean(&|s| s.leaf.homogeneity),
        "leaf_completeness": mean(&|s| s.leaf.completeness),
        "sem_path": if sem.is_empty() { Value::Null } else { serde_json::json!(sem.iter().sum::<f64>() / sem.len() as f64) },
        "retrieval_recall": mean(&|s| s.leaf.recall),
        "retrieval_precision": mean(&|s| s.leaf.precision),
        "retrieval_f1": mean(&|s| s.leaf.f1),
        "leaf_ari_cap": mean(&|s| s.leaf.ari_cap),
        "us_ted": mean(&|s| s.us_ted),
        "us_nted": mean(&|s| s.us_nted),
        "nsr": mean(&|s| s.nsr),
        "nsp": mean(&|s| s.nsp),
        "soft_f1": mean(&|s| s.soft_f1),
        "threshold": args.threshold,
        "lambda": args.lambda,
        "similarity": match args.similarity { SimilarityArg::Embedding => "embedding:all-MiniLM-L6-v2", SimilarityArg::String => "string:difflib-ratio" },
    })
}
