//! An f32 matrix product for CPUs with AVX2 and FMA. Register tiles of 6 rows
//! × 16 columns read `b` from 16-column panels packed once per block of 512
//! steps of `k` (a panel, 32 KiB, stays in L1 while a block of `a`'s rows
//! passes over it). Products with many columns also pack each block of `a`'s
//! rows, six rows side by side, so a tile reads one stream rather than six
//! rows whose addresses share L1 sets. [`sgemm_parallel`] deals the work to
//! threads in pieces, when the caller finds a product large enough to gain.
//!
//! Each output element is `Σ_p a[i,p]·b[p,j]` accumulated in f32 with fused
//! multiply-adds, in order of `p`.

use crate::runtime::parallel::deal;

/// Rows of a register tile.
const MR: usize = 6;
/// Columns of a register tile: two 8-lane registers.
const NR: usize = 16;
/// Depth of one pass over a panel of `b` (32 KiB of it). Deeper passes
/// spread each tile's start and end over more steps: a 1024² product on one
/// thread took 23.2 ms at 512, 23.5 at 384 and 23.8 at 256 (best of 15,
/// in turn with the `gemm` crate's 24.2).
const KC: usize = 512;
/// Rows of `a` taken over every panel of `b` before the next rows: 48 rows
/// of a 512-deep block are 96 KiB, which stay in L2 beside the rows of `c`
/// that each panel's tiles load and store. With 120 rows, products whose
/// rows of `c` are a power of two apart fell behind OpenBLAS: those rows
/// share few L2 sets (at 8 KiB apart, 120 rows fall in 8 sets), and padding
/// `c`'s rows closed the gap as fewer rows did. On one thread, in turn with
/// OpenBLAS (best of 6): 2048² took 185 ms at 48 rows, 202 at 120, 187 in
/// OpenBLAS; 1024² took 23.0, 23.9 and 23.0.
const MC: usize = 48;
/// Products with at least this many columns pack `a`: each packed value is
/// then read by `n / 16` tiles, enough to repay the copy.
pub const PACK_A_MIN_N: usize = 512;

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

/// Whether this CPU runs [`sgemm`] (`Isa::of_cpu`: AVX2 and FMA).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::pytorch_cpu::Isa::of_cpu() >= super::pytorch_cpu::Isa::Avx2
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `c = a · b` on this thread.
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

/// [`sgemm`] on up to `threads` threads, with the same result bit for bit.
/// The work is dealt in pieces from a shared counter, to this thread and to
/// the pool's, so a pool thread that wakes late takes fewer pieces, or none:
/// - products with many rows and columns first pack all of `b`, each piece a
///   block of steps and a share of the columns, then deal blocks of rows,
///   smaller towards the end, so each value of `a` and `b` is packed once;
/// - smaller ones deal columns a few panels at a time, each piece packing its
///   own panels, so no thread waits for another to pack.
///
/// This thread never sleeps on the pool: when the counter runs out it spins
/// until the pieces other threads took are written (a piece of a small
/// product is a few microseconds of work), where sleeping on the pool's latch
/// added a wake-up: a 128² product took 32.7 µs that way, 27.6 µs this way.
/// A pool thread that starts after the last piece was taken finds the
/// counter spent and touches none of the operands, which by then may be gone.
/// Pool threads that took part stay awake a while after (see [`deal`]).
///
/// # Safety
/// As [`sgemm`].
pub unsafe fn sgemm_parallel(o: Operands, threads: usize) {
    let panels = o.n.div_ceil(NR);
    let threads = threads.clamp(1, panels.max(1));
    if threads == 1 || o.k == 0 {
        return sgemm(o);
    }
    // Packing `b` once for all rows pays where the rows are many: with few,
    // re-reading the packed `b` for each piece of rows costs more than
    // re-reading `a` for each piece of columns (256 × 4096 @ 4096² took 84 ms
    // that way, 67 in the `gemm` crate, 51 to 56 dealing columns).
    // The packed `b` is as large as `b`: past PACKED_MAX the columns are
    // dealt instead, which packs a block at a time.
    #[cfg(target_arch = "x86_64")]
    if o.n >= PACK_A_MIN_N
        && 2 * o.m >= o.n
        && o.m >= 2 * MR * threads
        && o.k * o.n.next_multiple_of(NR) <= PACKED_MAX
    {
        return packed_first(o, threads);
    }
    // About four pieces per thread: enough to even out a late start.
    let width = panels.div_ceil(threads * 4) * NR;
    let part = Part(o);
    deal(threads, o.n.div_ceil(width), 0, move |piece| {
        sgemm(part.columns(piece * width, width))
    });
}

