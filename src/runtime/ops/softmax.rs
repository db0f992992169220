//! softmax and log_softmax of CPU tensors, bit for bit as PyTorch's CPU
//! kernels compute them (`aten/src/ATen/native/cpu/SoftMaxKernel.cpp` and
//! `LogSoftmaxKernelImpl.h`, on a contiguous input, as `_softmax` makes it).
//!
//! What fixes the bits:
//! - the kernel: one for the last dim (a row at a time, reduced in vector
//!   lanes by `vec::reduce_all` and `vec::map_reduce_all`) and one for any
//!   other dim (columns side by side, one lane each);
//! - the exp and log: SLEEF's (`sleef.rs`) wherever a `Vectorized` register
//!   computes, libm's where a scalar tail does;
//! - the softmax divides by the sum in the other kernel but multiplies by
//!   `1 / sum` along the last dim;
//! - f16 and bf16 compute in f32 and round where the kernels store an f16
//!   or bf16: once at the end, and along the last dim of log_softmax also
//!   its max, sum and log (they are kept in arrays of the input's dtype);
//! - the other kernel's tails: columns that do not fill a register, and for
//!   softmax the ends of `at::parallel_for`'s chunks, which depend on the
//!   thread count (rayon's here, PyTorch's one per core).
//!
//! Lanes are 32 bytes (AVX2) or 64 (AVX-512), from `pytorch_cpu`.

use std::ops::{Add, Div, Mul, Sub};

use half::{bf16, f16};

use super::super::buffer::Buffer;
use super::super::{DType, Tensor};
use super::pytorch_cpu::{chunks, vector_bytes};
use super::sleef;

/// softmax (or log_softmax with `log`) of a CPU tensor of floats along
/// dim `k` (in range; 0 for a 0-d tensor, as PyTorch views it as [1]).
pub fn on_cpu(t: &Tensor, k: usize, log: bool) -> Tensor {
    let shape = t.shape();
    let size = |dims: &[usize]| dims.iter().product::<usize>();
    let g = Geometry {
        outer: size(&shape[..k.min(shape.len())]),
        dim: shape.get(k).copied().unwrap_or(1),
        inner: size(shape.get(k + 1..).unwrap_or(&[])),
        last: k + 1 >= shape.len(),
    };
    let buf = match t.dtype() {
        DType::F64 => Buffer::F64(softmax(&t.to_vec::<f64>(), g, log, None)),
        DType::F32 => Buffer::F32(softmax(&t.to_vec::<f32>(), g, log, None)),
        DType::F16 => {
            let x: Vec<f32> = t.to_vec::<f16>().into_iter().map(f32::from).collect();
            let y = softmax(&x, g, log, Some(|v| f16::from_f32(v).to_f32()));
            Buffer::F16(y.into_iter().map(f16::from_f32).collect())
        }
        DType::BF16 => {
            let x: Vec<f32> = t.to_vec::<bf16>().into_iter().map(f32::from).collect();
            let y = softmax(&x, g, log, Some(|v| bf16::from_f32(v).to_f32()));
            Buffer::BF16(y.into_iter().map(bf16::from_f32).collect())
        }
        dt => unreachable!("softmax of {dt} is refused before it runs"),
    };
    Tensor::new(buf, shape.to_vec(), t.device())
}

