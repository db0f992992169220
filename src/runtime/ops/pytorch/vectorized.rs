//! What PyTorch's CPU kernels do in their `Vectorized` registers, one lane
//! at a time, for kernels that must match their bits (`softmax.rs`): the
//! f32 and f64 they compute in, SLEEF's exp and log, `vec::maximum`, and
//! `vec::reduce_all`'s order of reduction (`functional_base.h`, and
//! `functional_bfloat16.h` for f16 and bf16 widened to f32).
//!
//! Register widths are const generics (`W` lanes), so that the compiler
//! turns the lane loops into vector instructions.

use std::mem::MaybeUninit;
use std::ops::{Add, Div, Mul, Sub};

use half::{bf16, f16};

use super::pytorch_cpu::Isa;
use super::sleef;

/// The two types the kernels compute in (PyTorch's opmath types).
pub trait Opmath:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Send
    + Sync
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    const NEG_INF: Self;
    const NAN: Self;
    /// `Vectorized<T>::exp`: SLEEF's.
    fn vexp(self) -> Self;
    /// `Vectorized<T>::log`: SLEEF's.
    fn vlog(self) -> Self;
    /// `std::exp`: libm's, in the scalar tails.
    fn exp(self) -> Self;
    fn is_nan(self) -> bool;
    /// `vec_reduce_all` of one full register: f32 folds it in halves
    /// (AVX2's and AVX-512's shuffles), f64 lane after lane.
    fn horizontal<const W: usize>(acc: [Self; W], op: impl Fn(Self, Self) -> Self) -> Self;
}

impl Opmath for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const NEG_INF: f32 = f32::NEG_INFINITY;
    const NAN: f32 = f32::NAN;
    #[inline(always)]
    fn vexp(self) -> f32 {
        sleef::expf(self)
    }
    #[inline(always)]
    fn vlog(self) -> f32 {
        sleef::logf(self)
    }
    #[inline(always)]
    fn exp(self) -> f32 {
        f32::exp(self)
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    #[inline(always)]
    fn horizontal<const W: usize>(mut v: [f32; W], op: impl Fn(f32, f32) -> f32) -> f32 {
        let mut step = W / 2;
        while step > 0 {
            let prev = v;
            for (i, x) in v.iter_mut().enumerate() {
                *x = op(prev[i], prev[i ^ step]);
            }
            step /= 2;
        }
        v[0]
    }
}

impl Opmath for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const NEG_INF: f64 = f64::NEG_INFINITY;
    const NAN: f64 = f64::NAN;
    #[inline(always)]
    fn vexp(self) -> f64 {
        sleef::exp(self)
    }
    #[inline(always)]
    fn vlog(self) -> f64 {
        sleef::log(self)
    }
    #[inline(always)]
    fn exp(self) -> f64 {
        f64::exp(self)
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    #[inline(always)]
    fn horizontal<const W: usize>(v: [f64; W], op: impl Fn(f64, f64) -> f64) -> f64 {
        v[1..].iter().fold(v[0], |r, &x| op(r, x))
    }
}

/// How a kernel stores a result: f32 and f64 as computed, f16 and bf16
/// (computed in f32) rounded to their precision.
pub trait Store<F: Opmath>: Copy + Send + Sync + 'static {
    /// A 16-bit dtype: its registers hold twice the f32 lanes.
    const REDUCED: bool;
    fn round(v: F) -> F;
}

/// f32 and f64: stored as computed.
#[derive(Clone, Copy)]
pub struct Exact;

impl<F: Opmath> Store<F> for Exact {
    const REDUCED: bool = false;
    #[inline(always)]
    fn round(v: F) -> F {
        v
    }
}

/// f16, computed in f32.
#[derive(Clone, Copy)]
pub struct AsF16;

impl Store<f32> for AsF16 {
    const REDUCED: bool = true;
    /// `f16::from_f32(v).to_f32()` in arithmetic a vector register can do:
    /// 13 bits rounded off the mantissa (to nearest, ties to even), below
    /// 2^-14 (subnormal f16s) to a multiple of 2^-24 by an add of 0.5,
    /// from 65520 up to inf.
    #[inline(always)]
    fn round(v: f32) -> f32 {
        let b = v.to_bits();
        let normal = f32::from_bits(b.wrapping_add(0xfff + ((b >> 13) & 1)) & 0xffff_e000);
        let tiny = ((v.abs() + 0.5) - 0.5).copysign(v);
        let r = if v.abs() < 1.0 / 16384.0 {
            tiny
        } else {
            normal
        };
        if v.is_nan() {
            v
        } else if r.abs() >= 65536.0 {
            f32::INFINITY.copysign(v)
        } else {
            r
        }
    }
}

