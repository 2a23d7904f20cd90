//! NumPy's `.npy` files of float32 rows: the form vectors computed elsewhere (a GPU machine, a
//! provider's API through a script) most often arrive in. Only what such a file needs is read:
//! format versions 1–3, `descr` `<f4` (little-endian float32), C order, a shape of two
//! dimensions. Rows are read one at a time, so a file larger than memory is fine.

use crate::{Error, Result};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// An opened `.npy` matrix of float32 rows.
#[derive(Debug)]
pub struct NpyRows {
    path: PathBuf,
    /// Number of rows.
    pub rows: usize,
    /// Values per row.
    pub dim: usize,
    reader: BufReader<File>,
    next: usize,
}

impl NpyRows {
    /// Open `path` and check its header and length.
    pub fn open(path: &Path) -> Result<NpyRows> {
        let bad = |message: String| Error::model(path, message);
        let file = File::open(path).map_err(|e| bad(format!("cannot open: {e}")))?;
        let length = file.metadata().map_err(|e| bad(format!("cannot read: {e}")))?.len();
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut start = [0u8; 8];
        reader.read_exact(&mut start).map_err(|_| bad("is not a .npy file (shorter than its header)".into()))?;
        if &start[..6] != MAGIC {
            return Err(bad("is not a .npy file (no \\x93NUMPY magic)".into()));
        }
        let header_len = match start[6] {
            1 => {
                let mut size = [0u8; 2];
                reader.read_exact(&mut size).map_err(|_| bad("its header is cut short".into()))?;
                u16::from_le_bytes(size) as usize
            }
            2 | 3 => {
                let mut size = [0u8; 4];
                reader.read_exact(&mut size).map_err(|_| bad("its header is cut short".into()))?;
                u32::from_le_bytes(size) as usize
            }
            version => return Err(bad(format!("has .npy format version {version}; versions 1 to 3 are read"))),
        };
        if header_len > 1 << 20 {
            return Err(bad(format!("claims a {header_len}-byte header")));
        }
        let mut header = vec![0u8; header_len];
        reader.read_exact(&mut header).map_err(|_| bad("its header is cut short".into()))?;
        let header = String::from_utf8_lossy(&header);
        let (rows, dim) = parse_header(&header).map_err(bad)?;
        let prefix = 8 + if start[6] == 1 { 2 } else { 4 } + header_len as u64;
        let expected = rows.checked_mul(dim).and_then(|n| n.checked_mul(4)).map(|n| n as u64 + prefix);
        if expected != Some(length) {
            return Err(bad(format!(
                "is {length} bytes, but its header promises {rows} rows of {dim} float32 after a {prefix}-byte header"
            )));
        }
        Ok(NpyRows { path: path.to_path_buf(), rows, dim, reader, next: 0 })
    }

    /// The next row (`None` after the last), with an error naming the row when a value is not
    /// finite.
    pub fn next_row(&mut self) -> Option<Result<Vec<f32>>> {
        if self.next == self.rows {
            return None;
        }
        let row = self.next;
        self.next += 1;
        let mut bytes = vec![0u8; self.dim * 4];
        if let Err(e) = self.reader.read_exact(&mut bytes) {
            return Some(Err(Error::model(&self.path, format!("row {row}: cannot read: {e}"))));
        }
        let values: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if let Some(column) = values.iter().position(|v| !v.is_finite()) {
            let message = format!("row {row}, column {column}: {} is not a finite number", values[column]);
            return Some(Err(Error::model(&self.path, message)));
        }
        Some(Ok(values))
    }
}

/// The header of a version-1 `.npy` of `rows` float32 rows of `dim` values, as NumPy writes it
/// (magic, version, length, then the dictionary padded with spaces to a multiple of 64 bytes and
/// ended by a line feed).
pub fn header(rows: usize, dim: usize) -> Vec<u8> {
    let mut dictionary = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {dim}), }}");
    while (10 + dictionary.len() + 1) % 64 != 0 {
        dictionary.push(' ');
    }
    dictionary.push('\n');
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(dictionary.len() as u16).to_le_bytes());
    bytes.extend_from_slice(dictionary.as_bytes());
    bytes
}

