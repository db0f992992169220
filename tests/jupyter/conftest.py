"""Shared set-up for the Jupyter tests: the kernelspec of the cudash binary
under test, installed into a temporary prefix that JUPYTER_PATH points at."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CUDASH = Path(os.environ.get("CUDASH_BIN", ROOT / "target" / "debug" / "cudash")).resolve()

if not CUDASH.exists():
    sys.exit(f"no cudash binary at {CUDASH}: build it first (cargo build) or set CUDASH_BIN")

_prefix = tempfile.mkdtemp(prefix="cudash-kernelspec-")
subprocess.run([str(CUDASH), "kernel", "install", "--prefix", _prefix], check=True, capture_output=True)
os.environ["JUPYTER_PATH"] = str(Path(_prefix) / "share" / "jupyter")
# The tests must not pick up a kernelspec or config from the user's own setup.
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")

TIMEOUT = 30


@pytest.fixture
def kernel(tmp_path):
    """A fresh kernel with its stderr (the kernel's log) captured in a file."""
    from jupyter_client.manager import KernelManager

    log_path = tmp_path / "kernel.log"
    log = open(log_path, "w")
    km = KernelManager(kernel_name="cudash")
    km.start_kernel(stderr=log)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    try:
        yield km, kc, log_path
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
        log.close()


def execute(kc, code, timeout=TIMEOUT):
    """Runs `code`; returns (reply content, [(msg_type, content)] from iopub)."""
    msgs = []
    reply = kc.execute_interactive(
        code, output_hook=lambda m: msgs.append((m["msg_type"], m["content"])), timeout=timeout
    )
    return reply["content"], msgs


def result_text(msgs):
    return [c["data"]["text/plain"] for t, c in msgs if t == "execute_result"]


def rss_bytes(pid, field="VmRSS"):
    """A process's resident memory from /proc (VmRSS, or RssAnon for heaps only)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} for process {pid}")


def wait_until(cond, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False
