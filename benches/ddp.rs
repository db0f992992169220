//! DDP's ranks in parallel (issue 70's speed target), in one run: the
//! wall time of `spawn` with 1, 2 and 4 ranks, each rank doing the same
//! work (ten training steps of an MLP 784 → 256 → 10 at batch 256 on its
//! own simulated device), as a ratio against one rank; with
//! `DistributedDataParallel` (its broadcast, buckets and all-reduces) and
//! without (the same steps, no collectives), so DDP's own cost shows
//! beside how well the ranks' threads run side by side. The ranks share no
//! lock while they compute; the simulator's own kernels use every core
//! already (one rank keeps more than one busy), so with fewer cores than
//! ranks the ratio grows towards ranks / cores.
//!
//! Run with `cargo bench --bench ddp`; prints markdown rows.

use std::time::Instant;

use cudash::session::{Config, Session};

const PROGRAM: &str = "
fn plain(rank, n) {
  set_device(rank)
  manual_seed(rank)
  model = Sequential(Linear(784, 256), ReLU(), Linear(256, 10)).to(cuda)
  opt = SGD(model.parameters(), lr=0.01)
  x = randn(256, 784, device=cuda)
  y = randint(0, 10, [256], device=cuda)
  for i in range(10) {
    cross_entropy(model(x), y).backward()
    opt.step()
    opt.zero_grad()
  }
  synchronize()
}
fn work(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  manual_seed(rank)
  model = DistributedDataParallel(Sequential(Linear(784, 256), ReLU(), Linear(256, 10)).to(cuda), device_ids=[rank])
  opt = SGD(model.parameters(), lr=0.01)
  x = randn(256, 784, device=cuda)
  y = randint(0, 10, [256], device=cuda)
  for i in range(10) {
    cross_entropy(model(x), y).backward()
    opt.step()
    opt.zero_grad()
  }
  synchronize()
  destroy_process_group()
}
";

fn run(s: &mut Session, src: &str) {
    let o = s.execute(src);
    if let Some(e) = &o.error {
        panic!("`{src}` failed:\n{}", e.report);
    }
}

/// The best of `rounds` wall times of `spawn(f)` with `n` ranks, in ms.
fn spawn_ms(s: &mut Session, f: &str, n: usize, rounds: usize) -> f64 {
    let call = format!("spawn({f}, args=({n},), nprocs={n})");
    run(s, &call);
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            run(s, &call);
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut s = Session::new(Config {
        sim_devices: 4,
        ..Config::default()
    })
    .expect("a session");
    run(&mut s, PROGRAM);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "| ranks | DDP: wall time of spawn | × one rank | no DDP: wall time | × one rank | cores |"
    );
    println!("|---|---|---|---|---|---|");
    let one = spawn_ms(&mut s, "work", 1, 5);
    let plain_one = spawn_ms(&mut s, "plain", 1, 5);
    for n in [1, 2, 4] {
        let (ms, plain) = match n {
            1 => (one, plain_one),
            _ => (
                spawn_ms(&mut s, "work", n, 5),
                spawn_ms(&mut s, "plain", n, 5),
            ),
        };
        println!(
            "| {n} | {ms:.1} ms | {:.2}× | {plain:.1} ms | {:.2}× | {cores} |",
            ms / one,
            plain / plain_one
        );
    }
}
