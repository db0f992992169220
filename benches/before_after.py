"""The per-op host overhead of two cudash binaries, side by side in one run:
the tiny-op loop and a small matmul loop, on cpu and on a simulated device.
Runs alternate between the binaries and each figure is the best of several,
so machine noise hits both alike; CPU time rather than wall time, since
other tenants of a shared machine disturb it less.

With --autograd it times autograd's costs instead: recording a graph
(the same tiny-op loop with `requires_grad`, and the ratio of the two, whose
target is at most 1.5×) and running backward (the engine's own cost per
backward: tiny graphs, parts of a `chunk`, a simulated device).

With --callgrind it counts instructions under valgrind instead (a tenth of
the iterations, start-up subtracted): deterministic for the tiny-op loops,
which run on one thread, and the figure to trust on a noisy machine.

Usage: python3 benches/before_after.py BEFORE_BIN AFTER_BIN [--reps N] [--autograd] [--callgrind]
(build the old binary from a worktree: `git worktree add /tmp/before REV`,
then `cargo build --profile perf` there).
"""

import os
import re
import resource
import subprocess
import sys
import tempfile

BINS = {"before": sys.argv[1], "after": sys.argv[2]}
REPS = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5

CASES = [
    ("tiny-op loop, 200,000 × `y = x * 2 + 1`, 16 f32, cpu",
     "x = ones(16)\nfor i in 0..200000 { y = x * 2 + 1 }\n", 200_000),
    ("tiny-op loop, 200,000 × `y = x * 2 + 1`, 16 f32, sim cuda:0",
     "x = ones(16, device=cuda)\nfor i in 0..200000 { y = x * 2 + 1 }\n", 200_000),
    ("small matmul, 50,000 × `c = a @ a`, 16×16 f32, cpu",
     "a = randn(16, 16)\nfor i in 0..50000 { c = a @ a }\n", 50_000),
    ("small matmul, 50,000 × `c = a @ a`, 16×16 f32, sim cuda:0",
     "a = randn(16, 16, device=cuda)\nfor i in 0..50000 { c = a @ a }\n", 50_000),
]

AUTOGRAD = [
    ("plain, 200,000 × `y = x * 2 + 1`, 16 f32, cpu",
     "x = ones(16)\nfor i in 0..200000 { y = x * 2 + 1 }\n", 200_000),
    ("recording, the same with `x` requiring grad",
     "x = ones(16, requires_grad=true)\nfor i in 0..200000 { y = x * 2 + 1 }\n", 200_000),
    ("backward, 50,000 × `(x * 2 + 1).sum().backward()`, cpu",
     "x = ones(16, requires_grad=true)\nfor i in 0..50000 { (x * 2 + 1).sum().backward() }\n",
     50_000),
    ("backward through 4 parts, 20,000 × `ps = x.chunk(4)` and a sum of them",
     "x = ones(64, requires_grad=true)\nfor i in 0..20000 { ps = x.chunk(4)\n"
     "(ps[0] + ps[1] * 2 + ps[2] + ps[3]).sum().backward() }\n", 20_000),
    ("backward, 20,000 × `(x * 2 + 1).sum().backward()`, sim cuda:0",
     "x = ones(16, device=cuda, requires_grad=true)\n"
     "for i in 0..20000 { (x * 2 + 1).sum().backward() }\n", 20_000),
]
if "--autograd" in sys.argv:
    CASES = AUTOGRAD


def cpu_per_op(binary: str, script: str, ops: int) -> float:
    """CPU seconds (user + system) of the whole `cudash run` per op: less
    disturbed by other tenants than wall time; start-up (a few ms) is the
    same for both binaries and small beside the loop."""
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([binary, "run", path, "--no-color"], capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(path)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu / ops


def instructions(binary: str, script: str) -> int:
    """Instructions `cudash run` executes on `script`, counted by callgrind."""
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        err = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              binary, "run", path], capture_output=True, text=True,
                             check=True).stderr
    finally:
        os.unlink(path)
    return int(re.search(r"Collected : (\d+)", err).group(1))


if "--callgrind" in sys.argv:
    print("| instructions per iteration (callgrind) | before | after | after / before |")
    print("| --- | ---: | ---: | ---: |")
    start = {k: instructions(b, "") for k, b in BINS.items()}
    for name, script, ops in CASES:
        n = ops // 10
        small = script.replace(str(ops), str(n))
        per = {k: (instructions(b, small) - start[k]) / n for k, b in BINS.items()}
        print(f"| {name.replace(f'{ops:,}', f'{n:,}')} | {per['before']:,.0f} | {per['after']:,.0f} | "
              f"{per['after'] / per['before']:.3f}× |", flush=True)
    sys.exit(0)

print("| host CPU time per iteration (best of %d) | before | after | after / before |" % REPS)
print("| --- | ---: | ---: | ---: |")
bests = []
for name, script, ops in CASES:
    best = {k: float("inf") for k in BINS}
    for _ in range(REPS):
        for k, b in BINS.items():
            best[k] = min(best[k], cpu_per_op(b, script, ops))
    bests.append(best)
    print(f"| {name} | {best['before'] * 1e9:.0f} ns | {best['after'] * 1e9:.0f} ns | "
          f"{best['after'] / best['before']:.2f}× |", flush=True)
if CASES is AUTOGRAD:
    plain, recording = bests[0], bests[1]
    print("\nrecording / plain (target at most 1.5×): before %.2f×, after %.2f×"
          % (recording["before"] / plain["before"], recording["after"] / plain["after"]))
