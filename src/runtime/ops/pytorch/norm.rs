//! `norm` of a CPU tensor of floats, as PyTorch's CPU kernel computes it
//! (`norm_kernel_tensor_iterator_impl` in
//! `aten/src/ATen/native/cpu/ReduceOpsKernel.cpp`, which `Tensor.norm` reaches
//! through `linalg_vector_norm`), operation for operation, so that the bits
//! agree.
//!
//! The elements are walked in `TensorIterator`'s order (cascade's `Iter`:
//! the reduced dims first, by stride, merged where memory allows), in f32
//! for f16, bf16 and f32 and in f64 for f64. Two kernels:
//! - **2-norm along one contiguous dim** of f32, f64 or bf16
//!   (`binary_kernel_reduce_lastdim`): each row's squares go into the lanes
//!   of a register (`acc + x * x`, rounded twice), the lanes are added left
//!   to right, then the rest of the row one by one. That rest is compiled
//!   by GCC, which fuses `b += x * x` into one FMA; for f32 it first does
//!   four of them with the squares in a vector register (then not fused),
//!   when four are left. These were found against PyTorch's results (a
//!   model of each choice, 2,000 rows each).
//! - **everything else** (`binary_kernel_reduce` with `NormTwoOps`,
//!   `NormOneOps`, `NormZeroOps`, `NormOps`, `AbsMaxOps`, `AbsMinOps`):
//!   each output is a fold in order, its squares not fused. One output
//!   over 32,768 elements or more is folded in one chunk per thread, and the
//!   chunks' results added in order.
//!
//! The result is `sqrt` (p = 2) or `pow(acc, 1/p)` of the fold, in the
//! accumulator's type, rounded once to the dtype.

use half::{bf16, f16};

use super::cascade::{Acc, Iter, Summand};
use super::pytorch_cpu::{chunks, Isa, AVX2_BYTES, GRAIN};
use crate::runtime::buffer::Buffer;
use crate::runtime::parallel;
use crate::runtime::{DType, Tensor};

/// The p-norm of `x` over the dims marked in `reduced`, contiguous over
/// the dims kept. `x` is a float tensor.
pub fn on_cpu(x: &Tensor, reduced: &[bool], p: f64) -> Buffer {
    // `linalg_vector_norm` over dims that are all 1 long (or none: a 0-d
    // tensor) folds nothing: it is `abs(x)`, or `x != 0` for p = 0, so
    // `(|x|^p)^(1/p)` does not round and `x * x` does not overflow.
    if x.shape().iter().zip(reduced).all(|(&n, &r)| !r || n == 1) {
        return match x.dtype() {
            DType::F32 => Buffer::F32(x.with_slice(|s| one_each(s, p))),
            DType::F64 => Buffer::F64(x.with_slice(|s| one_each(s, p))),
            DType::F16 => Buffer::F16(x.with_slice(|s| one_each(s, p))),
            DType::BF16 => Buffer::BF16(x.with_slice(|s| one_each(s, p))),
            dt => unreachable!("norm takes floats, not {dt}"),
        };
    }
    let buf = x.read();
    let (shape, strides, offset) = (x.shape(), x.strides(), x.offset());
    match x.dtype() {
        DType::F32 => Buffer::F32(norm(buf.as_slice(), shape, strides, offset, reduced, p)),
        DType::F64 => Buffer::F64(norm(buf.as_slice(), shape, strides, offset, reduced, p)),
        DType::F16 => Buffer::F16(norm(buf.as_slice(), shape, strides, offset, reduced, p)),
        DType::BF16 => Buffer::BF16(norm(buf.as_slice(), shape, strides, offset, reduced, p)),
        dt => unreachable!("norm takes floats, not {dt}"),
    }
}

/// The norm of each element on its own: `|x|`, or 1 where x is not 0
/// (NaN included) for p = 0.
fn one_each<S: Normed>(xs: &[S], p: f64) -> Vec<S> {
    xs.iter()
        .map(|&v| {
            let a = v.acc();
            S::from_acc(match p {
                0.0 if a == S::Acc::ZERO => S::Acc::ZERO,
                0.0 => S::Acc::ONE,
                _ => a.abs(),
            })
        })
        .collect()
}

