//! Expandable segments (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`),
//! as PyTorch's caching allocator keeps them (`CUDACachingAllocator.cpp`,
//! Note [Expandable Segments]): instead of one `cudaMalloc` per segment, each
//! pool of each stream reserves address space for 1⅛ of the device's memory
//! and puts memory behind it page by page (2 MiB pages for the small pool,
//! 20 MiB for the large one) as requests need it, at the lowest address
//! where free and unmapped space together fit the request. Blocks split
//! down to 512 bytes and merge as in any segment; `empty_cache()` unmaps the
//! whole pages inside free blocks, and an address space with nothing mapped
//! goes back. So a request a little larger than the last ones grows the
//! segment instead of leaving a sliver of each old segment unusable.
//!
//! An expandable segment's blocks are never counted as inactive splits,
//! nor is it counted as a segment in `memory_stats()` (only its mapped bytes
//! as reserved), as PyTorch counts them. Users see each mapped stretch as a
//! segment (`CachingAllocator::segments`), as PyTorch's snapshot shows them.

use super::history::Action;
use super::{
    none_if_out_of_memory, AllocError, BlockState, CachingAllocator, Lane, Node, Pool, Segment,
    SegmentSource, StreamId, LARGE_SEGMENT, NIL, SMALL_SEGMENT,
};

/// The page an expandable segment of `pool` maps at a time.
pub fn page_size(pool: Pool) -> usize {
    match pool {
        Pool::Small => SMALL_SEGMENT,
        Pool::Large => LARGE_SEGMENT,
    }
}

/// A candidate in best-fit order: a free block of an expandable segment or
/// the smallest fitting block of an ordinary one.
#[derive(Clone, Copy, PartialEq)]
enum Fit {
    Expandable(u32),
    Regular(u32),
}

impl<S: SegmentSource> CachingAllocator<S> {
    /// A segment's mapped stretches, each as a segment of its own.
    pub(super) fn mapped_stretches(&self, s: &Segment) -> Vec<Segment> {
        let mut out: Vec<Segment> = Vec::new();
        let mut i = s.first;
        while let Some(n) = self.nodes.get(i as usize) {
            if n.mapped {
                match out.last_mut() {
                    Some(v) if v.start + v.size == n.offset => v.size += n.size,
                    _ => out.push(Segment {
                        handle: s.handle + n.offset as u64,
                        size: n.size,
                        first: i,
                        start: n.offset,
                        ..s.clone()
                    }),
                }
            }
            i = n.next;
        }
        out
    }

    /// The size block `i` could grow to: itself and the unmapped space right
    /// after it (PyTorch's `expandable_size`).
    fn expandable_size(&self, i: u32) -> usize {
        let n = &self.nodes[i as usize];
        let next = self.nodes.get(n.next as usize);
        n.size + next.filter(|m| !m.mapped).map_or(0, |m| m.size)
    }

    /// Best fit while expandable segments are on, as PyTorch's
    /// `get_free_block`: the smallest free block of at least `size` bytes,
    /// ordinary (`regular`) or expandable; from an expandable one it moves on
    /// to larger blocks while they could grow to less, so that a request
    /// goes where growing wastes least.
    pub(super) fn expandable_fit(
        &self,
        pool: Pool,
        lane: Lane,
        size: usize,
        regular: Option<u32>,
    ) -> Option<u32> {
        let regular_size = regular.map(|i| self.nodes[i as usize].size);
        let before_regular = |s: usize| regular_size.is_none_or(|r| s < r);
        let mut blocks = self
            .expandable_free
            .range((pool, lane, size, 0)..=(pool, lane, usize::MAX, u32::MAX))
            .map(|&(_, _, s, i)| (s, i))
            .peekable();
        // The next candidate in order of size.
        let next = |blocks: &mut std::iter::Peekable<_>| match blocks.peek() {
            Some(&(s, i)) if before_regular(s) => {
                blocks.next();
                Some(Fit::Expandable(i))
            }
            _ => regular.map(Fit::Regular),
        };
        let Some(Fit::Expandable(mut at)) = next(&mut blocks) else {
            return regular;
        };
        loop {
            match next(&mut blocks) {
                Some(Fit::Expandable(i)) if self.expandable_size(i) < self.expandable_size(at) => {
                    at = i
                }
                Some(Fit::Regular(i)) if self.expandable_size(i) < self.expandable_size(at) => {
                    return Some(i)
                }
                _ => return Some(at),
            }
        }
    }

