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
    let out = dir.join(format!("out-{:?}-{}-{}", plan.window, plan.ranges, plan.jobs));
    let summary = cd::compute(&session, plan, &out).unwrap();
    let results = cd::read(&out.join("cd.parquet")).unwrap();
    assert_eq!(results.window, plan.window);
    assert_eq!(results.rows.len() as u64, summary.papers);
    results.rows.into_iter().collect()
}

/// Assert that the plan gives the CSR's values for every paper, at several windows and cuts
/// (ranges, and the jobs they run as).
fn assert_plan_equals_csr(graph: &Graph, windows: &[Option<u32>], cuts: &[(u32, u32)]) {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_graph(graph, dir.path()).unwrap();
    for &window in windows {
        let expected = disruption_all(graph, CdOptions { window, ..CdOptions::default() });
        for &(ranges, jobs) in cuts {
            let found = planned(dir.path(), CdPlan { window, ranges, jobs });
            let cuts = format!("{ranges} ranges in {jobs} jobs");
            assert_eq!(found.len(), graph.len(), "window {window:?}, {cuts}: one row per paper");
            let mut defined = 0;
            for node in graph.nodes() {
                let id = graph.id(node);
                assert_eq!(found[id], expected[node as usize], "{id}, window {window:?}, {cuts}");
                defined += usize::from(expected[node as usize].cd.is_some());
            }
            assert!(defined > graph.len() / 4, "window {window:?}: only {defined} defined");
        }
    }
}

#[test]
fn cd_equals_the_csr_on_a_power_law_graph() {
    let graph = litnav_graph::synthetic::preferential_attachment(3_000, 6, 7);
    assert_plan_equals_csr(&graph, &[None, Some(1), Some(5)], &[(1, 1), (3, 1), (16, 1), (16, 5), (3, 3), (200, 9)]);
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
    assert_plan_equals_csr(&graph, &[None, Some(2), Some(5)], &[(1, 1), (7, 1), (7, 4)]);
}

#[test]
fn cd_of_a_graph_without_times_is_undefined_everywhere_with_no_job_run() {
    let timed = litnav_graph::synthetic::preferential_attachment(300, 3, 5);
    let nodes = timed.nodes().map(|n| NodeInfo { id: timed.id(n).to_string(), ..NodeInfo::default() }).collect();
    let timed = &timed;
    let edges: Vec<(&str, &str)> =
        timed.nodes().flat_map(|n| timed.references(n).iter().map(move |&r| (timed.id(n), timed.id(r)))).collect();
    let graph = Graph::build(nodes, &edges);
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_graph(&graph, dir.path()).unwrap();
    let session = Session::open(&Engine::local(), dir.path()).unwrap();
    let summary =
        cd::compute(&session, CdPlan { window: Some(5), ranges: 8, jobs: 3 }, &dir.path().join("out")).unwrap();
    assert_eq!((summary.papers, summary.timed, summary.jobs), (300, 0, 0));
    let expected = disruption_all(&graph, CdOptions { window: Some(5), ..CdOptions::default() });
    assert!(expected.iter().all(|d| d.cd.is_none()));
    let found = cd::read(&dir.path().join("out/cd.parquet")).unwrap().rows;
    assert!(found.iter().all(|(id, d)| *d == expected[graph.find(id).unwrap() as usize]));
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
        |_| Ok(vec![]),
    )
    .unwrap();
    let corpus = litnav_corpus::Corpus::open(corpus_dir.path()).unwrap();
    let graph = Graph::from_papers(corpus.papers().unwrap());
    let out = tempfile::tempdir().unwrap();
    let exported = export::export_corpus(corpus.papers().unwrap(), corpus.topics(), &graph, &[], out.path()).unwrap();
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