/// bf16, computed in f32: to nearest, ties to even (NaN stays NaN).
#[derive(Clone, Copy)]
pub struct AsBF16;

impl Store<f32> for AsBF16 {
    const REDUCED: bool = true;
    #[inline(always)]
    fn round(v: f32) -> f32 {
        let b = v.to_bits();
        let r = f32::from_bits(b.wrapping_add(0x7fff + ((b >> 16) & 1)) & 0xffff_0000);
        if v.is_nan() {
            v
        } else {
            r
        }
    }
}

/// `vec::maximum`: NaN if either is, else the larger (b when equal).
#[inline(always)]
pub fn maximum<F: Opmath>(a: F, b: F) -> F {
    if a.is_nan() || b.is_nan() {
        F::NAN
    } else if a > b {
        a
    } else {
        b
    }
}

/// `std::max(a, b)`: `a < b ? b : a`, so a NaN after the first is passed over.
#[inline(always)]
pub fn std_max<F: Opmath>(a: F, b: F) -> F {
    if a < b {
        b
    } else {
        a
    }
}

#[inline(always)]
pub fn add<F: Opmath>(a: F, b: F) -> F {
    a + b
}

/// `vec::reduce_all` (with `map`, `vec::map_reduce_all`) of f32 or f64:
/// registers side by side, the last one partly, then across the lanes;
/// fewer elements than a register are folded in order.
#[inline(always)]
pub fn reduce_all<F: Opmath, const W: usize>(
    xs: &[F],
    map: impl Fn(F) -> F,
    op: impl Fn(F, F) -> F + Copy,
) -> F {
    let n = xs.len();
    if n < W {
        return xs[1..].iter().fold(map(xs[0]), |r, &x| op(r, map(x)));
    }
    // Each step makes a new register from the last (not `acc[l] = ...` in
    // place, nor `array::from_fn`, whose closures are not compiled with the
    // caller's target features): that is the form LLVM keeps in one vector
    // register. Updated lane by lane in place, or with the register folded
    // across its lanes right after the loop, LLVM split the lanes across
    // 2- and 4-wide registers to suit that fold: 3x the instructions. The
    // register passes through `black_box` (a store and a load, once per
    // call) so the loop is vectorised on its own.
    let full = n - n % W;
    let mut acc = lanes_of::<F, W>(&xs[..W], &map);
    for c in xs[W..full].chunks_exact(W) {
        acc = combine(acc, lanes_of::<F, W>(c, &map), op);
    }
    let mut last = std::hint::black_box(acc);
    for (a, &x) in last.iter_mut().zip(&xs[full..]) {
        *a = op(*a, map(x));
    }
    F::horizontal(last, op)
}

/// `reduce_all(xs, |v| v, maximum)`, the same bits, in four registers side
/// by side rather than one: one register's chain of compare, max and
/// blend was a third of `log_softmax`'s time along the last dim.
///
/// Only the order of the steps differs, and a max does not depend on it
/// but for zeros: `maximum` keeps the later of two equal values, so +0 or
/// -0 comes out as in the one-register order only if that order is kept.
/// Rows whose max is zero are therefore reduced again in that order. A
/// NaN anywhere gives `F::NAN` either way.
#[inline(always)]
pub fn max_all<F: Opmath, const W: usize>(xs: &[F]) -> F {
    let n = xs.len();
    let block = 4 * W;
    if n < block {
        return reduce_all::<F, W>(xs, |v| v, maximum);
    }
    let (blocks, full) = (n - n % block, n - n % W);
    let same = |v: F| v;
    // Not `[0, 1, 2, 3].map(..)`: its closure is not compiled with the
    // caller's target features, and its registers were copied with memmove.
    let mut a = lanes_of::<F, W>(&xs[..W], &same);
    let mut b = lanes_of::<F, W>(&xs[W..2 * W], &same);
    let mut c = lanes_of::<F, W>(&xs[2 * W..3 * W], &same);
    let mut d = lanes_of::<F, W>(&xs[3 * W..block], &same);
    for r in xs[block..blocks].chunks_exact(block) {
        a = combine(a, lanes_of::<F, W>(&r[..W], &same), maximum);
        b = combine(b, lanes_of::<F, W>(&r[W..2 * W], &same), maximum);
        c = combine(c, lanes_of::<F, W>(&r[2 * W..3 * W], &same), maximum);
        d = combine(d, lanes_of::<F, W>(&r[3 * W..], &same), maximum);
    }
    let mut acc = combine(combine(a, b, maximum), combine(c, d, maximum), maximum);
    for r in xs[blocks..full].chunks_exact(W) {
        acc = combine(acc, lanes_of::<F, W>(r, &same), maximum);
    }
    // Then as `reduce_all` ends.
    let mut last = std::hint::black_box(acc);
    for (a, &x) in last.iter_mut().zip(&xs[full..]) {
        *a = maximum(*a, x);
    }
    let max = F::horizontal(last, maximum);
    if max == F::ZERO {
        return reduce_all::<F, W>(xs, |v| v, maximum);
    }
    max
}

