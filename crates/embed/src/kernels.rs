//! The element-wise kernels of the forward pass (GELU, layer norm, softmax, short-sequence
//! attention), written as plain loops that the compiler vectorizes, and compiled three times: for
//! the baseline x86-64 target, for AVX2 + FMA and for AVX-512, chosen at run time. litnav's binary
//! therefore runs on any x86-64 CPU and uses the widest registers there are, without
//! `target-cpu=native`. Results may differ in the last bits between paths (FMA rounds once); all
//! stay far inside the 1e-4 equivalence bound.
#![allow(unsafe_code)]

/// Define `pub(crate) fn $name` that runs `$body` (an `#[inline(always)]` function) compiled for
/// the best instruction set the CPU has.
macro_rules! dispatch {
    ($(#[$doc:meta])* $name:ident => $body:ident ( $($arg:ident : $ty:ty),* )) => {
        $(#[$doc])*
        pub(crate) fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
                unsafe fn wide($($arg: $ty),*) { $body($($arg),*) }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn narrow($($arg: $ty),*) { $body($($arg),*) }
                match level() {
                    // SAFETY: `level` checked that the CPU has these instruction sets.
                    Level::Avx512 => return unsafe { wide($($arg),*) },
                    Level::Avx2 => return unsafe { narrow($($arg),*) },
                    Level::Baseline => {}
                }
            }
            $body($($arg),*)
        }
    };
}

#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Level {
    Baseline,
    Avx2,
    Avx512,
}

#[cfg(target_arch = "x86_64")]
fn level() -> Level {
    use std::sync::OnceLock;
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
            Level::Avx512
        } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            Level::Avx2
        } else {
            Level::Baseline
        }
    })
}

/// Whether the CPU converts half-precision values in 8-lane registers (F16C).
pub(crate) fn has_f16c() -> bool {
    #[cfg(target_arch = "x86_64")]
    return is_x86_feature_detected!("f16c");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether the CPU runs AVX-512F code (the matrix product's widest micro-kernel).
pub(crate) fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    return matches!(level(), Level::Avx512);
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether the CPU runs AVX2 and FMA code — the AVX-512 level includes both, as the dispatch
/// above assumes — for the matrix product's micro-kernel.
pub(crate) fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    return !matches!(level(), Level::Baseline);
    #[cfg(not(target_arch = "x86_64"))]
    false
}

dispatch!(
    /// Apply GELU to every element.
    gelu => gelu_body(x: &mut [f32])
);
dispatch!(
    /// Layer-normalize every row of `x` (rows of `gamma.len()` values) in place.
    layer_norm => layer_norm_body(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32)
);
dispatch!(
    /// Softmax of every row of `x` (rows of `width` values) scaled by `scale`, in place.
    softmax_rows => softmax_body(x: &mut [f32], width: usize, scale: f32)
);
dispatch!(
    /// Multi-head self-attention of one short sequence by direct loops. `qkv` holds `len` rows of
    /// `3·hidden` values (queries, keys, values); the result goes to `context`, `len` rows
    /// `stride` apart. For short sequences this beats two matrix products per head, whose fixed
    /// cost dominates at a few tokens.
    attention_direct => attention_body(qkv: &[f32], len: usize, hidden: usize, heads: usize, context: &mut [f32], stride: usize)
);

#[inline(always)]
fn attention_body(qkv: &[f32], len: usize, hidden: usize, heads: usize, context: &mut [f32], stride: usize) {
    let head_dim = hidden / heads;
    let scale = 1.0 / (head_dim as f32).sqrt();
    let mut weights = vec![0.0f32; len];
    for head in 0..heads {
        let offset = head * head_dim;
        for i in 0..len {
            let q = &qkv[i * 3 * hidden + offset..][..head_dim];
            for (j, w) in weights.iter_mut().enumerate() {
                let k = &qkv[j * 3 * hidden + hidden + offset..][..head_dim];
                *w = q.iter().zip(k).map(|(a, b)| a * b).sum::<f32>();
            }
            softmax_body(&mut weights, len, scale);
            let out = &mut context[i * stride + offset..][..head_dim];
            out.fill(0.0);
            for (j, w) in weights.iter().enumerate() {
                let v = &qkv[j * 3 * hidden + 2 * hidden + offset..][..head_dim];
                for (o, x) in out.iter_mut().zip(v) {
                    *o += w * x;
                }
            }
        }
    }
}

/// Elements [`gelu_body`] evaluates together: four registers of f64 lanes, so that the error
/// function's 17-step polynomial runs as four independent chains instead of one whose every step
/// waits for the one before (the same operations per element, so the same bits).
const GELU_BLOCK: usize = 32;

#[inline(always)]
fn gelu_body(x: &mut [f32]) {
    let mut blocks = x.chunks_exact_mut(GELU_BLOCK);
    for block in &mut blocks {
        let block: &mut [f32; GELU_BLOCK] = block.try_into().expect("a whole block");
        let mut scaled = [0.0f32; GELU_BLOCK];
        for (s, &v) in scaled.iter_mut().zip(block.iter()) {
            *s = v * std::f32::consts::FRAC_1_SQRT_2;
        }
        let erfs = erf_block(scaled);
        for (v, e) in block.iter_mut().zip(erfs) {
            *v = gelu_from_erf(*v, e);
        }
    }
    for v in blocks.into_remainder() {
        *v = gelu_from_erf(*v, erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// GELU of `v` given `erf(v / √2)`: `v · (1 + erf(v / √2)) / 2`.
#[inline(always)]
fn gelu_from_erf(v: f32, erf: f32) -> f32 {
    0.5 * v * (1.0 + erf)
}

/// The sum of `f` of every value, with eight independent accumulators (value `i` to lane
/// `i mod 8`, the rest added in order), so the loop vectorizes.
#[inline(always)]
fn sum8(values: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane += f(v);
        }
    }
    let tail: f32 = chunks.remainder().iter().map(|&v| f(v)).sum();
    lanes.iter().sum::<f32>() + tail
}

/// The largest of `values`, in sixteen lanes so the loop vectorizes (a maximum is exact, so the
/// order does not matter; NaNs are passed over, as by `f32::max`).
#[inline(always)]
fn max16(values: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 16];
    let mut chunks = values.chunks_exact(16);
    for chunk in &mut chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane = if v > *lane { v } else { *lane };
        }
    }
    chunks.remainder().iter().chain(&lanes).copied().fold(f32::NEG_INFINITY, f32::max)
}

