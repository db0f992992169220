//! softmax and log_softmax of CPU tensors, bit for bit as PyTorch's CPU
//! kernels compute them (`aten/src/ATen/native/cpu/SoftMaxKernel.cpp` and
//! `LogSoftmaxKernelImpl.h`, on a contiguous input, as `_softmax` makes it).
//!
//! What fixes the bits:
//! - the kernel: one for the last dim (a row at a time, reduced in vector
//!   lanes by `vec::reduce_all` and `vec::map_reduce_all`) and one for any
//!   other dim (columns side by side, one lane each);
//! - the exp and log: SLEEF's wherever a `Vectorized` register computes,
//!   libm's where a scalar tail does (`vectorized.rs`);
//! - the softmax divides by the sum in the other kernel but multiplies by
//!   `1 / sum` along the last dim;
//! - f16 and bf16 compute in f32 and round where the kernels store an f16
//!   or bf16: once at the end, and along the last dim of log_softmax also
//!   its max, sum and log (they are kept in arrays of the input's dtype);
//! - the other kernel's tails: columns that do not fill a register, and for
//!   softmax the ends of `at::parallel_for`'s chunks, which depend on the
//!   thread count (rayon's here, PyTorch's one per core).
//!
//! Lanes are 32 bytes (AVX2) or 64 (AVX-512: these kernels are registered
//! for it), from `pytorch_cpu`. The work is split across the threads
//! (`parallel`) as independent jobs (rows, chunks of columns, blocks of
//! columns), each compiled for AVX-512, or AVX2 and FMA, where the CPU has
//! them; the split of rows and blocks does not change any bit.

use std::mem::MaybeUninit;

use half::{bf16, f16};

use super::pytorch_cpu::{chunks, lanes, Isa, Kernel, GRAIN};
use super::vectorized::{
    add, combine, filled_by, max_all, maximum, narrow_bf16, narrow_f16, reduce_all,
    reduce_all_halves, std_max, widen_bf16, widen_f16, AsBF16, AsF16, Exact, Opmath, Store,
};
use crate::runtime::buffer::Buffer;
use crate::runtime::parallel;
use crate::runtime::{DType, Tensor};

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
        DType::F64 => Buffer::F64(t.with_slice(|x| softmax::<f64, Exact>(x, g, log))),
        DType::F32 => Buffer::F32(t.with_slice(|x| softmax::<f32, Exact>(x, g, log))),
        DType::F16 => {
            Buffer::F16(t.with_slice(|x| halves::<f16, AsF16>(x, g, log, widen_f16, narrow_f16)))
        }
        DType::BF16 => Buffer::BF16(
            t.with_slice(|x| halves::<bf16, AsBF16>(x, g, log, widen_bf16, narrow_bf16)),
        ),
        dt => unreachable!("softmax of {dt} is refused before it runs"),
    };
    Tensor::new(buf, shape.to_vec(), t.device())
}

