//! The application layer on the repository's own fixtures: sessions, ingest, relations, scoring.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_app::relations::{Measure, MetricOptions, Neighbourhood, RankRequest};
use litnav_app::{IngestRequest, Settings, Workspace};
use litnav_core::{ErrorKind, HasKind};
use litnav_testkit::fixture;
use std::collections::HashMap;

/// A workspace whose home is `home` (nothing of the developer's settings leaks in).
fn workspace(home: &std::path::Path) -> Workspace {
    let env = HashMap::from([("LITNAV_HOME".to_string(), home.to_string_lossy().to_string())]);
    Workspace::new(Settings::from_vars(&env, None).unwrap())
}

fn ingest(workspace: &Workspace, dir: &std::path::Path, files: &[&str], contexts: &[&str]) {
    let request = IngestRequest {
        files: files.iter().map(|f| fixture(&format!("mini/{f}"))).collect(),
        contexts: contexts.iter().map(|f| fixture(&format!("mini/{f}"))).collect(),
        ..IngestRequest::default()
    };
    workspace.ingest(dir, &request).unwrap();
}

/// A client of `server` that neither reads nor writes the response cache.
fn uncached_client(workspace: &Workspace, server: &litnav_llm::fake::FakeServer) -> litnav_llm::Client {
    let options = litnav_app::LlmOptions { url: Some(server.url.clone()), no_cache: true, ..Default::default() };
    workspace.llm(&options).unwrap()
}

/// Write `text` to `dir/name`; its path.
fn write_file(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_session_reads_one_generation_while_the_corpus_is_reingested() {
    let home = tempfile::tempdir().unwrap();
    let workspace = workspace(home.path());
    let dir = home.path().join("c");
    ingest(&workspace, &dir, &["papers.jsonl"], &[]);
    let session = workspace.open(Some(&dir), &litnav_app::Quiet).unwrap();
    // Re-ingested with citation edges twice while the session lives; the session's graph, loaded
    // lazily only now, is its own generation's: no edges.
    ingest(&workspace, &dir, &["papers.jsonl", "citations.csv"], &[]);
    ingest(&workspace, &dir, &["papers.jsonl", "citations.csv"], &["contexts-a.jsonl"]);
    assert_eq!(session.citations().unwrap().graph.edge_count(), 0);
    assert_eq!(session.len(), 12);
    // A new session sees the new generation.
    let fresh = workspace.open(Some(&dir), &litnav_app::Quiet).unwrap();
    assert_eq!(fresh.citations().unwrap().graph.edge_count(), 20);
    assert_eq!(fresh.citations().unwrap().contexts.len(), 2);
}

#[test]
fn relations_by_hand_on_the_mini_graph() {
    let home = tempfile::tempdir().unwrap();
    let workspace = workspace(home.path());
    let dir = home.path().join("c");
    ingest(&workspace, &dir, &["papers.jsonl", "citations.csv"], &["contexts-a.jsonl", "contexts-b.jsonl"]);
    let session = workspace.open(Some(&dir), &litnav_app::Quiet).unwrap();
    // m06 is cited by m07, m08 and m09; m08 also cites m07 and m09 also cites m01: each is
    // co-cited with m06 once.
    let co = session.neighbours("m06", Neighbourhood::CoCited, 5).unwrap();
    let mut ids: Vec<(&str, usize)> = co.related.iter().map(|r| (r.paper.id.as_str(), r.count)).collect();
    ids.sort();
    assert_eq!(ids, [("m01", 1), ("m07", 1)]);
    // m03 cites m01, m02, m12; m02 cites m01, m12: they share two references.
    let pair = session.pair("m03", "m02").unwrap();
    assert_eq!((pair.relation.cites, pair.relation.shared_references), (true, 2));
    let path = session.path("m05", "m12", 4, 10).unwrap();
    assert_eq!(path.citation_distance, Some(2));
    let ranking = session
        .rank(&RankRequest {
            measure: Measure::Disruption,
            topic: None,
            pool: 10,
            k: 3,
            scinet_form: false,
            metric: MetricOptions::default(),
        })
        .unwrap();
    assert_eq!(ranking.candidates, 12);
    assert!(ranking.papers.windows(2).all(|w| w[0].score >= w[1].score));
    let citers = session.citers("m01", Some(litnav_core::Sentiment::Negative), None, &litnav_app::Quiet).unwrap();
    assert_eq!(citers.citers.len(), 1);
    assert_eq!(citers.citers[0].paper.id, "m09");
    assert!(citers.citers[0].context.as_deref().is_some_and(|c| c.contains("pockets")));
    let error = session.profile("nope", &MetricOptions::default()).err().unwrap();
    assert_eq!(error.kind(), ErrorKind::NotFound);
    assert!(error.to_string().contains("no paper with id `nope`"));
}

#[test]
fn ingest_failures_keep_the_corpus_and_say_why() {
    let home = tempfile::tempdir().unwrap();
    let workspace = workspace(home.path());
    let dir = home.path().join("c");
    ingest(&workspace, &dir, &["papers.jsonl"], &[]);
    let bad = home.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\": \"x\"}\n").unwrap();
    let request = IngestRequest { files: vec![bad], ..IngestRequest::default() };
    let error = workspace.ingest(&dir, &request).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Input);
    assert!(error.to_string().contains("the corpus is unchanged"));
    assert_eq!(workspace.open(Some(&dir), &litnav_app::Quiet).unwrap().len(), 12);
}

