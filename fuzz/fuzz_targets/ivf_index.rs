//! The saved IVF index read for a fixed set of 40 vectors. The first byte chooses the form: even,
//! the bytes are the whole file; odd, they follow the magic and the vectors' fingerprint and are
//! followed by a correct checksum, so the fuzzer reaches the fields behind them. An index that
//! reads must search without panicking and answer only papers of the set.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_core::bytes::fnv1a;
use litnav_search::dense::DocMeta;
use litnav_search::ivf::{IvfIndex, fingerprint};
use litnav_search::{DenseIndex, Filter};
use std::sync::OnceLock;

const DIM: usize = 8;

fn index() -> &'static DenseIndex {
    static INDEX: OnceLock<DenseIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let docs = (0..40)
            .map(|i| DocMeta { id: format!("p{i}"), title: String::new(), year: Some(2000 + i), is_survey: i % 7 == 0 })
            .collect();
        let mut vectors: Vec<f32> = (0..40 * DIM).map(|i| ((i * 37 % 101) as f32 / 50.0) - 1.0).collect();
        vectors.chunks_mut(DIM).for_each(litnav_core::vector::normalize);
        DenseIndex::from_parts(docs, vectors, DIM)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&form, rest)) = data.split_first() else { return };
    let index = index();
    let print = fingerprint(index, 1).expect("an index in memory");
    let bytes = if form % 2 == 0 {
        rest.to_vec()
    } else {
        let mut body = b"LITNAVIVF1".to_vec();
        body.extend_from_slice(&print.to_le_bytes());
        body.extend_from_slice(rest);
        body.extend_from_slice(&fnv1a(&body).to_le_bytes());
        body
    };
    let path = litnav_fuzz::file("ivf.bin", &bytes);
    let Ok(Some(ivf)) = IvfIndex::read(&path, index, print) else { return };
    let query = index.vector(usize::from(form) % index.len());
    let hits = ivf.search(index, query, 10, Filter { before: Some(2030), exclude_surveys: true }).expect("in memory");
    assert!(hits.len() <= 10);
    assert!(hits.iter().all(|h| index.vector_of(&h.id).expect("in memory").is_some()));
    // What reads is what writes: saved again, it reads back to the same answers.
    ivf.write(&path, print).expect("a scratch file");
    let again = IvfIndex::read(&path, index, print).expect("a file litnav wrote").expect("the same vectors");
    let search = |ivf: &IvfIndex| ivf.search(index, query, 10, Filter::default()).expect("in memory");
    assert_eq!(search(&again), search(&ivf));
});
