//! Beyond one machine: the columnar corpus and the CD index on every engine, from the command
//! line — a litnav corpus exported to Parquet, an OpenAlex snapshot read into Parquet, the
//! embedded DataFusion engine and a real Ballista cluster (a scheduler and two executors, three
//! processes on loopback) giving the in-memory CSR's values, results read back by `litnav
//! relations`, and an executor killed in the middle of a job.

use crate::util::{datasets, litnav, path, stderr, stdout};
use litnav_analytics::cluster::LocalCluster;
use litnav_analytics::{cd, related};
use litnav_graph::disruption::Disruption;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_litnav"))
}

/// Run `litnav analytics cd` and read its result back, by paper id.
fn cd_on(engine: &str, tables: &Path, out: &Path, extra: &[&str]) -> HashMap<String, Disruption> {
    let mut args = vec!["analytics", "cd", "--engine", engine, "--parquet", path(tables), "--out", path(out), "--json"];
    args.extend_from_slice(extra);
    let run = litnav(&args);
    assert!(run.status.success(), "{engine}: {}", stderr(&run));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(summary["engine"], if engine == "local" { "datafusion" } else { engine });
    cd::read(&out.join("cd.parquet")).unwrap().rows.into_iter().collect()
}

/// AAN as a litnav corpus (papers and the citation edge list).
fn aan_corpus(dir: &Path) {
    let aan = datasets().join("citations/aan");
    let run =
        litnav(&["ingest", "--corpus", path(dir), path(&aan.join("papers.jsonl")), path(&aan.join("citations.csv"))]);
    assert!(run.status.success(), "{}", stderr(&run));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
fn aan_exported_to_parquet_gives_the_cdindex_values_on_every_engine_and_reads_back() {
    let work = tempfile::tempdir().unwrap();
    let (corpus, tables) = (work.path().join("corpus"), work.path().join("tables"));
    aan_corpus(&corpus);
    let run = litnav(&["export", "parquet", "--corpus", path(&corpus), "--out", path(&tables)]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stdout(&run).contains("papers"), "{}", stdout(&run));
    for table in ["papers", "edges", "topics", "contexts"] {
        assert!(tables.join(format!("{table}.parquet")).is_file(), "{table}");
    }

    let memory = cd_on("memory", &tables, &work.path().join("memory"), &["--window", "5"]);
    let local = cd_on("local", &tables, &work.path().join("local"), &["--window", "5"]);
    assert_eq!(local, memory, "DataFusion and the CSR differ");

    // The authors' package's values (the CSR equals them; `litnav-graph`'s tests hold every one).
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(datasets().join("../reference/aan_cdindex.json")).unwrap())
            .unwrap();
    assert_eq!(local.len(), reference["papers"].as_object().unwrap().len(), "one row per paper");
    let key = reference["deltas"].as_object().unwrap().iter().find(|(_, d)| d.as_u64() == Some(5)).unwrap().0.clone();
    let mut compared = 0;
    for (id, values) in reference["papers"].as_object().unwrap() {
        let expected = values[key.as_str()].as_f64();
        let found = local[id].cd;
        match (found, expected) {
            (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-12, "{id}: {a} vs cdindex {b}"),
            (a, b) => assert_eq!(a, b, "{id}"),
        }
        compared += 1;
    }
    assert!(compared > 10_000);

    // Read back: `relations disruption --results` ranks by the file's values, with its window.
    let results = work.path().join("local/cd.parquet");
    let ranked = litnav(&[
        "relations",
        "disruption",
        "--corpus",
        path(&corpus),
        "--results",
        path(&results),
        "--k",
        "5",
        "--json",
    ]);
    assert!(ranked.status.success(), "{}", stderr(&ranked));
    let computed =
        litnav(&["relations", "disruption", "--corpus", path(&corpus), "--window", "5", "--k", "5", "--json"]);
    assert!(computed.status.success(), "{}", stderr(&computed));
    let (ranked, computed): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&stdout(&ranked)).unwrap(), serde_json::from_str(&stdout(&computed)).unwrap());
    assert_eq!(ranked, computed, "the ranking from the file differs from the one computed");
    let disagreeing =
        litnav(&["relations", "disruption", "--corpus", path(&corpus), "--results", path(&results), "--window", "3"]);
    assert!(!disagreeing.status.success());
    assert!(stderr(&disagreeing).contains("disagrees"), "{}", stderr(&disagreeing));

    // Citation counts: `relations citations --results counts.parquet` ranks (a topic's papers
    // here) as computing them does, percentiles included.
    let run = litnav(&["analytics", "counts", "--parquet", path(&tables), "--out", path(&work.path().join("local"))]);
    assert!(run.status.success(), "{}", stderr(&run));
    let cited = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["relations", "citations", "--corpus", path(&corpus), "--topic", "parsing", "-k", "20"];
        args.extend_from_slice(extra);
        args.push("--json");
        let run = litnav(&args);
        assert!(run.status.success(), "{}", stderr(&run));
        serde_json::from_str(&stdout(&run)).unwrap()
    };
    let from_file = cited(&["--results", path(&work.path().join("local/counts.parquet"))]);
    assert_eq!(from_file, cited(&[]), "the citation ranking from the file differs from the one computed");
    let papers = from_file["papers"].as_array().unwrap();
    assert_eq!(papers.len(), 20);
    assert!(papers.windows(2).all(|w| w[0]["citations"].as_u64() >= w[1]["citations"].as_u64()));
    assert!(papers[0]["citations"].as_u64().unwrap() > 50 && papers[0]["percentile"].as_f64().unwrap() > 99.0);
    let wrong = litnav(&[
        "relations",
        "citations",
        "--corpus",
        path(&corpus),
        "--results",
        path(&work.path().join("local/cd.parquet")),
    ]);
    assert!(!wrong.status.success(), "a CD file read as counts");

    // Co-citation and coupling lists: DataFusion's equal the CSR's, and `relations co-cited |
    // coupled --results` lists a paper's neighbours from the file as they are computed.
    for (relation, query) in [("cocitation", "co-cited"), ("coupling", "coupled")] {
        let memory = related_on("memory", relation, &tables, &work.path().join("memory"), &[]);
        let local = related_on("local", relation, &tables, &work.path().join("local"), &["--groups", "5"]);
        assert_eq!(local, memory, "{relation}: DataFusion and the CSR differ");
        let (id, _) =
            local.lists.iter().max_by_key(|(id, list)| (list[0].count, std::cmp::Reverse(id.as_str()))).unwrap();
        let file = work.path().join(format!("local/{relation}.parquet"));
        let listed =
            litnav(&["relations", query, "--corpus", path(&corpus), id, "-k", "7", "--results", path(&file), "--json"]);
        assert!(listed.status.success(), "{}", stderr(&listed));
        let computed = litnav(&["relations", query, "--corpus", path(&corpus), id, "-k", "7", "--json"]);
        let (listed, computed): (serde_json::Value, serde_json::Value) =
            (serde_json::from_str(&stdout(&listed)).unwrap(), serde_json::from_str(&stdout(&computed)).unwrap());
        assert_eq!(listed, computed, "{relation} of {id}: the file's list differs from the computed one");
        assert_eq!(listed["related"].as_array().unwrap().len(), 7, "{relation} of {id}");
    }
    let wrong = litnav(&[
        "relations",
        "coupled",
        "--corpus",
        path(&corpus),
        "X",
        "--results",
        path(&work.path().join("local/cocitation.parquet")),
    ]);
    assert!(!wrong.status.success() && stderr(&wrong).contains("holds cocitation lists"), "{}", stderr(&wrong));

    // Novelty against the expected null (the plan's) ranks AAN's papers as edge switching (the
    // in-memory default) does: Spearman ≥ 0.95 over the papers both score (0.977 measured).
    let novelty = work.path().join("local-novelty");
    let run = litnav(&["analytics", "novelty", "--parquet", path(&tables), "--out", path(&novelty)]);
    assert!(run.status.success(), "{}", stderr(&run));
    let novelty_by = |extra: &[&str]| -> HashMap<String, f64> {
        let mut args = vec!["relations", "novelty", "--corpus", path(&corpus), "--k", "100000", "--json"];
        args.extend_from_slice(extra);
        let run = litnav(&args);
        assert!(run.status.success(), "{}", stderr(&run));
        let ranking: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
        ranking["papers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["id"].as_str().unwrap().to_string(), p["p10"].as_f64().unwrap()))
            .collect()
    };
    let expected = novelty_by(&["--results", path(&novelty.join("novelty.parquet"))]);
    let switching = novelty_by(&[]);
    let both: Vec<&String> = switching.keys().filter(|id| expected.contains_key(*id)).collect();
    assert!(both.len() > 10_000, "{} papers scored by both", both.len());
    let rho = spearman(
        &both.iter().map(|id| switching[*id]).collect::<Vec<_>>(),
        &both.iter().map(|id| expected[*id]).collect::<Vec<_>>(),
    );
    assert!(rho >= 0.95, "Spearman of the two nulls' novelty: {rho}");
    let disagreeing = litnav(&[
        "relations",
        "novelty",
        "--corpus",
        path(&corpus),
        "--units",
        "references",
        "--results",
        path(&novelty.join("novelty.parquet")),
    ]);
    assert!(!disagreeing.status.success() && stderr(&disagreeing).contains("disagrees"), "{}", stderr(&disagreeing));
}

