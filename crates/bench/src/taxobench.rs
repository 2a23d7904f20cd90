//! TaxoBench scoring over whole files (what `litnav eval taxobench` runs), and its benchmark
//! against a Python implementation of the same definitions run in the same command.

use crate::{Error, Result};
use litnav_embed::Encoder;
use litnav_eval::hierarchy::LabelSimilarity;
use litnav_eval::taxobench::{InstanceScores, Tree, normalize_title, score_instance};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Label similarity from embeddings, `max(0, cos)`, precomputed for every pair of labels.
pub struct Embedded {
    index: HashMap<String, usize>,
    similarities: Vec<f64>,
}

impl Embedded {
    /// Embed every label of `trees` once (vectors come from, and go to, the label cache in
    /// `$LITNAV_HOME/cache/labels.bin` when it can be opened), and tabulate all pairwise
    /// similarities.
    pub fn new(encoder: &Encoder, trees: &[&Tree]) -> Embedded {
        let mut labels: Vec<&str> = trees.iter().flat_map(|t| t.labels()).collect();
        labels.sort_unstable();
        labels.dedup();
        let vectors = litnav_embed::embed_cached(
            encoder,
            &labels,
            &litnav_embed::install::litnav_home().join("cache").join("labels.bin"),
        );
        let n = labels.len();
        let mut similarities = vec![0.0; n * n];
        for i in 0..n {
            for j in i..n {
                let s = f64::from(litnav_embed::cosine(&vectors[i], &vectors[j])).max(0.0);
                similarities[i * n + j] = s;
                similarities[j * n + i] = s;
            }
        }
        Embedded { index: labels.into_iter().enumerate().map(|(i, l)| (l.to_string(), i)).collect(), similarities }
    }
}

impl LabelSimilarity for Embedded {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        match (self.index.get(a), self.index.get(b)) {
            (Some(&i), Some(&j)) => self.similarities[i * self.index.len() + j],
            _ => 0.0,
        }
    }
}

/// Label similarity without a model: difflib ratio of normalized labels. Not TaxoBench's
/// definition; outputs computed with it are labelled as such.
pub struct Textual;

impl LabelSimilarity for Textual {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        litnav_eval::difflib::ratio(&normalize_title(a), &normalize_title(b))
    }
}

/// One line of a TaxoBench file.
pub struct Instance {
    /// 1-based line number.
    pub line: usize,
    /// Instance id (numbers kept as their decimal text).
    pub id: String,
    /// The tree, or why there is none.
    pub tree: std::result::Result<Tree, String>,
}

/// Read a TaxoBench JSON-lines file, taking each line's tree from `tree_key`. Lines that are not
/// JSON or carry no usable id cannot be paired; they are returned as problems, not errors, so one
/// bad line never stops the scoring of the others. Only an unreadable or empty file is an error.
pub fn read_instances(path: &Path, tree_key: &str) -> Result<(Vec<Instance>, Vec<String>)> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{}:{}", path.display(), i + 1);
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(e) => {
                problems.push(format!("{at}: line skipped: not valid JSON ({e})"));
                continue;
            }
        };
        let id = match &value["id"] {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => {
                problems.push(format!("{at}: line skipped: field `id` is missing or not a number/string"));
                continue;
            }
        };
        let tree = match value.get(tree_key) {
            None | Some(Value::Null) => Err(format!("no `{tree_key}`")),
            Some(tree) => Tree::from_json(tree).map_err(|e| format!("`{tree_key}`: {e}")),
        };
        if let Ok(tree) = &tree {
            for (title, count) in repeated_papers(tree) {
                problems.push(format!(
                    "{at}: instance {id}: paper {title:?} is listed {count} times; its first position is scored"
                ));
            }
        }
        out.push(Instance { line: i + 1, id, tree });
    }
    if out.is_empty() && problems.is_empty() {
        return Err(Error::Input(format!("{} holds no instances", path.display())));
    }
    Ok((out, problems))
}

/// Papers listed more than once in a tree (by normalized title), with their counts.
fn repeated_papers(tree: &Tree) -> Vec<(String, usize)> {
    fn walk(node: &Tree, counts: &mut Vec<(String, String, usize)>) {
        for title in &node.papers {
            let key = normalize_title(title);
            match counts.iter_mut().find(|(k, _, _)| *k == key) {
                Some(entry) => entry.2 += 1,
                None => counts.push((key, title.clone(), 1)),
            }
        }
        for child in &node.children {
            walk(child, counts);
        }
    }
    let mut counts = Vec::new();
    walk(tree, &mut counts);
    counts.into_iter().filter(|(_, _, n)| *n > 1).map(|(_, title, n)| (title, n)).collect()
}

/// Instances paired with their predictions, and the reasons others were skipped.
pub struct Paired {
    /// (id, expert tree, predicted tree).
    pub pairs: Vec<(String, Tree, Tree)>,
    /// One message per instance or line that could not be scored.
    pub problems: Vec<String>,
}

