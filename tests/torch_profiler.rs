//! `torch.profiler` and `torch.utils.benchmark` in Python programs, and the
//! tutorial they serve: PyTorch's "A guide on good usage of non_blocking and
//! pin_memory()" (`tests/pasted/cuda_only/pinmem_nonblock.py`, as pasted but
//! for smaller sizes and shorter timings), on simulated GPUs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `program` with `options` in a directory of its own;
/// stdout, stderr, and the directory (the caller removes it).
fn run_in_dir(name: &str, program: &Path, options: &[&str]) -> (String, String, PathBuf) {
    let dir = std::env::temp_dir().join(format!("cudash-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(options)
        .arg("script")
        .arg(program)
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{out}\n{err}");
    (out, err, dir)
}

/// The milliseconds the tutorial's `timer(cmd)` printed for `cmd`, the
/// first time.
fn timed(out: &str, cmd: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{cmd}:")))
        .unwrap_or_else(|| panic!("no timing of {cmd} in\n{out}"));
    line.rsplit(':')
        .next()
        .unwrap()
        .trim()
        .trim_end_matches(" ms")
        .trim()
        .parse()
        .unwrap()
}

/// A trace's complete events: (name, start, end) in microseconds.
fn events(path: &Path) -> Vec<(String, f64, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (
                e["name"].as_str().unwrap().to_string(),
                ts,
                ts + e["dur"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The table's row `name`: its cells.
fn row<'a>(table: &'a str, name: &str) -> Option<Vec<&'a str>> {
    table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} ")))
        .map(|l| l.split_whitespace().collect())
}

#[test]
fn the_pinned_memory_tutorial_runs_as_pasted() {
    let program =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pasted/cuda_only/pinmem_nonblock.py");
    let (out, err, dir) = run_in_dir("pinmem", &program, &["--sim-devices", "1"]);

    // The profiler's traces: the multiplications overlap the copy only
    // when the source is pinned and the copy goes on a side stream.
    for (streamed, pinned) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let trace = dir.join(format!("trace_streamed{streamed}_pinned{pinned}.json"));
        let items = events(&trace);
        let copy = items.iter().find(|e| e.0 == "H2D copy").expect("the copy");
        let mul = items
            .iter()
            .find(|e| e.0 == "mul")
            .expect("a multiplication");
        let overlaps = mul.1 < (copy.1 + copy.2) / 2.0;
        assert_eq!(
            overlaps,
            streamed == 1 && pinned == 1,
            "streamed {streamed} pinned {pinned}: {items:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();

    // Timer's figures, on the modelled H100: a pinned source copies faster
    // than a pageable one, pinning first costs more than copying from
    // memory already pinned, and non-blocking copies of many small
    // tensors beat blocking ones (no sync after each).
    let pageable = timed(&out, "pageable_tensor.to('cuda:0')");
    let pinned = timed(&out, "pinned_tensor.to('cuda:0')");
    let pin_then_copy = timed(&out, "pageable_tensor.pin_memory().to('cuda:0')");
    assert!(pinned < pageable / 3.0, "{pinned} vs {pageable}");
    assert!(pin_then_copy > pinned, "{pin_then_copy} vs {pinned}");
    let blocking = timed(&out, "copy_to_device(*tensors)");
    let non_blocking = timed(&out, "copy_to_device_nonblocking(*tensors)");
    assert!(
        non_blocking < blocking * 0.8,
        "{non_blocking} vs {blocking}"
    );

    // The profiler's tables: a blocking `to` syncs the stream after each
    // copy; the non-blocking ones sync the device once.
    let (blocking_table, rest) = out
        .split_once("Call to `to(device)` None")
        .expect("the first table");
    let non_blocking_table = rest
        .split("Call to `to(device, non_blocking=True)`")
        .next()
        .unwrap();
    let calls =
        |table: &str, name: &str| row(table, name).map(|cells| cells.last().unwrap().to_string());
    assert_eq!(
        calls(blocking_table, "aten::to").as_deref(),
        Some("1000"),
        "{blocking_table}"
    );
    assert_eq!(
        calls(blocking_table, "cudaMemcpyAsync").as_deref(),
        Some("1000")
    );
    assert_eq!(
        calls(blocking_table, "cudaStreamSynchronize").as_deref(),
        Some("1000")
    );
    assert_eq!(
        calls(non_blocking_table, "cudaMemcpyAsync").as_deref(),
        Some("1000"),
        "{non_blocking_table}"
    );
    assert_eq!(calls(non_blocking_table, "cudaStreamSynchronize"), None);
    assert_eq!(
        calls(non_blocking_table, "cudaDeviceSynchronize").as_deref(),
        Some("1")
    );
    // Python's own calls (`exec`, a list's `append`) are not PyTorch's ops.
    assert_eq!(calls(blocking_table, "aten::append"), None);
    assert_eq!(calls(blocking_table, "aten::exec"), None);

    // Reading a non-blocking device-to-host copy before a sync reads what
    // the memory held before (and cudash says so); after a sync it is right.
    assert!(
        out.contains("0th test failed with non_blocking. Skipping remaining tests"),
        "{out}"
    );
    assert!(out.contains("No test failed with synchronize"), "{out}");
    assert!(
        err.contains("`cpu_tensor` is read on the host while the non-blocking copy into it"),
        "{err}"
    );
}

/// The table as PyTorch lays it out: the CUDA columns with device time,
/// `sort_by` descending, `row_limit` rows, the totals; a `sort_by` it does
/// not know is PyTorch's AttributeError.
#[test]
fn key_averages_sorts_and_limits_its_table() {
    let (out, err, ok) = common::script_streams_on(
        1,
        "table",
        r#"
import torch
from torch.profiler import profile, ProfilerActivity
a = torch.randn(2048, 2048, device="cuda")
with profile() as prof:
    b = a @ a
    c = b.sum().item()
t = prof.key_averages().table(sort_by="cuda_time_total", row_limit=2)
print(t)
prof.key_averages().table(sort_by="flops_per_second")
"#,
    );
    assert!(!ok);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].contains("Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls"), "{out}");
    assert!(lines[3].trim_start().starts_with("aten::matmul "), "{out}");
    assert!(
        lines[4].trim_start().starts_with("aten::matmul kernel "),
        "{out}"
    );
    assert!(lines[5].starts_with("---"), "{out}");
    assert!(lines[6].starts_with("Self CPU time total: "), "{out}");
    assert!(lines[7].starts_with("Self CUDA time total: "), "{out}");
    assert!(
        err.contains(
            "AttributeError: 'FunctionEventAvg' object has no attribute 'flops_per_second'"
        ),
        "{err}"
    );
}

/// `profile_memory=True` is accepted with a warning that cudash records no
/// memory, and a memory sort key says so rather than calling the key
/// unknown (PyTorch's recipe sorts by `self_cpu_memory_usage`).
#[test]
fn memory_columns_are_said_to_be_missing() {
    let (_, err, ok) = common::script_streams_on(
        1,
        "memory",
        r#"
import torch
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
    b = torch.ones(8) * 2
prof.key_averages().table(sort_by="self_cpu_memory_usage")
"#,
    );
    assert!(!ok);
    assert!(
        err.contains("cudash's profiler does not record memory: profile_memory=True"),
        "{err}"
    );
    assert!(
        err.contains("NotImplementedError: sort_by='self_cpu_memory_usage': cudash's torch.profiler does not record memory"),
        "{err}"
    );
}

/// `Timer` on simulated GPUs reads the modelled clock, so its figure is
/// the model's: an op too small to fill the GPU takes the host's 4 µs
/// launch each. Python alone is timed by the wall clock. The repr is
/// PyTorch's.
#[test]
fn timer_measures_on_the_modelled_clock() {
    let lines = common::script_lines_on(
        1,
        "timer",
        r#"
import torch
import torch.utils.benchmark as benchmark
x = torch.ones(100, device="cuda")
m = benchmark.Timer("y = x * 2", globals={"x": x}).timeit(100)
print(f"{m.median * 1e6:.3f}", m.number_per_run, len(m.times))
b = benchmark.Timer(stmt="x * 2", setup="x = torch.ones(100, device='cuda')", label="mul").blocked_autorange(min_run_time=0.001)
print(4.0 <= b.median * 1e6 <= 4.3, b.iqr < 1e-12, b.number_per_run >= 1, len(b.times) >= 1)
r = repr(b).splitlines()
print(r[0].startswith("<torch.utils.benchmark.utils.common.Measurement object at 0x"))
print(r[1:4])
w = benchmark.Timer("sum(range(100))").timeit(10)
print(w.median > 0)
"#,
    );
    // 100 launches of 4 µs, and the last kernel's 2 µs after them.
    assert_eq!(lines[0], "4.020 100 1");
    // A block's runs share the last kernel's 2 µs.
    assert_eq!(lines[1], "True True True True", "{lines:?}");
    assert_eq!(lines[2], "True");
    assert!(
        lines[3]
            .starts_with("['mul', \"setup: x = torch.ones(100, device='cuda')\", '  Median: 4."),
        "{lines:?}"
    );
    assert_eq!(lines[4], "True");
}

/// A program's own clock (`time.perf_counter`, its `_ns` form, `timeit`)
/// times GPU work as the benchmark's timer does on simulated devices: 100
/// launches of 4 µs and the last kernel's 2 µs, whatever the simulator
/// spent; a stretch of Python alone moves it by the wall clock.
#[test]
fn the_programs_clock_times_the_modelled_gpu() {
    let lines = common::script_lines_on(
        1,
        "program_clock",
        r#"
import time, timeit
import torch
x = torch.ones(100, device="cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(100):
    y = x * 2
torch.cuda.synchronize()
t1 = time.perf_counter()
n0 = time.perf_counter_ns()
for _ in range(100):
    y = x * 2
torch.cuda.synchronize()
n1 = time.perf_counter_ns()
print(f"{(t1 - t0) * 1e6:.3f}", n1 - n0)
print(f"{timeit.timeit('y = x * 2; torch.cuda.synchronize()', number=100, globals=globals()) / 100 * 1e6:.3f}")
t2 = time.perf_counter()
time.sleep(0.05)
s = sum(i for i in range(20000))
print(time.perf_counter() - t2 >= 0.05)
"#,
    );
    let (us, ns) = lines[0].split_once(' ').unwrap();
    assert_eq!(us, "402.000", "{lines:?}");
    assert!(
        (ns.parse::<i64>().unwrap() - 402_000).abs() <= 1,
        "{lines:?}"
    );
    // Each run launches and waits: the launch, the kernel, the sync's return.
    let each: f64 = lines[1].parse().unwrap();
    assert!((5.0..10.0).contains(&each), "{lines:?}");
    assert_eq!(lines[2], "True");
}

/// `exec(source, g)` and `eval(source, g)` run in the dict `g`'s names and
/// leave what they assign there; the module's own variables stay as they
/// were.
#[test]
fn exec_and_eval_run_in_a_dict_of_names() {
    let lines = common::script_lines_on(
        0,
        "exec_globals",
        r#"
a = 1
g = {"a": 2}
exec("b = a + 1\na = 10", g)
print(a, g["a"], g["b"], eval("a * b", g), eval("a"))
def f():
    return a
print(eval("f() + 1", {"f": f}))
"#,
    );
    assert_eq!(lines, ["1 10 3 30 1", "2"]);
}

/// `record_function(name)` is a row of its own: its span, and the device
/// time of what was launched inside it (here two kernels of the model's
/// 2 µs, not the `sum` after it). The older `torch.autograd.profiler.profile`
/// lists autograd's nodes under PyTorch's names.
#[test]
fn record_function_and_the_older_profiler() {
    let (out, err, ok) = common::script_streams_on(
        1,
        "record_function",
        r#"
import torch
from torch.profiler import profile, record_function, ProfilerActivity
x = torch.randn(256, 256, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    with record_function("model_inference"):
        y = (x @ x).relu()
    z = y.sum()
print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
w = torch.ones(3, requires_grad=True)
with torch.autograd.profiler.profile() as prf:
    (w * 2).sum().backward()
print(prf.key_averages().table(sort_by="self_cpu_time_total"))
torch.autograd.profiler.profile(use_cuda=True)
"#,
    );
    assert!(!ok);
    let inference = row(&out, "model_inference").expect("its row");
    assert_eq!(
        inference[1..],
        [
            "0.00%", "0.000us", "66.67%", "8.000us", "8.000us", "0.000us", "0.00%", "4.000us",
            "4.000us", "1"
        ],
        "{out}"
    );
    assert_eq!(
        row(&out, "cudaLaunchKernel").unwrap().last(),
        Some(&"3"),
        "{out}"
    );
    assert!(
        out.contains("autograd::engine::evaluate_function: MulBackward0"),
        "{out}"
    );
    assert!(
        err.contains("TypeError") && err.contains("`use_cuda`"),
        "{err}"
    );
}
