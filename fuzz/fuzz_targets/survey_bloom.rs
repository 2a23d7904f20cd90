//! A survey in Bloom-Eval's layout: content.json, outline.json and reference.json (NUL-separated).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [content, outline, references] = litnav_fuzz::split(data, 3)[..] else { return };
    let dir = litnav_fuzz::empty_dir("bloom");
    for (name, bytes) in [("content.json", content), ("outline.json", outline), ("reference.json", references)] {
        std::fs::write(dir.join(name), bytes).expect("a scratch file");
    }
    if let Ok(survey) = litnav_survey::Survey::read(&dir) {
        let _ = survey.citing_sentences().count();
        let _ = survey.citation_counts();
        let _ = survey.body_text();
    }
});