/// softmax of f16s or bf16s: the kernels in f32, which round where
/// PyTorch's store an f16 or bf16 (`S`), so the narrowing back is exact.
/// Along the last dim each row is on its own, so batches of rows are
/// widened and narrowed where they are computed, in cache; along another
/// dim the whole tensor is (PyTorch's thread chunks there span it), each
/// pass split across the threads.
fn halves<H: Copy + Send + Sync, S: Store<f32>>(
    x: &[H],
    g: Geometry,
    log: bool,
    widen: fn(&[H], &mut [MaybeUninit<f32>]),
    narrow: fn(&mut [MaybeUninit<H>], &[f32]),
) -> Vec<H> {
    if !g.last || g.dim == 0 {
        // SAFETY (both): the pieces cover the output, and `widen` and
        // `narrow` write every element of theirs.
        let wide = unsafe {
            filled_by(x.len(), |w| {
                parallel::for_each_pair(w, x, GRAIN, |w, x| widen(x, w))
            })
        };
        let y = softmax::<f32, S>(&wide, g, log);
        return unsafe {
            filled_by(x.len(), |out| {
                parallel::for_each_pair(out, &y, GRAIN, narrow)
            })
        };
    }
    let batch = (GRAIN / g.dim).max(1) * g.dim;
    let fill = |out: &mut [MaybeUninit<H>]| {
        parallel::for_each_pair(out, x, batch, |out, x| {
            // SAFETY: `widen` writes every element.
            let wide = unsafe { filled_by(x.len(), |w| widen(x, w)) };
            let outer = x.len() / g.dim;
            let y = softmax::<f32, S>(&wide, Geometry { outer, ..g }, log);
            narrow(out, &y);
        })
    };
    // SAFETY: the batches cover `out`, and `narrow` writes each whole.
    unsafe { filled_by(x.len(), fill) }
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

impl Geometry {
    /// Where element `d` of column `p` (an index into outer × inner) is.
    fn at(&self, p: usize, d: usize) -> usize {
        (p / self.inner * self.dim + d) * self.inner + p % self.inner
    }
}

/// One piece of the work, computed on one thread.
enum Job<'a, F> {
    /// Whole rows along the last dim, into `out` (not yet written: the
    /// kernels write each element before they read it).
    Rows {
        x: &'a [F],
        out: &'a mut [MaybeUninit<F>],
        dim: usize,
        log: bool,
    },
    /// softmax (log_softmax with `log`) of columns `begin..end` of the
    /// other kernel, into their parts of the output's lines (`Segments`,
    /// not yet written either).
    Columns {
        x: &'a [F],
        g: Geometry,
        begin: usize,
        end: usize,
        out: Segments<'a, MaybeUninit<F>>,
        log: bool,
    },
}

/// The output as one column job sees it: it writes only its own columns
/// `begin..end` (indices into outer × inner) of every line `(o, d)`, and
/// the jobs' columns do not overlap, so no element is written by two.
/// Found from a pointer rather than cut into slices up front, which took
/// a sixth of log_softmax's time along dim 0 (a slice per job and line).
struct Segments<'a, F> {
    out: *mut F,
    len: usize,
    g: Geometry,
    begin: usize,
    end: usize,
    _out: std::marker::PhantomData<&'a mut [F]>,
}

// SAFETY: each job's `Segments` reaches only its own columns (`at` checks).
unsafe impl<F: Send> Send for Segments<'_, F> {}

