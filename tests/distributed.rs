//! `spawn`, `torch.distributed`'s process group and
//! `DistributedDataParallel` (issue 70): each rank's results, DDP's
//! gradients against one device's on the whole batch, the buckets
//! against PyTorch's layout, and every way a program of ranks goes
//! wrong reported (never a hang).

mod common;

use common::{err_in, ok_in};
use cudash::runtime::backend::BackendChoice;
use cudash::session::{Config, Session};

fn session(backend: BackendChoice, devices: u32) -> Session {
    Session::new(Config {
        backend,
        sim_devices: devices,
        ..Config::default()
    })
    .unwrap()
}

const BACKENDS: [BackendChoice; 2] = [BackendChoice::Sim, BackendChoice::Emu];

/// Each rank gets every collective's result: sums, averages, maxima,
/// a broadcast from rank 1, a gather of every rank's tensor, a barrier,
/// and an asynchronous all-reduce waited for by its handle.
#[test]
fn every_rank_gets_the_collectives_results() {
    let src = "
fn work(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  a = ones(4, device=cuda) * (rank + 1)
  all_reduce(a)
  b = ones(2, device=cuda) * (rank + 1)
  all_reduce(b, op=\"avg\")
  c = tensor([rank * 1.0, -rank * 1.0], device=cuda)
  all_reduce(c, op=\"max\")
  y = full([3], rank + 5.0, device=cuda)
  broadcast(y, 1)
  xs = [zeros(2, device=cuda) for i in range(n)]
  all_gather(xs, full([2], rank * 10.0, device=cuda))
  barrier()
  w = all_reduce(ones(3, device=cuda), async_op=true)
  w.wait()
  print(rank, get_rank(), get_world_size(), a.sum().item(), b[0].item(), c.tolist(), y.sum().item(), [x[0].item() for x in xs], current_device())
  destroy_process_group()
}
spawn(work, args=[3], nprocs=3)
";
    for backend in BACKENDS {
        let mut s = session(backend, 3);
        let out = ok_in(&mut s, src);
        let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with(">>>")).collect();
        for rank in 0..3 {
            let want =
                format!("{rank} {rank} 3 24.0 2.0 [2.0, 0.0] 18.0 [0.0, 10.0, 20.0] cuda:{rank}");
            assert!(lines.contains(&want.as_str()), "{backend:?}: {out}");
        }
    }
}

/// The collectives with a root rank on CUDA tensors over "nccl" (PyTorch's
/// `reduce`, `gather`, `scatter`), `product`, and messages that do not wait
/// (`isend`/`irecv`) passed round the ring as the distributed tutorial's
/// ring all-reduce passes them; the same on the host over "gloo".
#[test]
fn rooted_collectives_and_messages_that_do_not_wait() {
    let src = "
fn work(rank, n, backend) {
  init_process_group(backend, rank=rank, world_size=n)
  dev = cpu
  if backend == \"nccl\" {
    set_device(rank)
    dev = cuda
  }
  g = new_group([0, 1, 2])
  r = full([2], rank + 2.0, device=dev)
  reduce(r, dst=1, op=\"product\", group=g)
  parts = none
  if rank == 2 { parts = [full([2], 10.0 * k, device=dev) for k in range(n)] }
  s = zeros(2, device=dev)
  dist_scatter(s, parts, src=2)
  got = none
  if rank == 0 { got = [zeros(2, device=dev) for k in range(n)] }
  dist_gather(s + rank, got, dst=0)
  right = (rank + 1) % n
  left = (rank + n - 1) % n
  box = zeros(1, device=dev)
  w = isend(full([1], rank * 1.0, device=dev), right)
  h = irecv(box, left)
  h.wait()
  w.wait()
  shown = none
  if rank == 0 { shown = [x.tolist() for x in got] }
  print(rank, r.tolist(), s.tolist(), box.item(), w.is_completed(), shown)
  destroy_process_group()
}
for backend in [\"nccl\", \"gloo\"] {
  spawn(work, args=(3, backend), nprocs=3)
}
";
    for backend in BACKENDS {
        let mut s = session(backend, 3);
        let out = ok_in(&mut s, src);
        let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with(">>>")).collect();
        let want = [
            "0 [2.0, 2.0] [0.0, 0.0] 2.0 True [[0.0, 0.0], [11.0, 11.0], [22.0, 22.0]]",
            "1 [24.0, 24.0] [10.0, 10.0] 0.0 True None",
            "2 [4.0, 4.0] [20.0, 20.0] 1.0 True None",
        ];
        for w in want {
            let n = lines.iter().filter(|l| **l == w).count();
            assert_eq!(n, 2, "{backend:?}: {w}\n{out}");
        }
    }
}