/// The shape around the softmax dim: `outer` lines of `dim` elements,
/// each `inner` apart; `last` when it is the last dim (which picks the
/// kernel: a later dim of size 1 leaves `inner` 1 but not `last`).
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    pub outer: usize,
    pub dim: usize,
    pub inner: usize,
    pub last: bool,
}

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
    fn horizontal(acc: &[Self], op: impl Fn(Self, Self) -> Self) -> Self;
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
    fn horizontal(acc: &[f32], op: impl Fn(f32, f32) -> f32) -> f32 {
        let mut v = [0.0f32; 16];
        v[..acc.len()].copy_from_slice(acc);
        let mut step = acc.len() / 2;
        while step > 0 {
            let mut next = v;
            for (i, n) in next.iter_mut().enumerate().take(acc.len()) {
                *n = op(v[i], v[i ^ step]);
            }
            v = next;
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
    fn horizontal(acc: &[f64], op: impl Fn(f64, f64) -> f64) -> f64 {
        acc[1..].iter().fold(acc[0], |r, &x| op(r, x))
    }
}

/// `vec::maximum`: NaN if either is, else the larger (b when equal).
#[inline(always)]
fn maximum<F: Opmath>(a: F, b: F) -> F {
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
fn std_max<F: Opmath>(a: F, b: F) -> F {
    if a < b {
        b
    } else {
        a
    }
}

#[inline(always)]
fn add<F: Opmath>(a: F, b: F) -> F {
    a + b
}

/// Rounds an f32 to an f16's or bf16's precision (and range).
pub type Round<F> = Option<fn(F) -> F>;

/// softmax (or log_softmax) of `x` (contiguous, f32 or f64) around
/// `g.dim`. For an f16 or bf16 input widened to f32, `round` rounds to its
/// dtype where the kernels store one; None for f32 and f64.
pub fn softmax<F: Opmath>(x: &[F], g: Geometry, log: bool, round: Round<F>) -> Vec<F> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA, the one feature `with_fma` enables.
        return unsafe { with_fma(x, g, log, round) };
    }
    kernels(x, g, log, round)
}

/// The kernels compiled with FMA, so that SLEEF's `mul_add`s are single
/// instructions (the results are the same without it, only slower).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn with_fma<F: Opmath>(x: &[F], g: Geometry, log: bool, round: Round<F>) -> Vec<F> {
    kernels(x, g, log, round)
}

#[inline(always)]
fn kernels<F: Opmath>(x: &[F], g: Geometry, log: bool, round: Round<F>) -> Vec<F> {
    let mut out = vec![F::ZERO; x.len()];
    if x.is_empty() {
        return out;
    }
    let w = vector_bytes() / std::mem::size_of::<F>();
    let reduced = round.is_some();
    let round = |v: F| round.map_or(v, |r| r(v));
    let rows = x.chunks_exact(g.dim).zip(out.chunks_exact_mut(g.dim));
    match (g.last, log) {
        (true, false) if reduced => rows.for_each(|(x, o)| softmax_row_reduced(x, o, w, round)),
        (true, false) => rows.for_each(|(x, o)| softmax_row(x, o, w)),
        (true, true) => rows.for_each(|(x, o)| log_softmax_row(x, o, w, reduced, round)),
        (false, false) => softmax_columns(x, &mut out, g, w, reduced, round),
        (false, true) => log_softmax_columns(x, &mut out, g, w, reduced, round),
    }
    out
}

/// `vec::reduce_all` / `vec::map_reduce_all` over one row of an f32 or f64
/// tensor: registers side by side, the last one partly, then the lanes.
#[inline(always)]
fn reduce_row<F: Opmath>(
    xs: &[F],
    w: usize,
    map: impl Fn(F) -> F,
    op: impl Fn(F, F) -> F + Copy,
) -> F {
    let n = xs.len();
    if n < w {
        return xs[1..].iter().fold(map(xs[0]), |r, &x| op(r, map(x)));
    }
    let mut acc = [F::ZERO; 16];
    for l in 0..w {
        acc[l] = map(xs[l]);
    }
    let full = n - n % w;
    for c in xs[w..full].chunks_exact(w) {
        for l in 0..w {
            acc[l] = op(acc[l], map(c[l]));
        }
    }
    for (l, &x) in xs[full..].iter().enumerate() {
        acc[l] = op(acc[l], map(x));
    }
    F::horizontal(&acc[..w], op)
}