impl<'a, F> Segments<'a, F> {
    /// Each piece's view of `out`, for pieces in order that do not overlap
    /// (checked: the views' soundness rests on it).
    fn of(out: &'a mut [F], g: Geometry, pieces: &[(usize, usize)]) -> Vec<Segments<'a, F>> {
        assert!(
            pieces.iter().all(|&(b, e)| b <= e) && pieces.windows(2).all(|w| w[0].1 <= w[1].0),
            "column pieces must be in order and apart"
        );
        let (ptr, len) = (out.as_mut_ptr(), out.len());
        pieces
            .iter()
            .map(|&(begin, end)| Segments {
                out: ptr,
                len,
                g,
                begin,
                end,
                _out: std::marker::PhantomData,
            })
            .collect()
    }

    /// Where column `p` is (found once: it takes divisions).
    fn locate(&self, p: usize) -> Place {
        Place {
            p,
            in_line: p % self.g.inner,
            at: self.g.at(p, 0),
        }
    }

    /// The output's elements `d` of the `n` adjacent columns at `at`
    /// (within one line).
    fn at(&mut self, at: Place, d: usize, n: usize) -> &mut [F] {
        let i = at.at + d * self.g.inner;
        assert!(
            self.begin <= at.p
                && at.p + n <= self.end
                && at.in_line + n <= self.g.inner
                && i + n <= self.len,
            "a job's columns {}..{}, not {}..{}",
            self.begin,
            self.end,
            at.p,
            at.p + n
        );
        // SAFETY: in bounds (checked), and in this job's columns, which no
        // other job's `Segments` reaches; `&mut self` keeps one slice alive.
        unsafe { std::slice::from_raw_parts_mut(self.out.add(i), n) }
    }
}

/// A column's place in the output: its index, its place in its line
/// and where its element d = 0 is.
#[derive(Clone, Copy)]
struct Place {
    p: usize,
    in_line: usize,
    at: usize,
}

/// softmax (or log_softmax) of `x` (contiguous) around `g`, in F and
/// stored as S says.
pub fn softmax<F: Opmath, S: Store<F>>(x: &[F], g: Geometry, log: bool) -> Vec<F> {
    if x.is_empty() {
        return Vec::new();
    }
    let run = |job: Job<F>| match lanes::<F>(Kernel::AlsoAvx512) {
        4 => dispatch::<F, S, 4>(job),
        8 => dispatch::<F, S, 8>(job),
        _ => dispatch::<F, S, 16>(job),
    };
    if g.last {
        // Not zeroed first: at these speeds that would be a fifth of the time.
        let mut out = Vec::with_capacity(x.len());
        let rows = (GRAIN / g.dim).max(1) * g.dim;
        parallel::for_each_pair(
            &mut out.spare_capacity_mut()[..x.len()],
            x,
            rows,
            |out, x| {
                run(Job::Rows {
                    x,
                    out,
                    dim: g.dim,
                    log,
                })
            },
        );
        // SAFETY: the rows cover all x.len() elements, and the row kernels
        // write every element of theirs.
        unsafe { out.set_len(x.len()) };
        return out;
    }
    // Not zeroed first either: the column kernels write every element.
    let mut out = Vec::with_capacity(x.len());
    // The column kernels' pieces: PyTorch's thread chunks for softmax; for
    // log_softmax its blocks of 128 KiB of columns within one outer index.
    let pieces: Vec<(usize, usize)> = if log {
        let lanes = stored_lanes::<F, S>(lanes::<F>(Kernel::AlsoAvx512));
        let size = if S::REDUCED {
            2
        } else {
            std::mem::size_of::<F>()
        };
        let widest = ((128 * 1024) / g.dim / size).max(lanes) / lanes * lanes;
        let block = widest.min(g.inner);
        (0..g.outer)
            .flat_map(|o| {
                let lo = o * g.inner;
                (0..g.inner)
                    .step_by(block)
                    .map(move |s| (lo + s, lo + (s + block).min(g.inner)))
            })
            .collect()
    } else {
        chunks(g.outer * g.inner, 1, parallel::threads())
    };
    let segments = Segments::of(&mut out.spare_capacity_mut()[..x.len()], g, &pieces);
    parallel::for_each_item(
        pieces.into_iter().zip(segments).collect(),
        |((begin, end), out)| {
            run(Job::Columns {
                x,
                g,
                begin,
                end,
                out,
                log,
            })
        },
    );
    // SAFETY: the pieces cover every column, and the column kernels write
    // every element of theirs.
    unsafe { out.set_len(x.len()) };
    out
}

/// The lanes of a register of the stored dtype: twice the f32 lanes for
/// f16 and bf16.
fn stored_lanes<F: Opmath, S: Store<F>>(w: usize) -> usize {
    if S::REDUCED {
        2 * w
    } else {
        w
    }
}

fn dispatch<F: Opmath, S: Store<F>, const W: usize>(job: Job<F>) {
    #[cfg(target_arch = "x86_64")]
    match Isa::of_cpu() {
        // SAFETY: the CPU has the features each enables.
        Isa::Avx512 => return unsafe { with_avx512::<F, S, W>(job) },
        Isa::Avx2 => return unsafe { with_avx2::<F, S, W>(job) },
        Isa::Portable => {}
    }
    work::<F, S, W>(job)
}

/// The job compiled for AVX2 and FMA: SLEEF's `mul_add`s as single
/// instructions and the lane loops in 256-bit registers (the same bits
/// either way, only faster).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn with_avx2<F: Opmath, S: Store<F>, const W: usize>(job: Job<F>) {
    work::<F, S, W>(job)
}

