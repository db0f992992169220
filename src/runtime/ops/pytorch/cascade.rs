//! PyTorch's CPU sum and product of floats, operation for operation, so
//! that `sum`, `mean` and `prod` of a CPU tensor give PyTorch's bits.
//!
//! PyTorch (`aten/src/ATen/native/cpu/SumKernel.cpp`) lays the reduction out
//! as a `TensorIterator` does: the reduced dims first, each list ordered by
//! stride, adjacent dims merged where the memory allows, then calls a 2-D
//! loop over the first two dims for each index of the rest. The loop picks
//! one of four kernels by the strides it sees; each adds in the accumulator
//! type (f32 for f16, bf16 and f32; f64 for f64) in a cascade: runs of 16 or
//! more partial sums are summed, then the runs' sums, four levels deep, in
//! vector lanes of 32 bytes (AVX2's: `sum_stub` is not registered for
//! AVX-512, so AVX-512 CPUs run the AVX2 kernel too; see `pytorch_cpu`).
//! Each loop's result is added into the output element, rounded to its dtype.
//!
//! Products (`binary_kernel_reduce_vec`) share the layout and the thread
//! split, with a loop of their own (`prod_loop`).
//!
//! Past 32,768 elements PyTorch splits the work over its threads: a single
//! result in one chunk per thread (each summed into a slot, the slots summed
//! last), otherwise by output columns. Both are followed here with
//! `parallel`'s thread count (rayon's pool size), which is PyTorch's default
//! (one per core) on most machines.

use std::ops::{Add, Mul};

use half::{bf16, f16};

use super::pytorch_cpu::{chunks, reorder_dims, Isa, AVX2_BYTES, GRAIN};
use crate::runtime::buffer::Stored;
use crate::runtime::parallel;

/// The type the sums accumulate in.
pub trait Acc: Copy + Add<Output = Self> + Mul<Output = Self> + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
}
impl Acc for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}
impl Acc for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
}

/// A float dtype PyTorch's cascade sums, with its accumulator type.
pub trait Summand: Stored {
    type Acc: Acc;
    fn acc(self) -> Self::Acc;
    fn from_acc(a: Self::Acc) -> Self;
    /// The `W` lanes a contiguous vector of `v.len()` elements loads as
    /// (`InnerSumCastLoadPolicy`): one element each where the widths agree.
    #[inline(always)]
    fn inner_lanes<const W: usize>(v: &[Self]) -> [Self::Acc; W] {
        std::array::from_fn(|l| v[l].acc())
    }
}

