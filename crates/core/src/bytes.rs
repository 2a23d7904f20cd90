//! Reading litnav's own binary files: a bounds-checked little-endian reader (running out of bytes
//! is an error, never a panic) and the FNV-1a checksum some of them carry.

/// Little-endian fields read off the front of a byte slice.
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> ByteReader<'a> {
        ByteReader { bytes, at: 0 }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or("the file is truncated")?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    /// The next 4 bytes as a `u32`.
    pub fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// The next 8 bytes as a `u64`.
    pub fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next 4 bytes as an `f32`.
    pub fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    /// Bytes in the whole slice (read or not).
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut array = [0u8; N];
        array.copy_from_slice(self.take(N)?);
        Ok(array)
    }
}

/// FNV-1a, 64 bits: a checksum that finds damage (not an adversary).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_order_and_running_out_is_an_error() {
        let bytes = [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 63, 9];
        let mut reader = ByteReader::new(&bytes);
        assert_eq!(reader.u32(), Ok(1));
        assert_eq!(reader.u64(), Ok(2));
        assert_eq!(reader.f32(), Ok(1.0));
        assert!(!reader.at_end());
        assert_eq!(reader.u32(), Err("the file is truncated".to_string()));
        assert_eq!(reader.take(1), Ok(&[9u8][..]));
        assert!(reader.at_end() && reader.len() == 17);
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
