"""10,000 adds of 1,000 f32 run end to end from a cudash script, on
`--backend cuda` (issue 19: at least 2x faster than PyTorch eager from
Python, `torch_ref.py`'s small_adds_10k). Whole-process wall time of the
script minus the same script with no iterations (start-up, context and
kernel loading excluded), best of 3; prints one JSON line as
benches/gpu/main.rs does.

    python3 benches/gpu/script_adds.py gpu-bin/cudash [--backend cuda]
"""

import json
import os
import subprocess
import sys
import tempfile
import time

CUDASH = sys.argv[1]
BACKEND = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cuda"
OPS = 10_000


def wall(iterations: int) -> float:
    script = (
        "x = randn(1000, device=cuda)\n"
        "one = ones(1000, device=cuda)\n"
        "y = x + one\n"
        f"for i in 0..{iterations - 1} {{ y = y + one }}\n"
        "sync\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        path = f.name
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([CUDASH, "run", path, "--backend", BACKEND], check=True, capture_output=True)
        best = min(best, time.perf_counter() - t)
    os.unlink(path)
    return best


ms = (wall(OPS) - wall(1)) * 1e3 * OPS / (OPS - 1)
print(json.dumps({"name": "small_adds_script_10k", "ms": ms, "us_per_op": ms * 1e3 / OPS, "backend": BACKEND}))
