//! DDP's ranks in parallel (issue 70's speed target), in one run: the
//! wall time of `spawn` with 1, 2 and 4 ranks, each rank doing the same
//! work (a DDP training step of an MLP 784 → 256 → 10 at batch 64, ten
//! times, on its own simulated device), as a ratio against one rank. The
//! ranks are threads with a runtime each and share no lock while they
//! compute, so on a machine with as many cores as ranks the ratio is near
//! 1; with fewer cores it grows as ranks / cores.
//!
//! Run with `cargo bench --bench ddp`; prints markdown rows.

use std::time::Instant;

use cudash::session::{Config, Session};

const PROGRAM: &str = "
fn work(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  manual_seed(rank)
  model = DistributedDataParallel(Sequential(Linear(784, 256), ReLU(), Linear(256, 10)).to(cuda), device_ids=[rank])
  opt = SGD(model.parameters(), lr=0.01)
  x = randn(64, 784, device=cuda)
  y = randint(0, 10, [64], device=cuda)
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

/// The best of `rounds` wall times of `spawn` with `n` ranks, in ms.
fn spawn_ms(s: &mut Session, n: usize, rounds: usize) -> f64 {
    let call = format!("spawn(work, args=({n},), nprocs={n})");
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
    println!("| ranks | wall time of spawn | × one rank | cores |");
    println!("|---|---|---|---|");
    let one = spawn_ms(&mut s, 1, 5);
    for n in [1, 2, 4] {
        let ms = match n {
            1 => one,
            _ => spawn_ms(&mut s, n, 5),
        };
        println!("| {n} | {ms:.1} ms | {:.2}× | {cores} |", ms / one);
    }
}
