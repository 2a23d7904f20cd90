//! LLM answers: what a model (or a broken endpoint) sends back, through the real client over
//! loopback to a stand-in endpoint, into each structured step — JSON found in prose, typed,
//! validated, repaired once, fixed by litnav where it can. The first byte picks the step and
//! whether the bytes are the message content or the whole HTTP body; the rest is the first answer
//! and the repair's answer, NUL-separated. A step ends with a result or an error, and a result
//! keeps its promises (every item placed exactly once).
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_core::PaperText;
use litnav_llm::fake::{self, Behaviour, FakeServer};
use litnav_llm::{Client, Config, judges, navigator, queries, survey};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

static SCRIPT: Mutex<Vec<Behaviour>> = Mutex::new(Vec::new());

fn server() -> &'static FakeServer {
    static SERVER: OnceLock<FakeServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        fake::serve_with(|index, _| {
            let script = SCRIPT.lock().expect("the script");
            script.get(index.min(script.len().saturating_sub(1))).cloned().unwrap_or(Behaviour::Status(500, "".into()))
        })
        .expect("a loopback port")
    })
}

fn client() -> Client {
    let server = server();
    Client::new(Config {
        base_url: server.url.clone(),
        retries: 0,
        timeout: Duration::from_secs(5),
        concurrency: 1,
        cache_dir: None,
        ..Config::default()
    })
}

const TOPIC: &str = "graph neural networks";

fn papers() -> Vec<PaperText<'static>> {
    ["Message passing for molecules", "Graph attention networks", "Spectral convolutions", "Scaling GNNs"]
        .into_iter()
        .map(|title| PaperText { title, abstract_text: Some("We study graphs.") })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let answers: Vec<Behaviour> = litnav_fuzz::split(rest, 2)
        .into_iter()
        .map(|part| {
            let text = String::from_utf8_lossy(part).into_owned();
            if mode & 0x80 != 0 { Behaviour::Status(200, text) } else { Behaviour::Answer(text) }
        })
        .collect();
    *SCRIPT.lock().expect("the script") = answers;
    server().requests.lock().expect("the request log").clear();
    let client = client();
    let papers = papers();
    match mode % 8 {
        0 => {
            let _ = navigator::read_cluster(&client, TOPIC, &papers);
        }
        1 => {
            let subtopics: Vec<(String, String)> =
                (1..=3).map(|i| (format!("Subtopic {i}"), format!("About part {i}"))).collect();
            if let Ok(themes) = navigator::organize_themes(&client, TOPIC, &subtopics) {
                let mut placed: Vec<usize> = themes.themes.iter().flat_map(|t| t.subtopics.clone()).collect();
                placed.sort_unstable();
                assert_eq!(placed, vec![0, 1, 2], "every subtopic in exactly one theme: {themes:?}");
            }
        }
        2 => {
            let _ = navigator::direct_outline(&client, TOPIC);
        }
        3 => {
            if let Ok(taxonomy) = navigator::bottom_up(&client, TOPIC, &papers, &navigator::PaperView::TITLES, None) {
                let mut placed: Vec<usize> =
                    taxonomy.categories.iter().flat_map(|(_, subs)| subs.iter().flat_map(|(_, p)| p.clone())).collect();
                placed.sort_unstable();
                assert_eq!(placed, vec![0, 1, 2, 3], "every paper exactly once: {taxonomy:?}");
                let titles: Vec<&str> = papers.iter().map(|p| p.title).collect();
                let _ = taxonomy.to_tree(TOPIC, &titles);
            }
        }
        4 => {
            let _ = judges::judge_tree(&client, TOPIC, "- Message passing\n- Attention\n");
        }
        5 => {
            let _ = queries::decomposed_queries(&client, TOPIC);
        }
        6 => {
            let items = [("graph attention", vec!["attention on graphs", "convolutions"]), ("pooling", vec![])];
            if let Ok(answer) = survey::match_items(&client, "entities", &items) {
                assert_eq!(answer.value.len(), items.len());
                for (matched, (_, candidates)) in answer.value.iter().zip(&items) {
                    assert!(matched.is_none_or(|m| m < candidates.len()), "{matched:?} of {candidates:?}");
                }
            }
        }
        _ => {
            let _ = litnav_llm::extract::summarize(&client, &papers[0]);
        }
    }
});