/// Each rank has current streams of its own, as each process of
/// `mp.spawn` has: a rank starts on `default` even when the session spawns
/// it inside `with torch.cuda.stream(s)`, a rank's stream block changes no
/// one else's, and the session's stream is its own again afterwards. (Shared
/// current streams let a rank passing an `isend` on its peer's device switch
/// the peer's stream mid-statement: the peer then read its `irecv` box on
/// `nccl` and saw zeros, one run in ten.)
#[test]
fn each_rank_has_current_streams_of_its_own() {
    let src = "
import torch
s = torch.cuda.Stream()
fn work(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  first = str(current_stream())
  r = torch.cuda.Stream()
  with torch.cuda.stream(r) { inside = str(current_stream()) }
  print(rank, first, inside, current_stream())
  destroy_process_group()
}
with torch.cuda.stream(s) {
  spawn(work, args=[2], nprocs=2)
  print(current_stream())
}
print(current_stream())
";
    for backend in BACKENDS {
        let mut s = session(backend, 2);
        let out = ok_in(&mut s, src);
        let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with(">>>")).collect();
        for rank in 0..2 {
            let default = format!("<stream default @cuda:{rank}: 0 pending>");
            let want = format!("{rank} {default} <stream r @cuda:{rank}: 0 pending> {default}");
            assert!(lines.contains(&want.as_str()), "{backend:?}: {out}");
        }
        let session_lines = &lines[lines.len() - 2..];
        assert_eq!(
            session_lines,
            [
                "<stream s @cuda:0: 0 pending>",
                "<stream default @cuda:0: 0 pending>"
            ],
            "{backend:?}: {out}"
        );
    }
}

/// A rank that passes `gather_list` where it is not the destination (or
/// none where it is) gets PyTorch's error; a group of some of the ranks is
/// refused, saying so.
#[test]
fn rooted_collectives_check_their_lists_and_groups_are_the_world() {
    let src = "
fn work(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  dist_gather(ones(1), [zeros(1), zeros(1)], dst=0)
}
spawn(work, args=[2], nprocs=2)
";
    let mut s = session(BackendChoice::Sim, 2);
    let (_, err) = err_in(&mut s, src);
    assert!(
        err.contains("Argument ``gather_list`` must NOT be specified on non-destination ranks."),
        "{err}"
    );
    let src = "
fn work(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  new_group([0])
}
spawn(work, args=[2], nprocs=2)
";
    let (_, err) = err_in(&mut s, src);
    assert!(
        err.contains(
            "cudash's process groups are the whole world: new_group([0]) names 1 of the 2 ranks"
        ),
        "{err}"
    );
}

/// `gloo` reduces CPU tensors; outside `spawn` the session is a group of one.
#[test]
fn gloo_reduces_cpu_tensors_and_the_session_is_a_group_of_one() {
    let mut s = session(BackendChoice::Sim, 0);
    let out = ok_in(
        &mut s,
        "fn work(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  t = tensor([rank + 1.0, 2.0])
  all_reduce(t)
  print(rank, t.tolist())
}
spawn(work, args=[4], nprocs=4)
init_process_group(\"gloo\", rank=0, world_size=1)
u = ones(2)
all_reduce(u)
print(get_rank(), get_world_size(), u.tolist(), is_initialized())
destroy_process_group()
print(is_initialized())
",
    );
    for rank in 0..4 {
        assert!(out.contains(&format!("{rank} [10.0, 8.0]")), "{out}");
    }
    assert!(out.contains("0 1 [1.0, 1.0] True"), "{out}");
    assert!(out.trim_end().ends_with("False"), "{out}");
}