/// What the accumulators (f32, f64) need beyond a sum.
pub trait Real: Acc + PartialOrd + std::ops::Div<Output = Self> {
    const INFINITY: Self;
    fn from_f64(v: f64) -> Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn powf(self, p: Self) -> Self;
    fn is_nan(self) -> bool;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const INFINITY: $t = <$t>::INFINITY;
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn powf(self, p: $t) -> $t {
                <$t>::powf(self, p)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    )*};
}
real!(f32, f64);

/// A dtype's norm kernels: whether its 2-norm along a contiguous dim takes
/// the lanes (`binary_kernel_reduce_lastdim`: f32, f64 and bf16; not f16),
/// and that row's sum of squares.
pub trait Normed: Summand<Acc: Real> {
    const LASTDIM: bool;
    fn row_squares(x: &[Self]) -> Self::Acc;
}

impl Normed for f32 {
    const LASTDIM: bool = true;
    fn row_squares(x: &[f32]) -> f32 {
        squares_f32_dispatch(x)
    }
}

impl Normed for f64 {
    const LASTDIM: bool = true;
    fn row_squares(x: &[f64]) -> f64 {
        squares_f64_dispatch(x)
    }
}

impl Normed for bf16 {
    const LASTDIM: bool = true;
    fn row_squares(x: &[bf16]) -> f32 {
        squares_bf16_dispatch(x)
    }
}

impl Normed for f16 {
    const LASTDIM: bool = false;
    fn row_squares(_: &[f16]) -> f32 {
        unreachable!("PyTorch's f16 norm has no lanes kernel")
    }
}

/// The order of the norm, as the kernel picks its ops.
#[derive(Clone, Copy)]
enum Order<A> {
    Zero,
    One,
    Two,
    Inf,
    NegInf,
    P(A),
}

impl<A: Real> Order<A> {
    fn of(p: f64) -> Order<A> {
        match p {
            0.0 => Order::Zero,
            1.0 => Order::One,
            2.0 => Order::Two,
            f64::INFINITY => Order::Inf,
            f64::NEG_INFINITY => Order::NegInf,
            _ => Order::P(A::from_f64(p)),
        }
    }

    /// The fold's start: 0, or inf for the smallest magnitude.
    fn init(self) -> A {
        match self {
            Order::NegInf => A::INFINITY,
            _ => A::ZERO,
        }
    }

    /// One element into the fold (the ops' `reduce`).
    #[inline(always)]
    fn reduce(self, acc: A, x: A) -> A {
        match self {
            Order::Zero => acc + if x == A::ZERO { A::ZERO } else { A::ONE },
            Order::One => acc + x.abs(),
            Order::Two => acc + x * x,
            Order::Inf => max_propagate_nan(acc, x.abs()),
            Order::NegInf => min_propagate_nan(acc, x.abs()),
            Order::P(p) => acc + x.abs().powf(p),
        }
    }

    /// Two threads' folds into one (`combine`).
    fn combine(self, a: A, b: A) -> A {
        match self {
            Order::Inf => max_propagate_nan(a, b),
            Order::NegInf => min_propagate_nan(a, b),
            _ => a + b,
        }
    }

    /// The fold's result (`project`).
    fn project(self, acc: A) -> A {
        match self {
            Order::Two => acc.sqrt(),
            Order::P(p) => acc.powf(A::ONE / p),
            _ => acc,
        }
    }
}

/// `max_propagate_nan`: a NaN on either side wins.
#[inline(always)]
fn max_propagate_nan<A: Real>(a: A, b: A) -> A {
    if a.is_nan() || b.is_nan() || a > b {
        if b.is_nan() {
            b
        } else {
            a
        }
    } else {
        b
    }
}

/// `min_propagate_nan`: the same for the smallest.
#[inline(always)]
fn min_propagate_nan<A: Real>(a: A, b: A) -> A {
    if a.is_nan() || b.is_nan() || a < b {
        if b.is_nan() {
            b
        } else {
            a
        }
    } else {
        b
    }
}

