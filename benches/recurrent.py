"""A recurrent language model's training step, cudash beside PyTorch's CPU,
in one run: the same Python program (`benches/recurrent_step.py`) run by
`cudash script` and by Python with torch, alternating, the best of each.
Each process times its own steps (start-up excluded). Prints a markdown
table; the ratio is what to compare.

Usage: python3 benches/recurrent.py CUDASH_BIN [--rounds N]
(PyTorch from scripts/torch-check's venv: run this with its python.)
"""

import re
import subprocess
import sys
from pathlib import Path

CUDASH = sys.argv[1]
ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
PROGRAM = Path(__file__).with_name("recurrent_step.py")
CASES = ["lstm", "gru", "lstm-cells"]


def seconds(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = re.search(r"per step: ([0-9.]+) ms", out)
    if not m:
        raise SystemExit(f"no timing in:\n{out}")
    return float(m.group(1))


print("| case | cudash ms/step | PyTorch ms/step | cudash / PyTorch |")
print("|---|---|---|---|")
for case in CASES:
    ours, theirs = [], []
    for _ in range(ROUNDS):
        ours.append(seconds([CUDASH, "--sim-devices", "0", "script", str(PROGRAM), case]))
        theirs.append(seconds([sys.executable, str(PROGRAM), case]))
    a, b = min(ours), min(theirs)
    print(f"| {case} | {a:.2f} | {b:.2f} | {a / b:.2f}× |")