/// Every paper's co-citation and coupling lists from the plan equal the in-memory CSR's
/// (`co_cited_with`, `coupled_with`): the same papers in the same order (ties included), the
/// same counts, the similarities to the bit — and the in-memory engine's file equals both. Cuts
/// are (groups, the jobs they run as).
fn assert_related_equals_csr(graph: &Graph, tops: &[u32], cuts: &[(u32, u32)]) {
    use litnav_analytics::related::{self, RelatedPlan, Relation};
    use litnav_graph::pairs::{co_cited_with, coupled_with};
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_graph(graph, dir.path()).unwrap();
    let session = Session::open(&Engine::local(), dir.path()).unwrap();
    for relation in [Relation::CoCitation, Relation::Coupling] {
        for &top in tops {
            let expected: HashMap<String, Vec<(String, u64, f64)>> = graph
                .nodes()
                .map(|node| {
                    let list = match relation {
                        Relation::CoCitation => co_cited_with(graph, node, top as usize),
                        Relation::Coupling => coupled_with(graph, node, top as usize),
                    };
                    let list = list.iter().map(|r| (graph.id(r.node).to_string(), r.count as u64, r.similarity));
                    (graph.id(node).to_string(), list.collect::<Vec<_>>())
                })
                .filter(|(_, list)| !list.is_empty())
                .collect();
            let as_tuples = |results: related::RelatedResults| -> HashMap<String, Vec<(String, u64, f64)>> {
                assert_eq!((results.relation, results.top), (relation, top));
                results
                    .lists
                    .into_iter()
                    .map(|(id, list)| (id, list.into_iter().map(|r| (r.other, r.count, r.similarity)).collect()))
                    .collect()
            };
            for &(groups, jobs) in cuts {
                let cuts = format!("{groups} groups in {jobs} jobs");
                let out = dir.path().join(format!("out-{}-{top}-{groups}-{jobs}", relation.name()));
                related::compute(&session, RelatedPlan { relation, top, groups, jobs }, &out).unwrap();
                let found = as_tuples(related::read(&out.join(format!("{}.parquet", relation.name()))).unwrap());
                assert_eq!(found.len(), expected.len(), "{relation:?}, top {top}, {cuts}");
                for (id, list) in &expected {
                    assert_eq!(&found[id], list, "{relation:?} of {id}, top {top}, {cuts}");
                }
            }
            let out = dir.path().join(format!("memory-{}-{top}", relation.name()));
            let plan = RelatedPlan { relation, top, groups: 1, jobs: 1 };
            litnav_analytics::related_papers(&Engine::Memory, dir.path(), plan, &out).unwrap();
            let found = as_tuples(related::read(&out.join(format!("{}.parquet", relation.name()))).unwrap());
            assert_eq!(found, expected, "{relation:?}, top {top}, in memory");
        }
    }
}

#[test]
fn cocitation_and_coupling_equal_the_csr() {
    let graph = litnav_graph::synthetic::preferential_attachment(2_000, 6, 11);
    assert_related_equals_csr(&graph, &[3, 25], &[(1, 1), (4, 1), (13, 1), (13, 4)]);
    assert_related_equals_csr(&messy_dated_graph(1_500, 5), &[10], &[(1, 1), (7, 1), (7, 7)]);
}

/// A power-law graph whose papers sit in 30 venues (a tenth in none).
fn graph_with_venues(papers: usize, seed: u64) -> Graph {
    let base = litnav_graph::synthetic::preferential_attachment(papers, 7, seed);
    let mut rng = SplitMix64(seed ^ 0x5EED);
    let nodes: Vec<NodeInfo> = base
        .nodes()
        .map(|n| NodeInfo {
            id: base.id(n).to_string(),
            year: base.year(n),
            venue: (rng.below(10) > 0).then(|| format!("Venue {}", rng.below(30))),
            ..NodeInfo::default()
        })
        .collect();
    let edges: Vec<(&str, &str)> = base.edges().map(|(a, b)| (base.id(a), base.id(b))).collect();
    Graph::build(nodes, &edges)
}

/// Every paper's novelty from the plan (expected null) equals the in-memory computation: the
/// same pair counts and reasons, the percentiles within 1e-9 (DataFusion sums the per-year terms
/// in its own order) — and the in-memory engine's file equals the in-memory values exactly.
fn assert_novelty_equals_csr(graph: &Graph, units: litnav_graph::novelty::Units) {
    use litnav_analytics::novelty;
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_graph(graph, dir.path()).unwrap();
    let expected = litnav_graph::novelty::expected::novelty_all(graph, units);
    let session = Session::open(&Engine::local(), dir.path()).unwrap();
    let summary = novelty::compute(&session, units, &dir.path().join("plan")).unwrap();
    assert_eq!(summary.papers as usize, graph.len());
    let found = novelty::read(&dir.path().join("plan/novelty.parquet")).unwrap();
    assert_eq!(found.units, units);
    let found: HashMap<String, litnav_graph::novelty::Novelty> = found.rows.into_iter().collect();
    let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * b.abs().max(1.0),
        (a, b) => a == b,
    };
    let mut defined = 0;
    for node in graph.nodes() {
        let (plan, memory) = (found[graph.id(node)], expected[node as usize]);
        assert_eq!((plan.pairs, plan.undefined), (memory.pairs, memory.undefined), "{}", graph.id(node));
        assert!(
            close(plan.p10, memory.p10) && close(plan.median, memory.median),
            "{}: {plan:?} vs {memory:?}",
            graph.id(node)
        );
        defined += usize::from(memory.p10.is_some());
    }
    assert!(defined > graph.len() / 2, "{units:?}: only {defined} papers have a novelty");
    litnav_analytics::paper_novelty(&Engine::Memory, dir.path(), units, &dir.path().join("memory")).unwrap();
    let memory = novelty::read(&dir.path().join("memory/novelty.parquet")).unwrap();
    for (id, value) in memory.rows {
        assert_eq!(value, expected[graph.node(&id).unwrap() as usize], "{id}");
    }
}

#[test]
fn novelty_against_the_expected_null_equals_the_in_memory_computation() {
    use litnav_graph::novelty::Units;
    assert_novelty_equals_csr(&graph_with_venues(2_500, 3), Units::Venues);
    assert_novelty_equals_csr(&graph_with_venues(2_500, 3), Units::References);
    assert_novelty_equals_csr(&messy_dated_graph(1_500, 9), Units::References);
}
