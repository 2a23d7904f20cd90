//! Citation contexts (JSON lines: citing, cited, paragraph, text, sentiment), read and queried.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_graph::contexts::{co_mentioned, read_jsonl, sentiment_of_citers};

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("contexts.jsonl", data);
    let Ok(contexts) = read_jsonl(&path) else { return };
    for context in contexts.iter().take(4) {
        let _ = co_mentioned(&contexts, &context.cited_id);
        let _ = sentiment_of_citers(&contexts, &context.cited_id);
    }
});
