//! OpenAlex API answers as a fetch reads them: any body is parsed as a list page (its works and
//! next cursor, or an error — never a panic); the works it yields keep OpenAlex ids and a title
//! that is text or none, and written
//! as a fetch writes them, litnav's OpenAlex reader ingests them (or names the bad field).
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_corpus::Format;
use litnav_fetch::openalex::{OpenAlex, PUBLIC_API, parse_page};
use litnav_fetch::{HttpConfig, write_works};

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else { return };
    let Ok((works, _next)) = parse_page(body) else { return };
    for work in &works {
        assert!(work.id.starts_with('W') && work.id[1..].bytes().all(|b| b.is_ascii_digit()), "{}", work.id);
        // A title is text or absent (the work is then left out), never blank or padded.
        if let Some(title) = &work.title {
            assert!(!title.is_empty() && title.trim() == title, "{title:?}");
        }
    }
    let source = OpenAlex::new(PUBLIC_API, None, HttpConfig::default()).expect("the public URL is valid");
    let path = litnav_fuzz::file("fetched.jsonl", b"");
    write_works(&source, &works, &path).expect("a scratch file can be written");
    litnav_fuzz::read_and_merge(&path, Format::OpenAlex);
});
