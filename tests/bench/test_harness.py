"""The benchmark harness's quick mode: `benches/run --quick` against the test
build. It checks that every measurement runs and lands in the table with a
figure, not what the figures are (a debug build on a shared machine)."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CUDASH = Path(os.environ.get("CUDASH_BIN", ROOT / "target" / "debug" / "cudash")).resolve()

FIGURE = re.compile(r"^[0-9.]+ (ns|µs|ms|s)( median)?$|^[0-9.]+ (ns|µs)/(element|statement)$")

# Every row the harness promises, by the start of its first cell.
ROWS = [
    "tiny-op loop",
    "tiny-op loop on cuda",
    "`dump_snapshot` of",
    "add, ",
    "sum, ",
    "matmul ",
    "`cudash run` empty script",
    "REPL start-up to the first prompt",
    "add, 1,024 f32, cpu",
    "sum, 4,194,304 f32, cpu",
    "add, 4,194,304 f32, simulated cuda:0 (host cost)",
    "script of 10,000 statements",
    "10,000 kernels under `profile` (timeline)",
    "10,000 kernels under `profile \"run.json\"`",
    "round trip of `1 + 1`",
    "launch to first kernel_info_reply",
    "cached 1 MiB alloc+free (allocator)",
    "cached 1 MiB alloc+free (device registry, lock + guard)",
    "100000 alloc/free cycles, a fixed set of 256 random sizes",
]


def table_rows(text):
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            yield cells


def test_the_quick_harness_measures_everything_it_promises():
    env = dict(os.environ, CUDASH_BIN=str(CUDASH), BENCH_PYTHON=sys.executable)
    run = subprocess.run(
        ["bash", "benches/run", "--quick"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    text = (ROOT / "target" / "bench-quick.md").read_text()
    assert text == run.stdout, "the table file differs from what was printed"
    rows = [r for r in table_rows(text) if r[0] not in ("benchmark", "scaling", "Jupyter benchmark", "allocator benchmark")]
    for want in ROWS:
        assert any(r[0].startswith(want) for r in rows), f"no row `{want}…` in:\n{text}"
    for r in rows:
        assert FIGURE.match(r[1]) or r[1].split(";")[0].endswith("ns per cycle"), f"row without a figure: {r}"
        if len(r) == 6:  # the side-by-side tables: a ratio, and no verdict on quick timings
            assert re.match(r"^[0-9.]+×$", r[3]), r
            assert r[5] == "n/a (quick)", r
    # No verdict on a quick run anywhere: its sizes and cycle counts are too small.
    assert "**no**" not in text and "| yes |" not in text, text
