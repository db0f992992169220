"""Issue 64's GPU check: the copy and pinning costs cudash models, beside
what PyTorch measures on the same GPU and host.

    python3 benches/gpu/pinning_compare.py gpu-bin/cudash [--backend sim]

Rows (8 MiB unless said): a pageable host-to-device copy (`x.to('cuda')`,
staged by the driver on the calling thread); a pinned one
(`non_blocking=True`, synchronised); `pin_memory()` on one thread (a
DataLoader's pin thread, `torch.set_num_threads(1)`) and on all; a fresh
16 MiB pinned block (page-locking); and lesson 09's loader loop (4096
samples of 4 KiB, batches of 512, one layer per batch) at 0 and 4 workers,
`pin_memory` off and on. cudash's side is its modelled time (`--backend
sim`, the default here) or its measured time (`--backend cuda`). Without
PyTorch's CUDA (no GPU) only cudash's side is printed.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

CUDASH = sys.argv[1]
BACKEND = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "sim"

SETUP = """seed(0)
X = randn(4096, 1024)
T = arange(4096) % 10
W = randn(1024, 1024, device=cuda) * 0.03
ds = TensorDataset(X, T)
r = randn(2048, 1024)
p = randn(2048, 1024).pin_memory()
big = randn(4096, 1024)
"""

# (row, cudash statement timed with `time`)
CUDASH_ROWS = [
    ("pageable H2D 8 MiB", "time 5 { q = r.to(cuda) }"),
    ("pinned H2D 8 MiB", "time 5 { q = p.to(cuda, non_blocking=true); sync }"),
    ("fresh pinned 16 MiB (page-lock + copy)", "time { q = big.pin_memory() }"),
]
LOADER = [(w, pin) for w in (0, 4) for pin in (False, True)]


def seconds(text):
    n, unit = re.search(r"time: ([0-9.]+) (s|ms|µs|ns) per iteration", text).groups()
    return float(n) * {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[unit]


def cudash_side():
    rows = {}
    script = SETUP
    for name, stmt in CUDASH_ROWS:
        script += f'print("== {name}")\n{stmt}\n'
    for w, pin in LOADER:
        name = f"loader {w} workers, pin_memory={pin}"
        script += (
            f'print("== {name}")\n'
            f"loader = DataLoader(ds, batch_size=512, num_workers={w}, pin_memory={str(pin).lower()})\n"
            "time { for xb, tb in loader { y = (xb.to(cuda, non_blocking=true) @ W).relu() }; sync }\n"
        )
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pinning.cudash")
        with open(path, "w") as f:
            f.write(script)
        out = subprocess.run([CUDASH, "run", path, "--no-color", "--backend", BACKEND],
                             capture_output=True, text=True, check=True).stdout
    for part in re.split(r"^== ", out, flags=re.M)[1:]:
        name = part.splitlines()[0]
        rows[name] = seconds(part)
    return rows


def torch_side():
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    from torch.utils.data import DataLoader, TensorDataset

    def best(f, reps=5):
        f()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t0)
        return min(ts)

    rows = {}
    torch.manual_seed(0)
    r = torch.randn(2048, 1024)
    p = torch.randn(2048, 1024).pin_memory()
    rows["pageable H2D 8 MiB"] = best(lambda: r.to("cuda"))
    rows["pinned H2D 8 MiB"] = best(lambda: p.to("cuda", non_blocking=True))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    rows["pin_memory() 8 MiB, one thread"] = best(lambda: r.pin_memory(), reps=3)
    torch.set_num_threads(threads)
    rows["pin_memory() 8 MiB, all threads"] = best(lambda: r.pin_memory(), reps=3)
    # A size the caching host allocator has not seen: page-locked afresh.
    big = torch.randn(4096, 1024)
    t0 = time.perf_counter()
    big.pin_memory()
    rows["fresh pinned 16 MiB (page-lock + copy)"] = time.perf_counter() - t0
    X = torch.randn(4096, 1024)
    T = torch.arange(4096) % 10
    W = torch.randn(1024, 1024, device="cuda") * 0.03
    ds = TensorDataset(X, T)
    for w, pin in LOADER:
        loader = DataLoader(ds, batch_size=512, num_workers=w, pin_memory=pin)

        def epoch():
            for xb, tb in loader:
                (xb.to("cuda", non_blocking=True) @ W).relu()

        rows[f"loader {w} workers, pin_memory={pin}"] = best(epoch, reps=3)
    return rows


def fmt(s):
    return "—" if s is None else f"{s * 1e3:.3f} ms"


def main():
    ours = cudash_side()
    theirs = torch_side()
    names = list(ours) + [n for n in (theirs or {}) if n not in ours]
    print(f"cudash --backend {BACKEND} beside PyTorch" + ("" if theirs else " (no PyTorch CUDA here)"))
    print("| row | cudash | PyTorch | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for n in names:
        a, b = ours.get(n), (theirs or {}).get(n)
        ratio = f"{a / b:.2f}×" if a and b else "—"
        print(f"| {n} | {fmt(a)} | {fmt(b)} | {ratio} |")


if __name__ == "__main__":
    main()