/// f32 and f64 accumulate in themselves.
macro_rules! own_accumulator {
    ($($t:ty),*) => {$(
        impl Summand for $t {
            type Acc = $t;
            #[inline(always)]
            fn acc(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_acc(a: $t) -> $t {
                a
            }
        }
    )*};
}
own_accumulator!(f32, f64);

impl Summand for f16 {
    type Acc = f32;
    #[inline(always)]
    fn acc(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn from_acc(a: f32) -> f16 {
        f16::from_f32(a)
    }
    /// `load_reduce_vec`: twice the elements as lanes, neighbours summed
    /// onto a zero.
    #[inline(always)]
    fn inner_lanes<const W: usize>(v: &[f16]) -> [f32; W] {
        std::array::from_fn(|l| (0.0 + v[2 * l].to_f32()) + v[2 * l + 1].to_f32())
    }
}

impl Summand for bf16 {
    type Acc = f32;
    #[inline(always)]
    fn acc(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn from_acc(a: f32) -> bf16 {
        bf16::from_f32(a)
    }
    /// `load_fp32_from_bf16`: the vector's two halves, added lane by lane.
    #[inline(always)]
    fn inner_lanes<const W: usize>(v: &[bf16]) -> [f32; W] {
        std::array::from_fn(|l| v[l].to_f32() + v[l + W].to_f32())
    }
}

/// Sums `data` (a tensor's storage, read through `shape`, `strides` and
/// `offset`) over the dims marked in `reduced`. The result is contiguous in
/// the order of the dims kept.
pub fn sum<S: Summand>(
    data: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    reduced: &[bool],
) -> Vec<S> {
    reduce::<S, false>(data, shape, strides, offset, reduced)
}

/// The product over the dims marked in `reduced`, as PyTorch's CPU `prod`
/// multiplies (`binary_kernel_reduce_vec`): in the dtype, each product
/// rounded to it, four vectors of lanes side by side along contiguous rows
/// and then the lanes in order, whole vectors of columns down contiguous
/// columns, the rest one element at a time; the same split over threads as
/// the sum.
pub fn prod<S: Summand>(
    data: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    reduced: &[bool],
) -> Vec<S> {
    reduce::<S, true>(data, shape, strides, offset, reduced)
}

fn reduce<S: Summand, const PROD: bool>(
    data: &[S],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    reduced: &[bool],
) -> Vec<S> {
    let it = Iter::new(shape, strides, offset, reduced);
    let outputs = shape
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| !r)
        .map(|(&n, _)| n)
        .product();
    let mut out = vec![identity::<S, PROD>(); outputs];
    if it.numel() == 0 {
        return out;
    }
    // `sum_stub` and `prod_stub` are registered for AVX2 only, so their
    // registers are AVX2's on every CPU.
    run::<S, PROD, AVX2_BYTES>(&it, data, &mut out);
    out
}

/// What the outputs start from: 0 for a sum, 1 for a product.
fn identity<S: Summand, const PROD: bool>() -> S {
    S::from_acc(if PROD { S::Acc::ONE } else { S::Acc::ZERO })
}

/// Whether the reduction adds into its outputs more than once: two reduced
/// dims that do not merge, so that each output takes the sums of several
/// 2-D loops. PyTorch sums f16 and bf16 in f32 then (`should_use_acc_buffer`),
/// rather than round each partial sum to 16 bits.
pub fn adds_twice(shape: &[usize], strides: &[isize], reduced: &[bool]) -> bool {
    let it = Iter::new(shape, strides, 0, reduced);
    it.shape.len() >= 2 && it.out[0] == 0 && it.out[1] == 0
}

/// The output strides of a reduction: contiguous over the kept dims, 0
/// along the reduced.
pub fn kept_strides(shape: &[usize], reduced: &[bool]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1isize;
    for d in (0..shape.len()).rev() {
        if !reduced[d] {
            strides[d] = step;
            step *= shape[d] as isize;
        }
    }
    strides
}

/// Instantiates the kernels for the lane counts `B` bytes give `S`.
fn run<S: Summand, const PROD: bool, const B: usize>(it: &Iter, data: &[S], out: &mut [S]) {
    let size = std::mem::size_of::<S>();
    match (B, size) {
        (32, 8) => drive::<S, PROD, 4, 4>(it, data, out),
        (32, 4) => drive::<S, PROD, 8, 8>(it, data, out),
        (32, _) => drive::<S, PROD, 8, 16>(it, data, out),
        (_, 8) => drive::<S, PROD, 8, 8>(it, data, out),
        (_, 4) => drive::<S, PROD, 16, 16>(it, data, out),
        _ => drive::<S, PROD, 16, 32>(it, data, out),
    }
}

/// The reduction as PyTorch's `TensorIterator` lays it out: per dim, its
/// size and the output's and input's strides (in elements), fastest first.
/// The norm (`norm.rs`) walks the same layout.
#[derive(Clone, Debug)]
pub(super) struct Iter {
    pub(super) shape: Vec<usize>,
    pub(super) out: Vec<isize>,
    pub(super) inp: Vec<isize>,
    out_base: isize,
    pub(super) in_base: isize,
}

impl Iter {
    pub(super) fn new(shape: &[usize], strides: &[isize], offset: usize, reduced: &[bool]) -> Iter {
        let n = shape.len();
        // The output is contiguous over the kept dims, 0 along the reduced.
        let out = kept_strides(shape, reduced);
        // `reorder_dimensions`: 1 when dim `a` should come after dim `b`.
        let order = |a: usize, b: usize| -> i32 {
            if (out[a] == 0) != (out[b] == 0) {
                return if out[b] == 0 { 1 } else { -1 };
            }
            for s in [&out[..], strides] {
                let (sa, sb) = (s[a], s[b]);
                if sa == 0 || sb == 0 {
                    continue;
                }
                if sa != sb {
                    return if sa < sb { -1 } else { 1 };
                }
                if shape[a] > shape[b] {
                    return 1;
                }
            }
            0
        };
        let mut perm: Vec<usize> = (0..n).rev().collect();
        reorder_dims(&mut perm, order);
        let mut it = Iter {
            shape: perm.iter().map(|&d| shape[d]).collect(),
            out: perm.iter().map(|&d| out[d]).collect(),
            inp: perm.iter().map(|&d| strides[d]).collect(),
            out_base: 0,
            in_base: offset as isize,
        };
        it.coalesce();
        it
    }

    /// `coalesce_dimensions`: merges neighbours that step through memory as one.
    fn coalesce(&mut self) {
        let n = self.shape.len();
        if n < 2 {
            return;
        }
        let mut prev = 0;
        for d in 1..n {
            let (a, b) = (self.shape[prev], self.shape[d]);
            let joins = a == 1
                || b == 1
                || (self.out[prev] * a as isize == self.out[d]
                    && self.inp[prev] * a as isize == self.inp[d]);
            if joins {
                if a == 1 {
                    self.out[prev] = self.out[d];
                    self.inp[prev] = self.inp[d];
                }
                self.shape[prev] *= b;
            } else {
                prev += 1;
                self.shape[prev] = b;
                self.out[prev] = self.out[d];
                self.inp[prev] = self.inp[d];
            }
        }
        self.shape.truncate(prev + 1);
        self.out.truncate(prev + 1);
        self.inp.truncate(prev + 1);
    }

    pub(super) fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The stride of dim `d` of the output and the input (0 past the last).
    fn strides(&self, d: usize) -> (isize, isize) {
        (
            self.out.get(d).copied().unwrap_or(0),
            self.inp.get(d).copied().unwrap_or(0),
        )
    }

    pub(super) fn is_reduced(&self, d: usize) -> bool {
        self.out[d] == 0 && self.shape[d] > 1
    }
}

/// The output, written through by threads that own disjoint elements.
struct Out<S> {
    ptr: *mut S,
    len: usize,
}

// SAFETY: `Out` is shared only by the chunks of `split_by_columns`, which
// write disjoint output elements (see there); every access is bounds-checked.
unsafe impl<S: Send> Send for Out<S> {}
// SAFETY: as for Send.
unsafe impl<S: Send> Sync for Out<S> {}

impl<S: Summand> Out<S> {
    /// `CastStoreAccumulate`: the element plus `v`, rounded to its dtype.
    #[inline(always)]
    fn add(&self, at: isize, v: S::Acc) {
        let i = at as usize;
        assert!(i < self.len, "sum output index {i} of {}", self.len);
        // SAFETY: in bounds (checked); no other thread writes element `i`.
        unsafe {
            let p = self.ptr.add(i);
            *p = S::from_acc((*p).acc() + v);
        }
    }

    /// The element times `v`, rounded to its dtype.
    #[inline(always)]
    fn mul(&self, at: isize, v: S) {
        let i = at as usize;
        assert!(i < self.len, "prod output index {i} of {}", self.len);
        // SAFETY: in bounds (checked); no other thread writes element `i`.
        unsafe {
            let p = self.ptr.add(i);
            *p = times(*p, v);
        }
    }
}

/// `a * b` in the dtype: computed in the accumulator type, rounded once
/// (c10::Half's and BFloat16's operators, and their vectors', do so too).
#[inline(always)]
fn times<S: Summand>(a: S, b: S) -> S {
    S::from_acc(a.acc() * b.acc())
}

/// `TensorIterator::parallel_reduce`: one thread below `GRAIN` elements,
/// else one chunk per thread (a single result) or columns per thread.
fn drive<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    it: &Iter,
    data: &[S],
    out: &mut [S],
) {
    let threads = parallel::threads();
    let numel = it.numel();
    let sink = Out {
        ptr: out.as_mut_ptr(),
        len: out.len(),
    };
    if numel < GRAIN || threads == 1 {
        serial::<S, PROD, W, VEC>(it, 0, numel, data, &sink);
    } else if out.len() == 1 {
        two_pass::<S, PROD, W, VEC>(it, threads, data, &sink);
    } else {
        split_by_columns::<S, PROD, W, VEC>(it, threads, data, &sink);
    }
}

/// A single result: each thread's chunk summed into a slot of its own, then
/// the slots (one per thread, written or not) summed as a tensor of its own.
fn two_pass<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    it: &Iter,
    threads: usize,
    data: &[S],
    sink: &Out<S>,
) {
    let zero = identity::<S, PROD>();
    let mut slots = vec![zero; threads];
    let pieces = chunks(it.numel(), GRAIN, threads);
    let parts = parallel::map(pieces.len(), |t| {
        let (b, e) = pieces[t];
        let mut slot = [zero];
        let one = Out {
            ptr: slot.as_mut_ptr(),
            len: 1,
        };
        serial::<S, PROD, W, VEC>(it, b, e, data, &one);
        slot[0]
    });
    slots[..parts.len()].copy_from_slice(&parts);
    let last = Iter::new(&[threads], &[1], 0, &[true]);
    serial::<S, PROD, W, VEC>(&last, 0, threads, &slots, sink);
}

