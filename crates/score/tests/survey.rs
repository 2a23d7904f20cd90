//! Bloom-Eval's LLM metrics through the application layer, against a scripted endpoint whose
//! answers make each metric computable by hand. The real model is tested in the CLI's tests.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_llm::fake::{Behaviour, FakeServer, serve_with};
use litnav_score::survey::{Metric, MetricScore, Status, SurveyOptions, SurveyReport, evaluate, read_survey};
use litnav_session::{LlmOptions, Settings, Workspace};
use litnav_testkit::fixture;
use serde_json::{Value, json};
use std::collections::HashMap;

/// A workspace whose home is `home`, with the shared encoder.
fn workspace(home: &std::path::Path, encoder: bool) -> Workspace {
    let mut env = HashMap::from([("LITNAV_HOME".to_string(), home.to_string_lossy().to_string())]);
    if encoder {
        env.insert("LITNAV_MODEL".into(), litnav_testkit::model_dir().to_string_lossy().to_string());
    }
    Workspace::new(Settings::from_vars(&env, None).unwrap())
}

/// The user message of a chat request.
fn prompt(request: &Value) -> String {
    request["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap_or_default()).collect()
}

/// An endpoint that answers each Bloom-Eval step as a careful reader would on these small
/// surveys: the same entities and statement for every passage, the first (closest) candidate of
/// every match, every citation supported, and one redundant pair per outline.
fn scripted_reader() -> FakeServer {
    serve_with(|_, request| {
        let task = request["response_format"]["json_schema"]["name"].as_str().unwrap_or_default().to_string();
        let text = prompt(request);
        let answer = match task.as_str() {
            "survey_entities" => {
                json!({"methods_models": ["message passing"], "datasets": [], "evaluation_metrics": []})
            }
            t if t.ends_with("_statements") => {
                json!({"statements": ["Message passing aggregates neighbour features."]})
            }
            "survey_matching" => {
                let items = &request["response_format"]["json_schema"]["schema"]["properties"]["matches"]["minItems"];
                json!({"matches": vec![1; items.as_u64().unwrap() as usize]})
            }
            "citation_support" => json!({"supported": true, "reason": "The title says so."}),
            // The expert outline (it has "Message Passing" under "Methods"): a pair in two
            // branches; the generated one: a pair of siblings, which is not a redundancy.
            "redundant_headings" if text.contains("Message Passing") => json!({"pairs": [["H1_3_1", "H1_2"]]}),
            "redundant_headings" => json!({"pairs": [["H1_1", "H1_3"]]}),
            t if t.starts_with("grade_rubric_") => {
                json!({"criteria": [{"criterion": "Organizes the field", "weight": 2}]})
            }
            "grade_compare" => {
                json!({"scores": [{"criterion": 1, "generated": 3, "expert": 9, "evidence": "E has a taxonomy"}]})
            }
            other => return Behaviour::Status(400, format!("unexpected task {other}")),
        };
        Behaviour::Answer(answer.to_string())
    })
    .unwrap()
}

fn run(workspace: &Workspace, server_url: &str, expert: &str, generated: &str, metrics: &[Metric]) -> SurveyReport {
    let client =
        workspace.llm(&LlmOptions { url: Some(server_url.into()), no_cache: true, ..LlmOptions::default() }).unwrap();
    let options =
        SurveyOptions { metrics: metrics.iter().copied().collect(), extras: false, ..SurveyOptions::default() };
    let (expert, generated) =
        (read_survey(&fixture(expert), None).unwrap(), read_survey(&fixture(generated), None).unwrap());
    evaluate(workspace, &expert, &generated, &options, Some(&client), &litnav_session::Quiet).unwrap()
}

fn metric<'a>(report: &'a SurveyReport, key: &str) -> &'a MetricScore {
    report.metric(key).unwrap()
}

#[test]
fn citation_faithfulness_structural_clarity_and_grade_by_hand() {
    let home = tempfile::tempdir().unwrap();
    let server = scripted_reader();
    let report = run(
        &workspace(home.path(), false),
        &server.url,
        "survey/expert",
        "survey/generated.md",
        &[Metric::Cf, Metric::Scs, Metric::Fap, Metric::FNov, Metric::Roq],
    );
    // CF: five sentences cite entries ([9] is dangling), seven citations, all supported: every
    // sentence is supported (R = 1); three sentences rest on one citation (P = 3/7); F1 = 0.6.
    let cf = metric(&report, "CF");
    assert_eq!((cf.precision, cf.recall), (Some(3.0 / 7.0), Some(1.0)), "{cf:?}");
    assert!((cf.f1.unwrap() - 0.6).abs() < 1e-12);
    assert_eq!(cf.evidence["citing_sentences"], 5);
    // SCS: the expert's pair is in two branches (1 − 1/7 over its seven headings with the title);
    // the generated survey's pair shares a parent and is dropped.
    let scs = metric(&report, "SCS");
    assert_eq!((scs.expert, scs.generated), (Some(1.0 - 1.0 / 7.0), Some(1.0)), "{scs:?}");
    // GRADE: G = 2·3, H = 2·9: 6 / 24.
    for key in ["FAP", "FNov", "ROQ"] {
        assert_eq!(metric(&report, key).score, Some(0.25), "{key}");
    }
    // Every step is in the trace, with its answer.
    assert!(report.trace.iter().any(|s| s.metric == "CF" && s.answer.contains("supported")));
    assert_eq!(report.llm_usage.as_ref().unwrap().calls, 7 + 2 + 3 * 2);
}

