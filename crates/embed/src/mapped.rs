//! Files read through a read-only memory map, and their bytes seen as numbers: the one place
//! outside the matrix kernels where this crate needs `unsafe`.
//!
//! Why a map is sound here: litnav never writes a mapped file in place. The weights file is
//! installed once; a corpus's vector rows ([`crate::rows`]) are written to a temporary file and
//! renamed into place, so a reader keeps the file it mapped even when a newer one replaces it.
//! Only another program truncating the file underneath could make a read fault.
#![allow(unsafe_code)]

use memmap2::Mmap;
use std::fs::File;

/// Map `file` read-only.
pub(crate) fn map_file(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: see the module's note; the file is never modified in place while mapped.
    unsafe { Mmap::map(file) }
}

/// `bytes` as little-endian f32s, when they are 4-byte aligned and a whole number of them.
pub(crate) fn as_floats(bytes: &[u8]) -> Option<&[f32]> {
    const { assert!(cfg!(target_endian = "little"), "vector files are little-endian") };
    // SAFETY: every bit pattern is a valid f32; `align_to` puts misaligned bytes in the prefix
    // and suffix, which are required to be empty.
    let (prefix, floats, suffix) = unsafe { bytes.align_to::<f32>() };
    (prefix.is_empty() && suffix.is_empty()).then_some(floats)
}

/// `bytes` as i8s.
pub(crate) fn as_signed(bytes: &[u8]) -> &[i8] {
    // SAFETY: i8 and u8 have the same size, alignment and valid bit patterns.
    let (_, signed, _) = unsafe { bytes.align_to::<i8>() };
    signed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_the_numbers_written() {
        let values = [1.5f32, -2.25, 0.0];
        let mut bytes = vec![0u8; 3];
        values.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        // The allocator's alignment is not promised: start where the address is a multiple of 4.
        let start = (0..4).find(|&i| (bytes.as_ptr() as usize + i).is_multiple_of(4)).unwrap_or(0);
        let aligned = &mut bytes[start..];
        aligned.copy_within(3 - start.min(3)..3 - start.min(3) + 12, 0);
        assert_eq!(as_floats(&aligned[..12]), Some(&values[..]));
        assert_eq!(as_floats(&aligned[1..5]), None, "misaligned");
        assert_eq!(as_floats(&aligned[..6]), None, "not whole floats");
        assert_eq!(as_signed(&[255u8, 1]), &[-1i8, 1]);
    }
}
