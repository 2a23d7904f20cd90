//! The analytics plans against litnav's in-memory CSR: every paper's CD index from the Parquet
//! tables on the embedded engine equals `disruption_all` field for field (the floats to the
//! bit) — on power-law graphs, on dated graphs with citations to later papers, on graphs with
//! papers of unknown time, and on the real ACL Anthology Network (whose CSR values equal the
//! `cdindex` package's, `litnav-graph`'s tests). The Ballista cluster runs in the CLI's tests.

#![cfg(feature = "engine")]
#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_analytics::cd::{self, CdPlan};
use litnav_analytics::{Engine, Session, export, synthetic};
use litnav_core::rng::SplitMix64;
use litnav_graph::disruption::{CdOptions, Disruption, disruption_all};
use litnav_graph::{Graph, NodeInfo};
use std::collections::HashMap;
use std::path::Path;

/// `cd.parquet` of `dir` as id → disruption.
fn planned(dir: &Path, plan: CdPlan) -> HashMap<String, Disruption> {
    let session = Session::open(&Engine::local(), dir).unwrap();
    let out = dir.join(format!("out-{:?}-{}", plan.window, plan.ranges));
    let summary = cd::compute(&session, plan, &out).unwrap();
    let results = cd::read(&out.join("cd.parquet")).unwrap();
    assert_eq!(results.window, plan.window);
    assert_eq!(results.rows.len() as u64, summary.papers);
    results.rows.into_iter().collect()
}

/// Assert that the plan gives the CSR's values for every paper, at several windows and cuts.
fn assert_plan_equals_csr(graph: &Graph, windows: &[Option<u32>], ranges: &[u32]) {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_graph(graph, dir.path()).unwrap();
    for &window in windows {
        let expected = disruption_all(graph, CdOptions { window, ..CdOptions::default() });
        for &cuts in ranges {
            let found = planned(dir.path(), CdPlan { window, ranges: cuts });
            assert_eq!(found.len(), graph.len(), "window {window:?}, {cuts} ranges: one row per paper");
            let mut defined = 0;
            for node in graph.nodes() {
                let id = graph.id(node);
                assert_eq!(found[id], expected[node as usize], "{id}, window {window:?}, {cuts} ranges");
                defined += usize::from(expected[node as usize].cd.is_some());
            }
            assert!(defined > graph.len() / 4, "window {window:?}: only {defined} defined");
        }
    }
}

#[test]
fn cd_equals_the_csr_on_a_power_law_graph() {
    let graph = litnav_graph::synthetic::preferential_attachment(3_000, 6, 7);
    assert_plan_equals_csr(&graph, &[None, Some(1), Some(5)], &[1, 3, 16]);
}

/// A dated graph with what real data holds: citations to later papers, self-citations, repeated
/// edges, references outside the corpus, and papers of unknown date.
fn messy_dated_graph(papers: usize, seed: u64) -> Graph {
    let mut rng = SplitMix64(seed);
    let nodes: Vec<NodeInfo> = (0..papers)
        .map(|i| {
            let date = (rng.below(10) > 0).then(|| 7_000 + rng.below(20 * 365) as i32);
            NodeInfo { id: format!("P{i:05}"), year: date.map(|d| 1970 + d / 365), date, ..NodeInfo::default() }
        })
        .collect();
    let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    let mut edges = Vec::new();
    for (i, citing) in ids.iter().enumerate() {
        for _ in 0..rng.below(9) {
            // Mostly earlier papers, a popular few far more often (a skewed in-degree).
            let cited = if rng.below(3) == 0 { rng.below(30) } else { rng.below(i.max(1)) };
            edges.push((citing.clone(), ids[cited].clone()));
        }
        if rng.below(20) == 0 {
            edges.push((citing.clone(), citing.clone()));
            edges.push((citing.clone(), "OUTSIDE".to_string()));
        }
    }
    let pairs: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    Graph::build(nodes, &pairs)
}

#[test]
fn cd_equals_the_csr_on_a_dated_graph_with_unknown_dates_and_odd_edges() {
    let graph = messy_dated_graph(2_500, 3);
    assert_eq!(graph.timeline(), litnav_graph::Timeline::Dates);
    assert_plan_equals_csr(&graph, &[None, Some(2), Some(5)], &[1, 7]);
}

