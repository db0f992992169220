//! Elementwise ops over three operands, broadcast together: `where(cond, x,
//! y)`, `clamp(x, min, max)` with both bounds (one bound is `maximum` or
//! `minimum`, a binary op) and `a + alpha * b`.

use super::super::buffer::PAR_MIN;
use super::super::buffer::{Buffer, Stored};
use super::super::element::Num;
use super::super::parallel;
use super::super::shape::{broadcast_strides, for_each_offsets, numel};
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::runtime::op::binary::{cast_to, Operand};
pub use crate::runtime::op::ternary::{plan, Plan, TernaryOp};
use crate::{with_dtype, with_num_dtype};
use half::{bf16, f16};

/// The op on the host (the cpu, and the simulator's devices).
pub fn ternary(op: TernaryOp, a: Operand, b: Operand, c: Operand) -> Result<Tensor, Error> {
    let p = plan(op, a, b, c)?;
    if numel(&p.shape) == 0 {
        // No element: no operand is read (a kernel would not launch).
        return Ok(Tensor::new(Buffer::zeros(p.compute, 0), p.shape, p.device));
    }
    let [da, db, dc] = op.operand_dtypes(p.compute);
    let ca = cast_to(a.tensor, da);
    let cb = cast_to(b.tensor, db);
    let cc = cast_to(c.tensor, dc);
    let (ta, tb, tc) = (
        ca.as_ref().unwrap_or(a.tensor),
        cb.as_ref().unwrap_or(b.tensor),
        cc.as_ref().unwrap_or(c.tensor),
    );
    let buf = match op {
        TernaryOp::Where => with_dtype!(p.compute, T => select::<T>(ta, tb, tc, &p.shape)),
        TernaryOp::Clamp => with_num_dtype!(p.compute, T => clamp::<T>(ta, tb, tc, &p.shape),
            bool => unreachable!("clamp refuses bool in plan")),
        TernaryOp::AddScaled => match p.compute {
            DType::F32 => add_scaled::<f32>(ta, tb, tc, &p.shape),
            DType::F64 => add_scaled::<f64>(ta, tb, tc, &p.shape),
            DType::F16 => add_scaled::<f16>(ta, tb, tc, &p.shape),
            DType::BF16 => add_scaled::<bf16>(ta, tb, tc, &p.shape),
            DType::U8 => add_scaled::<u8>(ta, tb, tc, &p.shape),
            DType::I8 => add_scaled::<i8>(ta, tb, tc, &p.shape),
            DType::I16 => add_scaled::<i16>(ta, tb, tc, &p.shape),
            DType::I32 => add_scaled::<i32>(ta, tb, tc, &p.shape),
            DType::I64 => add_scaled::<i64>(ta, tb, tc, &p.shape),
            DType::Bool => unreachable!("add_scaled refuses bool in plan"),
        },
    };
    Ok(Tensor::new(buf, p.shape, p.device))
}

/// The clamp of one element, as PyTorch's: a NaN in any operand wins, then
/// `min(max(x, lo), hi)` (so `lo > hi` gives hi).
pub fn clamp_one<T: Num>(x: T, lo: T, hi: T) -> T {
    if x.is_nan() {
        return x;
    }
    if lo.is_nan() {
        return lo;
    }
    if hi.is_nan() {
        return hi;
    }
    let m = if x < lo { lo } else { x };
    if hi < m {
        hi
    } else {
        m
    }
}

/// `a + alpha * b` of one element, as PyTorch computes `add` with `alpha`:
/// in the opmath type (f32 for f16 and bf16, whose alpha stays f32) with
/// one rounding, a fused multiply-add; integers wrap.
pub trait AddScaled: Stored + Copy {
    type Alpha: Stored + Copy + Sync;
    fn add_scaled(a: Self, b: Self, alpha: Self::Alpha) -> Self;
    /// `x[i] = x[i] + alpha * b[i]` over a run.
    fn run(x: &mut [Self], b: &[Self], alpha: Self::Alpha) {
        for (x, &b) in x.iter_mut().zip(b) {
            *x = Self::add_scaled(*x, b, alpha);
        }
    }
}