/// The same for a row of f16 or bf16 widened to f32
/// (`functional_bfloat16.h`): registers of 2w elements as two f32 halves.
#[inline(always)]
fn reduce_row_reduced<F: Opmath>(
    xs: &[F],
    w: usize,
    map: impl Fn(F) -> F,
    op: impl Fn(F, F) -> F + Copy,
) -> F {
    let (n, b) = (xs.len(), 2 * w);
    let fold = |v: &[F]| v[1..].iter().fold(v[0], |r, &x| op(r, x));
    if n < b {
        let mut f0 = [F::ZERO; 16];
        for l in 0..w.min(n) {
            f0[l] = map(xs[l]);
        }
        if n <= w {
            return fold(&f0[..n]);
        }
        for l in 0..n - w {
            f0[l] = op(f0[l], map(xs[w + l]));
        }
        return fold(&f0[..w]);
    }
    let (mut a0, mut a1) = ([F::ZERO; 16], [F::ZERO; 16]);
    for l in 0..w {
        a0[l] = map(xs[l]);
        a1[l] = map(xs[w + l]);
    }
    let full = n - n % b;
    for c in xs[b..full].chunks_exact(b) {
        for l in 0..w {
            a0[l] = op(a0[l], map(c[l]));
            a1[l] = op(a1[l], map(c[w + l]));
        }
    }
    let rest = &xs[full..];
    for (l, &x) in rest.iter().enumerate() {
        if l < w {
            a0[l] = op(a0[l], map(x));
        } else {
            a1[l - w] = op(a1[l - w], map(x));
        }
    }
    for l in 0..w {
        a0[l] = op(a0[l], a1[l]);
    }
    F::horizontal(&a0[..w], op)
}

/// `_vec_softmax_lastdim` for f32 and f64: max, exp, sum, times 1 / sum.
#[inline(always)]
fn softmax_row<F: Opmath>(x: &[F], out: &mut [F], w: usize) {
    let max = reduce_row(x, w, |v| v, maximum);
    for (o, &v) in out.iter_mut().zip(x) {
        *o = (v - max).vexp();
    }
    let inv = F::ONE / reduce_row(out, w, |v| v, add);
    for o in out.iter_mut() {
        *o = *o * inv;
    }
}

/// `_vec_softmax_lastdim` for f16 and bf16: in f32, registers of 2w
/// elements for the max, w for the exp, libm's exp for the tail.
#[inline(always)]
fn softmax_row_reduced<F: Opmath>(x: &[F], out: &mut [F], w: usize, round: impl Fn(F) -> F) {
    let n = x.len();
    let mut maxv = [F::NEG_INF; 16];
    let full = n - n % (2 * w);
    for c in x[..full].chunks_exact(2 * w) {
        for l in 0..w {
            maxv[l] = maximum(maxv[l], c[l]);
        }
        for l in 0..w {
            maxv[l] = maximum(maxv[l], c[w + l]);
        }
    }
    let max = x[full..]
        .iter()
        .fold(F::horizontal(&maxv[..w], maximum), |m, &v| std_max(m, v));
    let mut sumv = [F::ZERO; 16];
    let full = n - n % w;
    for (c, o) in x[..full].chunks_exact(w).zip(out.chunks_exact_mut(w)) {
        for l in 0..w {
            o[l] = (c[l] - max).vexp();
            sumv[l] = sumv[l] + o[l];
        }
    }
    let mut sum = F::horizontal(&sumv[..w], add);
    for (o, &v) in out[full..].iter_mut().zip(&x[full..]) {
        *o = (v - max).exp();
        sum = sum + *o;
    }
    let inv = F::ONE / sum;
    for o in out.iter_mut() {
        *o = round(*o * inv);
    }
}