#[test]
fn an_endpoint_that_is_down_fails_one_metric_and_skips_the_rest() {
    let home = tempfile::tempdir().unwrap();
    // A port that nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let report = run(
        &workspace(home.path(), false),
        &url,
        "survey/expert",
        "survey/generated.md",
        &[Metric::Cf, Metric::Scs, Metric::Roq, Metric::Fmi],
    );
    let failed = metric(&report, "CF");
    assert_eq!(failed.status, Status::Failed);
    assert!(failed.reason.as_deref().unwrap().contains(&port.to_string()), "{failed:?}");
    for key in ["SCS", "ROQ"] {
        let skipped = metric(&report, key);
        assert_eq!(skipped.status, Status::NotRun);
        assert!(skipped.reason.as_deref().unwrap().starts_with("the LLM endpoint failed earlier"));
        assert_eq!(skipped.score, None);
    }
    assert_eq!(metric(&report, "FMI").status, Status::Computed, "the deterministic metrics still run");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs the encoder (tier `datasets`)")]
fn a_survey_against_itself_matches_everything() {
    let home = tempfile::tempdir().unwrap();
    let server = scripted_reader();
    let metrics = [Metric::EFid, Metric::FCons, Metric::Caa, Metric::Otc, Metric::TfSim];
    let report = run(&workspace(home.path(), true), &server.url, "survey/expert", "survey/expert", &metrics);
    // The closest candidate of an item is itself, and the reader takes it: P = R = F1 = 1.
    for key in ["EFid", "FCons", "CAA", "OTC", "TFSim"] {
        let m = metric(&report, key);
        assert_eq!((m.precision, m.recall, m.f1), (Some(1.0), Some(1.0), Some(1.0)), "{key}: {m:?}");
    }
    // OTC matched the six headings below the title to themselves.
    let otc = metric(&report, "OTC");
    assert_eq!(otc.evidence["expert_headings"], 6);
    assert!(otc.evidence["matched"].as_array().unwrap().iter().all(|m| m["generated"] == m["expert"]));
    // EFid's one entity occurs as often on both sides: DS = 1, so the score is 1.
    let efid = metric(&report, "EFid");
    assert_eq!((efid.ds, efid.score), (Some(1.0), Some(1.0)));
    // TFSim: litnav's themes of the same bibliography, matched to themselves, the same sizes.
    let tfsim = metric(&report, "TFSim");
    assert_eq!((tfsim.ds, tfsim.score), (Some(1.0), Some(1.0)), "{tfsim:?}");
    // Against the generated survey, only what the reader finds in both counts.
    let report =
        run(&workspace(home.path(), true), &server.url, "survey/expert", "survey/generated.md", &[Metric::Otc]);
    let otc = metric(&report, "OTC");
    assert_eq!(
        otc.evidence["generated_headings"], 3,
        "Introduction, Approaches, Conclusion (the references are no topic)"
    );
    assert!(otc.precision.unwrap() <= 1.0 && otc.recall.unwrap() < 1.0, "{otc:?}");
}

#[test]
fn answers_that_stay_invalid_never_score() {
    let home = tempfile::tempdir().unwrap();
    // Ids outside the outline and verdicts without a reason, before and after each repair.
    let server = serve_with(|_, request| {
        let answer = match request["response_format"]["json_schema"]["name"].as_str().unwrap_or_default() {
            "redundant_headings" => json!({"pairs": [["H7", "H8"]]}),
            _ => json!({"supported": true, "reason": " "}),
        };
        Behaviour::Answer(answer.to_string())
    })
    .unwrap();
    let report = run(
        &workspace(home.path(), false),
        &server.url,
        "survey/expert",
        "survey/generated.md",
        &[Metric::Cf, Metric::Scs],
    );
    let cf = metric(&report, "CF");
    assert_eq!((cf.status, cf.score), (Status::Failed, None));
    assert!(cf.reason.as_deref().unwrap().contains("all 7 of the model's answers"), "{cf:?}");
    let scs = metric(&report, "SCS");
    assert_eq!((scs.status, scs.score), (Status::Failed, None), "an outline nobody judged is not perfectly clear");
    assert_eq!(report.trace.iter().filter(|s| s.error.is_some()).count(), 7 + 2);
}
