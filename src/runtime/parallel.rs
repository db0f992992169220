//! Work split across this thread and rayon's pool as an OpenMP `parallel
//! for` splits it in PyTorch: the calling thread takes pieces itself, pool
//! threads join as they wake, and threads that took part stay awake a while
//! after, for the next op.
//!
//! rayon's own parallel iterators, called from the interpreter's thread
//! (which is not in the pool), hand every piece to the pool and put the
//! caller to sleep until the last is done: each op then paid two wake-ups,
//! the pool's and the caller's (about 100 µs each, median, on a loaded
//! 2-core machine), where PyTorch's OpenMP threads spin between ops.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The threads ops split their work across: rayon's pool size (one per
/// core by default, as PyTorch's; `RAYON_NUM_THREADS` sets it).
pub fn threads() -> usize {
    let cap = THREAD_CAP.load(std::sync::atomic::Ordering::Relaxed);
    match cap {
        0 => rayon::current_num_threads(),
        n => n.min(rayon::current_num_threads()),
    }
}

/// `torch.set_num_threads(n)`: at most `n` threads from here on (0: the
/// pool's own size).
static THREAD_CAP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Caps [`threads`] at `n` (`torch.set_num_threads`).
pub fn set_thread_cap(n: usize) {
    THREAD_CAP.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// Runs `work(piece)` for each of `pieces` pieces, on this thread and up to
/// [`threads`]` - 1` of the pool's, and returns when every one is done. A
/// panic in any piece is raised here once all are done.
pub fn for_each(pieces: usize, work: impl Fn(usize) + Sync) {
    deal(threads(), pieces, 0, work)
}

/// `f(piece)` for each of `pieces` pieces, computed as [`for_each`] does,
/// in the pieces' order.
pub fn map<T: Send>(pieces: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let slots: Vec<Mutex<Option<T>>> = (0..pieces).map(|_| Mutex::new(None)).collect();
    for_each(pieces, |piece| {
        let value = f(piece);
        *slots[piece].lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    });
    slots
        .into_iter()
        .map(|slot| {
            let value = slot.into_inner().unwrap_or_else(|e| e.into_inner());
            value.expect("every piece ran")
        })
        .collect()
}

/// Runs `work(item)` for each of `items`, as [`for_each`] does.
pub fn for_each_item<T: Send>(items: Vec<T>, work: impl Fn(T) + Sync) {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    for_each(slots.len(), |piece| {
        let item = slots[piece]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        work(item.expect("each piece runs once"))
    })
}

/// Runs `work(piece, part)` for `out` cut into parts of `size` elements
/// (the last shorter), as [`for_each`] does.
pub fn for_each_part<T: Send>(out: &mut [T], size: usize, work: impl Fn(usize, &mut [T]) + Sync) {
    let size = size.max(1);
    let len = out.len();
    let base = Parts(out.as_mut_ptr());
    for_each(len.div_ceil(size), |piece| {
        let start = piece * size;
        // SAFETY: each piece is run once, and the parts of distinct pieces
        // are disjoint ranges of `out`, which is borrowed mutably until
        // every piece is done.
        let part = unsafe { std::slice::from_raw_parts_mut(base.at(start), size.min(len - start)) };
        work(piece, part)
    })
}

/// Runs `work(out_part, x_part)` for `out` and `x` (as long) cut alike into
/// parts of `size` elements, as [`for_each`] does.
pub fn for_each_pair<T: Send, U: Sync>(
    out: &mut [T],
    x: &[U],
    size: usize,
    work: impl Fn(&mut [T], &[U]) + Sync,
) {
    assert_eq!(out.len(), x.len(), "parts of equal slices");
    let size = size.max(1);
    for_each_part(out, size, |piece, part| {
        work(part, &x[piece * size..][..part.len()])
    })
}

/// The start of [`for_each_part`]'s `out`, shared by its pieces.
struct Parts<T>(*mut T);
// SAFETY: pieces reach disjoint parts only (see `for_each_part`); `T: Send`
// as its parts are handed to other threads.
unsafe impl<T: Send> Sync for Parts<T> {}

impl<T> Parts<T> {
    /// A method, so closures capture the whole wrapper rather than the field.
    fn at(&self, start: usize) -> *mut T {
        // SAFETY: callers pass `start` within the slice.
        unsafe { self.0.add(start) }
    }
}

/// Runs `work(piece)` for `pieces` pieces on this thread and up to
/// `threads - 1` of the pool's; returns when every piece is done. Pieces
/// `0..first` must all be done before any later one starts (they are taken
/// first, so a thread waiting for them waits for threads already at work).
///
/// This thread never sleeps on the pool: when no piece is left it spins
/// until the pieces other threads took are written. A pool thread that
/// starts after the last piece was taken finds the counter spent and does
/// not call `work`, whose borrows may be gone by then.
pub fn deal(threads: usize, pieces: usize, first: usize, work: impl Fn(usize) + Sync) {
    if threads <= 1 || pieces <= 1 {
        return (0..pieces).for_each(work);
    }
    let work: &(dyn Fn(usize) + Sync) = &work;
    // SAFETY: `work` is called only for pieces taken below `pieces`, and
    // this function returns only once each of those is done (a panic counts
    // as done: it is caught), so no call outlives the borrow. The pool
    // threads' `Arc`s may outlive it, but they touch only the counters.
    let work: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(work) };
    let deal = Arc::new(Deal {
        pieces,
        first,
        next: 0.into(),
        done: 0.into(),
        work,
        panic: Mutex::new(None),
    });
    for _ in 1..threads.min(pieces) {
        let deal = Arc::clone(&deal);
        rayon::spawn(move || {
            deal.take();
            drop(deal);
            linger();
        });
    }
    deal.take();
    deal.wait_for(pieces);
    let panic = deal.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
}