/// SciNet's LLM judgements through the scorers, against a scripted endpoint: every unlabelled
/// mention positive, every path 7, every paper 4.
#[test]
fn scinet_llm_judgements_by_hand() {
    use litnav_app::score::{pairwise, scinet};
    use litnav_llm::fake::{Behaviour, serve_with};
    let home = tempfile::tempdir().unwrap();
    let workspace = workspace(home.path());
    let dir = home.path().join("c");
    ingest(&workspace, &dir, &["papers.jsonl", "citations.csv"], &["contexts-a.jsonl", "contexts-b.jsonl"]);
    let session = workspace.open(Some(&dir), &litnav_app::Quiet).unwrap();
    let server = serve_with(|_, request| {
        let answer = match request["response_format"]["json_schema"]["name"].as_str().unwrap_or_default() {
            "citation_sentiment" => serde_json::json!({"sentiment": "positive", "reason": "builds on it"}),
            "path_judge" => serde_json::json!({"score": 7, "reason": "step 2 is a leap"}),
            "paper_disruption" => serde_json::json!({"score": 4, "reason": "extends a line of work"}),
            other => return Behaviour::Status(400, format!("unexpected {other}")),
        };
        Behaviour::Answer(answer.to_string())
    })
    .unwrap();
    let client = uncached_client(&workspace, &server);
    let write = |name: &str, text: &str| write_file(home.path(), name, text);
    // m05 cites m02 in a mention nobody labelled: without the LLM it cannot count, with it it does.
    let queries =
        write("q.jsonl", "{\"id\": \"q\", \"paper\": \"m02\", \"task\": \"cite\", \"sentiment\": \"positive\"}\n");
    let answers = write("a.jsonl", "{\"id\": \"q\", \"retrieved\": [\"m05\"]}\n");
    let plain = pairwise::score_pairs(&session, &queries, &answers, 50, None, &litnav_app::Quiet).unwrap();
    assert_eq!((plain.cite_acc, plain.cite_sentiment), (Some(1.0), Some(0.0)));
    let judged = pairwise::score_pairs(&session, &queries, &answers, 50, Some(&client), &litnav_app::Quiet).unwrap();
    assert_eq!((judged.cite_sentiment, judged.labelled_by_llm), (Some(1.0), 1));
    // Rationality of a retrieved path.
    let paths = write("p.jsonl", "{\"source\": \"m01\", \"target\": \"m05\", \"retrieved\": [\"m02\", \"m03\"]}\n");
    let scored = scinet::score_paths(&session, &paths, 4, Some(&client), &litnav_app::Quiet).unwrap();
    assert_eq!((scored.rationality, scored.per_query[0].rationality), (Some(7.0), Some(7)));
    // Disruption-LLM: the two retrieved corpus papers rated 4 (the third is no paper).
    let ego = write("e.jsonl", "{\"topic\": \"molecules\", \"retrieved\": [\"m01\", \"m02\", \"zzz\"]}\n");
    let scored =
        scinet::score_ego(&session, &ego, Measure::Disruption, 50, 10, Some(&client), &litnav_app::Quiet).unwrap();
    assert_eq!((scored.llm_score, scored.per_query[0].llm_rated), (Some(4.0), 2));
    let calls = server.requests.lock().unwrap().len();
    assert_eq!(calls, 1 + 1 + 2, "one label, one path, two papers");
}