/// Spearman's rank correlation (ties get their average rank).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(values: &[f64]) -> Vec<f64> {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
        let mut ranks = vec![0.0; values.len()];
        let mut start = 0;
        while start < order.len() {
            let mut end = start;
            while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
                end += 1;
            }
            order[start..=end].iter().for_each(|&i| ranks[i] = (start + end) as f64 / 2.0);
            start = end + 1;
        }
        ranks
    }
    let (a, b) = (ranks(a), ranks(b));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (ma, mb) = (mean(&a), mean(&b));
    let covariance: f64 = a.iter().zip(&b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let spread = |v: &[f64], m: f64| v.iter().map(|x| (x - m).powi(2)).sum::<f64>().sqrt();
    covariance / (spread(&a, ma) * spread(&b, mb))
}

/// Run `litnav analytics cocitation|coupling` (top 10) and read its result back.
fn related_on(engine: &str, relation: &str, tables: &Path, out: &Path, extra: &[&str]) -> related::RelatedResults {
    let mut args = vec!["analytics", relation, "--engine", engine, "--parquet", path(tables), "--out", path(out)];
    args.extend_from_slice(extra);
    let run = litnav(&args);
    assert!(run.status.success(), "{engine} {relation}: {}", stderr(&run));
    related::read(&out.join(format!("{relation}.parquet"))).unwrap()
}

