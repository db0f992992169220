//! Caching allocator benchmark: the cost of a cached 1 MiB alloc+free (the raw
//! allocator, and through the device registry as tensors use it), and whether
//! reserved memory stops growing over 1M random alloc/free cycles.
//! Run with `cargo bench --bench alloc`; prints markdown table rows.

use std::hint::black_box;
use std::time::Instant;

use cudash::runtime::alloc::{CachingAllocator, Capacity};
use cudash::runtime::backend::SimBackend;
use cudash::runtime::devices::Devices;

fn median_ns(mut f: impl FnMut(), reps: usize, rounds: usize) -> f64 {
    let mut samples: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_nanos() as f64 / reps as f64
        })
        .collect();
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[rounds / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (reps, rounds, cycles) = if quick {
        (10_000, 11, 100_000)
    } else {
        (200_000, 31, 1_000_000)
    };

    let mut raw = CachingAllocator::new(Capacity::new(16 << 30));
    let warm = raw.malloc(1 << 20, 0).unwrap();
    raw.free(warm);
    let raw_ns = median_ns(
        || {
            let b = raw.malloc(black_box(1 << 20), 0).unwrap();
            raw.free(b);
        },
        reps,
        rounds,
    );

    let devices = Devices::new(
        &SimBackend {
            count: 1,
            memory: 16 << 30,
        },
        "",
    );
    drop(devices.alloc(0, 1 << 20).unwrap());
    let dev_ns = median_ns(
        || drop(black_box(devices.alloc(0, black_box(1 << 20)).unwrap())),
        reps,
        rounds,
    );

    // A training-like workload: tensors of a fixed set of 256 random sizes
    // (1 B to 32 MiB) allocated and freed in random order, 64 alive at a time.
    let table: Vec<usize> = {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        (0..256)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                1 + (x >> 11) as usize % [4096, 1 << 20, 32 << 20][(x % 3) as usize]
            })
            .collect()
    };
    let fixed = steady(cycles, |x| table[(x >> 20) as usize % table.len()]);
    // The same with every size drawn afresh: fragmentation never quite settles.
    let fresh = steady(cycles, |x| {
        1 + (x >> 11) as usize % [4096, 1 << 20, 32 << 20][(x % 3) as usize]
    });

    // Quick runs are unoptimised: their timings say nothing about the targets.
    let fast = |ns: f64| if quick { "n/a (quick)" } else { ok(ns < 200.0) };
    println!(
        "| cached 1 MiB alloc+free (allocator) | {raw_ns:.0} ns median | < 200 ns | {} |",
        fast(raw_ns)
    );
    println!("| cached 1 MiB alloc+free (device registry, lock + guard) | {dev_ns:.0} ns median | < 200 ns | {} |", fast(dev_ns));
    for (name, r, target) in [
        (
            "a fixed set of 256 random sizes",
            &fixed,
            "stops growing after warm-up",
        ),
        ("sizes drawn afresh each time", &fresh, "(informational)"),
    ] {
        println!(
            "| {cycles} alloc/free cycles, {name} (1 B–32 MiB, 64 live) | {:.0} ns per cycle; reserved peak {} MiB after warm-up (30% of the cycles), {} MiB at the end (allocated peak {} MiB) | {target} | {} |",
            r.ns_per_cycle,
            r.peak_at_warmup >> 20,
            r.final_peak >> 20,
            r.allocated_peak >> 20,
            // A quick run's 100,000 cycles are too few to reach the steady state.
            if target.starts_with('(') { "n/a" } else if quick { "n/a (quick)" } else { ok(r.final_peak == r.peak_at_warmup) }
        );
    }
}

fn ok(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "**no**"
    }
}

struct Steady {
    ns_per_cycle: f64,
    peak_at_warmup: u64,
    final_peak: u64,
    allocated_peak: u64,
}

/// Allocates sizes from `size(random)` with 64 blocks alive, freeing a random one each cycle.
fn steady(cycles: usize, size: impl Fn(u64) -> usize) -> Steady {
    let mut a = CachingAllocator::new(Capacity::new(1 << 40));
    let mut live = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut peak_at_warmup = 0;
    let t = Instant::now();
    for i in 0..cycles {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        live.push(a.malloc(size(x), 0).unwrap());
        if live.len() > 64 {
            let j = (x >> 40) as usize % live.len();
            a.free(live.swap_remove(j));
        }
        if i == cycles * 3 / 10 {
            peak_at_warmup = a.stats().reserved_bytes.all.peak;
        }
    }
    Steady {
        ns_per_cycle: t.elapsed().as_nanos() as f64 / cycles as f64,
        peak_at_warmup,
        final_peak: a.stats().reserved_bytes.all.peak,
        allocated_peak: a.stats().allocated_bytes.all.peak,
    }
}