/// One register's lanes loaded from `xs` (W long) through `map`.
#[inline(always)]
fn lanes_of<F: Opmath, const W: usize>(xs: &[F], map: &impl Fn(F) -> F) -> [F; W] {
    let xs: &[F; W] = xs.try_into().expect("a register of W");
    let mut v = *xs;
    for x in v.iter_mut() {
        *x = map(*x);
    }
    v
}

/// `op` of two registers, lane by lane.
#[inline(always)]
pub fn combine<F: Opmath, const W: usize>(a: [F; W], b: [F; W], op: impl Fn(F, F) -> F) -> [F; W] {
    let mut r = a;
    for l in 0..W {
        r[l] = op(a[l], b[l]);
    }
    r
}

/// The same for f16 or bf16 widened to f32 (`functional_bfloat16.h`):
/// registers of 2W elements as two f32 halves, reduced into the first.
#[inline(always)]
pub fn reduce_all_halves<F: Opmath, const W: usize>(
    xs: &[F],
    map: impl Fn(F) -> F,
    op: impl Fn(F, F) -> F + Copy,
) -> F {
    let n = xs.len();
    let fold = |v: &[F]| v[1..].iter().fold(v[0], |r, &x| op(r, x));
    if n < 2 * W {
        let mut f0 = [F::ZERO; W];
        for (l, f) in f0.iter_mut().enumerate().take(n) {
            *f = map(xs[l]);
        }
        if n <= W {
            return fold(&f0[..n]);
        }
        for l in 0..n - W {
            f0[l] = op(f0[l], map(xs[W + l]));
        }
        return fold(&f0);
    }
    let full = n - n % (2 * W);
    let mut a0 = lanes_of::<F, W>(&xs[..W], &map);
    let mut a1 = lanes_of::<F, W>(&xs[W..2 * W], &map);
    for c in xs[2 * W..full].chunks_exact(2 * W) {
        a0 = combine(a0, lanes_of::<F, W>(&c[..W], &map), op);
        a1 = combine(a1, lanes_of::<F, W>(&c[W..], &map), op);
    }
    let (mut l0, mut l1) = std::hint::black_box((a0, a1));
    for (l, &x) in xs[full..].iter().enumerate() {
        if l < W {
            l0[l] = op(l0[l], map(x));
        } else {
            l1[l - W] = op(l1[l - W], map(x));
        }
    }
    F::horizontal(combine(l0, l1, op), op)
}

/// A vector of `n` elements, each written by `fill` (not zeroed first).
///
/// # Safety
/// `fill` writes every element of the slice it is given.
pub unsafe fn filled_by<T>(n: usize, fill: impl FnOnce(&mut [MaybeUninit<T>])) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    fill(&mut v.spare_capacity_mut()[..n]);
    // SAFETY: the caller's `fill` wrote all n elements.
    unsafe { v.set_len(n) };
    v
}

/// f16s to f32s (exactly), as `cvt_to_fp32` does: F16C's `vcvtph2ps`
/// where the CPU has it, eight at a time. Writes every element of `out`
/// (as long as `x`).
pub fn widen_f16(x: &[f16], out: &mut [MaybeUninit<f32>]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has the features `widen_f16c` enables.
        return unsafe { widen_f16c(x, out) };
    }
    for (o, h) in out.iter_mut().zip(x) {
        o.write(h.to_f32());
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn widen_f16c(x: &[f16], out: &mut [MaybeUninit<f32>]) {
    use std::arch::x86_64::{__m128i, _mm256_cvtph_ps, _mm256_storeu_ps, _mm_loadu_si128};
    let n = x.len() / 8 * 8;
    for (h, o) in x[..n].chunks_exact(8).zip(out[..n].chunks_exact_mut(8)) {
        // SAFETY: `h` holds 8 f16s (16 bytes) to read and `o` room for 8
        // f32s to write; both intrinsics take unaligned addresses.
        unsafe {
            _mm256_storeu_ps(
                o.as_mut_ptr() as *mut f32,
                _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr() as *const __m128i)),
            )
        };
    }
    for (o, h) in out[n..].iter_mut().zip(&x[n..]) {
        o.write(h.to_f32());
    }
}