const NET: &str = "
class Net(Module):
    def __init__(self):
        super().__init__()
        self.fc1 = Linear(6, 16)
        self.fc2 = Linear(16, 3)
    def forward(self, x):
        return self.fc2(relu(self.fc1(x)))

";

/// After a DDP step every rank's gradients equal the gradients of the
/// whole batch on one device (each rank a slice of it), within rounding.
#[test]
fn ddp_gradients_are_the_whole_batchs() {
    let src = format!(
        "{NET}fn work(rank, n) {{
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  manual_seed(0)
  net = Net().to(cuda)
  ref = Net().to(cuda)
  r = ref.load_state_dict(net.state_dict())
  manual_seed(1)
  x = randn(4 * n, 6, device=cuda)
  t = randn(4 * n, 3, device=cuda)
  model = DistributedDataParallel(net, device_ids=[rank])
  mine = x[4 * rank:4 * rank + 4]
  mse_loss(model(mine), t[4 * rank:4 * rank + 4]).backward()
  mse_loss(ref(x), t).backward()
  diffs = [(p.grad - q.grad).abs().max().item() for p, q in zip(net.parameters(), ref.parameters())]
  print(rank, max(diffs) < 1e-5, len(diffs))
  destroy_process_group()
}}
spawn(work, args=[@], nprocs=@)
"
    );
    for backend in BACKENDS {
        for n in [2, 4] {
            let mut s = session(backend, 4);
            let out = ok_in(&mut s, &src.replace('@', &n.to_string()));
            for rank in 0..n {
                assert!(
                    out.contains(&format!("{rank} True 4")),
                    "{backend:?} {n}: {out}"
                );
            }
        }
    }
}

/// Ranks that start from different values and see different data keep
/// equal parameters over ten steps (the construction broadcasts rank 0's).
#[test]
fn parameters_stay_equal_across_ranks() {
    let src = format!(
        "{NET}fn work(rank, n) {{
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  manual_seed(rank)
  model = DistributedDataParallel(Net().to(cuda), device_ids=[rank])
  opt = SGD(model.parameters(), lr=0.1)
  for step in range(10) {{
    loss = model(randn(5, 6, device=cuda)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
  }}
  checks = [p.sum().item() for p in model.parameters()]
  print(\"rank\", rank, [round(c, 5) for c in checks])
}}
spawn(work, args=[3], nprocs=3)
"
    );
    let mut s = session(BackendChoice::Sim, 3);
    let out = ok_in(&mut s, &src);
    let sums: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("rank "))
        .map(|l| l.split_once(' ').unwrap().1.split_once(' ').unwrap().1)
        .collect();
    assert_eq!(sums.len(), 3, "{out}");
    assert!(sums.iter().all(|s| *s == sums[0]), "{out}");
}

/// Inside `no_sync` each rank only accumulates; the next backward outside
/// reduces everything accumulated: the average over the ranks of each
/// rank's two gradients.
#[test]
fn no_sync_accumulates_and_the_next_step_reduces_both() {
    let src = format!(
        "{NET}fn work(rank, n) {{
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  manual_seed(0)
  net = Net().to(cuda)
  ref = Net().to(cuda)
  r = ref.load_state_dict(net.state_dict())
  model = DistributedDataParallel(net, device_ids=[rank])
  manual_seed(10 + rank)
  a = randn(4, 6, device=cuda)
  b = randn(4, 6, device=cuda)
  with model.no_sync() {{
    model(a).sum().backward()
  }}
  local = net.fc1.weight.grad.clone()
  model(b).sum().backward()
  ref(a).sum().backward()
  ref(b).sum().backward()
  g = ref.fc1.weight.grad
  all_reduce(g, op=\"avg\")
  differs = (local - net.fc1.weight.grad).abs().max().item() > 1e-3
  print(rank, (net.fc1.weight.grad - g).abs().max().item() < 1e-5, differs)
}}
spawn(work, args=[2], nprocs=2)
"
    );
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(&mut s, &src);
    assert!(
        out.contains("0 True True") && out.contains("1 True True"),
        "{out}"
    );
}

