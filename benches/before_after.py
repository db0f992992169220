"""The per-op host overhead of two cudash binaries, side by side in one run:
the tiny-op loop and a small matmul loop, on cpu and on a simulated device.
Runs alternate between the binaries and each figure is the best of several,
so machine noise hits both alike.

Usage: python3 benches/before_after.py BEFORE_BIN AFTER_BIN [--reps N]
(build the old binary from a worktree: `git worktree add /tmp/before REV`,
then `cargo build --release` there).
"""

import os
import re
import subprocess
import sys
import tempfile

BINS = {"before": sys.argv[1], "after": sys.argv[2]}
REPS = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5

CASES = [
    ("tiny-op loop, 200,000 × `y = x * 2 + 1`, 16 f32, cpu",
     "x = ones(16)\ntime 1 { for i in 0..200000 { y = x * 2 + 1 } }\n", 200_000),
    ("tiny-op loop, 200,000 × `y = x * 2 + 1`, 16 f32, sim cuda:0",
     "x = ones(16, device=cuda)\ntime 1 { for i in 0..200000 { y = x * 2 + 1 } }\n", 200_000),
    ("small matmul, 50,000 × `c = a @ a`, 16×16 f32, cpu",
     "a = randn(16, 16)\ntime 1 { for i in 0..50000 { c = a @ a } }\n", 50_000),
    ("small matmul, 50,000 × `c = a @ a`, 16×16 f32, sim cuda:0",
     "a = randn(16, 16, device=cuda)\ntime 1 { for i in 0..50000 { c = a @ a } }\n", 50_000),
]


def profiled(script: str) -> str:
    """`profile { }` reports the host wall clock also where `time` would
    report (modelled) device time."""
    return script.replace("time 1 {", "profile {")


def profile_wall(binary: str, script: str, ops: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(profiled(script))
        path = f.name
    try:
        out = subprocess.run([binary, "run", path, "--no-color"], capture_output=True,
                             text=True, check=True).stdout
    finally:
        os.unlink(path)
    m = re.findall(r"wall time\s+([0-9.]+) (ns|µs|ms|s)", out)
    if not m:
        raise SystemExit(f"no wall time in:\n{out}")
    value, unit = m[-1]
    return float(value) * {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit] / ops


print("| per-op host time | before | after | after / before |")
print("| --- | ---: | ---: | ---: |")
for name, script, ops in CASES:
    best = {k: float("inf") for k in BINS}
    for _ in range(REPS):
        for k, b in BINS.items():
            best[k] = min(best[k], profile_wall(b, script, ops))
    print(f"| {name} | {best['before'] * 1e9:.0f} ns | {best['after'] * 1e9:.0f} ns | "
          f"{best['after'] / best['before']:.2f}× |", flush=True)
