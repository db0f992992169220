//! Elementwise ops whose two paths in PyTorch's CPU kernels round
//! differently: `cpu_kernel_vec` computes most elements with its vector op
//! (in `Vectorized` registers, with SLEEF's math) and the rest with its
//! scalar op (libm's math). Each element here takes the path PyTorch's
//! loop takes for it (`pytorch_cpu::vectorized`), so the bits agree.
//!
//! The vector and scalar functions are per element: a register's lanes
//! are independent in these ops, so one lane at a time gives its bits. An
//! op may also run its vector path over a whole run of registers at once
//! on AVX-512 (`Paths::map_avx512`, `zip_avx512`), where a kernel of its own
//! is faster than its lane function compiled for 16 lanes (f32 `pow`).

use std::mem::MaybeUninit;

use crate::runtime::parallel;
use half::{bf16, f16};

use super::pytorch_cpu::{chunks, lanes, vectorized, Isa, Kernel, GRAIN};
use crate::runtime::buffer::Stored;
use crate::runtime::shape::{broadcast_strides, for_each_offset2, numel};
use crate::runtime::Tensor;

/// Which elements of an op's output (row-major) the vector op computes.
pub enum Split {
    /// Contiguous inputs (or broadcast single values): PyTorch's order is
    /// row-major and one row. Each thread's chunk `(begin, end)` runs in
    /// pairs of registers up to `pairs_end`, then one by one.
    Chunks(Vec<Chunk>),
    /// Anything else, element by element.
    Mask(Vec<bool>),
}

#[derive(Clone, Copy)]
pub struct Chunk {
    pub begin: usize,
    pub pairs_end: usize,
    pub end: usize,
}

impl Split {
    /// The split of an op over `inputs` (as stored: PyTorch's iteration
    /// follows their strides) whose output has `shape`, with registers of
    /// `T` (the dtype the op computes in) as wide as `kernel`'s.
    pub fn of<T>(kernel: Kernel, shape: &[usize], inputs: &[&Tensor]) -> Split {
        let lanes = lanes::<T>(kernel);
        let n = numel(shape);
        let flat = inputs
            .iter()
            .all(|t| t.is_contiguous() && (t.shape() == shape || t.numel() == 1));
        if flat {
            let chunks = chunks(n, GRAIN, parallel::threads())
                .into_iter()
                .map(|(begin, end)| Chunk {
                    begin,
                    pairs_end: begin + (end - begin) / (2 * lanes) * (2 * lanes),
                    end,
                })
                .collect();
            return Split::Chunks(chunks);
        }
        let geometry: Vec<(&[usize], &[isize])> =
            inputs.iter().map(|t| (t.shape(), t.strides())).collect();
        Split::Mask(vectorized(shape, &geometry, lanes))
    }
}

/// An elementwise op's two paths for one element of input `I` (a value,
/// or a pair for a binary op). The methods are `#[inline(always)]` in
/// every impl, so that they compile into the loops below with AVX2 and
/// FMA: a closure would be compiled on its own, without them.
pub trait Paths<I>: Sync {
    type Out: Stored + Default;
    /// What PyTorch's vector op gives for this element.
    fn vector(&self, x: I) -> Self::Out;
    /// What its scalar op gives.
    fn scalar(&self, x: I) -> Self::Out;

    /// The vector op over a run of a unary op's elements at once, for an
    /// op with an AVX-512 kernel faster than its lane function: writes all
    /// of `out` and returns true. The default returns false, and `vector`
    /// runs lane by lane.
    ///
    /// # Safety
    /// The CPU has `Isa::Avx512`'s features.
    #[inline(always)]
    unsafe fn map_avx512(&self, _out: &mut [MaybeUninit<Self::Out>], _x: &[I]) -> bool {
        false
    }

    /// The same for a binary op, whose operands `a` and `b` are over
    /// `out`'s elements.
    ///
    /// # Safety
    /// The CPU has `Isa::Avx512`'s features.
    #[inline(always)]
    unsafe fn zip_avx512(
        &self,
        _out: &mut [MaybeUninit<Self::Out>],
        _a: Operand<'_, I::Of>,
        _b: Operand<'_, I::Of>,
    ) -> bool
    where
        I: Pair,
    {
        false
    }
}

/// A binary op's element pair, and the type of each.
pub trait Pair {
    type Of: Copy;
}

impl<T: Copy> Pair for (T, T) {
    type Of = T;
}

