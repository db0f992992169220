//! Soak: a long, correct program that allocates and frees random tensors on
//! the cpu and two simulated devices, on the default stream and side streams.
//! Reserved device memory stops growing after warm-up, host memory stays flat,
//! no statement warns, and a second fresh session prints the same transcript.
//!
//! CI runs 2,000 statements; `bash scripts/soak` runs the full 100,000 in
//! release mode (CUDASH_SOAK_STATEMENTS sets the count) and prints figures.

mod common;

use cudash::eval::Output;
use cudash::session::Session;

/// xorshift64*: the program is the same for the same seed, on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const VARS: u64 = 12;
const DEVICES: &[&str] = &["cpu", "cuda:0", "cuda:1"];
const DTYPES: &[&str] = &["f32", "f16", "bf16", "i64", "f64"];
/// A fixed set of sizes, as a training loop has: its allocations settle.
const SIZES: &[u64] = &[1, 7, 64, 300, 1000, 4096, 10_000, 65_536, 131_072, 262_144];

/// One statement of the program, correct by construction: work on a side
/// stream waits for the default stream first, and the default stream waits
/// for it after, so the hazard checker has nothing to say.
fn statement(r: &mut Rng) -> String {
    let v = r.below(VARS);
    let w = r.below(VARS);
    let n = SIZES[r.below(SIZES.len() as u64) as usize];
    let dev = r.pick(DEVICES);
    match r.below(20) {
        0..=5 => format!(
            "v{v} = randn({n}, dtype={}, device={dev})",
            r.pick(&["f32", "f16", "bf16", "f64"])
        ),
        6 | 7 => format!("v{v} = ones({n}, dtype={}, device={dev})", r.pick(DTYPES)),
        8 => format!("v{v} = arange({n}, device={dev}).to(f32)"),
        9 => format!("del v{v}\nv{v} = zeros(1, device={dev})"),
        10 => format!("v{v} = v{w} * 2 + 1"),
        11 => format!("v{v} = v{w}.to({dev})"),
        12 => format!("total = total + v{w}.to(f64).sum().item()"),
        13 => {
            let s = r.below(2);
            // Made on the side stream, used on the default one: recorded, as PyTorch asks.
            format!("with s{s} {{\n  wait default\n  v{v} = randn({n}, device=cuda:0)\n}}\nwait s{s}\nv{v}.record_stream(default)")
        }
        14 => format!(
            "m{} = randn({k}, {k}, device={dev}) @ randn({k}, {k}, device={dev})",
            r.below(3),
            k = r.pick(&["8", "32", "64"])
        ),
        15 => format!("v{v} = cat([v{w}.reshape(-1), v{w}.reshape(-1)])"),
        16 => "sync".to_string(),
        17 => format!("e = event().record()\ne.sync()\nv{v} = zeros({n}, device={dev})"),
        18 => format!("v{v} = v{w}.reshape(-1).sum(dim=0)"),
        _ => format!("v{v} = v{w}.reshape(-1)[1:]"),
    }
}

/// The program: `count` statements after a prologue that defines every name.
fn program(seed: u64, count: usize) -> Vec<String> {
    let mut r = Rng(seed | 1);
    let mut out = vec![
        "total = 0.".to_string(),
        "with device(0) {\n  s0 = stream()\n  s1 = stream()\n}".to_string(),
    ];
    for v in 0..VARS {
        out.push(format!("v{v} = zeros(4)"));
    }
    while out.len() < count {
        out.push(statement(&mut r));
    }
    out
}

struct Run {
    transcript: String,
    /// Peak reserved bytes per device, at the end of warm-up (30%) and at the end.
    reserved_at_warmup: Vec<u64>,
    allocated_at_warmup: Vec<u64>,
    reserved_at_end: Vec<u64>,
    allocated_at_end: Vec<u64>,
    rss_at_warmup: u64,
    rss_at_end: u64,
    seconds: f64,
}

fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn stat(s: &mut Session, device: usize, key: &str) -> u64 {
    let o = s.execute(&format!("memory_stats(cuda:{device})[\"{key}\"]"));
    assert!(o.error.is_none(), "{}", o.plain_text());
    o.plain_text().trim().parse().unwrap()
}

