"""Host cost of one op on `--backend emu` beside `--backend sim`, in one run.

emu runs the CUDA backend's own code (device memory, `cuda::exec` launch
plans, driver calls) with the kernels compiled for the host; sim computes
with the host ops. Each figure is whole-process wall time for N iterations
minus the same script with no iterations (start-up excluded), best of
REPS, per op. Issue 18 asks emu's per-op host cost to be at most 3x sim's.

    python3 benches/emu_vs_sim.py target/release/cudash [N] [REPS]
"""

import os
import subprocess
import sys
import tempfile
import time

CUDASH = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
REPS = int(sys.argv[3]) if len(sys.argv) > 3 else 5

CASES = [
    ("`y = x * 2 + 1`, 16 f32 (2 ops)", "x = randn(16, device=cuda)", "y = x * 2 + 1", 2),
    ("`s = x.sum()`, 4096 f32", "x = randn(4096, device=cuda)", "s = x.sum()", 1),
    ("`z = a @ a`, 32x32 f32", "a = randn(32, 32, device=cuda)", "z = a @ a", 1),
]


def wall(backend: str, setup: str, body: str, n: int) -> float:
    script = f"{setup}\nfor i in 0..{n} {{ {body} }}\nsync\n"
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        path = f.name
    best = float("inf")
    for _ in range(REPS):
        t = time.perf_counter()
        subprocess.run([CUDASH, "run", path, "--backend", backend], check=True, capture_output=True)
        best = min(best, time.perf_counter() - t)
    os.unlink(path)
    return best


def per_op(backend, setup, body, ops):
    return (wall(backend, setup, body, N) - wall(backend, setup, body, 0)) / (N * ops)


print(f"| op ({N:,} iterations) | sim | emu | emu / sim | target |")
print("| --- | --- | --- | --- | --- |")
for name, setup, body, ops in CASES:
    sim = per_op("sim", setup, body, ops)
    emu = per_op("emu", setup, body, ops)
    target = "≤ 3×" if ops == 2 else "(reported)"
    print(f"| {name} | {sim * 1e6:.2f} µs | {emu * 1e6:.2f} µs | {emu / sim:.2f}× | {target} |")
