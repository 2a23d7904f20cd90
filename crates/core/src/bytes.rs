//! Reading litnav's own binary files: a bounds-checked little-endian reader (running out of bytes
//! is an error, never a panic) and the FNV-1a checksum some of them carry. And reading text files
//! 64 bytes at a time: [`BlockMasks`] marks a block's white space and line ends.

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

/// Which bytes of a 64-byte block are ASCII white space (as [`u8::is_ascii_whitespace`] says:
/// space, tab, line feed, form feed, carriage return) and which end a line, as bit masks (bit `i`
/// is byte `i`). Reading fields off the masks with bit operations, rather than byte by byte with
/// a branch at each field's ends, is what makes whole files of short lines (TREC runs) quick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockMasks {
    /// Bytes that are not white space.
    pub not_space: u64,
    /// Line feeds.
    pub newlines: u64,
}

impl BlockMasks {
    /// The masks of a block: with SSE2 on x86-64 (part of its baseline, so always there), 16
    /// bytes per instruction; elsewhere a byte at a time.
    #[inline]
    pub fn of(block: &[u8; 64]) -> BlockMasks {
        #[cfg(target_arch = "x86_64")]
        return sse2_masks(block);
        #[cfg(not(target_arch = "x86_64"))]
        return byte_masks(block);
    }
}

/// The masks of a text's bytes read front to back, 64 from any position at a time
/// ([`BlockWindow::at`]). They are cut from the masks of the two aligned blocks the 64 bytes
/// straddle, kept from one call to the next, so that each block is classified once however many
/// lines start in it, and the start of the next line waits only on a few bit operations rather
/// than on classifying the block that starts with it. Past the text's end, bytes read as line
/// feeds, so that the end ends the last line.
pub struct BlockWindow<'a> {
    bytes: &'a [u8],
    /// Where the current aligned block starts.
    base: usize,
    /// The masks of the current block and of the one after it.
    current: BlockMasks,
    next: BlockMasks,
}

impl<'a> BlockWindow<'a> {
    /// A window at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> BlockWindow<'a> {
        BlockWindow { bytes, base: 0, current: padded_block(bytes, 0), next: padded_block(bytes, 64) }
    }

    /// The masks of the 64 bytes from `start` (bit `i` is byte `start + i`). Quickest when
    /// `start` is at or a little after the previous call's; any other position costs two
    /// blocks' masks.
    #[inline]
    pub fn at(&mut self, start: usize) -> BlockMasks {
        if start < self.base || start - self.base >= 128 {
            self.base = start & !63;
            self.current = padded_block(self.bytes, self.base);
            self.next = padded_block(self.bytes, self.base + 64);
        } else if start - self.base >= 64 {
            self.base += 64;
            self.current = self.next;
            self.next = padded_block(self.bytes, self.base + 64);
        }
        let offset = (start - self.base) as u32;
        let join = |current: u64, next: u64| match offset {
            0 => current,
            _ => current >> offset | next << (64 - offset),
        };
        BlockMasks {
            not_space: join(self.current.not_space, self.next.not_space),
            newlines: join(self.current.newlines, self.next.newlines),
        }
    }
}

/// The masks of the 64 bytes of `bytes` from `start`, padded with line feeds past its end.
#[inline]
fn padded_block(bytes: &[u8], start: usize) -> BlockMasks {
    match bytes.get(start..).and_then(<[u8]>::first_chunk::<64>) {
        Some(block) => BlockMasks::of(block),
        None => last_padded_block(bytes, start),
    }
}

/// [`padded_block`] of a block that runs past the end of `bytes`.
#[cold]
fn last_padded_block(bytes: &[u8], start: usize) -> BlockMasks {
    let rest = bytes.get(start..).unwrap_or_default();
    let mut padded = [b'\n'; 64];
    padded[..rest.len()].copy_from_slice(rest);
    BlockMasks::of(&padded)
}

