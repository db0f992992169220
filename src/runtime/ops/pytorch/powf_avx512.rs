//! SLEEF's `powf` (`sleef::powf`, what PyTorch's kernels give for f32 `x
//! ** y` in registers) with the same bits, in AVX-512 and over twice as
//! fast as SLEEF's own steps (1000×1000 `x ** x` with 2 threads: 384 µs
//! against 837 µs): issue 21's `x ** y` and `x ** 2.5`.
//!
//! SLEEF computes `log x` and `y log x` in double-float arithmetic (pairs
//! of f32s), reduces by a multiple `q` of ln 2 to `s`, and returns
//! `(1 + s + s² u) 2^q` rounded to f32, where `u` is a polynomial in `s`,
//! rounded to f32 along the way. Its double-float steps carry about 44
//! bits; the f32 roundings of `u` and of the log's own polynomial are what
//! make its result differ from the correctly rounded one (by up to 1 ulp).
//! Here:
//! - the steps that round to f32 are SLEEF's own, in f32 lanes: the log's
//!   mantissa and exponent, its quotient `(m - 1) / (m + 1)` and that
//!   quotient's square to f32, its polynomial `t` in that, the f32 of `s`,
//!   and `u`;
//! - the double-float arithmetic around them is f64 arithmetic, 8 lanes to
//!   a register (53 bits, one instruction for each of SLEEF's four or
//!   more);
//! - each lane checks that its f64 values are far enough from every point
//!   where SLEEF's could round the other way: `s` (so `d / ln 2`, with `d =
//!   y log x`) from a half-integer multiple of ln 2, and `s` and the result
//!   from a midpoint between f32s. Far enough is a bound on the two
//!   computations' difference, `|d| 2^-41 + 2^-44`: three times the largest
//!   measured (the log over every f32 `x`, `y log x` to the result over 5e7
//!   pairs of several kinds) with SLEEF's rounding of `q L2L` to f32 (up to
//!   `|d| 2^-42.9`) added;
//! - a lane that fails a check, or whose input or result is outside the
//!   plain case (x not a positive normal number, y not finite, a result
//!   that is not a normal number, x = 1 or y = 0, exact powers of 2), takes
//!   SLEEF's own steps (`sleef::powf`): about 1 lane in 600 for a typical
//!   tensor's values. Those lanes are gathered and computed 16 at a time.
//!
//! The tests compare this with `sleef::powf` on 10^5 pairs of each of seven
//! kinds, and the ignored `sleef_powf_bits_on_many_pairs` on 10^8 of each.

// SLEEF's constants with its digits, as in `sleef`.
#![allow(clippy::excessive_precision)]

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use super::sleef::{self, EXPKF_LN2, EXPKF_U, LOGKF_C, LOGKF_LN2, LOGKF_T};
use super::vector_split::Operand;

/// `$e` for each of four registers of f32 (`$j` = 0 to 3), or each of
/// their eight halves in f64 (`$h` = 0 to 7): each step for all of them
/// before the next step, so that the CPU has independent work while each
/// long chain of dependent steps waits.
macro_rules! each {
    ($i:ident => $e:expr; $($n:literal)*) => {
        [$({ let $i = $n; $e }),*]
    };
}
macro_rules! each4 {
    ($j:ident => $e:expr) => {
        each!($j => $e; 0 1 2 3)
    };
}
macro_rules! each8 {
    ($h:ident => $e:expr) => {
        each!($h => $e; 0 1 2 3 4 5 6 7)
    };
}

/// SLEEF's double-float constants, each the exact sum of its two f32s: 2/3
/// as its log polynomial has it, ln 2 for the log, and ln 2 for the
/// reduction.
const C: f64 = LOGKF_C.0 as f64 + LOGKF_C.1 as f64;
const LN2: f64 = LOGKF_LN2.0 as f64 + LOGKF_LN2.1 as f64;
const L2: f64 = EXPKF_LN2.0 as f64 + EXPKF_LN2.1 as f64;
/// The bound on the difference between SLEEF's `y log x`, `s` or `1 + s +
/// s² u` (relative) and these: `|d| KD + K0`.
const KD: f64 = 1.0 / (1u64 << 41) as f64;
const K0: f64 = 1.0 / (1u64 << 44) as f64;

