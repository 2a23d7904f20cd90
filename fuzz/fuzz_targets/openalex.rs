//! OpenAlex works: snapshot lines or API pages, plain, gzipped (the input compressed, so the
//! decoder's output is fuzzed), and raw bytes under a `.gz` name (a damaged archive).
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let plain = litnav_fuzz::file("works.jsonl", data);
    litnav_fuzz::read_and_merge(&plain, Format::OpenAlex);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).expect("in memory");
    let compressed = litnav_fuzz::file("works.jsonl.gz", &gz.finish().expect("in memory"));
    litnav_fuzz::read_and_merge(&compressed, Format::OpenAlex);
    let raw = litnav_fuzz::file("raw.jsonl.gz", data);
    litnav_fuzz::read_and_merge(&raw, Format::OpenAlex);
});
