//! Autocast's cost on the host (issue 71's speed target): the wall time of
//! one training step of the MLP 784 → 256 → 10 (SGD, cross-entropy) on a
//! simulated GPU, plain, inside `with autocast(enabled=false)` (the
//! region's bookkeeping alone: every op looks up its policy) and inside
//! `with autocast()` (f16: the casts too, 11 more kernels a step, as
//! PyTorch's). At batch 8 the simulator's kernels cost little, so the
//! ratios are cudash's own per-op costs; at batch 256 its f16 arithmetic
//! on the CPU weighs in. Best of several rounds of 20 steps, in one run.
//!
//! Run with `cargo bench --bench amp`; prints markdown rows.

use std::time::Instant;

use cudash::session::{Config, Session};

fn program(batch: usize) -> String {
    format!(
        "manual_seed(0)
model = Sequential(Linear(784, 256), ReLU(), Linear(256, 10)).to(cuda)
x = randn({batch}, 784, device=cuda)
y = randint(0, 10, [{batch}], device=cuda)
opt = SGD(model.parameters(), lr=0.01)
fn plain() {{
  loss = cross_entropy(model(x), y)
  loss.backward()
  opt.step()
  opt.zero_grad()
}}
fn off() {{
  with autocast(enabled=false) {{ loss = cross_entropy(model(x), y) }}
  loss.backward()
  opt.step()
  opt.zero_grad()
}}
fn amp() {{
  with autocast() {{ loss = cross_entropy(model(x), y) }}
  loss.backward()
  opt.step()
  opt.zero_grad()
}}
"
    )
}

fn run(s: &mut Session, src: &str) {
    let o = s.execute(src);
    if let Some(e) = &o.error {
        panic!("`{src}` failed:\n{}", e.report);
    }
}

/// The best of `rounds` wall times of 20 calls of `f`, per call, in µs.
fn step_us(s: &mut Session, f: &str, rounds: usize) -> f64 {
    let call = format!("for i in range(20) {{ {f}() }}\nsynchronize()");
    run(s, &call);
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            run(s, &call);
            t.elapsed().as_secs_f64() * 1e6 / 20.0
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    println!(
        "| batch | plain step | autocast(enabled=false) | × plain | autocast (f16) | × plain |"
    );
    println!("|---|---|---|---|---|---|");
    for batch in [8, 256] {
        let mut s = Session::new(Config::default()).expect("a session");
        run(&mut s, &program(batch));
        let plain = step_us(&mut s, "plain", 7);
        let off = step_us(&mut s, "off", 7);
        let amp = step_us(&mut s, "amp", 7);
        println!(
            "| {batch} | {plain:.0} µs | {off:.0} µs | {:.2}× | {amp:.0} µs | {:.2}× |",
            off / plain,
            amp / plain
        );
    }
}
