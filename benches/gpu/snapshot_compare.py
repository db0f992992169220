"""Issue 52's GPU check: the same allocations in PyTorch (with
`torch.cuda.memory._record_memory_history()`) and in cudash `--backend
cuda`, and their memory snapshots compared: the segments (sizes and types,
in address order) with their blocks (size, requested size, state), and each
device's trace as (action, size) in order. Addresses differ and are not
compared. The cudash snapshot is also read by PyTorch's own
`torch.cuda._memory_viz` (`stats` and `trace`).

    python3 benches/gpu/snapshot_compare.py gpu-bin/cudash [--backend cuda]

`--backend sim` (or `emu`) on a machine without a GPU runs only cudash's
side and prints its summary (no PyTorch CUDA allocator to compare with).
"""

import os
import pickle
import subprocess
import sys
import tempfile

CUDASH = sys.argv[1]
BACKEND = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cuda"

# (cudash statement, PyTorch statement): no matmul (cuBLAS's workspace would
# be an allocation cudash does not make), only factories and frees.
STEPS = [
    ("x = zeros(50000, device=cuda)", "x = torch.zeros(50000, device='cuda')"),
    ("big = zeros(5 * 2**18, device=cuda)", "big = torch.zeros(5 * 2**18, device='cuda')"),
    ("del x", "del x"),
    ("a = zeros(5 * 2**18, device=cuda)", "a = torch.zeros(5 * 2**18, device='cuda')"),
    ("b = zeros(5 * 2**18, device=cuda)", "b = torch.zeros(5 * 2**18, device='cuda')"),
    ("c = zeros(5 * 2**18, device=cuda)", "c = torch.zeros(5 * 2**18, device='cuda')"),
    ("del a", "del a"),
    ("del c", "del c"),
    ("wide = zeros(2**21, device=cuda)", "wide = torch.zeros(2**21, device='cuda')"),
    ("huge = zeros(3 * 2**22, device=cuda)", "huge = torch.zeros(3 * 2**22, device='cuda')"),
    ("small = ones(100, device=cuda)", "small = torch.ones(100, device='cuda')"),
    ("del huge", "del huge"),
    ("empty_cache()", "torch.cuda.empty_cache()"),
]


def shape(snap):
    segs = sorted(snap["segments"], key=lambda s: (s["device"], s["address"]))
    segments = [
        (s["device"], s["total_size"], s["segment_type"],
         [(b["size"], b["requested_size"], b["state"]) for b in s["blocks"]])
        for s in segs
    ]
    traces = [[(e["action"], e["size"]) for e in t] for t in snap["device_traces"]]
    return segments, traces


def cudash_snapshot(path):
    script = "\n".join(c for c, _ in STEPS) + f'\ndump_snapshot("{path}")\n'
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
    out = subprocess.run([CUDASH, "run", f.name, "--backend", BACKEND, "--no-color"],
                         capture_output=True, text=True)
    os.unlink(f.name)
    if out.returncode != 0:
        raise SystemExit(f"cudash failed:\n{out.stdout}{out.stderr}")
    with open(path, "rb") as f:
        return pickle.load(f)


def torch_snapshot():
    import torch
    torch.cuda.memory._record_memory_history(max_entries=100000)
    scope = {"torch": torch}
    for _, stmt in STEPS:
        exec(stmt, scope)  # noqa: S102 - our own statements
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    # Only the first device, as cudash's script uses.
    snap["device_traces"] = snap["device_traces"][:1]
    snap["segments"] = [s for s in snap["segments"] if s["device"] == 0]
    return snap


path = os.path.join(tempfile.gettempdir(), "cudash-snapshot-compare.pickle")
ours = cudash_snapshot(path)
ours["device_traces"] = ours["device_traces"][:1]
ours["segments"] = [s for s in ours["segments"] if s["device"] == 0]
our_segments, our_traces = shape(ours)
print(f"cudash ({BACKEND}): {len(our_segments)} segments, {len(our_traces[0])} events on cuda:0")
for s in our_segments:
    print("  ", s)
viz = None
try:
    import torch.cuda._memory_viz as viz
except ImportError:
    print("PyTorch is not installed: no comparison")
if viz is not None:
    with open(path, "rb") as f:
        data = pickle.load(f)
    print(viz.segsum(data).splitlines()[0])
    print(viz.trace(data).splitlines()[1])
if BACKEND != "cuda" or viz is None:
    sys.exit(0)
theirs = torch_snapshot()
their_segments, their_traces = shape(theirs)
ok = True
if our_segments != their_segments:
    ok = False
    print("segments differ; PyTorch's:")
    for s in their_segments:
        print("  ", s)
if our_traces != their_traces:
    ok = False
    print("traces differ:")
    for i, (a, b) in enumerate(zip(our_traces[0], their_traces[0])):
        mark = "  " if a == b else "!!"
        print(f"{mark} {i:3} cudash {a}  PyTorch {b}")
    print(f"   lengths: cudash {len(our_traces[0])}, PyTorch {len(their_traces[0])}")
print("snapshots agree: segments, blocks and trace" if ok else "snapshots DIFFER")
sys.exit(0 if ok else 1)
