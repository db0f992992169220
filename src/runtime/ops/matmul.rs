//! Matrix products (`@`, `matmul`) with NumPy's rules for 1-D and batched operands.
//! On the CPU, f32 goes to [`sgemm`] (AVX2 and FMA) where it runs and gains,
//! other products to the `gemm` crate; integers use a plain loop. A
//! simulated device's float products round as a device's do
//! ([`fma_gemm`], which `emu` runs too).

use gemm::Parallelism;

use super::super::buffer::{Buffer, Stored};
use super::super::driver::fma_gemm::{self, FmaElement};
use super::super::driver::Gemm;
use super::super::parallel;
use super::super::shape::{
    broadcast_shapes, broadcast_strides, fmt_shape, for_each_offset2, numel,
};
use super::super::{DType, Device, Tensor};
use super::pytorch::sgemm;
use crate::error::Error;
pub use crate::runtime::op::matmul::{as_matrices, matmul_dtypes, not_lined_up};

pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
    matmul_tf32(a, b, false)
}

/// [`matmul`], a simulated device's f32 product rounding its operands to
/// TF32 first when `tf32` (`Runtime::matmul_tf32`), as cuBLAS's TF32 mode.
pub fn matmul_tf32(a: &Tensor, b: &Tensor, tf32: bool) -> Result<Tensor, Error> {
    if a.device() != b.device() {
        return Err(Error::DeviceMismatch {
            a: a.device(),
            b: b.device(),
        });
    }
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Error::Shape {
            message: "matmul needs tensors with at least one dimension, not 0-d scalars".into(),
            help: Some("use `*` to multiply by a scalar".into()),
        });
    }
    // Promote 1-D operands to matrices, remembering which dimensions to drop afterwards.
    let (a2, b2) = as_matrices(a, b);
    let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
    let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if k != k2 {
        return Err(not_lined_up(a.shape(), b.shape(), k, k2));
    }
    let batch_a = a2.shape()[..a2.ndim() - 2].to_vec();
    let batch_b = b2.shape()[..b2.ndim() - 2].to_vec();
    let batch = broadcast_shapes(&batch_a, &batch_b).ok_or_else(|| Error::Broadcast {
        op: "@".into(),
        lhs: fmt_shape(a.shape()),
        rhs: fmt_shape(b.shape()),
    })?;
    let (dt, compute) = matmul_dtypes(a.dtype(), b.dtype())?;
    let ca = if a2.dtype() != compute {
        a2.cast(compute)
    } else {
        a2
    };
    let cb = if b2.dtype() != compute {
        b2.cast(compute)
    } else {
        b2
    };
    let nb = numel(&batch);
    let mut offsets = Vec::with_capacity(nb);
    let sa = broadcast_strides(&batch_a, &ca.strides()[..ca.ndim() - 2], &batch);
    let sb = broadcast_strides(&batch_b, &cb.strides()[..cb.ndim() - 2], &batch);
    for_each_offset2(&batch, (&sa, ca.offset()), (&sb, cb.offset()), |i, j| {
        offsets.push((i, j))
    });
    let mat = Mat { m, n, k };
    let device = a.device() != Device::Cpu;
    let out = match compute {
        DType::F32 if device => {
            let round = tf32.then_some(fma_gemm::round_to_tf32 as fn(f32) -> f32);
            Buffer::F32(device_batches::<f32>(&ca, &cb, &offsets, mat, round)?)
        }
        DType::F64 if device => Buffer::F64(device_batches::<f64>(&ca, &cb, &offsets, mat, None)?),
        DType::F32 => Buffer::F32(float_batches::<f32>(&ca, &cb, &offsets, mat)),
        DType::F64 => Buffer::F64(float_batches::<f64>(&ca, &cb, &offsets, mat)),
        _ => Buffer::I64(int_batches(&ca, &cb, &offsets, mat)),
    };
    let mut shape = batch;
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    let out = Tensor::new(out, shape, a.device());
    Ok(if out.dtype() != dt { out.cast(dt) } else { out })
}

/// Products of at least this many multiply-adds (about 80³) use every
/// thread; below, handing work to the pool costs more than it saves.
const THREADED: usize = 1 << 19;

/// Products of up to this many multiply-adds (about 320³) go to [`sgemm`]
/// where it runs, and larger ones with at least [`sgemm::PACK_A_MIN_N`]
/// columns (it packs `a` for those). Larger products with fewer columns read
/// `a` in place there, and the `gemm` crate was faster on them: 16 × 65536
/// @ 65536 × 64 took 2.2 ms against 2.5, and 4096² @ 4096 × 256 as long.
/// Measured beside PyTorch and NumPy on 2 cores (README).
const ANY_SHAPE_MAX: usize = 1 << 25;