/// Several results: the outermost kept dim at least as long as the thread
/// count (else the longest) split among the threads, in whole 128-byte
/// groups where it is the input's contiguous dim (`parallel_dim_reduction`).
fn split_by_columns<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    it: &Iter,
    threads: usize,
    data: &[S],
    sink: &Out<S>,
) {
    let n = it.shape.len();
    let mut dim = n - 1;
    for d in (0..n).rev() {
        if it.is_reduced(d) {
            break;
        }
        if it.shape[d] >= threads {
            dim = d;
            break;
        }
        if it.shape[d] > it.shape[dim] {
            dim = d;
        }
    }
    let cols = it.shape[dim];
    let group = (128 / std::mem::size_of::<S>()) as isize;
    let round = it.inp[dim] == 1;
    // Each chunk owns the output elements of its columns: `dim` is kept, so
    // its output stride is not 0 and distinct columns reach distinct elements.
    parallel::for_each_item(chunks(cols, 1, threads), |(b, e)| {
        let (mut b, mut e) = (b as isize, e as isize);
        if round {
            b -= b % group;
            if e != cols as isize {
                e -= e % group;
            }
        }
        if b >= e {
            return;
        }
        let mut part = it.clone();
        part.shape[dim] = (e - b) as usize;
        part.out_base += b * it.out[dim];
        part.in_base += b * it.inp[dim];
        serial::<S, PROD, W, VEC>(&part, 0, part.numel(), data, sink);
    });
}

