//! A survey in Markdown with a References section, read into sections, sentences and citations.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("survey.md", data);
    if let Ok(survey) = litnav_survey::Survey::read(&path) {
        let _ = survey.citing_sentences().count();
        let _ = survey.citation_counts();
    }
});
