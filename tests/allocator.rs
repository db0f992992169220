//! The caching allocator's invariants under random use: blocks tile each
//! segment, nothing overlaps, every statistic's current value (per pool,
//! inactive splits included) equals a recount, and everything goes back to
//! the device once freed and `empty_cache()` runs (expandable segments
//! too, turned on and off as it runs); and PyTorch's figures for a few
//! allocations worked out by its rules.

use cudash::runtime::alloc::{AllocatorConfig, Block, CachingAllocator, Capacity};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Alloc {
        size: usize,
        stream: u32,
    },
    Free(usize),
    /// Freed by its tensor while another stream uses it (`record_stream`).
    FreeLater(usize),
    EmptyCache,
    /// `_set_allocator_settings("expandable_segments:...")` mid-run.
    Expandable(bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (prop_oneof![1usize..4096, 4096usize..(2 << 20), (1usize << 20)..(24 << 20)], 0u32..3)
            .prop_map(|(size, stream)| Op::Alloc { size, stream }),
        5 => any::<usize>().prop_map(Op::Free),
        2 => any::<usize>().prop_map(Op::FreeLater),
        1 => Just(Op::EmptyCache),
        1 => any::<bool>().prop_map(Op::Expandable),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn invariants_hold_under_random_use(
        ops in prop::collection::vec(op(), 1..120),
        settings in prop_oneof![
            Just(""),
            Just("max_split_size_mb:21"),
            Just("roundup_power2_divisions:4,max_split_size_mb:22"),
            Just("garbage_collection_threshold:0.3"),
            Just("expandable_segments:True"),
            Just("expandable_segments:True,max_split_size_mb:21"),
        ],
        toggles in any::<bool>(),
    ) {
        let mut a = CachingAllocator::new(Capacity::new(256 << 20));
        let mut config = AllocatorConfig::default();
        config.parse(settings).unwrap();
        if config.garbage_collection_threshold > 0.0 {
            a.set_memory_fraction(0.75);
        }
        a.set_config(config);
        let mut live: Vec<Block> = Vec::new();
        let mut waiting: Vec<Block> = Vec::new();
        for op in ops {
            match op {
                Op::Alloc { size, stream } => {
                    if let Ok(b) = a.malloc(size, stream) {
                        prop_assert!(b.size >= size);
                        // No overlap with any live block.
                        for other in &live {
                            let disjoint = other.segment != b.segment
                                || other.offset + other.size <= b.offset
                                || b.offset + b.size <= other.offset;
                            prop_assert!(disjoint, "{b:?} overlaps {other:?}");
                        }
                        live.push(b);
                    }
                }
                // A free completes a block waiting for a stream first.
                Op::Free(_) if !waiting.is_empty() => a.free(waiting.remove(0)),
                Op::Free(i) if !live.is_empty() => {
                    let b = live.swap_remove(i % live.len());
                    a.free(b);
                }
                Op::Free(_) => {}
                Op::FreeLater(i) if !live.is_empty() => {
                    let b = live.swap_remove(i % live.len());
                    a.free_later(b);
                    waiting.push(b);
                }
                Op::FreeLater(_) => {}
                Op::EmptyCache => {
                    a.empty_cache();
                }
                Op::Expandable(on) if toggles => {
                    let mut config = a.config().clone();
                    config.expandable_segments = on;
                    a.set_config(config);
                }
                Op::Expandable(_) => {}
            }
            if let Err(e) = a.check() {
                prop_assert!(false, "{e}");
            }
            prop_assert!(a.stats().reserved_bytes.all.current as usize <= 256 << 20);
        }
        for b in live.drain(..).chain(waiting.drain(..)) {
            a.free(b);
        }
        a.empty_cache();
        prop_assert_eq!(a.stats().reserved_bytes.all.current, 0);
        prop_assert_eq!(a.stats().allocated_bytes.all.current, 0);
        prop_assert_eq!(a.source().used, 0);
        prop_assert_eq!(a.segments().count(), 0);
    }
}

