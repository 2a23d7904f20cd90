//! The survey-evaluation benchmark: Bloom-Eval's deterministic metrics on the 14 litbench
//! Bloom-Eval topics (each expert survey against itself) and on cs_01's LLM survey against its
//! expert survey, side by side with Bloom-Eval's own scripts on the same files (their values and
//! the time of both, in the same run), plus the same LLM survey read from Markdown.
//!
//! The scripts count every listed reference for HIRC, so litnav runs with their readings here
//! (`Compat::BloomEval`). Their STS embeds headings with sentence-transformers; PyTorch cannot be
//! installed on these machines, so the peer runs with the same model's vectors served from litnav
//! (see `peers/bloom_eval_peer.py`).

use crate::Result;
use crate::peer::run_python;
use litnav_app::survey::{self, Metric, MetricScore, SurveyOptions, SurveyReport};
use litnav_app::{Quiet, Workspace};
use litnav_eval::bloom::Compat;
use litnav_survey::Survey;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

const PEER: &str = include_str!("../peers/bloom_eval_peer.py");

/// The metrics the scripts and litnav both compute deterministically.
const SHARED: [Metric; 5] = [Metric::Hirc, Metric::Dsi, Metric::Fmi, Metric::SCons, Metric::Sts];

/// One survey pair.
#[derive(Debug, Clone, Serialize)]
pub struct PairRow {
    /// `cs_01` (expert against itself), `cs_01-llm` (the LLM survey), `cs_01-llm-md` (from Markdown).
    pub id: String,
    /// litnav's values by name (`HIRC.f1`, `FMI.generated`, …).
    pub litnav: BTreeMap<String, f64>,
    /// The scripts' values by the same names, when the peer ran on this pair.
    pub peer: Option<BTreeMap<String, f64>>,
    /// Largest |litnav − scripts| over the shared values.
    pub max_difference: Option<f64>,
    /// litnav: both surveys read and the five shared metrics computed, seconds.
    pub litnav_seconds: f64,
    /// The scripts: their five command lines on this pair, seconds.
    pub peer_seconds: Option<f64>,
    /// litnav's Thematic Balance (its own themes; not comparable with the scripts' BERTopic).
    pub tbal_generated: Option<f64>,
}

/// The benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every pair.
    pub pairs: Vec<PairRow>,
    /// Per value name, the largest difference over the pairs the peer ran on.
    pub max_difference_by_value: BTreeMap<String, f64>,
    /// Total litnav seconds over the pairs the peer ran on.
    pub litnav_seconds: f64,
    /// Total peer seconds.
    pub peer_seconds: Option<f64>,
    /// Peer ÷ litnav.
    pub speedup: Option<f64>,
    /// Deterministic values that differ between the LLM survey read from JSON and from Markdown.
    pub markdown_differences: BTreeMap<String, (f64, f64)>,
}

/// A survey pair: expert and generated directories or files.
struct Pair {
    id: String,
    expert: PathBuf,
    generated: PathBuf,
    peer: bool,
}

fn pairs(bloom: &Path) -> Result<Vec<Pair>> {
    let mut topics: Vec<PathBuf> = std::fs::read_dir(bloom)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("human/content.json").is_file())
        .collect();
    topics.sort();
    let mut out: Vec<Pair> = topics
        .iter()
        .map(|t| Pair {
            id: t.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
            expert: t.join("human"),
            generated: t.join("human"),
            peer: true,
        })
        .collect();
    let cs01 = bloom.join("cs_01");
    if cs01.join("llm/content.json").is_file() {
        out.push(Pair { id: "cs_01-llm".into(), expert: cs01.join("human"), generated: cs01.join("llm"), peer: true });
        if let Some(md) = std::fs::read_dir(cs01.join("llm"))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|e| e == "md"))
        {
            out.push(Pair { id: "cs_01-llm-md".into(), expert: cs01.join("human"), generated: md, peer: false });
        }
    }
    Ok(out)
}

/// The values a report holds for the shared metrics, by name.
fn values(report: &SurveyReport) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut put = |name: &str, value: Option<f64>| {
        if let Some(v) = value {
            out.insert(name.to_string(), v);
        }
    };
    let get = |key: &str| report.metric(key).cloned();
    if let Some(m) = get("HIRC") {
        put("HIRC.precision", m.precision);
        put("HIRC.recall", m.recall);
        put("HIRC.f1", m.f1);
    }
    for key in ["DSI", "FMI"] {
        if let Some(m) = get(key) {
            put(&format!("{key}.expert"), m.expert);
            put(&format!("{key}.generated"), m.generated);
        }
    }
    if let Some(m) = get("SCons") {
        put("SCons.shape", m.score);
        put("SCons.depth", m.evidence["depth_consistency"].as_f64());
        put("SCons.breadth", m.evidence["breadth_consistency"].as_f64());
    }
    if let Some(m) = get("STS") {
        put("STS.score", m.score);
    }
    out
}

