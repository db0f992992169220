//! The allocator's invariants, checked against a recount (the allocator's
//! own tests, tests/allocator.rs, and `Session::check_invariants` for tests and debugging).

use std::collections::BTreeSet;

use super::{BlockState, CachingAllocator, Lane, Pool, SegmentSource, Stats, StreamId, NIL};

impl<S: SegmentSource> CachingAllocator<S> {
    /// Checks the invariants: blocks tile each segment, the links agree, the free
    /// index matches the blocks, and the stats equal a recount.
    pub fn check(&self) -> Result<(), String> {
        // Per pool, what each statistic's current value must be.
        let mut counted = Stats::default();
        let mut free_keys = BTreeSet::new();
        let mut expandable_free = BTreeSet::new();
        let mut unmapped = BTreeSet::new();
        for s in self.segments.values() {
            let pool = s.pool;
            // An expandable segment counts its mapped bytes as reserved
            // and is not a segment in PyTorch's statistics.
            if !s.expandable {
                counted.segment.increase(pool, 1);
                counted.reserved_bytes.increase(pool, s.size as u64);
            }
            let split = self.nodes[s.first as usize].next != NIL && !s.expandable;
            let (mut at, mut prev, mut prev_free) = (0usize, NIL, false);
            let mut prev_unmapped = false;
            let mut i = s.first;
            while i != NIL {
                let n = &self.nodes[i as usize];
                if n.offset != at || n.segment != s.id || n.prev != prev {
                    return Err(format!(
                        "segment {}: block at {} breaks the tiling or the links",
                        s.id, n.offset
                    ));
                }
                if n.expandable != s.expandable || (!n.mapped && !s.expandable) {
                    return Err(format!(
                        "segment {}: block at {} is of another kind",
                        s.id, n.offset
                    ));
                }
                at += n.size;
                let size = n.size as u64;
                if !n.mapped {
                    let page = super::expandable::page_size(pool);
                    if prev_unmapped
                        || n.state != BlockState::Free
                        || !n.offset.is_multiple_of(page)
                    {
                        return Err(format!(
                            "segment {}: unmapped space at {} is not whole free pages between mapped ones",
                            s.id, n.offset
                        ));
                    }
                    unmapped.insert((pool, n.lane(), n.base + n.offset as u64, i));
                    (prev_unmapped, prev_free) = (true, false);
                    prev = i;
                    i = n.next;
                    continue;
                }
                prev_unmapped = false;
                if s.expandable {
                    counted.reserved_bytes.increase(pool, size);
                }
                match n.state {
                    BlockState::Free => {
                        if prev_free {
                            return Err(format!(
                                "segment {}: two adjacent free blocks at {}",
                                s.id, n.offset
                            ));
                        }
                        match s.expandable {
                            true => expandable_free.insert((s.pool, n.lane(), n.size, i)),
                            false => free_keys.insert((s.pool, n.lane(), n.size, i)),
                        };
                        if split {
                            counted.inactive_split.increase(pool, 1);
                            counted.inactive_split_bytes.increase(pool, size);
                        }
                        prev_free = true;
                    }
                    BlockState::Allocated { requested } => {
                        counted.allocation.increase(pool, 1);
                        counted.allocated_bytes.increase(pool, size);
                        counted.active.increase(pool, 1);
                        counted.active_bytes.increase(pool, size);
                        counted.requested_bytes.increase(pool, requested as u64);
                        prev_free = false;
                    }
                    BlockState::Waiting { requested } => {
                        counted.active.increase(pool, 1);
                        counted.active_bytes.increase(pool, size);
                        counted.requested_bytes.increase(pool, requested as u64);
                        prev_free = false;
                    }
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
        if free_keys != self.indexed() || expandable_free != self.expandable_free {
            return Err("the free-block index does not match the segments".into());
        }
        if unmapped != self.unmapped {
            return Err("the index of unmapped space does not match the segments".into());
        }
        let currents = |st: &Stats| -> Vec<(&'static str, [u64; 3])> {
            st.named()
                .into_iter()
                .map(|(name, a)| {
                    (
                        name,
                        [a.all.current, a.large_pool.current, a.small_pool.current],
                    )
                })
                .collect()
        };
        for ((name, recorded), (_, recount)) in
            currents(&self.stats).into_iter().zip(currents(&counted))
        {
            if recorded != recount {
                return Err(format!(
                    "{name} (all, large pool, small pool) {recorded:?} differs from a recount {recount:?}"
                ));
            }
        }
        Ok(())
    }

    /// Every free block in the index, for `check`.
    fn indexed(&self) -> BTreeSet<(Pool, Lane, usize, u32)> {
        let mut out: BTreeSet<_> = self
            .large
            .iter()
            .map(|&(lane, size, i)| (Pool::Large, lane, size, i))
            .collect();
        for (&lane, bins) in &self.small {
            for (w, &word) in bins.bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let c = w * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    for &i in &bins.bins[c] {
                        out.insert((Pool::Small, lane, self.nodes[i as usize].size, i));
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
                out.insert((Pool::Small, (u32::MAX, StreamId::MAX), 0, u32::MAX));
            }
        }
        out
    }
}
