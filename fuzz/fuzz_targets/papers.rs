//! litnav/litbench paper JSON lines, read strictly and with --skip-bad, then merged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("papers.jsonl", data);
    litnav_fuzz::read_and_merge(&path, Format::Papers);
});