/// f32s to f16s, to nearest (ties to even), as `cvt_from_fp32` does:
/// F16C's `vcvtps2ph` where the CPU has it. Writes every element of `out`
/// (as long as `x`).
pub fn narrow_f16(out: &mut [MaybeUninit<f16>], x: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has the features `narrow_f16c` enables.
        return unsafe { narrow_f16c(out, x) };
    }
    for (o, &v) in out.iter_mut().zip(x) {
        o.write(f16::from_f32(v));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn narrow_f16c(out: &mut [MaybeUninit<f16>], x: &[f32]) {
    use std::arch::x86_64::{
        __m128i, _mm256_cvtps_ph, _mm256_loadu_ps, _mm_storeu_si128, _MM_FROUND_TO_NEAREST_INT,
    };
    let n = x.len() / 8 * 8;
    for (v, o) in x[..n].chunks_exact(8).zip(out[..n].chunks_exact_mut(8)) {
        // SAFETY: `v` holds 8 f32s to read and `o` room for 8 f16s (16
        // bytes) to write; both intrinsics take unaligned addresses.
        unsafe {
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(v.as_ptr()));
            _mm_storeu_si128(o.as_mut_ptr() as *mut __m128i, h)
        };
    }
    for (o, &v) in out[n..].iter_mut().zip(&x[n..]) {
        o.write(f16::from_f32(v));
    }
}

/// bf16s to f32s: the bits moved up (exact), in plain arithmetic the
/// compiler puts in vector registers (AVX-512's or AVX2's where the CPU
/// has them). Writes every element of `out`.
pub fn widen_bf16(x: &[bf16], out: &mut [MaybeUninit<f32>]) {
    #[cfg(target_arch = "x86_64")]
    match Isa::of_cpu() {
        // SAFETY: the CPU has the features each enables.
        Isa::Avx512 => return unsafe { widen_bf16_avx512(x, out) },
        Isa::Avx2 => return unsafe { widen_bf16_avx2(x, out) },
        Isa::Portable => {}
    }
    widen_bf16_run(x, out)
}