/// The p-norm of `data` (a tensor's storage, read through `shape`,
/// `strides` and `offset`) over the dims marked in `reduced`.
fn norm<S: Normed>(
    data: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    reduced: &[bool],
    p: f64,
) -> Vec<S> {
    let outputs: usize = shape
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| !r)
        .map(|(&n, _)| n)
        .product();
    let it = Iter::new(shape, strides, offset, reduced);
    if it.numel() == 0 {
        let empty = if p < 0.0 {
            S::Acc::INFINITY
        } else {
            S::Acc::ZERO
        };
        return vec![S::from_acc(empty); outputs];
    }
    let walk = Walk::of(&it);
    if p == 2.0 && S::LASTDIM && walk.lastdim(&it) {
        let n = walk.reduced_len;
        return walk.map_outputs(outputs, it.numel(), |base| {
            let row = &data[base..base + n];
            S::from_acc(S::row_squares(row).sqrt())
        });
    }
    // Each order's `reduce` in a loop of its own (matched once, here).
    macro_rules! fold_with {
        ($order:expr) => {
            folds(data, &walk, &it, outputs, $order, &move |a, x| {
                $order.reduce(a, x)
            })
        };
    }
    match Order::<S::Acc>::of(p) {
        Order::Zero => fold_with!(Order::Zero),
        Order::One => fold_with!(Order::One),
        Order::Two => fold_with!(Order::Two),
        Order::Inf => fold_with!(Order::Inf),
        Order::NegInf => fold_with!(Order::NegInf),
        Order::P(e) => fold_with!(Order::P(e)),
    }
}

/// `binary_kernel_reduce`: each output a fold in the walk's order; one
/// output past 32,768 elements in one chunk per thread, the chunks' folds
/// combined in order.
fn folds<S: Normed>(
    data: &[S],
    walk: &Walk,
    it: &Iter,
    outputs: usize,
    order: Order<S::Acc>,
    reduce: &(impl Fn(S::Acc, S::Acc) -> S::Acc + Sync),
) -> Vec<S> {
    let fold = |base: usize, range: (usize, usize)| {
        let mut acc = order.init();
        walk.each(base, range, |i| acc = reduce(acc, data[i].acc()));
        acc
    };
    let threads = parallel::threads();
    if outputs == 1 && walk.reduced_len >= GRAIN && threads > 1 {
        let base = it.in_base as usize;
        let ranges = chunks(walk.reduced_len, GRAIN, threads);
        let slots: Vec<S::Acc> = parallel::map(ranges.len(), |t| fold(base, ranges[t]));
        let total = slots
            .into_iter()
            .fold(order.init(), |t, s| order.combine(t, s));
        return vec![S::from_acc(order.project(total))];
    }
    let all = (0, walk.reduced_len);
    walk.map_outputs(outputs, it.numel(), |base| {
        S::from_acc(order.project(fold(base, all)))
    })
}

/// The reduction's walk: the reduced dims (fastest first) under each
/// output, and the kept dims that pick the output.
struct Walk {
    /// (size, input stride) of each reduced dim, fastest first.
    reduced: Vec<(usize, isize)>,
    reduced_len: usize,
    /// (size, output stride, input stride) of each kept dim.
    kept: Vec<(usize, isize, isize)>,
    in_base: isize,
}

impl Walk {
    fn of(it: &Iter) -> Walk {
        let dims = it.shape.len();
        let split = (0..dims).take_while(|&d| it.out[d] == 0).count();
        let reduced: Vec<(usize, isize)> = (0..split).map(|d| (it.shape[d], it.inp[d])).collect();
        Walk {
            reduced_len: reduced.iter().map(|&(n, _)| n).product(),
            reduced,
            kept: (split..dims)
                .map(|d| (it.shape[d], it.out[d], it.inp[d]))
                .collect(),
            in_base: it.in_base,
        }
    }

    /// `is_reduce_lastdim`: one reduced dim, contiguous.
    fn lastdim(&self, it: &Iter) -> bool {
        self.reduced.len() == 1 && it.is_reduced(0) && self.reduced[0].1 == 1
    }