/// `(rows, dim)` from a header such as `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`.
fn parse_header(header: &str) -> std::result::Result<(usize, usize), String> {
    let value_of = |key: &str| -> Option<&str> {
        let at = header.find(&format!("'{key}'")).or_else(|| header.find(&format!("\"{key}\"")))?;
        let rest = &header[at + key.len() + 2..];
        Some(rest[rest.find(':')? + 1..].trim_start())
    };
    let descr = value_of("descr").ok_or("its header has no 'descr'")?;
    if !(descr.starts_with("'<f4'") || descr.starts_with("\"<f4\"")) {
        let shown: String = descr.chars().take_while(|c| *c != ',').collect();
        return Err(format!("holds {shown} values; vectors must be little-endian float32 ('<f4')"));
    }
    let fortran = value_of("fortran_order").ok_or("its header has no 'fortran_order'")?;
    if !fortran.starts_with("False") {
        return Err("is in Fortran (column) order; save it with numpy.ascontiguousarray".into());
    }
    let shape = value_of("shape").ok_or("its header has no 'shape'")?;
    let inside = shape.strip_prefix('(').and_then(|s| s.split(')').next()).ok_or("its shape is not a tuple")?;
    let sizes: Vec<usize> = inside
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse::<usize>().map_err(|_| format!("its shape ({inside}) is not numbers")))
        .collect::<std::result::Result<_, _>>()?;
    match sizes[..] {
        [rows, dim] if dim > 0 => Ok((rows, dim)),
        _ => Err(format!("has shape ({inside}); vectors are a matrix of (papers, dimensions)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-1 `.npy` file as NumPy writes it (header padded to 64 bytes, ending in `\n`).
    pub(crate) fn npy(descr: &str, shape: &str, values: &[f32]) -> Vec<u8> {
        let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        values.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        bytes
    }

    #[test]
    fn the_header_written_is_numpys() {
        let values = [0.5f32, -1.0, 2.25, 3.0, 0.0, 1.5];
        let mut bytes = header(3, 2);
        assert_eq!(bytes.len() % 64, 0);
        values.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        assert_eq!(bytes, npy("<f4", "(3, 2)", &values));
        let mut rows = open(&bytes).unwrap();
        assert_eq!((rows.rows, rows.dim), (3, 2));
        assert_eq!(rows.next_row().unwrap().unwrap(), vec![0.5, -1.0]);
    }

    fn open(bytes: &[u8]) -> Result<NpyRows> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.npy");
        std::fs::write(&path, bytes).unwrap();
        let rows = NpyRows::open(&path);
        drop(dir);
        rows
    }

    #[test]
    fn rows_read_in_order() {
        let mut rows = open(&npy("<f4", "(2, 3)", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])).unwrap();
        assert_eq!((rows.rows, rows.dim), (2, 3));
        assert_eq!(rows.next_row().unwrap().unwrap(), vec![1.0, 2.0, 3.0]);
        assert_eq!(rows.next_row().unwrap().unwrap(), vec![4.0, 5.0, 6.0]);
        assert!(rows.next_row().is_none());
    }

    /// Files `numpy.save` wrote (kept as fuzzing seeds): read as NumPy means them.
    #[test]
    fn numpys_own_files_read_as_written() {
        let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/npy_vectors");
        let mut rows = NpyRows::open(&seeds.join("three_rows.npy")).unwrap();
        assert_eq!((rows.rows, rows.dim), (3, 4));
        let all: Vec<f32> = std::iter::from_fn(|| rows.next_row()).flat_map(Result::unwrap).collect();
        assert_eq!(all, (0..12).map(|v| v as f32).collect::<Vec<_>>());
        let error = NpyRows::open(&seeds.join("float64.npy")).unwrap_err().to_string();
        assert!(error.contains("'<f8'") && error.contains("float32"), "{error}");
    }

    #[test]
    fn what_is_not_a_float32_matrix_is_refused_with_the_reason() {
        let cases: [(Vec<u8>, &str); 5] = [
            (npy("<f8", "(1, 2)", &[1.0, 2.0, 3.0, 4.0]), "'<f4'"),
            (npy("<f4", "(3,)", &[1.0, 2.0, 3.0]), "a matrix"),
            (npy("<f4", "(2, 3)", &[1.0, 2.0]), "promises 2 rows of 3"),
            (b"PK\x03\x04 not numpy".to_vec(), "magic"),
            (npy("<f4", "(2, 0)", &[]), "a matrix"),
        ];
        for (bytes, expected) in cases {
            let error = open(&bytes).unwrap_err().to_string();
            assert!(error.contains(expected), "{error} lacks {expected}");
        }
        let mut rows = open(&npy("<f4", "(2, 2)", &[1.0, 2.0, f32::NAN, 4.0])).unwrap();
        assert!(rows.next_row().unwrap().is_ok());
        let error = rows.next_row().unwrap().unwrap_err().to_string();
        assert!(error.contains("row 1, column 0: NaN"), "{error}");
    }
}