/// The job in 512-bit registers where the CPU has them: the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,fma")]
unsafe fn with_avx512<F: Opmath, S: Store<F>, const W: usize>(job: Job<F>) {
    work::<F, S, W>(job)
}

#[inline(always)]
fn work<F: Opmath, S: Store<F>, const W: usize>(job: Job<F>) {
    match job {
        Job::Rows { x, out, dim, log } => {
            for (x, out) in x.chunks_exact(dim).zip(out.chunks_exact_mut(dim)) {
                match (log, S::REDUCED) {
                    (true, _) => log_softmax_row::<F, S, W>(x, out),
                    (false, true) => softmax_row_halves::<F, S, W>(x, out),
                    (false, false) => softmax_row::<F, W>(x, out),
                }
            }
        }
        Job::Columns {
            x,
            g,
            begin,
            end,
            mut out,
            log: false,
        } => softmax_columns::<F, S, W>(x, g, begin, end, &mut out),
        Job::Columns {
            x,
            g,
            begin,
            end,
            mut out,
            log: true,
        } => log_softmax_columns::<F, S, W>(x, g, begin, end, &mut out),
    }
}

/// `out` as written values.
///
/// # Safety
/// Every element of `out` has been written.
#[inline(always)]
unsafe fn written<F>(out: &mut [MaybeUninit<F>]) -> &mut [F] {
    // SAFETY: MaybeUninit<F> is laid out as F, and the caller has written
    // every element.
    unsafe { &mut *(out as *mut [MaybeUninit<F>] as *mut [F]) }
}

/// `_vec_softmax_lastdim` for f32 and f64: max, exp, sum, times 1 / sum.
#[inline(always)]
fn softmax_row<F: Opmath, const W: usize>(x: &[F], out: &mut [MaybeUninit<F>]) {
    let max = max_all::<F, W>(x);
    for (o, &v) in out.iter_mut().zip(x) {
        o.write((v - max).vexp());
    }
    // SAFETY: the loop wrote each element (out is as long as x).
    let out = unsafe { written(out) };
    let inv = F::ONE / reduce_all::<F, W>(out, |v| v, add);
    for o in out.iter_mut() {
        *o = *o * inv;
    }
}

/// `_vec_softmax_lastdim` for f16 and bf16: in f32, registers of 2W
/// elements for the max, W for the exp, libm's exp for the tail.
#[inline(always)]
fn softmax_row_halves<F: Opmath, S: Store<F>, const W: usize>(x: &[F], out: &mut [MaybeUninit<F>]) {
    let n = x.len();
    let mut maxv = [F::NEG_INF; W];
    let full = n - n % (2 * W);
    for c in x[..full].chunks_exact(2 * W) {
        for l in 0..W {
            maxv[l] = maximum(maxv[l], c[l]);
        }
        for l in 0..W {
            maxv[l] = maximum(maxv[l], c[W + l]);
        }
    }
    let max = x[full..]
        .iter()
        .fold(F::horizontal(maxv, maximum), |m, &v| std_max(m, v));
    let full = n - n % W;
    for (o, &v) in out[..full].iter_mut().zip(&x[..full]) {
        o.write((v - max).vexp());
    }
    for (o, &v) in out[full..].iter_mut().zip(&x[full..]) {
        o.write((v - max).exp());
    }
    // SAFETY: the two loops wrote each element, the first up to `full`,
    // the second from there (out is as long as x).
    let out = unsafe { written(out) };
    let mut sumv = [F::ZERO; W];
    for c in out[..full].chunks_exact(W) {
        sumv = combine(sumv, c.try_into().expect("a register of W"), add);
    }
    // Kept from the fold's shape, so the loop stays in one register (as in
    // `reduce_all`).
    let sumv = std::hint::black_box(sumv);
    let sum = out[full..]
        .iter()
        .fold(F::horizontal(sumv, add), |s, &e| s + e);
    let inv = F::ONE / sum;
    // Not rounded to the stored dtype here: `halves` narrows every element
    // to it next, which rounds the same way once.
    for o in out.iter_mut() {
        *o = *o * inv;
    }
}

