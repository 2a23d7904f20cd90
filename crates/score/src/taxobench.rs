//! TaxoBench scoring over whole files: TaxoBench's `data.jsonl` (expert trees in `gt`) paired with
//! a predictions file (`hierarchy_tree`, or `tree` as the public scorer also reads, and optional
//! `retrieved_papers`) by instance id, every pair scored, means under the public scorer's key
//! names. A bad line or instance is reported and skipped; the others are scored. A predicted tree
//! without papers is scored (it retrieved nothing) and reported.

use litnav_eval::taxobench::{InstanceScores, Options, Reading, score_instance};
use litnav_eval::tree::{LabelSimilarity, Tree, normalize_title};
use litnav_session::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One line of a TaxoBench file.
pub struct Instance {
    /// 1-based line number.
    pub line: usize,
    /// Instance id (numbers kept as their decimal text).
    pub id: String,
    /// The tree, or why there is none.
    pub tree: std::result::Result<Tree, String>,
    /// `retrieved_papers` (titles), when the line has them.
    pub retrieved: Option<Vec<String>>,
    /// The whole line.
    pub record: Value,
}

impl Instance {
    /// The survey topic a system is given: `survey_topic`, else `survey` (the first that is a
    /// string).
    pub fn topic(&self) -> Option<&str> {
        ["survey_topic", "survey"].iter().find_map(|key| self.record[*key].as_str())
    }
}

/// TaxoBench lines: a JSON-lines file, or lines already parsed (from Python, say).
#[derive(Debug, Clone, Copy)]
pub enum Lines<'a> {
    /// A JSON-lines file.
    File(&'a Path),
    /// Parsed lines; problems name them `name:N`.
    Parsed {
        /// What the lines are called in problems (`predictions`, `data`).
        name: &'a str,
        /// The lines.
        values: &'a [Value],
    },
}

impl Lines<'_> {
    /// What problems call the lines.
    fn origin(&self) -> String {
        match self {
            Lines::File(path) => path.display().to_string(),
            Lines::Parsed { name, .. } => name.to_string(),
        }
    }

    /// Each non-blank line with its 1-based number, parsed or with why it is not JSON.
    fn parsed(&self) -> Result<Vec<(usize, std::result::Result<Value, String>)>> {
        match self {
            Lines::File(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
                Ok(text
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| !line.trim().is_empty())
                    .map(|(i, line)| (i + 1, serde_json::from_str(line).map_err(|e| e.to_string())))
                    .collect())
            }
            Lines::Parsed { values, .. } => {
                Ok(values.iter().cloned().enumerate().map(|(i, v)| (i + 1, Ok(v))).collect())
            }
        }
    }
}

/// Read a TaxoBench JSON-lines file, taking each line's tree from `tree_key` (for `hierarchy_tree`,
/// from `tree` when the line has no `hierarchy_tree`, as the public scorer does). Lines that are not
/// JSON or carry no usable id cannot be paired; they are returned as problems, not errors, so one
/// bad line never stops the scoring of the others. Only an unreadable or empty file is an error.
pub fn read_instances(path: &Path, tree_key: &str) -> Result<(Vec<Instance>, Vec<String>)> {
    instances(Lines::File(path), tree_key)
}

