//! A corpus's paper vectors as rows in corpus order, in one file read through a memory map: a
//! search touches the rows it scores, and opening costs nothing however large the corpus.
//!
//! The vector cache ([`crate::cache`]) is where vectors live durably (by the hash of the text
//! they encode, across generations); a rows file is derived from it for one generation, once,
//! and rebuilt when the generation or its papers change. Each row is kept twice: in full
//! precision, and quantized to int8 with one scale per row — a quarter of the bytes — for
//! approximate scans whose best candidates are then rescored in full precision.
//!
//! Layout (little-endian), `DIR/vectors/<model>.g<generation>.rows`:
//!
//! ```text
//! 0    magic `litnavr1`
//! 8    dim u32, reserved u32
//! 16   rows u64
//! 24   fingerprint u64 (of the papers the rows are for: see the caller)
//! 32   reserved, zero, up to 64
//! 64   rows × dim f32        the vectors
//! ..   rows f32              each row's int8 scale (max |v| / 127)
//! ..   rows × dim i8         the quantized vectors, v ≈ scale · q
//! ```
//!
//! A file is written to a temporary name, synced and renamed, so a reader maps a whole file or
//! none; its length must be exactly what its header says.

use crate::mapped::{as_floats, as_signed, map_file};
use crate::{Error, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"litnavr1";
const HEADER: usize = 64;

/// Where the rows of `model` for a corpus generation are kept.
pub fn rows_path(corpus_dir: &Path, model: &str, generation: u64) -> PathBuf {
    corpus_dir.join("vectors").join(format!("{}.g{generation:06}.rows", crate::cache::file_safe(model)))
}

/// The int8 form of `vector`: its scale and quantized values (`v ≈ scale · q`).
pub fn quantize(vector: &[f32]) -> (f32, Vec<i8>) {
    let largest = vector.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    if largest == 0.0 {
        return (0.0, vec![0; vector.len()]);
    }
    let scale = largest / 127.0;
    (scale, vector.iter().map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8).collect())
}

/// The dot product of a quantized query with a quantized row, each `(scale, values)` as
/// [`quantize`] makes them: `scale_q · scale_r · Σ q[j]·r[j]`, the sum exact in integers.
pub fn dot_quantized(query: (f32, &[i8]), row: (f32, &[i8])) -> f32 {
    query.0 * row.0 * litnav_core::vector::dot_i8(query.1, row.1) as f32
}

/// The shape a rows file must have to be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Dimension of every row.
    pub dim: usize,
    /// Number of rows.
    pub rows: usize,
    /// What the rows were built for (the caller's choice: papers, generation and model).
    pub fingerprint: u64,
}

impl Shape {
    fn length(&self) -> u64 {
        (HEADER + self.rows * (self.dim * 4 + 4 + self.dim)) as u64
    }

    fn scales_at(&self) -> usize {
        HEADER + self.rows * self.dim * 4
    }

    fn quantized_at(&self) -> usize {
        self.scales_at() + self.rows * 4
    }

    fn header(&self) -> [u8; HEADER] {
        let mut header = [0u8; HEADER];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&(self.dim as u32).to_le_bytes());
        header[16..24].copy_from_slice(&(self.rows as u64).to_le_bytes());
        header[24..32].copy_from_slice(&self.fingerprint.to_le_bytes());
        header
    }
}

/// Writes a rows file one row at a time (any order), in memory bounded by one row.
pub struct RowsWriter {
    file: File,
    temporary: PathBuf,
    path: PathBuf,
    shape: Shape,
    written: Vec<bool>,
}

