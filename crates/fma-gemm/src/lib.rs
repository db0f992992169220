//! The inner loop of a device's matrix product computed on the host: every
//! element of `C = A·B` (column-major, no transposition) is one chain of
//! fused multiply-adds over `k` in order, starting from zero, as a cuBLAS
//! SIMT kernel without split-K accumulates it.
//!
//! A crate of its own so that test builds compile it optimised
//! (`[profile.dev.package.fma-gemm]` in cudash's Cargo.toml): unoptimised,
//! this loop made the simulator's products in the test suite a hundred
//! times slower. cudash's `runtime::driver::fma_gemm` splits a product's
//! batches and columns over threads and calls [`columns`].
//!
//! Blocking changes which elements are computed when, never an element's
//! order: a partial sum parked in `C` between blocks of `k` is the
//! accumulator itself, so the bits do not depend on the block sizes.

use std::ops::Range;

/// An element a device gemm accumulates in.
pub trait Element: Copy + Send + Sync + 'static {
    const ZERO: Self;
    /// Rows of the register tile (two 256-bit registers).
    const MR: usize;
    /// `self * b + c`, rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
    /// [`columns`] for this type, compiled here (a generic function would be
    /// compiled, unoptimised, in the crate that calls it).
    ///
    /// # Safety
    /// As [`columns`].
    unsafe fn columns(s: &Shape, a: *const Self, b: *const Self, c: *mut Self, cols: Range<usize>);
}

impl Element for f32 {
    const ZERO: f32 = 0.0;
    const MR: usize = 16;
    #[inline(always)]
    fn fma(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
    unsafe fn columns(s: &Shape, a: *const f32, b: *const f32, c: *mut f32, cols: Range<usize>) {
        dispatch(s, a, b, c, cols)
    }
}

impl Element for f64 {
    const ZERO: f64 = 0.0;
    const MR: usize = 8;
    #[inline(always)]
    fn fma(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
    unsafe fn columns(s: &Shape, a: *const f64, b: *const f64, c: *mut f64, cols: Range<usize>) {
        dispatch(s, a, b, c, cols)
    }
}

/// Columns of the register tile.
pub const NR: usize = 4;
/// Steps of `k` between visits to `C` (a tile's `A` rows stay in L1).
const KC: usize = 256;
/// Rows of `A` swept per block of `k` (about 64 KiB of f32).
const MC: usize = 64;

/// One product's shape: `C` (`m × n`, leading dimension `ldc`) from `A`
/// (`m × k`, `lda`) and `B` (`k × n`, `ldb`), all column-major.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub m: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

/// The columns `cols` of `C`, with FMA instructions where the CPU has them
/// (`mul_add` is a correctly rounded library call elsewhere: the same
/// bits, slower).
///
/// # Safety
/// `a`, `b` and `c` hold the operands and result `s` describes, for every
/// column in `cols`; `c` overlaps neither operand, and no other thread
/// writes those columns of `c` meanwhile.
pub unsafe fn columns<T: Element>(
    s: &Shape,
    a: *const T,
    b: *const T,
    c: *mut T,
    cols: Range<usize>,
) {
    T::columns(s, a, b, c, cols)
}

#[inline(always)]
unsafe fn dispatch<T: Element>(s: &Shape, a: *const T, b: *const T, c: *mut T, cols: Range<usize>) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("avx2") {
        return columns_fma(s, a, b, c, cols);
    }
    blocked(s, a, b, c, cols)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn columns_fma<T: Element>(
    s: &Shape,
    a: *const T,
    b: *const T,
    c: *mut T,
    cols: Range<usize>,
) {
    blocked(s, a, b, c, cols)
}

#[inline(always)]
unsafe fn blocked<T: Element>(s: &Shape, a: *const T, b: *const T, c: *mut T, cols: Range<usize>) {
    let (m, k) = (s.m, s.k);
    if k == 0 {
        for j in cols {
            for i in 0..m {
                *c.add(i + j * s.ldc) = T::ZERO;
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
                    // The full tile as constants, so the loops unroll.
                    if mr == T::MR && nr == NR {
                        tile::<T>(s, a, b, c, (i, j), ks.clone(), T::MR, NR);
                    } else {
                        tile::<T>(s, a, b, c, (i, j), ks.clone(), mr, nr);
                    }
                    i += mr;
                }
            }
        }
    }
}

/// `mr × nr` elements of C from row `i`, column `j`, carried through the
/// steps `ks` of `k` (from zero at `k`'s first step, else from what C holds).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn tile<T: Element>(
    s: &Shape,
    a: *const T,
    b: *const T,
    c: *mut T,
    (i, j): (usize, usize),
    ks: Range<usize>,
    mr: usize,
    nr: usize,
) {
    // At most 16 × 4 accumulators (f32); f64 uses the first 8 rows.
    let mut acc = [[T::ZERO; 16]; NR];
    if ks.start > 0 {
        for (jj, col) in acc.iter_mut().enumerate().take(nr) {
            for (ii, v) in col.iter_mut().enumerate().take(mr) {
                *v = *c.add(i + ii + (j + jj) * s.ldc);
            }
        }
    }
    for q in ks {
        let a = a.add(i + q * s.lda);
        for (jj, col) in acc.iter_mut().enumerate().take(nr) {
            let bv = *b.add(q + (j + jj) * s.ldb);
            for (ii, v) in col.iter_mut().enumerate().take(mr) {
                *v = (*a.add(ii)).fma(bv, *v);
            }
        }
    }
    for (jj, col) in acc.iter().enumerate().take(nr) {
        for (ii, v) in col.iter().enumerate().take(mr) {
            *c.add(i + ii + (j + jj) * s.ldc) = *v;
        }
    }
}