    /// `f(input offset of the output's first element)` for every output,
    /// in the output's order; over the threads when there are enough
    /// elements (each output is computed whole by one thread, so the
    /// threads do not change the bits).
    fn map_outputs<S: Send>(
        &self,
        outputs: usize,
        numel: usize,
        f: impl Fn(usize) -> S + Sync + Send,
    ) -> Vec<S> {
        let mut slots: Vec<(usize, usize)> = Vec::with_capacity(outputs);
        let mut idx = vec![0usize; self.kept.len()];
        for _ in 0..outputs {
            let (mut o, mut i) = (0isize, self.in_base);
            for (k, &(_, os, is)) in self.kept.iter().enumerate() {
                o += idx[k] as isize * os;
                i += idx[k] as isize * is;
            }
            slots.push((o as usize, i as usize));
            for (k, &(n, _, _)) in self.kept.iter().enumerate() {
                idx[k] += 1;
                if idx[k] < n {
                    break;
                }
                idx[k] = 0;
            }
        }
        let values: Vec<(usize, S)> = if numel >= GRAIN {
            // Each thread a run of outputs, as `parallel_dim_reduction`.
            let runs = chunks(outputs, 1, parallel::threads());
            let run = |t: usize| {
                let (b, e) = runs[t];
                slots[b..e]
                    .iter()
                    .map(|&(o, i)| (o, f(i)))
                    .collect::<Vec<_>>()
            };
            parallel::map(runs.len(), run)
                .into_iter()
                .flatten()
                .collect()
        } else {
            slots.into_iter().map(|(o, i)| (o, f(i))).collect()
        };
        let mut out: Vec<Option<S>> = (0..outputs).map(|_| None).collect();
        for (o, v) in values {
            out[o] = Some(v);
        }
        out.into_iter()
            .map(|v| v.expect("every output computed"))
            .collect()
    }

    /// `f(input index)` for the reduced elements `range` (in the walk's
    /// order) under the output at input offset `base`.
    #[inline(always)]
    fn each(&self, base: usize, range: (usize, usize), mut f: impl FnMut(usize)) {
        let (mut at, end) = range;
        let mut idx = vec![0usize; self.reduced.len()];
        let mut rest = at;
        for (k, &(n, _)) in self.reduced.iter().enumerate() {
            idx[k] = rest % n;
            rest /= n;
        }
        while at < end {
            let mut pos = base as isize;
            for (k, &(_, s)) in self.reduced.iter().enumerate() {
                pos += idx[k] as isize * s;
            }
            let (n0, s0) = self.reduced[0];
            let run = (n0 - idx[0]).min(end - at);
            for j in 0..run {
                f((pos + j as isize * s0) as usize);
            }
            at += run;
            idx[0] += run;
            for k in 0..self.reduced.len() {
                if idx[k] < self.reduced[k].0 {
                    break;
                }
                idx[k] = 0;
                if k + 1 < idx.len() {
                    idx[k + 1] += 1;
                }
            }
        }
    }
}

/// `norm_two_reduce_step` over the whole registers of `W` lanes at the
/// start of `x` (`acc + x * x`, each rounded), the lanes added left to
/// right; and the rest of the row.
#[inline(always)]
fn lane_squares<A: Real, const W: usize>(x: &[A]) -> (A, &[A]) {
    let full = x.len() - x.len() % W;
    let mut acc = [A::ZERO; W];
    for c in x[..full].chunks_exact(W) {
        let c: &[A; W] = c.try_into().expect("a register of W");
        let mut next = acc;
        for l in 0..W {
            next[l] = acc[l] + c[l] * c[l];
        }
        acc = next;
    }
    // Kept from the fold's shape, so the loop stays in one register.
    let acc = std::hint::black_box(acc);
    let b = acc[1..].iter().fold(acc[0], |b, &a| b + a);
    (b, &x[full..])
}

/// f32's row: the lanes, then the rest as GCC compiles the scalar loop:
/// with four or more left, four squares in a register added in turn, then
/// the others fused.
#[inline(always)]
fn squares_f32<const W: usize>(x: &[f32]) -> f32 {
    let (mut b, tail) = lane_squares::<f32, W>(x);
    let (squared, fused) = tail.split_at(if tail.len() >= 4 { 4 } else { 0 });
    for &v in squared {
        b += v * v;
    }
    for &v in fused {
        b = v.mul_add(v, b);
    }
    b
}

