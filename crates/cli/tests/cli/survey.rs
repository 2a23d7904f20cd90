//! `litnav eval survey` and `litnav ingest --surveys`: Bloom-Eval's metrics on the repository's
//! small survey pair (values computed by hand), on Bloom-Eval's own cs_01 pair (against what
//! Bloom-Eval's scripts report), and the 14 expert surveys' citation contexts in litbench.

use crate::util::*;

fn survey_eval(args: &[&str]) -> serde_json::Value {
    let out = litnav(&[&["eval", "survey"][..], args, &["--json"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn metric<'a>(report: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    report["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["metrics"].as_array().unwrap())
        .find(|m| m["key"] == key)
        .unwrap()
}

fn close(value: &serde_json::Value, expected: f64) -> bool {
    (value.as_f64().unwrap() - expected).abs() < 1e-12
}

#[test]
fn the_deterministic_metrics_by_hand_on_a_small_pair() {
    let (expert, generated) = (fixture("survey/expert"), fixture("survey/generated.md"));
    let report =
        survey_eval(&["--expert", path(&expert), "--generated", path(&generated), "--metrics", "HIRC,FMI,DSI,SCons"]);
    // HIRC: the expert's high-impact references are 1, 2, 3 and 5 (cited more than 50 times); the
    // generated survey cites 1–4, of which 1–3 are the expert's: P = R = 3/4.
    let hirc = metric(&report, "HIRC");
    assert!(close(&hirc["precision"], 0.75) && close(&hirc["recall"], 0.75) && close(&hirc["f1"], 0.75), "{hirc}");
    // FMI: generated cites {1,2,3,4,9}, defines {1..5}: 4/6; expert cites {1..5}, defines {1..6}: 5/6.
    let fmi = metric(&report, "FMI");
    assert!(close(&fmi["generated"], 4.0 / 6.0) && close(&fmi["expert"], 5.0 / 6.0), "{fmi}");
    assert_eq!(fmi["evidence"]["generated"]["cited_not_defined"], serde_json::json!(["[9]"]));
    // DSI: abstract, introduction, conclusion for the expert; introduction, conclusion, references
    // for the generated survey.
    let dsi = metric(&report, "DSI");
    assert!(close(&dsi["expert"], 0.75) && close(&dsi["generated"], 0.75), "{dsi}");
    // SCons: depths 3 and 2, headings 7 and 4: √(2/3 · 4/7).
    assert!(close(&metric(&report, "SCons")["score"], (8.0f64 / 21.0).sqrt()));
    // The Application tier's mean is over the metrics that ran: (FMI 4/6 + DSI 0.75) / 2.
    let application = &report["tiers"][2];
    assert_eq!((application["computed"].as_u64(), application["metrics_total"].as_u64()), (Some(2), Some(2)));
    assert!(close(&application["mean"], (4.0 / 6.0 + 0.75) / 2.0));
    assert_eq!(report["generated"]["problems"]["dangling_markers"], serde_json::json!(["[9]"]));
    assert_eq!(report["generated"]["problems"]["unused_entries"], serde_json::json!(["[5]"]));
    // The scripts' HIRC counts every listed reference: P = 3/5.
    let compat = survey_eval(&[
        "--expert",
        path(&expert),
        "--generated",
        path(&generated),
        "--metrics",
        "HIRC",
        "--compat",
        "bloom-eval",
    ]);
    assert!(close(&metric(&compat, "HIRC")["precision"], 0.6));
    // Without an endpoint the LLM metrics are listed as not run, never as zero.
    let all =
        survey_eval(&["--expert", path(&expert), "--generated", path(&generated), "--metrics", "EFid,CF,ROQ,FMI"]);
    for key in ["EFid", "CF", "ROQ"] {
        let m = metric(&all, key);
        assert_eq!(m["status"], "not_run", "{m}");
        assert!(m["score"].is_null() && m["reason"].as_str().unwrap().contains("no LLM endpoint"));
    }
}

#[test]
fn bad_surveys_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let expert = fixture("survey/expert");
    let empty = dir.path().join("empty.md");
    std::fs::write(&empty, "  \n").unwrap();
    let broken = dir.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("content.json"), "[\"# T\\n\\ntext\"]").unwrap();
    std::fs::write(broken.join("reference.json"), "{\"reference_1\": {\"title\": \"A\"},\n \"reference_2\": }")
        .unwrap();
    for (generated, message) in [
        (dir.path().join("missing.md"), "missing.md"),
        (empty.clone(), "empty.md: the survey is empty"),
        (broken.clone(), "reference.json:2:"),
        (dir.path().to_path_buf(), "no content.json here"),
    ] {
        let out = litnav(&["eval", "survey", "--expert", path(&expert), "--generated", path(&generated)]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(message), "{message}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"));
    }
    let out = litnav(&["eval", "survey", "--expert", path(&expert), "--generated", path(&expert), "--metrics", "XYZ"]);
    assert!(stderr(&out).contains("`XYZ` is not one of Bloom-Eval's 16 metrics"), "{}", stderr(&out));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn cs_01s_llm_survey_scores_as_bloom_evals_scripts_score_it() {
    let model = litnav_embed_model();
    let cs01 = datasets().join("bloom-eval/cs_01");
    let args = ["--metrics", "HIRC,FMI,DSI,SCons,STS,TBal", "--model", model.as_str()];
    let report = survey_eval(
        &[&["--expert", path(&cs01.join("human")), "--generated", path(&cs01.join("llm"))][..], &args].concat(),
    );
    let near = |value: &serde_json::Value, expected: f64, tolerance: f64| {
        (value.as_f64().unwrap() - expected).abs() <= tolerance
    };
    // The values Bloom-Eval's scripts print for this pair (../shared/peers/README.md and the issue).
    assert!(near(&metric(&report, "HIRC")["f1"], 0.0451, 5e-5));
    assert!(near(&metric(&report, "DSI")["expert"], 0.5, 0.0) && near(&metric(&report, "DSI")["generated"], 0.0, 0.0));
    assert!(
        near(&metric(&report, "FMI")["expert"], 0.9551, 5e-5) && near(&metric(&report, "FMI")["generated"], 1.0, 0.0)
    );
    assert!(near(&metric(&report, "SCons")["score"], 0.5494, 5e-5));
    assert!((0.0..=1.0).contains(&metric(&report, "STS")["score"].as_f64().unwrap()));
    // The same survey as Markdown: the values read from the same information agree.
    let markdown = cs01.join("llm/A Survey on Vision Transformers.md");
    let from_md =
        survey_eval(&[&["--expert", path(&cs01.join("human")), "--generated", path(&markdown)][..], &args].concat());
    assert_eq!(metric(&from_md, "HIRC")["f1"], metric(&report, "HIRC")["f1"]);
    assert_eq!(metric(&from_md, "FMI")["generated"], metric(&report, "FMI")["generated"]);
    // A survey against itself: STS and SCons are 1, HIRC recall is 1, both sides equal.
    let itself = survey_eval(
        &[&["--expert", path(&cs01.join("human")), "--generated", path(&cs01.join("human"))][..], &args].concat(),
    );
    assert!(near(&metric(&itself, "STS")["score"], 1.0, 1e-6));
    assert_eq!(metric(&itself, "SCons")["score"], 1.0);
    // Every high-impact reference is found when every listed reference counts (the scripts' way);
    // the seed counts only the references the text cites, and cs_01 never cites ten of its high-impact ones.
    let hirc = |compat: &str| {
        let report = survey_eval(&[
            "--expert",
            path(&cs01.join("human")),
            "--generated",
            path(&cs01.join("human")),
            "--metrics",
            "HIRC",
            "--compat",
            compat,
        ]);
        metric(&report, "HIRC")["recall"].as_f64().unwrap()
    };
    assert_eq!((hirc("bloom-eval"), hirc("seed")), (1.0, 214.0 / 224.0));
    for key in ["FMI", "DSI", "TBal"] {
        assert_eq!(metric(&itself, key)["expert"], metric(&itself, key)["generated"], "{key}");
    }
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn the_fourteen_expert_surveys_give_litbench_its_citation_contexts() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let litbench = datasets().join("litbench");
    let mut surveys: Vec<std::path::PathBuf> = std::fs::read_dir(datasets().join("bloom-eval"))
        .unwrap()
        .map(|e| e.unwrap().path().join("human"))
        .filter(|p| p.is_dir())
        .collect();
    surveys.sort();
    let (papers, topics) = (litbench.join("corpus.jsonl"), litbench.join("topics.jsonl"));
    let mut args = vec!["ingest", "--corpus", path(&corpus), path(&papers), path(&topics), "--json", "--surveys"];
    args.extend(surveys.iter().map(|p| path(p)));
    let out = litnav(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let surveys = report["surveys"].as_array().unwrap();
    assert_eq!(surveys.len(), 14);
    for s in surveys {
        assert_eq!(s["resolved"], s["references"], "litbench holds every reference of its surveys: {s}");
        assert!(s["citing_id"].as_str().unwrap().starts_with(['c', 'g']), "the survey cites as its topic: {s}");
    }
    let contexts: u64 = surveys.iter().map(|s| s["contexts"].as_u64().unwrap()).sum();
    assert_eq!(contexts, 4000);
    assert_eq!(surveys[0]["citing_id"], "cs_01");
    assert_eq!((surveys[0]["contexts"].as_u64(), surveys[0]["paragraphs"].as_u64()), (Some(344), Some(84)));
    // SciNet's pair-wise relations now have real data: papers co-mentioned with ViT.
    let vit = std::fs::read_to_string(litbench.join("corpus.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|p| p["title"].as_str().unwrap().starts_with("An image is worth 16x16"))
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = litnav(&["relations", "co-mentioned", "--corpus", path(&corpus), &vit, "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["co_mentioned"][0]["title"], "Attention is all you need");
    let out = litnav(&["relations", "citers", "--corpus", path(&corpus), &vit, "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cs01 = report["citers"].as_array().unwrap().iter().find(|c| c["id"] == "cs_01").unwrap();
    assert_eq!(cs01["title"], "A Survey on Vision Transformer");
    assert!(cs01["mentions"].as_u64().unwrap() >= 3 && cs01["context"].is_string(), "{cs01}");
}

#[test]
#[cfg_attr(not(feature = "llm-server"), ignore = "needs the local llama.cpp server (tier `llm-server`)")]
fn the_llm_metrics_on_a_real_server_and_again_from_its_cache() {
    let url = llm_server();
    let home = tempfile::tempdir().unwrap();
    let trace = home.path().join("trace.json");
    let (expert, generated) = (fixture("survey/expert"), fixture("survey/generated.md"));
    let run = |extra: &[&str]| {
        let args = [
            &[
                "eval",
                "survey",
                "--expert",
                path(&expert),
                "--generated",
                path(&generated),
                "--metrics",
                "OTC,CF,SCS,ROQ",
            ][..],
            &["--llm", "--llm-url", &url, "--llm-timeout", "600", "--trace", path(&trace), "--json"],
            extra,
        ]
        .concat();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_litnav"))
            .args(&args)
            .env("LITNAV_HOME", home.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()
    };
    let live = run(&[]);
    // The server's grammar keeps every matching and verdict inside the schema, so these compute.
    for key in ["OTC", "CF"] {
        let m = metric(&live, key);
        assert_eq!(m["status"], "computed", "{m}");
        for part in ["precision", "recall", "f1"] {
            assert!((0.0..=1.0).contains(&m[part].as_f64().unwrap()), "{key} {part}: {m}");
        }
    }
    assert_eq!(
        metric(&live, "CF")["evidence"]["citations_checked"].as_u64().unwrap()
            + metric(&live, "CF")["evidence"].get("invalid_steps").map_or(0, |n| n.as_u64().unwrap()),
        7
    );
    let steps: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    // A small model's answers to these may or may not validate. Whichever it gives, the report
    // must agree with its trace: a value only from valid answers, a failure only after an invalid
    // one, saying so (each outcome is tested on its own against the deterministic endpoint:
    // litnav-score's `survey` tests).
    for key in ["SCS", "ROQ"] {
        let m = metric(&live, key);
        let own: Vec<&serde_json::Value> = steps.iter().filter(|s| s["metric"] == key).collect();
        let valid = own.iter().filter(|s| s["error"].is_null()).count();
        assert!(!own.is_empty(), "{key} has its steps in the trace");
        if m["status"] == "computed" {
            assert!(valid > 0, "{key} has a value from no valid answer: {m}");
        } else {
            assert!(valid < own.len(), "{key} failed with every answer valid: {m}");
            assert!(m["reason"].as_str().unwrap().contains("invalid"), "{key}: {m}");
        }
    }
    for key in ["OTC", "CF", "SCS", "ROQ"] {
        assert!(steps.iter().any(|s| s["metric"] == key), "{key} has its steps in the trace");
    }
    assert!(live["llm_usage"]["calls"].as_u64().unwrap() >= steps.len() as u64);
    // Offline, every answer comes from the cache: the same report without a call.
    let replay = run(&["--llm-offline"]);
    assert_eq!(replay["tiers"], live["tiers"]);
    assert_eq!(
        (&replay["llm_usage"]["calls"], &replay["llm_usage"]["cache_hits"]),
        (&serde_json::json!(0), &live["llm_usage"]["calls"])
    );
}
