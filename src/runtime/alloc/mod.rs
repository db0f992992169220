//! The caching device allocator, with PyTorch's rules: sizes round up to 512 B;
//! requests up to 1 MiB come from 2 MiB segments (small pool), those over 1 MiB
//! and under 10 MiB from 20 MiB segments, larger ones get segments rounded up
//! to 2 MiB (large pool);
//! blocks split and merge; a free block is reused only by the stream that
//! allocated it. Segments come from a `SegmentSource` (the sim or CUDA backend).
//! When a segment cannot be had, the cache is released and the request retried
//! once before it fails with the figures an out-of-memory message needs.
//! With `expandable_segments:True` a pool's memory is one segment per stream
//! that grows page by page instead (`expandable.rs`).
//! Every change is recorded in the allocator's history (`history.rs`).

mod bins;
mod capacity;
mod check;
pub mod config;
mod expandable;
pub mod history;
mod stats;

use bins::Bins;
pub use capacity::Capacity;
pub use config::AllocatorConfig;
use history::{Action, Frame, History};
pub use stats::{Stat, StatArray, Stats};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub const MIN_BLOCK: usize = 512;
pub const SMALL_SIZE: usize = 1 << 20;
pub const SMALL_SEGMENT: usize = 2 << 20;
pub const LARGE_SEGMENT: usize = 20 << 20;
pub const MIN_LARGE_ALLOC: usize = 10 << 20;
pub const ROUND_LARGE: usize = 2 << 20;

/// Why a segment could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentError {
    /// The device has too little free memory: the allocator releases its
    /// cache and tries once more.
    OutOfMemory,
    /// Anything else the driver refused (a sticky error, a bad context): no
    /// retry, and the user sees the driver's reason, not an out-of-memory one.
    Failed(String),
    /// The device's kernel failed an assertion earlier (`CUDA_ERROR_ASSERT`):
    /// nothing runs there any more.
    Assert,
}

/// Where segments come from: `cudaMalloc` on a real GPU, a capacity counter on the simulator.
pub trait SegmentSource {
    /// Reserves `bytes` of device memory; the handle is its address on a GPU.
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError>;
    fn release(&mut self, handle: u64, bytes: usize);
    /// Total device memory.
    fn capacity(&self) -> usize;
    /// Memory the device has left (what `cudaMemGetInfo` reports as free);
    /// None where the device cannot say (its context was lost to a
    /// device-side assert, and `cudaMemGetInfo` fails).
    fn free(&self) -> Option<usize>;
    /// The memory this process holds on the device, as NVML reports it
    /// for the out-of-memory message (None where it cannot be asked).
    fn process_memory(&self) -> Option<usize> {
        None
    }

    // Expandable segments: address space first, memory behind it page by page.
    /// Reserves `bytes` of address space with no memory behind it
    /// (`cuMemAddressReserve`); its start.
    fn reserve_address(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        let _ = bytes;
        Err(SegmentError::Failed(NO_VMM.into()))
    }
    /// Puts new device memory behind `addr..addr+bytes` of reserved address
    /// space, one page (`cuMemCreate`, `cuMemMap`, `cuMemSetAccess`).
    fn map(&mut self, addr: u64, bytes: usize) -> Result<(), SegmentError> {
        let _ = (addr, bytes);
        Err(SegmentError::Failed(NO_VMM.into()))
    }
    /// Gives back the page `map` put at `addr` (`cuMemUnmap`, `cuMemRelease`).
    fn unmap(&mut self, addr: u64, bytes: usize) {
        let _ = (addr, bytes);
    }
    /// Gives back address space `reserve_address` gave, nothing mapped in it
    /// any more (`cuMemAddressFree`).
    fn release_address(&mut self, addr: u64, bytes: usize) {
        let _ = (addr, bytes);
    }
}

const NO_VMM: &str = "this device has no virtual memory management for expandable segments";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pool {
    Small,
    Large,
}

/// A stream, by index on its device (0 is the default stream).
pub type StreamId = u32;

/// A memory pool's id, as PyTorch's `MempoolId_t`: (0, 0) for the
/// ordinary pools; a CUDA graph's private pool is (n, 0), one from
/// `graph_pool_handle()` or a `MemPool` (0, n).
pub type MempoolId = (u64, u64);

/// Whose free blocks a block joins: the ordinary pools' (owner 0) or a
/// private pool's (its owner number), and of which stream. A block is
/// reused only in its own lane.
type Lane = (u32, StreamId);

/// An allocated block: where it is and how big.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block {
    node: u32,
    pub segment: u64,
    pub offset: usize,
    pub size: usize,
    /// The stream it was allocated for: its own work needs no extra ordering.
    pub stream: StreamId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Allocated {
        requested: usize,
    },
    /// Freed by its tensor, but another stream may still use it: it returns to
    /// the cache when that stream's work is done (`record_stream`).
    Waiting {
        requested: usize,
    },
}

/// A segment as users see it: memory from one `cudaMalloc`, or one mapped
/// stretch of an expandable segment (as PyTorch's snapshot reports them).
#[derive(Debug, Clone)]
pub struct Segment {
    pub id: u64,
    /// Its address.
    pub handle: u64,
    pub size: usize,
    pub pool: Pool,
    pub stream: StreamId,
    /// The statement that made it.
    pub frame: Frame,
    /// Part of an expandable segment (`expandable_segments:True`).
    pub expandable: bool,
    /// The private pool it belongs to (a CUDA graph's, a `MemPool`'s), or
    /// (0, 0): PyTorch's `segment_pool_id`.
    pub pool_id: MempoolId,
    /// Its private pool's owner number (0: the ordinary pools).
    owner: u32,
    /// The first block (lowest offset); blocks link to their neighbours.
    first: u32,
    /// Where it starts in the address space its blocks' offsets count
    /// from: 0 but for a mapped stretch of an expandable segment.
    start: usize,
}