/// `_vec_log_softmax_lastdim`: x - max - log Σ exp(x - max). For f16 and
/// bf16 the max, the sum and its log are stored in their dtype.
#[inline(always)]
fn log_softmax_row<F: Opmath>(
    x: &[F],
    out: &mut [F],
    w: usize,
    reduced: bool,
    round: impl Fn(F) -> F,
) {
    let (max, sum);
    if reduced {
        max = round(reduce_row_reduced(x, w, |v| v, maximum));
        sum = round(reduce_row_reduced(x, w, |v| (v - max).vexp(), add));
    } else {
        max = reduce_row(x, w, |v| v, maximum);
        sum = reduce_row(x, w, |v| (v - max).vexp(), add);
    }
    let ln = round(sum.vlog());
    for (o, &v) in out.iter_mut().zip(x) {
        *o = round(v - max - ln);
    }
}

/// `_vec_softmax` (a dim other than the last): each column on its own
/// lane, a register of them at a time where the column and the thread's
/// chunk have that many left, else one by one with libm's exp; f32 and f64
/// divide by the sum, f16 and bf16 store each exp in their dtype first.
#[inline(always)]
fn softmax_columns<F: Opmath>(
    x: &[F],
    out: &mut [F],
    g: Geometry,
    w: usize,
    reduced: bool,
    round: impl Fn(F) -> F,
) {
    let step = if reduced { 2 * w } else { w };
    let at = |p: usize, d: usize| (p / g.inner) * g.dim * g.inner + d * g.inner + p % g.inner;
    let column = |out: &mut [F], p: usize, vector: bool| {
        let mut max = x[at(p, 0)];
        for d in 1..g.dim {
            let v = x[at(p, d)];
            max = if vector {
                maximum(max, v)
            } else {
                std_max(max, v)
            };
        }
        let mut sum = F::ZERO;
        for d in 0..g.dim {
            let k = at(p, d);
            let e = if vector {
                (x[k] - max).vexp()
            } else {
                (x[k] - max).exp()
            };
            sum = sum + e;
            out[k] = if vector { e } else { round(e) };
        }
        for d in 0..g.dim {
            let k = at(p, d);
            out[k] = round(out[k] / sum);
        }
    };
    let n = g.outer * g.inner;
    for (begin, end) in chunks(n, 1, rayon::current_num_threads()) {
        let mut idx = begin;
        while idx < end {
            let i = idx % g.inner;
            if i + step <= g.inner && idx + step <= end {
                for p in idx..idx + step {
                    column(out, p, true);
                }
                idx += step;
            } else {
                let tail = if idx + step > end {
                    end - idx
                } else {
                    g.inner - i
                };
                for p in idx..idx + tail {
                    column(out, p, false);
                }
                idx += tail;
            }
        }
    }
}

/// `_vec_logsoftmax` (a dim other than the last): columns in blocks of
/// 128 KiB, each column on its own lane; the max passes NaN over, the
/// columns after the last full register take libm's exp; all take SLEEF's
/// log.
#[inline(always)]
fn log_softmax_columns<F: Opmath>(
    x: &[F],
    out: &mut [F],
    g: Geometry,
    w: usize,
    reduced: bool,
    round: impl Fn(F) -> F,
) {
    let (lanes, size) = if reduced {
        (2 * w, 2)
    } else {
        (w, std::mem::size_of::<F>())
    };
    let widest = ((128 * 1024) / g.dim / size).max(lanes) / lanes * lanes;
    let chunk = widest.min(g.inner);
    for o in 0..g.outer {
        for start in (0..g.inner).step_by(chunk) {
            let len = chunk.min(g.inner - start);
            let vectors = len - len % lanes;
            for j in 0..len {
                let at = |d: usize| o * g.dim * g.inner + d * g.inner + start + j;
                let mut max = F::NEG_INF;
                for d in 0..g.dim {
                    let v = x[at(d)];
                    max = if v > max { v } else { max };
                }
                let mut sum = F::ZERO;
                for d in 0..g.dim {
                    let v = x[at(d)] - max;
                    sum = sum + if j < vectors { v.vexp() } else { v.exp() };
                }
                let ln = sum.vlog();
                for d in 0..g.dim {
                    out[at(d)] = round(x[at(d)] - max - ln);
                }
            }
        }
    }
}