/// The instances of `lines`, as [`read_instances`] reads a file.
pub fn instances(lines: Lines<'_>, tree_key: &str) -> Result<(Vec<Instance>, Vec<String>)> {
    let origin = lines.origin();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (number, parsed) in lines.parsed()? {
        let at = format!("{origin}:{number}");
        let value: Value = match parsed {
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
        let key = match value.get(tree_key) {
            None | Some(Value::Null) if tree_key == "hierarchy_tree" && value.get("tree").is_some() => "tree",
            _ => tree_key,
        };
        let tree = match value.get(key) {
            None | Some(Value::Null) => Err(format!("no `{tree_key}`")),
            Some(tree) => Tree::from_json(tree).map_err(|e| format!("`{key}`: {e}")),
        };
        let retrieved = match retrieved_papers(&value) {
            Ok(retrieved) => retrieved,
            Err(e) => {
                problems.push(format!("{at}: instance {id}: `retrieved_papers` ignored: {e}"));
                None
            }
        };
        if let Ok(tree) = &tree {
            for (title, count) in repeated_papers(tree) {
                problems.push(format!(
                    "{at}: instance {id}: paper {title:?} is listed {count} times; its first position is scored"
                ));
            }
        }
        out.push(Instance { line: number, id, tree, retrieved, record: value });
    }
    if out.is_empty() && problems.is_empty() {
        return Err(Error::input(format!("{origin} holds no instances")));
    }
    Ok((out, problems))
}

/// A line's `retrieved_papers`: titles, or objects with a `title`.
fn retrieved_papers(value: &Value) -> std::result::Result<Option<Vec<String>>, String> {
    let items = match value.get("retrieved_papers") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("not an array".into()),
    };
    let titles = items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(title) => Ok(title.clone()),
            Value::Object(object) => match object.get("title") {
                Some(Value::String(title)) => Ok(title.clone()),
                _ => Err(format!("item {i} has no title")),
            },
            _ => Err(format!("item {i} is neither a title nor an object with one")),
        })
        .collect::<std::result::Result<Vec<String>, String>>()?;
    Ok(Some(titles))
}

/// An instance id as TaxoBench writes it: a number when it is one (the public scorer pairs lines
/// by id *and* type), else a string.
pub fn id_value(id: &str) -> Value {
    match id.parse::<u64>() {
        Ok(n) if n.to_string() == id => Value::from(n),
        _ => Value::String(id.to_string()),
    }
}

/// A map as a TaxoBench prediction line: `id`, `survey_topic`, `hierarchy_tree` (the map without
/// its "Filtered" branch) and `retrieved_papers` (the titles that tree places, in its order).
pub fn prediction_line(id: &str, topic: &str, map: &litnav_organize::MapNode) -> Value {
    let tree = map.kept_tree();
    serde_json::json!({
        "id": id_value(id),
        "survey_topic": topic,
        "hierarchy_tree": tree.to_json(),
        "retrieved_papers": tree.listed_titles(),
    })
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

/// One instance with its prediction.
pub struct Pair {
    /// Instance id.
    pub id: String,
    /// The expert tree.
    pub gold: Tree,
    /// The predicted tree.
    pub predicted: Tree,
    /// The prediction's `retrieved_papers`, when given.
    pub retrieved: Option<Vec<String>>,
    /// The instance's survey topic, when it has one ([`Instance::topic`]).
    pub topic: Option<String>,
}

/// Instances paired with their predictions, and the reasons others were skipped.
pub struct Paired {
    /// The scorable pairs, in the data file's order.
    pub pairs: Vec<Pair>,
    /// One message per instance or line that could not be scored.
    pub problems: Vec<String>,
}

/// Pair `data` (`gt`) with `predictions` (`hierarchy_tree`) by id.
pub fn pair_files(data: &Path, predictions: &Path) -> Result<Paired> {
    pair(Lines::File(data), Lines::File(predictions))
}

/// Pair the instances of `data` (`gt`) with those of `predictions` (`hierarchy_tree`) by id.
pub fn pair(data: Lines<'_>, predictions: Lines<'_>) -> Result<Paired> {
    let (gold, mut problems) = instances(data, "gt")?;
    let (predicted, prediction_problems) = instances(predictions, "hierarchy_tree")?;
    let (data, predictions) = (data.origin(), predictions.origin());
    problems.extend(prediction_problems);
    let mut by_id: HashMap<String, Instance> = HashMap::new();
    for instance in predicted {
        let (line, id) = (instance.line, instance.id.clone());
        if by_id.insert(id.clone(), instance).is_some() {
            problems.push(format!("{}:{line}: instance {id} predicted twice; the last line is scored", predictions));
        }
    }
    let mut pairs = Vec::new();
    for instance in gold {
        let topic = instance.topic().map(str::to_string);
        let id = instance.id;
        let gt = match instance.tree {
            Ok(tree) => tree,
            Err(e) => {
                problems.push(format!("{}:{}: instance {id} skipped: {e}", data, instance.line));
                continue;
            }
        };
        match by_id.remove(&id) {
            None => problems.push(format!("instance {id} skipped: no prediction")),
            Some(Instance { line, tree: Err(e), .. }) => {
                problems.push(format!("{}:{line}: instance {id} skipped: {e}", predictions))
            }
            Some(Instance { tree: Ok(tree), retrieved, .. }) => {
                if tree.paper_nodes().is_empty() && retrieved.as_ref().is_none_or(Vec::is_empty) {
                    problems
                        .push(format!("instance {id}: the prediction holds no papers; scored as retrieving nothing"));
                }
                pairs.push(Pair { id, gold: gt, predicted: tree, retrieved, topic })
            }
        }
    }
    Ok(Paired { pairs, problems })
}

/// Score every pair.
pub fn score_pairs(pairs: &[Pair], options: Options, sim: &dyn LabelSimilarity) -> Vec<(String, InstanceScores)> {
    pairs
        .iter()
        .map(|pair| {
            let scores = score_instance(&pair.gold, &pair.predicted, pair.retrieved.as_deref(), options, sim);
            (pair.id.clone(), scores)
        })
        .collect()
}

/// The title-alignment threshold TaxoBench uses.
pub const DEFAULT_THRESHOLD: f64 = 0.92;

/// Sem-Path's penalty per unmatched ancestor, as TaxoBench sets it.
pub const DEFAULT_LAMBDA: f64 = 1.0;

/// A whole TaxoBench scoring: the means, each instance's scores, and what was skipped.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    /// Means under the public scorer's key names.
    pub summary: Summary,
    /// One row per scored instance: its scores under TaxoBench's key names, and `id`.
    pub per_instance: Vec<Value>,
    /// One message per instance or line that could not be scored.
    pub problems: Vec<String>,
}