impl Segment {
    /// The offset a `Block` has that lies `off` bytes into this segment: the
    /// same, but in a mapped stretch of an expandable segment, whose blocks
    /// count from the start of its address space.
    pub fn block_offset(&self, off: usize) -> usize {
        self.start + off
    }
}

/// A block in the slab: blocks of a segment form a doubly linked list by offset.
#[derive(Debug, Clone, Copy)]
struct Node {
    segment: u64,
    /// Its segment's address (`Segment::handle`): the history records
    /// addresses without looking the segment up.
    base: u64,
    offset: usize,
    size: usize,
    state: BlockState,
    prev: u32,
    next: u32,
    pool: Pool,
    stream: StreamId,
    /// The private pool it belongs to (0: the ordinary pools).
    owner: u32,
    /// Position in its size bin while free in the small pool.
    bin_pos: u32,
    /// The statement that allocated it (while it is in use).
    frame: Frame,
    /// Its pool's count of searches when it became free (PyTorch's
    /// `gc_count_base`): how long it has waited, for garbage collection.
    gc_base: u64,
    /// In an expandable segment.
    expandable: bool,
    /// Memory is behind it: false only for an expandable segment's
    /// address space not mapped (such a node's state is `Free`).
    mapped: bool,
}

const NIL: u32 = u32::MAX;

impl Node {
    /// PyTorch's `is_split`: the block shares its segment with others (so a
    /// free one cannot go back to the device).
    fn is_split(&self) -> bool {
        self.prev != NIL || self.next != NIL
    }

    fn lane(&self) -> Lane {
        (self.owner, self.stream)
    }
}

/// A private memory pool (PyTorch's `PrivatePool`): the memory CUDA graph
/// captures (or a `MemPool`'s users) allocate. Its blocks are reused only
/// by allocations routed to it, and its segments stay reserved while
/// anything uses it, whatever `empty_cache()` is asked.
#[derive(Debug, Clone)]
struct PrivatePool {
    id: MempoolId,
    /// The graphs (and `MemPool`s, and `use_mem_pool` blocks) using it.
    use_count: u32,
}

/// Why an allocation failed, with the figures for the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfMemory {
    pub requested: usize,
    /// The segment an ordinary request of this size gets: what PyTorch's
    /// message says it tried to allocate.
    pub segment: usize,
    pub capacity: usize,
    pub free: usize,
    pub allocated: usize,
    pub reserved: usize,
    /// Free bytes cached in private pools (PyTorch counts them allocated).
    pub private: usize,
    /// `set_per_process_memory_fraction`'s limit, when one is set.
    pub allowed: Option<usize>,
    /// What this process holds on the device, as NVML tells PyTorch.
    pub process: Option<usize>,
    /// Whether expandable segments are on (the message ends otherwise).
    pub expandable: bool,
}

/// A failed allocation: out of memory (after the cache was released and the
/// request tried again), or a device failure that is not about memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllocError {
    OutOfMemory(OutOfMemory),
    Failed(String),
    Assert,
}

impl AllocError {
    /// The error a user reads, for `device`.
    pub fn to_error(&self, device: crate::runtime::Device) -> crate::error::Error {
        match self {
            AllocError::OutOfMemory(oom) => crate::error::Error::OutOfMemory {
                device,
                requested: oom.requested,
                segment: oom.segment,
                capacity: oom.capacity,
                free: oom.free,
                allocated: oom.allocated,
                reserved: oom.reserved,
                private: oom.private,
                allowed: oom.allowed,
                process: oom.process,
                expandable: oom.expandable,
            },
            AllocError::Failed(why) => crate::error::Error::Cuda {
                device,
                message: format!("could not allocate device memory: {why}"),
                sticky: false,
            },
            AllocError::Assert => crate::error::Error::DeviceAssert { device },
        }
    }
}

/// A device's caching allocator, whatever its segments come from.
pub type DeviceAllocator = CachingAllocator<Box<dyn SegmentSource + Send>>;