/// f64's row: the lanes, then the rest all fused.
#[inline(always)]
fn squares_f64<const W: usize>(x: &[f64]) -> f64 {
    let (b, tail) = lane_squares::<f64, W>(x);
    tail.iter().fold(b, |b, &v| v.mul_add(v, b))
}

/// bf16: registers of 2W, widened to two f32 halves added in turn (the
/// first half, then the second); the rest fused, in f32. (Whether GCC
/// fuses this rest cannot be seen through bf16's rounding: no row of
/// 3,000 came out differently.)
#[inline(always)]
fn squares_bf16<const W: usize>(x: &[bf16]) -> f32 {
    let widen = |v: bf16| f32::from_bits(u32::from(v.to_bits()) << 16);
    let full = x.len() - x.len() % (2 * W);
    let mut acc = [0f32; W];
    for c in x[..full].chunks_exact(2 * W) {
        let mut next = acc;
        for l in 0..W {
            let v = widen(c[l]);
            next[l] = acc[l] + v * v;
        }
        acc = next;
        for l in 0..W {
            let v = widen(c[W + l]);
            next[l] = acc[l] + v * v;
        }
        acc = next;
    }
    let acc = std::hint::black_box(acc);
    let mut b = acc[0];
    for &a in &acc[1..] {
        b += a;
    }
    for &v in &x[full..] {
        let v = widen(v);
        b = v.mul_add(v, b);
    }
    b
}