/// On a CPU with AVX-512 the `gemm` crate's 512-bit kernels beat
/// [`sgemm`]'s AVX2 ones but where the call or the threads cost more than
/// the arithmetic: up to 16³ multiply-adds [`sgemm`] is as fast or faster
/// (4² 350 ns against 395), and from [`THREADED`] to 2²² (about 160³) its
/// split over threads is (100² 11–12 µs against 24–29, 128² 17–18 against
/// 26–28, 160² 37–39 against 41–42). Elsewhere the crate is faster, on 2
/// cores of an AMD EPYC (Zen 5): 32² 0.66 µs against 0.92, 64² 2.5 against
/// 4.5, 80² 5.0 against 7.9, 224² 64–68 against 97, 256² 84–90 against
/// 135–140, 1024² 4.6 ms against 9.0–10.3 (NumPy's OpenBLAS 7.8), 2048² 42–45
/// against 75–76.
const TINY: usize = 1 << 12;
const THREADED_MAX_AVX512: usize = 1 << 22;

/// Whether an f32 product of `flops` multiply-adds and `n` columns goes to
/// [`sgemm`] (where it runs) rather than the `gemm` crate.
fn own_kernel_first(flops: usize, n: usize) -> bool {
    if super::pytorch::pytorch_cpu::Isa::of_cpu() == super::pytorch::pytorch_cpu::Isa::Avx512 {
        return flops <= TINY || (THREADED..=THREADED_MAX_AVX512).contains(&flops);
    }
    flops <= ANY_SHAPE_MAX || n >= sgemm::PACK_A_MIN_N
}

#[derive(Clone, Copy)]
struct Mat {
    m: usize,
    n: usize,
    k: usize,
}

trait GemmFloat: super::super::element::Num + Stored {
    const ONE: Self;

    /// Computes `c = a · b` on up to `threads` threads without the `gemm`
    /// crate where this dtype and CPU have a faster way (`b`'s rows
    /// contiguous); false otherwise.
    ///
    /// # Safety
    /// As [`sgemm::sgemm`], but for `available`.
    unsafe fn by_sgemm(_: sgemm::Operands, _threads: usize) -> bool {
        false
    }
}
impl GemmFloat for f32 {
    const ONE: Self = 1.0;

    unsafe fn by_sgemm(o: sgemm::Operands, threads: usize) -> bool {
        if !sgemm::available() {
            return false;
        }
        sgemm::sgemm_parallel(o, threads);
        true
    }
}
impl GemmFloat for f64 {
    const ONE: Self = 1.0;
}

fn float_batches<T: GemmFloat>(
    a: &Tensor,
    b: &Tensor,
    offsets: &[(usize, usize)],
    mat: Mat,
) -> Vec<T> {
    let Mat { m, n, k } = mat;
    let (ga, gb) = (a.read(), b.read());
    let (sa, sb) = (ga.as_slice::<T>(), gb.as_slice::<T>());
    let (ars, acs) = (a.strides()[a.ndim() - 2], a.strides()[a.ndim() - 1]);
    let (brs, bcs) = (b.strides()[b.ndim() - 2], b.strides()[b.ndim() - 1]);
    // Not zeroed first: each product writes all of its part (zeroing took 1%
    // of a 1024² product's time), and empty sums are zeroed here.
    let len = offsets.len() * m * n;
    let mut out: Vec<T> = Vec::with_capacity(len);
    let spare = &mut out.spare_capacity_mut()[..len];
    if k == 0 {
        spare.fill(std::mem::MaybeUninit::new(T::zero()));
    }
    let threads = if m * n * k >= THREADED {
        parallel::threads().min(m)
    } else {
        1
    };
    for (bi, &(oa, ob)) in offsets.iter().enumerate() {
        if m == 0 || n == 0 || k == 0 {
            continue;
        }
        let dst = &mut spare[bi * m * n..(bi + 1) * m * n];
        // SAFETY: the pointers and strides describe in-bounds views of the
        // operands (validated when the tensors were made) and of `dst`.
        let done = bcs == 1
            && own_kernel_first(m * n * k, n)
            && unsafe {
                T::by_sgemm(
                    sgemm::Operands {
                        m,
                        n,
                        k,
                        a: sa.as_ptr().add(oa) as *const f32,
                        a_row: ars,
                        a_col: acs,
                        b: sb.as_ptr().add(ob) as *const f32,
                        b_row: brs,
                        c: dst.as_mut_ptr().cast(),
                        c_row: n,
                    },
                    threads,
                )
            };
        if done {
            continue;
        }
        // The `gemm` crate: output rows split across the threads, each
        // running a single-threaded gemm, which scales better on few cores
        // than its own split.
        let rows = m.div_ceil(threads);
        let (pa, pb) = (SendPtr(sa.as_ptr()), SendPtr(sb.as_ptr()));
        let part = move |t: usize, chunk: &mut [std::mem::MaybeUninit<T>]| {
            let rows_here = chunk.len() / n;
            let a_start = oa as isize + (t * rows) as isize * ars;
            // SAFETY: the pointers and strides describe in-bounds views of the
            // operands (validated when the tensors were made) and of `chunk`.
            unsafe {
                gemm::gemm(
                    rows_here,
                    n,
                    k,
                    chunk.as_mut_ptr().cast(),
                    1,
                    n as isize,
                    false,
                    pa.get().offset(a_start),
                    acs,
                    ars,
                    pb.get().add(ob),
                    bcs,
                    brs,
                    T::zero(),
                    T::ONE,
                    false,
                    false,
                    false,
                    Parallelism::None,
                );
            }
        };
        if threads == 1 {
            // Small products stay on this thread: handing one to the pool
            // costs more than computing it.
            part(0, dst);
            continue;
        }
        // This thread computes rows itself while the pool takes the rest:
        // handing every part to the pool and sleeping until they finish
        // costs two wake-ups per product.
        parallel::for_each_part(dst, rows * n, part);
    }
    // SAFETY: every element was written: by a product, or zeroed above when
    // the products are empty sums (`m` or `n` of 0 leaves nothing to write).
    unsafe { out.set_len(len) };
    out
}