pub struct CachingAllocator<S: SegmentSource> {
    source: S,
    segments: BTreeMap<u64, Segment>,
    nodes: Vec<Node>,
    /// Slab slots free for reuse.
    spare: Vec<u32>,
    /// Free small-pool blocks, per lane.
    small: BTreeMap<Lane, Box<Bins>>,
    /// Free large-pool blocks ordered for best fit: (lane, size, node).
    large: BTreeSet<(Lane, usize, u32)>,
    /// Free mapped blocks of expandable segments, for best fit: (pool,
    /// lane, size, node).
    expandable_free: BTreeSet<(Pool, Lane, usize, u32)>,
    /// Expandable segments' address space with no memory behind it, by
    /// address: (pool, lane, address, node).
    unmapped: BTreeSet<(Pool, Lane, u64, u32)>,
    /// Private pools by owner number (from 1).
    private: BTreeMap<u32, PrivatePool>,
    next_owner: u32,
    /// Where allocations go to a private pool instead (PyTorch's
    /// `captures_underway`): a capturing stream's (Some), or every
    /// stream's (None: `use_mem_pool`).
    routes: Vec<(u32, Option<StreamId>)>,
    next_segment: u64,
    stats: Stats,
    history: History,
    /// Device memory held for reuse outside this allocator and released
    /// whenever an allocation needs it (a driver's temporaries of device
    /// ops, `runtime/scratch.rs`): counted as free, as PyTorch's free
    /// figure has no such memory to count (it makes no such temporaries).
    held_elsewhere: Option<Arc<AtomicUsize>>,
    /// `set_per_process_memory_fraction`: the most bytes its segments may
    /// hold (PyTorch's `allowed_memory_maximum`); none: the whole device.
    allowed: Option<usize>,
    /// `PYTORCH_CUDA_ALLOC_CONF`'s settings.
    config: AllocatorConfig,
    /// Searches of the small and the large pool for a free block, counted
    /// while garbage collection is on (PyTorch's
    /// `get_free_blocks_call_count`).
    searches: [u64; 2],
    /// Whether it ever handed out a block (PyTorch reads
    /// `PYTORCH_CUDA_ALLOC_CONF` once, before that).
    used: bool,
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
        Self::with_history(source, History::default())
    }

    /// An allocator recording into `history` (a session's shares its context).
    pub fn with_history(source: S, history: History) -> Self {
        let mut a = CachingAllocator {
            source,
            segments: BTreeMap::new(),
            nodes: Vec::new(),
            spare: Vec::new(),
            small: BTreeMap::new(),
            large: BTreeSet::new(),
            private: BTreeMap::new(),
            next_owner: 1,
            routes: Vec::new(),
            expandable_free: BTreeSet::new(),
            unmapped: BTreeSet::new(),
            next_segment: 0,
            stats: Stats::default(),
            history,
            held_elsewhere: None,
            allowed: None,
            config: AllocatorConfig::default(),
            searches: [0; 2],
            used: false,
        };
        a.set_config(AllocatorConfig::default());
        a
    }

    /// `PYTORCH_CUDA_ALLOC_CONF`'s settings from now on.
    pub fn set_config(&mut self, config: AllocatorConfig) {
        self.stats.max_split_size = config.max_split_size_stat();
        self.config = config;
    }

    pub fn config(&self) -> &AllocatorConfig {
        &self.config
    }

    /// Whether it ever handed out a block.
    pub fn used(&self) -> bool {
        self.used
    }

    /// `set_per_process_memory_fraction(fraction)`: segments may hold at
    /// most `fraction` of the device's capacity (none past 1).
    pub fn set_memory_fraction(&mut self, fraction: f64) {
        self.allowed =
            (fraction < 1.0).then(|| (fraction * self.source.capacity() as f64) as usize);
    }

    /// Counts `bytes` (kept up to date by their holder) as free memory.
    pub fn count_as_free(&mut self, bytes: Arc<AtomicUsize>) {
        self.held_elsewhere = Some(bytes);
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }

    /// Records `action` on `block`-level or segment-level memory at `addr`.
    fn record(&mut self, action: Action, addr: u64, size: usize, stream: StreamId) {
        let totals = (
            self.stats.allocated_bytes.all.current,
            self.stats.reserved_bytes.all.current,
        );
        self.history
            .record(action, addr, size as u64, stream, totals);
    }

    /// The device address of the block in slab slot `i`.
    fn addr_of(&self, i: u32) -> u64 {
        let n = &self.nodes[i as usize];
        n.base + n.offset as u64
    }

    /// A segment's blocks in address order, with the statement that
    /// allocated each one in use: (offset, size, state, frame).
    pub fn blocks_with_frames(
        &self,
        seg: &Segment,
    ) -> impl Iterator<Item = (usize, usize, BlockState, Frame)> + '_ {
        let (mut at, start) = (seg.first, seg.start);
        std::iter::from_fn(move || {
            let n = self.nodes.get(at as usize).filter(|n| n.mapped)?;
            at = n.next;
            Some((n.offset - start, n.size, n.state, n.frame))
        })
    }

    pub fn source(&self) -> &S {
        &self.source
    }

    /// Memory the device has left: what its driver says, or where it cannot
    /// say, its capacity less what this allocator holds.
    pub fn device_free(&self) -> usize {
        let free = self.source.free().unwrap_or_else(|| {
            self.source
                .capacity()
                .saturating_sub(self.stats.reserved_bytes.all.current as usize)
        });
        let held = self
            .held_elsewhere
            .as_ref()
            .map_or(0, |b| b.load(Ordering::Relaxed));
        free.saturating_add(held).min(self.source.capacity())
    }

    /// The device address of `block`: its segment's handle (a `cuMemAlloc`
    /// address on a real GPU) plus its offset.
    pub fn address(&self, block: &Block) -> Option<u64> {
        let seg = self.segments.get(&block.segment)?;
        Some(seg.handle + block.offset as u64)
    }

    /// Whether `block` lies in an expandable segment.
    pub fn in_expandable_segment(&self, block: &Block) -> bool {
        self.segments
            .get(&block.segment)
            .is_some_and(|s| s.expandable)
    }

    /// How many expandable segments (address spaces) it holds.
    pub fn expandable_segments(&self) -> usize {
        self.segments.values().filter(|s| s.expandable).count()
    }

    /// The segments as users see them: an expandable segment as its
    /// mapped stretches.
    pub fn segments(&self) -> impl Iterator<Item = Segment> + '_ {
        self.segments.values().flat_map(|s| match s.expandable {
            false => vec![s.clone()],
            true => self.mapped_stretches(s),
        })
    }

    /// A segment's blocks in address order: (offset, size, state).
    pub fn blocks(&self, seg: &Segment) -> impl Iterator<Item = (usize, usize, BlockState)> + '_ {
        self.blocks_with_frames(seg)
            .map(|(offset, size, state, _)| (offset, size, state))
    }

    /// Adds free block `i` to the free index.
    fn index_insert(&mut self, i: u32) {
        let n = self.nodes[i as usize];
        self.nodes[i as usize].gc_base = self.searches[n.pool as usize];
        if n.expandable {
            self.expandable_free.insert((n.pool, n.lane(), n.size, i));
            return;
        }
        match n.pool {
            Pool::Large => {
                self.large.insert((n.lane(), n.size, i));
            }
            Pool::Small => {
                let bins = self
                    .small
                    .entry(n.lane())
                    .or_insert_with(|| Box::new(Bins::new()));
                let c = Bins::class(n.size);
                bins.bins[c].push(i);
                bins.bits[c / 64] |= 1 << (c % 64);
                self.nodes[i as usize].bin_pos = (bins.bins[c].len() - 1) as u32;
            }
        }
    }

    /// Removes free block `i` from the free index.
    fn index_remove(&mut self, i: u32) {
        let n = self.nodes[i as usize];
        if n.expandable {
            self.expandable_free.remove(&(n.pool, n.lane(), n.size, i));
            return;
        }
        match n.pool {
            Pool::Large => {
                self.large.remove(&(n.lane(), n.size, i));
            }
            Pool::Small => {
                let Some(bins) = self.small.get_mut(&n.lane()) else {
                    return;
                };
                let c = Bins::class(n.size);
                let bin = &mut bins.bins[c];
                let pos = n.bin_pos as usize;
                bin.swap_remove(pos);
                if let Some(&moved) = bin.get(pos) {
                    self.nodes[moved as usize].bin_pos = pos as u32;
                }
                if bin.is_empty() {
                    bins.bits[c / 64] &= !(1 << (c % 64));
                }
            }
        }
    }

    /// Takes the smallest free block of at least `size` bytes for `stream`
    /// out of the index, as PyTorch's `get_free_block`: with a
    /// `max_split_size`, a request under it is not given a block of that size
    /// or more, and one of that size or more only a block at most
    /// `max_non_split_rounding_size` larger. Expandable segments' free
    /// blocks are candidates while they are on (`expandable_fit`).
    fn best_fit(&mut self, pool: Pool, lane: Lane, size: usize) -> Option<u32> {
        let regular = self.smallest_fit(pool, lane, size);
        let i = match self.config.expandable_segments {
            true => self.expandable_fit(pool, lane, size, regular)?,
            false => regular?,
        };
        let found = self.nodes[i as usize].size;
        let max_split = self.config.max_split_size;
        if size < max_split && found >= max_split {
            return None;
        }
        if size >= max_split && found >= size + self.config.max_non_split_rounding_size {
            return None;
        }
        self.index_remove(i);
        Some(i)
    }

    /// The smallest free block of at least `size` bytes in `lane`.
    fn smallest_fit(&self, pool: Pool, lane: Lane, size: usize) -> Option<u32> {
        Some(match pool {
            Pool::Large => {
                self.large
                    .range((lane, size, 0)..=(lane, usize::MAX, u32::MAX))
                    .next()?
                    .2
            }
            Pool::Small => {
                let bins = self.small.get(&lane)?;
                let c = bins.first_at_least(Bins::class(size))?;
                *bins.bins[c].last()?
            }
        })
    }

    fn node(&mut self, n: Node) -> u32 {
        match self.spare.pop() {
            Some(i) => {
                self.nodes[i as usize] = n;
                i
            }
            None => {
                self.nodes.push(n);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// `n` linked into its segment's list right after node `i`; its slot.
    fn insert_after(&mut self, i: u32, n: Node) -> u32 {
        let next = self.nodes[i as usize].next;
        let new = self.node(Node { prev: i, next, ..n });
        if next != NIL {
            self.nodes[next as usize].prev = new;
        }
        self.nodes[i as usize].next = new;
        new
    }

    /// `n` linked into its segment's list right before node `i`; its slot.
    fn insert_before(&mut self, i: u32, n: Node) -> u32 {
        let prev = self.nodes[i as usize].prev;
        let new = self.node(Node { prev, next: i, ..n });
        if prev != NIL {
            self.nodes[prev as usize].next = new;
        }
        self.nodes[i as usize].prev = new;
        new
    }

    /// Allocates `size` bytes for use on `stream`.
    pub fn malloc(&mut self, size: usize, stream: StreamId) -> Result<Block, AllocError> {
        self.used = true;
        let rounded = self.config.round_size(size);
        let pool = pool_for(rounded);
        let lane = (self.route(stream), stream);
        let collects = self.collects_garbage();
        if collects {
            self.searches[pool as usize] += 1;
        }
        let at = match self.best_fit(pool, lane, rounded) {
            Some(i) => i,
            None => {
                if collects {
                    self.collect_garbage();
                }
                self.grow(size, rounded, pool, lane)?
            }
        };
        let node = self.nodes[at as usize];
        let already_split = node.is_split();
        let remaining = node.size - rounded;
        // Blocks of `max_split_size` or more are handed out whole.
        let split = match pool {
            _ if pool == Pool::Small || self.config.expandable_segments => remaining >= MIN_BLOCK,
            _ => rounded < self.config.max_split_size && remaining > SMALL_SIZE,
        };
        let taken = if split { rounded } else { node.size };
        if split {
            let rest = self.insert_after(
                at,
                Node {
                    offset: node.offset + rounded,
                    size: remaining,
                    ..node
                },
            );
            self.index_insert(rest);
        }
        let frame = self.history.frame();
        let n = &mut self.nodes[at as usize];
        n.size = taken;
        n.state = BlockState::Allocated { requested: size };
        n.frame = frame;
        let st = &mut self.stats;
        // A free block that was split already, or is split now, cannot be
        // given back to the device (PyTorch's `inactive_split`; an
        // expandable segment's free pages can).
        match (split, already_split && !node.expandable) {
            _ if node.expandable => {}
            (true, true) => st.inactive_split_bytes.decrease(pool, taken as u64),
            (true, false) => {
                st.inactive_split_bytes.increase(pool, remaining as u64);
                st.inactive_split.increase(pool, 1);
            }
            (false, true) => {
                st.inactive_split_bytes.decrease(pool, taken as u64);
                st.inactive_split.decrease(pool, 1);
            }
            (false, false) => {}
        }
        st.allocation.increase(pool, 1);
        st.allocated_bytes.increase(pool, taken as u64);
        st.active.increase(pool, 1);
        st.active_bytes.increase(pool, taken as u64);
        st.requested_bytes.increase(pool, size as u64);
        if self.config.is_oversize(taken) {
            st.oversize_allocations.increase(1);
        }
        let addr = self.addr_of(at);
        self.record(Action::Alloc, addr, size, stream);
        Ok(Block {
            node: at,
            segment: node.segment,
            offset: node.offset,
            size: taken,
            stream,
        })
    }

    /// A new segment for a request no cached block fits: on failure the cache is
    /// released and the segment tried once more, as PyTorch does.
    fn grow(
        &mut self,
        size: usize,
        rounded: usize,
        pool: Pool,
        lane: Lane,
    ) -> Result<u32, AllocError> {
        if let Some(n) = self.try_segment(rounded, pool, lane)? {
            return Ok(n);
        }
        if self.release_oversize(pool, lane, rounded) {
            if let Some(n) = self.try_segment(rounded, pool, lane)? {
                return Ok(n);
            }
        }
        // While a capture is under way, PyTorch does not release the
        // cache (its `cudaFree` would wait for the device).
        if self.routes.is_empty() {
            self.stats.num_alloc_retries += 1;
            self.empty_cache();
            if let Some(n) = self.try_segment(rounded, pool, lane)? {
                return Ok(n);
            }
        }
        Err(self.out_of_memory(size, lane.1))
    }

    /// A new segment for a request of `rounded` bytes (or, with expandable
    /// segments, the memory it needs mapped), or None where the device is
    /// out of memory (any other failure is the error).
    fn try_segment(
        &mut self,
        rounded: usize,
        pool: Pool,
        lane: Lane,
    ) -> Result<Option<u32>, AllocError> {
        let size = segment_size(rounded);
        // PyTorch's check before `cudaMalloc` (or mapping, asked for the
        // segment an ordinary request would get): the reserved bytes with
        // the new segment past the allowed fraction fail as out of memory.
        if let Some(max) = self.allowed {
            if self.stats.reserved_bytes.all.current as usize + size > max {
                return Ok(None);
            }
        }
        if self.config.expandable_segments {
            return self.try_expandable(pool, lane, rounded);
        }
        none_if_out_of_memory(self.new_segment(size, pool, lane))
    }

    /// Out of memory for `size` bytes on `stream`, after the cache was
    /// released: counted, recorded in the history and described with the
    /// figures PyTorch's error gives.
    fn out_of_memory(&mut self, size: usize, stream: StreamId) -> AllocError {
        self.stats.num_ooms += 1;
        let free = self.device_free();
        self.record(Action::Oom, free as u64, size, stream);
        AllocError::OutOfMemory(OutOfMemory {
            requested: size,
            segment: segment_size(self.config.round_size(size)),
            capacity: self.source.capacity(),
            free,
            allocated: self.stats.allocated_bytes.all.current as usize,
            reserved: self.stats.reserved_bytes.all.current as usize,
            private: self.private_pool_free(),
            allowed: self.allowed,
            process: self.source.process_memory(),
            expandable: self.config.expandable_segments,
        })
    }

    /// Reserves a segment and returns its single (free, unindexed) block.
    fn new_segment(&mut self, size: usize, pool: Pool, lane: Lane) -> Result<u32, SegmentError> {
        let handle = self.source.reserve(size)?;
        let first = self.add_segment(handle, size, pool, lane, false);
        let st = &mut self.stats;
        st.segment.increase(pool, 1);
        st.reserved_bytes.increase(pool, size as u64);
        st.num_device_alloc += 1;
        if self.config.is_oversize(size) {
            st.oversize_segments.increase(1);
        }
        self.record(Action::SegmentAlloc, handle, size, lane.1);
        Ok(first)
    }

    /// Records a segment at `base` of `size` bytes (an expandable one: its
    /// address space, nothing mapped) as one free block; that block's slot.
    fn add_segment(
        &mut self,
        base: u64,
        size: usize,
        pool: Pool,
        (owner, stream): Lane,
        expandable: bool,
    ) -> u32 {
        let id = self.next_segment;
        self.next_segment += 1;
        let first = self.node(Node {
            segment: id,
            base,
            offset: 0,
            size,
            state: BlockState::Free,
            prev: NIL,
            next: NIL,
            pool,
            stream,
            owner,
            bin_pos: 0,
            frame: Frame::default(),
            gc_base: 0,
            expandable,
            mapped: !expandable,
        });
        let frame = self.history.frame();
        let segment = Segment {
            id,
            handle: base,
            size,
            pool,
            stream,
            frame,
            expandable,
            pool_id: self.pool_id(owner),
            owner,
            first,
            start: 0,
        };
        self.segments.insert(id, segment);
        first
    }

    /// The node of a block handed out earlier, if it still holds that block.
    fn live_node(&self, block: Block) -> Option<Node> {
        let node = *self.nodes.get(block.node as usize)?;
        let held = matches!(
            node.state,
            BlockState::Allocated { .. } | BlockState::Waiting { .. }
        );
        (held && node.segment == block.segment && node.offset == block.offset).then_some(node)
    }

    /// Marks a block freed by its tensor but still used by another stream: it
    /// stops counting as allocated (as in PyTorch) and stays active, and
    /// requested, until `free`.
    pub fn free_later(&mut self, block: Block) {
        let Some(node) = self.live_node(block) else {
            return;
        };
        if let BlockState::Allocated { requested } = node.state {
            self.nodes[block.node as usize].state = BlockState::Waiting { requested };
            self.count_free_requested(node.pool, block.size);
            let addr = node.base + block.offset as u64;
            self.record(Action::FreeRequested, addr, requested, block.stream);
        }
    }

    /// A failed request succeeded once blocks waiting for streams came back:
    /// it was not an out-of-memory error after all.
    pub fn oom_recovered(&mut self) {
        self.stats.num_ooms = self.stats.num_ooms.saturating_sub(1);
    }

    /// Returns a block to the cache, merging it with free neighbours.
    pub fn free(&mut self, block: Block) {
        let at = block.node;
        let Some(node) = self.live_node(block) else {
            return;
        };
        let was_allocated = matches!(node.state, BlockState::Allocated { .. });
        let (BlockState::Allocated { requested } | BlockState::Waiting { requested }) = node.state
        else {
            return;
        };
        let mut merged = node;
        merged.state = BlockState::Free;
        // Free blocks merged into this one stop being inactive splits; what
        // they make is one, if it still shares its segment.
        let (mut splits, mut split_bytes) = (0i64, 0i64);
        // Absorb a free next block.
        if node.next != NIL {
            let next = self.nodes[node.next as usize];
            if next.state == BlockState::Free && next.mapped {
                splits -= 1;
                split_bytes -= next.size as i64;
                self.index_remove(node.next);
                merged.size += next.size;
                merged.next = next.next;
                if next.next != NIL {
                    self.nodes[next.next as usize].prev = at;
                }
                self.spare.push(node.next);
            }
        }
        // Fold into a free previous block.
        let mut keep = at;
        if node.prev != NIL {
            let prev = self.nodes[node.prev as usize];
            if prev.state == BlockState::Free && prev.mapped {
                splits -= 1;
                split_bytes -= prev.size as i64;
                self.index_remove(node.prev);
                merged.offset = prev.offset;
                merged.size += prev.size;
                merged.prev = prev.prev;
                if merged.next != NIL {
                    self.nodes[merged.next as usize].prev = node.prev;
                }
                self.spare.push(at);
                keep = node.prev;
            }
        }
        merged.frame = Frame::default();
        self.nodes[keep as usize] = merged;
        self.index_insert(keep);
        if merged.is_split() {
            splits += 1;
            split_bytes += merged.size as i64;
        }
        let pool = node.pool;
        if was_allocated {
            self.count_free_requested(pool, block.size);
        }
        if node.expandable {
            (splits, split_bytes) = (0, 0);
        }
        let st = &mut self.stats;
        change(&mut st.inactive_split, pool, splits);
        change(&mut st.inactive_split_bytes, pool, split_bytes);
        st.active.decrease(pool, 1);
        st.active_bytes.decrease(pool, block.size as u64);
        st.requested_bytes.decrease(pool, requested as u64);
        // As PyTorch's: a plain free is requested and completed at once; a
        // block held back for a stream (`free_later`) completes now.
        let addr = node.base + block.offset as u64;
        let action = match was_allocated {
            true => Action::Free,
            false => Action::FreeCompleted,
        };
        self.record(action, addr, requested, block.stream);
    }

    /// A block's tensor let it go (PyTorch's `free`, before the block itself
    /// is free): it no longer counts as allocated.
    fn count_free_requested(&mut self, pool: Pool, size: usize) {
        let st = &mut self.stats;
        st.allocation.decrease(pool, 1);
        st.allocated_bytes.decrease(pool, size as u64);
        if self.config.is_oversize(size) {
            st.oversize_allocations.decrease(1);
        }
    }

    /// Releases every segment that is entirely free back to the device
    /// (PyTorch's `release_cached_blocks`, which first waits for the blocks
    /// awaiting streams: the caller has freed those).
    pub fn empty_cache(&mut self) -> usize {
        self.stats.num_sync_all_streams += 1;
        let idle: Vec<u64> = self.idle().collect();
        let released: usize = idle.into_iter().map(|id| self.release_segment(id)).sum();
        let released = released + self.unmap_free_pages();
        // A private pool no one uses, with no memory left, is gone.
        let held: BTreeSet<u32> = self.segments.values().map(|s| s.owner).collect();
        self.private
            .retain(|owner, p| p.use_count > 0 || held.contains(owner));
        released
    }

    /// Whether blocks of `owner` may go back to the device: the ordinary
    /// pools', and a private pool's once nothing uses it (PyTorch's
    /// `graph_pools_freeable`).
    fn releasable(&self, owner: u32) -> bool {
        owner == 0 || self.private.get(&owner).is_none_or(|p| p.use_count == 0)
    }

    /// The ordinary segments entirely free: what `empty_cache()` gives back
    /// with `cudaFree`.
    fn idle(&self) -> impl Iterator<Item = u64> + '_ {
        self.segments
            .values()
            .filter(|s| {
                let n = &self.nodes[s.first as usize];
                !s.expandable
                    && n.state == BlockState::Free
                    && !n.is_split()
                    && self.releasable(s.owner)
            })
            .map(|s| s.id)
    }

    /// How many segments `empty_cache()` would give back with `cudaFree`.
    pub fn idle_segments(&self) -> usize {
        self.idle().count()
    }

    /// Gives an entirely free segment back to the device; its size.
    fn release_segment(&mut self, id: u64) -> usize {
        let Some(s) = self.segments.remove(&id) else {
            return 0;
        };
        self.index_remove(s.first);
        self.spare.push(s.first);
        self.source.release(s.handle, s.size);
        let st = &mut self.stats;
        st.segment.decrease(s.pool, 1);
        st.reserved_bytes.decrease(s.pool, s.size as u64);
        st.num_device_free += 1;
        if self.config.is_oversize(s.size) {
            st.oversize_segments.decrease(1);
        }
        self.record(Action::SegmentFree, s.handle, s.size, s.stream);
        s.size
    }

    /// Whether cached blocks are collected as garbage: a
    /// `garbage_collection_threshold` and a memory fraction both set.
    fn collects_garbage(&self) -> bool {
        self.allowed.is_some() && self.config.garbage_collection_threshold > 0.0
    }

    /// PyTorch's `garbage_collect_cached_blocks`, before a new segment:
    /// while the segments hold more than the threshold's share of the
    /// allowed memory, the free large blocks that are whole segments and
    /// have waited at least as long as their average (in searches of the
    /// pool since they became free) go back to the device, the oldest
    /// first in rounds, until the excess is gone or none is left.
    fn collect_garbage(&mut self) {
        let Some(allowed) = self.allowed else {
            return;
        };
        let limit = (self.config.garbage_collection_threshold * allowed as f64) as u64;
        let reserved = self.stats.reserved_bytes.all.current;
        if reserved <= limit {
            return;
        }
        let target = reserved - limit;
        let now = self.searches[Pool::Large as usize];
        let age = |n: &Node| now.saturating_sub(n.gc_base);
        let freeable = |me: &Self| -> Vec<u32> {
            me.large
                .iter()
                .filter(|&&((owner, _), _, _)| owner == 0)
                .map(|&(_, _, i)| i)
                .filter(|&i| !me.nodes[i as usize].is_split())
                .collect()
        };
        let blocks = freeable(self);
        let mut count = blocks.len() as u64;
        let mut total_age: u64 = blocks.iter().map(|&i| age(&self.nodes[i as usize])).sum();
        let mut reclaimed = 0u64;
        let mut freed_one = true;
        while reclaimed < target && freed_one && count > 0 {
            let threshold = total_age as f64 / count as f64;
            freed_one = false;
            for i in freeable(self) {
                let n = self.nodes[i as usize];
                if age(&n) as f64 >= threshold {
                    freed_one = true;
                    reclaimed += n.size as u64;
                    total_age -= age(&n);
                    count -= 1;
                    self.release_segment(n.segment);
                }
            }
        }
    }

    /// Before the whole cache goes, as PyTorch's
    /// `release_available_cached_blocks`: with a `max_split_size`, the free
    /// oversize blocks of `stream` (each a whole segment) go back to the
    /// device, the smallest that covers the request or else from the
    /// largest down until they do. Whether any went.
    fn release_oversize(&mut self, pool: Pool, lane: Lane, size: usize) -> bool {
        let max_split = self.config.max_split_size;
        if max_split == usize::MAX || pool == Pool::Small {
            return false;
        }
        let want = size.max(max_split);
        let oversize: Vec<(usize, u32)> = self
            .large
            .range((lane, max_split, 0)..=(lane, usize::MAX, u32::MAX))
            .filter(|&&(_, _, i)| !self.nodes[i as usize].is_split())
            .map(|&(_, size, i)| (size, i))
            .collect();
        let segment_of = |me: &Self, i: u32| me.nodes[i as usize].segment;
        if let Some(&(_, i)) = oversize.iter().find(|(s, _)| *s >= want) {
            let id = segment_of(self, i);
            self.release_segment(id);
            return true;
        }
        let mut released = 0;
        for &(_, i) in oversize.iter().rev() {
            if released >= want {
                break;
            }
            let id = segment_of(self, i);
            released += self.release_segment(id);
        }
        released >= want
    }

    /// The private pool allocations on `stream` go to now (0: none).
    fn route(&self, stream: StreamId) -> u32 {
        if self.routes.is_empty() {
            return 0;
        }
        self.routes
            .iter()
            .find(|(_, s)| s.is_none_or(|s| s == stream))
            .map_or(0, |&(owner, _)| owner)
    }

    /// The id of private pool `owner` ((0, 0) for the ordinary pools).
    fn pool_id(&self, owner: u32) -> MempoolId {
        self.private.get(&owner).map_or((0, 0), |p| p.id)
    }

    fn owner_of(&self, id: MempoolId) -> Option<u32> {
        self.private
            .iter()
            .find(|(_, p)| p.id == id)
            .map(|(&owner, _)| owner)
    }

    /// A use of private pool `id` (a new one where it has none): a
    /// capture, or a graph sharing another's pool. Its owner number.
    fn use_pool(&mut self, id: MempoolId) -> u32 {
        if let Some(owner) = self.owner_of(id) {
            if let Some(p) = self.private.get_mut(&owner) {
                p.use_count += 1;
            }
            return owner;
        }
        let owner = self.next_owner;
        self.next_owner += 1;
        self.private.insert(owner, PrivatePool { id, use_count: 1 });
        owner
    }

    /// PyTorch's `beginAllocateToPool`: from now on, allocations on
    /// `stream` (every stream: None) come from private pool `id`, which
    /// this use keeps (a new pool where `id` names none).
    pub fn begin_allocate_to_pool(
        &mut self,
        id: MempoolId,
        stream: Option<StreamId>,
    ) -> Result<(), String> {
        if let Some(owner) = self.owner_of(id) {
            if self.routes.iter().any(|&(o, _)| o == owner) {
                return Err("beginAllocateToPool: already recording to mempool_id".into());
            }
            if self.private[&owner].use_count == 0 {
                return Err(format!(
                    "the memory pool {id:?} is no longer in use by any graph or MemPool: \
                     it cannot be shared"
                ));
            }
        }
        let owner = self.use_pool(id);
        self.routes.push((owner, stream));
        Ok(())
    }

    /// PyTorch's `endAllocateToPool`: allocations stop going to pool `id`.
    pub fn end_allocate_to_pool(&mut self, id: MempoolId) {
        if let Some(owner) = self.owner_of(id) {
            self.routes.retain(|&(o, _)| o != owner);
        }
    }

    /// PyTorch's `releasePool`: a graph (or `MemPool`) no longer uses pool
    /// `id`; with no user left, `empty_cache()` may give its free segments
    /// back.
    pub fn release_pool(&mut self, id: MempoolId) {
        if let Some(owner) = self.owner_of(id) {
            if let Some(p) = self.private.get_mut(&owner) {
                p.use_count = p.use_count.saturating_sub(1);
            }
        }
    }

    /// How many graphs and `MemPool`s use pool `id` (0 for none).
    pub fn pool_use_count(&self, id: MempoolId) -> u32 {
        self.owner_of(id).map_or(0, |o| self.private[&o].use_count)
    }

    /// The bytes of free blocks cached in private pools (what PyTorch's
    /// out-of-memory message counts as allocated in them).
    pub fn private_pool_free(&self) -> usize {
        let mut free = 0;
        for s in self.segments.values().filter(|s| s.owner != 0) {
            let mut at = s.first;
            while let Some(n) = self.nodes.get(at as usize) {
                if n.mapped && n.state == BlockState::Free {
                    free += n.size;
                }
                at = n.next;
            }
        }
        free
    }

    /// `reset_peak_memory_stats()`.
    pub fn reset_peak(&mut self) {
        self.stats.reset_peak();
    }

    /// `reset_accumulated_memory_stats()`.
    pub fn reset_accumulated(&mut self) {
        self.stats.reset_accumulated();
    }
}

/// A segment source's answer as the allocator takes it: out of memory is
/// None (the caller may release its cache and retry), any other failure
/// the error.
fn none_if_out_of_memory<T>(r: Result<T, SegmentError>) -> Result<Option<T>, AllocError> {
    match r {
        Ok(x) => Ok(Some(x)),
        Err(SegmentError::OutOfMemory) => Ok(None),
        Err(SegmentError::Failed(why)) => Err(AllocError::Failed(why)),
        Err(SegmentError::Assert) => Err(AllocError::Assert),
    }
}

/// A statistic moved by `n` (up or down).
fn change(stat: &mut StatArray, pool: Pool, n: i64) {
    match n {
        n if n > 0 => stat.increase(pool, n as u64),
        n if n < 0 => stat.decrease(pool, n.unsigned_abs()),
        _ => {}
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
        assert_eq!(a.stats().allocated_bytes.all.current, 200_192);
        assert_eq!(a.stats().reserved_bytes.all.current, 2 << 20);
        let c = a.malloc(5 << 20, 0).unwrap();
        assert_eq!(a.stats().reserved_bytes.all.current, (2 << 20) + (20 << 20));
        // 10 MiB + 1 fits in the 15 MiB left of the 20 MiB segment.
        let d = a.malloc((10 << 20) + 1, 0).unwrap();
        assert_eq!(a.stats().reserved_bytes.all.current, (2 << 20) + (20 << 20));
        let mut fresh = alloc(16);
        fresh.malloc((10 << 20) + 1, 0).unwrap();
        assert_eq!(
            fresh.stats().reserved_bytes.all.current,
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
        assert_eq!(
            a.blocks(&seg).count(),
            1,
            "the frees merged back into one block"
        );
        assert_eq!(
            a.stats().reserved_bytes.all.current,
            2 << 20,
            "the segment stays cached"
        );
        assert_eq!(a.empty_cache(), 2 << 20);
        assert_eq!(a.stats().reserved_bytes.all.current, 0);
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
        let Err(AllocError::OutOfMemory(err)) = a.malloc(30 << 20, 0) else {
            panic!("30 MiB more than 40 MiB holds is out of memory");
        };
        assert_eq!(err.requested, 30 << 20);
        assert_eq!(
            err.segment,
            30 << 20,
            "PyTorch reports the segment it tried"
        );
        assert_eq!(a.stats().num_ooms, 1);
        a.free(y);
        a.free(z);
        a.check().unwrap();
    }

    /// A source whose device fails for another reason than memory.
    struct Broken;
    impl SegmentSource for Broken {
        fn reserve(&mut self, _bytes: usize) -> Result<u64, SegmentError> {
            Err(SegmentError::Failed("CUDA_ERROR_ILLEGAL_ADDRESS".into()))
        }
        fn release(&mut self, _handle: u64, _bytes: usize) {}
        fn capacity(&self) -> usize {
            1 << 30
        }
        fn free(&self) -> Option<usize> {
            Some(1 << 30)
        }
    }

    #[test]
    fn a_device_failure_is_not_out_of_memory() {
        let mut a = CachingAllocator::new(Broken);
        let err = a.malloc(1000, 0).unwrap_err();
        assert_eq!(err, AllocError::Failed("CUDA_ERROR_ILLEGAL_ADDRESS".into()));
        // No retry after releasing the cache, and no out-of-memory counted.
        assert_eq!(a.stats().num_alloc_retries, 0);
        assert_eq!(a.stats().num_ooms, 0);
        let msg = err.to_error(crate::runtime::Device::Cuda(0)).to_string();
        assert!(
            msg.contains("CUDA error on cuda:0") && msg.contains("ILLEGAL_ADDRESS"),
            "{msg}"
        );
    }

    #[test]
    fn a_block_s_address_is_its_segment_s_handle_plus_its_offset() {
        let mut a = CachingAllocator::new(Capacity::new(40 << 20));
        let x = a.malloc(1000, 0).unwrap();
        let y = a.malloc(1000, 0).unwrap();
        let seg = a.segments().next().unwrap().handle;
        assert_eq!(a.address(&x), Some(seg + x.offset as u64));
        assert_eq!(a.address(&y), Some(seg + 1024));
        assert_eq!(a.address(&Block { segment: 99, ..y }), None);
    }
}
