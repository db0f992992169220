//! A session that runs the same cell 1,000 more times holds no more heap than
//! before, beyond its input history (the Jupyter kernel's 1,000-execute check,
//! made exact: this binary counts every byte allocated and freed).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use cudash::session::{Config, Session};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator unchanged, only counting sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_thousand_executes_keep_the_heap_flat() {
    let mut s = Session::new(Config::default()).unwrap();
    s.enable_html();
    let cell = "x = ones(1000, device=cuda)\ny = (x * 2).sum()\nstream s { z = x + 1 }\nsync\nprint(y)\nx\nmem";
    let run = |s: &mut Session, n: usize| {
        for _ in 0..n {
            let o = s.execute(cell);
            assert!(o.error.is_none(), "{}", o.plain_text());
        }
    };
    run(&mut s, 100);
    let before = LIVE.load(Ordering::Relaxed);
    run(&mut s, 1000);
    let after = LIVE.load(Ordering::Relaxed);
    eprintln!("heap growth over 1,000 executes: {} bytes", after - before);
    // The input history keeps each cell's text (and its Vec grows by
    // doubling); the memory history's sources share that text and add one
    // entry per cell (its number and the shared text: 40 bytes, and their
    // Vec grows by doubling too).
    let history = 1000 * (cell.len() as isize + 16) + 2 * 1000 * 40 + (64 << 10);
    assert!(
        after - before <= history,
        "the heap grew by {} bytes over 1,000 executes",
        after - before
    );
}