/// How long a pool thread stays awake after it last ran rayon work in
/// [`linger`].
const LINGER: Duration = Duration::from_millis(1);

thread_local! {
    /// Whether this pool thread is in [`linger`].
    static LINGERING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Keeps this pool thread awake after its pieces, running any rayon work
/// that appears (the next op's pieces, or anything else) as an idle pool
/// thread would, until none has come for [`LINGER`]. Asleep, a pool thread
/// started 95 to 130 µs after the next matrix product's `rayon::spawn`
/// (median) and 3.4 to 4 ms after in one product of ten (on a loaded
/// machine, 1024² back to back); lingering, 2.5 to 65 µs and 57 to 121 µs.
/// OpenMP's threads (PyTorch's) and OpenBLAS's likewise stay awake between
/// parallel regions. Work run from here does not linger again, so a thread
/// is in here once at most.
fn linger() {
    if LINGERING.get() {
        return;
    }
    LINGERING.set(true);
    let mut since = Instant::now();
    while since.elapsed() < LINGER {
        match rayon::yield_now() {
            Some(rayon::Yield::Executed) => since = Instant::now(),
            _ => std::hint::spin_loop(),
        }
    }
    LINGERING.set(false);
}

/// The pieces of one [`deal`]: which goes next, how many are done, and the
/// first panic.
struct Deal {
    pieces: usize,
    first: usize,
    next: AtomicUsize,
    done: AtomicUsize,
    /// Lives as long as the `deal` call (see its `SAFETY`), not `'static`.
    work: &'static (dyn Fn(usize) + Sync),
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Deal {
    /// Takes pieces until none are left; each is counted once done.
    fn take(&self) {
        loop {
            let piece = self.next.fetch_add(1, Ordering::Relaxed);
            if piece >= self.pieces {
                break;
            }
            if piece >= self.first {
                // No later piece is done before these, so the count is theirs.
                self.wait_for(self.first);
            }
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (self.work)(piece))) {
                let mut panic = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                panic.get_or_insert(payload);
            }
            self.done.fetch_add(1, Ordering::Release);
        }
    }

    /// Spins until `count` pieces are done: briefly, then letting another
    /// thread run should it share this core.
    fn wait_for(&self, count: usize) {
        let mut spins = 0u32;
        while self.done.load(Ordering::Acquire) < count {
            if spins < 1 << 14 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once() {
        let counts: Vec<AtomicUsize> = (0..100).map(|_| 0.into()).collect();
        for_each(100, |p| {
            counts[p].fetch_add(1, Ordering::Relaxed);
        });
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn map_keeps_the_order() {
        assert_eq!(
            map(37, |p| p * p),
            (0..37).map(|p| p * p).collect::<Vec<_>>()
        );
    }

    #[test]
    fn items_are_each_taken_once() {
        let seen: Vec<AtomicUsize> = (0..50).map(|_| 0.into()).collect();
        for_each_item((0..50).map(|i| (i, &seen[i])).collect(), |(_, count)| {
            count.fetch_add(1, Ordering::Relaxed);
        });
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn parts_cover_the_slice() {
        let mut out = vec![0usize; 1001];
        for_each_part(&mut out, 100, |piece, part| {
            assert!(part.len() == 100 || (piece == 10 && part.len() == 1));
            for (k, v) in part.iter_mut().enumerate() {
                *v = piece * 100 + k;
            }
        });
        assert_eq!(out, (0..1001).collect::<Vec<_>>());
    }

    #[test]
    fn pairs_are_cut_alike() {
        let x: Vec<usize> = (0..1001).collect();
        let mut out = vec![0usize; 1001];
        for_each_pair(&mut out, &x, 100, |o, x| {
            assert_eq!(o.len(), x.len());
            for (o, &x) in o.iter_mut().zip(x) {
                *o = 2 * x;
            }
        });
        assert_eq!(out, (0..1001).map(|v| 2 * v).collect::<Vec<_>>());
    }

    #[test]
    fn first_pieces_finish_before_the_rest_start() {
        let firsts = AtomicUsize::new(0);
        deal(4, 40, 8, |p| {
            if p < 8 {
                std::thread::sleep(Duration::from_micros(200));
                firsts.fetch_add(1, Ordering::SeqCst);
            } else {
                assert_eq!(firsts.load(Ordering::SeqCst), 8);
            }
        });
    }

    #[test]
    fn a_panic_is_raised_after_every_piece() {
        let done = AtomicUsize::new(0);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            deal(2, 16, 0, |p| {
                std::thread::sleep(Duration::from_micros(100));
                done.fetch_add(1, Ordering::SeqCst);
                assert_ne!(p, 3, "piece 3 fails");
            })
        }));
        assert!(caught.is_err());
        assert_eq!(done.load(Ordering::SeqCst), 16);
    }
}
