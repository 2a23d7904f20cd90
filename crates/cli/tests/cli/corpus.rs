//! Ingest, info, search and embed: corpora as a user builds and reads them, and their errors.

use crate::util::*;
use std::path::PathBuf;
use std::process::Command;

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn ingest_info_and_search_on_litbench() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let litbench = datasets().join("litbench");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&litbench.join("corpus.jsonl")),
        path(&litbench.join("topics.jsonl")),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["manifest"]["papers"], 3967);
    assert_eq!(report["manifest"]["topics"], 19);

    let out = litnav(&["info", "--corpus", path(&corpus), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(info["papers"], 3967);
    assert_eq!(info["artifacts"][0], "lexical");
    let abstract_coverage = info["coverage"].as_array().unwrap().iter().find(|c| c["field"] == "abstract").unwrap();
    assert_eq!(abstract_coverage["papers"], 3952);

    let out = litnav(&[
        "search",
        "--mode",
        "bm25",
        "--corpus",
        path(&corpus),
        "--query",
        "Hepcidin and Iron in Health and Disease",
        "--k",
        "7",
        "--before",
        "2023",
        "--exclude-surveys",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(hits.len(), 7);
    for hit in &hits {
        let keys: Vec<&str> = hit.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "title", "year", "score"]);
        assert!(hit["year"].as_i64().unwrap() < 2023);
    }
    assert!(hits[0]["title"].as_str().unwrap().to_lowercase().contains("hepcidin"));

    let out = litnav(&["search", "--mode", "bm25", "--corpus", path(&corpus), "-q", "hepcidin", "-k", "3"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().count(), 3, "human output: one line per hit");
}

#[test]
fn errors_are_one_clear_message_and_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\": \"1\", \"title\": \"ok\"}\n{\"id\": \"2\", \"year\": 1999}\n").unwrap();
    let corpus = dir.path().join("c");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(message.contains("bad.jsonl:2: field `title`: is missing"), "{message}");
    assert!(message.contains("the corpus is unchanged"), "{message}");
    assert!(message.contains("; fix the record, or pass --skip-bad"), "the bad record's hint: {message}");
    assert!(!message.contains("panicked"), "{message}");
    assert!(!corpus.join("manifest.json").exists());

    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&bad), "--skip-bad"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("skipped 1 malformed record(s)"), "{}", stdout(&out));

    let out = litnav(&["search", "--mode", "bm25", "--corpus", path(&dir.path().join("missing")), "-q", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not exist; create a corpus with `litnav ingest"), "{}", stderr(&out));

    let out = litnav(&["search", "--mode", "bm25", "--corpus", path(&corpus), "-q", "the of"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("has no searchable words"), "{}", stderr(&out));

    let out = litnav(&["ingest", "--corpus", path(&corpus), "--format", "nonsense", path(&bad)]);
    assert_eq!(out.status.code(), Some(2), "clap rejects unknown formats");
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello\n").unwrap();
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&text)]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("unknown input format") && message.contains("; name the format with --format"),
        "{message}"
    );
}

/// kill -9 at any moment of an ingest must leave the previous corpus readable and searchable,
/// never a half-written one.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn kill_during_ingest_leaves_the_previous_corpus_readable() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let aan = datasets().join("citations/aan");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&datasets().join("litbench/corpus.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut outcomes = Vec::new();
    // Kill after increasing delays: early (reading), middle (indexing), late (committing).
    for delay_ms in [30u64, 150, 400, 700, 1000, 1500, 2500] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args([
                "ingest",
                "--corpus",
                path(&corpus),
                path(&aan.join("papers.jsonl")),
                path(&aan.join("citations.csv")),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let killed = child.kill().is_ok();
        child.wait().unwrap();
        let out = litnav(&["info", "--corpus", path(&corpus), "--json"]);
        assert!(out.status.success(), "after kill at {delay_ms} ms the corpus must open: {}", stderr(&out));
        let info: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let papers = info["papers"].as_u64().unwrap();
        // Either the previous state or the previous state plus all of AAN, never in between.
        assert!(papers == 3967 || papers == 3967 + 18_041, "after kill at {delay_ms} ms: {papers} papers");
        if papers > 3967 {
            assert_eq!(info["edges"], 82_898);
        }
        let out =
            litnav(&["search", "--mode", "bm25", "--corpus", path(&corpus), "-q", "vision transformer", "--json"]);
        assert!(out.status.success(), "after kill at {delay_ms} ms search must work: {}", stderr(&out));
        outcomes.push((delay_ms, killed, papers));
    }
    eprintln!("kill outcomes (delay ms, killed, papers): {outcomes:?}");
    assert!(
        outcomes.iter().any(|(_, killed, papers)| *killed && *papers == 3967),
        "at least one kill must land mid-ingest"
    );
}

#[test]
fn help_reads_well() {
    let out = litnav(&["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    for command in ["ingest", "info", "search", "bench"] {
        assert!(help.contains(command), "{help}");
    }
    let out = litnav(&["search", "--help"]);
    let help = stdout(&out);
    assert!(
        help.contains("--before <YEAR>") && help.contains("--exclude-surveys") && help.contains("--json"),
        "{help}"
    );
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn embed_prints_the_reference_vectors() {
    let model = litnav_embed_model();
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(datasets().join("../reference/minilm_vectors.json")).unwrap())
            .unwrap();
    let items = reference["items"].as_array().unwrap();
    let texts: Vec<&str> = items.iter().take(3).map(|i| i["text"].as_str().unwrap()).collect();
    let mut args = vec!["embed", "--json", "--model", model.as_str()];
    for text in &texts {
        args.extend(["--text", text]);
    }
    let out = litnav(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(printed.len(), 3);
    for (got, expected) in printed.iter().zip(items) {
        assert_eq!(got["text"], expected["text"]);
        let got: Vec<f64> = got["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let expected: Vec<f64> = expected["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(got.len(), 384);
        let worst = got.iter().zip(&expected).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-4, "CLI vector differs from sentence-transformers by {worst}");
    }
}

/// `bench embed` without its peer: rates, the share of the FMA peak they reach, one query alone.
#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn bench_embed_reports_rates_against_the_fma_peak_and_one_query() {
    let report = bench_report(&["embed", "--labels", "40", "--passages", "6", "--repeats", "1", "--threads", "1"]);
    let peak = report["peak_gflops_per_core"].as_f64().expect("this machine has AVX2 and FMA");
    assert!(peak > 1.0, "{report}");
    for workload in report["workloads"].as_array().unwrap() {
        let gflops = workload["litnav_gflops"].as_f64().unwrap();
        let fraction = workload["peak_fraction"].as_f64().unwrap();
        // The fraction is the rate over the peak of the threads used (no bound on its size: the
        // peak is measured once, while other tests may load the machine).
        assert!(gflops > 0.0 && (fraction - gflops / peak).abs() < 1e-9, "{workload}");
        // Where the tiles run, the same rate is also given against their peak.
        let tile_peak = report["tile_peak_gflops_per_core"].as_f64();
        assert_eq!(tile_peak.is_some(), report["kernel"] == "amx-bf16x3", "{report}");
        if let Some(tile_peak) = tile_peak {
            assert!((workload["tile_peak_fraction"].as_f64().unwrap() - gflops / tile_peak).abs() < 1e-9, "{workload}");
        }
    }
    let query = &report["single_query"];
    assert!(query["tokens"].as_u64().unwrap() >= 12 && query["litnav_ms"].as_f64().unwrap() > 0.0, "{query}");
    assert!(query["peer_ms"].is_null(), "no peer was asked for");
    // Half-precision weights move the label vectors, but only a little.
    let moved = query["half_max_abs_difference"].as_f64().unwrap();
    assert!(moved > 0.0 && moved < 1e-3 && query["litnav_half_ms"].as_f64().unwrap() > 0.0, "{query}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn dense_and_hybrid_search_embed_the_corpus_on_first_use() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let fixtures = litnav_testkit::package_dir().join("../corpus/tests/fixtures");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&fixtures.join("openalex_works.jsonl")),
        path(&fixtures.join("references.bib")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for mode in ["dense", "hybrid", "expanded"] {
        let out = litnav(&[
            "search",
            "--corpus",
            path(&corpus),
            "-q",
            "machine translation with attention",
            "--mode",
            mode,
            "--model",
            &model,
            "--json",
        ]);
        assert!(out.status.success(), "{mode}: {}", stderr(&out));
        let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(hits.len(), 5, "{mode}");
    }
    // A query encoded with half-precision weights scores every paper within a rounding of f32.
    let dense = |precision: &str| {
        let args = ["search", "--corpus", path(&corpus), "-q", "attention", "--mode", "dense", "--query-precision"];
        let out = litnav(&[&args[..], &[precision, "--model", &model, "--json"]].concat());
        assert!(out.status.success(), "{precision}: {}", stderr(&out));
        let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
        hits.iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap())).collect::<Vec<_>>()
    };
    let (single, half) = (dense("f32"), dense("f16"));
    assert_eq!(single.len(), 5);
    for (id, score) in &single {
        let other = half.iter().find(|(other, _)| other == id).map(|(_, s)| *s);
        assert!(other.is_some_and(|s| (s - score).abs() < 1e-3), "{id}: {score} vs {other:?}");
    }
    // Papers like one: its nearest vectors, itself left out, in the order of a dense search for
    // its own vector; an unknown id is named.
    let like =
        |id: &str| litnav(&["search", "--corpus", path(&corpus), "--like", id, "-k", "3", "--model", &model, "--json"]);
    let first = single[0].0.clone();
    let out = like(&first);
    assert!(out.status.success(), "{}", stderr(&out));
    let hits: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(hits.len(), 3);
    assert!(hits.iter().all(|h| h["id"] != first.as_str()), "the paper itself is left out");
    assert!(hits.windows(2).all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()));
    let out = like("no-such-paper");
    assert!(!out.status.success() && stderr(&out).contains("no paper with id `no-such-paper`"), "{}", stderr(&out));
    let out = litnav(&["search", "--corpus", path(&corpus), "--like", &first, "-q", "attention"]);
    assert!(!out.status.success(), "words and an id together are refused");
    let out = litnav(&["search", "--corpus", path(&corpus), "-q", "attention", "--query-precision", "f8"]);
    assert!(!out.status.success() && stderr(&out).contains("f32") && stderr(&out).contains("f16"), "{}", stderr(&out));
    let out = litnav(&["embed", "--corpus", path(&corpus), "--model", &model, "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((report["papers"].as_u64(), report["encoded"].as_u64()), (Some(5), Some(0)), "vectors are reused");
    assert!(report["ivf"].is_null(), "five papers are scanned exactly: no IVF index by default");
    // `embed --scan approximate` builds the IVF index ahead of the first search.
    let out = litnav(&["embed", "--corpus", path(&corpus), "--model", &model, "--scan", "approximate", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let ivf = PathBuf::from(report["ivf"].as_str().unwrap());
    assert!(ivf.is_file() && ivf.starts_with(corpus.join("vectors")), "{report}");
    // --scan approximate searches through the IVF index, saved beside the vectors; with five
    // papers every list is probed, so it finds what the exact scan finds.
    let search = |scan: &str| {
        let args = ["search", "--corpus", path(&corpus), "-q", "attention", "--mode", "dense", "--scan", scan];
        let out = litnav(&[&args[..], &["--model", &model, "--json"]].concat());
        assert!(out.status.success(), "{scan}: {}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()
    };
    assert_eq!(search("approximate"), search("exact"));
    let saved: Vec<String> = std::fs::read_dir(corpus.join("vectors"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("ivf-"))
        .collect();
    assert_eq!(saved.len(), 1, "one IVF index, of the current generation: {saved:?}");
}

/// A `.npy` file of float32 rows, as `numpy.save` writes it (format 1.0).
fn write_npy(path: &std::path::Path, rows: &[Vec<f32>]) {
    let dim = rows.first().map_or(0, Vec::len);
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {dim}), }}", rows.len());
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    rows.iter().flatten().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
    std::fs::write(path, bytes).unwrap();
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn vectors_computed_elsewhere_are_ingested_checked_and_used() {
    use litnav_embed::cache::VectorCache;
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    // 300 litbench papers, and their MiniLM vectors as a GPU machine would hand them over: one
    // row per record of the papers file, in its order.
    let papers = dir.path().join("papers.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(datasets().join("litbench/corpus.jsonl"))
        .unwrap()
        .lines()
        .take(300)
        .map(str::to_string)
        .collect();
    std::fs::write(&papers, lines.join("\n") + "\n").unwrap();
    let records = litnav_corpus::readers::read_file(&papers, litnav_corpus::ReadOptions::default()).unwrap();
    let cache = VectorCache::open(litnav_testkit::litbench_vectors(), litnav_embed::DIM).unwrap();
    let rows: Vec<Vec<f32>> = records
        .items
        .iter()
        .filter_map(|item| match item {
            litnav_corpus::readers::Item::Paper(record) => Some(record.paper.text()),
            _ => None,
        })
        .map(|text| cache.get(&VectorCache::key(litnav_embed::MODEL_NAME, &text)).unwrap().to_vec())
        .collect();
    assert_eq!(rows.len(), 300);
    let vectors = dir.path().join("vectors.npy");
    write_npy(&vectors, &rows);
    let ingest = |corpus: &std::path::Path, file: &std::path::Path, name: &str| {
        litnav(&[
            "ingest",
            "--corpus",
            path(corpus),
            path(&papers),
            "--vectors",
            path(file),
            "--vectors-model",
            name,
            "--json",
        ])
    };

    // litnav's own model under its Hugging Face name: nothing is encoded again.
    let own = dir.path().join("own");
    let out = ingest(&own, &vectors, "sentence-transformers/all-MiniLM-L6-v2");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["vectors"]["rows"], 300, "{report}");
    assert_eq!(report["vectors"]["model"]["model"], "all-MiniLM-L6-v2", "{report}");
    let out = litnav(&["embed", "--corpus", path(&own), "--model", &model, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let embedded: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(embedded["encoded"], 0, "every paper had its supplied vector: {embedded}");

    // Another model: its vectors serve papers like a paper, exactly as the same numbers under
    // litnav's own name do; a query text is searched lexically, with a notice; a map is refused.
    let other = dir.path().join("other");
    let out = ingest(&other, &vectors, "example/encoder-384");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(other.join("vectors/example_encoder-384.bin").is_file());
    let first = lines.iter().find_map(|l| l.split("\"id\": \"").nth(1).or_else(|| l.split("\"id\":\"").nth(1)));
    let first = first.and_then(|rest| rest.split('"').next()).unwrap().to_string();
    let like_first = |corpus: &std::path::Path| {
        let out =
            litnav(&["search", "--corpus", path(corpus), "--like", &first, "-k", "5", "--model", &model, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(like_first(&other), like_first(&own));
    let search = |mode: &str| {
        litnav(&[
            "search",
            "--corpus",
            path(&other),
            "-q",
            "continual learning",
            "--mode",
            mode,
            "--model",
            &model,
            "--json",
        ])
    };
    let (dense, bm25) = (search("dense"), search("bm25"));
    assert!(dense.status.success(), "{}", stderr(&dense));
    assert!(stderr(&dense).contains("searched lexically"), "{}", stderr(&dense));
    assert_eq!(stdout(&dense), stdout(&bm25));
    let out = litnav(&["map", "--corpus", path(&other), "--topic", "continual learning", "--model", &model]);
    assert!(!out.status.success() && stderr(&out).contains("litnav does not run"), "{}", stderr(&out));

    // What does not fit is refused, naming the file and row, and nothing is written.
    let refused = dir.path().join("refused");
    let cases: [(Vec<Vec<f32>>, &str, &str); 3] = [
        (rows[..299].to_vec(), "all-MiniLM-L6-v2", "299 rows for 300 paper records"),
        (rows.iter().map(|r| r[..10].to_vec()).collect(), "all-MiniLM-L6-v2", "rows of 10 values"),
        (
            rows.iter().enumerate().map(|(i, r)| if i == 7 { vec![f32::NAN; r.len()] } else { r.clone() }).collect(),
            "example/encoder-384",
            "row 7, column 0: NaN",
        ),
    ];
    for (bad, name, expected) in cases {
        let file = dir.path().join("bad.npy");
        write_npy(&file, &bad);
        let out = ingest(&refused, &file, name);
        assert!(!out.status.success() && stderr(&out).contains(expected), "{expected}: {}", stderr(&out));
        assert!(stderr(&out).contains("bad.npy"), "the file is named: {}", stderr(&out));
        assert!(!refused.join("manifest.json").exists(), "{expected}: nothing written");
    }
    let out = litnav(&["ingest", "--corpus", path(&refused), path(&papers), "--vectors", path(&vectors)]);
    assert!(!out.status.success() && stderr(&out).contains("--vectors-model"), "{}", stderr(&out));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn bench_dense_compares_int8_scans_with_full_precision_on_real_and_synthetic_vectors() {
    for synthetic in [None, Some("8000")] {
        let mut args = vec!["dense", "--queries", "40"];
        args.extend(synthetic.iter().flat_map(|n| ["--synthetic", n]));
        let report = bench_report(&args);
        assert_eq!(report["papers"].as_u64(), Some(synthetic.map_or(3967, |_| 8000)), "{report}");
        let rows = report["rescoring"].as_array().unwrap();
        let recall = |name: &str| {
            let row = rows.iter().find(|r| r["scoring"].as_str().unwrap().starts_with(name)).unwrap();
            row["recall_at_10"].as_f64().unwrap()
        };
        // The default scan is the IVF the report times; int8 with 40 rescored loses next to nothing.
        assert_eq!(recall("int8, 40 rescored (default)"), report["recall_at_10"].as_f64().unwrap(), "{report}");
        assert!(recall("int8, 40") >= recall("full precision") - 0.01, "{report}");
        assert!(recall("int8, 80") >= recall("int8, 10"), "{report}");
    }
}

/// `litnav search --json` on the built-in corpus (or `corpus`), its hits.
fn search_json(query: &str, more: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["search", "-q", query, "--json"];
    args.extend(more);
    let out = litnav(&args);
    assert!(out.status.success(), "{query}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn a_title_typed_as_a_person_types_it_names_its_paper_which_comes_first() {
    // The default search (expanded) ranks this exact title 29th on its own.
    let attention = "p37f63852cdfb";
    for (query, by) in [
        ("Attention is all you need", "title"),
        ("attention is all you need.", "title"),
        ("Attention is al you need", "near title"),
        ("Attention is all need", "near title"),
        ("p37f63852cdfb", "id"),
    ] {
        let hits = search_json(query, &["-k", "10"]);
        assert_eq!(hits.len(), 10, "{query}: still k hits");
        assert_eq!((hits[0]["id"].as_str(), hits[0]["known"].as_str()), (Some(attention), Some(by)), "{query}");
        assert_eq!(hits.iter().filter(|h| h["id"] == attention).count(), 1, "{query}: listed once");
        assert!(hits[1..].iter().all(|h| h.get("known").is_none()), "{query}");
    }
    // A topic names no paper; a named paper the filters exclude does not come first.
    let topic = search_json("vision transformers", &["-k", "10"]);
    assert!(topic.iter().all(|h| h.get("known").is_none()), "{topic:?}");
    let before = search_json("Attention is all you need", &["-k", "10", "--before", "2017"]);
    assert!(before.iter().all(|h| h["id"] != attention && h.get("known").is_none()), "{before:?}");
    // The text output says why the first paper is first.
    let out = litnav(&["search", "-q", "Attention is all you need", "-k", "3"]);
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(first.contains("Attention is all you need") && first.contains("(named by its title)"), "{first}");
}

#[test]
fn a_doi_an_openalex_or_arxiv_id_names_its_paper() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let works = litnav_testkit::package_dir().join("../corpus/tests/fixtures/openalex_works.jsonl");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&works)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let corpus_args = ["--corpus", path(&corpus), "--mode", "bm25", "-k", "3"];
    for (query, by) in [
        ("https://doi.org/10.48550/arXiv.1706.03762", "doi"),
        ("10.48550/arxiv.1706.03762", "doi"),
        ("W2963403868", "openalex"),
        ("https://openalex.org/W2963403868", "openalex"),
        ("arXiv:1706.03762v7", "arxiv"),
        ("https://arxiv.org/abs/1706.03762", "arxiv"),
    ] {
        let hits = search_json(query, &corpus_args);
        assert_eq!(hits[0]["title"], "Attention Is All You Need", "{query}: {hits:?}");
        assert_eq!(hits[0]["known"], by, "{query}");
    }
    // An identifier the corpus does not hold is a search like any other (nothing matches here).
    let hits = search_json("10.9999/nowhere attention", &corpus_args);
    assert!(!hits.is_empty() && hits.iter().all(|h| h.get("known").is_none()), "{hits:?}");
}

#[test]
fn a_reader_that_stops_early_ends_litnav_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let works = litnav_testkit::package_dir().join("../corpus/tests/fixtures/openalex_works.jsonl");
    assert!(litnav(&["ingest", "--corpus", path(&corpus), path(&works)]).status.success());
    for args in [
        vec!["info", "--corpus", path(&corpus)],
        vec!["search", "--corpus", path(&corpus), "--mode", "bm25", "-q", "attention"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args(&args)
            .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before litnav prints a line.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(!message.contains("panicked"), "{args:?}: {message}");
        assert!(matches!(out.status.code(), Some(0 | 141)), "{args:?}: {:?} {message}", out.status);
    }
}