#[test]
fn a_missing_table_or_column_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let error = Session::open(&Engine::local(), dir.path()).err().unwrap().to_string();
    assert!(error.contains("no `papers` table"), "{error}");
    let graph = litnav_graph::synthetic::preferential_attachment(50, 2, 1);
    synthetic::write_graph(&graph, dir.path()).unwrap();
    std::fs::remove_file(dir.path().join("edges.parquet")).unwrap();
    let error = Session::open(&Engine::local(), dir.path()).err().unwrap().to_string();
    assert!(error.contains("no `edges` table"), "{error}");
    // An edges table without the `cited` column: the papers table stands in for it.
    std::fs::copy(dir.path().join("papers.parquet"), dir.path().join("edges.parquet")).unwrap();
    let error = Session::open(&Engine::local(), dir.path()).err().unwrap().to_string();
    assert!(error.contains("edges") && error.contains("`citing`"), "{error}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn exported_aan_gives_the_csr_values_and_every_table_reads_back() {
    let corpus_dir = tempfile::tempdir().unwrap();
    let aan = litnav_testkit::datasets().join("citations/aan");
    litnav_corpus::ingest_files(
        corpus_dir.path(),
        &[aan.join("papers.jsonl"), aan.join("citations.csv")],
        litnav_corpus::ReadOptions::default(),
        |_, _| Ok(vec![]),
    )
    .unwrap();
    let corpus = litnav_corpus::Corpus::open(corpus_dir.path()).unwrap();
    let graph = Graph::from_papers(corpus.papers());
    let out = tempfile::tempdir().unwrap();
    let exported = export::export_corpus(corpus.papers(), corpus.topics(), &graph, &[], out.path()).unwrap();
    assert_eq!(exported.papers as usize, graph.len());
    assert_eq!(exported.edges as usize, graph.edge_count());

    let session = Session::open(&Engine::local(), out.path()).unwrap();
    let counts =
        session.collect("SELECT (SELECT count(*) FROM papers) AS p, (SELECT count(*) FROM edges) AS e").unwrap();
    let row = &counts[0];
    let value = |i: usize| {
        use litnav_analytics::arrow::array::AsArray;
        row.column(i).as_primitive::<litnav_analytics::arrow::datatypes::Int64Type>().value(0) as usize
    };
    assert_eq!((value(0), value(1)), (graph.len(), graph.edge_count()));

    for window in [Some(5), None] {
        let expected = disruption_all(&graph, CdOptions { window, ..CdOptions::default() });
        let found = planned(out.path(), CdPlan::new(window));
        let differing: Vec<&str> =
            graph.nodes().filter(|&n| found[graph.id(n)] != expected[n as usize]).map(|n| graph.id(n)).collect();
        assert!(
            differing.is_empty(),
            "window {window:?}: {} papers differ, e.g. {:?}",
            differing.len(),
            &differing[..5.min(differing.len())]
        );
    }
}

#[test]
fn counts_and_percentiles_equal_the_in_memory_graph() {
    use litnav_analytics::{Engine, citation_counts, counts};
    let dir = tempfile::tempdir().unwrap();
    let graph = messy_dated_graph(1_500, 9);
    synthetic::write_graph(&graph, dir.path()).unwrap();
    let planned = dir.path().join("planned");
    let in_memory = dir.path().join("memory");
    assert_eq!(citation_counts(&Engine::local(), dir.path(), &planned).unwrap() as usize, graph.len());
    assert_eq!(citation_counts(&Engine::Memory, dir.path(), &in_memory).unwrap() as usize, graph.len());
    let planned: HashMap<String, counts::Counts> =
        counts::read(&planned.join("counts.parquet")).unwrap().into_iter().collect();
    let in_memory: HashMap<String, counts::Counts> =
        counts::read(&in_memory.join("counts.parquet")).unwrap().into_iter().collect();
    assert_eq!(planned, in_memory);
    let table = litnav_graph::percentile::PercentileTable::new(graph.nodes().map(|n| Some(graph.in_degree(n) as f64)));
    for node in graph.nodes() {
        let found = planned[graph.id(node)];
        assert_eq!(found.citations as usize, graph.in_degree(node));
        assert_eq!(found.references as usize, graph.out_degree(node));
        assert_eq!(Some(found.citation_percentile), table.rank(graph.in_degree(node) as f64));
    }
}