/// Defines `$name(x)`: `$body::<W>` for AVX2's register width (`norm_stub`
/// is registered for AVX2 only, so AVX-512 CPUs run it too), compiled
/// with AVX2 and FMA where the CPU has them (an FMA instruction, not a
/// library call, for each fused step; the lanes in vector registers).
macro_rules! dispatch {
    ($name:ident, $avx2:ident, $body:ident, $t:ty, $acc:ty) => {
        fn $name(x: &[$t]) -> $acc {
            #[cfg(target_arch = "x86_64")]
            if Isa::of_cpu() >= Isa::Avx2 {
                // SAFETY: the CPU has both features `$avx2` enables.
                return unsafe { $avx2(x) };
            }
            $body::<{ AVX2_BYTES / std::mem::size_of::<$acc>() }>(x)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2(x: &[$t]) -> $acc {
            $body::<{ AVX2_BYTES / std::mem::size_of::<$acc>() }>(x)
        }
    };
}

dispatch!(
    squares_f32_dispatch,
    squares_f32_avx2,
    squares_f32,
    f32,
    f32
);
dispatch!(
    squares_f64_dispatch,
    squares_f64_avx2,
    squares_f64,
    f64,
    f64
);
dispatch!(
    squares_bf16_dispatch,
    squares_bf16_avx2,
    squares_bf16,
    bf16,
    f32
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Sequential folds of exact inputs are exact: 3-4-12 makes 13.
    #[test]
    fn every_path_folds_in_order() {
        let x = [3.0f32, 4.0, 12.0];
        assert_eq!(norm(&x, &[3], &[1], 0, &[true], 2.0), vec![13.0]);
        // Down a column (a strided reduced dim): the fold, not the lanes.
        let m = [3.0f64, 0.0, 4.0, 0.0, 12.0, 0.0];
        assert_eq!(
            norm(&m, &[3, 2], &[2, 1], 0, &[true, false], 2.0),
            vec![13.0, 0.0]
        );
        assert_eq!(
            norm(&m, &[3, 2], &[2, 1], 0, &[true, false], 1.0),
            vec![19.0, 0.0]
        );
        assert_eq!(
            norm(&m, &[3, 2], &[2, 1], 0, &[true, false], 0.0),
            vec![3.0, 0.0]
        );
        let inf = f64::INFINITY;
        assert_eq!(
            norm(&m, &[3, 2], &[2, 1], 0, &[true, false], inf),
            vec![12.0, 0.0]
        );
        assert_eq!(
            norm(&m, &[3, 2], &[2, 1], 0, &[true, false], -inf),
            vec![3.0, 0.0]
        );
        // Nothing to reduce: 0, or inf for a negative order.
        assert_eq!(
            norm::<f32>(&[], &[0, 2], &[2, 1], 0, &[true, false], 2.0),
            vec![0.0; 2]
        );
        assert_eq!(
            norm::<f32>(&[], &[0], &[1], 0, &[true], -1.0),
            vec![f32::INFINITY]
        );
    }

    /// Dims of one element reduce to |x| (x != 0 for p = 0), unrounded.
    #[test]
    fn a_norm_over_dims_of_one_is_the_magnitude() {
        use crate::runtime::ops::factory::from_f64s;
        use crate::runtime::Device;
        let x = from_f64s(
            vec![-3.0, 0.0, 1e30, f64::NAN],
            &[4, 1],
            DType::F32,
            Device::Cpu,
        );
        let got = |p: f64| match on_cpu(&x, &[false, true], p) {
            Buffer::F32(v) => v,
            _ => unreachable!(),
        };
        let three = got(3.0);
        assert_eq!(&three[..3], &[3.0, 0.0, 1e30]);
        assert!(three[3].is_nan());
        assert_eq!(got(2.0)[2], 1e30);
        assert_eq!(got(0.0), vec![1.0, 0.0, 1.0, 1.0]);
        let scalar = from_f64s(vec![-2.5], &[], DType::F64, Device::Cpu);
        assert!(matches!(on_cpu(&scalar, &[], 2.0), Buffer::F64(v) if v == vec![2.5]));
    }

    /// The walk visits every reduced element once, in TensorIterator's
    /// order, from any starting point (the thread chunks start mid-dim).
    #[test]
    fn the_walk_covers_each_element_once_from_any_start() {
        // A (3, 5, 4) tensor reduced over dims 0 and 2, dim 1 kept.
        let it = Iter::new(&[3, 5, 4], &[20, 4, 1], 0, &[true, false, true]);
        let walk = Walk::of(&it);
        assert_eq!(walk.reduced_len, 12);
        let mut all = Vec::new();
        walk.each(4, (0, 12), |i| all.push(i));
        assert_eq!(all, vec![4, 5, 6, 7, 24, 25, 26, 27, 44, 45, 46, 47]);
        let mut pieces = Vec::new();
        for (b, e) in [(0, 5), (5, 7), (7, 12)] {
            walk.each(4, (b, e), |i| pieces.push(i));
        }
        assert_eq!(pieces, all);
    }

    /// What the lanes leave (`b`) plus the rest of the row: fused for f64
    /// and for f32 up to three left; with four or more left, f32 rounds
    /// four squares first. The values are picked so that the two differ.
    #[test]
    fn the_row_kernels_fuse_the_rest_as_gcc_compiles_it() {
        // f32: the lanes leave 2^-24 (one lane of 2^-12); e = 1 + 2^-12
        // squares to 1 + 2^-11 + 2^-24, a tie that rounds down.
        let w = AVX2_BYTES / 4;
        let e = 1.0 + 2f32.powi(-12);
        let row = |tail: &[f32]| {
            let mut r = vec![0.0f32; w];
            r[0] = 2f32.powi(-12);
            r.extend_from_slice(tail);
            squares_f32_dispatch(&r)
        };
        let fused = 1.0 + 2f32.powi(-11) + 2f32.powi(-23);
        let squared = 1.0 + 2f32.powi(-11);
        assert_ne!(fused, squared);
        assert_eq!(row(&[e]), fused);
        assert_eq!(row(&[e, 0.0, 0.0]), fused);
        assert_eq!(row(&[e, 0.0, 0.0, 0.0]), squared);
        assert_eq!(row(&[e, 0.0, 0.0, 0.0, 0.0]), squared);
        assert_eq!(row(&[0.0, 0.0, 0.0, 0.0, e]), fused);
        // f64: two lanes of 2^-27 leave 2^-53; e = 1 + 2^-27.
        let w = AVX2_BYTES / 8;
        let e = 1.0 + 2f64.powi(-27);
        let mut r = vec![0.0f64; w];
        r[0] = 2f64.powi(-27);
        r[1] = 2f64.powi(-27);
        r.extend_from_slice(&[0.0, 0.0, e]);
        let fused = 1.0 + 2f64.powi(-26) + 2f64.powi(-52);
        assert_ne!(fused, 1.0 + 2f64.powi(-26));
        assert_eq!(squares_f64_dispatch(&r), fused);
    }
}
