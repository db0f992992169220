"""Sets cudash's GPU figures beside PyTorch's (both JSON lines, from
benches/gpu/main.rs and benches/gpu/torch_ref.py run on the same GPU in one
go) and prints a Markdown table with each target's verdict.

    python3 benches/gpu/compare.py cudash.jsonl torch.jsonl
"""

import json
import sys


def load(path):
    """Each measurement by name; one taken several times (the host copies,
    whose spread between runs is wide) gives the run with the median time."""
    runs = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                runs.setdefault(r["name"], []).append(r)
    return {name: sorted(rs, key=lambda r: r["ms"])[len(rs) // 2] for name, rs in runs.items()}


# name, what it is, the figure compared, higher is better, target.
ROWS = [
    ("add_f32", "add, 2^28 f32", "gbs", True, "≥ 0.95× PyTorch, ≥ 85% of a d2d copy"),
    ("sum_f32", "sum, 2^28 f32", "gbs", True, "≥ 0.95× PyTorch, ≥ 85% of a d2d copy"),
    ("copy_d2d", "device-to-device copy, 1 GiB", "gbs", True, "(the ceiling)"),
    ("sum_dim0_f32", "sum over dim 0 (strided), 16384² f32", "gbs", True, "—"),
    ("sum_dim1_f32", "sum over dim 1 (rows), 16384² f32", "gbs", True, "—"),
    ("matmul_f32", "matmul 8192² f32", "tflops", True, "≥ 0.95× PyTorch"),
    ("matmul_f16", "matmul 8192² f16", "tflops", True, "≥ 0.95× PyTorch"),
    ("matmul_bf16", "matmul 8192² bf16", "tflops", True, "≥ 0.95× PyTorch"),
    ("h2d_pageable", "host→device 1 GiB, pageable", "gbs", True, "≥ 0.95× PyTorch"),
    ("d2h_pageable", "device→host 1 GiB, pageable", "gbs", True, "≥ 0.95× PyTorch"),
    ("h2d_pageable_aligned64", "host→device 1 GiB, pageable, 64-byte aligned (PyTorch: its pageable)", "gbs", True, "—"),
    ("d2h_pageable_aligned64", "device→host 1 GiB, pageable, 64-byte aligned (PyTorch: its pageable)", "gbs", True, "—"),
    ("h2d_pinned", "host→device 1 GiB, pinned", "gbs", True, "≥ 0.95× PyTorch"),
    ("d2h_pinned", "device→host 1 GiB, pinned", "gbs", True, "≥ 0.95× PyTorch"),
    ("alloc_free_1mib", "cached 1 MiB alloc+free (host)", "ns", False, "—"),
    ("small_adds_10k", "10,000 adds of 1,000 f32 (cudash: the runtime's loop in Rust)", "ms", False, "—"),
    ("small_adds_script_10k", "10,000 adds of 1,000 f32 from a script (`--backend cuda`)", "ms", False, "≥ 2× faster than PyTorch eager"),
    ("first_result_cold", "fresh process to first result, kernel cache cold", "ms", False, "—"),
    ("first_result_warm", "fresh process to first result, kernel cache warm", "ms", False, "—"),
]

# Our measurements compared with a PyTorch one of another name.
THEIRS = {"small_adds_script_10k": "small_adds_10k"}

UNITS = {"gbs": "GB/s", "tflops": "TFLOP/s", "ns": "ns", "ms": "ms"}


def verdict(name, ratio, ours):
    if ratio is None:
        return "—"
    if name in ("add_f32", "sum_f32"):
        copy = ours.get("copy_d2d", {}).get("gbs")
        of_copy = ours[name]["gbs"] / copy if copy else None
        ok = ratio >= 0.95 and (of_copy is None or of_copy >= 0.85)
        extra = f", {of_copy:.0%} of copy" if of_copy else ""
        return ("met" if ok else "MISSED") + extra
    if name.startswith(("matmul", "h2d", "d2h")):
        return "met" if ratio >= 0.95 else "MISSED"
    if name == "small_adds_script_10k":
        return "met" if ratio >= 2.0 else "MISSED"
    return "—"


def main(ours_path, theirs_path):
    ours, theirs = load(ours_path), load(theirs_path)
    print("| measure | cudash | PyTorch | ratio (≥ 1: cudash faster) | target | verdict |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, what, key, higher, target in ROWS:
        o, t = ours.get(name), theirs.get(THEIRS.get(name, name.replace("_aligned64", "")))
        unit = UNITS[key]
        fo = f"{o[key]:.1f} {unit}" if o and key in o else "—"
        ft = f"{t[key]:.1f} {unit}" if t and key in t else "—"
        ratio = None
        if o and t and key in o and key in t and o[key] > 0 and t[key] > 0:
            ratio = o[key] / t[key] if higher else t[key] / o[key]
        fr = f"{ratio:.2f}×" if ratio is not None else "—"
        print(f"| {what} | {fo} | {ft} | {fr} | {target} | {verdict(name, ratio, ours)} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