/// Score `predictions` against `data` with the label similarity `kind`.
pub fn score(
    workspace: &litnav_session::Workspace,
    data: Lines<'_>,
    predictions: Lines<'_>,
    kind: crate::similarity::Kind,
    threshold: f64,
    lambda: f64,
    progress: &dyn litnav_session::Progress,
) -> Result<Scored> {
    let paired = pair(data, predictions)?;
    let trees: Vec<&Tree> = paired.pairs.iter().flat_map(|p| [&p.gold, &p.predicted]).collect();
    let sim = kind.build(workspace, &trees, progress)?;
    let options = Options { threshold, lambda, reading: kind.reading() };
    let scored = score_pairs(&paired.pairs, options, sim.as_ref());
    let per_instance = per_instance_rows(&scored)?;
    Ok(Scored { summary: summarize(&scored, options, kind.name()), per_instance, problems: paired.problems })
}

/// Each instance's scores as a JSON row with its `id`.
fn per_instance_rows(scored: &[(String, InstanceScores)]) -> Result<Vec<Value>> {
    scored
        .iter()
        .map(|(id, scores)| {
            let mut row = serde_json::to_value(scores).map_err(|e| Error::internal(e.to_string()))?;
            row["id"] = Value::String(id.clone());
            Ok(row)
        })
        .collect()
}

/// Write one JSON line per row.
pub fn write_rows(path: &Path, rows: &[Value]) -> Result<()> {
    let mut text = String::new();
    for row in rows {
        text.push_str(&row.to_string());
        text.push('\n');
    }
    litnav_corpus::store::write_atomically(path, text.as_bytes())?;
    Ok(())
}