/// `out[k] = sleef::powf(x[k], y[k])`, bit for bit.
///
/// # Safety
/// The CPU has AVX-512 F, DQ and VL, and FMA.
#[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
pub unsafe fn powf(out: &mut [MaybeUninit<f32>], x: Operand<'_, f32>, y: Operand<'_, f32>) {
    let n = out.len();
    for v in [x, y] {
        if let Operand::Each(v) = v {
            assert!(v.len() >= n);
        }
    }
    let mut fallback = Fallback {
        at: [0; 16],
        len: 0,
    };
    let mut k = 0;
    while k < n {
        let len = BLOCK.min(n - k);
        let plain = if len == BLOCK {
            // SAFETY: k + BLOCK <= n, within each slice (asserted above).
            let (r, plain) = block(x_registers(x, k), y_registers(y, k));
            for (j, r) in r.into_iter().enumerate() {
                // SAFETY: as above; MaybeUninit<f32> is an f32's size.
                _mm512_storeu_ps(out.as_mut_ptr().add(k + 16 * j) as *mut f32, r);
            }
            plain
        } else {
            // The last elements, padded with ones to a whole block.
            let (mut xp, mut yp, mut rp) = ([1.0f32; BLOCK], [1.0f32; BLOCK], [0.0f32; BLOCK]);
            for i in 0..len {
                (xp[i], yp[i]) = (at(x, k + i), at(y, k + i));
            }
            let (r, plain) = block(
                x_registers(Operand::Each(&xp), 0),
                y_registers(Operand::Each(&yp), 0),
            );
            for (j, r) in r.into_iter().enumerate() {
                _mm512_storeu_ps(rp.as_mut_ptr().add(16 * j), r);
            }
            for i in 0..len {
                out[k + i].write(rp[i]);
            }
            plain
        };
        if plain != u64::MAX {
            fallback.add(out, (x, y), k, plain, len);
        }
        k += len;
    }
    fallback.run(out, x, y);
}

/// Elements per call of `block`: four registers.
const BLOCK: usize = 64;

/// Four registers of `v` from element `k` (`k + BLOCK` within an `Each`).
#[inline(always)]
unsafe fn x_registers(v: Operand<'_, f32>, k: usize) -> [__m512; 4] {
    match v {
        Operand::Each(s) => each4!(j => _mm512_loadu_ps(s.as_ptr().add(k + 16 * j))),
        Operand::One(v) => [_mm512_set1_ps(v); 4],
    }
}

/// The same in f64, eight lanes to a register.
#[inline(always)]
unsafe fn y_registers(v: Operand<'_, f32>, k: usize) -> [__m512d; 8] {
    match v {
        Operand::Each(s) => {
            each8!(h => _mm512_cvtps_pd(_mm256_loadu_ps(s.as_ptr().add(k + 8 * h))))
        }
        Operand::One(v) => [_mm512_set1_pd(v as f64); 8],
    }
}

/// The lanes that take SLEEF's own steps, gathered to be computed 16 at a
/// time in one register (one at a time, each lane's chain of dependent
/// steps costs 40 ns: a tenth of the kernel's time).
struct Fallback {
    at: [usize; 16],
    len: usize,
}