/// [`sgemm_parallel`] for products with many rows and columns: the first
/// pieces pack `b` into one buffer shared by the threads, a block of steps
/// and a share of the columns each; the rest compute blocks of rows against
/// it.
#[cfg(target_arch = "x86_64")]
unsafe fn packed_first(o: Operands, threads: usize) {
    let panels = o.n.div_ceil(NR);
    let blocks = o.k.div_ceil(KC);
    // This thread's panel buffer, lent to every thread for this product:
    // allocated afresh, its pages (4 MiB for 1024²) took 3% of the time in a
    // test program. Every value is written by `pack_b`, padding included.
    let mut packed = BUFFERS.with(|buffers| std::mem::take(&mut buffers.borrow_mut().0));
    packed.clear();
    packed.reserve(o.k * panels * NR);
    let packed_at = Shared(packed.as_mut_ptr());
    // Each thread packs a share of each block: with one block (k up to 512)
    // a thread packing it alone kept the others waiting, 9% of a 512² product.
    let share = panels.div_ceil(threads);
    let packing = blocks * panels.div_ceil(share);
    let rows = RowPieces::new(o.m, threads);
    let part = Part(o);
    deal(threads, packing + rows.count(), packing, move |piece| {
        let o = part.get();
        let at = |block: usize| packed_at.get().add(block * KC * panels * NR);
        if piece < packing {
            let (block, jp0) = (piece % blocks, piece / blocks * share);
            let (p0, kc) = (block * KC, KC.min(o.k - block * KC));
            let columns = part.columns(jp0 * NR, share * NR);
            pack_b(&columns, p0, kc, at(block).add(jp0 * kc * NR));
            return;
        }
        let (i0, rows) = rows.piece(piece - packing);
        BUFFERS.with(|buffers| {
            let apack = &mut buffers.borrow_mut().1;
            for block in 0..blocks {
                let (p0, kc) = (block * KC, KC.min(o.k - block * KC));
                rows_times_panels(&o, i0, rows, p0, kc, at(block), Some(&mut *apack));
            }
        })
    });
    // Kept for the next product unless it is large (64 MiB for 4096²).
    if packed.capacity() <= KEEP_MAX {
        BUFFERS.with(|buffers| buffers.borrow_mut().0 = packed);
    }
}

/// The rows of [`packed_first`] in pieces of whole register tiles, each a
/// share of the rows left: large first, smaller towards the end, so a thread
/// that starts late (a pool thread woke after 3 µs to 1.7 ms here) or is
/// slowed leaves the others little to wait on at the end.
#[cfg(target_arch = "x86_64")]
struct RowPieces {
    /// Piece `q` is rows `starts[q]..starts[q + 1]`.
    starts: Vec<usize>,
}

#[cfg(target_arch = "x86_64")]
impl RowPieces {
    /// The fewest rows of a piece but the last.
    const SMALLEST: usize = 2 * MR;

    fn new(m: usize, threads: usize) -> RowPieces {
        let mut starts = vec![0];
        let mut i = 0;
        while i < m {
            let share = (m - i) / (2 * threads) / MR * MR;
            i += share.max(Self::SMALLEST).min(m - i);
            starts.push(i);
        }
        RowPieces { starts }
    }

    fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// The first row and the number of rows of piece `q`.
    fn piece(&self, q: usize) -> (usize, usize) {
        (self.starts[q], self.starts[q + 1] - self.starts[q])
    }
}

/// The most values of `b` [`packed_first`] packs at once (256 MiB).
#[cfg(target_arch = "x86_64")]
const PACKED_MAX: usize = 1 << 26;

/// The most values of packed `b` a thread keeps between products (16 MiB).
#[cfg(target_arch = "x86_64")]
const KEEP_MAX: usize = 1 << 22;