/// The buckets are PyTorch 2.15's: one for the first iteration, then
/// rebuilt in the order the gradients came, the first capped at 1 MiB
/// (what `_get_ddp_logging_data()` gives for this model on a gloo group
/// of one: "3192872", then "2142248, 1050624" with indices "5 4 3 2, 1 0").
#[test]
fn buckets_are_laid_out_as_pytorchs() {
    let mut s = session(BackendChoice::Sim, 1);
    let out = ok_in(
        &mut s,
        "init_process_group(\"gloo\", rank=0, world_size=1)
net = Sequential(Linear(512, 512), ReLU(), Linear(512, 1024), ReLU(), Linear(1024, 10))
model = DistributedDataParallel(net)
d = model._get_ddp_logging_data()
print(d[\"bucket_sizes\"])
model(randn(4, 512)).sum().backward()
model(randn(4, 512)).sum().backward()
d = model._get_ddp_logging_data()
print(d[\"rebuilt_bucket_sizes\"], \"|\", d[\"rebuilt_per_bucket_param_indices\"], \"|\", d[\"num_buckets_reduced\"])
u = DistributedDataParallel(net, find_unused_parameters=true)
print(u._get_ddp_logging_data()[\"bucket_sizes\"])
destroy_process_group()
",
    );
    assert!(out.lines().any(|l| l == "3192872"), "{out}");
    assert!(out.contains("2142248, 1050624 | 5 4 3 2, 1 0 | 3"), "{out}");
    assert!(out.lines().any(|l| l == "2144296, 1048576"), "{out}");
}

/// A parameter left out of the loss: PyTorch's error at the next forward,
/// naming it; with `find_unused_parameters=true` the step works.
#[test]
fn an_unused_parameter_is_pytorchs_error_at_the_next_forward() {
    let net = "
class Net(Module):
    def __init__(self):
        super().__init__()
        self.a = Linear(4, 4)
        self.unused = Linear(4, 4)
        self.b = Linear(4, 2)
    def forward(self, x):
        return self.b(self.a(x))

";
    let mut s = session(BackendChoice::Sim, 2);
    let (_, e) = err_in(
        &mut s,
        &format!(
            "{net}fn work(rank, n) {{
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  model = DistributedDataParallel(Net().to(cuda), device_ids=[rank])
  model(randn(3, 4, device=cuda)).sum().backward()
  model(randn(3, 4, device=cuda))
}}
spawn(work, args=[2], nprocs=2)
"
        ),
    );
    assert!(
        e.contains("Process 0 terminated with the following error"),
        "{e}"
    );
    assert!(
        e.contains("Expected to have finished reduction in the prior iteration"),
        "{e}"
    );
    assert!(
        e.contains("Parameters which did not receive grad for rank 0: unused.bias, unused.weight"),
        "{e}"
    );
    assert!(
        e.contains("Parameter indices which did not receive grad for rank 0: 2 3"),
        "{e}"
    );
    let out = ok_in(
        &mut s,
        "fn ok(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  model = DistributedDataParallel(Net().to(cuda), device_ids=[rank], find_unused_parameters=true)
  for i in range(2) { model(randn(3, 4, device=cuda)).sum().backward() }
  print(rank, model.module.unused.weight.grad, model.module.a.weight.grad.shape)
}
spawn(ok, args=[2], nprocs=2)
",
    );
    assert!(out.contains("0 None torch.Size([4, 4])"), "{out}");
}

/// A rank that skips a collective, ranks that call different ones, a
/// rank that raises: each is reported at once, naming the ranks.
#[test]
fn ranks_that_go_astray_are_reported_not_hung() {
    let mut s = session(BackendChoice::Sim, 2);
    let (_, e) = err_in(
        &mut s,
        "fn skip(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  t = ones(3)
  if rank != 1 { all_reduce(t) }
}
spawn(skip, args=[3], nprocs=3)",
    );
    assert!(e.contains("Process 0 terminated"), "{e}");
    assert!(
        e.contains("rank 0: waits in all_reduce #1 (f32[3], sum) at line 4"),
        "{e}"
    );
    assert!(e.contains("rank 1: returned from its function"), "{e}");
    let (_, e) = err_in(
        &mut s,
        "fn differ(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  if rank == 0 { all_reduce(ones(3)) } else { barrier() }
}
spawn(differ, args=[2], nprocs=2)",
    );
    assert!(e.contains("the ranks call different collectives"), "{e}");
    assert!(e.contains("rank 1: barrier #1 at line 3"), "{e}");
    let (_, e) = err_in(
        &mut s,
        "fn boom(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  if rank == 1 { x = ones(2) + ones(3) }
  all_reduce(ones(2))
}
spawn(boom, args=[2], nprocs=2)",
    );
    assert!(e.contains("Process 1 terminated"), "{e}");
    assert!(e.contains("cannot be broadcast"), "{e}");
    // The session goes on, its variables intact.
    assert_eq!(
        ok_in(&mut s, "print(is_initialized())")
            .trim_end()
            .lines()
            .last(),
        Some("False")
    );
}