/// `serial_for_each`: the 2-D loop over elements `begin..end` of the
/// iteration, in steps of whole rows of the first two dims where it can.
fn serial<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    it: &Iter,
    begin: usize,
    end: usize,
    data: &[S],
    sink: &Out<S>,
) {
    let n = it.shape.len();
    let (o0, i0) = it.strides(0);
    let (o1, i1) = it.strides(1);
    let strides = [o0, i0, o1, i1];
    if n <= 1 {
        let b = begin as isize;
        let at = (it.out_base + b * o0, it.in_base + b * i0);
        loop2d::<S, PROD, W, VEC>(data, sink, at, strides, end - begin, 1);
        return;
    }
    let mut offset = begin;
    while offset < end {
        // The position of `offset`, dim 0 fastest.
        let mut rest = offset;
        let (mut out_at, mut in_at) = (it.out_base, it.in_base);
        let mut first = [0usize; 2];
        for (d, &size) in it.shape.iter().enumerate() {
            let v = rest % size;
            rest /= size;
            out_at += v as isize * it.out[d];
            in_at += v as isize * it.inp[d];
            if let Some(f) = first.get_mut(d) {
                *f = v;
            }
        }
        let size0 = (it.shape[0] - first[0]).min(end - offset);
        let size1 = if size0 == it.shape[0] {
            (it.shape[1] - first[1]).min((end - offset) / it.shape[0])
        } else {
            1
        };
        loop2d::<S, PROD, W, VEC>(data, sink, (out_at, in_at), strides, size0, size1);
        offset += size0 * size1;
    }
}