/// `AddScaled::run` for f32 and f64 with the CPU's fused multiply-add
/// instruction where it has one (built for any x86-64, `mul_add` is
/// otherwise a call per element); the same single rounding either way.
macro_rules! fma_run {
    ($t:ty, $fma:ident) => {
        // Elsewhere `has_fma` is false and this is never called.
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
        unsafe fn $fma(x: &mut [$t], b: &[$t], alpha: $t) {
            for (x, &b) in x.iter_mut().zip(b) {
                *x = b.mul_add(alpha, *x);
            }
        }
    };
}
fma_run!(f32, fma_f32);
fma_run!(f64, fma_f64);

/// `fma(x, b, alpha)` where the CPU has FMA, else the plain loop (the
/// same single rounding: `mul_add` through a call).
fn fma_or_plain<T: AddScaled<Alpha = T>>(
    x: &mut [T],
    b: &[T],
    alpha: T,
    fma: unsafe fn(&mut [T], &[T], T),
) {
    if has_fma() {
        // SAFETY: the CPU has AVX2 and FMA (checked here), all `fma` needs.
        return unsafe { fma(x, b, alpha) };
    }
    for (x, &b) in x.iter_mut().zip(b) {
        *x = T::add_scaled(*x, b, alpha);
    }
}

fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl AddScaled for f32 {
    type Alpha = f32;
    fn add_scaled(a: f32, b: f32, alpha: f32) -> f32 {
        b.mul_add(alpha, a)
    }
    fn run(x: &mut [f32], b: &[f32], alpha: f32) {
        fma_or_plain(x, b, alpha, fma_f32)
    }
}

impl AddScaled for f64 {
    type Alpha = f64;
    fn add_scaled(a: f64, b: f64, alpha: f64) -> f64 {
        b.mul_add(alpha, a)
    }
    fn run(x: &mut [f64], b: &[f64], alpha: f64) {
        fma_or_plain(x, b, alpha, fma_f64)
    }
}

impl AddScaled for f16 {
    type Alpha = f32;
    fn add_scaled(a: f16, b: f16, alpha: f32) -> f16 {
        f16::from_f32(b.to_f32().mul_add(alpha, a.to_f32()))
    }
}

impl AddScaled for bf16 {
    type Alpha = f32;
    fn add_scaled(a: bf16, b: bf16, alpha: f32) -> bf16 {
        bf16::from_f32(b.to_f32().mul_add(alpha, a.to_f32()))
    }
}

macro_rules! int_add_scaled {
    ($($t:ty),*) => {
        $(
            impl AddScaled for $t {
                type Alpha = $t;
                fn add_scaled(a: $t, b: $t, alpha: $t) -> $t {
                    a.wrapping_add(alpha.wrapping_mul(b))
                }
            }
        )*
    };
}
int_add_scaled!(u8, i8, i16, i32, i64);

fn add_scaled<T: AddScaled>(a: &Tensor, b: &Tensor, alpha: &Tensor, shape: &[usize]) -> Buffer {
    let (ga, gb, gc) = (a.read(), b.read(), alpha.read());
    let (sa, sb) = (ga.as_slice::<T>(), gb.as_slice::<T>());
    let alpha = gc.as_slice::<T::Alpha>()[alpha.offset()];
    let flat = |t: &Tensor| t.is_contiguous() && t.shape() == shape;
    if flat(a) && flat(b) {
        // Both laid out as the result: a copy of `a`, then the runs in place.
        let n = numel(shape);
        let mut out = sa[a.offset()..][..n].to_vec();
        let sb = &sb[b.offset()..][..n];
        parallel::for_each_part(&mut out, PAR_MIN, |piece, part| {
            T::run(part, &sb[piece * PAR_MIN..][..part.len()], alpha)
        });
        return T::into_buffer(out);
    }
    let strides = |t: &Tensor| broadcast_strides(t.shape(), t.strides(), shape);
    let (ta, tb) = (strides(a), strides(b));
    let mut out = Vec::with_capacity(numel(shape));
    for_each_offsets(shape, [(&ta, a.offset()), (&tb, b.offset())], |[i, j]| {
        out.push(T::add_scaled(sa[i], sb[j], alpha))
    });
    T::into_buffer(out)
}

