//! The LLM layer against a deterministic fake OpenAI-compatible server: parsing, validation,
//! repair, retry, timeout, cache, offline mode and malformed answers.

#![allow(clippy::unwrap_used)]

use litnav_core::PaperText;
use litnav_llm::fake::{self, Behaviour, FakeServer};
use litnav_llm::navigator::{self, ClusterReading};
use litnav_llm::{Client, Config, Error, judges};
use serde_json::json;
use std::time::{Duration, Instant};

/// The fake endpoint serving `script` in order.
fn serve(script: Vec<Behaviour>) -> FakeServer {
    fake::serve(script).unwrap()
}

fn client(server: &FakeServer, cache: Option<&std::path::Path>) -> Client {
    Client::new(Config {
        base_url: server.url.clone(),
        timeout: Duration::from_secs(2),
        backoff: Duration::from_millis(10),
        cache_dir: cache.map(|p| p.to_path_buf()),
        ..Config::default()
    })
}

fn papers() -> Vec<PaperText<'static>> {
    vec![
        PaperText {
            title: "Calibrating verbalized confidence of LLMs",
            abstract_text: Some("We ask models to state confidence."),
        },
        PaperText { title: "Semantic entropy for hallucination detection", abstract_text: None },
    ]
}

const TOPIC: &str = "uncertainty quantification of large language models";

fn reading(name: &str, relatedness: u8, related: bool) -> String {
    json!({"description": "Papers on confidence estimates.", "name": name, "relatedness": relatedness, "related": related})
        .to_string()
}

#[test]
fn a_valid_answer_is_parsed_and_typed() {
    let server = serve(vec![Behaviour::Answer(reading("Confidence Calibration", 5, true))]);
    let c = client(&server, None);
    let answer = navigator::read_cluster(&c, TOPIC, &papers()).unwrap();
    assert_eq!(
        answer.value,
        ClusterReading {
            description: "Papers on confidence estimates.".into(),
            name: "Confidence Calibration".into(),
            relatedness: 5,
            related: true
        }
    );
    assert!(!answer.repaired);
    let request = &server.requests.lock().unwrap()[0];
    assert_eq!(request["response_format"]["type"], "json_schema");
    assert!(request["messages"][1]["content"].as_str().unwrap().contains("Semantic entropy"));
    assert_eq!(c.usage().calls, 1);
    assert_eq!(c.usage().prompt_tokens, 10);
}