/// `cascade_sum`'s loop: which kernel the strides call for. The same
/// additions in AVX2's registers where the CPU has them (the lanes, not the
/// instructions, fix the order).
fn loop2d<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    data: &[S],
    sink: &Out<S>,
    at: (isize, isize),
    strides: [isize; 4],
    size0: usize,
    size1: usize,
) {
    #[cfg(target_arch = "x86_64")]
    match Isa::of_cpu() {
        // SAFETY: the CPU has the features each enables.
        Isa::Avx512 => {
            return unsafe {
                loop2d_avx512::<S, PROD, W, VEC>(data, sink, at, strides, size0, size1)
            }
        }
        Isa::Avx2 => {
            return unsafe { loop2d_avx2::<S, PROD, W, VEC>(data, sink, at, strides, size0, size1) }
        }
        Isa::Portable => {}
    }
    loop2d_body::<S, PROD, W, VEC>(data, sink, at, strides, size0, size1)
}

/// In 512-bit registers where the CPU has them: the same additions (in
/// AVX2's lanes, two registers to one), so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn loop2d_avx512<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    data: &[S],
    sink: &Out<S>,
    at: (isize, isize),
    strides: [isize; 4],
    size0: usize,
    size1: usize,
) {
    loop2d_body::<S, PROD, W, VEC>(data, sink, at, strides, size0, size1)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn loop2d_avx2<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    data: &[S],
    sink: &Out<S>,
    at: (isize, isize),
    strides: [isize; 4],
    size0: usize,
    size1: usize,
) {
    loop2d_body::<S, PROD, W, VEC>(data, sink, at, strides, size0, size1)
}