#[test]
fn reserved_memory_stops_growing_under_a_steady_workload() {
    // A deterministic pseudo-random mix of sizes with a bounded live set.
    let mut a = CachingAllocator::new(Capacity::new(64 << 30));
    let mut live: Vec<Block> = Vec::new();
    let mut x: u64 = 12345;
    let mut reserved_after_warmup = 0;
    for i in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let size = match x % 3 {
            0 => (x >> 8) as usize % 4096 + 1,
            1 => (x >> 8) as usize % (1 << 20) + 1,
            _ => (x >> 8) as usize % (16 << 20) + 1,
        };
        live.push(a.malloc(size, 0).unwrap());
        if live.len() > 32 {
            let j = (x >> 32) as usize % live.len();
            a.free(live.swap_remove(j));
        }
        if i == 100_000 {
            reserved_after_warmup = a.stats().reserved_bytes.all.peak;
        }
    }
    a.check().unwrap();
    assert_eq!(
        a.stats().reserved_bytes.all.peak,
        reserved_after_warmup,
        "reserved memory grew after warm-up"
    );
}

/// PyTorch's statistics for a few allocations, worked out by the rules of
/// its `alloc_found_block`, `free` and `free_block`: a block split off a
/// segment's free block is an inactive split until it merges back; a block
/// freed while another stream uses it stops counting as allocated at once,
/// and as active and requested only when the stream is done.
#[test]
fn statistics_are_pytorchs() {
    let mut a = CachingAllocator::new(Capacity::new(1 << 30));
    let x = a.malloc(4_000_000, 0).unwrap(); // 4000256 B of a 20 MiB segment
    let y = a.malloc(40, 0).unwrap(); // 512 B of a 2 MiB segment
    let z = a.malloc(400, 0).unwrap();
    let s = a.stats();
    assert_eq!(s.segment.all.current, 2);
    assert_eq!(s.num_device_alloc, 2);
    assert_eq!(s.inactive_split.large_pool.current, 1);
    assert_eq!(
        s.inactive_split_bytes.large_pool.current,
        (20 << 20) - 4_000_256
    );
    // The small segment's rest was split once (a new inactive block), then
    // shrunk by z's 512 B.
    assert_eq!(s.inactive_split.small_pool.current, 1);
    assert_eq!(s.inactive_split_bytes.small_pool.current, (2 << 20) - 1024);
    assert_eq!(s.inactive_split_bytes.small_pool.allocated, (2 << 20) - 512);
    assert_eq!(s.inactive_split_bytes.small_pool.freed, 512);

    // y, at the segment's start beside z, cannot merge: one more inactive split.
    a.free(y);
    let s = a.stats();
    assert_eq!(s.inactive_split.small_pool.current, 2);
    assert_eq!(s.inactive_split_bytes.small_pool.current, (2 << 20) - 512);
    assert_eq!(s.allocation.all.current, 2);
    assert_eq!(s.allocation.all.allocated, 3);
    assert_eq!(s.allocation.all.freed, 1);
    assert_eq!(s.requested_bytes.small_pool.freed, 40);

    // z waits for a stream: no longer allocated, still active and requested.
    a.free_later(z);
    let s = a.stats();
    assert_eq!(s.allocated_bytes.small_pool.current, 0);
    assert_eq!(s.active_bytes.small_pool.current, 512);
    assert_eq!(s.requested_bytes.small_pool.current, 400);
    assert_eq!(s.active.small_pool.current, 1);
    // Done: z merges with both neighbours, and the segment is whole again.
    a.free(z);
    let s = a.stats();
    assert_eq!(s.active.small_pool.current, 0);
    assert_eq!(s.requested_bytes.small_pool.current, 0);
    assert_eq!(s.inactive_split.small_pool.current, 0);
    assert_eq!(s.inactive_split_bytes.small_pool.current, 0);
    assert_eq!(s.inactive_split.small_pool.freed, 2);

    a.free(x);
    a.empty_cache();
    let s = a.stats();
    assert_eq!(s.segment.all.current, 0);
    assert_eq!(s.num_device_free, 2);
    assert_eq!(s.num_sync_all_streams, 1);
    assert_eq!(s.reserved_bytes.all.freed, (20 << 20) + (2 << 20));
    assert_eq!(s.allocated_bytes.all.peak, 4_000_256 + 1024);

    // What memory_stats() returns: PyTorch 2.15's 123 keys, sorted.
    let pairs = s.pairs();
    assert_eq!(pairs.len(), 123);
    assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0));
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|p| p.1);
    assert_eq!(get("max_split_size"), Some(-1));
    assert_eq!(get("inactive_split.small_pool.freed"), Some(2));
    assert_eq!(get("oversize_segments.peak"), Some(0));
    a.reset_accumulated();
    assert_eq!(a.stats().allocation.all.allocated, 0);
    assert_eq!(a.stats().num_device_alloc, 0);
    assert_eq!(a.stats().allocated_bytes.all.peak, 4_000_256 + 1024);
}

