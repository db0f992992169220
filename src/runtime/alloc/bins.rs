//! The small pool's free-block index: bins by size class, with a bitmap.

use super::{MIN_BLOCK, SMALL_SEGMENT};

/// Free small-pool blocks of one stream, binned by size in 512 B classes (every
/// small-pool block is at most one 2 MiB segment), with a bitmap of non-empty
/// bins: best fit is a bit scan, removal a swap.
pub(super) struct Bins {
    pub(super) bits: [u64; BINS / 64],
    pub(super) bins: Vec<Vec<u32>>,
}

const BINS: usize = SMALL_SEGMENT / MIN_BLOCK;

impl Bins {
    pub(super) fn new() -> Self {
        Bins {
            bits: [0; BINS / 64],
            bins: vec![Vec::new(); BINS],
        }
    }

    pub(super) fn class(size: usize) -> usize {
        size / MIN_BLOCK - 1
    }

    /// The first non-empty bin at or above `class`.
    pub(super) fn first_at_least(&self, class: usize) -> Option<usize> {
        let (mut w, mut mask) = (class / 64, !0u64 << (class % 64));
        while w < self.bits.len() {
            let hit = self.bits[w] & mask;
            if hit != 0 {
                return Some(w * 64 + hit.trailing_zeros() as usize);
            }
            w += 1;
            mask = !0;
        }
        None
    }
}