#[inline(always)]
fn loop2d_body<S: Summand, const PROD: bool, const W: usize, const VEC: usize>(
    data: &[S],
    sink: &Out<S>,
    (out_at, in_at): (isize, isize),
    [o0, i0, o1, i1]: [isize; 4],
    size0: usize,
    size1: usize,
) {
    if PROD {
        let strides = [o0, i0, o1, i1];
        return prod_loop::<S, VEC>(data, sink, (out_at, in_at), strides, size0, size1);
    }
    let (mut os, mut is, mut sizes) = ([o0, o1], [i0, i1], [size0, size1]);
    // The reduced dim first.
    if os[0] != 0 && os[1] == 0 {
        os.swap(0, 1);
        is.swap(0, 1);
        sizes.swap(0, 1);
    }
    let [size0, size1] = sizes;
    let x = |at: isize| data[at as usize];
    if os[0] != 0 {
        // Nothing reduced here: each element added to its output.
        for j in 0..size1 as isize {
            for i in 0..size0 as isize {
                let v = x(in_at + j * is[1] + i * is[0]).acc();
                sink.add(out_at + j * os[1] + i * os[0], v);
            }
        }
        return;
    }
    let out_stride = os[1];
    let store = |j: isize, v: S::Acc| sink.add(out_at + j * out_stride, v);
    if is[0] == 1 && size0 >= VEC {
        // Contiguous rows, each reduced in vectors.
        for j in 0..size1 as isize {
            let start = (in_at + j * is[1]) as usize;
            store(j, inner_row::<S, W, VEC>(&data[start..start + size0]));
        }
    } else if is[1] == 1 && size1 >= VEC {
        // Contiguous columns, reduced a vector of columns at a time.
        let lanes = |at: isize| -> [S::Acc; W] {
            let v = data[at as usize..].first_chunk::<W>();
            v.expect("a whole vector of columns").map(|x| x.acc())
        };
        let w = W as isize;
        let mut j = 0isize;
        while j + 4 * w <= size1 as isize {
            let sums = multi_row_sum::<S::Acc, 4, W>(size0, |i, k| {
                lanes(in_at + i as isize * is[0] + j + k as isize * w)
            });
            for (k, lanes) in sums.iter().enumerate() {
                for (l, &v) in lanes.iter().enumerate() {
                    store(j + (k * W + l) as isize, v);
                }
            }
            j += 4 * w;
        }
        while j + w <= size1 as isize {
            let sums = row_sum::<S::Acc, W>(size0, |i| lanes(in_at + i as isize * is[0] + j));
            for (l, &v) in sums.iter().enumerate() {
                store(j + l as isize, v);
            }
            j += w;
        }
        while j < size1 as isize {
            let at = in_at + j;
            store(
                j,
                row_sum::<S::Acc, 1>(size0, |i| [x(at + i as isize * is[0]).acc()])[0],
            );
            j += 1;
        }
    } else if is[0] < is[1] {
        for j in 0..size1 as isize {
            let at = in_at + j * is[1];
            store(
                j,
                row_sum::<S::Acc, 1>(size0, |i| [x(at + i as isize * is[0]).acc()])[0],
            );
        }
    } else {
        // Four outputs at a time, then one by one.
        let mut j = 0isize;
        while j + 3 < size1 as isize {
            let at = in_at + j * is[1];
            let sums = multi_row_sum::<S::Acc, 4, 1>(size0, |i, k| {
                [x(at + i as isize * is[0] + k as isize * is[1]).acc()]
            });
            for (k, s) in sums.iter().enumerate() {
                store(j + k as isize, s[0]);
            }
            j += 4;
        }
        while j < size1 as isize {
            let at = in_at + j * is[1];
            store(
                j,
                row_sum::<S::Acc, 1>(size0, |i| [x(at + i as isize * is[0]).acc()])[0],
            );
            j += 1;
        }
    }
}