/// The scripts' values under the same names.
fn peer_values(results: &serde_json::Value) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut put = |name: &str, value: &serde_json::Value| {
        if let Some(v) = value.as_f64() {
            out.insert(name.to_string(), v);
        }
    };
    put("HIRC.precision", &results["HIRC"]["precision"]);
    put("HIRC.recall", &results["HIRC"]["recall"]);
    put("HIRC.f1", &results["HIRC"]["f1_score"]);
    for key in ["DSI", "FMI"] {
        put(&format!("{key}.expert"), &results[key]["human_score"]);
        put(&format!("{key}.generated"), &results[key]["llm_score"]);
    }
    put("SCons.shape", &results["SCons"]["shape_consistency"]);
    put("SCons.depth", &results["SCons"]["depth_consistency"]);
    put("SCons.breadth", &results["SCons"]["breadth_consistency"]);
    put("STS.score", &results["STS"]["semantic_tree_similarity"]);
    out
}

/// Outline labels (numbers removed) and `root`, with litnav's vectors, for the peer's STS.
fn label_vectors(workspace: &Workspace, surveys: &[&Survey]) -> Result<serde_json::Value> {
    let mut labels: Vec<String> = vec!["root".into()];
    for survey in surveys {
        labels.extend(survey.outline.iter().map(|h| litnav_eval::bloom::clean_heading(&h.text)));
    }
    labels.sort();
    labels.dedup();
    let encoder = workspace.encoder(&Quiet)?;
    let vectors = litnav_embed::embed_cached(encoder, &labels, &workspace.settings().vector_cache("labels"));
    Ok(serde_json::Value::Object(labels.into_iter().zip(vectors).map(|(l, v)| (l, serde_json::json!(v))).collect()))
}

