//! A corpus directory from arbitrary bytes: manifest.json, and the generation's papers.jsonl and
//! topics.jsonl (NUL-separated). Opening must fail with an error or give a usable corpus.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [manifest, papers, topics] = litnav_fuzz::split(data, 3)[..] else { return };
    let dir = litnav_fuzz::empty_dir("corpus");
    let generation = dir.join("gen-000001");
    std::fs::create_dir_all(&generation).expect("a scratch directory");
    std::fs::write(dir.join("manifest.json"), manifest).expect("a scratch file");
    std::fs::write(generation.join("papers.jsonl"), papers).expect("a scratch file");
    std::fs::write(generation.join("topics.jsonl"), topics).expect("a scratch file");
    let Ok(corpus) = litnav_corpus::Corpus::open(&dir) else { return };
    for paper in corpus.papers() {
        let _ = paper.as_text().passage();
    }
    let _ = corpus.topics().iter().map(|t| t.reference_ids.len()).sum::<usize>();
});
