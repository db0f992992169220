//! The caching allocator's invariants under random use: blocks tile each
//! segment, nothing overlaps, the stats equal a recount, and everything goes
//! back to the device once freed and `empty_cache()` runs.

use cudash::runtime::alloc::{Block, CachingAllocator, Capacity};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Alloc { size: usize, stream: u32 },
    Free(usize),
    EmptyCache,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (prop_oneof![1usize..4096, 4096usize..(2 << 20), (1usize << 20)..(24 << 20)], 0u32..3)
            .prop_map(|(size, stream)| Op::Alloc { size, stream }),
        5 => any::<usize>().prop_map(Op::Free),
        1 => Just(Op::EmptyCache),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn invariants_hold_under_random_use(ops in prop::collection::vec(op(), 1..120)) {
        let mut a = CachingAllocator::new(Capacity::new(256 << 20));
        let mut live: Vec<Block> = Vec::new();
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
                Op::Free(i) if !live.is_empty() => {
                    let b = live.swap_remove(i % live.len());
                    a.free(b);
                }
                Op::Free(_) => {}
                Op::EmptyCache => {
                    a.empty_cache();
                }
            }
            if let Err(e) = a.check() {
                prop_assert!(false, "{e}");
            }
            prop_assert!(a.stats().reserved.current as usize <= 256 << 20);
        }
        for b in live.drain(..) {
            a.free(b);
        }
        a.empty_cache();
        prop_assert_eq!(a.stats().reserved.current, 0);
        prop_assert_eq!(a.stats().allocated.current, 0);
        prop_assert_eq!(a.source().used, 0);
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
            reserved_after_warmup = a.stats().reserved.peak;
        }
    }
    a.check().unwrap();
    assert_eq!(
        a.stats().reserved.peak,
        reserved_after_warmup,
        "reserved memory grew after warm-up"
    );
}