impl RowsWriter {
    /// Start the file for `shape` at `path` (written under a temporary name until
    /// [`RowsWriter::finish`]).
    pub fn create(path: &Path, shape: Shape) -> Result<RowsWriter> {
        let bad = |message: String| Error::model(path, message);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| bad(format!("cannot create its directory: {e}")))?;
        }
        let temporary = path.with_extension(format!("rows.{}.tmp", std::process::id()));
        let file = File::create(&temporary).map_err(|e| bad(format!("cannot create: {e}")))?;
        file.set_len(shape.length()).map_err(|e| bad(format!("cannot size: {e}")))?;
        file.write_all_at(&shape.header(), 0).map_err(|e| bad(format!("cannot write: {e}")))?;
        Ok(RowsWriter { file, temporary, path: path.to_path_buf(), shape, written: vec![false; shape.rows] })
    }

    /// Write row `row`.
    pub fn put(&mut self, row: usize, vector: &[f32]) -> Result<()> {
        let bad = |message: String| Error::model(&self.path, message);
        if row >= self.shape.rows || vector.len() != self.shape.dim {
            return Err(bad(format!(
                "row {row} of {} dimensions does not fit {} rows of {}",
                vector.len(),
                self.shape.rows,
                self.shape.dim
            )));
        }
        let dim = self.shape.dim;
        let floats: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
        let (scale, quantized) = quantize(vector);
        let quantized: Vec<u8> = quantized.iter().map(|&q| q as u8).collect();
        let write = |bytes: &[u8], at: usize| self.file.write_all_at(bytes, at as u64);
        write(&floats, HEADER + row * dim * 4)
            .and_then(|_| write(&scale.to_le_bytes(), self.shape.scales_at() + row * 4))
            .and_then(|_| write(&quantized, self.shape.quantized_at() + row * dim))
            .map_err(|e| bad(format!("cannot write: {e}")))?;
        self.written[row] = true;
        Ok(())
    }

    /// Whether row `row` has been written.
    pub fn has(&self, row: usize) -> bool {
        self.written.get(row).copied().unwrap_or(false)
    }

    /// How many rows have not been written yet.
    pub fn unwritten(&self) -> usize {
        self.written.iter().filter(|w| !**w).count()
    }

    /// Sync the file and rename it into place; fails (and leaves nothing) when a row is missing.
    pub fn finish(self) -> Result<()> {
        let bad = |message: String| Error::model(&self.path, message);
        if let Some(row) = self.written.iter().position(|&w| !w) {
            let _ = std::fs::remove_file(&self.temporary);
            return Err(bad(format!("row {row} was never written")));
        }
        self.file.sync_all().map_err(|e| bad(format!("cannot sync: {e}")))?;
        std::fs::rename(&self.temporary, &self.path).map_err(|e| bad(format!("cannot rename into place: {e}")))?;
        Ok(())
    }
}

impl Drop for RowsWriter {
    fn drop(&mut self) {
        // A writer dropped before `finish` (an error, a panic) leaves no temporary behind; after
        // `finish` the temporary name no longer exists and this does nothing.
        let _ = std::fs::remove_file(&self.temporary);
    }
}

/// A rows file, mapped.
pub struct MappedRows {
    map: memmap2::Mmap,
    shape: Shape,
}

impl std::fmt::Debug for MappedRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedRows").field("shape", &self.shape).finish()
    }
}