/// `_vec_log_softmax_lastdim`: x - max - log Σ exp(x - max). For f16 and
/// bf16 the max, the sum and its log are stored in their dtype.
#[inline(always)]
fn log_softmax_row<F: Opmath, S: Store<F>, const W: usize>(x: &[F], out: &mut [MaybeUninit<F>]) {
    let max = if S::REDUCED {
        reduce_stored::<F, S, W>(x, maximum)
    } else {
        max_all::<F, W>(x)
    };
    let sum = if S::REDUCED || W < 16 {
        // The exps stored first (in `out`), then summed: as f16/bf16
        // registers of twice the lanes, or as `map_reduce_all` adds them.
        // At fewer than 16 lanes (AVX2's, and f64's in AVX-512) LLVM
        // computed the fused form below one lane at a time: 4x the time of
        // this form in AVX2's registers. At 16 it vectorises it.
        for (o, &v) in out.iter_mut().zip(x) {
            o.write((v - max).vexp());
        }
        // SAFETY: the loop wrote each element (out is as long as x).
        reduce_stored::<F, S, W>(unsafe { written(out) }, add)
    } else {
        // `map_reduce_all`: each register's exps added as they are made.
        reduce_all::<F, W>(x, |v| (v - max).vexp(), add)
    };
    let ln = S::round(sum.vlog());
    for (o, &v) in out.iter_mut().zip(x) {
        o.write(S::round(v - max - ln));
    }
}

/// `vec::reduce_all` of a row in the stored dtype's registers, its result
/// stored in that dtype.
#[inline(always)]
fn reduce_stored<F: Opmath, S: Store<F>, const W: usize>(
    x: &[F],
    op: impl Fn(F, F) -> F + Copy,
) -> F {
    if S::REDUCED {
        S::round(reduce_all_halves::<F, W>(x, |v| v, op))
    } else {
        reduce_all::<F, W>(x, |v| v, op)
    }
}

/// `_vec_softmax` (a dim other than the last) over one thread's chunk of
/// columns: a register of adjacent columns at a time where the column's
/// line and the chunk have that many left, else one by one with
/// `std::max` and libm's exp. f32 and f64 divide by the sum; f16 and bf16
/// store each exp in their dtype first in the one-by-one columns. Each
/// column is computed on its own lane, so runs of whole registers are done
/// together (`softmax_lanes`), up to 128 columns at a time.
#[inline(always)]
fn softmax_columns<F: Opmath, S: Store<F>, const W: usize>(
    x: &[F],
    g: Geometry,
    begin: usize,
    end: usize,
    out: &mut Segments<MaybeUninit<F>>,
) {
    let step = stored_lanes::<F, S>(W);
    let mut idx = begin;
    while idx < end {
        let i = idx % g.inner;
        if i + step <= g.inner && idx + step <= end {
            let registers = ((g.inner - i) / step)
                .min((end - idx) / step)
                .min(128 / step)
                .max(1);
            softmax_lanes::<F, S>(x, g, idx, registers * step, out);
            idx += registers * step;
        } else {
            let tail = if idx + step > end {
                end - idx
            } else {
                g.inner - i
            };
            for p in idx..idx + tail {
                let (base, place) = (g.at(p, 0), out.locate(p));
                let v = |d: usize| x[base + d * g.inner];
                let max = (1..g.dim).fold(v(0), |m, d| std_max(m, v(d)));
                let mut sum = F::ZERO;
                for d in 0..g.dim {
                    let e = (v(d) - max).exp();
                    sum = sum + e;
                    out.at(place, d, 1)[0].write(S::round(e));
                }
                for d in 0..g.dim {
                    // SAFETY: the loop above wrote it.
                    let o = &mut unsafe { written(out.at(place, d, 1)) }[0];
                    *o = S::round(*o / sum);
                }
            }
            idx += tail;
        }
    }
}