#[test]
fn a_meaningless_answer_is_repaired_once() {
    // The name repeats the topic; the repair message says so; the second answer is used.
    let server = serve(vec![
        Behaviour::Answer(reading("Uncertainty Quantification of Large Language Models", 5, true)),
        Behaviour::Answer(format!("Here you go:\n```json\n{}\n```", reading("Semantic Entropy Methods", 4, true))),
    ]);
    let c = client(&server, None);
    let answer = navigator::read_cluster(&c, TOPIC, &papers()).unwrap();
    assert!(answer.repaired);
    assert_eq!(answer.value.name, "Semantic Entropy Methods");
    let requests = server.requests.lock().unwrap();
    assert_eq!(requests.len(), 2);
    let repair = requests[1]["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(repair.contains("only repeats the topic"), "{repair}");
}

#[test]
fn inconsistent_or_truncated_answers_fail_clearly_after_one_repair() {
    let server = serve(vec![Behaviour::Answer(reading("Calibration", 1, true))]);
    let err = navigator::read_cluster(&client(&server, None), TOPIC, &papers()).unwrap_err();
    assert!(matches!(&err, Error::Invalid { problem, .. } if problem.contains("disagree")), "{err}");
    assert_eq!(server.requests.lock().unwrap().len(), 2);

    let server = serve(vec![Behaviour::Answer(r#"{"description": "cut", "name": "Calib"#.into())]);
    let err = navigator::read_cluster(&client(&server, None), TOPIC, &papers()).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn wrong_subtopic_ids_are_repaired_or_fixed_by_litnav() {
    let subtopics: Vec<(String, String)> =
        (1..=4).map(|i| (format!("Subtopic {i}"), format!("About thing {i}."))).collect();
    // Both answers place 2 twice, invent 7 and forget 4: litnav fixes the partition itself.
    let bad = json!({"themes": [{"name": "Methods", "subtopics": [1, 2]}, {"name": "Data", "subtopics": [2, 3, 7]}]})
        .to_string();
    let server = serve(vec![Behaviour::Answer(bad)]);
    let themes = navigator::organize_themes(&client(&server, None), TOPIC, &subtopics).unwrap();
    assert!(themes.fixed_by_litnav.as_deref().unwrap().contains("7 does not exist"));
    let mut placed: Vec<usize> = themes.themes.iter().flat_map(|t| t.subtopics.clone()).collect();
    placed.sort();
    assert_eq!(placed, vec![0, 1, 2, 3]);
    assert_eq!(themes.themes.last().unwrap().name, "Other subtopics");

    let good = json!({"themes": [{"name": "Methods", "subtopics": [1, 4]}, {"name": "Data", "subtopics": [2, 3]}]})
        .to_string();
    let server = serve(vec![Behaviour::Answer("not json at all".into()), Behaviour::Answer(good)]);
    let themes = navigator::organize_themes(&client(&server, None), TOPIC, &subtopics).unwrap();
    assert!(themes.repaired && themes.fixed_by_litnav.is_none());
    assert_eq!(themes.themes[0].subtopics, vec![0, 3]);
}

#[test]
fn an_http_500_is_retried_once_then_reported() {
    let server = serve(vec![Behaviour::Status(500, "boom".into()), Behaviour::Answer(reading("Calibration", 4, true))]);
    let c = client(&server, None);
    assert!(navigator::read_cluster(&c, TOPIC, &papers()).is_ok());
    assert_eq!(c.usage().retries, 1);

    let server = serve(vec![Behaviour::Status(500, "still broken".into())]);
    let err = navigator::read_cluster(&client(&server, None), TOPIC, &papers()).unwrap_err();
    assert!(matches!(&err, Error::Status { status: 500, body, .. } if body == "still broken"), "{err}");
    assert_eq!(server.requests.lock().unwrap().len(), 2, "one try and one retry");

    // A client error is not retried.
    let server = serve(vec![Behaviour::Status(401, "bad key".into())]);
    assert!(navigator::read_cluster(&client(&server, None), TOPIC, &papers()).is_err());
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[test]
fn a_hanging_server_times_out_retries_once_and_fails_with_a_message() {
    let server = serve(vec![Behaviour::Hang(Duration::from_secs(5))]);
    let c = Client::new(Config {
        base_url: server.url.clone(),
        timeout: Duration::from_millis(500),
        backoff: Duration::from_millis(10),
        ..Config::default()
    });
    let started = Instant::now();
    let err = navigator::read_cluster(&c, TOPIC, &papers()).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    assert!(err.to_string().contains("no answer within"), "{err}");
    assert_eq!(c.usage().retries, 1);
}

#[test]
fn nothing_listening_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let c = Client::new(Config { base_url: url, backoff: Duration::from_millis(10), ..Config::default() });
    let err = navigator::read_cluster(&c, TOPIC, &papers()).unwrap_err();
    assert!(err.to_string().contains("is the server running"), "{err}");
}

#[test]
fn answers_are_cached_and_offline_mode_never_calls() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(vec![Behaviour::Answer(reading("Calibration", 4, true))]);
    let first = navigator::read_cluster(&client(&server, Some(dir.path())), TOPIC, &papers()).unwrap();
    let c = client(&server, Some(dir.path()));
    let second = navigator::read_cluster(&c, TOPIC, &papers()).unwrap();
    assert_eq!(first.value, second.value);
    assert!(second.cached);
    assert_eq!(c.usage().cache_hits, 1);
    assert_eq!(server.requests.lock().unwrap().len(), 1);

    let offline = Client::new(Config {
        base_url: server.url.clone(),
        offline: true,
        cache_dir: Some(dir.path().into()),
        ..Config::default()
    });
    assert_eq!(navigator::read_cluster(&offline, TOPIC, &papers()).unwrap().value, first.value);
    let other_topic = navigator::read_cluster(&offline, "graph neural networks", &papers()).unwrap_err();
    assert!(matches!(other_topic, Error::Offline));
    assert_eq!(server.requests.lock().unwrap().len(), 1, "offline mode made no call");
}

#[test]
fn an_endpoint_without_json_schema_support_is_asked_without_it() {
    let server = serve(vec![
        Behaviour::Status(400, r#"{"error": "response_format is not supported"}"#.into()),
        Behaviour::Answer(reading("Calibration", 4, true)),
    ]);
    assert!(navigator::read_cluster(&client(&server, None), TOPIC, &papers()).is_ok());
    let requests = server.requests.lock().unwrap();
    assert!(requests[0].get("response_format").is_some());
    assert!(requests[1].get("response_format").is_none());
}

#[test]
fn bottom_up_places_every_paper_once() {
    let answer = json!({"categories": [
        {"name": "Estimation", "subcategories": [{"name": "Verbal", "papers": [1]}, {"name": "Sampling", "papers": [1]}]}
    ]})
    .to_string();
    let server = serve(vec![Behaviour::Answer(answer)]);
    let taxonomy =
        navigator::bottom_up(&client(&server, None), TOPIC, &papers(), &navigator::PaperView::TITLES, None).unwrap();
    assert!(taxonomy.fixed_by_litnav.is_some());
    let tree = taxonomy.to_tree(TOPIC, &["A", "B"]).to_json();
    assert_eq!(tree["subtopics"][0]["subtopics"][0]["papers"], json!(["A"]));
    assert_eq!(tree["subtopics"][1]["subtopics"][0]["papers"], json!(["B"]));
    // With the papers' vectors, both go to the subcategory whose name is closer to them.
    let vectors = [vec![0.0, 1.0], vec![0.6, 0.8]];
    let embed = |names: &[String]| -> Vec<Vec<f32>> {
        names.iter().map(|n| if n.ends_with("Sampling") { vec![0.0, 1.0] } else { vec![1.0, 0.0] }).collect()
    };
    let content = navigator::Content { vectors: &vectors, embed: &embed };
    let taxonomy =
        navigator::bottom_up(&client(&server, None), TOPIC, &papers(), &navigator::PaperView::TITLES, Some(&content))
            .unwrap();
    let tree = taxonomy.to_tree(TOPIC, &["A", "B"]).to_json();
    assert_eq!(tree["subtopics"].as_array().unwrap().len(), 1, "nothing left unplaced");
    assert_eq!(tree["subtopics"][0]["subtopics"][0]["name"], "Sampling");
    assert_eq!(tree["subtopics"][0]["subtopics"][0]["papers"], json!(["A", "B"]));
}

#[test]
fn grade_weighs_the_rubric_and_keeps_its_trace() {
    let rubric = json!({"criteria": [{"criterion": "Covers calibration", "weight": 3}, {"criterion": "Compares methods", "weight": 1}]});
    let scores = json!({"scores": [
        {"criterion": 2, "generated": 8, "expert": 4, "evidence": "G has a comparison table"},
        {"criterion": 1, "generated": 5, "expert": 10, "evidence": "H's section 3"}
    ]});
    let server = serve(vec![Behaviour::Answer(rubric.to_string()), Behaviour::Answer(scores.to_string())]);
    let grade = judges::grade(&client(&server, None), TOPIC, "1 Calibration\n2 Methods", "1 Methods").unwrap();
    // G = 3·5 + 1·8 = 23, H = 3·10 + 1·4 = 34.
    assert_eq!((grade.g, grade.h), (23.0, 34.0));
    assert_eq!(grade.score, 23.0 / 57.0);
    assert_eq!(grade.scores[0].evidence, "H's section 3");
    assert_eq!(grade.rubric.len(), 2);
}

#[test]
fn tree_and_path_judges_validate_their_scores() {
    let dims = |score: u8| {
        json!({
            "coverage": {"score": score, "reason": "r"}, "sibling_organization": {"score": 3, "reason": "r"},
            "hierarchical_logic": {"score": 4, "reason": "r"}, "topology": {"score": 2, "reason": "r"}
        })
        .to_string()
    };
    let server = serve(vec![Behaviour::Answer(dims(9)), Behaviour::Answer(dims(5))]);
    let judgement = judges::judge_tree(&client(&server, None), TOPIC, "- A\n  - B").unwrap();
    assert!(judgement.repaired);
    assert_eq!(judgement.mean, 3.5);
    let server = serve(vec![Behaviour::Answer(json!({"score": 7, "reason": "step 2 is weak"}).to_string())]);
    assert_eq!(judges::judge_path(&client(&server, None), &papers()).unwrap().score, 7);
}

// Bloom-Eval's LLM steps: each parses a valid answer, repairs an invalid one, and refuses one that
// stays invalid.

#[test]
fn survey_entities_parse_repair_and_refuse() {
    use litnav_llm::survey;
    let good = json!({"methods_models": ["ViT", "Swin Transformer"], "datasets": ["ImageNet"], "evaluation_metrics": ["top-1 accuracy"]});
    let server = serve(vec![Behaviour::Answer(good.to_string())]);
    let answer = survey::entities(&client(&server, None), "ViT and Swin are trained on ImageNet.").unwrap();
    assert_eq!(answer.value.methods_models, ["ViT", "Swin Transformer"]);
    assert!(!answer.repaired);
    // An empty name is repaired.
    let bad = json!({"methods_models": [""], "datasets": [], "evaluation_metrics": []});
    let server = serve(vec![Behaviour::Answer(bad.to_string()), Behaviour::Answer(good.to_string())]);
    let answer = survey::entities(&client(&server, None), "text").unwrap();
    assert!(answer.repaired);
    assert!(server.requests.lock().unwrap()[1].to_string().contains("cannot be used"));
    // Still invalid after the repair: refused.
    let server = serve(vec![Behaviour::Answer(bad.to_string())]);
    assert!(matches!(survey::entities(&client(&server, None), "text"), Err(Error::Invalid { .. })));
}

#[test]
fn survey_statements_and_matching() {
    use litnav_llm::prompts::StatementKind;
    use litnav_llm::survey;
    let server = serve(vec![Behaviour::Answer(json!({"statements": ["ViT splits images into patches."]}).to_string())]);
    let found =
        survey::statements(&client(&server, None), StatementKind::Factual, "ViT splits images into patches.").unwrap();
    assert_eq!(found.value, ["ViT splits images into patches."]);
    let server = serve(vec![Behaviour::Answer(json!({"statements": ["ok"]}).to_string())]);
    assert!(
        matches!(survey::statements(&client(&server, None), StatementKind::Critical, "x"), Err(Error::Invalid { .. })),
        "a two-word fragment is not a statement, twice"
    );
    // Matching: candidate numbers are 1-based, 0 is "none"; a number beyond the candidates is
    // repaired.
    let items = vec![("ViT", vec!["Vision Transformer", "ResNet"]), ("MLP-Mixer", vec!["ResNet"])];
    let server = serve(vec![
        Behaviour::Answer(json!({"matches": [1, 3]}).to_string()),
        Behaviour::Answer(json!({"matches": [1, 0]}).to_string()),
    ]);
    let matched = survey::match_items(&client(&server, None), "entities", &items).unwrap();
    assert_eq!(matched.value, [Some(0), None]);
    assert!(matched.repaired);
}

#[test]
fn citation_support_and_redundant_headings() {
    use litnav_llm::survey;
    let server =
        serve(vec![Behaviour::Answer(json!({"supported": true, "reason": "The abstract says so."}).to_string())]);
    let verdict = survey::citation_support(&client(&server, None), "ViT uses patches [1].", "ViT", "Patches.").unwrap();
    assert!(verdict.value.supported);
    let ids: Vec<String> = ["H1", "H1_1", "H2"].map(String::from).to_vec();
    let server = serve(vec![
        Behaviour::Answer(json!({"pairs": [["H1_1", "H9"]]}).to_string()),
        Behaviour::Answer(json!({"pairs": [["H1_1", "H2"], ["H2", "H1_1"]]}).to_string()),
    ]);
    let pairs = survey::redundant_headings(&client(&server, None), "H1: A\n  H1_1: B\nH2: C", &ids).unwrap();
    assert_eq!(pairs.value, [("H1_1".to_string(), "H2".to_string())]);
    assert!(pairs.repaired, "an id outside the outline was repaired");
    assert!(
        server.requests.lock().unwrap()[0].to_string().contains(r#""enum":["H1","H1_1","H2"]"#),
        "the schema names the ids"
    );
}

#[test]
fn grade_for_each_ability_keeps_its_own_rubric() {
    let rubric = json!({"criteria": [{"criterion": "Names a taxonomy and keeps to it", "weight": 4}]});
    let scores =
        json!({"scores": [{"criterion": 1, "generated": 6, "expert": 6, "evidence": "Both follow method families."}]});
    for aspect in
        [judges::Aspect::FrameworkApplication, judges::Aspect::FrameworkNovelty, judges::Aspect::ResearchOutlook]
    {
        let server = serve(vec![Behaviour::Answer(rubric.to_string()), Behaviour::Answer(scores.to_string())]);
        let grade =
            judges::grade_aspect(&client(&server, None), aspect, TOPIC, "expert text", "generated text").unwrap();
        assert_eq!(grade.score, 0.5, "{aspect:?}: equal scores are parity");
        let first = server.requests.lock().unwrap()[0].to_string();
        assert!(first.contains(&aspect.description()[..30]), "{aspect:?}'s rubric asks about its own ability");
    }
}

#[test]
fn direct_gen_outlines_the_topic_from_the_model_alone() {
    let outline = json!({"sections": [
        {"name": "Replay Methods", "subsections": ["Generative Replay", "Experience Replay"]},
        {"name": "Regularization", "subsections": []}
    ]});
    // A first answer that restates the topic as a section is refused and repaired.
    let bad =
        json!({"sections": [{"name": "Continual Learning", "subsections": []}, {"name": "Replay", "subsections": []}]});
    let server = serve(vec![Behaviour::Answer(bad.to_string()), Behaviour::Answer(outline.to_string())]);
    let answer = navigator::direct_outline(&client(&server, None), "continual learning").unwrap();
    assert!(answer.repaired);
    let tree = answer.value;
    assert_eq!(tree.name, "continual learning");
    let names: Vec<&str> = tree.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Replay Methods", "Regularization"]);
    assert_eq!(tree.children[0].children.len(), 2);
    assert!(tree.children.iter().all(|c| c.papers.is_empty()), "no papers: an outline of headings");
    // No papers were shown to the model.
    let prompt = server.requests.lock().unwrap()[0]["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(prompt.contains("Without any papers"), "{prompt}");
}

#[test]
fn decomposer_queries_are_cleaned_deduplicated_and_repaired_once() {
    let empty = r#"{"sub_questions": [{"question": "?", "query": " \"\" "}]}"#;
    let good = r#"{"sub_questions": [
        {"question": "Which architectures?", "query": "vision transformer  architectures"},
        {"question": "Same again", "query": "Vision Transformer architectures"},
        {"question": "Which tasks?", "query": "\"transformers for object detection\""}]}"#;
    let server = serve(vec![Behaviour::Answer(empty.into()), Behaviour::Answer(good.into())]);
    let answer = litnav_llm::queries::decomposed_queries(&client(&server, None), "Vision Transformers").unwrap();
    assert!(answer.repaired);
    assert_eq!(answer.value, ["vision transformer architectures", "transformers for object detection"]);
}

#[test]
fn an_unusable_zero_shot_query_fails_with_the_reason() {
    let empty = r#"{"query": "??"}"#;
    let server = serve(vec![Behaviour::Answer(empty.into()), Behaviour::Answer(empty.into())]);
    let error = litnav_llm::queries::zero_shot_query(&client(&server, None), "Vision Transformers").unwrap_err();
    assert!(error.to_string().contains("no words to search for"), "{error}");
}