/// TaxoBench's LLM-as-Judge in batch: every predicted tree against its expert tree, against a
/// scripted endpoint that scores by what it was shown; a failing instance is reported, the others
/// judged; the score lines feed the agreement statistics.
#[test]
fn batch_tree_judge_against_the_expert_trees() {
    use litnav_llm::fake::{Behaviour, serve_with};
    let home = tempfile::tempdir().unwrap();
    let workspace = workspace(home.path());
    let server = serve_with(|_, request| {
        let prompt = request["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        if request["response_format"]["json_schema"]["name"] != "tree_judge_against_expert" {
            return Behaviour::Status(400, "unexpected task".into());
        }
        if prompt.contains("Broken") {
            return Behaviour::Answer("no JSON here".into());
        }
        // The expert's outline and the candidate's are both in the prompt.
        let coverage = if prompt.contains("Expert A") && prompt.contains("Candidate A") { 4 } else { 1 };
        let dimension = |score: u8| serde_json::json!({"score": score, "reason": "names the nodes"});
        Behaviour::Answer(
            serde_json::json!({
                "coverage": dimension(coverage), "sibling_organization": dimension(3),
                "hierarchical_logic": dimension(3), "topology": dimension(2)
            })
            .to_string(),
        )
    })
    .unwrap();
    let client = uncached_client(&workspace, &server);
    let write = |name: &str, text: &str| write_file(home.path(), name, text);
    let data = write(
        "data.jsonl",
        concat!(
            r#"{"id": 1, "survey_topic": "Topic one", "gt": {"name": "Expert A", "subtopics": [{"name": "x", "papers": ["p"]}]}}"#,
            "\n",
            r#"{"id": 2, "survey_topic": "Topic two", "gt": {"name": "Expert B", "subtopics": [{"name": "y", "papers": ["q"]}]}}"#,
            "\n",
            r#"{"id": 3, "survey_topic": "Topic three", "gt": {"name": "Expert C", "papers": ["r"]}}"#,
            "\n"
        ),
    );
    let predictions = write(
        "predictions.jsonl",
        concat!(
            r#"{"id": 1, "hierarchy_tree": {"name": "Candidate A", "papers": ["p"]}}"#,
            "\n",
            r#"{"id": 2, "hierarchy_tree": {"name": "Candidate B", "papers": ["q"]}}"#,
            "\n",
            r#"{"id": 3, "hierarchy_tree": {"name": "Broken", "papers": ["r"]}}"#,
            "\n"
        ),
    );
    let batch = litnav_app::judge::judge_predictions(&client, &data, &predictions, 3, &litnav_app::Quiet).unwrap();
    assert_eq!(batch.judged.len(), 2);
    assert_eq!(batch.judged[0].scores["coverage"], 4);
    assert_eq!(batch.judged[1].scores["coverage"], 1);
    assert_eq!(batch.means["coverage"], 2.5);
    assert_eq!(batch.means["topology"], 2.0);
    assert!(batch.problems.iter().any(|p| p.starts_with("instance 3 not judged")), "{:?}", batch.problems);
    assert!(batch.judged[0].verdict.topic == "Topic one");
    // Against a "human" file: coverage agrees on both items (κ = 1), topology is constant on one
    // side and differs (κ undefined is not claimed as agreement).
    let ours = write("llm.jsonl", &batch.score_lines());
    let human = write(
        "human.jsonl",
        "{\"id\": \"1\", \"coverage\": 4, \"topology\": 3}\n{\"id\": 2, \"coverage\": 1, \"topology\": 1}\n",
    );
    let report = litnav_app::score::agreement::agreement_of_files(
        &ours,
        &human,
        litnav_eval::agreement::KappaWeights::Unweighted,
    )
    .unwrap();
    assert_eq!(report.paired, 2);
    let coverage = report.scores.iter().find(|a| a.name == "coverage").unwrap();
    assert_eq!((coverage.kappa, coverage.spearman), (Some(1.0), Some(1.0)));
    let topology = report.scores.iter().find(|a| a.name == "topology").unwrap();
    assert_eq!((topology.kappa, topology.spearman), (Some(0.0), None));
}

#[test]
fn offline_a_missing_encoder_is_an_error_naming_the_install_step_and_nothing_is_downloaded() {
    let home = tempfile::tempdir().unwrap();
    let env = HashMap::from([
        ("LITNAV_HOME".to_string(), home.path().to_string_lossy().to_string()),
        ("LITNAV_OFFLINE".to_string(), "1".to_string()),
    ]);
    let workspace = Workspace::new(Settings::from_vars(&env, None).unwrap());
    let error = workspace.encoder(&litnav_app::Quiet).err().unwrap();
    let message = format!("{error}");
    assert!(message.contains("litnav model install") && message.contains("LITNAV_OFFLINE"), "{message}");
    assert_eq!(error.code().row().code, "model_missing");
    assert!(!home.path().join("models").exists(), "nothing was downloaded or created");
}
