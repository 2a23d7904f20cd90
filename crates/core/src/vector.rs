//! Vector maths on sentence vectors (f32, usually unit length).

/// Dot product with eight accumulators (the compiler vectorizes it). For unit vectors this is the
/// cosine; every ranking and clustering of unit vectors uses this one function so that the same
/// vectors always give the same scores, to the last bit.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = a.len().min(b.len()) / 8;
    for c in 0..chunks {
        for l in 0..8 {
            lanes[l] += a[c * 8 + l] * b[c * 8 + l];
        }
    }
    let tail: f32 = a[chunks * 8..].iter().zip(&b[chunks * 8..]).map(|(x, y)| x * y).sum();
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
}