impl Fallback {
    /// Adds the elements from `k` whose bit in `plain` is clear, of the
    /// `n` there.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    unsafe fn add(
        &mut self,
        out: &mut [MaybeUninit<f32>],
        (x, y): (Operand<'_, f32>, Operand<'_, f32>),
        k: usize,
        plain: u64,
        n: usize,
    ) {
        let mut left = !plain & (u64::MAX >> (64 - n));
        while left != 0 {
            self.at[self.len] = k + left.trailing_zeros() as usize;
            self.len += 1;
            left &= left - 1;
            if self.len == 16 {
                self.run(out, x, y);
            }
        }
    }

    /// Computes and writes the gathered elements.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    unsafe fn run(
        &mut self,
        out: &mut [MaybeUninit<f32>],
        x: Operand<'_, f32>,
        y: Operand<'_, f32>,
    ) {
        let (mut xs, mut ys, mut r) = ([1.0f32; 16], [1.0f32; 16], [0.0f32; 16]);
        for (i, &at_) in self.at[..self.len].iter().enumerate() {
            (xs[i], ys[i]) = (at(x, at_), at(y, at_));
        }
        for i in 0..16 {
            r[i] = sleef::powf(xs[i], ys[i]);
        }
        for (i, &at_) in self.at[..self.len].iter().enumerate() {
            out[at_].write(r[i]);
        }
        self.len = 0;
    }
}

#[inline(always)]
fn at(v: Operand<'_, f32>, i: usize) -> f32 {
    match v {
        Operand::Each(s) => s[i],
        Operand::One(v) => v,
    }
}

