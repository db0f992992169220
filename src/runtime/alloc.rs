//! The caching device allocator, with PyTorch's rules: sizes round up to 512 B;
//! requests up to 1 MiB come from 2 MiB segments (small pool), 1–10 MiB from
//! 20 MiB segments, larger ones get segments rounded up to 2 MiB (large pool);
//! blocks split and merge; a free block is reused only by the stream that
//! allocated it. Segments come from a `SegmentSource` (the sim or CUDA backend).
//! When a segment cannot be had, the cache is released and the request retried
//! once before it fails with the figures an out-of-memory message needs.

use std::collections::{BTreeMap, BTreeSet};

pub const MIN_BLOCK: usize = 512;
pub const SMALL_SIZE: usize = 1 << 20;
pub const SMALL_SEGMENT: usize = 2 << 20;
pub const LARGE_SEGMENT: usize = 20 << 20;
pub const MIN_LARGE_ALLOC: usize = 10 << 20;
pub const ROUND_LARGE: usize = 2 << 20;

/// Where segments come from: `cudaMalloc` on a real GPU, a capacity counter on the simulator.
pub trait SegmentSource {
    /// Reserves `bytes` of device memory, or `None` when the device cannot provide them.
    fn reserve(&mut self, bytes: usize) -> Option<u64>;
    fn release(&mut self, handle: u64, bytes: usize);
    /// Total device memory.
    fn capacity(&self) -> usize;
    /// Memory the device has left (what `cudaMemGetInfo` reports as free).
    fn free(&self) -> usize;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pool {
    Small,
    Large,
}

/// A stream, by index on its device (0 is the default stream).
pub type StreamId = u32;

/// An allocated block: where it is and how big.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block {
    pub segment: u64,
    pub offset: usize,
    pub size: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Allocated { requested: usize },
}

#[derive(Debug, Clone)]
pub struct Segment {
    pub id: u64,
    pub handle: u64,
    pub size: usize,
    pub pool: Pool,
    pub stream: StreamId,
    /// Blocks by offset; they tile the segment exactly.
    pub blocks: BTreeMap<usize, (usize, BlockState)>,
}

/// A statistic's current and peak value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat {
    pub current: u64,
    pub peak: u64,
}

impl Stat {
    pub(crate) fn add(&mut self, n: u64) {
        self.current += n;
        self.peak = self.peak.max(self.current);
    }
    pub(crate) fn sub(&mut self, n: u64) {
        self.current -= n;
    }
    fn reset_peak(&mut self) {
        self.peak = self.current;
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes in blocks handed out (rounded sizes).
    pub allocated: Stat,
    /// Bytes in blocks in use, including blocks freed but still awaiting a stream.
    pub active: Stat,
    /// Bytes of segments held from the device.
    pub reserved: Stat,
    /// Bytes asked for (before rounding).
    pub requested: Stat,
    /// Blocks handed out.
    pub allocations: Stat,
    pub segments: Stat,
    pub small_segments: Stat,
    pub large_segments: Stat,
    /// Allocations ever made / segments ever reserved.
    pub total_allocations: u64,
    pub total_segments: u64,
    pub num_ooms: u64,
    pub num_alloc_retries: u64,
}

/// Why an allocation failed, with the figures for the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfMemory {
    pub requested: usize,
    pub capacity: usize,
    pub free: usize,
    pub allocated: usize,
    pub reserved: usize,
}

pub struct CachingAllocator<S: SegmentSource> {
    source: S,
    segments: BTreeMap<u64, Segment>,
    /// Free blocks ordered for best fit: (pool, stream, size, segment, offset).
    free: BTreeSet<(Pool, StreamId, usize, u64, usize)>,
    next_segment: u64,
    stats: Stats,
}

/// 512-byte granularity; at least one granule.
pub fn round_size(size: usize) -> usize {
    if size < MIN_BLOCK {
        MIN_BLOCK
    } else {
        size.div_ceil(MIN_BLOCK).saturating_mul(MIN_BLOCK)
    }
}