/// `x.add_(b, alpha=alpha)` straight into a contiguous `x` where `b` is
/// laid out as x (an optimizer's `param.add_(update, alpha=-lr)`); None
/// for anything else (the caller computes, then assigns).
pub fn add_scaled_in_place(x: &Tensor, b: Operand, alpha: Operand) -> Option<()> {
    let (b, alpha) = (b.tensor, alpha.tensor);
    let fits = x.is_contiguous()
        && b.is_contiguous()
        && b.shape() == x.shape()
        && b.dtype() == x.dtype()
        && !b.shares_storage(x)
        && alpha.numel() == 1;
    if !fits {
        return None;
    }
    fn run<T: AddScaled>(x: &Tensor, b: &Tensor, alpha: f64) {
        let alpha = <T::Alpha as crate::runtime::element::Element>::from_f64(alpha);
        let gb = b.read();
        let sb = &gb.as_slice::<T>()[b.offset()..][..b.numel()];
        let mut gx = x.write();
        let sx = &mut gx.as_mut_slice::<T>()[x.offset()..][..x.numel()];
        parallel::for_each_part(sx, PAR_MIN, |piece, part| {
            T::run(part, &sb[piece * PAR_MIN..][..part.len()], alpha)
        });
    }
    let a = alpha.to_vec::<f64>()[0];
    match x.dtype() {
        DType::F32 if alpha.dtype().is_float() => run::<f32>(x, b, a),
        DType::F64 if alpha.dtype().is_float() => run::<f64>(x, b, a),
        _ => return None,
    }
    Some(())
}

fn select<T: Stored + Pick>(cond: &Tensor, x: &Tensor, y: &Tensor, shape: &[usize]) -> Buffer {
    let flat = |t: &Tensor| t.is_contiguous() && t.shape() == shape;
    let single = |t: &Tensor| t.numel() == 1;
    if !(flat(cond) && [x, y].iter().all(|t| flat(t) || single(t))) {
        return zip3::<bool, T, T>(cond, x, y, shape, T::pick);
    }
    // The common case (relu's gradient, `where(y > 0, g, 0)`): a flat,
    // branch-free pass (where the condition holds is data: a jump on it
    // mispredicts half the time), split across the threads.
    let (gc, gx, gy) = (cond.read(), x.read(), y.read());
    let c = &gc.as_slice::<bool>()[cond.offset()..][..numel(shape)];
    let ((ox, fx), (oy, fy)) = ((x.offset(), flat(x)), (y.offset(), flat(y)));
    let (sx, sy) = (gx.as_slice::<T>(), gy.as_slice::<T>());
    let mut out = vec![T::default(); c.len()];
    parallel::for_each_part(&mut out, 1 << 16, |piece, part| {
        let start = piece << 16;
        let cs = &c[start..][..part.len()];
        match (fx, fy) {
            (true, true) => {
                let (xs, ys) = (
                    &sx[ox + start..][..part.len()],
                    &sy[oy + start..][..part.len()],
                );
                for (((o, &k), &a), &b) in part.iter_mut().zip(cs).zip(xs).zip(ys) {
                    *o = T::pick(k, a, b);
                }
            }
            (true, false) => {
                let (xs, b) = (&sx[ox + start..][..part.len()], sy[oy]);
                for ((o, &k), &a) in part.iter_mut().zip(cs).zip(xs) {
                    *o = T::pick(k, a, b);
                }
            }
            (false, true) => {
                let (a, ys) = (sx[ox], &sy[oy + start..][..part.len()]);
                for ((o, &k), &b) in part.iter_mut().zip(cs).zip(ys) {
                    *o = T::pick(k, a, b);
                }
            }
            (false, false) => {
                let (a, b) = (sx[ox], sy[oy]);
                for (o, &k) in part.iter_mut().zip(cs) {
                    *o = T::pick(k, a, b);
                }
            }
        }
    });
    T::into_buffer(out)
}

