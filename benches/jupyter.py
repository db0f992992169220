"""The Jupyter kernel side by side with ipykernel, in one run, through
jupyter_client: the round trip of `1 + 1` (request sent to reply and idle
status received) and the time from launching the kernel to its first
kernel_info_reply. Prints a markdown table.

usage: python benches/jupyter.py /path/to/cudash [--quick]"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

cudash = Path(sys.argv[1]).resolve()
quick = "--quick" in sys.argv
prefix = tempfile.mkdtemp(prefix="cudash-bench-kernels-")
subprocess.run([str(cudash), "kernel", "install", "--prefix", prefix], check=True, capture_output=True)
subprocess.run(
    [sys.executable, "-m", "ipykernel", "install", "--prefix", prefix, "--name", "python3"],
    check=True,
    capture_output=True,
)
os.environ["JUPYTER_PATH"] = str(Path(prefix) / "share" / "jupyter")

from jupyter_client.manager import KernelManager  # noqa: E402  (after JUPYTER_PATH)

TIMEOUT = 30


def round_trip(kc, code):
    """Seconds from sending an execute_request to holding both its reply and its idle status."""
    start = time.perf_counter()
    msg_id = kc.execute(code)
    while kc.get_shell_msg(timeout=TIMEOUT)["parent_header"].get("msg_id") != msg_id:
        pass
    while True:
        m = kc.get_iopub_msg(timeout=TIMEOUT)
        if (
            m["parent_header"].get("msg_id") == msg_id
            and m["msg_type"] == "status"
            and m["content"]["execution_state"] == "idle"
        ):
            return time.perf_counter() - start


def start_to_info(kernel_name):
    """Seconds from launching the kernel process to its first kernel_info_reply."""
    km = KernelManager(kernel_name=kernel_name)
    start = time.perf_counter()
    km.start_kernel(stderr=subprocess.DEVNULL)
    kc = km.client()
    kc.start_channels()
    msg_id = kc.kernel_info()  # queued by ZeroMQ until the kernel binds its socket
    while kc.get_shell_msg(timeout=TIMEOUT)["parent_header"].get("msg_id") != msg_id:
        pass
    elapsed = time.perf_counter() - start
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    return elapsed


def measure(kernel_name, runs, starts):
    km = KernelManager(kernel_name=kernel_name)
    km.start_kernel(stderr=subprocess.DEVNULL)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    for _ in range(20):
        round_trip(kc, "1 + 1")
    trips = [round_trip(kc, "1 + 1") for _ in range(runs)]
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    launches = [start_to_info(kernel_name) for _ in range(starts)]
    return statistics.median(trips), statistics.median(launches)


runs, starts = (50, 3) if quick else (500, 10)
ours = measure("cudash", runs, starts)
theirs = measure("python3", runs, starts)

import ipykernel  # noqa: E402
import jupyter_client  # noqa: E402


def ms(s):
    return f"{s * 1e3:.2f} ms"


print()
print(f"Jupyter: jupyter_client {jupyter_client.__version__}, ipykernel {ipykernel.__version__}; "
      f"medians of {runs} round trips and {starts} launches")
print()
print("| Jupyter benchmark | cudash kernel | ipykernel | ipykernel time / cudash time | target | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
trip_ok = "n/a (quick)" if quick else "yes" if ours[0] <= theirs[0] else "**no**"
print(f"| round trip of `1 + 1` (execute_request to reply and idle) | {ms(ours[0])} | {ms(theirs[0])} | "
      f"{theirs[0] / ours[0]:.2f}× | no slower than ipykernel | {trip_ok} |")
start_ok = "n/a (quick)" if quick else "yes" if ours[1] < 0.3 else "**no**"
print(f"| launch to first kernel_info_reply | {ms(ours[1])} | {ms(theirs[1])} | "
      f"{theirs[1] / ours[1]:.2f}× | < 300 ms | {start_ok} |")
