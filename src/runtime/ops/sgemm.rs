//! An f32 matrix product for CPUs with AVX2 and FMA, for the small and
//! mid-size products where the `gemm` crate's set-up shows. Register tiles of
//! 6 rows × 16 columns read `a` in place and `b` from 16-column panels packed
//! once per block of 256 steps of `k` (a panel, 16 KiB, stays in L1 while a
//! block of `a`'s rows passes over it). [`sgemm_parallel`] deals a product's
//! columns to threads a few panels at a time, when the caller finds it large
//! enough to gain.
//!
//! Each output element is `Σ_p a[i,p]·b[p,j]` accumulated in f32 with fused
//! multiply-adds, in order of `p`.

/// Rows of a register tile.
const MR: usize = 6;
/// Columns of a register tile: two 8-lane registers.
const NR: usize = 16;
/// Depth of one pass over a panel of `b` (16 KiB of it).
const KC: usize = 256;
/// Rows of `a` taken over every panel of `b` before the next rows: 120 rows
/// of a 256-deep block are 120 KiB, which stay in L2.
const MC: usize = 120;

/// Operands for [`sgemm`]: `a` is `m × k` with any strides, `b` is `k × n`
/// with contiguous rows, `c` is `m × n` with contiguous rows.
#[derive(Clone, Copy)]
pub struct Operands {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: *const f32,
    pub a_row: isize,
    pub a_col: isize,
    pub b: *const f32,
    pub b_row: isize,
    pub c: *mut f32,
    pub c_row: usize,
}

/// Whether this CPU runs [`sgemm`] (the check is cached by std).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `c = a · b`.
///
/// # Safety
/// [`available`] must be true, and the pointers with their strides must
/// describe in-bounds `m × k`, `k × n` and `m × n` matrices, `c` not
/// overlapping the others.
#[cfg(target_arch = "x86_64")]
pub unsafe fn sgemm(o: Operands) {
    sgemm_avx2(o)
}

#[cfg(not(target_arch = "x86_64"))]
pub unsafe fn sgemm(_: Operands) {
    unreachable!("sgemm::available() is false off x86_64")
}