pub fn pool_for(size: usize) -> Pool {
    if size <= SMALL_SIZE {
        Pool::Small
    } else {
        Pool::Large
    }
}

/// The segment size reserved for a rounded request.
pub fn segment_size(size: usize) -> usize {
    if size <= SMALL_SIZE {
        SMALL_SEGMENT
    } else if size < MIN_LARGE_ALLOC {
        LARGE_SEGMENT
    } else {
        size.div_ceil(ROUND_LARGE).saturating_mul(ROUND_LARGE)
    }
}

impl<S: SegmentSource> CachingAllocator<S> {
    pub fn new(source: S) -> Self {
        CachingAllocator {
            source,
            segments: BTreeMap::new(),
            free: BTreeSet::new(),
            next_segment: 0,
            stats: Stats::default(),
        }
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn source(&self) -> &S {
        &self.source
    }

    pub fn segments(&self) -> impl Iterator<Item = &Segment> {
        self.segments.values()
    }

    /// Allocates `size` bytes for use on `stream`.
    pub fn malloc(&mut self, size: usize, stream: StreamId) -> Result<Block, OutOfMemory> {
        let rounded = round_size(size);
        let pool = pool_for(rounded);
        let found = self
            .free
            .range((pool, stream, rounded, 0, 0)..=(pool, stream, usize::MAX, u64::MAX, usize::MAX))
            .next()
            .copied();
        let (seg, offset, bsize) = match found {
            Some(key @ (_, _, bsize, seg, offset)) => {
                self.free.remove(&key);
                (seg, offset, bsize)
            }
            None => {
                let seg_size = segment_size(rounded);
                let seg = match self.new_segment(seg_size, pool, stream) {
                    Some(seg) => seg,
                    None => {
                        // Free the cache and try once more, as PyTorch does.
                        self.stats.num_alloc_retries += 1;
                        self.empty_cache();
                        match self.new_segment(seg_size, pool, stream) {
                            Some(seg) => seg,
                            None => {
                                self.stats.num_ooms += 1;
                                return Err(OutOfMemory {
                                    requested: size,
                                    capacity: self.source.capacity(),
                                    free: self.source.free(),
                                    allocated: self.stats.allocated.current as usize,
                                    reserved: self.stats.reserved.current as usize,
                                });
                            }
                        }
                    }
                };
                (seg, 0, seg_size)
            }
        };
        let segment = self
            .segments
            .get_mut(&seg)
            .expect("free blocks belong to live segments");
        let remaining = bsize - rounded;
        let split = match pool {
            Pool::Small => remaining >= MIN_BLOCK,
            Pool::Large => remaining > SMALL_SIZE,
        };
        let taken = if split { rounded } else { bsize };
        segment
            .blocks
            .insert(offset, (taken, BlockState::Allocated { requested: size }));
        if split {
            segment
                .blocks
                .insert(offset + rounded, (remaining, BlockState::Free));
            self.free
                .insert((pool, stream, remaining, seg, offset + rounded));
        }
        let st = &mut self.stats;
        st.allocated.add(taken as u64);
        st.active.add(taken as u64);
        st.requested.add(size as u64);
        st.allocations.add(1);
        st.total_allocations += 1;
        Ok(Block {
            segment: seg,
            offset,
            size: taken,
        })
    }

    fn new_segment(&mut self, size: usize, pool: Pool, stream: StreamId) -> Option<u64> {
        let handle = self.source.reserve(size)?;
        let id = self.next_segment;
        self.next_segment += 1;
        let mut blocks = BTreeMap::new();
        blocks.insert(0, (size, BlockState::Free));
        self.segments.insert(
            id,
            Segment {
                id,
                handle,
                size,
                pool,
                stream,
                blocks,
            },
        );
        let st = &mut self.stats;
        st.reserved.add(size as u64);
        st.segments.add(1);
        st.total_segments += 1;
        match pool {
            Pool::Small => st.small_segments.add(1),
            Pool::Large => st.large_segments.add(1),
        }
        Some(id)
    }

    /// Returns a block to the cache, merging it with free neighbours.
    pub fn free(&mut self, block: Block) {
        let Some(segment) = self.segments.get_mut(&block.segment) else {
            return;
        };
        let requested = match segment.blocks.get(&block.offset) {
            Some(&(_, BlockState::Allocated { requested })) => requested,
            _ => return,
        };
        let (pool, stream) = (segment.pool, segment.stream);
        let (mut offset, mut size) = (block.offset, block.size);
        // Merge with the next block if it is free.
        if let Some(&(nsize, BlockState::Free)) = segment.blocks.get(&(offset + size)) {
            segment.blocks.remove(&(offset + size));
            self.free
                .remove(&(pool, stream, nsize, block.segment, offset + size));
            size += nsize;
        }
        // Merge with the previous block if it is free.
        if let Some((&poff, &(psize, BlockState::Free))) =
            segment.blocks.range(..offset).next_back()
        {
            segment.blocks.remove(&offset);
            self.free
                .remove(&(pool, stream, psize, block.segment, poff));
            offset = poff;
            size += psize;
        }
        segment.blocks.insert(offset, (size, BlockState::Free));
        self.free
            .insert((pool, stream, size, block.segment, offset));
        let st = &mut self.stats;
        st.allocated.sub(block.size as u64);
        st.active.sub(block.size as u64);
        st.requested.sub(requested as u64);
        st.allocations.sub(1);
    }

    /// Releases every segment that is entirely free back to the device.
    pub fn empty_cache(&mut self) -> usize {
        let idle: Vec<u64> = self
            .segments
            .values()
            .filter(|s| {
                s.blocks.len() == 1 && matches!(s.blocks.get(&0), Some((_, BlockState::Free)))
            })
            .map(|s| s.id)
            .collect();
        let mut released = 0;
        for id in idle {
            if let Some(s) = self.segments.remove(&id) {
                self.free.remove(&(s.pool, s.stream, s.size, id, 0));
                self.source.release(s.handle, s.size);
                released += s.size;
                let st = &mut self.stats;
                st.reserved.sub(s.size as u64);
                st.segments.sub(1);
                match s.pool {
                    Pool::Small => st.small_segments.sub(1),
                    Pool::Large => st.large_segments.sub(1),
                }
            }
        }
        released
    }

    pub fn reset_peak(&mut self) {
        let st = &mut self.stats;
        for s in [
            &mut st.allocated,
            &mut st.active,
            &mut st.reserved,
            &mut st.requested,
            &mut st.allocations,
            &mut st.segments,
            &mut st.small_segments,
            &mut st.large_segments,
        ] {
            s.reset_peak();
        }
    }

    /// Checks the invariants: blocks tile each segment, the free index matches the
    /// blocks, and the stats equal a recount. Returns what is wrong, if anything.
    pub fn check(&self) -> Result<(), String> {
        let (mut allocated, mut requested, mut count, mut reserved) = (0u64, 0u64, 0u64, 0u64);
        let mut free_keys = BTreeSet::new();
        for s in self.segments.values() {
            reserved += s.size as u64;
            let mut at = 0;
            let mut prev_free = false;
            for (&off, &(size, state)) in &s.blocks {
                if off != at {
                    return Err(format!(
                        "segment {}: gap or overlap at offset {off} (expected {at})",
                        s.id
                    ));
                }
                at += size;
                match state {
                    BlockState::Free => {
                        if prev_free {
                            return Err(format!(
                                "segment {}: two adjacent free blocks at {off}",
                                s.id
                            ));
                        }
                        free_keys.insert((s.pool, s.stream, size, s.id, off));
                        prev_free = true;
                    }
                    BlockState::Allocated { requested: r } => {
                        allocated += size as u64;
                        requested += r as u64;
                        count += 1;
                        prev_free = false;
                    }
                }
            }
            if at != s.size {
                return Err(format!(
                    "segment {}: blocks cover {at} of {} bytes",
                    s.id, s.size
                ));
            }
        }
        if free_keys != self.free {
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
}

/// A device whose memory is a number: what the simulator uses.
#[derive(Debug, Clone)]
pub struct Capacity {
    pub total: usize,
    pub used: usize,
    next: u64,
}

impl Capacity {
    pub fn new(total: usize) -> Self {
        Capacity {
            total,
            used: 0,
            next: 0,
        }
    }
}

impl SegmentSource for Capacity {
    fn reserve(&mut self, bytes: usize) -> Option<u64> {
        if self.used.checked_add(bytes)? > self.total {
            return None;
        }
        self.used += bytes;
        self.next += 1;
        Some(self.next)
    }
    fn release(&mut self, _handle: u64, bytes: usize) {
        self.used -= bytes;
    }
    fn capacity(&self) -> usize {
        self.total
    }
    fn free(&self) -> usize {
        self.total - self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alloc(gib: usize) -> CachingAllocator<Capacity> {
        CachingAllocator::new(Capacity::new(gib << 30))
    }

    #[test]
    fn pytorch_rule_figures() {
        let mut a = alloc(16);
        let b = a.malloc(200_000, 0).unwrap();
        assert_eq!(b.size, 200_192);
        assert_eq!(a.stats().allocated.current, 200_192);
        assert_eq!(a.stats().reserved.current, 2 << 20);
        let c = a.malloc(5 << 20, 0).unwrap();
        assert_eq!(a.stats().reserved.current, (2 << 20) + (20 << 20));
        // 10 MiB + 1 fits in the 15 MiB left of the 20 MiB segment.
        let d = a.malloc((10 << 20) + 1, 0).unwrap();
        assert_eq!(a.stats().reserved.current, (2 << 20) + (20 << 20));
        let mut fresh = alloc(16);
        fresh.malloc((10 << 20) + 1, 0).unwrap();
        assert_eq!(
            fresh.stats().reserved.current,
            12 << 20,
            "larger requests round to 2 MiB"
        );
        assert_eq!(a.malloc(1, 0).unwrap().size, 512);
        for blk in [b, c, d] {
            a.free(blk);
        }
        a.check().unwrap();
    }

    #[test]
    fn free_blocks_are_reused_and_merged() {
        let mut a = alloc(1);
        let x = a.malloc(1000, 0).unwrap();
        let y = a.malloc(1000, 0).unwrap();
        assert_eq!(
            (x.segment, y.segment),
            (0, 0),
            "both come from the first small segment"
        );
        a.free(x);
        a.free(y);
        a.check().unwrap();
        let seg = a.segments().next().unwrap();
        assert_eq!(seg.blocks.len(), 1, "the frees merged back into one block");
        assert_eq!(
            a.stats().reserved.current,
            2 << 20,
            "the segment stays cached"
        );
        assert_eq!(a.empty_cache(), 2 << 20);
        assert_eq!(a.stats().reserved.current, 0);
    }

    #[test]
    fn blocks_are_per_stream() {
        let mut a = alloc(1);
        let x = a.malloc(1000, 0).unwrap();
        a.free(x);
        let y = a.malloc(1000, 1).unwrap();
        assert_ne!(
            x.segment, y.segment,
            "stream 1 cannot take stream 0's cached block"
        );
        a.check().unwrap();
    }

    #[test]
    fn out_of_memory_frees_the_cache_and_retries_first() {
        let mut a = CachingAllocator::new(Capacity::new(40 << 20));
        let x = a.malloc(15 << 20, 0).unwrap();
        let y = a.malloc(15 << 20, 0).unwrap();
        a.free(x);
        // 30 MiB reserved (two 16 MiB... rounded segments), one cached: a third needs the cache released.
        let z = a.malloc(20 << 20, 0).unwrap();
        assert_eq!(a.stats().num_alloc_retries, 1);
        let err = a.malloc(30 << 20, 0).unwrap_err();
        assert_eq!(err.requested, 30 << 20);
        assert_eq!(a.stats().num_ooms, 1);
        a.free(y);
        a.free(z);
        a.check().unwrap();
    }
}