/// Four registers of x, and y in f64 (eight lanes to a register):
/// SLEEF's results where the lane's bit in the mask is set.
#[inline(always)]
unsafe fn block(x: [__m512; 4], y: [__m512d; 8]) -> ([__m512; 4], u64) {
    let one = _mm512_set1_ps(1.0);
    let oned = _mm512_set1_pd(1.0);
    // A positive normal x. (A y that is not finite makes y log x infinite
    // or NaN, which fails the check on s below.)
    let plain_x = each4!(j => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x[j], _mm512_set1_ps(f32::MIN_POSITIVE))
        & _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x[j], _mm512_set1_ps(f32::INFINITY)));

    // SLEEF's `logkf` in f32, as far as it rounds to f32: x = m 2^e with m
    // near [0.75, 1.5), the quotient (m - 1) / (m + 1) to f32 by a rounded
    // reciprocal, its square to f32, and the polynomial t in that.
    let field = each4!(j => _mm512_and_si512(
        _mm512_castps_si512(_mm512_mul_ps(x[j], _mm512_set1_ps(1.0 / 0.75))),
        _mm512_set1_epi32(0x7f80_0000),
    ));
    let m = each4!(j => _mm512_castsi512_ps(_mm512_sub_epi32(
        _mm512_add_epi32(_mm512_castps_si512(x[j]), _mm512_set1_epi32(0x3f80_0000)),
        field[j],
    )));
    let e =
        each4!(j => _mm512_sub_epi32(_mm512_srli_epi32::<23>(field[j]), _mm512_set1_epi32(0x7f)));
    let rcp = each4!(j => _mm512_div_ps(one, _mm512_add_ps(one, m[j])));
    // m - 1 is exact.
    let n = each4!(j => _mm512_sub_ps(m[j], one));
    let x0 = each4!(j => _mm512_mul_ps(n[j], rcp[j]));
    let x20 = each4!(j => _mm512_mul_ps(x0[j], x0[j]));
    let [t0, t1, t2] = [LOGKF_T[0], LOGKF_T[1], LOGKF_T[2]];
    let t = each4!(j => _mm512_fmadd_ps(_mm512_set1_ps(t0), x20[j], _mm512_set1_ps(t1)));
    let t = each4!(j => _mm512_fmadd_ps(t[j], x20[j], _mm512_set1_ps(t2)));

    // The rest of the log in f64, with the quotient x to f64: e ln 2 + x (2
    // + x^2 (C + x^2 t)), the sum of SLEEF's parts; then d = y log x.
    let nd = each8!(h => half(n[h / 2], h % 2));
    let xq = each8!(h => _mm512_div_pd(nd[h], _mm512_add_pd(nd[h], _mm512_set1_pd(2.0))));
    let td = each8!(h => half(t[h / 2], h % 2));
    let x2 = each8!(h => _mm512_mul_pd(xq[h], xq[h]));
    let ed = each8!(h => half_i(e[h / 2], h % 2));
    let poly = each8!(h => _mm512_fmadd_pd(x2[h], td[h], _mm512_set1_pd(C)));
    let poly = each8!(h => _mm512_fmadd_pd(x2[h], poly[h], _mm512_set1_pd(2.0)));
    let eln2 = each8!(h => _mm512_mul_pd(ed[h], _mm512_set1_pd(LN2)));
    let log = each8!(h => _mm512_fmadd_pd(xq[h], poly[h], eln2[h]));
    let d = each8!(h => _mm512_mul_pd(y[h], log[h]));

    // q: the nearest integer to d / ln 2, as SLEEF's (rounded from d's f32)
    // unless that is near a half-integer (the check on s below).
    let w = each8!(h => _mm512_mul_pd(d[h], _mm512_set1_pd(std::f64::consts::LOG2_E)));
    let q = each8!(h => _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(w[h]));

    // s = d - q L2U - q L2L (SLEEF rounds q L2L to f32, a difference within
    // the bound), and its f32 where SLEEF's rounds to the same.
    let s = each8!(h => _mm512_fnmadd_pd(q[h], _mm512_set1_pd(L2), d[h]));
    // |w - q| < 0.5 - 2^-12, as |s|: SLEEF's q, in f32, is within 2^-15
    // of w where |w| < 150 (and a larger |w| fails the check on the result).
    let plain_q = each8!(h => _mm512_cmp_pd_mask::<_CMP_LT_OQ>(
        _mm512_abs_pd(s[h]),
        _mm512_set1_pd((0.5 - 1.0 / 2048.0) * std::f64::consts::LN_2),
    ));
    let err =
        each8!(h => _mm512_fmadd_pd(_mm512_abs_pd(d[h]), _mm512_set1_pd(KD), _mm512_set1_pd(K0)));
    let s_lo = each8!(h => _mm512_cvtpd_ps(_mm512_sub_pd(s[h], err[h])));
    let s_hi = each8!(h => _mm512_cvtpd_ps(_mm512_add_pd(s[h], err[h])));
    let plain_s = each8!(h => same(s_lo[h], s_hi[h]));

    // SLEEF's u, in f32 from the f32 of s.
    let s0 = each4!(j => join(s_lo[2 * j], s_lo[2 * j + 1]));
    let mut u = [_mm512_set1_ps(EXPKF_U[0]); 4];
    for &c in &EXPKF_U[1..] {
        u = each4!(j => _mm512_fmadd_ps(u[j], s0[j], _mm512_set1_ps(c)));
    }

    // (1 + s + s^2 u) 2^q, and its f32 where SLEEF's rounds to the same.
    let ud = each8!(h => half(u[h / 2], h % 2));
    let s2 = each8!(h => _mm512_mul_pd(s[h], s[h]));
    let r = each8!(h => _mm512_fmadd_pd(s2[h], ud[h], s[h]));
    let r = each8!(h => _mm512_scalef_pd(_mm512_add_pd(oned, r[h]), q[h]));
    let r_lo = each8!(h => _mm512_cvtpd_ps(_mm512_fnmadd_pd(r[h], err[h], r[h])));
    let r_hi = each8!(h => _mm512_cvtpd_ps(_mm512_fmadd_pd(r[h], err[h], r[h])));
    let plain_r = each8!(h => same(r_lo[h], r_hi[h]));

    // A normal result: then q is in [-125, 126] (|d| < 88), and SLEEF's
    // scaling by 2^q is exact too.
    let result = each4!(j => join(r_lo[2 * j], r_lo[2 * j + 1]));
    let normal = each4!(j => _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(
        _mm512_cmp_ps_mask::<_CMP_GE_OQ>(result[j], _mm512_set1_ps(1.0 / (1u128 << 125) as f32)),
        result[j],
        _mm512_set1_ps((1u128 << 127) as f32),
    ));
    let mut plain = 0u64;
    for j in 0..4 {
        plain |= ((plain_x[j] & normal[j]) as u64) << (16 * j);
    }
    for h in 0..8 {
        plain &= !(((!(plain_q[h] & plain_s[h] & plain_r[h])) as u64) << (8 * h));
    }
    (result, plain)
}

