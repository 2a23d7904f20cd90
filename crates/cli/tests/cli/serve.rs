//! `litnav serve` as a person uses it: the real binary on loopback, driven in a real browser
//! (Debian's Chromium through chromedriver): topic → map → search within it → expand a subtopic →
//! open a paper → its citers → basket → BibTeX export holding the paper. Each view is saved as a
//! screenshot (printed paths) to look at. Also: the URL printed once it accepts connections, and
//! a graceful stop on SIGTERM with a job running.

use crate::util::*;
use crate::webdriver::Browser;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// litbench with the Bloom-Eval surveys' citation contexts (so papers have citers with their
/// sentences), with the vectors earlier runs computed.
fn corpus_with_contexts(dir: &Path) -> PathBuf {
    let corpus = dir.join("litbench");
    let litbench = datasets().join("litbench");
    let mut args: Vec<String> = ["ingest", "--corpus", path(&corpus)].iter().map(|s| s.to_string()).collect();
    args.push(path(&litbench.join("corpus.jsonl")).to_string());
    args.push(path(&litbench.join("topics.jsonl")).to_string());
    args.push("--surveys".into());
    let mut surveys: Vec<PathBuf> = std::fs::read_dir(datasets().join("bloom-eval"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("human"))
        .filter(|p| p.is_dir())
        .collect();
    surveys.sort();
    args.extend(surveys.iter().map(|s| path(s).to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = litnav(&refs);
    assert!(out.status.success(), "{}", stderr(&out));
    litnav_testkit::seed_litbench_vectors(&corpus);
    corpus
}

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(corpus: &Path, maps: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_litnav"))
        .args(["serve", "--corpus", path(corpus), "--maps", path(maps), "--addr", "127.0.0.1:0"])
        .args(extra)
        .env("LITNAV_HOME", std::env::temp_dir().join("litnav-cli-tests-home"))
        .env("LITNAV_MODEL", litnav_embed_model())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url =
        line.trim().strip_prefix("litnav serves ").unwrap_or_else(|| panic!("no URL printed: {line:?}")).to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    Server { child, url }
}

fn http_get(url: &str) -> serde_json::Value {
    let mut response = ureq::get(url).call().unwrap();
    response.body_mut().read_json().unwrap()
}

#[test]
#[cfg_attr(not(feature = "browser"), ignore = "needs Chromium, chromedriver and the datasets (tier `browser`)")]
fn a_reader_maps_expands_reads_and_exports_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus_with_contexts(dir.path());
    // With the local LLM server (tier `llm-server`), the paper panel can have it label mentions.
    let llm = cfg!(feature = "llm-server").then(litnav_testkit::llm_server);
    let llm_args = llm.map(|url| vec!["--llm", "--llm-url", url, "--no-cache"]).unwrap_or_default();
    let server = serve(&corpus, &dir.path().join("maps"), &llm_args);
    let shots = std::env::temp_dir().join("litnav-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let browser = Browser::start(1500, 950);
    browser.go(&server.url);
    browser.wait_for("document.querySelector('.welcome')", 30);
    browser.screenshot(&shots.join("0-welcome.png"));

    // Topic → map (a job whose steps show live, then the map).
    browser.type_into("#topic", "retrieval-augmented generation for large language models");
    browser.click("#map-it");
    browser.wait_for("location.hash.includes('map=') && !location.hash.includes('job=') && document.querySelectorAll('#tree li').length > 2", 900);
    browser.wait_for("document.querySelector('svg.bubbles .bubble')", 30);
    browser.screenshot(&shots.join("1-map.png"));
    // The map says how many papers the score floor kept, under its title.
    let said = browser
        .script("return document.querySelector('#map-title .notices')?.textContent ?? '';", serde_json::json!([]));
    assert!(said.as_str().unwrap().contains("the score floor kept"), "{said}");

    // Search within the map: matching names are highlighted, the rest hidden.
    browser.type_into("#within", "language");
    browser.wait_for("document.querySelector('#tree mark')", 30);
    browser.screenshot(&shots.join("2-search-within.png"));
    browser.type_into("#within", "");
    browser.script("document.querySelector('#within').dispatchEvent(new Event('input'));", serde_json::json!([]));

    // Expand the first subtopic of the first theme: a job, then the new map with the graft.
    browser.wait_for("!document.querySelector('#tree mark')", 30);
    let map_before =
        browser.script("return new URLSearchParams(location.hash.slice(1)).get('map');", serde_json::json!([]));
    browser.click("#tree > li > .node");
    browser.wait_for("document.querySelector('#tree li ul .node')", 30);
    browser.click("#tree li ul .node");
    browser.wait_for("document.querySelector('#expand')", 30);
    let expanded =
        browser.script("return new URLSearchParams(location.hash.slice(1)).get('node');", serde_json::json!([]));
    let expanded = expanded.as_str().unwrap().to_string();
    browser.click("#expand");
    browser.wait_for(
        &format!(
            "!location.hash.includes('job=') && new URLSearchParams(location.hash.slice(1)).get('map') !== {map_before} && document.querySelector('#tree .node[data-id^=\"{expanded}.\"]')"
        ),
        300,
    );
    browser.screenshot(&shots.join("3-expanded.png"));

    // Open a paper that surveys cite, from the expanded map, and read its citers.
    let map = browser.script("return new URLSearchParams(location.hash.slice(1)).get('map');", serde_json::json!([]));
    let map = map.as_str().unwrap().to_string();
    let base = server.url.trim_end_matches('/');
    let page = http_get(&format!("{base}/api/maps/{map}/nodes/root/papers?limit=1000"));
    let cited = page["papers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .find(|id| http_get(&format!("{base}/api/papers/{id}"))["citers_total"].as_u64().unwrap() > 0)
        .expect("some paper of the map is cited by a survey");
    browser.script(&format!("location.hash = location.hash + '&paper={cited}';"), serde_json::json!([]));
    browser.wait_for("document.querySelector('#paper-title')", 60);
    browser.wait_for("document.querySelector('#citers li, #citers-positive li')", 30);
    let citer = browser
        .script("return document.querySelector('#citers li, #citers-positive li').innerText;", serde_json::json!([]));
    assert!(citer.as_str().unwrap().contains('“'), "a citer shows what it said: {citer}");
    browser.screenshot(&shots.join("4-paper.png"));
    if llm.is_some() {
        // The surveys' mentions carry no sentiment: the LLM labels them, and the panel shows it.
        browser.wait_for("document.querySelector('#classify')", 30);
        browser.script("document.querySelector('#classify').scrollIntoView();", serde_json::json!([]));
        browser.screenshot(&shots.join("4a-paper-unlabelled.png"));
        browser.click("#classify");
        browser.wait_for("document.querySelector('#sentiment-note') && document.querySelector('#sentiment-note').innerText.includes('labelled by the LLM')", 300);
        browser.wait_for("document.querySelector('#citers li .sent-positive, #citers li .sent-neutral, #citers li .sent-negative, #citers-positive li')", 30);
        browser.script("document.querySelector('#sentiment-note').scrollIntoView();", serde_json::json!([]));
        browser.screenshot(&shots.join("4b-paper-labelled.png"));
    }
    let title = browser.script("return document.querySelector('#paper-title').innerText;", serde_json::json!([]));

    // Basket → BibTeX export holding the paper.
    browser.click("#add-basket");
    browser.wait_for("document.querySelector('#basket-count').innerText === '1'", 10);
    browser.click("#basket-button");
    browser.click("#export-preview-button");
    browser.wait_for("document.querySelector('#export-preview').innerText.startsWith('@')", 30);
    let bibtex = browser.script("return document.querySelector('#export-preview').innerText;", serde_json::json!([]));
    let bibtex = bibtex.as_str().unwrap();
    let title = title.as_str().unwrap();
    assert!(bibtex.contains(&format!("litnav id {cited}")), "{bibtex}");
    assert!(bibtex.contains(&title[..title.len().min(20)]), "{bibtex}");
    browser.screenshot(&shots.join("5-basket.png"));

    // The other tabs draw.
    browser.click("#basket-close");
    browser.click("#tabs button[data-tab='graph']");
    browser.wait_for("document.querySelector('canvas#graph')", 60);
    // Drawn with WebGL, and drawn: count the canvas's painted pixels through a 2D copy.
    let painted = browser.script(
        "const c = document.querySelector('canvas#graph'); const t = document.createElement('canvas');
         t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);
         const d = x.getImageData(0, 0, t.width, t.height).data; let n = 0;
         for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
         return [c.dataset.renderer, n];",
        serde_json::json!([]),
    );
    assert_eq!(painted[0], "webgl", "the citation graph is drawn with WebGL: {painted}");
    assert!(painted[1].as_u64().unwrap() > 2_000, "the graph's nodes are painted: {painted}");
    // And its links: the faint grey pixels of its lines, on the page's canvas, and on test canvases
    // painting the same graph with and without its edges by each renderer.
    let links = browser.script(LINK_PIXELS, serde_json::json!([]));
    let count = |path: &str| links.pointer(path).and_then(serde_json::Value::as_u64).unwrap();
    let edges = count("/edges");
    assert!(edges > 0 && count("/app") > edges, "the page's graph draws its {edges} links: {links}");
    for renderer in ["webgl", "canvas2d"] {
        let (with, without) = (count(&format!("/{renderer}/0")), count(&format!("/{renderer}/1")));
        assert!(with > without + edges, "{renderer} draws the links: {links}");
    }
    // As visibly as each other (WebGL blending the alpha by itself drew a quarter as many).
    assert!(2 * count("/webgl/0") > count("/canvas2d/0"), "WebGL's links are as visible as 2D's: {links}");
    browser.screenshot(&shots.join("6-graph.png"));
    browser.click("#tabs button[data-tab='timeline']");
    browser.wait_for("document.querySelector('.timeline svg rect')", 60);
    browser.screenshot(&shots.join("7-timeline.png"));
    // Path: on a corpus without citations between its papers, the tab says why there is no path
    // to follow (and how to get citations) instead of offering a search that can only fail.
    let edges = http_get(&format!("{base}/api/corpus"))["edges"].as_u64().unwrap();
    browser.click("#tabs button[data-tab='path']");
    if edges == 0 {
        browser.wait_for("document.querySelector('#view .unavailable')", 60);
        let said =
            browser.script("return document.querySelector('#view .unavailable').textContent;", serde_json::json!([]));
        assert!(said.as_str().unwrap().contains("holds no citations between its"), "{said}");
        assert!(browser.script("return document.querySelector('#path-from') === null;", serde_json::json!([])) == true);
        // Nor does the paper panel offer paths from or to its paper.
        let offered = browser.script(
            "return [...document.querySelectorAll('#paper .actions button')].map((b) => b.textContent);",
            serde_json::json!([]),
        );
        assert!(!offered.to_string().contains("Path from here"), "{offered}");
    } else {
        browser.wait_for("document.querySelector('#path-from')", 60);
    }
    browser.screenshot(&shots.join("7b-path.png"));

    // Quality: the checks without a reference; a problem clicked selects (highlights) its node in
    // the tree and lists that node's problems first.
    browser.click("#tabs button[data-tab='quality']");
    browser.wait_for(
        "document.querySelector('#quality .problems li') || document.querySelector('#quality td[data-key=entailment]')",
        120,
    );
    let entailment = browser
        .script("return document.querySelector('#quality td[data-key=entailment]').innerText;", serde_json::json!([]));
    let entailment: f64 = entailment.as_str().unwrap().parse().unwrap();
    assert!((0.0..=1.0).contains(&entailment), "{entailment}");
    let problem = browser.script(
        "const li = [...document.querySelectorAll('#quality .problems li')].find((l) => l.dataset.node !== 'root'); \
         if (!li) return null; li.click(); return li.dataset.node;",
        serde_json::json!([]),
    );
    let node = problem.as_str().expect("a map of this size has a node with a problem").to_string();
    let selected = format!(
        "document.querySelector('#tree .node.selected')?.dataset.id === '{node}' && document.querySelector('#quality .problems li.current')"
    );
    browser.wait_for(&selected, 30);
    browser.screenshot(&shots.join("7a-quality.png"));

    // Score the map against the survey closest to its topic, and export the whole map.
    browser.click("#tabs button[data-tab='score']");
    browser.wait_for("document.querySelector('#score-survey option')", 60);
    let survey = browser
        .script("return document.querySelector('#score-survey').selectedOptions[0].innerText;", serde_json::json!([]));
    // litbench holds no survey of retrieval-augmented generation; the one sharing the rarest
    // words with the topic is chosen (here: one about large language models).
    assert!(survey.as_str().unwrap().contains("Language Model"), "the survey closest to the topic is chosen: {survey}");
    browser.click("#score-it");
    browser.wait_for("document.querySelector('#score-result td[data-key=soft_f1]')", 300);
    let soft_f1 = browser.script(
        "return document.querySelector('#score-result td[data-key=soft_f1]').innerText;",
        serde_json::json!([]),
    );
    let soft_f1: f64 = soft_f1.as_str().unwrap().parse().unwrap();
    assert!(soft_f1 > 0.0 && soft_f1 <= 1.0, "a soft F1 in (0, 1]: {soft_f1}");
    browser.screenshot(&shots.join("8-score.png"));
    let href = browser.script("return document.querySelector('#map-export').href;", serde_json::json!([]));
    let bibtex = ureq::get(href.as_str().unwrap()).call().unwrap().body_mut().read_to_string().unwrap();
    assert!(
        bibtex.starts_with('@') && bibtex.matches("\n@").count() + 1 >= 10,
        "the whole map as BibTeX: {bibtex:.300}"
    );

    // Corrections: reject one suggestion, accept another, rename a theme, split a leaf as litnav
    // proposes, move a paper, undo the move, export the new subtopic as BibTeX; the log is stored
    // with the map, and the permalink shows the edits after a reload.
    let count_is = |n: usize| {
        let noun = if n == 1 { "correction " } else { "corrections " };
        browser.wait_for(&format!("document.querySelector('#edit-count')?.innerText.startsWith('{n} {noun}')"), 60);
    };
    let checks = http_get(&format!("{base}/api/maps/{map}/checks"));
    let suggestions = checks["suggestions"].as_array().cloned().unwrap_or_default();
    assert!(suggestions.len() >= 2, "a map of this size has corrections to suggest: {checks}");
    browser.script(&format!("location.hash = 'map={map}&tab=quality';"), serde_json::json!([]));
    browser.wait_for("document.querySelector('#suggestions .suggestion .accept')", 120);
    let (accepted, dropped) = (&suggestions[0], &suggestions[suggestions.len() - 1]);
    let row = |id: &serde_json::Value| {
        format!("document.querySelector('#suggestions li[data-id=\"{}\"]')", id.as_str().unwrap())
    };
    browser.script(&format!("{}.querySelector('.reject').click();", row(&dropped["id"])), serde_json::json!([]));
    browser.wait_for(&format!("!{} && document.querySelector('#restore-rejected')", row(&dropped["id"])), 30);
    browser.script(&format!("{}.querySelector('.accept').click();", row(&accepted["id"])), serde_json::json!([]));
    let mut edits = accepted["edits"].as_array().unwrap().len();
    count_is(edits);
    browser.wait_for("document.querySelector('#suggestions')", 120);
    browser.screenshot(&shots.join("9-suggestion-accepted.png"));
    let log = http_get(&format!("{base}/api/maps/{map}/edits"));
    let ops = |log: &serde_json::Value| -> Vec<String> {
        log["edits"].as_array().unwrap().iter().map(|e| e["op"].as_str().unwrap().to_string()).collect()
    };
    let wanted: Vec<String> =
        accepted["edits"].as_array().unwrap().iter().map(|e| e["op"].as_str().unwrap().to_string()).collect();
    assert_eq!(ops(&log), wanted, "the suggestion's edits are the log: {log}");

    let stored = http_get(&format!("{base}/api/maps/{map}"));
    let theme = stored["map"]["subtopics"][0]["id"].as_str().unwrap().to_string();
    browser.script(&format!("location.hash = 'map={map}&node={theme}';"), serde_json::json!([]));
    browser.wait_for("document.querySelector('#correct')", 30);
    browser.script(
        "document.querySelector('#correct').open = true; document.querySelector('#rename-to').value = 'Renamed by hand';",
        serde_json::json!([]),
    );
    browser.click("#do-rename");
    let renamed =
        format!("document.querySelector('#tree .node[data-id=\"{theme}\"]')?.innerText.includes('Renamed by hand')");
    edits += 1;
    count_is(edits);
    browser.wait_for(&renamed, 60);
    browser.screenshot(&shots.join("9a-renamed.png"));

    let stored = http_get(&format!("{base}/api/maps/{map}"));
    let leaves = leaves_with_papers(&stored["map"]);
    let (big, _) = leaves.iter().max_by_key(|(_, papers)| papers.len()).unwrap().clone();
    browser.script(&format!("location.hash = 'map={map}&node={big}';"), serde_json::json!([]));
    browser.wait_for("document.querySelector('#propose-split')", 30);
    browser.script("document.querySelector('#correct').open = true;", serde_json::json!([]));
    browser.click("#propose-split");
    browser.wait_for(
        "document.querySelector('#do-split') && document.querySelectorAll('.split-papers li').length > 0",
        120,
    );
    browser.screenshot(&shots.join("9b-split-proposed.png"));
    browser.click("#do-split");
    edits += 1;
    count_is(edits);
    let log = http_get(&format!("{base}/api/maps/{map}/edits"));
    let split = log["edits"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(split["op"], "split", "{log}");
    let stored = http_get(&format!("{base}/api/maps/{map}"));
    let part = leaves_with_papers(&stored["map"])
        .into_iter()
        .find(|(_, papers)| papers.contains(&split["papers"][0].as_str().unwrap().to_string()))
        .unwrap();
    assert_ne!(part.0, big, "the split's papers are in a new leaf");

    let leaves = leaves_with_papers(&stored["map"]);
    let (from, paper) = leaves.first().map(|(leaf, papers)| (leaf.clone(), papers[0].clone())).unwrap();
    browser.script(&format!("location.hash = 'map={map}&node={from}&paper={paper}';"), serde_json::json!([]));
    let to = leaves.iter().find(|(leaf, papers)| *leaf != from && !papers.contains(&paper)).unwrap().0.clone();
    browser.wait_for("document.querySelector('#do-move-paper')", 60);
    browser.script(&format!("document.querySelector('#move-paper-to').value = '{to}';"), serde_json::json!([]));
    browser.click("#do-move-paper");
    count_is(edits + 1);
    let moved = http_get(&format!("{base}/api/maps/{map}/papers/{paper}"));
    assert_eq!(moved["node"], to.as_str(), "the paper moved: {moved}");
    browser.screenshot(&shots.join("9c-paper-moved.png"));
    browser.click("#undo");
    count_is(edits);
    assert_eq!(http_get(&format!("{base}/api/maps/{map}/papers/{paper}"))["node"], from.as_str(), "undone");
    let log = http_get(&format!("{base}/api/maps/{map}/edits"));
    assert_eq!(log["edits"].as_array().unwrap().len(), edits, "{log}");
    assert!(
        !browser.script("return document.querySelector('#redo').disabled;", serde_json::json!([])).as_bool().unwrap()
    );

    // The new subtopic alone as BibTeX: exactly its papers.
    browser.script(&format!("location.hash = 'map={map}&node={}&tab=score';", part.0), serde_json::json!([]));
    browser.wait_for("document.querySelector('#map-export')?.href.includes('node=')", 60);
    let href = browser.script("return document.querySelector('#map-export').href;", serde_json::json!([]));
    let bibtex = ureq::get(href.as_str().unwrap()).call().unwrap().body_mut().read_to_string().unwrap();
    assert_eq!(bibtex.matches("\n@").count() + 1, part.1.len(), "one entry per paper of the subtopic: {bibtex:.400}");
    assert!(part.1.iter().all(|id| bibtex.contains(&format!("litnav id {id}"))), "{bibtex:.400}");
    browser.screenshot(&shots.join("9d-export-subtopic.png"));

    browser.script(&format!("location.hash = 'map={map}&node={}';", part.0), serde_json::json!([]));
    browser.script("location.reload();", serde_json::json!([]));
    browser.wait_for(&format!("{renamed} && document.querySelector('#tree .node[data-id=\"{}\"]')", part.0), 60);
    browser.screenshot(&shots.join("9e-permalink-edited.png"));
    // What was undone survives the reload: Redo moves the paper again.
    browser.wait_for("document.querySelector('#redo') && !document.querySelector('#redo').disabled", 30);
    browser.click("#redo");
    count_is(edits + 1);
    assert_eq!(http_get(&format!("{base}/api/maps/{map}/papers/{paper}"))["node"], to.as_str(), "redone");
    eprintln!("screenshots in {}", shots.display());
}

/// The leaves of a map (as the API answers it) that hold papers, with their papers.
fn leaves_with_papers(node: &serde_json::Value) -> Vec<(String, Vec<String>)> {
    let children = node["subtopics"].as_array().cloned().unwrap_or_default();
    let id = node["id"].as_str().unwrap_or_default();
    if children.is_empty() {
        let papers: Vec<String> =
            node["paper_ids"].as_array().into_iter().flatten().filter_map(|p| p.as_str().map(str::to_string)).collect();
        let filtered = id == "filtered" || node["filtered"].as_bool() == Some(true);
        return if papers.is_empty() || filtered || id == "root" { Vec::new() } else { vec![(id.to_string(), papers)] };
    }
    children.iter().filter(|c| c["id"] != "filtered").flat_map(leaves_with_papers).collect()
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn serve_refuses_remote_addresses_without_a_token_and_stops_gracefully() {
    let out = litnav(&["serve", "--addr", "0.0.0.0:0"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not a loopback address"), "{}", stderr(&out));
    let out = litnav(&["serve", "--addr", "0.0.0.0:0", "--allow-remote"]);
    assert!(stderr(&out).contains("needs a token"), "{}", stderr(&out));

    // SIGTERM with a job running: the server cancels it and exits cleanly.
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("mini");
    let fixture = litnav_testkit::fixture("mini");
    let out = litnav(&[
        "ingest",
        "--corpus",
        path(&corpus),
        path(&fixture.join("papers.jsonl")),
        path(&fixture.join("citations.csv")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut server = serve(&corpus, &dir.path().join("maps"), &[]);
    let base = server.url.trim_end_matches('/').to_string();
    let health = http_get(&format!("{base}/api/health"));
    assert_eq!(health["papers"], 12);
    // A server encodes queries with half-precision weights unless told otherwise.
    assert_eq!(health["query_precision"], "f16", "{health}");
    let mut started = ureq::post(&format!("{base}/api/maps"))
        .send_json(serde_json::json!({"topic": "graph neural networks for molecules", "k": 10}))
        .unwrap();
    let started: serde_json::Value = started.body_mut().read_json().unwrap();
    assert!(started["map"].is_string());
    let status = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = server.child.wait().unwrap();
    assert!(exit.success(), "a graceful stop exits 0: {exit:?}");
}

#[test]
fn stopping_the_server_ends_a_fetch_waiting_out_a_backoff_within_two_seconds() {
    use litnav_fetch::stand_in::{Faults, StandIn, work_from_paper};
    // An API that answers every call 503 with `Retry-After: 3600` (the client waits its longest,
    // two minutes, before each retry).
    let paper = serde_json::json!({"id": 1, "title": "Graph networks for molecules", "year": 2020});
    let stand_in = StandIn::start(vec![work_from_paper(&paper, 1, &[])], Default::default()).unwrap();
    stand_in.inject(Faults { unavailable_for_long: usize::MAX, ..Faults::default() });
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("mini");
    let fixture = litnav_testkit::fixture("mini");
    let out = litnav(&["ingest", "--corpus", path(&corpus), path(&fixture.join("papers.jsonl"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut server = serve(&corpus, &dir.path().join("maps"), &["--allow-network", "--api-url", stand_in.url()]);
    let base = server.url.trim_end_matches('/').to_string();
    let body = serde_json::json!({"topic": "molecules", "fetch": {"max": 5}});
    ureq::post(&format!("{base}/api/maps")).send_json(body).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while stand_in.log().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!stand_in.log().is_empty(), "the fetch reached the owner's API");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let asked = std::time::Instant::now();
    let status = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = server.child.wait().unwrap();
    let took = asked.elapsed();
    assert!(exit.success(), "a graceful stop exits 0: {exit:?}");
    assert!(took < std::time::Duration::from_secs(2), "the server took {took:?} to stop");
    eprintln!("the server stopped {:.0} ms after SIGTERM, a fetch in its backoff", took.as_secs_f64() * 1000.0);
    assert_eq!(stand_in.log().len(), 1, "no retry after the stop");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn bench_serve_loads_the_server_without_errors() {
    let report = bench_report(&["serve", "--clients", "8", "--seconds", "3"]);
    assert_eq!(report["clients"], 8);
    let endpoints = report["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 6, "five request kinds, hybrid search twice (repeated and new queries)");
    for endpoint in endpoints {
        assert!(endpoint["requests"].as_u64().unwrap() > 0, "{endpoint}");
        assert_eq!(endpoint["errors"], 0, "{endpoint}");
        assert!(endpoint["p99_ms"].as_f64().unwrap() >= endpoint["p50_ms"].as_f64().unwrap());
    }
    assert!(report["rss_max_mib"].as_f64().unwrap() > 0.0);
    assert_eq!(report["query_precision"], "f16", "the load runs against a server as `serve` makes it");
    // New queries on a schedule: 4 a second for 3 s, whatever the server's speed.
    let paced = bench_report(&["serve", "--clients", "8", "--seconds", "3", "--new-query-rate", "4"]);
    let new =
        paced["endpoints"].as_array().unwrap().iter().find(|e| e["endpoint"] == "search (hybrid, new query), 4/s");
    let new = new.expect("the paced endpoint is named with its rate");
    let sent = new["requests"].as_u64().unwrap();
    // Never more than the schedule (12 due in 3 s), whatever the server's speed; fewer only if
    // answers are slower than the schedule (a busy test machine).
    assert!((3..=13).contains(&sent), "{sent} new queries in 3 s at 4 a second");
    assert_eq!(new["errors"], 0);
}

/// In the web page: the grey pixels of faint lines (alpha from 20 to 199, no hue) on the citation
/// graph's canvas and on canvases that paint the page's graph, by each renderer, with and without
/// its edges — `{app, edges, webgl: [with, without], canvas2d: [with, without]}`.
const LINK_PIXELS: &str = "
    const lines = (canvas) => {
      const t = document.createElement('canvas'); t.width = canvas.width; t.height = canvas.height;
      const x = t.getContext('2d'); x.drawImage(canvas, 0, 0);
      const d = x.getImageData(0, 0, t.width, t.height).data; let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        const hi = Math.max(d[i], d[i + 1], d[i + 2]), lo = Math.min(d[i], d[i + 1], d[i + 2]);
        if (d[i + 3] >= 20 && d[i + 3] < 200 && hi - lo < 40) n++;
      }
      return n;
    };
    const graph = [...cache.graphs.values()].pop();
    const look = { size: () => 3, edgeAlpha: 0.18, colour: () => '#1f77b4', selected: null };
    const painted = (painter, edges) => {
      const c = document.createElement('canvas');
      c.style.cssText = 'position:fixed;left:0;top:0;width:400px;height:400px';
      document.body.appendChild(c);
      painter(c, { ...graph, edges }, look).draw({ scale: 1, dx: 0, dy: 0 });
      const n = lines(c); c.remove(); return n;
    };
    return {
      app: lines(document.querySelector('canvas#graph')), edges: graph.edges.length,
      webgl: [painted(webglPainter, graph.edges), painted(webglPainter, [])],
      canvas2d: [painted(canvasPainter, graph.edges), painted(canvasPainter, [])],
    };";