/// `memory_stats(...)[key]` for cuda:0 and cuda:1.
fn peaks(s: &mut Session, key: &str) -> Vec<u64> {
    (0..2).map(|d| stat(s, d, key)).collect()
}

fn soak(stmts: &[String]) -> Run {
    let mut s = common::sim_session(2, 2 << 30);
    let warmup = stmts.len() * 3 / 10;
    let start = std::time::Instant::now();
    let mut transcript = String::new();
    let (mut reserved_at_warmup, mut rss_at_warmup) = (Vec::new(), 0);
    let mut allocated_at_warmup = Vec::new();
    for (i, st) in stmts.iter().enumerate() {
        let o = s.execute(st);
        if let Some(e) = &o.error {
            panic!("statement {i} `{st}` failed:\n{}", e.report);
        }
        for out in &o.outputs {
            if let Output::Warning(w) = out {
                panic!("statement {i} `{st}` warned: {w}");
            }
        }
        transcript.push_str(&o.plain_text());
        if i % 250 == 0 {
            transcript.push_str(&s.execute("total").plain_text());
            transcript.push('\n');
        }
        if i == warmup {
            reserved_at_warmup = peaks(&mut s, "reserved_bytes.all.peak");
            allocated_at_warmup = peaks(&mut s, "allocated_bytes.all.peak");
            rss_at_warmup = rss();
        }
    }
    transcript.push_str(&s.execute("total").plain_text());
    assert_eq!(s.check_invariants(), Ok(()));
    Run {
        transcript,
        reserved_at_warmup,
        allocated_at_warmup,
        reserved_at_end: peaks(&mut s, "reserved_bytes.all.peak"),
        allocated_at_end: peaks(&mut s, "allocated_bytes.all.peak"),
        rss_at_warmup,
        rss_at_end: rss(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

#[test]
fn a_long_correct_program_stays_bounded_quiet_and_repeatable() {
    let count: usize = std::env::var("CUDASH_SOAK_STATEMENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let stmts = program(0x5EED, count);
    let first = soak(&stmts);
    let second = soak(&stmts);
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "soak: {count} statements in {:.1} s ({:.1} µs each); reserved peak cuda:0/cuda:1 {:.1}/{:.1} MiB at warm-up, {:.1}/{:.1} MiB at the end (allocated peak {:.1}/{:.1} MiB); RSS {:.1} MiB at warm-up, {:.1} MiB at the end, {:.1} MiB after the second run",
        first.seconds,
        first.seconds / count as f64 * 1e6,
        mib(first.reserved_at_warmup[0]),
        mib(first.reserved_at_warmup[1]),
        mib(first.reserved_at_end[0]),
        mib(first.reserved_at_end[1]),
        mib(first.allocated_at_end[0]),
        mib(first.allocated_at_end[1]),
        mib(first.rss_at_warmup),
        mib(first.rss_at_end),
        mib(second.rss_at_end),
    );
    assert!(
        first.transcript == second.transcript,
        "a fresh session printed something else"
    );
    // Reserved memory follows what the program keeps alive, not how long it
    // runs: after warm-up its peak grows only where the peak of live tensors
    // does (a random program's live set may peak late), by at most twice that
    // plus one 20 MiB segment of the large pool.
    for d in 0..2 {
        let grew = first.reserved_at_end[d] - first.reserved_at_warmup[d];
        let live = first.allocated_at_end[d] - first.allocated_at_warmup[d];
        assert!(
            grew <= 2 * live + (20 << 20),
            "cuda:{d}: reserved peak grew by {grew} B after warm-up, live peak by {live} B"
        );
    }
    // The second run started from the first's heap: it may not need more.
    assert!(
        second.rss_at_end <= first.rss_at_end + (64 << 20),
        "host memory grew from {} to {} bytes across runs",
        first.rss_at_end,
        second.rss_at_end
    );
    assert!(
        first.rss_at_end <= first.rss_at_warmup + (64 << 20),
        "host memory grew from {} to {} bytes after warm-up",
        first.rss_at_warmup,
        first.rss_at_end
    );
}