/// The lanes where `a` and `b` are the same f32.
#[inline(always)]
unsafe fn same(a: __m256, b: __m256) -> u8 {
    _mm256_cmpeq_epi32_mask(_mm256_castps_si256(a), _mm256_castps_si256(b))
}

/// Lanes 0-7 (`h = 0`) or 8-15 of `v` as f64.
#[inline(always)]
unsafe fn half(v: __m512, h: usize) -> __m512d {
    let part = if h == 0 {
        _mm512_castps512_ps256(v)
    } else {
        _mm512_extractf32x8_ps::<1>(v)
    };
    _mm512_cvtps_pd(part)
}

/// The same for i32 lanes.
#[inline(always)]
unsafe fn half_i(v: __m512i, h: usize) -> __m512d {
    let part = if h == 0 {
        _mm512_castsi512_si256(v)
    } else {
        _mm512_extracti32x8_epi32::<1>(v)
    };
    _mm512_cvtepi32_pd(part)
}

/// Two halves of f32 lanes as one register.
#[inline(always)]
unsafe fn join(lo: __m256, hi: __m256) -> __m512 {
    _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi)
}

#[cfg(test)]
mod tests {
    use super::super::pytorch_cpu::cpu_has_avx512;
    use super::*;

    /// xorshift64: the same pairs on every run.
    struct Rng(u64);

    impl Rng {
        fn bits(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn unit(&mut self) -> f64 {
            (self.bits() >> 11) as f64 / (1u64 << 53) as f64
        }
        fn positive_normal(&mut self) -> f32 {
            f32::from_bits(0x0080_0000 + (self.bits() % (0x7f80_0000 - 0x0080_0000)) as u32)
        }
    }

    /// A pair of the given kind.
    fn pair(kind: usize, g: &mut Rng) -> (f32, f32) {
        match kind {
            // A tensor's typical values.
            0 => ((0.5 + 4.0 * g.unit()) as f32, (0.5 + 4.0 * g.unit()) as f32),
            // Any positive x, a y whose y ln x is in [-100, 100].
            1 => {
                let x = g.positive_normal();
                (x, ((200.0 * g.unit() - 100.0) / (x as f64).ln()) as f32)
            }
            // x within 1,000 ulps of 1, y up to 10^6.
            2 => {
                let x = f32::from_bits((0x3f80_0000 + (g.bits() % 2000) as u32) - 1000);
                (x, ((2.0 * g.unit() - 1.0) * 1e6) as f32)
            }
            // Small integer exponents, of either sign.
            3 => ((100.0 * g.unit()) as f32, (g.bits() % 21) as f32 - 10.0),
            // Exact powers and roots: small integers to multiples of 1/8.
            4 => (
                (1 + g.bits() % 64) as f32,
                ((g.bits() % 64) as f32 - 32.0) / 8.0,
            ),
            // Results near overflow and underflow: y ln x near 88 or -87.
            5 => {
                let x = g.positive_normal();
                let d = if g.bits().is_multiple_of(2) {
                    86.0 + 4.0 * g.unit()
                } else {
                    -90.0 + 6.0 * g.unit()
                };
                (x, (d / (x as f64).ln()) as f32)
            }
            // Anything: signs, zeros, subnormals, infinities and NaNs.
            _ => (
                f32::from_bits(g.bits() as u32),
                f32::from_bits(g.bits() as u32),
            ),
        }
    }

