//! The eval crate against independent references: CPython's difflib and the TaxoBench reference
//! values in `shared/reference/taxobench_examples.json`.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_eval::difflib::ratio;
use litnav_eval::taxobench::leaf_scores;
use litnav_eval::tree::Tree;
use serde_json::Value;
use std::path::PathBuf;

fn shared() -> PathBuf {
    litnav_testkit::datasets().join("..")
}

#[test]
fn difflib_ratio_matches_cpython_on_random_strings() {
    let path = litnav_testkit::package_dir().join("tests/fixtures/difflib_cases.json");
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 150);
    for case in cases {
        let (a, b) = (case["a"].as_str().unwrap(), case["b"].as_str().unwrap());
        let expected = case["ratio"].as_f64().unwrap();
        assert_eq!(ratio(a, b), expected, "a = {a:?}, b = {b:?}");
    }
}

/// A TaxoBench JSON node (`name`, `subtopics`, `papers`) as a tree.
fn tree(value: &Value) -> Tree {
    Tree {
        name: value["name"].as_str().unwrap_or_default().to_string(),
        children: value["subtopics"].as_array().map(|c| c.iter().map(tree).collect()).unwrap_or_default(),
        papers: value["papers"]
            .as_array()
            .map(|p| p.iter().map(|t| t.as_str().unwrap().to_string()).collect())
            .unwrap_or_default(),
    }
}

fn jsonl(path: PathBuf) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn leaf_and_retrieval_metrics_reproduce_the_reference_to_1e9() {
    let data = jsonl(shared().join("datasets/taxobench/data.jsonl"));
    let predictions = jsonl(shared().join("datasets/taxobench/predictions_example.jsonl"));
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(shared().join("reference/taxobench_examples.json")).unwrap())
            .unwrap();
    for expected in reference["per_instance"].as_array().unwrap() {
        let id = &expected["id"];
        let gt = data.iter().find(|d| &d["id"] == id).unwrap();
        let prediction = predictions.iter().find(|p| &p["id"] == id).unwrap();
        let scores = leaf_scores(&tree(&gt["gt"]), &tree(&prediction["hierarchy_tree"]), 0.92);
        let got = serde_json::to_value(&scores).unwrap();
        for key in ["n_reference", "n_prediction", "n_aligned"] {
            assert_eq!(got[key], expected[key], "instance {id}: {key}");
        }
        for key in ["ari", "homogeneity", "completeness", "v_measure", "ari_cap", "recall", "precision", "f1"] {
            let (a, b) = (got[key].as_f64().unwrap(), expected[key].as_f64().unwrap());
            assert!((a - b).abs() <= 1e-9, "instance {id}: {key} = {a}, reference {b}");
        }
    }
}

/// Clipped-cosine similarity of MiniLM embeddings, computed once for every label.
struct Embedded(std::collections::HashMap<String, Vec<f32>>);

impl litnav_eval::tree::LabelSimilarity for Embedded {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        f64::from(litnav_core::vector::cosine(&self.0[a], &self.0[b])).max(0.0)
    }
}

fn labels(tree: &Tree, out: &mut Vec<String>) {
    out.push(tree.name.clone());
    for child in &tree.children {
        labels(child, out);
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn hierarchy_metrics_reproduce_the_reference_to_1e4() {
    use litnav_eval::hierarchy::{nsr_nsp_soft_f1, sem_path, us_nted, us_ted};
    use litnav_eval::taxobench::align;
    let data = jsonl(shared().join("datasets/taxobench/data.jsonl"));
    let predictions = jsonl(shared().join("datasets/taxobench/predictions_example.jsonl"));
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(shared().join("reference/taxobench_examples.json")).unwrap())
            .unwrap();
    let encoder = litnav_testkit::encoder();
    for expected in reference["per_instance"].as_array().unwrap() {
        let id = &expected["id"];
        let gt = tree(&data.iter().find(|d| &d["id"] == id).unwrap()["gt"]);
        let predicted = tree(&predictions.iter().find(|p| &p["id"] == id).unwrap()["hierarchy_tree"]);
        let mut all = Vec::new();
        labels(&gt, &mut all);
        labels(&predicted, &mut all);
        all.sort();
        all.dedup();
        let vectors = encoder.embed(&all);
        let sim = Embedded(all.into_iter().zip(vectors).collect());
        let reference_titles: Vec<String> = gt.paper_nodes().into_iter().map(|(t, _)| t).collect();
        let predicted_titles: Vec<String> = predicted.paper_nodes().into_iter().map(|(t, _)| t).collect();
        let pairs: Vec<(&str, &str)> = align(&reference_titles, &predicted_titles, 0.92)
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.map(|j| (reference_titles[i].as_str(), predicted_titles[j].as_str())))
            .collect();
        let (nsr, nsp, soft_f1) = nsr_nsp_soft_f1(&gt, &predicted, &sim);
        let got = [
            ("sem_path", sem_path(&gt, &predicted, &pairs, 1.0, &sim).unwrap()),
            ("us_ted", us_ted(&gt, &predicted, &sim)),
            ("us_nted", us_nted(&gt, &predicted, &sim)),
            ("nsr", nsr),
            ("nsp", nsp),
            ("soft_f1", soft_f1),
        ];
        for (key, value) in got {
            let want = expected[key].as_f64().unwrap();
            eprintln!("instance {id}: {key} {value:.10} (reference {want:.10}, |diff| {:.1e})", (value - want).abs());
            assert!((value - want).abs() <= 1e-4, "instance {id}: {key} = {value}, reference {want}");
        }
    }
}

/// A copy of the tree with every node's children (and papers) in reverse order.
fn reversed(tree: &Tree) -> Tree {
    Tree {
        name: tree.name.clone(),
        children: tree.children.iter().rev().map(reversed).collect(),
        papers: tree.papers.iter().rev().cloned().collect(),
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn laws_on_the_real_expert_trees() {
    use litnav_eval::taxobench::{Options, score_instance};
    let data = jsonl(shared().join("datasets/taxobench/data.jsonl"));
    let encoder = litnav_testkit::encoder();
    let trees: Vec<Tree> = data.iter().map(|d| tree(&d["gt"])).collect();
    let mut all = Vec::new();
    for t in &trees {
        labels(t, &mut all);
    }
    all.sort();
    all.dedup();
    let vectors = encoder.embed(&all);
    let sim = Embedded(all.into_iter().zip(vectors).collect());
    for (i, gt) in trees.iter().enumerate() {
        let itself = score_instance(gt, gt, None, Options::default(), &sim);
        assert_eq!(itself.leaf.ari, 1.0, "identity: ARI 1");
        assert!(itself.us_ted < 1e-4 && itself.sem_path.unwrap() > 1.0 - 1e-4, "identity: US-TED 0, Sem-Path 1");
        assert!((itself.nsr - 1.0).abs() < 1e-9 && (itself.nsp - 1.0).abs() < 1e-9);
        let shuffled = score_instance(gt, &reversed(gt), None, Options::default(), &sim);
        assert!((shuffled.us_ted - itself.us_ted).abs() < 1e-9, "sibling order must not change US-TED");
        assert_eq!(shuffled.leaf.ari, 1.0, "nor the leaf partition");
        for other in trees.iter().skip(i + 1) {
            let cross = score_instance(gt, other, None, Options::default(), &sim);
            assert!((0.0..=1.0).contains(&cross.us_nted), "US-NTED in [0, 1]");
            assert!(cross.sem_path.is_none_or(|s| s > 0.0 && s <= 1.0), "Sem-Path in (0, 1]");
        }
    }
}
