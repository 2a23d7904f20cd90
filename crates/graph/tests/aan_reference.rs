//! The graph analytics on the real ACL Anthology Network against the independent reference values
//! in `../shared/reference/aan_graph.json`: every sampled CD value and every maximum-citation path.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_corpus::{ReadOptions, ingest_files};
use litnav_graph::disruption::{Scratch, disruption, disruption_all};
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
            |_, _| Ok(vec![]),
        )
        .unwrap();
        let corpus = litnav_corpus::Corpus::open(dir.path()).unwrap();
        Graph::from_papers(corpus.papers())
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
fn every_sampled_cd_value_is_reproduced_exactly() {
    let reference = reference();
    let g = aan();
    let all = disruption_all(g, None);
    let mut scratch = Scratch::new(g.len());
    let sample = reference["cd_sample"].as_object().unwrap();
    assert_eq!(sample.len(), 350);
    for (id, expected) in sample {
        let node = g.node(id).unwrap();
        let d = disruption(g, node, None, &mut scratch);
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
    for window in [None, Some(5)] {
        let values = disruption_all(g, window);
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
