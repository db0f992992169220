"""Every notebook in notebooks/ runs top to bottom on the cudash kernel, and
shows what is saved in it: the lessons cannot rot silently.

The saved outputs come from `cudash run NOTEBOOK --save`; this runs the same
cells through Jupyter (nbclient and the kernel), so it also checks that the
kernel and `cudash run` agree. Outputs are compared as `cudash run --check`
compares them: stream text joined, colours stripped, timings and the
backend line's reason masked (it says what the machine offers, and
scripts/test picks the simulator with CUDASH_BACKEND), HTML left out (it is
made from the same values as the text).
"""

import copy
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LESSONS = [p for p in NOTEBOOKS if p.name[:2].isdigit() and p.name[:2] != "00"]

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
BACKEND = re.compile(r"^(backend: \w+) \(.*\)$", re.M)
TIME = re.compile(r"(?<![^ ])-?\d+(\.\d+)?(e[-+]?\d+)? (ns|µs|ms|s)(?=,|$| )", re.M)


def comparable(outputs) -> str:
    """One cell's outputs as text, as `cudash run --check` compares them."""
    parts = []
    for o in outputs:
        kind = o["output_type"]
        if kind == "stream":
            head = f"[{o['name']}]"
            if parts and parts[-1][0] == head:
                parts[-1][1] += o["text"]
            else:
                parts.append([head, o["text"]])
        elif kind in ("execute_result", "display_data"):
            head = "[result]" if kind == "execute_result" else "[display]"
            parts.append([head, o["data"]["text/plain"]])
        elif kind == "error":
            parts.append([f"[error] {o['ename']}: {o['evalue']}", "\n".join(o["traceback"])])
    text = "".join(f"{h}\n{t}" + ("" if t.endswith("\n") else "\n") for h, t in parts)
    text = BACKEND.sub(r"\1 (<reason>)", ANSI.sub("", text))
    lines = [TIME.sub("<time>", line).rstrip() for line in text.splitlines()]
    return "\n".join(lines)


def test_there_are_six_lessons():
    assert len(LESSONS) >= 6, [p.name for p in NOTEBOOKS]


def test_the_comparison_masks_times_and_the_backends_reason_only():
    a = [{"output_type": "stream", "name": "stdout", "text": "wall time    930.815 µs\n"}]
    b = [{"output_type": "stream", "name": "stdout", "text": "wall time    12.5 µs\n"}]
    c = [{"output_type": "stream", "name": "stdout", "text": "copies: 11.6 GB/s\n"}]
    d = [{"output_type": "stream", "name": "stdout", "text": "copies: 45.3 GB/s\n"}]
    e = [{"output_type": "stream", "name": "stdout", "text": "backend: sim (2 devices; no CUDA driver found)\n"}]
    f = [{"output_type": "stream", "name": "stdout", "text": "backend: sim (2 devices; chosen with CUDASH_BACKEND=sim)\n"}]
    g = [{"output_type": "stream", "name": "stdout", "text": "backend: emu (2 devices; chosen with CUDASH_BACKEND=emu)\n"}]
    assert comparable(a) == comparable(b)
    assert comparable(c) != comparable(d)
    assert comparable(e) == comparable(f)
    assert comparable(e) != comparable(g), "the backend itself is compared"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_shows_what_is_saved(path: Path):
    saved = nbformat.read(path, as_version=4)
    nbformat.validate(saved)
    # nbformat 4.5 gives every cell an id (a missing one is a warning now,
    # an error in later nbformat versions).
    # (`nbformat.read` fills missing ids in silently: the file itself is read.)
    raw = json.loads(path.read_text())
    missing = [i + 1 for i, c in enumerate(raw["cells"]) if "id" not in c]
    assert not missing, f"{path.name}: cells {missing} have no id"
    assert saved.metadata["kernelspec"]["name"] == "cudash"
    fresh = copy.deepcopy(saved)
    # A cell that errors stops the run, unless it is tagged `raises-exception`.
    NotebookClient(fresh, kernel_name="cudash", timeout=120).execute()
    for i, (old, new) in enumerate(zip(saved.cells, fresh.cells)):
        if new.cell_type != "code":
            continue
        where = f"{path.name} cell {i + 1}: {new.source!r}"
        errors = [o for o in new.outputs if o.output_type == "error"]
        expected = "raises-exception" in new.metadata.get("tags", [])
        # The tag is honest: tagged cells do fail, the others do not.
        assert bool(errors) == expected, where
        if not expected:
            assert new.outputs or new.source.lstrip().startswith(("del", "#")), (
                f"{where} shows nothing"
            )
        assert comparable(new.outputs) == comparable(old.outputs), (
            f"{where}: the outputs differ from the saved ones "
            f"(update them with `cudash run {path.relative_to(ROOT)} --save` if the change is right)"
        )
