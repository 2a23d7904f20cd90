//! IEEE 754 binary16 ("half precision") in software: the rounding that stores the query
//! encoder's weights in half the bytes, and the widening the portable kernel reads them with.
//! The AVX2 kernel widens with the F16C instruction instead, which gives the same values (every
//! binary16 value is exactly representable in f32); a test in `gemm.rs` checks both directions
//! against the hardware.

/// `x` rounded to the nearest binary16 value (ties to even), as its bit pattern. Values beyond
/// the largest finite half (65,504) become infinities, values below the smallest subnormal
/// (2⁻²⁴) zeros of the same sign, NaNs stay NaNs (quiet).
pub(crate) fn to_half(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        let quiet = if mantissa != 0 { 0x200 } else { 0 };
        return sign | 0x7c00 | quiet;
    }
    // The exponent re-biased for binary16 (bias 15 instead of 127).
    let biased = exponent - 127 + 15;
    if biased >= 0x1f {
        return sign | 0x7c00;
    }
    if biased <= 0 {
        // A subnormal half: the value is h · 2⁻²⁴, h = significand · 2^(exponent − 126).
        if biased < -10 {
            return sign;
        }
        let significand = mantissa | 0x80_0000;
        let shift = (14 - biased) as u32;
        return sign | round_shift(significand, shift) as u16;
    }
    // A normal half: 10 of the 23 mantissa bits; a carry out of the mantissa raises the exponent
    // (up to infinity), as rounding should.
    let truncated = ((biased as u32) << 10) | (mantissa >> 13);
    let rounded = truncated + round_up(mantissa & 0x1fff, 13, truncated);
    sign | rounded as u16
}

/// The f32 a binary16 bit pattern stands for (exact; a NaN comes out quiet).
pub(crate) fn from_half(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exponent = u32::from((h >> 10) & 0x1f);
    let mantissa = u32::from(h & 0x3ff);
    let magnitude = match exponent {
        0 => {
            // A subnormal (or zero): mantissa · 2⁻²⁴.
            let value = mantissa as f32 * f32::from_bits(0x3380_0000);
            return if sign == 0 { value } else { -value };
        }
        // Infinity, or a NaN made quiet (as F16C does).
        0x1f if mantissa == 0 => 0x7f80_0000,
        0x1f => 0x7fc0_0000 | (mantissa << 13),
        _ => ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// `value >> shift`, rounded to nearest, ties to even.
fn round_shift(value: u32, shift: u32) -> u32 {
    let kept = value >> shift;
    kept + round_up(value & ((1 << shift) - 1), shift, kept)
}

/// 1 when the `dropped` low bits (of `width` bits) round `kept` up: above half, or exactly half
/// and `kept` odd.
fn round_up(dropped: u32, width: u32, kept: u32) -> u32 {
    let half = 1 << (width - 1);
    u32::from(dropped > half || (dropped == half && kept & 1 == 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_half_survives_the_round_trip() {
        for h in 0..=u16::MAX {
            let x = from_half(h);
            if x.is_nan() {
                assert!(from_half(to_half(x)).is_nan(), "{h:#06x}");
            } else {
                assert_eq!(to_half(x), h, "{h:#06x} ({x})");
            }
        }
    }

    #[test]
    fn rounding_is_to_nearest_with_ties_to_even() {
        assert_eq!(to_half(1.0), 0x3c00);
        assert_eq!(to_half(65504.0), 0x7bff);
        assert_eq!(to_half(65520.0), 0x7c00); // halfway to the next binade: rounds to infinity
        assert_eq!(to_half(-1e-8), 0x8000);
        assert_eq!(to_half(2f32.powi(-24)), 0x0001);
        assert_eq!(to_half(2f32.powi(-25)), 0x0000); // a tie between 0 and the smallest: even
        assert_eq!(to_half(1.5 * 2f32.powi(-24)), 0x0002); // a tie between 1 and 2 ulps: even
        let ulp = 2f32.powi(-10);
        assert_eq!(to_half(1.0 + ulp / 2.0), 0x3c00); // tie: stays even
        assert_eq!(to_half(1.0 + 1.5 * ulp), 0x3c02); // tie: up to even
        assert_eq!(to_half(1.0 + ulp / 2.0 + ulp / 64.0), 0x3c01); // above the tie
    }
}