/// [`BlockMasks::of`] a byte at a time: the definition the SIMD version is tested against.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn byte_masks(block: &[u8; 64]) -> BlockMasks {
    let mask = |test: fn(&u8) -> bool| block.iter().enumerate().fold(0, |mask, (i, b)| mask | u64::from(test(b)) << i);
    BlockMasks { not_space: mask(|b| !b.is_ascii_whitespace()), newlines: mask(|&b| b == b'\n') }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline]
fn sse2_masks(block: &[u8; 64]) -> BlockMasks {
    use std::arch::x86_64::*;
    let (mut not_space, mut newlines) = (0u64, 0u64);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86-64 baseline, and the unaligned load reads the 16 bytes
        // of `chunk`.
        let (spaces, line_feeds) = unsafe {
            let bytes = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let splat = |b: u8| _mm_set1_epi8(b as i8);
            // Tab, line feed, vertical tab, form feed and carriage return are 9..=13: `b - 9` is
            // at most 4 (unsigned) for them. Vertical tab is not white space.
            let shifted = _mm_sub_epi8(bytes, splat(9));
            let controls = _mm_cmpeq_epi8(_mm_min_epu8(shifted, splat(4)), shifted);
            let vertical_tab = _mm_cmpeq_epi8(bytes, splat(11));
            let spaces = _mm_or_si128(_mm_cmpeq_epi8(bytes, splat(b' ')), _mm_andnot_si128(vertical_tab, controls));
            (_mm_movemask_epi8(spaces), _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, splat(b'\n'))))
        };
        not_space |= u64::from(!(spaces as u16)) << (16 * i);
        newlines |= u64::from(line_feeds as u16) << (16 * i);
    }
    BlockMasks { not_space, newlines }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_masks_mark_every_byte_as_is_ascii_whitespace_does() {
        // Every byte value at every position of a block, and each block against the byte-at-a-time
        // definition.
        let mut seed = 7u64;
        for round in 0..64 {
            let mut block = [0u8; 64];
            for (i, b) in block.iter_mut().enumerate() {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                *b = if round < 4 {
                    (round * 64 + i) as u8
                } else {
                    [b' ', b'\t', b'\n', 11, 12, b'\r', b'a', (seed >> 56) as u8][(seed >> 33) as usize % 8]
                };
            }
            let masks = BlockMasks::of(&block);
            assert_eq!(masks, byte_masks(&block), "{block:?}");
            for (i, b) in block.iter().enumerate() {
                assert_eq!(masks.not_space >> i & 1 == 1, !b.is_ascii_whitespace(), "byte {b} at {i}");
                assert_eq!(masks.newlines >> i & 1 == 1, *b == b'\n', "byte {b} at {i}");
            }
        }
    }

    #[test]
    fn a_window_gives_the_masks_of_the_padded_bytes_from_any_position() {
        let mut seed = 11u64;
        let mut draw = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for length in [0, 1, 63, 64, 65, 127, 128, 129, 300, 1000] {
            let bytes: Vec<u8> = (0..length).map(|_| [b' ', b'\n', b'\t', b'a', b'7'][draw(5) as usize]).collect();
            let expected = |start: usize| {
                let mut padded = [b'\n'; 64];
                for (i, b) in bytes.iter().skip(start).take(64).enumerate() {
                    padded[i] = *b;
                }
                byte_masks(&padded)
            };
            let mut window = BlockWindow::new(&bytes);
            // Forward in small and large steps, then anywhere.
            let mut start = 0;
            while start < length + 70 {
                assert_eq!(window.at(start), expected(start), "length {length}, from {start}");
                start += [1, 5, 40, 64, 130][draw(5) as usize];
            }
            for _ in 0..50 {
                let start = draw(length as u64 + 70) as usize;
                assert_eq!(window.at(start), expected(start), "length {length}, back to {start}");
            }
        }
    }

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