/// Bad input gets PyTorch's message (or cudash's where PyTorch would hang).
#[test]
fn bad_input_is_refused_clearly() {
    let mut s = session(BackendChoice::Sim, 2);
    let cases = [
        (
            "init_process_group(\"gloo\", rank=0, world_size=1)\ninit_process_group(\"gloo\", rank=0, world_size=1)",
            "trying to initialize the default process group twice!",
        ),
        (
            "init_process_group(\"gloo\", rank=3, world_size=2)",
            "Invalid rank 3, rank should be in the interval [0, 1]",
        ),
        (
            "fn f(rank, n) { init_process_group(\"nccl\", rank=rank, world_size=n) }\nspawn(f, args=[3], nprocs=3)",
            "the \"nccl\" backend takes one CUDA device per rank: world_size 3",
        ),
        (
            "all_reduce(ones(2))",
            "Default process group has not been initialized",
        ),
        (
            "fn f(rank, n) {\n  init_process_group(\"nccl\", rank=rank, world_size=n)\n  all_reduce(ones(2, device=cuda))\n}\nspawn(f, args=[2], nprocs=2)",
            "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 0",
        ),
        (
            "fn f(rank, n) {\n  init_process_group(\"nccl\", rank=rank, world_size=n)\n  all_reduce(ones(2))\n}\nspawn(f, args=[2], nprocs=2)",
            "No backend type associated with device type cpu",
        ),
        ("spawn(3, nprocs=2)", "must be a function of the rank"),
        (
            "fn f(rank, n) { init_process_group(\"gloo\", rank=rank, world_size=n) }\nspawn(f, args=[4], nprocs=2)",
            "init_process_group waits for 4 ranks, and only 2 can join",
        ),
        (
            "w = ones(2)\nfn f(rank) {\n  w.add_(1)\n}\nspawn(f, nprocs=2)",
            "a rank cannot change the session's tensors in place",
        ),
        (
            "init_process_group(\"gloo\", rank=0, world_size=1)\nm = DistributedDataParallel(Linear(2, 2), device_ids=[0, 1])",
            "device_ids can only be None or contain a single element.",
        ),
    ];
    for (src, want) in cases {
        let (_, e) = err_in(&mut s, src);
        assert!(e.contains(want), "{src}\n{e}");
        let _ = ok_in(&mut s, "if is_initialized() { destroy_process_group() }");
    }
}

/// Ctrl-C while ranks wait for each other stops every rank; the session
/// goes on.
#[test]
fn ctrl_c_stops_every_rank() {
    let mut s = session(BackendChoice::Sim, 2);
    let flag = s.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let (_, e) = err_in(
        &mut s,
        "fn f(rank) {
  if rank == 0 { sleep(30) }
  init_process_group(\"gloo\", rank=rank, world_size=2)
}
spawn(f, nprocs=2)",
    );
    stopper.join().unwrap();
    assert!(e.contains("stopped (Ctrl-C)"), "{e}");
    s.interrupt_handle()
        .store(false, std::sync::atomic::Ordering::Relaxed);
    assert!(ok_in(&mut s, "print(1 + 1)").contains('2'));
}

