//! TaxoBench's data.jsonl, as a corpus input (papers and topics) and as the scorer's gold file.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("data.jsonl", data);
    litnav_fuzz::read_and_merge(&path, Format::TaxoBench);
    if let Ok((instances, _problems)) = litnav_app::score::taxobench::read_instances(&path, "gt") {
        for instance in &instances {
            let _ = instance.topic();
        }
    }
});
