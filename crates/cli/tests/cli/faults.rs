//! Faults a corpus must survive: a disk that fills during ingest or embedding, a SIGKILL during
//! embedding, searches while another process re-ingests, and artifacts damaged on disk. The
//! full-disk tests mount a small tmpfs: they need root (as CI and these machines run) and form the
//! tier `disk-full` — ignored without the feature, failing loudly with it where mounting fails.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A tmpfs mounted for one test, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// A tmpfs of `kib` KiB; the test fails where it cannot be mounted.
    fn mount(kib: u64) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs", path(dir.path())])
            .output();
        match out {
            Ok(out) if out.status.success() => SmallDisk { dir },
            Ok(out) => panic!("tier disk-full: cannot mount a tmpfs here ({}); run as root", stderr(&out).trim()),
            Err(e) => panic!("tier disk-full: cannot run mount ({e})"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fill the disk, then free `kib` KiB of the filler.
    fn leave_free(&self, kib: u64) {
        use std::io::Write;
        let filler = self.path().join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 4096];
        while file.write_all(&block).is_ok() {}
        drop(file);
        let length = std::fs::metadata(&filler).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&filler).unwrap();
        file.set_len(length.saturating_sub(kib * 1024)).unwrap();
    }

    fn free_filler(&self) {
        let _ = std::fs::remove_file(self.path().join("filler"));
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// `count` papers from litbench's corpus in a file of their own.
fn litbench_papers(dir: &Path, count: usize) -> PathBuf {
    let text = std::fs::read_to_string(datasets().join("litbench/corpus.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().take(count).collect();
    let file = dir.join(format!("papers-{count}.jsonl"));
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

/// A JSONL file of `count` distinct synthetic papers (no datasets needed).
fn synthetic_papers(dir: &Path, count: usize) -> PathBuf {
    let mut text = String::new();
    for i in 0..count {
        let record = serde_json::json!({
            "id": format!("s{i}"),
            "title": format!("Synthetic paper {i} on graph learning and retrieval"),
            "abstract": format!("We study problem {i} with a long abstract that takes some room on disk. ").repeat(4),
            "year": 2000 + (i % 20),
        });
        text.push_str(&record.to_string());
        text.push('\n');
    }
    let file = dir.join("synthetic.jsonl");
    std::fs::write(&file, text).unwrap();
    file
}

fn papers_in(corpus: &Path) -> u64 {
    let out = litnav(&["info", "--corpus", path(corpus), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    info["papers"].as_u64().unwrap()
}

#[test]
#[cfg_attr(not(feature = "disk-full"), ignore = "needs root to mount a tmpfs (tier `disk-full`)")]
fn a_disk_that_fills_during_ingest_leaves_the_previous_corpus_readable() {
    let disk = SmallDisk::mount(1024);
    let corpus = disk.path().join("c");
    let mini = fixture("mini");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&mini.join("papers.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let outside = tempfile::tempdir().unwrap();
    let big = synthetic_papers(outside.path(), 6_000);
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&big)]);
    assert_eq!(out.status.code(), Some(1), "an ingest that cannot fit fails");
    let message = stderr(&out);
    assert!(message.contains("No space left on device"), "{message}");
    assert!(message.contains(path(&corpus)), "the error names where it wrote: {message}");
    assert_eq!(papers_in(&corpus), 12, "the previous corpus is still the corpus");
    let out = litnav(&["search", "--mode", "bm25", "--corpus", path(&corpus), "-q", "graph", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The failed generation's files were removed: a small ingest fits again.
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&mini.join("citations.csv"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(papers_in(&corpus), 12);
}

/// The vector cache's size when it holds `records` vectors and nothing else.
fn cache_bytes(records: u64) -> u64 {
    16 + records * (16 + 384 * 4)
}

fn embed_json(corpus: &Path, model: &str) -> serde_json::Value {
    let out = litnav(&["embed", "--corpus", path(corpus), "--model", model, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
#[cfg_attr(
    not(all(feature = "datasets", feature = "disk-full")),
    ignore = "needs ../shared/datasets, the encoder and root to mount a tmpfs (tiers `datasets`, `disk-full`)"
)]
fn a_disk_that_fills_during_embedding_keeps_the_vector_cache_consistent() {
    let model = litnav_embed_model();
    let disk = SmallDisk::mount(16 * 1024);
    let corpus = disk.path().join("c");
    let papers = litbench_papers(disk.path(), 700);
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&papers)]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_file(&papers).unwrap();
    // Room for the first chunk of 512 vectors (~795 KiB), not for the rest.
    disk.leave_free(900);
    let out = litnav(&["embed", "--corpus", path(&corpus), "--model", &model]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(message.contains("No space left on device") && message.contains("all-MiniLM-L6-v2.bin"), "{message}");
    disk.free_filler();
    // What was saved is kept and not encoded again; the torn tail is cut; nothing is duplicated.
    let report = embed_json(&corpus, &model);
    let cached = report["already_cached"].as_u64().unwrap();
    assert!(cached >= 512, "the first chunk was saved: {report}");
    assert_eq!(cached + report["encoded"].as_u64().unwrap(), 700, "{report}");
    let cache = corpus.join("vectors/all-MiniLM-L6-v2.bin");
    assert_eq!(std::fs::metadata(&cache).unwrap().len(), cache_bytes(700));
    let again = embed_json(&corpus, &model);
    assert_eq!((again["already_cached"].as_u64(), again["encoded"].as_u64()), (Some(700), Some(0)));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn sigkill_during_embedding_resumes_without_encoding_again_what_was_saved() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let papers = litbench_papers(dir.path(), 1_100);
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&papers)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let cache = corpus.join("vectors/all-MiniLM-L6-v2.bin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["embed", "--corpus", path(&corpus), "--model", &model, "--threads", "1"])
        .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill as soon as the first chunk of 512 vectors is on disk, while the second is encoded.
    let started = Instant::now();
    while std::fs::metadata(&cache).map_or(0, |m| m.len()) < cache_bytes(512) {
        assert!(started.elapsed() < Duration::from_secs(300), "the first chunk never arrived");
        assert!(child.try_wait().unwrap().is_none(), "embed ended before it could be killed");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let saved = (std::fs::metadata(&cache).unwrap().len() - 16) / (16 + 384 * 4);
    let report = embed_json(&corpus, &model);
    assert_eq!(report["already_cached"].as_u64(), Some(saved), "{report}");
    assert_eq!(report["encoded"].as_u64(), Some(1_100 - saved), "{report}");
    assert_eq!(std::fs::metadata(&cache).unwrap().len(), cache_bytes(1_100));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn searches_during_an_ingest_each_see_one_whole_generation() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&datasets().join("litbench/corpus.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let aan = datasets().join("citations/aan");
    let mut ingest = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["ingest", "--corpus", path(&corpus), path(&aan.join("papers.jsonl")), path(&aan.join("citations.csv"))])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let mut during = 0;
    loop {
        let finished = ingest.try_wait().unwrap().is_some();
        // "statistical machine translation" matches AAN papers only once AAN is in.
        let out = litnav(&[
            "search",
            "--mode",
            "bm25",
            "--corpus",
            path(&corpus),
            "-q",
            "statistical machine translation",
            "--json",
        ]);
        assert!(out.status.success(), "a search during the ingest failed: {}", stderr(&out));
        let papers = papers_in(&corpus);
        assert!(papers == 3_967 || papers == 3_967 + 18_041, "a half-written generation: {papers} papers");
        seen.push(papers);
        during += usize::from(!finished);
        if finished {
            break;
        }
    }
    let out = ingest.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(seen.last(), Some(&(3_967 + 18_041)));
    eprintln!("{during} searches ran during the ingest; papers seen: {seen:?}");
    assert!(during > 0, "no search overlapped the ingest");
}

/// A fresh corpus of the mini fixture with its citations and contexts.
fn mini_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("c");
    let mini = fixture("mini");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&mini.join("papers.jsonl")),
        path(&mini.join("citations.csv")),
        "--contexts",
        path(&mini.join("contexts-a.jsonl")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    corpus
}

/// The current generation's directory.
fn generation(corpus: &Path) -> PathBuf {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap()).unwrap();
    corpus.join(format!("gen-{:06}", manifest["generation"].as_u64().unwrap()))
}

fn truncate_to_half(file: &Path) {
    let length = std::fs::metadata(file).unwrap().len();
    let handle = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    handle.set_len(length / 2).unwrap();
}

#[test]
fn damaged_artifacts_are_errors_that_name_the_file_and_how_to_rebuild_it() {
    type Damage = fn(&Path);
    let cases: [(&str, Damage, &[&str], &str); 8] = [
        ("papers.jsonl", |g| truncate_to_half(&g.join("papers.jsonl")), &["info"], "papers.jsonl"),
        (
            "papers.jsonl cut at a line",
            |g| {
                let text = std::fs::read_to_string(g.join("papers.jsonl")).unwrap();
                let kept: Vec<&str> = text.lines().take(5).collect();
                std::fs::write(g.join("papers.jsonl"), kept.join("\n") + "\n").unwrap();
            },
            &["info"],
            "papers.jsonl",
        ),
        ("topics.jsonl", |g| std::fs::write(g.join("topics.jsonl"), "{\"id\": 3").unwrap(), &["info"], "topics.jsonl"),
        ("graph.bin", |g| truncate_to_half(&g.join("graph/graph.bin")), &["relations", "paper", "m01"], "graph.bin"),
        (
            "contexts.jsonl",
            |g| std::fs::write(g.join("graph/contexts.jsonl"), "not json\n").unwrap(),
            &["relations", "citers", "m01"],
            "contexts.jsonl",
        ),
        (
            "the search index's meta.json",
            |g| std::fs::write(g.join("lexical/meta.json"), "{").unwrap(),
            &["search", "--mode", "bm25", "-q", "graph"],
            "lexical",
        ),
        (
            "a search index segment",
            |g| {
                let segment = std::fs::read_dir(g.join("lexical"))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.extension().is_some_and(|e| e == "idx"))
                    .unwrap();
                truncate_to_half(&segment);
            },
            &["search", "--mode", "bm25", "-q", "graph"],
            "lexical",
        ),
        (
            "the search index, deleted",
            |g| std::fs::remove_dir_all(g.join("lexical")).unwrap(),
            &["search", "--mode", "bm25", "-q", "graph"],
            "lexical",
        ),
    ];
    for (what, damage, command, named) in cases {
        let dir = tempfile::tempdir().unwrap();
        let corpus = mini_corpus(dir.path());
        damage(&generation(&corpus));
        let args: Vec<&str> = command.iter().copied().chain(["--corpus", path(&corpus)]).collect();
        let out = litnav(&args);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{what}: {args:?} must fail cleanly: {message}");
        assert!(message.contains(named), "{what}: the error names {named}: {message}");
        assert!(message.contains("litnav ingest --corpus"), "{what}: the error says how to rebuild: {message}");
        assert!(!message.contains("panicked"), "{what}: {message}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs the encoder (tier `datasets`)")]
fn a_damaged_vector_cache_is_an_error_that_says_how_to_rebuild_it() {
    let model = litnav_embed_model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = mini_corpus(dir.path());
    let cache = corpus.join("vectors/all-MiniLM-L6-v2.bin");
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::write(&cache, b"not a vector cache at all").unwrap();
    let out = litnav(&["embed", "--corpus", path(&corpus), "--model", &model]);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(message.contains("all-MiniLM-L6-v2.bin") && message.contains("delete it to rebuild"), "{message}");
}
