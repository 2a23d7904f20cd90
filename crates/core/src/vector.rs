//! Vector maths on sentence vectors (f32, usually unit length).

/// Dot product with eight accumulators (the compiler vectorizes it). For unit vectors this is the
/// cosine; every ranking and clustering of unit vectors uses this one function so that the same
/// vectors always give the same scores, to the last bit. On a CPU with AVX2 the same loop runs
/// compiled for it (eight lanes in one register instead of two; no fused multiply-add, so the
/// rounding, and the result, are those of the baseline build).
#[allow(unsafe_code)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn dot_avx2(a: &[f32], b: &[f32]) -> f32 {
            dot_lanes(a, b)
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { dot_avx2(a, b) };
        }
    }
    dot_lanes(a, b)
}

/// `Σ a[i]·b[i]` of two int8 vectors, exact in i32 (the approximate scans' inner loop, see
/// `litnav-embed`'s `rows.rs`); compiled for AVX2 where the CPU has it, like [`dot`].
#[allow(unsafe_code)]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
            dot_i8_lanes(a, b)
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { dot_i8_avx2(a, b) };
        }
    }
    dot_i8_lanes(a, b)
}

#[inline(always)]
fn dot_i8_lanes(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0i32; 16];
    let (a_chunks, b_chunks) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 =
        a_chunks.remainder().iter().zip(b_chunks.remainder()).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        let (x, y): (&[i8; 16], &[i8; 16]) = (x.try_into().unwrap_or(&[0; 16]), y.try_into().unwrap_or(&[0; 16]));
        for l in 0..16 {
            lanes[l] += i32::from(i16::from(x[l]) * i16::from(y[l]));
        }
    }
    lanes.iter().sum::<i32>() + tail
}

#[inline(always)]
fn dot_lanes(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks.remainder().iter().zip(b_chunks.remainder()).map(|(x, y)| x * y).sum();
    // Fixed-size chunks: no bounds checks in the loop, so it compiles to packed multiplies and
    // adds (each lane still sums its elements in order, so the result is the same to the bit).
    for (x, y) in a_chunks.zip(b_chunks) {
        let (x, y): (&[f32; 8], &[f32; 8]) = (x.try_into().unwrap_or(&[0.0; 8]), y.try_into().unwrap_or(&[0.0; 8]));
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// Cosine similarity of two vectors of any length (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na * nb) }
}

/// Scale `v` to unit length in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The unit-length mean of `vectors` (the direction of their sum); empty for no vectors.
pub fn unit_mean<V: AsRef<[f32]>>(vectors: &[V]) -> Vec<f32> {
    let dim = vectors.first().map_or(0, |v| v.as_ref().len());
    let mut mean = vec![0.0f32; dim];
    for v in vectors {
        for (m, x) in mean.iter_mut().zip(v.as_ref()) {
            *m += x;
        }
    }
    normalize(&mut mean);
    mean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_dot_products_are_exact_at_every_length_and_extreme() {
        let mut rng = crate::rng::SplitMix64(3);
        for n in [0, 1, 15, 16, 17, 384, 1000] {
            let a: Vec<i8> = (0..n).map(|_| rng.next_u64() as i8).collect();
            let mut b: Vec<i8> = (0..n).map(|_| rng.next_u64() as i8).collect();
            if let Some(first) = b.first_mut() {
                *first = i8::MIN;
            }
            let naive: i32 = a.iter().zip(&b).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum();
            assert_eq!(dot_i8(&a, &b), naive, "{n}");
        }
        assert_eq!(dot_i8(&[i8::MIN; 64], &[i8::MIN; 64]), 64 * 16384);
    }

    #[test]
    fn by_hand() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        assert_eq!(dot(&a, &a), 285.0);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 2.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[0.0, 2.0]), 0.0);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-6);
        assert_eq!(unit_mean(&[vec![1.0, 0.0], vec![0.0, 1.0]]), vec![0.70710677, 0.70710677]);
        assert!(unit_mean::<Vec<f32>>(&[]).is_empty());
        let mut zero = [0.0, 0.0];
        normalize(&mut zero);
        assert_eq!(zero, [0.0, 0.0]);
    }

    /// Scores stay what they were when the loop was written with indices (lane l sums elements
    /// l, l + 8, … in order, then the lanes and the tail are added): stored rankings and
    /// benchmark figures depend on every bit.
    #[test]
    fn eight_lanes_in_a_fixed_order() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 20_000) as f32 / 10_000.0 - 1.0
        };
        for len in [0, 1, 7, 8, 9, 383, 384, 385] {
            let a: Vec<f32> = (0..len).map(|_| next()).collect();
            let b: Vec<f32> = (0..len + 3).map(|_| next()).collect();
            let mut lanes = [0.0f32; 8];
            for c in 0..len / 8 {
                for (l, lane) in lanes.iter_mut().enumerate() {
                    *lane += a[c * 8 + l] * b[c * 8 + l];
                }
            }
            let tail: f32 = (len / 8 * 8..len).map(|i| a[i] * b[i]).sum();
            let expected = lanes.iter().sum::<f32>() + tail;
            assert_eq!(dot(&a, &b).to_bits(), expected.to_bits(), "length {len}");
        }
    }
}
