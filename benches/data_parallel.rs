//! DataParallel's cost on four simulated devices (issue 69's targets), in
//! one run:
//!
//! - replicating a 100 MiB model (25 × `Linear(1024, 1024)`) onto the four
//!   devices: the device-to-device copies `profile` counts (one per bucket
//!   of about 10 MiB per other device), none through the host, and the
//!   host's time;
//! - a training step (forward, loss, backward) of an MLP 784 → 256 → 10 at
//!   batch 256 through DataParallel, beside one device's step on the whole
//!   batch and beside the replicas' own work without DataParallel (the
//!   model on each quarter of the batch, one after another, on one device):
//!   DataParallel's own host cost (replicate, scatter, the threads' turns,
//!   gather, the reduce) is the difference.
//!
//! Run with `cargo bench --bench data_parallel`; prints markdown rows.

use std::time::Instant;

use cudash::session::{Config, Session};

const MODEL: &str = "
seed(0)
big = Sequential(*[Linear(1024, 1024) for i in range(25)]).to(cuda:0)
mlp = Sequential(Linear(784, 256), ReLU(), Linear(256, 10)).to(cuda:0)
dp = DataParallel(mlp)
X = randn(256, 784, device=cuda:0)
y = randint(0, 10, [256], device=cuda:0)
parts = [X[i * 64:(i + 1) * 64] for i in range(4)]
targets = [y[i * 64:(i + 1) * 64] for i in range(4)]
def one():
    cross_entropy(mlp(X), y).backward()
def replicas_alone():
    for i in range(4):
        cross_entropy(mlp(parts[i]), targets[i]).backward()
def data_parallel():
    cross_entropy(dp(X), y).backward()
with no_grad():
    reps = replicate(mlp, [0, 1, 2, 3])
    chunks = scatter(X, [cuda:0, cuda:1, cuda:2, cuda:3])
def in_threads():
    with no_grad():
        outs = parallel_apply(reps, chunks)
def in_a_loop():
    with no_grad():
        outs = [r(c) for r, c in zip(reps, chunks)]
";

fn run(s: &mut Session, src: &str) -> String {
    let o = s.execute(src);
    if let Some(e) = &o.error {
        panic!("`{src}` failed:\n{}", e.report);
    }
    o.plain_text()
}

/// The best of `rounds` timings of `steps` calls of `f()`, per call, in µs.
fn per_call(s: &mut Session, f: &str, steps: usize, rounds: usize) -> f64 {
    run(s, &format!("for i in range(3):\n    {f}()\nsync\n"));
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let src = format!("for i in range({steps}):\n    {f}()\nsync\n");
        let t = Instant::now();
        run(s, &src);
        best = best.min(t.elapsed().as_secs_f64() / steps as f64);
    }
    best * 1e6
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut s = Session::new(Config {
        sim_devices: 4,
        ..Config::default()
    })
    .expect("a session of four simulated devices");
    run(&mut s, MODEL);
    let size = run(
        &mut s,
        "print(sum([p.numel() * 4 for p in big.parameters()]) / 2**20)",
    );
    let t = Instant::now();
    let profile = run(
        &mut s,
        "profile { r = replicate(big, [0, 1, 2, 3]) }\ndel r",
    );
    let replicate_ms = t.elapsed().as_secs_f64() * 1e3;
    let line = |name: &str| {
        profile
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .map(|l| l.trim().to_string())
            .unwrap_or_default()
    };
    println!(
        "| replicate a {} MiB model onto 4 devices | {}; {}; {} | {replicate_ms:.1} ms host (sim copies the bytes) |",
        size.trim(),
        line("copies D2D"),
        line("copies H2D"),
        line("copies D2H")
    );
    let (steps, rounds) = if quick { (3, 2) } else { (20, 5) };
    let one = per_call(&mut s, "one", steps, rounds);
    let alone = per_call(&mut s, "replicas_alone", steps, rounds);
    let dp = per_call(&mut s, "data_parallel", steps, rounds);
    let threads = per_call(&mut s, "in_threads", steps * 5, rounds);
    let looped = per_call(&mut s, "in_a_loop", steps * 5, rounds);
    println!(
        "| the 4 replicas' forward (no grad): `parallel_apply`'s threads taking turns vs one loop | {threads:.0} µs vs {looped:.0} µs | the threads and turns cost {:.0} µs a call |",
        threads - looped
    );
    println!(
        "| MLP 784→256→10 step, batch 256 | one device {one:.0} µs · the 4 replicas' work alone {alone:.0} µs · DataParallel on 4 devices {dp:.0} µs | DataParallel's own cost {:.0} µs = {:.2}× one device's step; DataParallel / (replicas alone) = {:.2} |",
        dp - alone,
        (dp - alone) / one,
        dp / alone
    );
}
