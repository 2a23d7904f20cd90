//! The search index (a tantivy directory) with one of its files damaged: the first byte picks
//! the file, the second how — replaced by the rest of the input, overwritten with it at an
//! offset (the next two bytes), or cut to that length. Opening and searching must fail with an
//! error or answer, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_search::lexical::{BuildOptions, LexicalIndex, SearchQuery};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A small real index, built once per process, and its files in name order.
fn template() -> &'static (PathBuf, Vec<String>) {
    static TEMPLATE: OnceLock<(PathBuf, Vec<String>)> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        // libFuzzer's hook aborts at any panic, even one litnav catches (a panic inside the search
        // engine becomes an error); print instead, so that only a panic that escapes litnav ends
        // the run (the harness aborts on those).
        std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
        let dir = litnav_fuzz::empty_dir("lexical-template");
        let papers: Vec<litnav_corpus::Paper> = (0..20)
            .map(|i| litnav_corpus::Paper {
                id: format!("p{i}"),
                title: format!("graph neural networks for molecule {i}"),
                abstract_text: Some(format!("we study message passing and attention, variant {i}")),
                year: Some(2000 + i),
                ..litnav_corpus::Paper::default()
            })
            .collect();
        let options = BuildOptions { memory_budget: 16 << 20, threads: 1 };
        LexicalIndex::build(&dir, &papers[..], options).expect("a template index");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .expect("the template directory")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        (dir, files)
    })
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("the template directory").filter_map(|e| e.ok()) {
        if entry.path().is_file() {
            // libFuzzer's timer signal can interrupt the copy (EINTR): that is no finding, so copy again.
            loop {
                match std::fs::copy(entry.path(), to.join(entry.file_name())) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    result => {
                        result.expect("a copy");
                        break;
                    }
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [pick, how, high, low, content @ ..] = data else { return };
    let (template, files) = template();
    let dir = litnav_fuzz::empty_dir("lexical");
    copy_dir(template, &dir);
    let file = dir.join(&files[*pick as usize % files.len()]);
    let offset = u16::from_be_bytes([*high, *low]) as usize;
    let mut bytes = std::fs::read(&file).expect("a template file");
    match how % 3 {
        0 => bytes = content.to_vec(),
        1 => {
            let end = (offset + content.len()).max(bytes.len());
            bytes.resize(end, 0);
            bytes[offset..offset + content.len()].copy_from_slice(content);
        }
        _ => bytes.truncate(offset),
    }
    std::fs::write(&file, bytes).expect("a scratch file");
    let Ok(index) = LexicalIndex::open(&dir) else { return };
    let _ = index.search(&SearchQuery::new("graph attention molecule"));
});
