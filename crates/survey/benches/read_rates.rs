//! Timing probe: reading every Bloom-Eval survey and the survey extras' text measures, rates on
//! standard output: `cargo bench -p litnav-survey --bench read_rates` (needs ../shared/datasets).

#![allow(clippy::unwrap_used)] // A probe: it fails loudly by design.

use litnav_survey::Survey;
use std::time::Instant;

fn main() {
    let root = litnav_testkit::datasets().join("bloom-eval");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path().join("human")))
        .filter(|p| p.join("content.json").is_file())
        .collect();
    dirs.sort();
    dirs.push(root.join("cs_01/llm"));
    for _ in 0..3 {
        let t = Instant::now();
        let surveys: Vec<Survey> = dirs.iter().map(|d| Survey::read(d).unwrap()).collect();
        let read = t.elapsed();
        let t = Instant::now();
        let texts: Vec<String> = surveys.iter().map(|s| s.body_text()).collect();
        let body = t.elapsed();
        let t = Instant::now();
        let r: usize = texts.iter().map(|x| litnav_eval::bloom::readability(x).is_some() as usize).sum();
        let readability = t.elapsed();
        let t = Instant::now();
        let o: f64 = texts.iter().map(|x| litnav_eval::bloom::ngram_overlap(x, x, 10)).sum();
        let ngrams = t.elapsed();
        let words: usize = texts.iter().map(|x| x.split_whitespace().count()).sum();
        println!(
            "{} surveys ({words} words): read {read:.1?}, body {body:.1?}, readability {readability:.1?} ({r}), 10-grams {ngrams:.1?} ({o:.3})",
            dirs.len()
        );
    }
}