    /// PyTorch's `try_allocate_expandable_block`: maps the memory a request
    /// of `size` bytes needs at the lowest address of `stream`'s expandable
    /// segment of `pool` where it fits (a new segment where none has room),
    /// merging it with the free space beside it; the free block (out of the
    /// index), or None where the device has too little memory.
    pub(super) fn try_expandable(
        &mut self,
        pool: Pool,
        lane: Lane,
        size: usize,
    ) -> Result<Option<u32>, AllocError> {
        let mut at = self.find_expandable(pool, lane, size)?;
        if !self.nodes[at as usize].mapped {
            let want = self.nodes[at as usize].size.min(size);
            match self.map_node(at, want)? {
                Some(i) => at = i,
                None => return Ok(None),
            }
        }
        while self.nodes[at as usize].size < size {
            // What follows is unmapped: map as much of it as is missing.
            let next = self.nodes[at as usize].next;
            let want = (size - self.nodes[at as usize].size).min(self.nodes[next as usize].size);
            match self.map_node(next, want)? {
                Some(i) => at = i,
                None => return Ok(None),
            }
        }
        self.index_remove(at);
        Ok(Some(at))
    }

    /// PyTorch's `find_expandable_block`: the lowest address in `stream`'s
    /// expandable segments of `pool` where free and unmapped blocks in a
    /// row hold `size` bytes (starting at the free block before an
    /// unmapped one), else a new segment's whole address space.
    fn find_expandable(&mut self, pool: Pool, lane: Lane, size: usize) -> Result<u32, AllocError> {
        let free = |i: u32| {
            self.nodes
                .get(i as usize)
                .is_some_and(|n| n.state == BlockState::Free)
        };
        for &(_, _, _, u) in self
            .unmapped
            .range((pool, lane, 0, 0)..=(pool, lane, u64::MAX, u32::MAX))
        {
            let prev = self.nodes[u as usize].prev;
            let start = if free(prev) { prev } else { u };
            let (mut bytes, mut i) = (0, start);
            while bytes < size && free(i) {
                bytes += self.nodes[i as usize].size;
                i = self.nodes[i as usize].next;
            }
            if bytes >= size {
                return Ok(start);
            }
        }
        let page = page_size(pool);
        let capacity = self.source.capacity();
        let bytes = (capacity + capacity / 8).div_ceil(page) * page;
        let base = none_if_out_of_memory(self.source.reserve_address(bytes))?.ok_or_else(|| {
            AllocError::Failed("cuMemAddressReserve: out of address space".into())
        })?;
        let first = self.add_segment(base, bytes, pool, lane, true);
        self.unmapped.insert((pool, lane, base, first));
        Ok(first)
    }

    /// PyTorch's `map_block`: memory behind the first `bytes` of unmapped
    /// block `i` (whole pages), merged with the free blocks beside it and
    /// indexed; the merged block, or None where the device has too little
    /// memory (then nothing was mapped).
    fn map_node(&mut self, i: u32, bytes: usize) -> Result<Option<u32>, AllocError> {
        let n = self.nodes[i as usize];
        let page = page_size(n.pool);
        let len = bytes.div_ceil(page) * page;
        let addr = n.base + n.offset as u64;
        for k in 0..len / page {
            if let Err(e) = self.source.map(addr + (k * page) as u64, page) {
                for j in 0..k {
                    self.source.unmap(addr + (j * page) as u64, page);
                }
                return none_if_out_of_memory(Err(e));
            }
        }
        self.unmapped.remove(&(n.pool, n.lane(), addr, i));
        if len < n.size {
            let rest = self.insert_after(
                i,
                Node {
                    offset: n.offset + len,
                    size: n.size - len,
                    ..n
                },
            );
            self.unmapped
                .insert((n.pool, n.lane(), addr + len as u64, rest));
        }
        let m = &mut self.nodes[i as usize];
        m.size = len;
        m.mapped = true;
        let at = self.merge_neighbours(i);
        self.index_insert(at);
        let st = &mut self.stats;
        st.reserved_bytes.increase(n.pool, len as u64);
        st.num_device_alloc += 1;
        self.record(Action::SegmentMap, addr, len, n.stream);
        Ok(Some(at))
    }

