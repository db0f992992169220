//! How a device's matrix product rounds, for the devices that compute on
//! the host (`sim`, and `emu`'s stand-in for cuBLAS): every element of the
//! result is one chain of fused multiply-adds over `k` in order, starting
//! from zero, as a cuBLAS SIMT kernel without split-K accumulates it (f32
//! products in f32, PyTorch's default with TF32 off; f64 in f64; f16 and
//! bf16 widened to f32 by the caller). Both backends run this one function,
//! so they give the same bits; a real GPU's cuBLAS tiles `k` its own way
//! and may differ from it in the last bits.
//!
//! Blocking changes which elements are computed when, never an element's
//! order: a partial sum parked in `C` between blocks of `k` is the f32 (or
//! f64) accumulator itself, so the bits do not depend on the block sizes or
//! on the threads.

use super::Gemm;
use crate::runtime::parallel;

/// An element a device gemm accumulates in.
pub trait FmaElement: Copy + Send + Sync + 'static {
    const ZERO: Self;
    /// Rows of the register tile (two 256-bit registers).
    const MR: usize;
    /// `self * b + c`, rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
}

impl FmaElement for f32 {
    const ZERO: f32 = 0.0;
    const MR: usize = 16;
    #[inline(always)]
    fn fma(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
}

impl FmaElement for f64 {
    const ZERO: f64 = 0.0;
    const MR: usize = 8;
    #[inline(always)]
    fn fma(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// Columns of the register tile.
const NR: usize = 4;
/// Steps of `k` between visits to `C` (a tile's `A` rows stay in L1).
const KC: usize = 256;
/// Rows of `A` a thread sweeps per block of `k` (about 64 KiB of f32).
const MC: usize = 64;
/// Multiply-adds below which one thread does the whole product.
const THREADED: usize = 1 << 18;

/// Runs `g` (column-major, no transposition: `C = A·B` per batch) as a
/// device does, on the host's threads.
///
/// # Safety
/// The pointers hold `g`'s operands and result as `T` (`Gemm::extents`),
/// and the result overlaps neither operand.
pub unsafe fn run<T: FmaElement>(g: &Gemm, a: *const T, b: *const T, c: *mut T) {
    let (m, n, k) = (g.m as usize, g.n as usize, g.k as usize);
    if m == 0 || n == 0 || g.batch <= 0 {
        return;
    }
    let p = Ptrs { a, b, c };
    let threads = if m * n * k >= THREADED {
        parallel::threads().min(n.div_ceil(NR))
    } else {
        1
    };
    for t in 0..g.batch as usize {
        let batch = Ptrs {
            a: p.a.add(t * g.stride_a as usize),
            b: p.b.add(t * g.stride_b as usize),
            c: p.c.add(t * g.stride_c as usize),
        };
        if threads == 1 {
            columns(g, batch, 0..n);
            continue;
        }
        // Whole register tiles of columns per thread: which thread computes
        // an element never changes how it is computed.
        let per = n.div_ceil(NR).div_ceil(threads) * NR;
        parallel::for_each(n.div_ceil(per), |part| {
            let cols = part * per..n.min((part + 1) * per);
            // SAFETY: the parts write disjoint columns of C.
            unsafe { columns(g, batch, cols) }
        });
    }
}

/// One batch's operands.
#[derive(Clone, Copy)]
struct Ptrs<T> {
    a: *const T,
    b: *const T,
    c: *mut T,
}
// SAFETY: the threads read the operands and write disjoint columns of C,
// all inside `run`, which the pointers outlive.
unsafe impl<T> Send for Ptrs<T> {}
unsafe impl<T> Sync for Ptrs<T> {}

/// The columns `cols` of one batch's C, with FMA instructions where the CPU
/// has them (`mul_add` is a correctly rounded library call elsewhere: the
/// same bits, slower).
unsafe fn columns<T: FmaElement>(g: &Gemm, p: Ptrs<T>, cols: std::ops::Range<usize>) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("avx2") {
        return columns_fma(g, p, cols);
    }
    blocked(g, p, cols)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn columns_fma<T: FmaElement>(g: &Gemm, p: Ptrs<T>, cols: std::ops::Range<usize>) {
    blocked(g, p, cols)
}

#[inline(always)]
unsafe fn blocked<T: FmaElement>(g: &Gemm, p: Ptrs<T>, cols: std::ops::Range<usize>) {
    let (m, k) = (g.m as usize, g.k as usize);
    let ld = Lds {
        a: g.lda as usize,
        b: g.ldb as usize,
        c: g.ldc as usize,
    };
    if k == 0 {
        for j in cols {
            for i in 0..m {
                *p.c.add(i + j * ld.c) = T::ZERO;
            }
        }
        return;
    }
    for k0 in (0..k).step_by(KC) {
        let ks = k0..k.min(k0 + KC);
        for i0 in (0..m).step_by(MC) {
            let i1 = m.min(i0 + MC);
            for j in cols.clone().step_by(NR) {
                let nr = NR.min(cols.end - j);
                let mut i = i0;
                while i < i1 {
                    let mr = T::MR.min(i1 - i);
                    if mr == T::MR && nr == NR {
                        tile::<T>(p, ld, (i, j), ks.clone(), T::MR, NR);
                    } else {
                        tile::<T>(p, ld, (i, j), ks.clone(), mr, nr);
                    }
                    i += mr;
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Lds {
    a: usize,
    b: usize,
    c: usize,
}

/// `mr × nr` elements of C from row `i`, column `j`, carried through the
/// steps `ks` of `k` (from zero at `k`'s first step, else from what C holds).
#[inline(always)]
unsafe fn tile<T: FmaElement>(
    p: Ptrs<T>,
    ld: Lds,
    (i, j): (usize, usize),
    ks: std::ops::Range<usize>,
    mr: usize,
    nr: usize,
) {
    // At most 16 × 4 accumulators (f32); f64 uses the first 8 rows.
    let mut acc = [[T::ZERO; 16]; NR];
    if ks.start > 0 {
        for (jj, col) in acc.iter_mut().enumerate().take(nr) {
            for (ii, v) in col.iter_mut().enumerate().take(mr) {
                *v = *p.c.add(i + ii + (j + jj) * ld.c);
            }
        }
    }
    for q in ks {
        let a = p.a.add(i + q * ld.a);
        for (jj, col) in acc.iter_mut().enumerate().take(nr) {
            let bv = *p.b.add(q + (j + jj) * ld.b);
            for (ii, v) in col.iter_mut().enumerate().take(mr) {
                *v = (*a.add(ii)).fma(bv, *v);
            }
        }
    }
    for (jj, col) in acc.iter().enumerate().take(nr) {
        for (ii, v) in col.iter().enumerate().take(mr) {
            *p.c.add(i + ii + (j + jj) * ld.c) = *v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values of every magnitude class that rounding sees.
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 3.0
            })
            .collect()
    }

    fn plain<T: FmaElement>(g: &Gemm, a: &[T], b: &[T]) -> Vec<T> {
        let (_, _, nc) = g.extents();
        let mut c = vec![T::ZERO; nc];
        for t in 0..g.batch as usize {
            for j in 0..g.n as usize {
                for i in 0..g.m as usize {
                    let mut acc = T::ZERO;
                    for q in 0..g.k as usize {
                        acc = a[t * g.stride_a as usize + i + q * g.lda as usize]
                            .fma(b[t * g.stride_b as usize + q + j * g.ldb as usize], acc);
                    }
                    c[t * g.stride_c as usize + i + j * g.ldc as usize] = acc;
                }
            }
        }
        c
    }

    fn gemm(m: i32, n: i32, k: i32, batch: i32) -> Gemm {
        Gemm {
            m,
            n,
            k,
            lda: m.max(1),
            stride_a: (m * k) as i64,
            ldb: k.max(1),
            stride_b: (k * n) as i64,
            ldc: m.max(1),
            stride_c: (m * n) as i64,
            batch,
        }
    }

    #[test]
    fn every_element_is_one_fma_chain_whatever_the_blocking_and_threads() {
        // Edges of every tile and block size, k across KC, and a product big
        // enough for threads.
        for (m, n, k, batch) in [
            (1, 1, 1, 1),
            (17, 5, 3, 2),
            (33, 9, 300, 1),
            (70, 70, 513, 1),
            (64, 130, 40, 3),
        ] {
            let g = gemm(m, n, k, batch);
            let (na, nb, _) = g.extents();
            let a32: Vec<f32> = values(na, 1).iter().map(|&v| v as f32).collect();
            let b32: Vec<f32> = values(nb, 2).iter().map(|&v| v as f32).collect();
            let mut c32 = vec![f32::NAN; g.extents().2];
            unsafe { run(&g, a32.as_ptr(), b32.as_ptr(), c32.as_mut_ptr()) };
            let want: Vec<u32> = plain(&g, &a32, &b32).iter().map(|v| v.to_bits()).collect();
            let got: Vec<u32> = c32.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "f32 {m}x{n}x{k} in {batch}");

            let (a64, b64) = (values(na, 3), values(nb, 4));
            let mut c64 = vec![f64::NAN; g.extents().2];
            unsafe { run(&g, a64.as_ptr(), b64.as_ptr(), c64.as_mut_ptr()) };
            let want: Vec<u64> = plain(&g, &a64, &b64).iter().map(|v| v.to_bits()).collect();
            let got: Vec<u64> = c64.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "f64 {m}x{n}x{k} in {batch}");
        }
    }

    #[test]
    fn an_empty_sum_is_zero() {
        let g = gemm(3, 2, 0, 1);
        let mut c = [f32::NAN; 6];
        unsafe { run(&g, [].as_ptr(), [].as_ptr(), c.as_mut_ptr()) };
        assert_eq!(c, [0.0; 6]);
    }
}
