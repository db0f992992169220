//! The single-precision logarithm and sine/cosine PyTorch's AVX2 normal
//! fill computes with (`avx_mathfun.h`: Cephes' polynomials, eight lanes at
//! a time), written here one lane at a time with the same operations in the
//! same order, so `randn` of 16 or more floats is PyTorch's to the bit on
//! an x86 machine with AVX2 (its other CPUs use the C library's `log`,
//! `sin` and `cos` in double: the last bit or two can differ there).
//!
//! Every step is one IEEE single-precision operation: Rust fuses no
//! multiply-add unless asked, as the intrinsics do not. The constants are
//! C's: a decimal read as a double, then rounded to float.

const SQRT_HALF: f32 = std::f64::consts::FRAC_1_SQRT_2 as f32;
// As the C source writes it (read as a double, then rounded to float).
#[allow(clippy::excessive_precision)]
const LOG_P: [f64; 9] = [
    7.037_683_629_2E-2,
    -1.151_461_031_0E-1,
    1.167_699_874_0E-1,
    -1.242_014_084_6E-1,
    1.424_932_278_7E-1,
    -1.666_805_766_5E-1,
    2.000_071_476_5E-1,
    -2.499_999_399_3E-1,
    3.333_333_117_4E-1,
];
const LOG_Q1: f32 = -2.121_944_40e-4_f64 as f32;
const LOG_Q2: f32 = 0.693_359_375_f64 as f32;

/// `log256_ps` for one lane: NaN for x <= 0.
pub fn log(x: f32) -> f32 {
    if x <= 0.0 || x.is_nan() {
        return f32::NAN;
    }
    // Denormals cut off to the smallest normal float.
    let x = x.max(f32::from_bits(0x0080_0000));
    let bits = x.to_bits();
    let mut e = ((bits >> 23) as i32 - 0x7f) as f32 + 1.0;
    // The mantissa as a number in [0.5, 1).
    let mut m = f32::from_bits((bits & !0x7f80_0000) | 0.5f32.to_bits());
    let below = m < SQRT_HALF;
    let tmp = if below { m } else { 0.0 };
    m -= 1.0;
    if below {
        e -= 1.0;
    }
    m += tmp;
    let z = m * m;
    let mut y = LOG_P[0] as f32;
    for p in &LOG_P[1..] {
        y *= m;
        y += *p as f32;
    }
    y *= m;
    y *= z;
    y += e * LOG_Q1;
    y -= z * 0.5;
    m += y;
    m + e * LOG_Q2
}

const FOUR_OVER_PI: f32 = 1.273_239_544_735_16_f64 as f32;
// As the C source writes it (read as a double, then rounded to float).
#[allow(clippy::excessive_precision)]
const DP: [f64; 3] = [
    -0.785_156_25,
    -2.418_756_484_985_351_562_5e-4,
    -3.774_894_977_445_941_08e-8,
];
// As the C source writes it (read as a double, then rounded to float).
#[allow(clippy::excessive_precision)]
const SIN_P: [f64; 3] = [-1.951_529_589_1E-4, 8.332_160_873_6E-3, -1.666_665_461_1E-1];
// As the C source writes it (read as a double, then rounded to float).
#[allow(clippy::excessive_precision)]
const COS_P: [f64; 3] = [
    2.443_315_711_809_948E-5,
    -1.388_731_625_493_765E-3,
    4.166_664_568_298_827E-2,
];

/// `sincos256_ps` for one lane: (sin x, cos x).
pub fn sin_cos(x: f32) -> (f32, f32) {
    let sign_sin = x.to_bits() & 0x8000_0000;
    let mut x = x.abs();
    let y = x * FOUR_OVER_PI;
    // j = (j + 1) & ~1 (Cephes).
    let j = ((y as i32).wrapping_add(1)) & !1;
    let y = j as f32;
    let swap_sin = ((j & 4) as u32) << 29;
    let cos_poly = (j & 2) == 0;
    // Extended precision modular arithmetic.
    for dp in DP {
        x += y * dp as f32;
    }
    let sign_cos = ((!(j.wrapping_sub(2)) & 4) as u32) << 29;
    let sign_sin = sign_sin ^ swap_sin;
    let z = x * x;
    let mut c = COS_P[0] as f32;
    c *= z;
    c += COS_P[1] as f32;
    c *= z;
    c += COS_P[2] as f32;
    c *= z;
    c *= z;
    c -= z * 0.5;
    c += 1.0;
    let mut s = SIN_P[0] as f32;
    s *= z;
    s += SIN_P[1] as f32;
    s *= z;
    s += SIN_P[2] as f32;
    s *= z;
    s *= x;
    s += x;
    // Both polynomials are computed; each result takes the one that fits
    // its octant, the other lane adding +0 (as the masks do).
    let (sin, cos) = match cos_poly {
        true => (0.0 + s, c + 0.0),
        false => (c + 0.0, 0.0 + s),
    };
    (
        f32::from_bits(sin.to_bits() ^ sign_sin),
        f32::from_bits(cos.to_bits() ^ sign_cos),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_to_the_exact_functions() {
        for i in 1..2000 {
            let x = i as f32 / 2000.0;
            assert!(
                (log(x) - x.ln()).abs() <= 2e-7 * x.ln().abs().max(1.0),
                "{x}"
            );
            let t = x * std::f32::consts::TAU;
            let (s, c) = sin_cos(t);
            assert!(
                (s - t.sin()).abs() < 3e-7 && (c - t.cos()).abs() < 3e-7,
                "{t}"
            );
        }
        assert!(log(0.0).is_nan() && log(-1.0).is_nan());
    }
}