/// `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:100`, by the rules of PyTorch's
/// `get_free_block`, `should_split` and `release_available_cached_blocks`:
/// blocks of 100 MiB or more are never split, a smaller request never takes
/// one, a larger one takes one at most 20 MiB larger, and before the whole
/// cache is released the oversize blocks go.
#[test]
fn a_max_split_size_keeps_large_blocks_whole() {
    const MIB: usize = 1 << 20;
    let mut a = CachingAllocator::new(Capacity::new(1 << 30));
    let mut config = AllocatorConfig::default();
    config.parse("max_split_size_mb:100").unwrap();
    a.set_config(config);
    let big = a.malloc(300 * MIB, 0).unwrap();
    assert_eq!(a.stats().oversize_segments.current, 1);
    assert_eq!(a.stats().oversize_allocations.current, 1);
    a.free(big);
    assert_eq!(a.stats().oversize_allocations.current, 0);
    // 30 MiB does not take the cached 300 MiB block: a segment of its own.
    let small = a.malloc(30 * MIB, 0).unwrap();
    assert_ne!(small.segment, big.segment);
    // 250 MiB would waste 50 MiB of it (more than 20): a new segment too.
    let other = a.malloc(250 * MIB, 0).unwrap();
    assert_ne!(other.segment, big.segment);
    // 290 MiB takes it whole, unsplit.
    let whole = a.malloc(290 * MIB, 0).unwrap();
    assert_eq!((whole.segment, whole.size), (big.segment, 300 * MIB));
    assert_eq!(a.stats().inactive_split.all.current, 0);
    assert_eq!(a.stats().max_split_size, 100 * MIB as i64);
    a.check().unwrap();

    // Out of room: the free oversize block goes back before anything else,
    // and that is no retry.
    for b in [small, other, whole] {
        a.free(b);
    }
    let filler = a.malloc(600 * MIB, 0).unwrap();
    a.free(filler);
    let retries = a.stats().num_alloc_retries;
    let freed = a.stats().num_device_free;
    let again = a.malloc(500 * MIB, 0).unwrap();
    assert_eq!(a.stats().num_alloc_retries, retries);
    assert!(a.stats().num_device_free > freed);
    assert_eq!(again.size, 500 * MIB);
    a.check().unwrap();
}

/// `garbage_collection_threshold:0.4` with a memory fraction, by the rules
/// of PyTorch's `garbage_collect_cached_blocks`: before a new segment, while
/// the segments hold more than 40% of the allowed memory, the cached whole
/// segments that have waited at least their average (in searches of the
/// pool) go back, without the retry the full release would count.
#[test]
fn garbage_collection_gives_back_the_oldest_cached_segments() {
    const MIB: usize = 1 << 20;
    let mut a = CachingAllocator::new(Capacity::new(1 << 30));
    a.set_memory_fraction(0.5);
    let mut config = AllocatorConfig::default();
    config.parse("garbage_collection_threshold:0.4").unwrap();
    a.set_config(config);
    let old = a.malloc(200 * MIB, 0).unwrap();
    a.free(old);
    // A block on another stream, used again and again: it stays young.
    let mut young = a.malloc(50 * MIB, 1).unwrap();
    for _ in 0..5 {
        a.free(young);
        young = a.malloc(50 * MIB, 1).unwrap();
    }
    a.free(young);
    // 300 MiB fits no cached block: 250 MiB reserved is over 40% of 512,
    // so the old segment (waited 7 searches, the average 4) goes; the young
    // one (1) stays.
    let big = a.malloc(300 * MIB, 0).unwrap();
    let s = a.stats();
    assert_eq!(s.reserved_bytes.all.current, (350 * MIB) as u64);
    assert_eq!(s.num_device_free, 1);
    assert_eq!(s.num_alloc_retries, 0);
    assert!(a.segments().any(|seg| seg.id == young.segment));
    assert!(!a.segments().any(|seg| seg.id == old.segment));
    a.free(big);
    a.check().unwrap();
}

