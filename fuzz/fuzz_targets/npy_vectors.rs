//! A `.npy` vectors file (`ingest --vectors`) from arbitrary bytes: every row it promises is read,
//! finite, of its dimension, or an error; a file it accepts is exactly as long as its header says.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_embed::npy::NpyRows;

fuzz_target!(|data: &[u8]| {
    let path = litnav_fuzz::file("vectors.npy", data);
    let Ok(mut rows) = NpyRows::open(&path) else { return };
    assert!(rows.dim > 0, "a matrix has columns");
    let (promised, dim) = (rows.rows, rows.dim);
    assert!((promised * dim * 4) as u64 <= data.len() as u64, "the length was checked");
    let mut read = 0;
    while let Some(row) = rows.next_row() {
        if let Ok(row) = row {
            assert_eq!(row.len(), dim);
            assert!(row.iter().all(|v| v.is_finite()));
        }
        read += 1;
    }
    assert_eq!(read, promised);
});
