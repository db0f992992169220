//! CUDA graphs (`torch.cuda.CUDAGraph`, `torch.cuda.graph`) on the
//! simulator and on emu: what a replay costs the host, that it allocates
//! nothing, what a graph keeps alive, and what capture refuses.

use cudash::runtime::backend::BackendChoice;
use cudash::session::{Config, Session};

fn session(backend: BackendChoice) -> Session {
    Session::new(Config {
        backend,
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("--backend {}: {e}", backend.name()))
}

const BACKENDS: [BackendChoice; 2] = [BackendChoice::Sim, BackendChoice::Emu];

/// Runs `src` on `s`, which must succeed; what it printed.
fn ok(s: &mut Session, src: &str) -> String {
    let o = s.execute(src);
    if let Some(e) = &o.error {
        panic!("`{src}` failed:\n{}", e.report);
    }
    o.plain_text()
}

const CAPTURE_TEN: &str = "import torch, time
x = torch.randn(64, 64, device='cuda')
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x
    for _ in range(10):
        y = y * 1.01
torch.cuda.synchronize()";

/// Ten captured kernels cost the host one launch when replayed; the same
/// ten ops run eagerly cost ten (the modelled host clock: 4 µs a launch).
#[test]
fn a_replay_costs_the_host_one_launch() {
    for backend in BACKENDS {
        let mut s = session(backend);
        ok(&mut s, CAPTURE_TEN);
        let got = ok(
            &mut s,
            "t0 = time.perf_counter()
g.replay()
t1 = time.perf_counter()
for _ in range(10):
    z = x * 1.01
t2 = time.perf_counter()
print(round((t1 - t0) * 1e6), round((t2 - t1) * 1e6))",
        );
        assert_eq!(got.trim(), "4 40", "on {}", backend.name());
        // And the replay computed what eager ops compute.
        let same = ok(
            &mut s,
            "z = x\nfor _ in range(10):\n    z = z * 1.01\nprint(torch.equal(y, z))",
        );
        assert_eq!(same.trim(), "True", "on {}", backend.name());
    }
}

/// A replay writes the blocks the capture took: no allocation, no new
/// segment, whatever the number of replays.
#[test]
fn a_replay_allocates_nothing() {
    for backend in BACKENDS {
        let mut s = session(backend);
        ok(&mut s, CAPTURE_TEN);
        let got = ok(
            &mut s,
            "stats = torch.cuda.memory_stats()
before = (stats['allocation.all.allocated'], stats['segment.all.allocated'], torch.cuda.memory_allocated())
for _ in range(5):
    g.replay()
torch.cuda.synchronize()
stats = torch.cuda.memory_stats()
after = (stats['allocation.all.allocated'], stats['segment.all.allocated'], torch.cuda.memory_allocated())
print(before == after)",
        );
        assert_eq!(got.trim(), "True", "on {}", backend.name());
    }
}

/// A graph does not keep what it computes: a result the program holds is
/// memory the program holds (`memory_allocated` counts it), and one it
/// drops, during capture or after, is freed at once, as PyTorch gives its
/// block back to the graph's pool. Replays still compute it, for the ops
/// that read it (into memory of their own), and write what the program
/// holds.
#[test]
fn a_graph_keeps_none_of_its_results() {
    for backend in BACKENDS {
        let mut s = session(backend);
        let got = ok(
            &mut s,
            "import torch
MB = 2 ** 20
x = torch.ones(256 * 1024, device='cuda')
base = torch.cuda.memory_allocated()
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    a = x * 2
    b = a + 1
    del a
    total = b.sum()
print((torch.cuda.memory_allocated() - base) / MB)
del b
print((torch.cuda.memory_allocated() - base) / MB)
_ = x.fill_(2.0)
g.replay()
print(total.item())
g.replay()
print(total.item(), (torch.cuda.memory_allocated() - base) / MB)",
        );
        assert_eq!(
            got.trim(),
            "1.00048828125\n0.00048828125\n1310720.0\n1310720.0 0.00048828125",
            "on {}",
            backend.name()
        );
    }
}

/// Waits and events on the capturing stream are refused (cudash captures
/// one stream), and so is a replay of a graph while another captures.
#[test]
fn capture_refuses_what_it_cannot_record() {
    let mut s = session(BackendChoice::Sim);
    ok(
        &mut s,
        "import torch\nx = torch.ones(4, device='cuda')\nother = torch.cuda.Stream()",
    );
    let o = s.execute(
        "g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x + 1
    other.wait_stream(torch.cuda.current_stream())",
    );
    let e = o.error.expect("a fork into another stream is refused");
    assert!(
        e.evalue.contains("captures the work of one stream"),
        "{}",
        e.evalue
    );
    // The capture ended (with the error), and the session goes on.
    ok(&mut s, "torch.cuda.set_stream(torch.cuda.default_stream())");
    assert_eq!(
        ok(&mut s, "print(torch.cuda.is_current_stream_capturing())").trim(),
        "False"
    );
    assert_eq!(
        ok(&mut s, "print((x + 1).tolist())").trim(),
        "[2.0, 2.0, 2.0, 2.0]"
    );
}

/// The ops a random captured program is made of: each reads earlier
/// values (`v0` is the static input) and makes the next one; in-place ones
/// update one.
const OPS: &[&str] = &[
    "v{n} = v{a} * 2 + v{b}",
    "v{n} = torch.relu(v{a} - 0.5)",
    "v{n} = v{a}.exp().clamp(max=10)",
    "v{n} = v{a} @ w",
    "v{n} = v{a}.sum(0, keepdim=True) + v{b}",
    "v{n} = torch.where(v{a} > 0, v{b}, -v{b})",
    "v{n} = v{a}.sort(dim=1)[0]",
    "v{n} = v{a}.softmax(1)",
    "v{n} = v{a}[idx]",
    "v{n} = v{a}.to(torch.float16).to(torch.float32)",
    "v{a}.mul_(0.5)",
    "v{a}.add_(v{b})",
    "v{a}[idx] = v{b}[idx] * 3",
];

/// `ops` as a program: each index picks an op and the values it reads.
fn program(ops: &[(usize, usize, usize)]) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    let mut n = 1;
    for &(op, a, b) in ops {
        let template = OPS[op % OPS.len()];
        let line = template
            .replace("{n}", &n.to_string())
            .replace("{a}", &(a % n).to_string())
            .replace("{b}", &(b % n).to_string());
        if template.starts_with("v{n}") {
            n += 1;
        }
        lines.push(line);
    }
    (lines, n)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// A random program captured once and replayed on a new input computes
    /// what the same program computes eagerly on that input, on the
    /// simulator and on emu, whether the program keeps a result or not.
    #[test]
    fn a_replay_computes_what_eager_ops_compute(
        ops in proptest::collection::vec((0usize..13, 0usize..8, 0usize..8), 1..12)
    ) {
        let (lines, n) = program(&ops);
        let body: String = lines.iter().map(|l| format!("    {l}\n")).collect();
        // Some results are returned and some dropped (the replay makes
        // those in memory of its own).
        let values: Vec<String> = (0..n)
            .filter(|k| k % 2 == 0 || k + 1 == n)
            .map(|k| format!("v{k}"))
            .collect();
        let src = format!(
            "import torch
torch.manual_seed(0)
w = torch.randn(4, 4, device='cuda')
idx = torch.tensor([2, 0, 3, 0], device='cuda')
def f(v0):
{body}    return [{values}]
static = torch.randn(4, 4, device='cuda')
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    outs = f(static)
fresh = torch.randn(4, 4, device='cuda')
_ = static.copy_(fresh)
g.replay()
want = f(fresh.clone())
print(all(torch.equal(a, b) for a, b in zip(outs[1:], want[1:])))",
            values = values.join(", ")
        );
        for backend in BACKENDS {
            let mut s = session(backend);
            let got = ok(&mut s, &src);
            proptest::prop_assert_eq!(got.trim(), "True", "on {}:\n{}", backend.name(), src);
        }
    }
}

/// `torch.profiler` shows a replay as PyTorch's does: one
/// `cudaGraphLaunch` on the host, and each captured kernel under its op.
#[test]
fn the_profiler_shows_one_graph_launch_and_every_kernel() {
    for backend in BACKENDS {
        let mut s = session(backend);
        ok(&mut s, CAPTURE_TEN);
        let table = ok(
            &mut s,
            "import torch.profiler
acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
with torch.profiler.profile(activities=acts) as prof:
    g.replay()
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by='cuda_time_total', row_limit=10))",
        );
        let row = |name: &str| {
            table
                .lines()
                .find(|l| l.split_whitespace().next() == Some(name))
                .map(|l| l.split_whitespace().last().unwrap_or("").to_string())
        };
        assert_eq!(row("cudaGraphLaunch").as_deref(), Some("1"), "{table}");
        assert_eq!(row("cudaLaunchKernel"), None, "{table}");
        let kernels = table
            .lines()
            .find(|l| l.trim_start().starts_with("aten::mul kernel"));
        assert!(
            kernels.is_some_and(|l| l.trim_end().ends_with(" 10")),
            "{table}"
        );
    }
}
