//! A corpus directory from arbitrary bytes: manifest.json, and the generation's papers.jsonl,
//! topics.jsonl and papers.index (NUL-separated; an empty index is read as absent). Opening must
//! fail with an error or give a usable corpus, whose papers read one at a time are the papers
//! read whole.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [manifest, papers, topics, index] = litnav_fuzz::split(data, 4)[..] else { return };
    let dir = litnav_fuzz::empty_dir("corpus");
    let generation = dir.join("gen-000001");
    std::fs::create_dir_all(&generation).expect("a scratch directory");
    std::fs::write(dir.join("manifest.json"), manifest).expect("a scratch file");
    std::fs::write(generation.join("papers.jsonl"), papers).expect("a scratch file");
    std::fs::write(generation.join("topics.jsonl"), topics).expect("a scratch file");
    if !index.is_empty() {
        std::fs::write(generation.join("papers.index"), index).expect("a scratch file");
    }
    let Ok(corpus) = litnav_corpus::Corpus::open(&dir) else { return };
    let _ = corpus.topics().iter().map(|t| t.reference_ids.len()).sum::<usize>();
    let _ = corpus.position_of_identifier("10.1/x");
    let _ = corpus.left_out_of_maps(None);
    // Lookups through a damaged index may fail, but never panic.
    for position in 0..corpus.len().min(64) {
        if let Ok(paper) = corpus.paper_at(position) {
            let _ = corpus.position(&paper.id);
        }
    }
    let Ok(whole) = litnav_corpus::Corpus::open(&dir) else { return };
    let Ok(all) = whole.papers() else { return };
    assert_eq!(all.len(), whole.len(), "the manifest's count is the records read");
    for paper in all {
        let _ = paper.as_text().passage();
    }
});