impl MappedRows {
    /// Map the file at `path` when it has exactly `shape`: `Ok(None)` when there is no file or it
    /// was built for other papers (another fingerprint, count or dimension); an error when it is
    /// damaged (its length disagrees with its header).
    pub fn open(path: &Path, shape: Shape) -> Result<Option<MappedRows>> {
        let bad = |message: String| Error::model(path, message);
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(bad(format!("cannot open: {e}"))),
        };
        let map = map_file(&file).map_err(|e| bad(format!("cannot map: {e}")))?;
        if map.len() < HEADER || &map[..8] != MAGIC {
            return Err(bad("is not a litnav vector rows file; delete it to rebuild".into()));
        }
        let number =
            |at: usize, width: usize| map[at..at + width].iter().rev().fold(0u64, |n, &b| n << 8 | u64::from(b));
        let found = Shape { dim: number(8, 4) as usize, rows: number(16, 8) as usize, fingerprint: number(24, 8) };
        if found != shape {
            return Ok(None);
        }
        if map.len() as u64 != shape.length() {
            return Err(bad(format!(
                "is {} bytes, its header says {}; delete it to rebuild",
                map.len(),
                shape.length()
            )));
        }
        Ok(Some(MappedRows { map, shape }))
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.shape.rows
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.shape.rows == 0
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.shape.dim
    }

    /// Row `i` in full precision.
    pub fn row(&self, i: usize) -> &[f32] {
        let at = HEADER + i * self.shape.dim * 4;
        as_floats(&self.map[at..at + self.shape.dim * 4]).unwrap_or(&[])
    }

    /// Row `i` quantized: its scale and int8 values.
    pub fn quantized(&self, i: usize) -> (f32, &[i8]) {
        let at = self.shape.scales_at() + i * 4;
        let scale = f32::from_le_bytes([self.map[at], self.map[at + 1], self.map[at + 2], self.map[at + 3]]);
        let at = self.shape.quantized_at() + i * self.shape.dim;
        (scale, as_signed(&self.map[at..at + self.shape.dim]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u64, dim: usize) -> Vec<f32> {
        let mut rng = litnav_core::rng::SplitMix64(seed);
        let mut v: Vec<f32> = (0..dim).map(|_| rng.next_f64() as f32 - 0.5).collect();
        litnav_core::vector::normalize(&mut v);
        v
    }

    #[test]
    fn rows_written_in_any_order_read_back_exactly_and_quantized_closely() {
        let dir = tempfile::tempdir().unwrap();
        let path = rows_path(dir.path(), "m", 3);
        let shape = Shape { dim: 20, rows: 5, fingerprint: 42 };
        let vectors: Vec<Vec<f32>> = (0..5).map(|i| unit(i, 20)).collect();
        let mut writer = RowsWriter::create(&path, shape).unwrap();
        for i in [4, 0, 2, 1, 3] {
            writer.put(i, &vectors[i]).unwrap();
        }
        writer.finish().unwrap();
        let rows = MappedRows::open(&path, shape).unwrap().unwrap();
        for (i, vector) in vectors.iter().enumerate() {
            assert_eq!(rows.row(i), &vector[..]);
            let (scale, q) = quantize(vector);
            let exact = litnav_core::vector::dot(vector, vector);
            assert!((dot_quantized((scale, &q), rows.quantized(i)) - exact).abs() < 0.02);
        }
        assert!(MappedRows::open(&path, Shape { fingerprint: 43, ..shape }).unwrap().is_none(), "other papers");
        assert!(MappedRows::open(&rows_path(dir.path(), "m", 4), shape).unwrap().is_none(), "no file");
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary left");
    }

    #[test]
    fn a_missing_row_or_a_cut_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = rows_path(dir.path(), "m", 1);
        let shape = Shape { dim: 4, rows: 2, fingerprint: 1 };
        let mut writer = RowsWriter::create(&path, shape).unwrap();
        writer.put(0, &[1.0, 0.0, 0.0, 0.0]).unwrap();
        assert!(writer.put(2, &[1.0, 0.0, 0.0, 0.0]).is_err(), "out of range");
        assert!(writer.finish().unwrap_err().to_string().contains("row 1 was never written"));
        assert!(!path.exists());
        let mut writer = RowsWriter::create(&path, shape).unwrap();
        writer.put(0, &[1.0, 0.0, 0.0, 0.0]).unwrap();
        writer.put(1, &[0.0, 1.0, 0.0, 0.0]).unwrap();
        writer.finish().unwrap();
        let file = File::options().write(true).open(&path).unwrap();
        file.set_len(shape.length() - 1).unwrap();
        let error = MappedRows::open(&path, shape).unwrap_err().to_string();
        assert!(error.contains("delete it to rebuild"), "{error}");
    }
}