/// Means over scored instances under the TaxoBench scorer's key names (Sem-Path over instances
/// with aligned papers), plus the settings used.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// Instances scored.
    pub n_scored: usize,
    /// End-to-end leaf ARI.
    pub leaf_ari: f64,
    /// End-to-end leaf V-measure.
    pub leaf_v_measure: f64,
    /// End-to-end leaf homogeneity.
    pub leaf_homogeneity: f64,
    /// End-to-end leaf completeness.
    pub leaf_completeness: f64,
    /// Sem-Path (seed reading: over instances with aligned papers; public: over all, 0 without).
    pub sem_path: Option<f64>,
    /// Retrieval recall.
    pub retrieval_recall: f64,
    /// Retrieval precision.
    pub retrieval_precision: f64,
    /// Retrieval F1.
    pub retrieval_f1: f64,
    /// ARI on aligned papers only (ARI∩).
    pub leaf_ari_cap: f64,
    /// V-measure on aligned papers only (V∩).
    pub leaf_v_measure_cap: f64,
    /// US-TED.
    pub us_ted: f64,
    /// US-NTED.
    pub us_nted: f64,
    /// Node soft recall.
    pub nsr: f64,
    /// Node soft precision.
    pub nsp: f64,
    /// Soft F1.
    pub soft_f1: f64,
    /// Title-alignment threshold.
    pub threshold: f64,
    /// Sem-Path's λ.
    pub lambda: f64,
    /// The label similarity used.
    pub similarity: String,
}

impl Summary {
    /// The summary's numbers by key (for comparing implementations).
    pub fn numbers(&self) -> Vec<(&'static str, f64)> {
        let mut out = vec![
            ("leaf_ari", self.leaf_ari),
            ("leaf_v_measure", self.leaf_v_measure),
            ("leaf_homogeneity", self.leaf_homogeneity),
            ("leaf_completeness", self.leaf_completeness),
            ("retrieval_recall", self.retrieval_recall),
            ("retrieval_precision", self.retrieval_precision),
            ("retrieval_f1", self.retrieval_f1),
            ("leaf_ari_cap", self.leaf_ari_cap),
            ("leaf_v_measure_cap", self.leaf_v_measure_cap),
            ("us_ted", self.us_ted),
            ("us_nted", self.us_nted),
            ("nsr", self.nsr),
            ("nsp", self.nsp),
            ("soft_f1", self.soft_f1),
        ];
        if let Some(sem) = self.sem_path {
            out.push(("sem_path", sem));
        }
        out
    }
}

/// Means over scored instances.
pub fn summarize(scored: &[(String, InstanceScores)], options: Options, similarity: &str) -> Summary {
    let n = scored.len().max(1) as f64;
    let mean = |f: &dyn Fn(&InstanceScores) -> f64| scored.iter().map(|(_, s)| f(s)).sum::<f64>() / n;
    let sem: Vec<f64> = scored.iter().filter_map(|(_, s)| s.sem_path).collect();
    Summary {
        n_scored: scored.len(),
        leaf_ari: mean(&|s| s.leaf.ari),
        leaf_v_measure: mean(&|s| s.leaf.v_measure),
        leaf_homogeneity: mean(&|s| s.leaf.homogeneity),
        leaf_completeness: mean(&|s| s.leaf.completeness),
        sem_path: (!sem.is_empty()).then(|| sem.iter().sum::<f64>() / sem.len() as f64),
        retrieval_recall: mean(&|s| s.leaf.recall),
        retrieval_precision: mean(&|s| s.leaf.precision),
        retrieval_f1: mean(&|s| s.leaf.f1),
        leaf_ari_cap: mean(&|s| s.leaf.ari_cap),
        leaf_v_measure_cap: mean(&|s| s.leaf.v_measure_cap),
        us_ted: mean(&|s| s.us_ted),
        us_nted: mean(&|s| s.us_nted),
        nsr: mean(&|s| s.nsr),
        nsp: mean(&|s| s.nsp),
        soft_f1: mean(&|s| s.soft_f1),
        threshold: options.threshold,
        lambda: if options.reading == Reading::Public { 1.0 } else { options.lambda },
        similarity: similarity.to_string(),
    }
}