/// A synthetic power-law graph's tables (papers in time order over 1950–2020).
fn synthetic_tables(dir: &Path, papers: usize, refs: usize) {
    let graph = litnav_graph::synthetic::preferential_attachment(papers, refs, 11);
    litnav_analytics::synthetic::write_graph(&graph, dir).unwrap();
}

#[test]
fn a_ballista_cluster_of_three_processes_gives_the_csr_values() {
    let work = tempfile::tempdir().unwrap();
    let tables = work.path().join("tables");
    synthetic_tables(&tables, 20_000, 8);
    let memory = cd_on("memory", &tables, &work.path().join("memory"), &["--window", "5"]);
    let memory_unbounded = cd_on("memory", &tables, &work.path().join("memory-all"), &[]);

    let cluster = LocalCluster::start(&binary(), 2, 1, 1024).unwrap();
    let url = cluster.url();
    // Bounded by a window, the ranges also run as separate jobs. 32 ranges of 3 years over
    // 1950–2020 leave the last 8 empty, which must not become jobs; with one range per job, the
    // first job's range has no reference to an earlier range, which must not leave one of its
    // stages empty. Either hung Ballista's adaptive planner (`cd::job_sql`, `cluster::client`),
    // so each run is bounded.
    let runs =
        [(Some("5"), ["32", "8"], &memory), (Some("5"), ["8", "8"], &memory), (None, ["6", "1"], &memory_unbounded)];
    for (window, cuts, expected) in runs {
        let out = work.path().join(format!("ballista-{window:?}-{}", cuts[1]));
        let mut args = vec!["analytics", "cd", "--engine", "ballista", "--scheduler", &url, "--timeout", "600"];
        args.extend(["--ranges", cuts[0], "--jobs", cuts[1]]);
        args.extend(["--parquet", path(&tables), "--out", path(&out)]);
        if let Some(window) = window {
            args.extend(["--window", window]);
        }
        let run = litnav(&args);
        assert!(run.status.success(), "{}\n{}", stderr(&run), cluster.logs());
        let found: HashMap<String, Disruption> = cd::read(&out.join("cd.parquet")).unwrap().rows.into_iter().collect();
        assert_eq!(&found, expected, "window {window:?}, {} jobs: Ballista and the CSR differ", cuts[1]);
    }
    let memory = related_on("memory", "coupling", &tables, &work.path().join("memory"), &[]);
    let ballista = related_on(
        "ballista",
        "coupling",
        &tables,
        &work.path().join("ballista-coupling"),
        &["--scheduler", &url, "--groups", "5"],
    );
    assert_eq!(ballista, memory, "coupling: Ballista and the CSR differ");

    let novelty_on = |engine: &str, extra: &[&str]| {
        let out = work.path().join(format!("novelty-{engine}"));
        let mut args =
            vec!["analytics", "novelty", "--engine", engine, "--parquet", path(&tables), "--out", path(&out)];
        args.extend_from_slice(extra);
        let run = litnav(&args);
        assert!(run.status.success(), "{engine}: {}\n{}", stderr(&run), cluster.logs());
        let rows = litnav_analytics::novelty::read(&out.join("novelty.parquet")).unwrap().rows;
        rows.into_iter().collect::<HashMap<_, _>>()
    };
    let (memory, ballista) = (novelty_on("memory", &[]), novelty_on("ballista", &["--scheduler", &url]));
    assert_eq!(memory.len(), ballista.len());
    for (id, value) in &memory {
        let found = &ballista[id];
        assert_eq!((found.pairs, found.undefined), (value.pairs, value.undefined), "{id}");
        let close =
            |a: Option<f64>, b: Option<f64>| a.zip(b).is_none_or(|(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1.0));
        assert!(close(found.p10, value.p10) && close(found.median, value.median), "{id}: {found:?} vs {value:?}");
    }
}