/// `_vec_softmax`'s vector steps for the `n` adjacent columns from `p`
/// (whole registers, in one line): each column on its own lane.
#[inline(always)]
fn softmax_lanes<F: Opmath, S: Store<F>>(
    x: &[F],
    g: Geometry,
    p: usize,
    n: usize,
    out: &mut Segments<MaybeUninit<F>>,
) {
    let (base, place) = (g.at(p, 0), out.locate(p));
    let line = |d: usize| &x[base + d * g.inner..][..n];
    let mut max = [F::ZERO; 128];
    let max = &mut max[..n];
    max.copy_from_slice(line(0));
    for d in 1..g.dim {
        for (m, &v) in max.iter_mut().zip(line(d)) {
            *m = maximum(*m, v);
        }
    }
    let mut sum = [F::ZERO; 128];
    let sum = &mut sum[..n];
    for d in 0..g.dim {
        let o = out.at(place, d, n);
        for ((o, &v), &m) in o.iter_mut().zip(line(d)).zip(&*max) {
            o.write((v - m).vexp());
        }
        // SAFETY: the loop above wrote each of the n elements.
        let o = unsafe { written(o) };
        for (s, &e) in sum.iter_mut().zip(&*o) {
            *s = *s + e;
        }
    }
    for d in 0..g.dim {
        // SAFETY: written in the loop above.
        let o = unsafe { written(out.at(place, d, n)) };
        for (o, &s) in o.iter_mut().zip(&*sum) {
            *o = S::round(*o / s);
        }
    }
}

/// `_vec_logsoftmax` (a dim other than the last) over one block of
/// adjacent columns: each column on its own lane; the max passes NaN
/// over; the columns after the last full register take libm's exp; all
/// take SLEEF's log.
#[inline(always)]
fn log_softmax_columns<F: Opmath, S: Store<F>, const W: usize>(
    x: &[F],
    g: Geometry,
    begin: usize,
    end: usize,
    out: &mut Segments<MaybeUninit<F>>,
) {
    let len = end - begin;
    let vectors = len - len % stored_lanes::<F, S>(W);
    let (base, place) = (g.at(begin, 0), out.locate(begin));
    let line = |d: usize| &x[base + d * g.inner..][..len];
    // From one array into another, d after d: updated in place, the
    // compiler stores only where `v > m`, with slow masked stores.
    let (mut max, mut next) = (vec![F::NEG_INF; len], vec![F::NEG_INF; len]);
    for d in 0..g.dim {
        for ((n, &m), &v) in next.iter_mut().zip(&max).zip(line(d)) {
            *n = if v > m { v } else { m };
        }
        std::mem::swap(&mut max, &mut next);
    }
    let mut sum = vec![F::ZERO; len];
    for d in 0..g.dim {
        let v = line(d);
        for ((s, &v), &m) in sum[..vectors]
            .iter_mut()
            .zip(&v[..vectors])
            .zip(&max[..vectors])
        {
            *s = *s + (v - m).vexp();
        }
        for ((s, &v), &m) in sum[vectors..]
            .iter_mut()
            .zip(&v[vectors..])
            .zip(&max[vectors..])
        {
            *s = *s + (v - m).exp();
        }
    }
    for s in sum.iter_mut() {
        *s = s.vlog();
    }
    for d in 0..g.dim {
        for (((o, &v), &m), &ln) in out
            .at(place, d, len)
            .iter_mut()
            .zip(line(d))
            .zip(&max)
            .zip(&sum)
        {
            o.write(S::round(v - m - ln));
        }
    }
}