    /// Asserts that `powf` gives `sleef::powf`'s bits for the first `n`
    /// elements of `x` and `y`. The caller checked the CPU's features.
    fn agrees(x: Operand<'_, f32>, y: Operand<'_, f32>, n: usize) {
        let mut out = vec![MaybeUninit::uninit(); n];
        // SAFETY: the CPU has the features (the caller checked).
        unsafe { powf(&mut out, x, y) };
        for (i, o) in out.iter().enumerate() {
            // SAFETY: `powf` wrote every element.
            let got = unsafe { o.assume_init() };
            let (xi, yi) = (at(x, i), at(y, i));
            let want = sleef::powf(xi, yi);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "n = {n}: powf({xi:e}, {yi:e}): {got:e}, SLEEF {want:e}"
            );
        }
    }

    /// Compares `powf` with `sleef::powf` on `n` pairs of each kind, with
    /// both operands in full and with either broadcast; returns the fraction of
    /// lanes of typical values that took SLEEF's own steps.
    fn compare(n: usize) -> f64 {
        let mut typical_fallbacks = 0.0;
        for kind in 0..7 {
            let mut g = Rng(0x9e37_79b9_7f4a_7c15 ^ kind as u64);
            let (x, y): (Vec<f32>, Vec<f32>) = (0..n).map(|_| pair(kind, &mut g)).unzip();
            agrees(Operand::Each(&x), Operand::Each(&y), n);
            agrees(Operand::Each(&x), Operand::One(y[0]), n);
            // And x broadcast (`2 ** y`).
            agrees(Operand::One(x[0]), Operand::Each(&y), n);
            if kind == 0 {
                let mut taken = 0;
                for k in (0..n / 64 * 64).step_by(64) {
                    taken += 64 - plain_lanes(&x[k..], &y[k..]).count_ones();
                }
                typical_fallbacks = taken as f64 / n as f64;
            }
        }
        typical_fallbacks
    }

    /// The plain-case mask of the first 32 pairs.
    pub(super) fn plain_lanes(x: &[f32], y: &[f32]) -> u64 {
        // SAFETY: the caller checked the CPU's features; the loads are
        // within x and y.
        unsafe {
            let yd = |j: usize| _mm512_cvtps_pd(_mm256_loadu_ps(y[j..j + 8].as_ptr()));
            let xr = |j: usize| _mm512_loadu_ps(x[j..j + 16].as_ptr());
            block(
                [xr(0), xr(16), xr(32), xr(48)],
                [yd(0), yd(8), yd(16), yd(24), yd(32), yd(40), yd(48), yd(56)],
            )
            .1
        }
    }

    fn features() -> bool {
        let has = cpu_has_avx512() && std::is_x86_feature_detected!("fma");
        if !has {
            eprintln!("this CPU has no AVX-512: the kernel cannot run here");
        }
        has
    }

    /// Every length up to three blocks, so that each ends in a padded
    /// block of each size, with pairs of every kind.
    #[test]
    fn sleef_powf_bits_at_every_length() {
        if !features() {
            return;
        }
        let mut g = Rng(7);
        for n in 0..3 * BLOCK {
            let (x, y): (Vec<f32>, Vec<f32>) = (0..n).map(|i| pair(i % 7, &mut g)).unzip();
            agrees(Operand::Each(&x), Operand::Each(&y), n);
        }
    }

    #[test]
    fn sleef_powf_bits_on_every_kind_of_input() {
        if features() {
            let fallbacks = compare(100_003);
            assert!(
                fallbacks < 0.01,
                "{fallbacks} of typical lanes took SLEEF's steps"
            );
        }
    }

    /// The long run: `CUDASH_POWF_PAIRS` pairs of each kind (10^8 by
    /// default). `cargo test --release powf_avx512 -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn sleef_powf_bits_on_many_pairs() {
        if features() {
            let n = std::env::var("CUDASH_POWF_PAIRS").map_or(100_000_000, |v| v.parse().unwrap());
            let fallbacks = compare(n);
            eprintln!("{n} pairs of each of 7 kinds agree; {fallbacks} of typical lanes took SLEEF's steps");
        }
    }
}
