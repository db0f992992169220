//! How a device's matrix product rounds, for the devices that compute on
//! the host (`sim`, and `emu`'s stand-in for cuBLAS): every element of the
//! result is one chain of fused multiply-adds over `k` in order, starting
//! from zero, as a cuBLAS SIMT kernel without split-K accumulates it (f32
//! products in f32, PyTorch's default with TF32 off; f64 in f64; f16 and
//! bf16 widened to f32 by the caller). Both backends run this one function,
//! so they give the same bits; a real GPU's cuBLAS tiles `k` its own way
//! and may differ from it in the last bits.
//!
//! The inner loop is the `fma-gemm` crate (compiled optimised in test
//! builds too); here a product's batches and columns are split over the
//! host's threads. Which thread computes an element never changes how it
//! is computed, so the bits do not depend on the threads.

use super::Gemm;
use crate::runtime::parallel;
pub use fma_gemm::Element as FmaElement;
use fma_gemm::{Shape, NR};

/// `x` rounded to TF32 (8 exponent bits, 10 of mantissa, as f16 keeps)
/// to nearest, ties away from zero, as PTX's `cvt.rna.tf32.f32` and
/// CUTLASS round f32 operands for tensor cores. Infinities and NaN pass.
pub fn round_to_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits((x.to_bits() + 0x1000) & !0x1fff)
}

/// [`run`] of an f32 product whose operands are rounded to TF32 first
/// (`Gemm::tf32`), each copied so rounded.
///
/// # Safety
/// As [`run`].
pub unsafe fn run_tf32(g: &Gemm, a: *const f32, b: *const f32, c: *mut f32) {
    let (na, nb, _) = g.extents();
    let rounded = |p: *const f32, n: usize| -> Vec<f32> {
        // SAFETY: `p` holds `n` elements (`Gemm::extents`), the caller's contract.
        unsafe { std::slice::from_raw_parts(p, n) }
            .iter()
            .map(|&x| round_to_tf32(x))
            .collect()
    };
    let (a, b) = (rounded(a, na), rounded(b, nb));
    run(g, a.as_ptr(), b.as_ptr(), c)
}

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

/// The columns `cols` of one batch's C.
unsafe fn columns<T: FmaElement>(g: &Gemm, p: Ptrs<T>, cols: std::ops::Range<usize>) {
    let shape = Shape {
        m: g.m as usize,
        k: g.k as usize,
        lda: g.lda as usize,
        ldb: g.ldb as usize,
        ldc: g.ldc as usize,
    };
    fma_gemm::columns(&shape, p.a, p.b, p.c, cols)
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

    #[test]
    fn tf32_keeps_ten_bits_of_mantissa_rounding_to_nearest_ties_away() {
        // 1 + 2^-10 is a TF32 number; 1 + 2^-11 is halfway to it (away
        // from zero), 1 + 2^-11 - 2^-23 below halfway.
        let (ulp, half) = (2f32.powi(-10), 2f32.powi(-11));
        assert_eq!(round_to_tf32(1.0 + ulp), 1.0 + ulp);
        assert_eq!(round_to_tf32(1.0 + half), 1.0 + ulp);
        assert_eq!(round_to_tf32(-(1.0 + half)), -(1.0 + ulp));
        assert_eq!(round_to_tf32(1.0 + half - 2f32.powi(-23)), 1.0);
        assert_eq!(round_to_tf32(f32::MAX), f32::INFINITY);
        assert_eq!(round_to_tf32(f32::NEG_INFINITY), f32::NEG_INFINITY);
        assert!(round_to_tf32(f32::NAN).is_nan());
        for x in values(1000, 7) {
            let r = round_to_tf32(x as f32);
            assert_eq!(r.to_bits() & 0x1fff, 0, "{x}");
            assert!(
                (r - x as f32).abs() <= (x as f32).abs() * 2f32.powi(-11),
                "{x}"
            );
        }
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
            tf32: false,
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