/// `binary_kernel_reduce_vec`'s loop for a product: no reordering of the
/// two dims; contiguous rows into the output, contiguous columns of input
/// and output, or element by element.
#[inline(always)]
fn prod_loop<S: Summand, const VEC: usize>(
    data: &[S],
    sink: &Out<S>,
    (out_at, in_at): (isize, isize),
    [o0, i0, o1, i1]: [isize; 4],
    size0: usize,
    size1: usize,
) {
    let block = 4 * VEC;
    let vector = |at: isize| -> [S; VEC] {
        *data[at as usize..]
            .first_chunk::<VEC>()
            .expect("a whole vector")
    };
    let times_lanes = |a: &mut [S; VEC], b: [S; VEC]| {
        for (a, b) in a.iter_mut().zip(b) {
            *a = times(*a, b);
        }
    };
    if o0 == 0 && i0 == 1 {
        // `vectorized_inner_reduction`: four vectors side by side, then
        // the four multiplied in a tree, then the lanes in order.
        for j in 0..size1 as isize {
            let row = in_at + j * i1;
            let out = out_at + j * o1;
            let count = size0 / block;
            if count > 0 {
                let mut acc: [[S; VEC]; 4] =
                    std::array::from_fn(|k| vector(row + (k * VEC) as isize));
                for i in 1..count {
                    for (k, a) in acc.iter_mut().enumerate() {
                        times_lanes(a, vector(row + (i * block + k * VEC) as isize));
                    }
                }
                let [mut a0, a1, mut a2, a3] = acc;
                times_lanes(&mut a0, a1);
                times_lanes(&mut a2, a3);
                times_lanes(&mut a0, a2);
                let lanes = a0.into_iter().reduce(times).expect("VEC lanes");
                sink.mul(out, lanes);
            }
            for i in count * block..size0 {
                sink.mul(out, data[(row + i as isize) as usize]);
            }
        }
    } else if o0 == 0 && o1 == 1 && i1 == 1 {
        // `vectorized_outer_reduction`: four vectors of columns down the
        // rows, then into the output; the columns after them one by one.
        let blocks = size1 / block;
        for c in 0..blocks {
            let col = (c * block) as isize;
            let mut acc: [[S; VEC]; 4] =
                std::array::from_fn(|k| vector(in_at + col + (k * VEC) as isize));
            for i in 1..size0 as isize {
                for (k, a) in acc.iter_mut().enumerate() {
                    times_lanes(a, vector(in_at + i * i0 + col + (k * VEC) as isize));
                }
            }
            for (k, a) in acc.iter().enumerate() {
                for (l, &v) in a.iter().enumerate() {
                    sink.mul(out_at + col + (k * VEC + l) as isize, v);
                }
            }
        }
        for col in (blocks * block) as isize..size1 as isize {
            for i in 0..size0 as isize {
                sink.mul(out_at + col, data[(in_at + i * i0 + col) as usize]);
            }
        }
    } else {
        for j in 0..size1 as isize {
            for i in 0..size0 as isize {
                let x = data[(in_at + j * i1 + i * i0) as usize];
                sink.mul(out_at + j * o1 + i * o0, x);
            }
        }
    }
}

/// `vectorized_inner_sum` for one contiguous row: whole vectors into lanes,
/// then the elements past them, then the lanes in order.
#[inline(always)]
fn inner_row<S: Summand, const W: usize, const VEC: usize>(row: &[S]) -> S::Acc {
    let (vectors, rest) = row.as_chunks::<VEC>();
    let lanes = row_sum::<S::Acc, W>(vectors.len(), |i| S::inner_lanes::<W>(&vectors[i]));
    let mut total = S::Acc::ZERO;
    for &x in rest {
        total = total + x.acc();
    }
    for l in lanes {
        total = total + l;
    }
    total
}

#[inline(always)]
fn add_lanes<A: Acc, const W: usize>(a: &mut [A; W], b: [A; W]) {
    for (a, b) in a.iter_mut().zip(b) {
        *a = *a + b;
    }
}

/// `row_sum`: `size` items read as rows of four, each column its own
/// cascade, then the items left over and the four columns, in order.
#[inline(always)]
fn row_sum<A: Acc, const W: usize>(size: usize, load: impl Fn(usize) -> [A; W]) -> [A; W] {
    let rows = size / 4;
    let mut parts = multi_row_sum::<A, 4, W>(rows, |i, k| load(i * 4 + k));
    for i in rows * 4..size {
        add_lanes(&mut parts[0], load(i));
    }
    let mut total = parts[0];
    for part in &parts[1..] {
        add_lanes(&mut total, *part);
    }
    total
}

