//! The graph analytics on the real ACL Anthology Network against independent reference values:
//! every paper's CD index at three windows as its authors' package computes it
//! (`../shared/reference/aan_cdindex.json`), the all-time reading's sampled values and every
//! maximum-citation path (`../shared/reference/aan_graph.json`).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_corpus::{ReadOptions, ingest_files};
use litnav_graph::disruption::{CdOptions, Reading, Scratch, disruption, disruption_all};
use litnav_graph::paths::{self, DEFAULT_MAX_HOPS};
use litnav_graph::{Graph, store};
use std::path::PathBuf;
use std::sync::OnceLock;

fn shared() -> PathBuf {
    litnav_testkit::datasets().join("..")
}

/// AAN ingested once (papers + citation CSV) into a temporary corpus, and its graph.
fn aan() -> &'static Graph {
    static GRAPH: OnceLock<Graph> = OnceLock::new();
    GRAPH.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let aan = shared().join("datasets/citations/aan");
        ingest_files(
            dir.path(),
            &[aan.join("papers.jsonl"), aan.join("citations.csv")],
            ReadOptions::default(),
            |_| Ok(vec![]),
        )
        .unwrap();
        let corpus = litnav_corpus::Corpus::open(dir.path()).unwrap();
        Graph::from_papers(corpus.papers().unwrap())
    })
}

fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(shared().join("reference/aan_graph.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn graph_has_the_reference_size() {
    let reference = reference();
    let g = aan();
    assert_eq!(g.len() as u64, reference["n_papers"].as_u64().unwrap());
    assert_eq!(g.edge_count() as u64, reference["n_edges"].as_u64().unwrap());
    let penn = g.node("J93-2004").unwrap();
    assert_eq!(g.in_degree(penn), 770);
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn every_cd_value_equals_the_cdindex_package_at_three_windows() {
    let text = std::fs::read_to_string(shared().join("reference/aan_cdindex.json")).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let g = aan();
    let papers = reference["papers"].as_object().unwrap();
    assert_eq!(papers.len(), g.len(), "every AAN paper has a year, so the package saw all of them");
    for (key, delta) in reference["deltas"].as_object().unwrap() {
        let options = CdOptions::window(delta.as_u64().unwrap() as u32);
        let all = disruption_all(g, options);
        let mut scratch = Scratch::new(g.len());
        let (mut defined, mut differing) = (0, Vec::new());
        for (id, values) in papers {
            let expected = values[key.as_str()].as_f64();
            let node = g.node(id).unwrap();
            assert_eq!(
                all[node as usize],
                disruption(g, node, options, &mut scratch),
                "{id}: parallel and single differ"
            );
            let found = all[node as usize].cd;
            defined += usize::from(found.is_some());
            let same = match (found, expected) {
                (Some(a), Some(b)) => (a - b).abs() <= 1e-12,
                (None, None) => true,
                _ => false,
            };
            if !same {
                differing.push(format!("{id}: litnav {found:?}, cdindex {expected:?}"));
            }
        }
        assert!(
            differing.is_empty(),
            "{key}: {} differ, e.g. {:?}",
            differing.len(),
            &differing[..differing.len().min(5)]
        );
        assert!(defined > 10_000, "{key}: {defined} defined");
    }
    // Δ = 1000 years reaches past every paper: the same as no window.
    assert_eq!(disruption_all(g, CdOptions::window(1000)), disruption_all(g, CdOptions::default()));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn every_sampled_all_time_value_is_reproduced_exactly() {
    let reference = reference();
    let g = aan();
    let options = CdOptions { window: None, reading: Reading::AllTime };
    let all = disruption_all(g, options);
    let mut scratch = Scratch::new(g.len());
    let sample = reference["cd_sample"].as_object().unwrap();
    assert_eq!(sample.len(), 350);
    for (id, expected) in sample {
        let node = g.node(id).unwrap();
        let d = disruption(g, node, options, &mut scratch);
        assert_eq!(d, all[node as usize], "{id}: parallel and single computations differ");
        let count = |key: &str| expected[key].as_u64().unwrap();
        assert_eq!((d.n_i, d.n_j, d.n_k), (count("n_i"), count("n_j"), count("n_k")), "{id}");
        assert_eq!(g.in_degree(node) as u64, count("in_degree"), "{id}");
        assert_eq!(g.out_degree(node) as u64, count("out_degree"), "{id}");
        // Exact: the same division of the same integers gives the same double.
        assert_eq!(d.cd, expected["cd"].as_f64(), "{id}");
        assert_eq!(d.cd_nok, expected["cd_nok"].as_f64(), "{id}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn every_reference_max_citation_path_is_reproduced_exactly() {
    let reference = reference();
    let g = aan();
    let cases = reference["max_citation_paths"].as_array().unwrap();
    assert_eq!(cases.len(), 25);
    for case in cases {
        let source = g.node(case["source"].as_str().unwrap()).unwrap();
        let target = g.node(case["target"].as_str().unwrap()).unwrap();
        let found = paths::max_citation_path(g, source, target, DEFAULT_MAX_HOPS).unwrap();
        let ids: Vec<&str> = found.nodes.iter().map(|&n| g.id(n)).collect();
        let expected: Vec<&str> = case["path"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(ids, expected);
        assert_eq!(found.total_in_degree, case["total_in_degree"].as_u64().unwrap());
        // The maximum path is a real connected citation path.
        assert!(paths::connectivity(g, source, target, &found.nodes));
        assert_eq!(paths::consistency(&found.nodes, &found.nodes), 1.0);
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn cd_stays_in_bounds_on_the_whole_corpus_with_and_without_a_window() {
    let g = aan();
    for options in
        [CdOptions::default(), CdOptions::window(5), CdOptions { window: Some(5), reading: Reading::AllTime }]
    {
        let values = disruption_all(g, options);
        let defined = values.iter().filter(|d| d.cd.is_some()).count();
        assert!(defined > 10_000, "{defined} defined values");
        for d in values {
            for v in [d.cd, d.cd_nok].into_iter().flatten() {
                assert!((-1.0..=1.0).contains(&v));
            }
        }
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn the_saved_artifact_loads_back_identical() {
    let g = aan();
    let dir = tempfile::tempdir().unwrap();
    store::save(dir.path(), g, &[]).unwrap();
    assert_eq!(&store::load(dir.path()).unwrap(), g);
}
