//! The allocator's invariants, checked against a recount (the allocator's
//! own tests, tests/allocator.rs, and `Session::check_invariants` for tests and debugging).

use std::collections::BTreeSet;

use super::{BlockState, CachingAllocator, Pool, SegmentSource, StreamId, NIL};

impl<S: SegmentSource> CachingAllocator<S> {
    /// Checks the invariants: blocks tile each segment, the links agree, the free
    /// index matches the blocks, and the stats equal a recount.
    pub fn check(&self) -> Result<(), String> {
        let (mut allocated, mut requested, mut count, mut reserved) = (0u64, 0u64, 0u64, 0u64);
        let mut free_keys = BTreeSet::new();
        for s in self.segments.values() {
            reserved += s.size as u64;
            let (mut at, mut prev, mut prev_free) = (0usize, NIL, false);
            let mut i = s.first;
            while i != NIL {
                let n = &self.nodes[i as usize];
                if n.offset != at || n.segment != s.id || n.prev != prev {
                    return Err(format!(
                        "segment {}: block at {} breaks the tiling or the links",
                        s.id, n.offset
                    ));
                }
                at += n.size;
                match n.state {
                    BlockState::Free => {
                        if prev_free {
                            return Err(format!(
                                "segment {}: two adjacent free blocks at {}",
                                s.id, n.offset
                            ));
                        }
                        free_keys.insert((s.pool, s.stream, n.size, i));
                        prev_free = true;
                    }
                    BlockState::Allocated { requested: r } => {
                        allocated += n.size as u64;
                        requested += r as u64;
                        count += 1;
                        prev_free = false;
                    }
                    BlockState::Waiting { .. } => prev_free = false,
                }
                prev = i;
                i = n.next;
            }
            if at != s.size {
                return Err(format!(
                    "segment {}: blocks cover {at} of {} bytes",
                    s.id, s.size
                ));
            }
        }
        if free_keys != self.indexed() {
            return Err("the free-block index does not match the segments".into());
        }
        let st = &self.stats;
        let recount = (
            allocated,
            requested,
            count,
            reserved,
            self.segments.len() as u64,
        );
        let recorded = (
            st.allocated.current,
            st.requested.current,
            st.allocations.current,
            st.reserved.current,
            st.segments.current,
        );
        if recount != recorded {
            return Err(format!(
                "stats {recorded:?} differ from a recount {recount:?}"
            ));
        }
        Ok(())
    }

    /// Every free block in the index, for `check`.
    fn indexed(&self) -> BTreeSet<(Pool, StreamId, usize, u32)> {
        let mut out: BTreeSet<_> = self
            .large
            .iter()
            .map(|&(st, size, i)| (Pool::Large, st, size, i))
            .collect();
        for (st, bins) in self.small.iter().enumerate() {
            let Some(bins) = bins else { continue };
            for (w, &word) in bins.bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let c = w * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    for &i in &bins.bins[c] {
                        out.insert((Pool::Small, st as StreamId, self.nodes[i as usize].size, i));
                    }
                }
            }
            // A block in a bin whose bit is clear would be lost to best fit.
            if bins
                .bins
                .iter()
                .enumerate()
                .any(|(c, b)| !b.is_empty() && bins.bits[c / 64] & (1 << (c % 64)) == 0)
            {
                out.insert((Pool::Small, StreamId::MAX, 0, u32::MAX));
            }
        }
        out
    }
}