/// What a program does to private memory pools (CUDA graphs' captures,
/// `MemPool`s) between allocations.
#[derive(Debug, Clone)]
enum PoolOp {
    Alloc {
        size: usize,
        stream: u32,
    },
    Free(usize),
    EmptyCache,
    /// `beginAllocateToPool`: one stream's allocations (a capture), or
    /// every stream's (`use_mem_pool`), go to pool (0, n).
    Begin {
        pool: u64,
        stream: Option<u32>,
    },
    /// `endAllocateToPool` of the `i`th route under way.
    End(usize),
    /// `releasePool`: a graph using pool (0, n) is reset.
    Release(u64),
}

fn pool_op() -> impl Strategy<Value = PoolOp> {
    prop_oneof![
        6 => (prop_oneof![1usize..4096, 4096usize..(2 << 20), (1usize << 20)..(24 << 20)], 0u32..3)
            .prop_map(|(size, stream)| PoolOp::Alloc { size, stream }),
        5 => any::<usize>().prop_map(PoolOp::Free),
        1 => Just(PoolOp::EmptyCache),
        2 => (1u64..4, prop::option::of(0u32..3))
            .prop_map(|(pool, stream)| PoolOp::Begin { pool, stream }),
        2 => any::<usize>().prop_map(PoolOp::End),
        1 => (1u64..4).prop_map(PoolOp::Release),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Each block comes from the pool its stream allocates to at the time
    /// (a private pool's segment, or an ordinary one), a private pool's
    /// segments survive `empty_cache()` while anything uses the pool, and
    /// everything goes back once the pools are released and the blocks
    /// freed.
    #[test]
    fn private_pools_keep_their_memory_to_themselves(
        ops in prop::collection::vec(pool_op(), 1..120),
        expandable in any::<bool>(),
    ) {
        let mut a = CachingAllocator::new(Capacity::new(256 << 20));
        a.set_config(AllocatorConfig {
            expandable_segments: expandable,
            ..Default::default()
        });
        let mut live: Vec<Block> = Vec::new();
        let mut routes: Vec<((u64, u64), Option<u32>)> = Vec::new();
        let pool_of = |a: &CachingAllocator<Capacity>, b: &Block| {
            a.segments()
                .find(|s| s.id == b.segment)
                .map(|s| s.pool_id)
        };
        for op in ops {
            match op {
                PoolOp::Alloc { size, stream } => {
                    let want = routes
                        .iter()
                        .find(|(_, s)| s.is_none_or(|s| s == stream))
                        .map_or((0, 0), |&(id, _)| id);
                    if let Ok(b) = a.malloc(size, stream) {
                        prop_assert_eq!(pool_of(&a, &b), Some(want), "{:?}", b);
                        live.push(b);
                    }
                }
                PoolOp::Free(i) if !live.is_empty() => {
                    let b = live.swap_remove(i % live.len());
                    a.free(b);
                }
                PoolOp::Free(_) => {}
                PoolOp::EmptyCache => {
                    let kept: Vec<u64> = a
                        .segments()
                        .filter(|s| s.pool_id != (0, 0) && a.pool_use_count(s.pool_id) > 0)
                        .map(|s| s.handle)
                        .collect();
                    a.empty_cache();
                    for handle in kept {
                        prop_assert!(
                            a.segments().any(|s| s.handle == handle),
                            "a pool in use lost a segment"
                        );
                    }
                }
                PoolOp::Begin { pool, stream } => {
                    let id = (0, pool);
                    let routed = routes.iter().any(|(r, _)| *r == id);
                    let before = a.pool_use_count(id);
                    match a.begin_allocate_to_pool(id, stream) {
                        Ok(()) => {
                            prop_assert!(!routed);
                            prop_assert_eq!(a.pool_use_count(id), before + 1);
                            routes.push((id, stream));
                        }
                        Err(_) => prop_assert!(routed || before == 0),
                    }
                }
                PoolOp::End(i) if !routes.is_empty() => {
                    let (id, _) = routes.remove(i % routes.len());
                    a.end_allocate_to_pool(id);
                }
                PoolOp::End(_) => {}
                PoolOp::Release(pool) => {
                    let id = (0, pool);
                    if a.pool_use_count(id) > 0 && !routes.iter().any(|(r, _)| *r == id) {
                        a.release_pool(id);
                    }
                }
            }
            if let Err(e) = a.check() {
                prop_assert!(false, "{e}");
            }
        }
        for (id, _) in routes.drain(..) {
            a.end_allocate_to_pool(id);
        }
        for pool in 1..4 {
            while a.pool_use_count((0, pool)) > 0 {
                a.release_pool((0, pool));
            }
        }
        for b in live.drain(..) {
            a.free(b);
        }
        a.empty_cache();
        prop_assert_eq!(a.stats().reserved_bytes.all.current, 0);
        prop_assert_eq!(a.source().used, 0);
        prop_assert_eq!(a.segments().count(), 0);
    }
}

/// The CUDA notes' "sharing memory across captures": a capture into
/// another's pool reuses the memory that one freed, and a pool's segments
/// stay reserved until no graph uses it.
#[test]
fn a_shared_pool_reuses_what_the_first_capture_freed() {
    let mut a = CachingAllocator::new(Capacity::new(1 << 30));
    let x = a.malloc(4 << 20, 0).unwrap();
    // Graph 1 captures on stream 1: a temporary, then its output.
    a.begin_allocate_to_pool((1, 0), Some(1)).unwrap();
    let tmp = a.malloc(4 << 20, 1).unwrap();
    let out1 = a.malloc(4 << 20, 1).unwrap();
    a.free(tmp);
    a.end_allocate_to_pool((1, 0));
    let reserved = a.stats().reserved_bytes.all.current;
    assert_eq!(reserved, 40 << 20, "x's segment and the pool's");
    // An eager allocation on stream 1 does not get the pool's free block.
    let eager = a.malloc(4 << 20, 1).unwrap();
    assert_eq!(a.stats().reserved_bytes.all.current, 60 << 20);
    a.free(eager);
    // Graph 2 shares graph 1's pool: it takes the block the temporary left.
    a.begin_allocate_to_pool((1, 0), Some(1)).unwrap();
    let out2 = a.malloc(4 << 20, 1).unwrap();
    a.end_allocate_to_pool((1, 0));
    assert_eq!((out2.segment, out2.offset), (tmp.segment, tmp.offset));
    assert_eq!(a.pool_use_count((1, 0)), 2);
    a.empty_cache();
    assert_eq!(
        a.stats().reserved_bytes.all.current,
        40 << 20,
        "the eager block's segment went back; the pool's stays"
    );
    a.free(out1);
    a.free(out2);
    a.empty_cache();
    assert_eq!(
        a.stats().reserved_bytes.all.current,
        40 << 20,
        "both graphs still use the pool"
    );
    a.release_pool((1, 0));
    a.empty_cache();
    assert_eq!(
        a.stats().reserved_bytes.all.current,
        40 << 20,
        "graph 2 still does"
    );
    a.release_pool((1, 0));
    a.empty_cache();
    assert_eq!(
        a.stats().reserved_bytes.all.current,
        20 << 20,
        "only x's segment is left"
    );
    assert_eq!(a.pool_use_count((1, 0)), 0);
    a.free(x);
    a.check().unwrap();
}

/// While a capture is under way, an allocation that does not fit fails
/// without releasing the cache (PyTorch's `cudaFree` would wait for the
/// device); PyTorch's message counts the private pools' free blocks as
/// allocated.
#[test]
fn out_of_memory_during_a_capture_keeps_the_cache() {
    let mut a = CachingAllocator::new(Capacity::new(64 << 20));
    let x = a.malloc(30 << 20, 0).unwrap();
    a.free(x);
    a.begin_allocate_to_pool((1, 0), Some(1)).unwrap();
    let t = a.malloc(8 << 20, 1).unwrap();
    a.free(t);
    let err = a.malloc(40 << 20, 1).unwrap_err();
    assert_eq!(a.stats().num_alloc_retries, 0);
    assert_eq!(
        a.stats().reserved_bytes.all.current,
        (30 << 20) + (20 << 20)
    );
    let cudash::runtime::alloc::AllocError::OutOfMemory(oom) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(oom.private, 20 << 20);
    let msg = err.to_error(cudash::runtime::Device::Cuda(0)).to_string();
    assert!(
        msg.contains(
            "Of the allocated memory 20.00 MiB is allocated by PyTorch, with 20.00 MiB allocated \
             in private pools (e.g., CUDA Graphs), and 30.00 MiB is reserved by PyTorch but unallocated."
        ),
        "{msg}"
    );
    a.end_allocate_to_pool((1, 0));
    a.release_pool((1, 0));
    a.empty_cache();
    assert_eq!(a.stats().reserved_bytes.all.current, 0);
}