/// Pair `data` (`gt`) with `predictions` (`hierarchy_tree`) by id.
pub fn pair_files(data: &Path, predictions: &Path) -> Result<Paired> {
    let (gold, mut problems) = read_instances(data, "gt")?;
    let (predicted, prediction_problems) = read_instances(predictions, "hierarchy_tree")?;
    problems.extend(prediction_problems);
    let mut by_id: HashMap<String, Instance> = HashMap::new();
    for instance in predicted {
        let (line, id) = (instance.line, instance.id.clone());
        if by_id.insert(id.clone(), instance).is_some() {
            problems.push(format!(
                "{}:{line}: instance {id} predicted twice; the last line is scored",
                predictions.display()
            ));
        }
    }
    let mut pairs = Vec::new();
    for instance in gold {
        let id = instance.id;
        let gt = match instance.tree {
            Ok(tree) => tree,
            Err(e) => {
                problems.push(format!("{}:{}: instance {id} skipped: {e}", data.display(), instance.line));
                continue;
            }
        };
        match by_id.remove(&id) {
            None => problems.push(format!("instance {id} skipped: no prediction")),
            Some(Instance { line, tree: Err(e), .. }) => {
                problems.push(format!("{}:{line}: instance {id} skipped: {e}", predictions.display()))
            }
            Some(Instance { tree: Ok(tree), .. }) if tree.children.is_empty() && tree.papers.is_empty() => {
                problems.push(format!("instance {id} skipped: the predicted tree is empty"))
            }
            Some(Instance { tree: Ok(tree), .. }) => pairs.push((id, gt, tree)),
        }
    }
    Ok(Paired { pairs, problems })
}

/// Score every pair.
pub fn score_pairs(
    pairs: &[(String, Tree, Tree)],
    threshold: f64,
    lambda: f64,
    sim: &dyn LabelSimilarity,
) -> Vec<(String, InstanceScores)> {
    pairs.iter().map(|(id, gt, tree)| (id.clone(), score_instance(gt, tree, threshold, lambda, sim))).collect()
}

/// Means over scored instances under the TaxoBench scorer's key names (Sem-Path over instances
/// with aligned papers), plus the settings used.
pub fn summarize(scored: &[(String, InstanceScores)], threshold: f64, lambda: f64, similarity: &str) -> Value {
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
        "threshold": threshold,
        "lambda": lambda,
        "similarity": similarity,
    })
}

/// The scoring benchmark's numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchReport {
    /// Instances scored.
    pub instances: usize,
    /// litnav: model load + label embedding + all metrics, seconds (median of the repeats).
    pub litnav_seconds: f64,
    /// The Python peer on the same files, seconds (median), when it ran.
    pub peer_seconds: Option<f64>,
    /// Peer ÷ litnav.
    pub speedup: Option<f64>,
    /// Largest absolute difference between the two implementations' summary values.
    pub max_abs_difference: Option<f64>,
    /// The peer's libraries.
    pub peer_library: Option<String>,
}

const PEER_SCRIPT: &str = include_str!("../peers/taxobench_peer.py");

/// Time litnav's scorer (and the peer's, with `peer_python`) on the same files.
pub fn bench(
    data: &Path,
    predictions: &Path,
    model: &Path,
    repeats: usize,
    peer_python: Option<&PathBuf>,
) -> Result<BenchReport> {
    let mut times = Vec::new();
    let mut summary = Value::Null;
    let mut instances = 0;
    for _ in 0..repeats.max(1) {
        let started = Instant::now();
        let paired = pair_files(data, predictions)?;
        let encoder = Encoder::load(model).map_err(|e| Error::Input(e.to_string()))?;
        let trees: Vec<&Tree> = paired.pairs.iter().flat_map(|(_, g, p)| [g, p]).collect();
        let sim = Embedded::new(&encoder, &trees);
        let scored = score_pairs(&paired.pairs, 0.92, 1.0, &sim);
        summary = summarize(&scored, 0.92, 1.0, "embedding:all-MiniLM-L6-v2");
        times.push(started.elapsed().as_secs_f64());
        instances = scored.len();
    }
    let litnav_seconds = crate::median(&times);
    let mut report = BenchReport {
        instances,
        litnav_seconds,
        peer_seconds: None,
        speedup: None,
        max_abs_difference: None,
        peer_library: None,
    };
    if let Some(python) = peer_python {
        let job =
            serde_json::json!({"data": data, "predictions": predictions, "model": model, "repeats": repeats.max(1)});
        #[derive(serde::Deserialize)]
        struct Peer {
            library: String,
            seconds: f64,
            summary: HashMap<String, f64>,
        }
        let peer: Peer =
            crate::peer::run_python(python, PEER_SCRIPT, &job, "pip install sentence-transformers scikit-learn scipy")?;
        let difference = peer
            .summary
            .iter()
            .filter_map(|(key, theirs)| summary.get(key).and_then(Value::as_f64).map(|ours| (ours - theirs).abs()))
            .fold(0.0f64, f64::max);
        report.peer_seconds = Some(peer.seconds);
        report.speedup = Some(peer.seconds / litnav_seconds.max(1e-9));
        report.max_abs_difference = Some(difference);
        report.peer_library = Some(peer.library);
    }
    Ok(report)
}