/// `if c { a } else { b }` on the elements' bits: no jump.
pub trait Pick: Copy {
    fn pick(c: bool, a: Self, b: Self) -> Self;
}

macro_rules! pick_bits {
    ($($t:ty => $bits:ty, $to:expr, $from:expr);* $(;)?) => {
        $(
            impl Pick for $t {
                #[inline(always)]
                fn pick(c: bool, a: Self, b: Self) -> Self {
                    let m = (c as $bits).wrapping_neg();
                    let to: fn($t) -> $bits = $to;
                    let from: fn($bits) -> $t = $from;
                    from((to(a) & m) | (to(b) & !m))
                }
            }
        )*
    };
}

pick_bits!(
    u8 => u8, |v| v, |b| b;
    i8 => u8, |v| v as u8, |b| b as i8;
    i16 => u16, |v| v as u16, |b| b as i16;
    i32 => u32, |v| v as u32, |b| b as i32;
    i64 => u64, |v| v as u64, |b| b as i64;
    f32 => u32, f32::to_bits, f32::from_bits;
    f64 => u64, f64::to_bits, f64::from_bits;
    f16 => u16, f16::to_bits, f16::from_bits;
    bf16 => u16, bf16::to_bits, bf16::from_bits;
);

impl Pick for bool {
    #[inline(always)]
    fn pick(c: bool, a: Self, b: Self) -> Self {
        (c & a) | (!c & b)
    }
}

fn clamp<T: Num + Stored>(x: &Tensor, lo: &Tensor, hi: &Tensor, shape: &[usize]) -> Buffer {
    zip3::<T, T, T>(x, lo, hi, shape, clamp_one)
}

/// Applies `f` over three tensors broadcast to `shape`.
fn zip3<A: Stored, B: Stored, U: Stored>(
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    shape: &[usize],
    f: impl Fn(A, B, B) -> U,
) -> Buffer {
    let (ga, gb, gc) = (a.read(), b.read(), c.read());
    let (sa, sb, sc) = (ga.as_slice::<A>(), gb.as_slice::<B>(), gc.as_slice::<B>());
    // Each operand contiguous in the result's shape or one element (relu's
    // gradient: `where(y > 0, g, 0)`): one flat pass, no index arithmetic.
    let n = numel(shape);
    let flat = |t: &Tensor| t.is_contiguous() && t.shape() == shape;
    let single = |t: &Tensor| t.numel() == 1;
    if [a, b, c].iter().all(|t| flat(t) || single(t)) {
        let (fa, fb, fc) = (flat(a), flat(b), flat(c));
        let (oa, ob, oc) = (a.offset(), b.offset(), c.offset());
        let out: Vec<U> = (0..n)
            .map(|k| {
                f(
                    sa[if fa { oa + k } else { oa }],
                    sb[if fb { ob + k } else { ob }],
                    sc[if fc { oc + k } else { oc }],
                )
            })
            .collect();
        return U::into_buffer(out);
    }
    let strides = |t: &Tensor| broadcast_strides(t.shape(), t.strides(), shape);
    let (ta, tb, tc) = (strides(a), strides(b), strides(c));
    let mut out = Vec::with_capacity(numel(shape));
    for_each_offsets(
        shape,
        [(&ta, a.offset()), (&tb, b.offset()), (&tc, c.offset())],
        |[i, j, k]| out.push(f(sa[i], sb[j], sc[k])),
    );
    U::into_buffer(out)
}
