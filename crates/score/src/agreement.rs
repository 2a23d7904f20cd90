//! Agreement between two raters' score files (an LLM judge and human experts, two judges, two
//! metrics): JSON lines with an `id` and numeric scores by name, paired by id; for every name both
//! files score, Cohen's κ (on integer scores) and Spearman's ρ, as TaxoBench reports them.

use litnav_eval::agreement::{KappaWeights, cohen_kappa, spearman};
use litnav_session::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One score name's agreement.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// The score's name.
    pub name: String,
    /// Items both files score under this name.
    pub items: usize,
    /// Cohen's κ (`None` when a score is not an integer or κ is undefined).
    pub kappa: Option<f64>,
    /// Spearman's ρ (`None` when undefined).
    pub spearman: Option<f64>,
}

/// Agreement of two score files.
#[derive(Debug, Clone, Serialize)]
pub struct AgreementReport {
    /// Ids in both files.
    pub paired: usize,
    /// κ's weighting.
    pub weights: String,
    /// Per score name, in name order.
    pub scores: Vec<Agreement>,
    /// Mean κ over the names with one (TaxoBench's "Avg.").
    pub mean_kappa: Option<f64>,
    /// Lines skipped and ids found in one file only.
    pub problems: Vec<String>,
}

type Scores = HashMap<String, BTreeMap<String, f64>>;

/// Read a score file: id → name → score. Bad lines and fields are reported, the rest is read.
fn read_scores(path: &Path, problems: &mut Vec<String>) -> Result<Scores> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    let mut out = Scores::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = format!("{}:{}", path.display(), i + 1);
        let Ok(Value::Object(record)) = serde_json::from_str::<Value>(line) else {
            problems.push(format!("{at}: line skipped: not a JSON object"));
            continue;
        };
        let id = match record.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                problems.push(format!("{at}: line skipped: field `id` is missing or not a string/number"));
                continue;
            }
        };
        let scores: BTreeMap<String, f64> = record
            .iter()
            .filter(|(key, _)| key.as_str() != "id")
            .filter_map(|(key, value)| value.as_f64().map(|v| (key.clone(), v)))
            .collect();
        if out.insert(id.clone(), scores).is_some() {
            problems.push(format!("{at}: id {id} scored twice; the last line counts"));
        }
    }
    if out.is_empty() {
        return Err(Error::input(format!("{} holds no scored items", path.display())));
    }
    Ok(out)
}

/// κ and ρ for every score name both files carry, over the ids both hold.
pub fn agreement_of_files(a: &Path, b: &Path, weights: KappaWeights) -> Result<AgreementReport> {
    let mut problems = Vec::new();
    let first = read_scores(a, &mut problems)?;
    let second = read_scores(b, &mut problems)?;
    let mut ids: Vec<&String> = first.keys().filter(|id| second.contains_key(*id)).collect();
    ids.sort();
    for (file, scores, other) in [(a, &first, &second), (b, &second, &first)] {
        let mut alone: Vec<&String> = scores.keys().filter(|id| !other.contains_key(*id)).collect();
        alone.sort();
        if !alone.is_empty() {
            problems.push(format!("{}: {} id(s) only here, not compared: {:?}", file.display(), alone.len(), alone));
        }
    }
    let mut names: Vec<&String> = ids.iter().flat_map(|id| first[*id].keys()).collect();
    names.sort();
    names.dedup();
    let scores = names
        .into_iter()
        .map(|name| {
            let pairs: Vec<(f64, f64)> =
                ids.iter().filter_map(|id| Some((*first[*id].get(name)?, *second[*id].get(name)?))).collect();
            let (x, y): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
            let integers = |v: &[f64]| -> Option<Vec<i64>> {
                v.iter().all(|s| s.fract() == 0.0).then(|| v.iter().map(|s| *s as i64).collect())
            };
            let kappa = match (integers(&x), integers(&y)) {
                (Some(xi), Some(yi)) => cohen_kappa(&xi, &yi, weights),
                _ => None,
            };
            Agreement { name: name.clone(), items: pairs.len(), kappa, spearman: spearman(&x, &y) }
        })
        .filter(|a| a.items > 0)
        .collect::<Vec<_>>();
    let kappas: Vec<f64> = scores.iter().filter(|a| a.name != "mean").filter_map(|a| a.kappa).collect();
    Ok(AgreementReport {
        paired: ids.len(),
        weights: format!("{weights:?}").to_lowercase(),
        mean_kappa: (!kappas.is_empty()).then(|| kappas.iter().sum::<f64>() / kappas.len() as f64),
        scores,
        problems,
    })
}

impl std::fmt::Display for AgreementReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.4}"));
        writeln!(f, "agreement over {} paired item(s); κ weights: {}", self.paired, self.weights)?;
        writeln!(f, "{:<24} {:>6} {:>8} {:>9}", "score", "items", "κ", "Spearman")?;
        for a in &self.scores {
            writeln!(f, "{:<24} {:>6} {:>8} {:>9}", a.name, a.items, show(a.kappa), show(a.spearman))?;
        }
        writeln!(f, "mean κ (without `mean`): {}", show(self.mean_kappa))?;
        for problem in &self.problems {
            writeln!(f, "  note: {problem}")?;
        }
        Ok(())
    }
}