#[test]
fn killing_an_executor_mid_job_never_gives_a_partial_result() {
    let work = tempfile::tempdir().unwrap();
    let tables = work.path().join("tables");
    synthetic_tables(&tables, 200_000, 10);
    let expected = cd_on("memory", &tables, &work.path().join("memory"), &[]);
    let mut cluster = LocalCluster::start(&binary(), 2, 1, 2048).unwrap();
    let out = work.path().join("ballista");
    let mut job = std::process::Command::new(binary())
        .args([
            "analytics",
            "cd",
            "--engine",
            "ballista",
            "--scheduler",
            &cluster.url(),
            "--ranges",
            "16",
            "--timeout",
            "120",
        ])
        .args(["--parquet", path(&tables), "--out", path(&out)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Let the job start its tasks on both executors, then take one away.
    std::thread::sleep(std::time::Duration::from_secs(4));
    let finished_early = job.try_wait().unwrap().is_some();
    cluster.kill_executor(0).unwrap();
    // The job's own limit is 120 s; the test's, beyond it, catches a client that ignores it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(200);
    let status = loop {
        if let Some(status) = job.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the job neither finished nor failed in 200 s\n{}",
            cluster.logs()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let output = job.wait_with_output().unwrap();
    let message = String::from_utf8_lossy(&output.stderr).into_owned();
    let result = out.join("cd.parquet");
    if status.success() {
        // Ballista re-ran the lost tasks on the other executor: the whole answer, right.
        let found: HashMap<String, Disruption> = cd::read(&result).unwrap().rows.into_iter().collect();
        assert_eq!(found, expected, "a job that survived the loss gave other values");
        eprintln!("executor killed mid-job (finished before the kill: {finished_early}): the job recovered");
    } else {
        // A failure must say so and leave no result file behind.
        assert!(!result.exists(), "a failed job left {}", result.display());
        assert!(!message.trim().is_empty(), "the job failed without a message");
        eprintln!("executor killed mid-job: the job failed with: {}", message.lines().last().unwrap_or(""));
    }
}

/// One OpenAlex work as the snapshot writes it (the fields litnav reads, and some it does not).
fn openalex_work(number: u64, day: u32, references: &[u64], survey: bool) -> serde_json::Value {
    let words = ["citation", "graphs", "measure", "disruption", "of", "scientific", "work"];
    let mut inverted = serde_json::Map::new();
    for (position, word) in words.iter().enumerate().take(3 + (number % 4) as usize) {
        inverted.insert((*word).to_string(), serde_json::json!([position]));
    }
    let (year, month, day_of_month) = (2000 + day / 365, 1 + (day % 365) / 31, 1 + (day % 28));
    let month = month.min(12);
    serde_json::json!({
        "id": format!("https://openalex.org/W{number}"),
        "doi": format!("https://doi.org/10.1234/w{number}"),
        "title": format!("Work {number} on citation graphs"),
        "display_name": format!("Work {number} on citation graphs"),
        "publication_year": year,
        "publication_date": format!("{year}-{month:02}-{day_of_month:02}"),
        "type": if survey { "review" } else { "article" },
        "cited_by_count": number % 17,
        "abstract_inverted_index": inverted,
        "authorships": [{"author": {"id": "https://openalex.org/A1", "display_name": "Ada Lovelace"}, "author_position": "first"}],
        "primary_location": {"source": {"id": "https://openalex.org/S1", "display_name": "Journal of Graphs"}},
        "referenced_works": references.iter().map(|r| format!("https://openalex.org/W{r}")).collect::<Vec<_>>(),
        "related_works": [],
        "updated_date": "2024-01-01T00:00:00",
    })
}

/// A snapshot-shaped directory: `data/works/updated_date=…/part_00N.gz`, three partitions of
/// two files, 600 works citing earlier works (and a few works outside the snapshot).
fn openalex_snapshot(dir: &Path) -> Vec<PathBuf> {
    let mut rng = litnav_core::rng::SplitMix64(5);
    let mut files = Vec::new();
    let works: Vec<u64> = (0..600).map(|i| 3_000_000_000 + i * 7).collect();
    for (i, &work) in works.iter().enumerate() {
        let file = i % 6;
        if files.len() <= file {
            let partition = dir.join(format!("data/works/updated_date=2024-0{}-01", 1 + file / 2));
            std::fs::create_dir_all(&partition).unwrap();
            files.push((partition.join(format!("part_{:03}.gz", file % 2)), Vec::new()));
        }
        let mut references: Vec<u64> = (0..rng.below(8)).map(|_| works[rng.below(i.max(1))]).collect();
        if rng.below(5) == 0 {
            references.push(99_000_000_000 + i as u64); // outside the snapshot
        }
        references.sort_unstable();
        references.dedup();
        let day = (i as u32) * 12 + rng.below(10) as u32;
        let line = serde_json::to_string(&openalex_work(work, day, &references, i % 50 == 0)).unwrap();
        files[file].1.push(line);
    }
    files
        .into_iter()
        .map(|(path, lines)| {
            let mut gz =
                flate2::write::GzEncoder::new(std::fs::File::create(&path).unwrap(), flate2::Compression::default());
            for line in lines {
                writeln!(gz, "{line}").unwrap();
            }
            gz.finish().unwrap();
            path
        })
        .collect()
}

#[test]
fn an_openalex_snapshot_becomes_tables_whose_cd_equals_the_ingested_corpus() {
    let work = tempfile::tempdir().unwrap();
    let snapshot = work.path().join("snapshot");
    let files = openalex_snapshot(&snapshot);
    let tables = work.path().join("tables");
    let run = litnav(&["ingest", "--openalex-snapshot", path(&snapshot), "--parquet", path(&tables), "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let ingested: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!((ingested["files"].as_u64(), ingested["works"].as_u64()), (Some(6), Some(600)));
    assert_eq!(std::fs::read_dir(tables.join("papers")).unwrap().count(), 6, "one part per snapshot file");
    // Refused: writing over existing tables, and a directory that is no snapshot.
    let again = litnav(&["ingest", "--openalex-snapshot", path(&snapshot), "--parquet", path(&tables)]);
    assert!(!again.status.success() && stderr(&again).contains("not empty"), "{}", stderr(&again));
    let nothing =
        litnav(&["ingest", "--openalex-snapshot", path(work.path()), "--parquet", path(&work.path().join("t2"))]);
    assert!(!nothing.status.success() && stderr(&nothing).contains("updated_date"), "{}", stderr(&nothing));

    // Abstracts rebuilt, dates kept, references as edges: the same graph as ingesting the files
    // as a litnav corpus gives, so the same CD for every work.
    let from_tables = cd_on("local", &tables, &work.path().join("cd"), &["--window", "3"]);
    assert_eq!(from_tables, cd_on("memory", &tables, &work.path().join("cd-memory"), &["--window", "3"]));
    let corpus = work.path().join("corpus");
    let mut args = vec!["ingest".to_string(), "--corpus".into(), path(&corpus).into()];
    args.extend(files.iter().map(|f| path(f).to_string()));
    let run = litnav(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(run.status.success(), "{}", stderr(&run));
    let exported = work.path().join("exported");
    assert!(litnav(&["export", "parquet", "--corpus", path(&corpus), "--out", path(&exported)]).status.success());
    let from_corpus = cd_on("memory", &exported, &work.path().join("cd-corpus"), &["--window", "3"]);
    let papers = litnav_corpus::Corpus::open(&corpus).unwrap().papers().unwrap().to_vec();
    assert_eq!(papers.len(), 600);
    let mut defined = 0;
    for paper in &papers {
        let work_id = &paper.ids["openalex"];
        assert_eq!(from_tables[work_id], from_corpus[&paper.id], "{work_id}");
        defined += usize::from(from_tables[work_id].cd.is_some());
        assert!(paper.abstract_text.as_deref().is_some_and(|a| a.starts_with("citation graphs measure")));
    }
    assert!(defined > 300, "{defined} works with a CD value");
}

#[test]
fn analytics_errors_name_what_is_wrong() {
    let work = tempfile::tempdir().unwrap();
    let run = litnav(&["analytics", "cd", "--parquet", path(work.path()), "--out", path(&work.path().join("o"))]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("no `papers` table"), "{}", stderr(&run));
    synthetic_tables(work.path(), 100, 3);
    let run = litnav(&[
        "analytics",
        "cd",
        "--engine",
        "ballista",
        "--scheduler",
        "df://127.0.0.1:9",
        "--parquet",
        path(work.path()),
        "--out",
        path(&work.path().join("o")),
    ]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("127.0.0.1:9"), "{}", stderr(&run));
    assert!(!work.path().join("o/cd.parquet").exists());
}

#[test]
#[cfg_attr(not(feature = "bench"), ignore = "needs the benchmark harness (feature `bench`)")]
fn bench_scale_says_each_step_and_checks_every_engine_against_the_csr() {
    let work = tempfile::tempdir().unwrap();
    let run = litnav(&[
        "bench",
        "scale",
        "--sizes",
        "3000x4,6000x4",
        "--engines",
        "memory,local",
        "--cuts",
        "4",
        "--jobs",
        "2",
        "--work",
        path(work.path()),
        "--json",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{report}");
    for row in rows.iter().filter(|row| row["engine"] == "local") {
        assert_eq!(row["equal_to_memory"], true, "{row}");
    }
    // A run of minutes per engine says what each engine took as it goes (its steps are drawn
    // only on a terminal).
    let said = stderr(&run);
    for line in ["the in-memory CSR: ", "DataFusion embedded: "] {
        assert_eq!(said.matches(line).count(), 2, "{said}");
    }
    assert_eq!(said.matches("s at 6000 papers, every value equal to the CSR's").count(), 1, "{said}");
    // Runs of a fraction of a second beside other tests can come out in either order, so only
    // that each engine has its fit is certain here.
    let fitted: Vec<&str> =
        report["extrapolations"].as_array().unwrap().iter().map(|e| e["engine"].as_str().unwrap()).collect();
    assert_eq!(fitted, ["memory", "local"], "{report}");
}