/// `multi_row_sum`: `R` cascades side by side over `size` steps. Level 0
/// adds `2^p` items (`p` at least 4, more for long rows so that four levels
/// hold any length); each level passes its sum up when it has taken `2^p`.
#[inline(always)]
fn multi_row_sum<A: Acc, const R: usize, const W: usize>(
    size: usize,
    load: impl Fn(usize, usize) -> [A; W],
) -> [[A; W]; R] {
    const LEVELS: usize = 4;
    let power = 4.max(ceil_log2(size) / LEVELS as u32);
    let step = 1usize << power;
    let mask = step - 1;
    let mut acc = [[[A::ZERO; W]; R]; LEVELS];
    // Every `step^3` steps the three lower levels have passed their sums up
    // and are zero again: each such group is a sum of its own, and the top
    // level adds the groups in order. Long rows read several groups side by
    // side (one run, read front to back, leaves memory idle between
    // requests); the additions are the same.
    let group = step.pow(3);
    let sets = size / (RUNS * group);
    for set in 0..sets {
        let sums = groups::<A, R, W>(set * RUNS * group, group, step, &load);
        for run in sums {
            for (top, sum) in acc[LEVELS - 1].iter_mut().zip(run) {
                add_lanes(top, sum);
            }
        }
    }
    let mut i = sets * RUNS * group;
    while i + step <= size {
        for _ in 0..step {
            for (k, a) in acc[0].iter_mut().enumerate() {
                add_lanes(a, load(i, k));
            }
            i += 1;
        }
        for j in 1..LEVELS {
            let (below, above) = acc.split_at_mut(j);
            for (lower, upper) in below[j - 1].iter_mut().zip(&mut above[0]) {
                add_lanes(upper, *lower);
                *lower = [A::ZERO; W];
            }
            if i & (mask << (j as u32 * power)) != 0 {
                break;
            }
        }
    }
    while i < size {
        for (k, a) in acc[0].iter_mut().enumerate() {
            add_lanes(a, load(i, k));
        }
        i += 1;
    }
    let [mut total, rest @ ..] = acc;
    for level in rest {
        for (t, l) in total.iter_mut().zip(level) {
            add_lanes(t, l);
        }
    }
    total
}

/// Groups read side by side in `multi_row_sum`. Four were faster than one
/// on the AVX2 machine of 2026-11-25; on an AMD EPYC (Zen 5) two beat four
/// (16M f32 on 2 threads, in turn: 695–824 µs against 701–918 in eight of
/// nine pairs; PyTorch 690–710).
const RUNS: usize = 2;

/// The sums of `RUNS` consecutive groups of `step^3` steps from `start`,
/// each as `multi_row_sum` forms it: `step` items a level-0 sum, `step` of
/// those a level-1 sum, `step` of those the group's.
#[inline(always)]
fn groups<A: Acc, const R: usize, const W: usize>(
    start: usize,
    group: usize,
    step: usize,
    load: &impl Fn(usize, usize) -> [A; W],
) -> [[[A; W]; R]; RUNS] {
    let zero = [[[A::ZERO; W]; R]; RUNS];
    let mut top = zero;
    for b1 in 0..step {
        let mut mid = zero;
        for b0 in 0..step {
            let first = start + (b1 * step + b0) * step;
            let mut low = zero;
            for r in 0..step {
                for (run, sums) in low.iter_mut().enumerate() {
                    for (k, a) in sums.iter_mut().enumerate() {
                        add_lanes(a, load(first + run * group + r, k));
                    }
                }
            }
            for (m, l) in mid.iter_mut().zip(low) {
                for (m, l) in m.iter_mut().zip(l) {
                    add_lanes(m, l);
                }
            }
        }
        for (t, m) in top.iter_mut().zip(mid) {
            for (t, m) in t.iter_mut().zip(m) {
                add_lanes(t, m);
            }
        }
    }
    top
}

/// `c10::utils::CeilLog2`: 1 up to 2, then the bits of `x - 1`.
fn ceil_log2(x: usize) -> u32 {
    if x <= 2 {
        1
    } else {
        usize::BITS - (x - 1).leading_zeros()
    }
}