#[inline(always)]
fn widen_bf16_run(x: &[bf16], out: &mut [MaybeUninit<f32>]) {
    for (o, &h) in out.iter_mut().zip(x) {
        o.write(f32::from_bits((h.to_bits() as u32) << 16));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn widen_bf16_avx2(x: &[bf16], out: &mut [MaybeUninit<f32>]) {
    widen_bf16_run(x, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn widen_bf16_avx512(x: &[bf16], out: &mut [MaybeUninit<f32>]) {
    widen_bf16_run(x, out)
}

/// f32s to bf16s, to nearest (ties to even), NaN kept a quiet NaN: the
/// half crate's rounding, in plain arithmetic for vector registers, as
/// `widen_bf16`. Writes every element of `out`.
pub fn narrow_bf16(out: &mut [MaybeUninit<bf16>], x: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    match Isa::of_cpu() {
        // SAFETY: the CPU has the features each enables.
        Isa::Avx512 => return unsafe { narrow_bf16_avx512(out, x) },
        Isa::Avx2 => return unsafe { narrow_bf16_avx2(out, x) },
        Isa::Portable => {}
    }
    narrow_bf16_run(out, x)
}

#[inline(always)]
fn narrow_bf16_run(out: &mut [MaybeUninit<bf16>], x: &[f32]) {
    for (o, &v) in out.iter_mut().zip(x) {
        let b = v.to_bits();
        let rounded = (b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16) as u16;
        let nan = ((b >> 16) as u16) | 0x40;
        o.write(bf16::from_bits(if v.is_nan() { nan } else { rounded }));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn narrow_bf16_avx2(out: &mut [MaybeUninit<bf16>], x: &[f32]) {
    narrow_bf16_run(out, x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn narrow_bf16_avx512(out: &mut [MaybeUninit<bf16>], x: &[f32]) {
    narrow_bf16_run(out, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rounding in arithmetic agrees with the half crate's conversions
    /// on every sign and exponent and on mantissas near the halfway points.
    #[test]
    fn f16_and_bf16_rounding_is_the_half_crates() {
        for b in boundary_bits() {
            let v = f32::from_bits(b);
            let (h, bh) = (AsF16::round(v), AsBF16::round(v));
            if v.is_nan() {
                assert!(h.is_nan() && bh.is_nan());
                continue;
            }
            assert_eq!(
                h.to_bits(),
                f16::from_f32(v).to_f32().to_bits(),
                "f16 of {v:e} ({b:#x})"
            );
            assert_eq!(
                bh.to_bits(),
                bf16::from_f32(v).to_f32().to_bits(),
                "bf16 of {v:e} ({b:#x})"
            );
        }
    }

    /// f32s of every sign and exponent, with mantissas near the halfway
    /// points of f16 and bf16 (and NaNs, infinities, subnormals).
    fn boundary_bits() -> Vec<u32> {
        let mut bits = Vec::new();
        for hi in 0..512u32 {
            for lo in [
                0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001,
                0xffff, 0x12345, 0x7fffff,
            ] {
                bits.push(hi << 23 | lo);
            }
        }
        bits
    }

    /// The slice conversions agree with the half crate's: every f16 and
    /// bf16 widened, and `boundary_bits` narrowed, from offsets that leave
    /// a tail after the 8-wide steps.
    #[test]
    fn slice_conversions_are_the_half_crates() {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
        let h: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        let b: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
        let v: Vec<f32> = boundary_bits().into_iter().map(f32::from_bits).collect();
        for skip in [0, 3] {
            // SAFETY (each): the conversions write every element.
            let w = unsafe { filled_by(h.len() - skip, |w| widen_f16(&h[skip..], w)) };
            assert!(h[skip..].iter().zip(&w).all(|(h, &w)| same(h.to_f32(), w)));
            let w = unsafe { filled_by(b.len() - skip, |w| widen_bf16(&b[skip..], w)) };
            assert!(b[skip..].iter().zip(&w).all(|(b, &w)| same(b.to_f32(), w)));
            let oh = unsafe { filled_by(v.len() - skip, |o| narrow_f16(o, &v[skip..])) };
            for (&x, o) in v[skip..].iter().zip(&oh) {
                assert!(same(f16::from_f32(x).to_f32(), o.to_f32()), "f16 of {x:e}");
            }
            let ob = unsafe { filled_by(v.len() - skip, |o| narrow_bf16(o, &v[skip..])) };
            for (&x, o) in v[skip..].iter().zip(&ob) {
                assert!(
                    same(bf16::from_f32(x).to_f32(), o.to_f32()),
                    "bf16 of {x:e}"
                );
            }
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// `max_all` gives `reduce_all`'s bits: the same value, and where it
        /// is zero the same sign (rows of few distinct values, so zeros of
        /// both signs, NaNs and ties are common), in f32 and f64 registers
        /// of either width.
        #[test]
        fn max_all_is_reduce_alls_maximum(
            picks in proptest::collection::vec(0usize..6, 1..300),
            nan in proptest::option::weighted(0.25, 0usize..300),
        ) {
            let pool = [0.0, -0.0, -1.0, -3.5, f64::NEG_INFINITY, 2.0];
            let mut x: Vec<f64> = picks.iter().map(|&p| pool[p]).collect();
            if let Some(at) = nan {
                let at = at % x.len();
                x[at] = f64::NAN;
            }
            let y: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            // Without the values above zero too, so that zero is often the max.
            let z: Vec<f32> = y.iter().map(|&v| if v > 0.0 { -0.0 } else { v }).collect();
            let bits64 = |v: f64| v.to_bits();
            let bits32 = |v: f32| v.to_bits();
            prop_assert_eq!(bits64(max_all::<f64, 4>(&x)), bits64(reduce_all::<f64, 4>(&x, |v| v, maximum)));
            prop_assert_eq!(bits64(max_all::<f64, 8>(&x)), bits64(reduce_all::<f64, 8>(&x, |v| v, maximum)));
            for v in [&y, &z] {
                prop_assert_eq!(bits32(max_all::<f32, 8>(v)), bits32(reduce_all::<f32, 8>(v, |v| v, maximum)));
                prop_assert_eq!(bits32(max_all::<f32, 16>(v)), bits32(reduce_all::<f32, 16>(v, |v| v, maximum)));
            }
        }
    }
}