/// One operand of a binary op over a run of its output: an element for
/// each, or one value broadcast to all.
#[derive(Clone, Copy)]
pub enum Operand<'a, T> {
    Each(&'a [T]),
    One(T),
}

/// f16 and bf16, which PyTorch's kernels compute in f32 and round once.
pub trait Reduced: Stored + Default {
    fn widen(self) -> f32;
    fn narrow(v: f32) -> Self;
}

impl Reduced for f16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(v: f32) -> f16 {
        f16::from_f32(v)
    }
}

impl Reduced for bf16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(v: f32) -> bf16 {
        bf16::from_f32(v)
    }
}

/// A unary op over `x` (the input's elements in row-major order, already
/// in the dtype the op computes in).
pub fn map<T: Stored, O: Paths<T>>(split: &Split, x: &[T], op: &O) -> Vec<O::Out> {
    // Not zeroed first: every element is written once, below.
    let mut out = Vec::with_capacity(x.len());
    let slots = &mut out.spare_capacity_mut()[..x.len()];
    match split {
        Split::Chunks(chunks) => {
            let size = chunks.first().map_or(1, |c| c.end - c.begin);
            parallel::for_each_part(slots, size, |piece, out| {
                let c = &chunks[piece];
                let x = &x[c.begin..c.end];
                let pairs = c.pairs_end - c.begin;
                #[cfg(target_arch = "x86_64")]
                match Isa::of_cpu() {
                    // SAFETY: the CPU has the features each enables.
                    Isa::Avx512 => return unsafe { map_avx512(out, x, pairs, op) },
                    Isa::Avx2 => return unsafe { map_avx2(out, x, pairs, op) },
                    Isa::Portable => {}
                }
                map_run(out, x, pairs, op)
            });
        }
        Split::Mask(mask) => {
            for ((o, &v), &in_register) in slots.iter_mut().zip(x).zip(mask) {
                o.write(if in_register {
                    op.vector(v)
                } else {
                    op.scalar(v)
                });
            }
        }
    }
    // SAFETY: the chunks (or the mask's loop) wrote every one of the
    // first x.len() slots.
    unsafe { out.set_len(x.len()) };
    out
}