#[inline(always)]
fn layer_norm_body(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let width = gamma.len();
    for row in x.chunks_exact_mut(width) {
        let mean = sum8(row, |v| v) / width as f32;
        let variance = sum8(row, |v| (v - mean) * (v - mean)) / width as f32;
        let inv = 1.0 / (variance + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

#[inline(always)]
fn softmax_body(x: &mut [f32], width: usize, scale: f32) {
    for row in x.chunks_exact_mut(width) {
        row.iter_mut().for_each(|v| *v *= scale);
        let max = max16(row);
        for v in row.iter_mut() {
            *v = exp(*v - max);
        }
        let inv = 1.0 / sum8(row, |v| v);
        row.iter_mut().for_each(|v| *v *= inv);
    }
}

/// Coefficients of `P(u)` with `erf(x) ≈ x · P(x² / 16)` on `|x| ≤ 4`, lowest degree first.
///
/// Fitted for litnav (NumPy, float64): a degree-16 Chebyshev least-squares fit of `erf(x)/x` at
/// 4,000 Chebyshev nodes of `u = x²/16 ∈ [0, 1]`, converted to the power basis in `u`. Evaluated
/// in f64 its error is below 1.3e-8 on `[-4, 4]`; beyond, `erf` is ±1 to within 1.6e-8. The power
/// basis has large alternating coefficients, hence the f64 evaluation.
const ERF_POLY: [f64; 17] = [
    1.1283791624177208,
    -6.018019441290805,
    28.886230444716713,
    -110.03292468080339,
    342.13027488242824,
    -893.4334991413596,
    1997.5932735110875,
    -3856.3339458879937,
    6406.855250225455,
    -9032.191755672204,
    10564.533870285883,
    -9962.576652105929,
    7314.692869352697,
    -3996.4927485039566,
    1520.1049986268572,
    -357.6829148000966,
    39.08731374137704,
];

/// The error function without branches (libm's `erff` branches, and was a sixth of the
/// encoder's time). Accurate to ~2e-8.
#[inline(always)]
fn erf(x: f32) -> f32 {
    erf_block([x])[0]
}

/// [`erf`] of each of `N` values, the polynomial's steps taken for all of them in turn.
#[inline(always)]
fn erf_block<const N: usize>(xs: [f32; N]) -> [f32; N] {
    let (mut x, mut u) = ([0.0f64; N], [0.0f64; N]);
    for ((x, u), &v) in x.iter_mut().zip(&mut u).zip(&xs) {
        *x = f64::from(v.clamp(-4.0, 4.0));
        *u = *x * *x / 16.0;
    }
    let mut p = [ERF_POLY[16]; N];
    for &c in ERF_POLY[..16].iter().rev() {
        for (p, u) in p.iter_mut().zip(&u) {
            *p = p.mul_add(*u, c);
        }
    }
    let mut out = [0.0f32; N];
    for ((o, x), p) in out.iter_mut().zip(&x).zip(&p) {
        *o = (x * p) as f32;
    }
    out
}

/// `e^x` without branches for the softmax (inputs ≤ 0 after subtracting the row maximum):
/// `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2` (ln 2 split in two parts so `r` is exact), a degree-7
/// Taylor polynomial for `e^r` (truncation error below 2.1e-8 relative), and `2^n` built in the
/// exponent bits. Inputs below −87 give 0 (the true value is under f32's normal range).
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.0, 88.0);
    // Round to nearest by adding and removing 1.5·2²³ (vectorizes, unlike `f32::round`); the sum's
    // low mantissa bits then hold n itself, which gives 2^n without a float → int conversion.
    const ROUNDER: f32 = 12_582_912.0;
    let shifted = x * std::f32::consts::LOG2_E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.0 / 5040.0;
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        p = p * r + c;
    }
    let scale = f32::from_bits(shifted.to_bits().wrapping_sub(ROUNDER.to_bits()).wrapping_add(127) << 23);
    p * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_libm_to_f32_resolution() {
        let mut worst = 0.0f32;
        for i in -120_000..=120_000 {
            let x = i as f32 / 20_000.0; // [-6, 6]
            worst = worst.max((erf(x) - libm::erff(x)).abs());
        }
        assert!(worst < 2e-7, "worst erf error {worst:e}");
    }

    #[test]
    fn exp_is_accurate_on_the_softmax_range() {
        let mut worst = 0.0f32;
        for i in 0..=870_000 {
            let x = -(i as f32) / 10_000.0; // [-87, 0]
            let reference = x.exp();
            if reference > 1e-37 {
                worst = worst.max(((exp(x) - reference) / reference).abs());
            }
        }
        assert!(worst < 4e-7, "worst relative exp error {worst:e}");
    }

    #[test]
    fn the_vectorized_loops_give_the_bits_of_the_plain_ones() {
        // GELU in blocks of 32 against one value at a time (tails of every length included).
        let values: Vec<f32> = (0..1000).map(|i| ((i * 37 % 1000) as f32 - 500.0) / 90.0).collect();
        for len in [1000, 999, 33, 31, 1] {
            let mut blocks = values[..len].to_vec();
            gelu_body(&mut blocks);
            for (x, y) in values[..len].iter().zip(&blocks) {
                let one = 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
                assert_eq!(one.to_bits(), y.to_bits(), "gelu({x})");
            }
        }
        // Softmax with its maximum in sixteen lanes against a plain fold.
        for width in [214, 16, 7] {
            let mut rows: Vec<f32> = (0..3 * width).map(|i| (i as f32 * 0.37).sin() * 9.0).collect();
            let mut plain = rows.clone();
            softmax_body(&mut rows, width, 0.17);
            for row in plain.chunks_exact_mut(width) {
                row.iter_mut().for_each(|v| *v *= 0.17);
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                row.iter_mut().for_each(|v| *v = exp(*v - max));
                let inv = 1.0 / sum8(row, |v| v);
                row.iter_mut().for_each(|v| *v *= inv);
            }
            assert_eq!(rows, plain);
        }
    }

    #[test]
    fn both_paths_agree() {
        let mut a: Vec<f32> = (0..1000).map(|i| (i as f32 - 500.0) / 60.0).collect();
        let mut b = a.clone();
        gelu(&mut a);
        gelu_body(&mut b);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-6 * x.abs().max(1.0));
        }
        let mut rows: Vec<f32> = (0..64).map(|i| (i as f32).sin() * 5.0).collect();
        softmax_rows(&mut rows, 16, 1.0);
        for row in rows.chunks(16) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }
}
