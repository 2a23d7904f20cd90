//! litbench topic JSON lines (surveys with references, outlines, taxonomies), then merged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("topics.jsonl", data);
    litnav_fuzz::read_and_merge(&path, Format::LitbenchTopics);
});