/// A simulated device's products: each matrix made row-major contiguous
/// (as `cuda::exec::matmul` lays its operands out for cuBLAS; one that is
/// already is not copied), then [`fma_gemm`], every element one chain of
/// fused multiply-adds; each operand element passed through `round` first
/// where one is given (TF32).
fn device_batches<T: FmaElement + Stored>(
    a: &Tensor,
    b: &Tensor,
    offsets: &[(usize, usize)],
    mat: Mat,
    round: Option<fn(T) -> T>,
) -> Result<Vec<T>, Error> {
    let Mat { m, n, k } = mat;
    let too_big = || {
        Error::shape(format!(
            "matmul: {m}x{k} @ {k}x{n} in {} batches exceeds cuBLAS's 32-bit sizes",
            offsets.len()
        ))
    };
    let g = Gemm::row_major(m, k, n, 1, m * k, k * n).ok_or_else(too_big)?;
    let (ga, gb) = (a.read(), b.read());
    let (sa, sb) = (ga.as_slice::<T>(), gb.as_slice::<T>());
    let (ars, acs) = (a.strides()[a.ndim() - 2], a.strides()[a.ndim() - 1]);
    let (brs, bcs) = (b.strides()[b.ndim() - 2], b.strides()[b.ndim() - 1]);
    let mut out = vec![T::ZERO; offsets.len() * m * n];
    for (t, &(oa, ob)) in offsets.iter().enumerate() {
        let mut am = row_major(sa, oa, (m, k), (ars, acs));
        let mut bm = row_major(sb, ob, (k, n), (brs, bcs));
        if let Some(round) = round {
            am = std::borrow::Cow::Owned(am.iter().map(|&x| round(x)).collect());
            bm = std::borrow::Cow::Owned(bm.iter().map(|&x| round(x)).collect());
        }
        // SAFETY: `g` describes one [m, k] @ [k, n] product of these
        // row-major matrices (the first operand B, the second A) into
        // `out`'s t-th [m, n] matrix.
        unsafe {
            fma_gemm::run(&g, bm.as_ptr(), am.as_ptr(), out[t * m * n..].as_mut_ptr());
        }
    }
    Ok(out)
}

/// The matrix at `at` with strides `rs`, `cs`, row-major contiguous:
/// where it lies when it already is, else copied.
fn row_major<T: Copy>(
    s: &[T],
    at: usize,
    (rows, cols): (usize, usize),
    (rs, cs): (isize, isize),
) -> std::borrow::Cow<'_, [T]> {
    if rows * cols == 0 {
        return std::borrow::Cow::Owned(Vec::new());
    }
    if (cs == 1 || cols <= 1) && (rs == cols as isize || rows <= 1) {
        return std::borrow::Cow::Borrowed(&s[at..at + rows * cols]);
    }
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            out.push(s[(at as isize + r as isize * rs + c as isize * cs) as usize]);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A raw pointer that may cross to another thread (the data outlives the
/// parallel loop).
#[derive(Clone, Copy)]
struct SendPtr<T>(*const T);
// SAFETY: only read, inside a loop that ends before the buffers are released.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    // A method, so closures capture the whole wrapper rather than the raw field.
    fn get(self) -> *const T {
        self.0
    }
}

fn int_batches(a: &Tensor, b: &Tensor, offsets: &[(usize, usize)], mat: Mat) -> Vec<i64> {
    let Mat { m, n, k } = mat;
    let (ga, gb) = (a.read(), b.read());
    let (sa, sb) = (ga.as_slice::<i64>(), gb.as_slice::<i64>());
    let (ars, acs) = (a.strides()[a.ndim() - 2], a.strides()[a.ndim() - 1]);
    let (brs, bcs) = (b.strides()[b.ndim() - 2], b.strides()[b.ndim() - 1]);
    let mut out = Vec::with_capacity(offsets.len() * m * n);
    for &(oa, ob) in offsets {
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0i64;
                for p in 0..k {
                    let x = sa[(oa as isize + i as isize * ars + p as isize * acs) as usize];
                    let y = sb[(ob as isize + p as isize * brs + j as isize * bcs) as usize];
                    acc = acc.wrapping_add(x.wrapping_mul(y));
                }
                out.push(acc);
            }
        }
    }
    out
}