/// [`sgemm`] on up to `threads` threads. The columns are dealt out a few
/// panels at a time from a shared counter, to this thread and to the pool's,
/// so no thread packs what another packs and a pool thread that wakes late
/// takes fewer, or none.
///
/// This thread never sleeps on the pool: when the counter runs out it spins
/// until the pieces other threads took are written (a piece is a few
/// microseconds of work), where sleeping on the pool's latch added a
/// wake-up: a 128² product took 32.7 µs that way, 27.6 µs this way. A pool
/// thread that starts after the last piece was taken finds the counter
/// spent and touches none of the operands, which by then may be gone.
///
/// # Safety
/// As [`sgemm`].
pub unsafe fn sgemm_parallel(o: Operands, threads: usize) {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    let panels = o.n.div_ceil(NR);
    let threads = threads.clamp(1, panels.max(1));
    if threads == 1 {
        return sgemm(o);
    }
    // About four pieces per thread: enough to even out a late start.
    let width = panels.div_ceil(threads * 4) * NR;
    let deal = Arc::new(Deal::new(Part(o), width));
    for _ in 1..threads {
        let deal = Arc::clone(&deal);
        rayon::spawn(move || deal.work());
    }
    deal.work();
    let mut spins = 0u32;
    while deal.unfinished.load(Ordering::Acquire) != 0 {
        // A piece another thread holds: spin briefly, then let it run should
        // it share this core.
        if spins < 1 << 14 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// The pieces of one product: which columns go next, and how many pieces
/// are not yet written.
struct Deal {
    part: Part,
    width: usize,
    next: std::sync::atomic::AtomicUsize,
    unfinished: std::sync::atomic::AtomicUsize,
}

impl Deal {
    fn new(part: Part, width: usize) -> Deal {
        Deal {
            part,
            width,
            next: 0.into(),
            unfinished: part.0.n.div_ceil(width).into(),
        }
    }

    /// Takes pieces until none are left; each is counted off once written.
    fn work(&self) {
        use std::sync::atomic::Ordering;
        let n = self.part.0.n;
        loop {
            let j0 = self.next.fetch_add(self.width, Ordering::Relaxed);
            if j0 >= n {
                break;
            }
            // SAFETY: a piece is taken before the last one is counted off,
            // so the caller of `sgemm_parallel` still holds the operands; each
            // piece's columns are taken once.
            unsafe { sgemm(self.part.columns(j0, self.width)) }
            self.unfinished.fetch_sub(1, Ordering::Release);
        }
    }
}

/// Operands that may cross to a pool thread: the caller keeps the matrices
/// alive until every piece is counted off (see [`sgemm_parallel`]), and
/// pieces write disjoint columns of `c`.
#[derive(Clone, Copy)]
struct Part(Operands);
// SAFETY: see the type's comment.
unsafe impl Send for Part {}
// SAFETY: as for Send: the pieces only read `a` and `b`.
unsafe impl Sync for Part {}

impl Part {
    /// Columns `j0..j0 + width` (clipped to `n`).
    unsafe fn columns(self, j0: usize, width: usize) -> Operands {
        let o = self.0;
        Operands {
            n: width.min(o.n - j0),
            b: o.b.add(j0),
            c: o.c.add(j0),
            ..o
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn sgemm_avx2(o: Operands) {
    if o.k == 0 {
        for i in 0..o.m {
            std::ptr::write_bytes(o.c.add(i * o.c_row), 0, o.n);
        }
        return;
    }
    PANELS.with(|panels| {
        let mut panels = panels.borrow_mut();
        let mut p0 = 0;
        while p0 < o.k {
            let kc = KC.min(o.k - p0);
            pack_b(&o, p0, kc, &mut panels);
            let mut i0 = 0;
            while i0 < o.m {
                let mc = MC.min(o.m - i0);
                for (jp, panel) in panels.chunks_exact(kc * NR).enumerate() {
                    let j0 = jp * NR;
                    let nr = NR.min(o.n - j0);
                    let mut ir = i0;
                    while ir < i0 + mc {
                        let tile = Tile {
                            a: o.a.offset(ir as isize * o.a_row + p0 as isize * o.a_col),
                            a_row: o.a_row,
                            a_col: o.a_col,
                            b: panel.as_ptr(),
                            c: o.c.add(ir * o.c_row + j0),
                            c_row: o.c_row,
                            k: kc,
                            accumulate: p0 > 0,
                        };
                        match (MR.min(i0 + mc - ir), nr == NR) {
                            (6, true) => tile.run::<6, true>(nr),
                            (5, true) => tile.run::<5, true>(nr),
                            (4, true) => tile.run::<4, true>(nr),
                            (3, true) => tile.run::<3, true>(nr),
                            (2, true) => tile.run::<2, true>(nr),
                            (1, true) => tile.run::<1, true>(nr),
                            (6, false) => tile.run::<6, false>(nr),
                            (5, false) => tile.run::<5, false>(nr),
                            (4, false) => tile.run::<4, false>(nr),
                            (3, false) => tile.run::<3, false>(nr),
                            (2, false) => tile.run::<2, false>(nr),
                            _ => tile.run::<1, false>(nr),
                        }
                        ir += MR;
                    }
                }
                i0 += MC;
            }
            p0 += KC;
        }
    })
}

thread_local! {
    /// The packed panels of `b`, kept between calls so small products do not
    /// allocate.
    static PANELS: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Copies rows `p0..p0 + kc` of `b` into `panels`: one `kc × 16` panel per 16
/// columns, each row of a panel contiguous and the last panel padded with
/// zeros. Read in place, `b`'s rows at a stride of a power of two would share
/// a few L1 sets and evict each other.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_b(o: &Operands, p0: usize, kc: usize, panels: &mut Vec<f32>) {
    let count = o.n.div_ceil(NR);
    panels.clear();
    panels.resize(count * kc * NR, 0.0);
    for (jp, panel) in panels.chunks_exact_mut(kc * NR).enumerate() {
        let j0 = jp * NR;
        let nr = NR.min(o.n - j0);
        for (p, row) in panel.chunks_exact_mut(NR).enumerate() {
            let src = o.b.offset((p0 + p) as isize * o.b_row + j0 as isize);
            if nr == NR {
                // A fixed-size copy: two register moves, not a memcpy call.
                let src = &*(src as *const [f32; NR]);
                row.copy_from_slice(src);
            } else {
                std::ptr::copy_nonoverlapping(src, row.as_mut_ptr(), nr);
            }
        }
    }
}

/// One register tile of `c`: up to `R` rows and 16 columns over `k` steps of
/// a packed panel.
#[cfg(target_arch = "x86_64")]
struct Tile {
    a: *const f32,
    a_row: isize,
    a_col: isize,
    b: *const f32,
    c: *mut f32,
    c_row: usize,
    k: usize,
    /// Add to `c` (a later block of `k`) rather than overwrite it.
    accumulate: bool,
}

#[cfg(target_arch = "x86_64")]
impl Tile {
    /// `FULL`: all 16 columns of `c` are in range; otherwise the first `nr`
    /// are, and its loads and stores are masked.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn run<const R: usize, const FULL: bool>(&self, nr: usize) {
        use std::arch::x86_64::*;
        let lane = |first: usize| {
            let idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let limit = _mm256_set1_epi32(nr as i32 - first as i32);
            _mm256_cmpgt_epi32(limit, idx)
        };
        let (m0, m1) = (lane(0), lane(8));
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        if self.accumulate {
            for (r, row) in acc.iter_mut().enumerate() {
                let p = self.c.add(r * self.c_row);
                *row = if FULL {
                    [_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8))]
                } else {
                    [_mm256_maskload_ps(p, m0), _mm256_maskload_ps(p.add(8), m1)]
                };
            }
        }
        let mut a = self.a;
        let mut b = self.b;
        for _ in 0..self.k {
            let (b0, b1) = (_mm256_loadu_ps(b), _mm256_loadu_ps(b.add(8)));
            for (r, row) in acc.iter_mut().enumerate() {
                let x = _mm256_broadcast_ss(&*a.offset(r as isize * self.a_row));
                row[0] = _mm256_fmadd_ps(x, b0, row[0]);
                row[1] = _mm256_fmadd_ps(x, b1, row[1]);
            }
            a = a.offset(self.a_col);
            b = b.add(NR);
        }
        for (r, row) in acc.iter().enumerate() {
            let p = self.c.add(r * self.c_row);
            if FULL {
                _mm256_storeu_ps(p, row[0]);
                _mm256_storeu_ps(p.add(8), row[1]);
            } else {
                _mm256_maskstore_ps(p, m0, row[0]);
                _mm256_maskstore_ps(p.add(8), m1, row[1]);
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same sums in the same order, one fused multiply-add at a time.
    fn reference(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], at: bool) -> Vec<f32> {
        let mut c = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0f32;
                for p in 0..k {
                    let x = if at { a[p * m + i] } else { a[i * k + p] };
                    acc = x.mul_add(b[p * n + j], acc);
                }
                c[i * n + j] = acc;
            }
        }
        c
    }

    /// `a` (m × k) and `b` (k × n) filled from `seed`, in [-1, 1).
    fn operands(m: usize, n: usize, k: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
        let mut s = seed | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let a = (0..m * k).map(|_| next()).collect();
        let b = (0..k * n).map(|_| next()).collect();
        (a, b)
    }

    /// `a · b` on `threads` threads.
    fn product(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], threads: usize) -> Vec<f32> {
        let mut c = vec![f32::NAN; m * n];
        let o = Operands {
            m,
            n,
            k,
            a: a.as_ptr(),
            a_row: k as isize,
            a_col: 1,
            b: b.as_ptr(),
            b_row: n as isize,
            c: c.as_mut_ptr(),
            c_row: n,
        };
        unsafe { sgemm_parallel(o, threads) };
        c
    }

    #[test]
    fn threads_write_every_column_as_one_thread_does() {
        if !available() {
            return;
        }
        for (m, n, k) in [(128, 128, 128), (7, 300, 33), (96, 17, 260), (1, 1000, 5)] {
            let (a, b) = operands(m, n, k, (m * n * k) as u64);
            let one = product(m, n, k, &a, &b, 1);
            for threads in [2, 3, 8] {
                let many = product(m, n, k, &a, &b, threads);
                assert_eq!(
                    one.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    many.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    "{m}x{k} @ {k}x{n} on {threads} threads"
                );
            }
        }
    }

    #[test]
    fn products_from_pool_threads_at_once_each_finish_with_their_own_columns() {
        // Called from the pool's own threads, a product's helpers may never
        // start (every thread is busy with another product): the caller then
        // takes every piece, and the late helpers find nothing to do.
        use rayon::prelude::*;
        if !available() {
            return;
        }
        let results: Vec<bool> = (0..32u64)
            .into_par_iter()
            .map(|seed| {
                let (m, n, k) = (40, 96 + seed as usize, 50);
                let (a, b) = operands(m, n, k, seed);
                let one = product(m, n, k, &a, &b, 1);
                let many = product(m, n, k, &a, &b, 4);
                one.iter()
                    .zip(&many)
                    .all(|(x, y)| x.to_bits() == y.to_bits())
            })
            .collect();
        assert!(results.iter().all(|&ok| ok));
    }

    proptest! {
        #[test]
        fn agrees_with_fused_loop(
            m in 0usize..20, n in 0usize..40, k in 0usize..600,
            at in any::<bool>(), seed in any::<u64>(),
        ) {
            prop_assume!(available());
            let mut s = seed | 1;
            let mut next = || {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            };
            let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
            let mut c = vec![f32::NAN; m * n];
            let (a_row, a_col) = if at { (1, m as isize) } else { (k as isize, 1) };
            unsafe {
                sgemm(Operands {
                    m, n, k,
                    a: a.as_ptr(), a_row, a_col,
                    b: b.as_ptr(), b_row: n as isize,
                    c: c.as_mut_ptr(), c_row: n,
                });
            }
            let want = reference(m, n, k, &a, &b, at);
            prop_assert_eq!(
                c.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
    }
}