    /// Merges free block `i` with the free blocks beside it that are mapped
    /// as it is (taking them out of their index); the merged block.
    fn merge_neighbours(&mut self, i: u32) -> u32 {
        let mut at = i;
        for side in [self.nodes[i as usize].next, self.nodes[i as usize].prev] {
            let Some(&m) = self.nodes.get(side as usize) else {
                continue;
            };
            if m.state != BlockState::Free || m.mapped != self.nodes[at as usize].mapped {
                continue;
            }
            if m.mapped {
                self.index_remove(side);
            } else {
                self.unmapped
                    .remove(&(m.pool, m.lane(), m.base + m.offset as u64, side));
            }
            let (lo, hi) = if m.offset < self.nodes[at as usize].offset {
                (side, at)
            } else {
                (at, side)
            };
            let h = self.nodes[hi as usize];
            let l = &mut self.nodes[lo as usize];
            l.size += h.size;
            l.next = h.next;
            if h.next != NIL {
                self.nodes[h.next as usize].prev = lo;
            }
            self.spare.push(hi);
            at = lo;
        }
        at
    }

    /// PyTorch's `unmap_block`: gives the whole pages inside free block `i`
    /// back to the device, keeping what lies before and after them as free
    /// blocks; an address space left with nothing mapped goes back too.
    /// The bytes unmapped.
    fn unmap_free(&mut self, i: u32) -> usize {
        let n = self.nodes[i as usize];
        let page = page_size(n.pool);
        let begin = n.offset.div_ceil(page) * page;
        let end = (n.offset + n.size) / page * page;
        if begin >= end {
            return 0;
        }
        self.index_remove(i);
        if begin > n.offset {
            let size = begin - n.offset;
            let before = self.insert_before(i, Node { size, ..n });
            self.index_insert(before);
        }
        if end < n.offset + n.size {
            let size = n.offset + n.size - end;
            let after = self.insert_after(
                i,
                Node {
                    offset: end,
                    size,
                    ..n
                },
            );
            self.index_insert(after);
        }
        let m = &mut self.nodes[i as usize];
        m.offset = begin;
        m.size = end - begin;
        m.mapped = false;
        let addr = n.base + begin as u64;
        for k in 0..(end - begin) / page {
            self.source.unmap(addr + (k * page) as u64, page);
        }
        let at = self.merge_neighbours(i);
        let u = self.nodes[at as usize];
        self.unmapped
            .insert((u.pool, u.lane(), u.base + u.offset as u64, at));
        let st = &mut self.stats;
        st.reserved_bytes.decrease(n.pool, (end - begin) as u64);
        st.num_device_free += 1;
        self.record(Action::SegmentUnmap, addr, end - begin, n.stream);
        if u.prev == NIL && u.next == NIL {
            // PyTorch's `release_expandable_segment`.
            self.unmapped
                .remove(&(u.pool, u.lane(), u.base + u.offset as u64, at));
            self.segments.remove(&u.segment);
            self.spare.push(at);
            self.source.release_address(u.base, u.size);
        }
        end - begin
    }

    /// `empty_cache()`'s part for expandable segments: every free block's
    /// whole pages are unmapped, the large pool's first. The bytes unmapped.
    pub(super) fn unmap_free_pages(&mut self) -> usize {
        let mut unmapped = 0;
        for pool in [Pool::Large, Pool::Small] {
            let free: Vec<u32> = self
                .expandable_free
                .iter()
                .filter(|k| k.0 == pool && self.releasable(k.1 .0))
                .map(|k| k.3)
                .collect();
            for i in free {
                unmapped += self.unmap_free(i);
            }
        }
        unmapped
    }

