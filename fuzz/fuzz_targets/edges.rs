//! citing_id,cited_id edge lists, then merged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("citations.csv", data);
    litnav_fuzz::read_and_merge(&path, Format::Edges);
});
