//! BibTeX (entries, @string, concatenation, LaTeX accents), then merged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("refs.bib", data);
    litnav_fuzz::read_and_merge(&path, Format::Bibtex);
});