/// Run the benchmark on the Bloom-Eval directory `bloom`; with `peer` (a Python with thefuzz,
/// zss and numpy) and the scripts at `scripts`, run them too.
pub fn run(workspace: &Workspace, bloom: &Path, peer: Option<(&Path, &Path)>) -> Result<Report> {
    let options = SurveyOptions {
        metrics: SHARED.into_iter().collect(),
        compat: Compat::BloomEval,
        extras: false,
        ..SurveyOptions::default()
    };
    let evaluate = |pair: &Pair| -> Result<(SurveyReport, f64)> {
        let started = Instant::now();
        let expert = survey::read_survey(&pair.expert, None)?;
        let generated = survey::read_survey(&pair.generated, None)?;
        let report = survey::evaluate(workspace, &expert, &generated, &options, None, &Quiet)?;
        Ok((report, started.elapsed().as_secs_f64()))
    };
    let pairs = pairs(bloom)?;
    // A first pass fills the label cache (so both sides are timed with vectors at hand) and
    // collects the labels the peer's STS needs.
    let mut surveys = Vec::new();
    for pair in &pairs {
        evaluate(pair)?;
        surveys.push(survey::read_survey(&pair.expert, None)?);
        surveys.push(survey::read_survey(&pair.generated, None)?);
    }
    let peer_report = match peer {
        None => None,
        Some((python, scripts)) => {
            let scratch = tempfile::tempdir()?;
            let vectors = scratch.path().join("vectors.json");
            std::fs::write(&vectors, label_vectors(workspace, &surveys.iter().collect::<Vec<_>>())?.to_string())?;
            let article = |dir: &Path| {
                ["expert_article.json", "llm_article.json"]
                    .iter()
                    .map(|n| dir.join(n))
                    .find(|p| p.is_file())
                    .unwrap_or_default()
            };
            let job_pairs: Vec<serde_json::Value> = pairs
                .iter()
                .filter(|p| p.peer)
                .map(|p| {
                    serde_json::json!({"id": p.id, "expert": p.expert, "generated": p.generated,
                                       "expert_article": article(&p.expert), "generated_article": article(&p.generated)})
                })
                .collect();
            let job = serde_json::json!({"bloom_eval": scripts, "vectors": vectors, "pairs": job_pairs});
            let report: serde_json::Value = run_python(python, PEER, &job, "pip install thefuzz zss numpy")?;
            Some(report)
        }
    };
    let mut rows = Vec::new();
    let mut markdown_reports = BTreeMap::new();
    for pair in &pairs {
        let (report, seconds) = evaluate(pair)?;
        let litnav = values(&report);
        let tbal = {
            let expert = survey::read_survey(&pair.expert, None)?;
            let generated = survey::read_survey(&pair.generated, None)?;
            let tbal = SurveyOptions { metrics: [Metric::TBal].into(), ..SurveyOptions::default() };
            survey::evaluate(workspace, &expert, &generated, &tbal, None, &Quiet)?
                .metric("TBal")
                .and_then(|m: &MetricScore| m.generated)
        };
        let peer_pair = peer_report.as_ref().and_then(|r| {
            r["pairs"].as_array().and_then(|list| list.iter().find(|p| p["id"] == pair.id.as_str())).cloned()
        });
        let peer = peer_pair.as_ref().map(|p| peer_values(&p["results"]));
        let max_difference = peer
            .as_ref()
            .map(|peer| peer.iter().filter_map(|(k, v)| litnav.get(k).map(|l| (l - v).abs())).fold(0.0f64, f64::max));
        if pair.id.starts_with("cs_01-llm") {
            markdown_reports.insert(pair.id.clone(), litnav.clone());
        }
        rows.push(PairRow {
            id: pair.id.clone(),
            litnav,
            peer,
            max_difference,
            litnav_seconds: seconds,
            peer_seconds: peer_pair.as_ref().and_then(|p| p["seconds"].as_f64()),
            tbal_generated: tbal,
        });
    }
    let mut max_difference_by_value: BTreeMap<String, f64> = BTreeMap::new();
    for row in &rows {
        if let Some(peer) = &row.peer {
            for (k, v) in peer {
                if let Some(l) = row.litnav.get(k) {
                    let d = max_difference_by_value.entry(k.clone()).or_default();
                    *d = d.max((l - v).abs());
                }
            }
        }
    }
    let compared: Vec<&PairRow> = rows.iter().filter(|r| r.peer_seconds.is_some()).collect();
    let litnav_seconds = compared.iter().map(|r| r.litnav_seconds).sum::<f64>();
    let peer_seconds = (!compared.is_empty()).then(|| compared.iter().filter_map(|r| r.peer_seconds).sum::<f64>());
    let any_compared = !compared.is_empty();
    let mut markdown_differences = BTreeMap::new();
    if let (Some(json), Some(md)) = (markdown_reports.get("cs_01-llm"), markdown_reports.get("cs_01-llm-md")) {
        for (k, v) in json {
            if let Some(m) = md.get(k)
                && (m - v).abs() > 1e-12
            {
                markdown_differences.insert(k.clone(), (*v, *m));
            }
        }
    }
    Ok(Report {
        pairs: rows,
        max_difference_by_value,
        litnav_seconds: if any_compared { litnav_seconds } else { 0.0 },
        peer_seconds,
        speedup: peer_seconds.map(|p| p / litnav_seconds.max(1e-9)),
        markdown_differences,
    })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Bloom-Eval's deterministic metrics, litnav beside Bloom-Eval's scripts (their readings)")?;
        writeln!(
            f,
            "{:<14} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9} {:>9} {:>9}",
            "pair", "HIRC", "DSI-e", "DSI-g", "FMI-e", "FMI-g", "SCons", "STS", "max diff", "litnav s", "scripts s"
        )?;
        for row in &self.pairs {
            let v = |k: &str| row.litnav.get(k).map_or_else(|| "-".to_string(), |v| format!("{v:.4}"));
            writeln!(
                f,
                "{:<14} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9} {:>9.3} {:>9}",
                row.id,
                v("HIRC.f1"),
                v("DSI.expert"),
                v("DSI.generated"),
                v("FMI.expert"),
                v("FMI.generated"),
                v("SCons.shape"),
                v("STS.score"),
                row.max_difference.map_or_else(|| "-".to_string(), |d| format!("{d:.1e}")),
                row.litnav_seconds,
                row.peer_seconds.map_or_else(|| "-".to_string(), |s| format!("{s:.2}"))
            )?;
        }
        if let Some(peer) = self.peer_seconds {
            writeln!(f, "\nagreement with the scripts (largest |difference| per value over every pair):")?;
            for (k, d) in &self.max_difference_by_value {
                writeln!(f, "  {k:<16} {d:.1e}")?;
            }
            writeln!(
                f,
                "time: litnav {:.2} s, scripts {peer:.2} s — litnav {:.0}x faster",
                self.litnav_seconds,
                self.speedup.unwrap_or(0.0)
            )?;
        }
        if !self.markdown_differences.is_empty() {
            writeln!(f, "\ncs_01's LLM survey, JSON layout vs Markdown (values that differ):")?;
            for (k, (json, md)) in &self.markdown_differences {
                writeln!(f, "  {k:<16} {json:.4} vs {md:.4}")?;
            }
        }
        Ok(())
    }
}