/// Operands that may cross to a pool thread: the caller keeps the matrices
/// alive until every piece is done (see [`sgemm_parallel`]), and pieces
/// write disjoint parts of `c`.
#[derive(Clone, Copy)]
struct Part(Operands);
// SAFETY: see the type's comment.
unsafe impl Send for Part {}
// SAFETY: as for Send: the pieces only read `a` and `b`.
unsafe impl Sync for Part {}

impl Part {
    // A method, so closures capture the whole wrapper rather than the field.
    fn get(self) -> Operands {
        self.0
    }

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

/// The packed `b` of [`packed_first`]: each part is written by one piece and
/// read only after every part is written.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Shared(*mut f32);
// SAFETY: see the type's comment.
#[cfg(target_arch = "x86_64")]
unsafe impl Send for Shared {}
// SAFETY: as for Send.
#[cfg(target_arch = "x86_64")]
unsafe impl Sync for Shared {}

#[cfg(target_arch = "x86_64")]
impl Shared {
    // A method, so closures capture the whole wrapper rather than the field.
    fn get(self) -> *mut f32 {
        self.0
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
    let pack_a = o.n >= PACK_A_MIN_N;
    BUFFERS.with(|buffers| {
        let (panels, apack) = &mut *buffers.borrow_mut();
        let mut p0 = 0;
        while p0 < o.k {
            let kc = KC.min(o.k - p0);
            let len = o.n.div_ceil(NR) * kc * NR;
            panels.clear();
            panels.reserve(len);
            pack_b(&o, p0, kc, panels.as_mut_ptr());
            panels.set_len(len);
            let apack = if pack_a { Some(&mut *apack) } else { None };
            rows_times_panels(&o, 0, o.m, p0, kc, panels.as_ptr(), apack);
            p0 += KC;
        }
        if panels.capacity() > KEEP_MAX {
            *panels = Vec::new();
        }
    })
}

thread_local! {
    /// Packed panels of `b` and rows of `a`, kept between calls so products
    /// do not allocate.
    static BUFFERS: std::cell::RefCell<(Vec<f32>, Vec<f32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Rows `i0..i0 + rows` of `c` after steps `p0..p0 + kc`, in blocks of
/// [`MC`] rows (see [`block_times_panels`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn rows_times_panels(
    o: &Operands,
    i0: usize,
    rows: usize,
    p0: usize,
    kc: usize,
    panels: *const f32,
    mut apack: Option<&mut Vec<f32>>,
) {
    let mut i = i0;
    while i < i0 + rows {
        let mc = MC.min(i0 + rows - i);
        block_times_panels(o, i, mc, p0, kc, panels, apack.as_deref_mut());
        i += MC;
    }
}

/// Rows `i0..i0 + mc` of `c` after steps `p0..p0 + kc`: every panel of
/// `panels` (packed by [`pack_b`]) times those rows of `a`, read in place or,
/// given a buffer, packed into it first.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn block_times_panels(
    o: &Operands,
    i0: usize,
    mc: usize,
    p0: usize,
    kc: usize,
    panels: *const f32,
    apack: Option<&mut Vec<f32>>,
) {
    let packed = apack.map(|buf| {
        pack_a(o, i0, mc, p0, kc, buf);
        buf.as_ptr()
    });
    for jp in 0..o.n.div_ceil(NR) {
        let j0 = jp * NR;
        let nr = NR.min(o.n - j0);
        let mut ir = i0;
        while ir < i0 + mc {
            let rows = MR.min(i0 + mc - ir);
            let (a, a_row, a_col) = match packed {
                Some(p) => (p.add((ir - i0) * kc), 1, rows as isize),
                None => (
                    o.a.offset(ir as isize * o.a_row + p0 as isize * o.a_col),
                    o.a_row,
                    o.a_col,
                ),
            };
            let tile = Tile {
                a,
                a_row,
                a_col,
                b: panels.add(jp * kc * NR),
                c: o.c.add(ir * o.c_row + j0),
                c_row: o.c_row,
                k: kc,
                accumulate: p0 > 0,
            };
            match (rows, nr == NR) {
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
}

/// Writes rows `p0..p0 + kc` of `b` to `out` as one `kc × 16` panel per 16
/// columns, each row of a panel contiguous and the last panel padded with
/// zeros. Read in place, `b`'s rows at a stride of a power of two would share
/// a few L1 sets and evict each other. `b` is read a row at a time, which the
/// prefetcher follows; a panel at a time it would be a jump per 64 bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_b(o: &Operands, p0: usize, kc: usize, out: *mut f32) {
    let full = o.n / NR;
    let rest = o.n - full * NR;
    for p in 0..kc {
        let src = o.b.offset((p0 + p) as isize * o.b_row);
        for jp in 0..full {
            // A fixed-size copy: two register moves, not a memcpy call.
            let from = &*(src.add(jp * NR) as *const [f32; NR]);
            *(out.add((jp * kc + p) * NR) as *mut [f32; NR]) = *from;
        }
        if rest > 0 {
            let to = out.add((full * kc + p) * NR);
            std::ptr::copy_nonoverlapping(src.add(full * NR), to, rest);
            std::ptr::write_bytes(to.add(rest), 0, NR - rest);
        }
    }
}

/// Writes rows `i0..i0 + mc`, steps `p0..p0 + kc` of `a` to `out`, six rows
/// side by side: the group of rows from `i0 + g` (g a multiple of 6) takes
/// `kc × rows` values from `g * kc`, a step's values together.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_a(o: &Operands, i0: usize, mc: usize, p0: usize, kc: usize, out: &mut Vec<f32>) {
    out.clear();
    // Room for the two values `transpose_6x8` writes past its 48.
    out.reserve(mc * kc + 2);
    let dst = out.as_mut_ptr();
    let mut g = 0;
    while g < mc {
        let rows = MR.min(mc - g);
        let from =
            o.a.offset((i0 + g) as isize * o.a_row + p0 as isize * o.a_col);
        let to = dst.add(g * kc);
        let mut p = 0;
        if rows == MR && o.a_col == 1 {
            // Eight steps at a time: the scalar copy took 2.7% of a 1024²
            // product on one thread, this 0.5%.
            let src: [*const f32; MR] = std::array::from_fn(|r| from.offset(r as isize * o.a_row));
            while p + 8 <= kc {
                transpose_6x8(src.map(|row| row.add(p)), to.add(p * MR));
                p += 8;
            }
        }
        for p in p..kc {
            for r in 0..rows {
                *to.add(p * rows + r) = *from.offset(r as isize * o.a_row + p as isize * o.a_col);
            }
        }
        g += MR;
    }
    out.set_len(mc * kc);
}

/// Writes eight values from each of six rows, `rows[r][0..8]`, to `to` a
/// step at a time: `to[6p + r] = rows[r][p]`. Each step is stored as eight
/// values, the last two zeros that the next step's store overwrites: the
/// last step's pair lands at `to[48..50]`, which the caller writes next or
/// leaves past the end.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn transpose_6x8(rows: [*const f32; MR], to: *mut f32) {
    use std::arch::x86_64::*;
    let r = rows.map(|row| _mm256_loadu_ps(row));
    let zero = _mm256_setzero_ps();
    // Pairs of rows interleaved: steps 0, 1 | 4, 5 (lo) and 2, 3 | 6, 7 (hi).
    let lo = [
        _mm256_unpacklo_ps(r[0], r[1]),
        _mm256_unpacklo_ps(r[2], r[3]),
        _mm256_unpacklo_ps(r[4], r[5]),
    ];
    let hi = [
        _mm256_unpackhi_ps(r[0], r[1]),
        _mm256_unpackhi_ps(r[2], r[3]),
        _mm256_unpackhi_ps(r[4], r[5]),
    ];
    // Rows 0-3 of a step in `head`, rows 4-5 and two zeros in `tail`: steps
    // 0 | 4, 1 | 5, 2 | 6, 3 | 7 in each 128-bit half.
    let head = [
        _mm256_shuffle_ps::<0x44>(lo[0], lo[1]),
        _mm256_shuffle_ps::<0xEE>(lo[0], lo[1]),
        _mm256_shuffle_ps::<0x44>(hi[0], hi[1]),
        _mm256_shuffle_ps::<0xEE>(hi[0], hi[1]),
    ];
    let tail = [
        _mm256_shuffle_ps::<0x44>(lo[2], zero),
        _mm256_shuffle_ps::<0xEE>(lo[2], zero),
        _mm256_shuffle_ps::<0x44>(hi[2], zero),
        _mm256_shuffle_ps::<0xEE>(hi[2], zero),
    ];
    for q in 0..4 {
        _mm256_storeu_ps(
            to.add(q * MR),
            _mm256_permute2f128_ps::<0x20>(head[q], tail[q]),
        );
    }
    for q in 0..4 {
        _mm256_storeu_ps(
            to.add((q + 4) * MR),
            _mm256_permute2f128_ps::<0x31>(head[q], tail[q]),
        );
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
        if self.a_row == 1 {
            // A step's values of `a` side by side (packed, or `a`
            // transposed): fixed offsets from one pointer.
            for _ in 0..self.k {
                let (b0, b1) = (_mm256_loadu_ps(b), _mm256_loadu_ps(b.add(8)));
                for (r, row) in acc.iter_mut().enumerate() {
                    let x = _mm256_broadcast_ss(&*a.add(r));
                    row[0] = _mm256_fmadd_ps(x, b0, row[0]);
                    row[1] = _mm256_fmadd_ps(x, b1, row[1]);
                }
                a = a.offset(self.a_col);
                b = b.add(NR);
            }
        } else {
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
        for (m, n, k) in [
            (128, 128, 128),
            (7, 300, 33),
            (96, 17, 260),
            (1, 1000, 5),
            (100, 600, 530),
            (300, 520, 530),
        ] {
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
    fn products_that_pack_a_agree_with_fused_loop() {
        // `a` packed (n at least PACK_A_MIN_N): rows not a multiple of 6,
        // steps not a multiple of 8 nor within one block, `b` packed once
        // for every thread (the last), `a` transposed.
        if !available() {
            return;
        }
        for (m, n, k) in [
            (13, PACK_A_MIN_N, 37),
            (7, 530, 8),
            (30, 600, 300),
            (1, 512, 9),
            (12, 515, 16),
            (270, 515, 530),
        ] {
            let (a, b) = operands(m, n, k, (m + n + k) as u64);
            let want = reference(m, n, k, &a, &b, false);
            for threads in [1, 2, 3] {
                let got = product(m, n, k, &a, &b, threads);
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{m}x{k} @ {k}x{n} on {threads} threads"
                );
            }
            let at: Vec<f32> = (0..k * m).map(|i| a[(i % m) * k + i / m]).collect();
            let mut c = vec![f32::NAN; m * n];
            unsafe {
                sgemm(Operands {
                    m,
                    n,
                    k,
                    a: at.as_ptr(),
                    a_row: 1,
                    a_col: m as isize,
                    b: b.as_ptr(),
                    b_row: n as isize,
                    c: c.as_mut_ptr(),
                    c_row: n,
                });
            }
            assert_eq!(bits(&c), bits(&want), "{m}x{k} (transposed) @ {k}x{n}");
        }
    }

    #[test]
    fn row_pieces_cover_every_row_once_in_whole_tiles() {
        for m in [1, 5, 6, 24, 25, 97, 1000, 1024, 4099] {
            for threads in 1..=4 {
                let rows = RowPieces::new(m, threads);
                let (mut next, mut last) = (0, usize::MAX);
                for q in 0..rows.count() {
                    let (i0, height) = rows.piece(q);
                    assert_eq!(i0, next, "m {m}, {threads} threads, piece {q}");
                    assert!(height > 0 && (height % MR == 0 || i0 + height == m));
                    // Smaller towards the end, and not below SMALLEST but the last.
                    assert!(height <= last, "m {m}, {threads} threads, piece {q}");
                    assert!(height >= RowPieces::SMALLEST || i0 + height == m);
                    (next, last) = (next + height, height);
                }
                assert_eq!(next, m, "m {m}, {threads} threads");
            }
        }
    }

    fn bits(x: &[f32]) -> Vec<u32> {
        x.iter().map(|x| x.to_bits()).collect()
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
