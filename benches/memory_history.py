"""The allocator's history (issue 52): what recording costs a loop of tiny
ops on a simulated device, side by side with recording off in one run; how
long `dump_snapshot` takes for a full ring of 100,000 events; and the
process's memory over a million allocations once the ring is full.

Usage: python benches/memory_history.py CUDASH [--quick]   (prints a markdown table)
"""

import os
import re
import subprocess
import sys
import tempfile
import time

CUDASH = sys.argv[1]
QUICK = "--quick" in sys.argv
SCALE = 10 if QUICK else 1


ENV = dict(os.environ, CUDASH_BACKEND="sim")


def script_file(script: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        return f.name


def run(script: str) -> str:
    path = script_file(script)
    out = subprocess.run([CUDASH, "run", path, "--no-color"], capture_output=True, text=True, env=ENV, check=True).stdout
    os.unlink(path)
    return out


def seconds(out: str) -> list:
    units = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
    return [float(v) * units[u] for v, u in re.findall(r"time: ([0-9.]+) (ns|µs|ms|s) per iteration", out)]


def fmt(s: float) -> str:
    for unit, k in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= k:
            return f"{s / k:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def wall(script: str) -> float:
    """The whole run's wall time: on a simulated device `time` reports the
    modelled device time, not what the host spent."""
    t = time.perf_counter()
    run(script)
    return time.perf_counter() - t


iters = 400_000 // SCALE
LOOP = f"x = ones(16, device=cuda)\nfor i in 0..{iters} {{ y = x * 2 + 1 }}\n"
on, off = float("inf"), float("inf")
for _ in range(1 if QUICK else 7):  # alternating, so load on a shared machine slows both
    on = min(on, wall(LOOP))
    off = min(off, wall("record_memory_history(enabled=false)\n" + LOOP))

events = 100_000 // SCALE
fill = f"record_memory_history(max_entries={events})\nfor i in 0..{events} {{ x = ones(1000, device=cuda) }}\n"
dump = min(
    seconds(run(fill + 'time 1 { dump_snapshot("' + tempfile.gettempdir() + '/cudash-bench.pickle") }\n'))[-1]
    for _ in range(1 if QUICK else 3)
)
size = os.path.getsize(os.path.join(tempfile.gettempdir(), "cudash-bench.pickle"))

# Peak RSS of a run of 100k allocations against one of 1M: the ring is full
# after the first 33,334 (three events each), so the longer run must not grow.
allocs = 1_000_000 // SCALE


def peak_rss(script: str) -> int:
    """The peak resident memory of one run, in KiB (this child's alone: wait4)."""
    path = script_file(script)
    p = subprocess.Popen([CUDASH, "run", path, "--no-color"], stdout=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = status
    os.unlink(path)
    return usage.ru_maxrss


short = f"for i in 0..{allocs // 10} {{ x = ones(1000, device=cuda) }}\n"
long = f"for i in 0..{allocs} {{ x = ones(1000, device=cuda) }}\n"
rss_short = peak_rss(short)
rss_long = peak_rss(long)

met = lambda ok: "n/a (quick)" if QUICK else ("yes" if ok else "**no**")
print()
print("The allocator's history (simulated device, `CUDASH_BACKEND=sim`):")
print()
print("| benchmark | figure | reference | ratio | target | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
print(f"| tiny-op loop on cuda ({iters:,} × `y = x * 2 + 1`, whole run), recording on | {fmt(on)} | {fmt(off)} off | {on / off:.3f}× | ≤ 1.05× | {met(on <= 1.05 * off)} |")
print()
print("| benchmark | figure | target | met |")
print("| --- | ---: | --- | --- |")
print(f"| `dump_snapshot` of {events:,} events ({size / 2**20:.1f} MiB written) | {fmt(dump)} | < 200 ms | {met(dump < 0.2)} |")
print()
print(f"Peak RSS with the ring full (100,000 events): {rss_short / 1024:.0f} MiB after {allocs // 10:,} allocations, "
      f"{rss_long / 1024:.0f} MiB after {allocs:,} ({rss_long / rss_short:.2f}×; target: flat; met: {met(rss_long <= 1.1 * rss_short)}).")