/// `profile` around `spawn` draws each rank's host on a lane of its own,
/// and the all-reduces on each device's `nccl` stream.
#[test]
fn profile_shows_a_lane_per_rank_and_the_nccl_streams() {
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(
        &mut s,
        "fn work(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  model = DistributedDataParallel(Linear(256, 256).to(cuda), device_ids=[rank])
  model(randn(64, 256, device=cuda)).sum().backward()
}
profile { spawn(work, args=[2], nprocs=2) }",
    );
    for lane in ["rank 0", "rank 1", "cuda:0 nccl", "cuda:1 nccl"] {
        assert!(out.contains(lane), "{lane}: {out}");
    }
}

/// `reduce_scatter(output, input_list)`: rank r gets the reduction of
/// every rank's `input_list[r]`, with NCCL's ring on the devices and with
/// gloo on the host.
#[test]
fn reduce_scatter_gives_each_rank_its_share() {
    let src = "
fn work(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  ins = [full([2], 10.0 * r + rank, device=cuda) for r in range(n)]
  out = zeros(2, device=cuda)
  reduce_scatter(out, ins)
  print(\"nccl\", rank, out.tolist())
}
spawn(work, args=(3,), nprocs=3)
fn g(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  ins = [full([2, 2], 10.0 * r + rank) for r in range(n)]
  out = zeros(2, 2)
  reduce_scatter(out, ins, op=\"max\")
  print(\"gloo\", rank, out.tolist())
}
spawn(g, args=(2,), nprocs=2)
";
    for backend in BACKENDS {
        let mut s = session(backend, 3);
        let out = ok_in(&mut s, src);
        for want in [
            "nccl 0 [3.0, 3.0]",
            "nccl 1 [33.0, 33.0]",
            "nccl 2 [63.0, 63.0]",
            "gloo 1 [[11.0, 11.0], [11.0, 11.0]]",
        ] {
            assert!(out.contains(want), "{backend:?} {want}: {out}");
        }
    }
}

/// `send` and `recv` pass a tensor round a ring of ranks (each even rank
/// sends first, each odd one receives first); a recv no rank sends to,
/// and a send and recv of different shapes, are reported.
#[test]
fn send_and_recv_pass_messages_and_strays_are_reported() {
    let src = "
fn ring(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  t = full([3], rank * 1.0, device=cuda)
  got = zeros(3, device=cuda)
  if rank % 2 == 0 {
    send(t, (rank + 1) % n)
    recv(got, (rank + n - 1) % n)
  } else {
    recv(got, (rank + n - 1) % n)
    send(t, (rank + 1) % n)
  }
  print(\"got\", rank, got.tolist())
}
spawn(ring, args=(4,), nprocs=4)
";
    for backend in BACKENDS {
        let mut s = session(backend, 4);
        let out = ok_in(&mut s, src);
        for (rank, from) in [(0, 3), (1, 0), (2, 1), (3, 2)] {
            let want = format!("got {rank} [{from}.0, {from}.0, {from}.0]");
            assert!(out.contains(&want), "{backend:?}: {out}");
        }
        let (_, e) = err_in(
            &mut s,
            "fn lonely(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  if rank == 0 { recv(zeros(2), 1) }
}
spawn(lonely, args=(2,), nprocs=2)",
        );
        assert!(
            e.contains("rank 0: waits in recv #1 (f32[2]) from rank 1 at line 3"),
            "{e}"
        );
        let (_, e) = err_in(
            &mut s,
            "fn wrong(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  if rank == 0 { send(zeros(2), 1) } else { recv(zeros(3), 0) }
}
spawn(wrong, args=(2,), nprocs=2)",
        );
        assert!(
            e.contains(
                "rank 0 sends f32[2] as its message #1 to rank 1, which receives it into f32[3]"
            ),
            "{e}"
        );
    }
}

/// The share of the block a timeline lane was busy, from `profile`'s text.
fn lane_busy(out: &str, lane: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(lane) && l.contains('│'))
        .unwrap_or_else(|| panic!("no lane {lane}: {out}"));
    let share = line
        .rsplit('│')
        .next()
        .unwrap()
        .trim()
        .trim_end_matches('%');
    share.parse().unwrap()
}

/// `profile`'s device time in seconds.
fn device_time(out: &str) -> f64 {
    let line = out.lines().find(|l| l.contains("device time")).unwrap();
    let mut words = line.split_whitespace().skip(2);
    let (n, unit) = (words.next().unwrap(), words.next().unwrap());
    let scale = match unit {
        "ms" => 1e-3,
        "µs" => 1e-6,
        "s" => 1.0,
        other => panic!("unit {other}"),
    };
    n.parse::<f64>().unwrap() * scale
}

/// Seed 001's comparison: the same model, batch and steps with
/// `DataParallel` (one interpreter: every replica's launches come from one
/// host lane) and with DDP (a process per device: each rank launches from
/// its own). Both are launch-bound here; DDP's four hosts finish the same
/// steps sooner and keep the devices busier.
#[test]
fn dataparallel_launches_from_one_host_ddp_from_each_rank() {
    let mut s = session(BackendChoice::Sim, 4);
    ok_in(
        &mut s,
        "class Net(Module):
    def __init__(self, device):
        super().__init__()
        self.fc1 = Linear(256, 512, device=device)
        self.fc2 = Linear(512, 10, device=device)
    def forward(self, x):
        return self.fc2(relu(self.fc1(x)))
fn train(model, x) {
  opt = SGD(model.parameters(), lr=0.01)
  for step in range(3) {
    model(x).pow(2).mean().backward()
    opt.step()
    opt.zero_grad()
  }
}
fn with_dp() { train(DataParallel(Net(0)), randn(512, 256, device=0)) }
fn with_ddp(rank, n) {
  init_process_group(\"nccl\", rank=rank, world_size=n)
  set_device(rank)
  train(DistributedDataParallel(Net(rank), device_ids=[rank]), randn(512 // n, 256, device=rank))
}",
    );
    let dp = ok_in(&mut s, "profile { with_dp() }");
    let ddp = ok_in(&mut s, "profile { spawn(with_ddp, args=(4,), nprocs=4) }");
    assert!(!dp.contains("rank 0"), "{dp}");
    assert!(
        lane_busy(&dp, "host ") >= 90.0,
        "the one host launches: {dp}"
    );
    for r in 0..4 {
        assert!(lane_busy(&ddp, &format!("rank {r} ")) >= 90.0, "{ddp}");
    }
    assert!(
        device_time(&ddp) < 0.75 * device_time(&dp),
        "DDP: {ddp}\nDataParallel: {dp}"
    );
    for d in 0..4 {
        let lane = format!("cuda:{d} default");
        assert!(
            lane_busy(&ddp, &lane) > lane_busy(&dp, &lane),
            "{lane}: {ddp}\n{dp}"
        );
    }
}

/// Each rank has its own copy of the session's variables, as each process
/// of `mp.spawn` has: a rank moving the session's module moves its copy.
#[test]
fn each_rank_moves_its_own_copy_of_a_session_module() {
    let mut s = session(BackendChoice::Sim, 3);
    let out = ok_in(
        &mut s,
        "net = Linear(4, 4).to(cuda)
fn work(rank, n) {
  init_process_group(\"gloo\", rank=rank, world_size=n)
  net.to(rank)
  barrier()                  # every rank has moved its module
  print(rank, net.weight.device)
}
spawn(work, args=(3,), nprocs=3)
print(net.weight.device)",
    );
    for line in ["0 cuda:0", "1 cuda:1", "2 cuda:2"] {
        assert!(out.contains(line), "{line}: {out}");
    }
    assert!(out.trim_end().ends_with("cuda:0"), "{out}");
}