    /// The streams whose expandable segments `empty_cache()` would unmap
    /// pages of: PyTorch waits for each such stream before unmapping (an
    /// unmap, unlike `cudaFree`, does not wait for the GPU).
    pub fn streams_to_unmap(&self) -> Vec<StreamId> {
        let mut streams: Vec<StreamId> = self
            .expandable_free
            .iter()
            .filter(|&&(pool, (owner, _), _, i)| {
                if !self.releasable(owner) {
                    return false;
                }
                let n = &self.nodes[i as usize];
                let page = page_size(pool);
                n.offset.div_ceil(page) * page < (n.offset + n.size) / page * page
            })
            .map(|k| k.1 .1)
            .collect();
        streams.sort_unstable();
        streams.dedup();
        streams
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AllocatorConfig, CachingAllocator, Capacity};
    use super::*;

    const MIB: usize = 1 << 20;

    fn expandable(total: usize) -> CachingAllocator<Capacity> {
        let mut a = CachingAllocator::new(Capacity::new(total));
        let mut config = AllocatorConfig::default();
        config.parse("expandable_segments:True").unwrap();
        a.set_config(config);
        a
    }

    fn reserved(a: &CachingAllocator<Capacity>) -> usize {
        a.stats().reserved_bytes.all.current as usize
    }

    #[test]
    fn a_segment_grows_by_pages() {
        let mut a = expandable(1 << 30);
        let x = a.malloc(30 * MIB, 0).unwrap();
        assert_eq!(reserved(&a), 40 * MIB, "two 20 MiB pages");
        let y = a.malloc(5 * MIB, 0).unwrap();
        assert_eq!(reserved(&a), 40 * MIB, "the 10 MiB left of the second page");
        let z = a.malloc(8 * MIB, 0).unwrap();
        assert_eq!(reserved(&a), 60 * MIB, "a third page, right after");
        assert_eq!(a.address(&z), a.address(&y).map(|p| p + 5 * MIB as u64));
        let views: Vec<Segment> = a.segments().collect();
        assert_eq!(views.len(), 1, "one mapped stretch");
        assert_eq!((views[0].size, views[0].expandable), (60 * MIB, true));
        assert_eq!(
            a.stats().segment.all.current,
            0,
            "PyTorch counts no segment"
        );
        assert_eq!(a.stats().num_device_alloc, 2);
        a.check().unwrap();
        for b in [x, y, z] {
            a.free(b);
        }
        a.check().unwrap();
        assert_eq!(a.empty_cache(), 60 * MIB);
        assert_eq!(reserved(&a), 0);
        assert_eq!(a.segments().count(), 0, "the address space went back");
        a.check().unwrap();
    }

    #[test]
    fn empty_cache_unmaps_only_whole_free_pages() {
        let mut a = expandable(1 << 30);
        let x = a.malloc(15 * MIB, 0).unwrap();
        let y = a.malloc(15 * MIB, 0).unwrap();
        let z = a.malloc(15 * MIB, 0).unwrap();
        assert_eq!(reserved(&a), 60 * MIB);
        a.free(y);
        // y covers 15..30 MiB: no whole 20 MiB page.
        assert_eq!(a.empty_cache(), 0);
        a.free(x);
        // 0..30 MiB is free: the first page goes, 20..30 stays mapped.
        assert_eq!(a.empty_cache(), 20 * MIB);
        assert_eq!(reserved(&a), 40 * MIB);
        let views: Vec<usize> = a.segments().map(|s| s.size).collect();
        assert_eq!(views, [40 * MIB]);
        a.check().unwrap();
        // The hole is mapped again first: the lowest address that fits.
        let w = a.malloc(25 * MIB, 0).unwrap();
        assert_eq!(a.address(&w), a.address(&x));
        assert_eq!(reserved(&a), 60 * MIB);
        a.free(z);
        a.free(w);
        a.check().unwrap();
    }

    #[test]
    fn out_of_memory_unmaps_the_cache_and_retries() {
        let mut a = expandable(100 * MIB);
        let x = a.malloc(50 * MIB, 0).unwrap();
        assert_eq!(reserved(&a), 60 * MIB);
        a.free(x);
        // Another stream cannot use stream 0's pages until they are unmapped.
        let y = a.malloc(70 * MIB, 1).unwrap();
        assert_eq!(a.stats().num_alloc_retries, 1);
        assert_eq!(reserved(&a), 80 * MIB);
        assert!(a.malloc(40 * MIB, 1).is_err(), "100 MiB holds five pages");
        a.free(y);
        a.check().unwrap();
    }
}