/// Writes every element of `out`.
#[inline(always)]
fn map_run<T: Copy, O: Paths<T>>(out: &mut [MaybeUninit<O::Out>], x: &[T], pairs: usize, op: &O) {
    for (o, &v) in out[..pairs].iter_mut().zip(&x[..pairs]) {
        o.write(op.vector(v));
    }
    for (o, &v) in out[pairs..].iter_mut().zip(&x[pairs..]) {
        o.write(op.scalar(v));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn map_avx2<T: Copy, O: Paths<T>>(
    out: &mut [MaybeUninit<O::Out>],
    x: &[T],
    pairs: usize,
    op: &O,
) {
    map_run(out, x, pairs, op)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,fma")]
unsafe fn map_avx512<T: Copy, O: Paths<T>>(
    out: &mut [MaybeUninit<O::Out>],
    x: &[T],
    pairs: usize,
    op: &O,
) {
    // SAFETY: this CPU has AVX-512 (the caller's contract).
    if unsafe { op.map_avx512(&mut out[..pairs], &x[..pairs]) } {
        // The rest one by one: a run with no pairs.
        return map_run(&mut out[pairs..], &x[pairs..], 0, op);
    }
    map_run(out, x, pairs, op)
}

/// A binary op over `a` and `b` (each its tensor's elements in row-major
/// order, in the dtype the op computes in, with its shape) broadcast to
/// `shape`.
pub fn zip<T: Stored, O: Paths<(T, T)>>(
    split: &Split,
    (a, a_shape): (&[T], &[usize]),
    (b, b_shape): (&[T], &[usize]),
    shape: &[usize],
    op: &O,
) -> Vec<O::Out> {
    let n = numel(shape);
    match split {
        Split::Chunks(chunks) => {
            // Not zeroed first, as in `map`: every element is written once.
            let mut out = Vec::with_capacity(n);
            let size = chunks.first().map_or(1, |c| c.end - c.begin);
            parallel::for_each_part(&mut out.spare_capacity_mut()[..n], size, |piece, out| {
                let c = &chunks[piece];
                let (head, tail) = out.split_at_mut(c.pairs_end - c.begin);
                #[cfg(target_arch = "x86_64")]
                match Isa::of_cpu() {
                    // SAFETY: the CPU has the features each enables.
                    Isa::Avx512 => return unsafe { zip_avx512(head, tail, a, b, c.begin, op) },
                    Isa::Avx2 => return unsafe { zip_avx2(head, tail, a, b, c.begin, op) },
                    Isa::Portable => {}
                }
                zip_run(head, tail, a, b, c.begin, op)
            });
            // SAFETY: the chunks cover all n elements, and each chunk's
            // head and tail are written whole by `apply`.
            unsafe { out.set_len(n) };
            out
        }
        Split::Mask(mask) => {
            let row_major = |s: &[usize]| {
                let mut st = vec![0isize; s.len()];
                let mut acc = 1isize;
                for d in (0..s.len()).rev() {
                    st[d] = acc;
                    acc *= s[d] as isize;
                }
                broadcast_strides(s, &st, shape)
            };
            let (sa, sb) = (row_major(a_shape), row_major(b_shape));
            let mut out = Vec::with_capacity(n);
            for_each_offset2(shape, (&sa, 0), (&sb, 0), |i, j| {
                let xy = (a[i], b[j]);
                out.push(if mask[out.len()] {
                    op.vector(xy)
                } else {
                    op.scalar(xy)
                });
            });
            out
        }
    }
}

/// One chunk from element `begin`: `head` in registers, `tail` one by one.
#[inline(always)]
fn zip_run<T: Copy, O: Paths<(T, T)>>(
    head: &mut [MaybeUninit<O::Out>],
    tail: &mut [MaybeUninit<O::Out>],
    a: &[T],
    b: &[T],
    begin: usize,
    op: &O,
) {
    let mid = begin + head.len();
    apply::<T, O, true>(head, a, b, begin, op);
    apply::<T, O, false>(tail, a, b, mid, op);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn zip_avx2<T: Copy, O: Paths<(T, T)>>(
    head: &mut [MaybeUninit<O::Out>],
    tail: &mut [MaybeUninit<O::Out>],
    a: &[T],
    b: &[T],
    begin: usize,
    op: &O,
) {
    zip_run(head, tail, a, b, begin, op)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,fma")]
unsafe fn zip_avx512<T: Copy, O: Paths<(T, T)>>(
    head: &mut [MaybeUninit<O::Out>],
    tail: &mut [MaybeUninit<O::Out>],
    a: &[T],
    b: &[T],
    begin: usize,
    op: &O,
) {
    fn operand<T: Copy>(v: &[T], r: std::ops::Range<usize>) -> Operand<'_, T> {
        match v.len() {
            1 => Operand::One(v[0]),
            _ => Operand::Each(&v[r]),
        }
    }
    let r = begin..begin + head.len();
    let (x, y) = (operand(a, r.clone()), operand(b, r.clone()));
    // SAFETY: this CPU has AVX-512 (the caller's contract).
    if unsafe { op.zip_avx512(head, x, y) } {
        return apply::<T, O, false>(tail, a, b, r.end, op);
    }
    zip_run(head, tail, a, b, begin, op)
}

/// Writes `out[k]`: the op's vector (or scalar) path at element `begin +
/// k` of `a` and `b`, which each hold every element or one broadcast value.
#[inline(always)]
fn apply<T: Copy, O: Paths<(T, T)>, const VECTOR: bool>(
    out: &mut [MaybeUninit<O::Out>],
    a: &[T],
    b: &[T],
    begin: usize,
    op: &O,
) {
    let r = begin..begin + out.len();
    match (a.len() == 1, b.len() == 1) {
        (false, false) => {
            for ((o, &x), &y) in out.iter_mut().zip(&a[r.clone()]).zip(&b[r]) {
                o.write(pick::<T, O, VECTOR>(op, x, y));
            }
        }
        (true, false) => {
            for (o, &y) in out.iter_mut().zip(&b[r]) {
                o.write(pick::<T, O, VECTOR>(op, a[0], y));
            }
        }
        (false, true) => {
            for (o, &x) in out.iter_mut().zip(&a[r]) {
                o.write(pick::<T, O, VECTOR>(op, x, b[0]));
            }
        }
        (true, true) => {
            for o in out.iter_mut() {
                o.write(pick::<T, O, VECTOR>(op, a[0], b[0]));
            }
        }
    }
}

#[inline(always)]
fn pick<T, O: Paths<(T, T)>, const VECTOR: bool>(op: &O, x: T, y: T) -> O::Out {
    if VECTOR {
        op.vector((x, y))
    } else {
        op.scalar((x, y))
    }
}
