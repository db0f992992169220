"""Side-by-side benchmark: cudash (cpu backend) vs Python+NumPy, in one run,
and vs PyTorch's CPU tensors when this Python has torch (benches/run uses
scripts/torch-check's venv when it exists).

Each figure is measured inside its own process (cudash's `time` statement,
Python's perf_counter), so start-up is excluded except where start-up is the
thing measured. Prints a markdown table; ratios are what to compare.
"""

import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
except ImportError:  # PyTorch is optional: its wheel is several GB
    torch = None

CUDASH = sys.argv[1]
QUICK = "--quick" in sys.argv
SCALE = 10 if QUICK else 1


def cudash_time(script: str) -> float:
    """Seconds per iteration reported by the last `time` statement of `script`."""
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        path = f.name
    out = subprocess.run([CUDASH, "run", path, "--no-color"], capture_output=True, text=True, check=True).stdout
    os.unlink(path)
    m = re.findall(r"time: ([0-9.]+) (ns|µs|ms|s) per iteration", out)
    if not m:
        raise SystemExit(f"no timing in cudash output:\n{out}")
    value, unit = m[-1]
    return float(value) * {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def twice(reps: int, stmt: str) -> str:
    """A `time` loop run twice: the first warms up, the second is measured.
    Where the NumPy and PyTorch sides are lambdas that return (and so drop)
    their result, `stmt` is the bare expression, which `time` evaluates and
    drops too: `y = ...` would keep the last result alive while the next is
    made, which the other side does not do."""
    return f"time {reps} {{ {stmt} }}\n" * 2


def best_of(fn, reps: int = 5) -> float:
    return min(fn() for _ in range(reps))


def numpy_time(stmt, n: int) -> float:
    # Warm up with the same loop, untimed (the cudash scripts below run their
    # `time` loop twice and report the second).
    for _ in range(n):
        stmt()
    t = time.perf_counter()
    for _ in range(n):
        stmt()
    return (time.perf_counter() - t) / n


rows = []
# (name, cudash, NumPy, PyTorch) for the table against the faster of the two.
torch_rows = []


def side_by_side(ours_fn, numpy_fn, torch_fn, rounds: int = 5):
    """The best of `rounds` for cudash, NumPy and PyTorch (None: not run),
    measured in turn, so a burst of load on a shared machine slows all three
    rather than whichever was running."""
    best = [float("inf"), float("inf"), None]
    for _ in range(rounds):
        for i, fn in enumerate((ours_fn, numpy_fn, torch_fn)):
            if fn:
                t = fn()
                best[i] = t if best[i] is None else min(best[i], t)
    return best


def row(name, ours, theirs, target, ok):
    met = "n/a (quick)" if QUICK else "yes" if ok else "**no**"
    rows.append((name, ours, theirs, theirs / ours if ours else float("inf"), target, met))


def fmt(s: float) -> str:
    for unit, k in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= k:
            return f"{s / k:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


# 1. Interpreter overhead: y = x * 2 + 1 on 16 f32, 200k iterations.
iters = 200_000 // SCALE
ours = best_of(lambda: cudash_time(f"x = ones(16)\ntime 1 {{ for i in 0..{iters} {{ y = x * 2 + 1 }} }}\n"), 3)


def py_loop():
    x = np.ones(16, dtype=np.float32)
    t = time.perf_counter()
    for _ in range(iters):
        y = x * 2 + 1  # noqa: F841
    return time.perf_counter() - t


theirs = best_of(py_loop, 3)
row(f"tiny-op loop ({iters:,} × `y = x * 2 + 1`, 16 f32)", ours, theirs, "faster than NumPy", ours < theirs)
if torch is not None:
    xt = torch.ones(16)

    def torch_loop():
        t = time.perf_counter()
        for _ in range(iters):
            y = xt * 2 + 1  # noqa: F841
        return time.perf_counter() - t

    torch_rows.append((f"tiny-op loop ({iters:,} × `y = x * 2 + 1`, 16 f32)", ours, theirs, best_of(torch_loop, 3)))

# 1b. The language itself, beside CPython: a million calls of a small
# function on numbers, and `while` counting to a million. Both sides run
# the loop at the top level of a script (global names, as a cudash
# session's are), timed inside the process.
calls = 1_000_000 // SCALE
PY_CALLS = f"""
def f(a):
    return a + 1
x = 0
t = perf_counter()
for i in range({calls}):
    x = f(x)
elapsed = perf_counter() - t
"""
PY_WHILE = f"""
i = 0
t = perf_counter()
while i < {calls}:
    i += 1
elapsed = perf_counter() - t
"""


lang_rows = []


def lang_row(name, ours, theirs):
    met = "n/a (quick)" if QUICK else "yes" if ours <= theirs else "**no**"
    lang_rows.append((name, ours, theirs, theirs / ours if ours else float("inf"), met))


def cpython(src: str) -> float:
    scope = {"perf_counter": time.perf_counter}
    exec(src, scope)  # noqa: S102 - our own benchmark source
    return scope["elapsed"]


ours, theirs, _ = side_by_side(
    lambda: cudash_time(f"fn f(a) {{ return a + 1 }}\nx = 0\ntime 1 {{ for i in 0..{calls} {{ x = f(x) }} }}\n"),
    lambda: cpython(PY_CALLS),
    None,
    3,
)
lang_row(f"function calls ({calls:,} × `x = f(x)`, `fn f(a) {{ return a + 1 }}`)", ours, theirs)
ours, theirs, _ = side_by_side(
    lambda: cudash_time(f"i = 0\ntime 1 {{ while i < {calls} {{ i += 1 }} }}\n"),
    lambda: cpython(PY_WHILE),
    None,
    3,
)
lang_row(f"`while` counting to {calls:,}", ours, theirs)

# Issue 68: a method of an instance of a class, called a million times.
PY_METHODS = f"""
class C:
    def f(self, a):
        return a + 1
c = C()
x = 0
t = perf_counter()
for i in range({calls}):
    x = c.f(x)
elapsed = perf_counter() - t
"""
ours, theirs, _ = side_by_side(
    lambda: cudash_time(
        "class C:\n    def f(self, a):\n        return a + 1\nc = C()\nx = 0\n"
        f"time 1 {{ for i in range({calls}) {{ x = c.f(x) }} }}\n"
    ),
    lambda: cpython(PY_METHODS),
    None,
    3,
)
lang_row(f"method calls ({calls:,} × `x = c.f(x)` on an instance)", ours, theirs)

# 2. Elementwise add and sum on 16M f32.
n = (1 << 24) // SCALE
reps = 20
xa, ya = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
xt, yt = (torch.ones(n), torch.ones(n)) if torch is not None else (None, None)
name = f"add, {n:,} f32"
ours, theirs, tt = side_by_side(
    lambda: cudash_time(f"x = ones({n})\ny = ones({n})\n" + twice(reps, "x + y")),
    lambda: numpy_time(lambda: xa + ya, reps),
    torch and (lambda: numpy_time(lambda: xt + yt, reps)),
)
row(name, ours, theirs, "≥ NumPy", ours <= theirs * 1.0)
if torch is not None:
    torch_rows.append((name, ours, theirs, tt))

name = f"sum, {n:,} f32"
ours, theirs, tt = side_by_side(
    lambda: cudash_time(f"x = ones({n})\n" + twice(reps, "x.sum()")),
    lambda: numpy_time(lambda: xa.sum(), reps),
    torch and (lambda: numpy_time(lambda: xt.sum(), reps)),
)
row(name, ours, theirs, "≥ NumPy", ours <= theirs * 1.0)
if torch is not None:
    torch_rows.append((name, ours, theirs, tt))

# 3. f32 matrix products: 1024², and the small ones where threading and
# packing overheads show (issue 21).
big = 1024 // (4 if QUICK else 1)
for k in [big] + ([] if torch is None else [k for k in (4, 64, 128, 256) if k != big]):
    # Tens of milliseconds of products: first-use costs (the thread pool,
    # the first output block) and the clock's resolution must not show.
    kreps = 10 if k == big else max(200, min(10**9 // k**3, 100_000)) // SCALE
    ak = np.random.default_rng(k).standard_normal((k, k), dtype=np.float32)
    tk = torch.from_numpy(ak) if torch is not None else None
    name = f"matmul {k}×{k} f32"
    ours, theirs, tt = side_by_side(
        lambda: cudash_time(f"a = randn({k}, {k})\n" + twice(kreps, "a @ a")),
        lambda: numpy_time(lambda: ak @ ak, kreps),
        torch and (lambda: numpy_time(lambda: tk @ tk, kreps)),
    )
    if k == big:
        row(name, ours, theirs, "within 1.25× of NumPy", ours <= theirs * 1.25)
    if torch is not None:
        torch_rows.append((name, ours, theirs, tt))

# 3b. softmax along the last dim and the first, against PyTorch's (which
# cudash matches bit for bit) and NumPy's two-pass expression.
if torch is not None:
    m = 1000 // (4 if QUICK else 1)
    am = np.random.default_rng(7).standard_normal((m, m), dtype=np.float32)
    tm = torch.from_numpy(am)
    sreps = 30 // SCALE

    def np_softmax(a, axis):
        e = np.exp(a - a.max(axis, keepdims=True))
        return e / e.sum(axis, keepdims=True)

    for op, axis in (("softmax", 1), ("softmax", 0), ("log_softmax", 1), ("log_softmax", 0)):
        name = f"{op}({axis}), {m}×{m} f32"
        np_fn = (lambda: np_softmax(am, axis)) if op == "softmax" else (lambda: np.log(np_softmax(am, axis)))
        ours, theirs, tt = side_by_side(
            lambda: cudash_time(f"x = randn({m}, {m})\n" + twice(sreps, f"x.{op}({axis})")),
            lambda: numpy_time(np_fn, sreps),
            lambda: numpy_time(lambda: getattr(tm, op)(axis), sreps),
        )
        torch_rows.append((name, ours, theirs, tt))

# 3c. pow and sigmoid, whose vector registers use SLEEF's math in PyTorch
# (and in cudash, which matches its bits), against NumPy's libm loops.
if torch is not None:
    ap = np.abs(am) + 0.5
    tp = torch.from_numpy(ap)
    for name, ours_src, np_fn, torch_fn in (
        (f"`x ** 2.5`, {m}×{m} f32", "x ** 2.5", lambda: ap**2.5, lambda: tp**2.5),
        (f"`x ** y`, {m}×{m} f32", "x ** x", lambda: ap**ap, lambda: tp**tp),
        (f"sigmoid, {m}×{m} f32", "x.sigmoid()", lambda: 1 / (1 + np.exp(-ap)), lambda: tp.sigmoid()),
    ):
        ours, theirs, tt = side_by_side(
            lambda: cudash_time(f"x = rand({m}, {m}) + 0.5\n" + twice(sreps, ours_src)),
            lambda: numpy_time(np_fn, sreps),
            lambda: numpy_time(torch_fn, sreps),
        )
        torch_rows.append((name, ours, theirs, tt))

# 4. Start-up: `cudash run` on an empty script, whole process.
with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
    empty = f.name
samples = []
for _ in range(50 // SCALE + 5):
    t = time.perf_counter()
    subprocess.run([CUDASH, "run", empty], check=True)
    samples.append(time.perf_counter() - t)
os.unlink(empty)
startup = statistics.median(samples)
py_samples = []
for _ in range(10 // SCALE + 3):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import numpy"], check=True)
    py_samples.append(time.perf_counter() - t)
py_startup = statistics.median(py_samples)
row("`cudash run` empty script (median, whole process)", startup, py_startup, "< 20 ms (reference: `python -c 'import numpy'`)", startup < 0.020)

# 5. REPL start-up: launch to the first prompt, in a pseudo-terminal.
def repl_startup() -> float:
    import pty
    import select

    leader, follower = pty.openpty()
    env = dict(os.environ, TERM="xterm", XDG_DATA_HOME=tempfile.mkdtemp())
    t = time.perf_counter()
    proc = subprocess.Popen([CUDASH], stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    seen = b""
    while b"\x1b[?2004h" not in seen and time.perf_counter() - t < 10:
        ready, _, _ = select.select([leader], [], [], 0.05)
        if ready:
            seen += os.read(leader, 4096)
    elapsed = time.perf_counter() - t
    proc.kill()
    proc.wait()
    os.close(leader)
    os.close(follower)
    return elapsed


repl = statistics.median([repl_startup() for _ in range(21 // SCALE + 3)])
row("REPL start-up to the first prompt (median, pty, sim backend)", repl, py_startup, "< 50 ms (reference: `python -c 'import numpy'`)", repl < 0.050)

print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
      f"NumPy {np.__version__}, Python {platform.python_version()}; {time.strftime('%Y-%m-%d')}"
      + (" (quick mode: smaller sizes, figures not comparable)" if QUICK else ""))
print()
print("| benchmark | cudash | NumPy | NumPy time / cudash time | target | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
for name, ours, theirs, ratio, target, ok in rows:
    print(f"| {name} | {fmt(ours)} | {fmt(theirs)} | {ratio:.2f}× | {target} | {ok} |")

print()
print(f"The language beside CPython {platform.python_version()} (both loops at a script's top level):")
print()
print("| benchmark | cudash | CPython | CPython time / cudash time | target | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
for name, ours, theirs, ratio, ok in lang_rows:
    print(f"| {name} | {fmt(ours)} | {fmt(theirs)} | {ratio:.2f}× | at most CPython's time | {ok} |")


# Autograd: what recording a graph costs the tiny-op loop (issue 50's
# target: at most 1.5x the loop without requires_grad), and PyTorch's own
# ratio beside it when PyTorch is installed.
plain = best_of(lambda: cudash_time(f"x = ones(16)\ntime 1 {{ for i in 0..{iters} {{ y = x * 2 + 1 }} }}\n"), 3)
graph = best_of(lambda: cudash_time(f"x = ones(16, requires_grad=true)\ntime 1 {{ for i in 0..{iters} {{ y = x * 2 + 1 }} }}\n"), 3)
torch_ratio = "n/a"
if torch is not None:
    def torch_grad_loop(requires_grad):
        x = torch.ones(16, requires_grad=requires_grad)
        t = time.perf_counter()
        for _ in range(iters):
            y = x * 2 + 1  # noqa: F841
        return time.perf_counter() - t
    torch_ratio = f"{best_of(lambda: torch_grad_loop(True), 3) / best_of(lambda: torch_grad_loop(False), 3):.2f}×"
print()
print("Autograd: the tiny-op loop recording a graph (x requires grad) against the same loop without:")
print()
print("| benchmark | without | with requires_grad | ratio | PyTorch's ratio | target | met |")
print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
met = "n/a (quick)" if QUICK else "yes" if graph <= 1.5 * plain else "**no**"
print(f"| tiny-op loop ({iters:,} × `y = x * 2 + 1`, 16 f32) | {fmt(plain)} | {fmt(graph)} | {graph / plain:.2f}× | {torch_ratio} | ≤ 1.5× | {met} |")

# Issue 50's training step: an MLP 784 -> 256 -> 10 on a batch of 64, cross
# entropy, backward, SGD, all on cpu tensors, beside PyTorch's same step
# (target: at most PyTorch's time).
MLP_SETUP = """seed(0)
x = randn(64, 784)
labels = (rand(64) * 10).to(i64)
W1 = (randn(256, 784) * 0.05).requires_grad_()
b1 = zeros(256, requires_grad=true)
W2 = (randn(10, 256) * 0.05).requires_grad_()
b2 = zeros(10, requires_grad=true)
opt = SGD([W1, b1, W2, b2], lr=0.1)
"""
MLP_STEP = "opt.zero_grad(); loss = cross_entropy(linear(linear(x, W1, b1).relu(), W2, b2), labels); loss.backward(); opt.step()"
step_reps = max(20, 300 // SCALE)


def torch_step_time(batch=64, reps=None):
    F = torch.nn.functional
    torch.manual_seed(0)
    x, labels = torch.randn(batch, 784), (torch.rand(batch) * 10).long()
    w1 = (torch.randn(256, 784) * 0.05).requires_grad_()
    b1 = torch.zeros(256, requires_grad=True)
    w2 = (torch.randn(10, 256) * 0.05).requires_grad_()
    b2 = torch.zeros(10, requires_grad=True)
    opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.1)

    def step():
        opt.zero_grad()
        F.cross_entropy(F.linear(F.linear(x, w1, b1).relu(), w2, b2), labels).backward()
        opt.step()
    return numpy_time(step, reps or step_reps)


if torch is not None:
    ours, _, tt = side_by_side(lambda: cudash_time(MLP_SETUP + twice(step_reps, MLP_STEP)), None, torch_step_time, 3)
    met = "n/a (quick)" if QUICK else "yes" if ours <= tt else "**no**"
    print()
    print(f"A training step beside PyTorch {torch.__version__} (CPU, {torch.get_num_threads()} threads), in the same run:")
    print()
    print("| benchmark | cudash | PyTorch | cudash time / PyTorch time | target | met |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    print(f"| MLP 784→256→10 step (batch 64: forward, cross_entropy, backward, SGD), cpu | {fmt(ours)} | {fmt(tt)} | {ours / tt:.2f}× | ≤ 1.0× | {met} |")
    # Issue 67: the same step at batch 1024, where the products (x @ W.T,
    # g.T @ x, g @ W) and the elementwise passes dominate.
    big_setup = MLP_SETUP.replace("randn(64, 784)", "randn(1024, 784)").replace("rand(64)", "rand(1024)")
    big_reps = max(5, 30 // SCALE)
    ours, _, tt = side_by_side(
        lambda: cudash_time(big_setup + twice(big_reps, MLP_STEP)), None,
        lambda: torch_step_time(1024, big_reps), 3)
    met = "n/a (quick)" if QUICK else "yes" if ours <= tt else "**no**"
    print(f"| MLP 784→256→10 step (batch 1024), cpu | {fmt(ours)} | {fmt(tt)} | {ours / tt:.2f}× | ≤ 1.0× | {met} |")

# Issue 67's CNN step: PyTorch's examples/mnist network (two 3x3
# convolutions, max-pool, two linear layers), batch 64, nll_loss, backward,
# Adadelta, on cpu tensors, beside PyTorch's (target: at most 1.5x its time).
CNN_SETUP = """seed(0)
class Net(Module) {
  fn __init__(self) {
    super().__init__()
    self.conv1 = Conv2d(1, 32, 3, 1)
    self.conv2 = Conv2d(32, 64, 3, 1)
    self.fc1 = Linear(9216, 128)
    self.fc2 = Linear(128, 10)
  }
  fn forward(self, x) {
    x = max_pool2d(relu(self.conv2(relu(self.conv1(x)))), 2)
    x = relu(self.fc1(flatten(x, 1)))
    return log_softmax(self.fc2(x), dim=1)
  }
}
model = Net()
opt = Adadelta(model.parameters(), lr=1.0)
data = randn(64, 1, 28, 28)
target = (rand(64) * 10).to(i64)
"""
CNN_STEP = "opt.zero_grad(); loss = nll_loss(model(data), target); loss.backward(); opt.step()"
cnn_reps = max(3, 20 // SCALE)


def torch_cnn_time():
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            x = F.relu(self.fc1(torch.flatten(x, 1)))
            return F.log_softmax(self.fc2(x), dim=1)

    model = Net()
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
    data, target = torch.randn(64, 1, 28, 28), (torch.rand(64) * 10).long()

    def step():
        opt.zero_grad()
        F.nll_loss(model(data), target).backward()
        opt.step()
    return numpy_time(step, cnn_reps)


if torch is not None:
    ours, _, tt = side_by_side(lambda: cudash_time(CNN_SETUP + twice(cnn_reps, CNN_STEP)), None, torch_cnn_time, 3)
    met = "n/a (quick)" if QUICK else "yes" if ours <= 1.5 * tt else "**no**"
    print(f"| MNIST example's CNN step (batch 64: 2 convs, max-pool, 2 linears, nll_loss, backward, Adadelta), cpu | {fmt(ours)} | {fmt(tt)} | {ours / tt:.2f}× | ≤ 1.5× | {met} |")

if torch_rows:
    print()
    print(f"Against PyTorch {torch.__version__} (CPU, {torch.get_num_threads()} threads) and NumPy, in the same run:")
    print()
    print("| benchmark | cudash | NumPy | PyTorch | faster of the two / cudash | target | met |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for name, ours, np_t, torch_t in torch_rows:
        best = min(np_t, torch_t)
        met = "n/a (quick)" if QUICK else "yes" if ours <= best else "**no**"
        print(f"| {name} | {fmt(ours)} | {fmt(np_t)} | {fmt(torch_t)} | {best / ours:.2f}× | ≤ 1.0× the faster | {met} |")


# Scaling: cost per element as tensors grow, and per statement as scripts grow.
def whole_process(script: str) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
        f.write(script)
        path = f.name
    t = time.perf_counter()
    subprocess.run([CUDASH, "run", path], check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - t
    os.unlink(path)
    return elapsed


def threads(n: int) -> str:
    return "2 threads (≥ 65,536 elements)" if n >= 65536 else "1 thread"


print()
print("| scaling | cudash | NumPy | note |")
print("| --- | ---: | ---: | --- |")
sizes = [1 << 10, 1 << 14, 1 << 18, 1 << 22] + ([] if QUICK else [1 << 26])
for op, ours_src, theirs_fn in (
    ("add", "z = x + y", lambda xa, ya: xa + ya),
    ("sum", "s = x.sum()", lambda xa, ya: xa.sum()),
):
    for n in sizes:
        reps = max(3, min(200, (1 << 24) // n))
        ours = best_of(lambda: cudash_time(f"x = ones({n})\ny = ones({n})\n" + twice(reps, ours_src)), 3)
        xa, ya = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
        theirs = best_of(lambda: numpy_time(lambda: theirs_fn(xa, ya), reps), 3)
        print(f"| {op}, {n:,} f32, cpu | {ours / n * 1e9:.2f} ns/element | {theirs / n * 1e9:.2f} ns/element | {threads(n)} |")

# The sim backend keeps a simulated device's data in host memory and runs the
# cpu kernels on it; `time` there reports modelled device time, so its host
# cost is the whole process with the loop minus the same process without it.
for n in sizes:
    reps = max(3, (1 << (24 if QUICK else 28)) // n)  # enough work to stand out of process start-up
    setup = f"x = ones({n}, device=cuda)\ny = ones({n}, device=cuda)\n"
    loop = best_of(lambda: whole_process(setup + f"for i in 0..{reps} {{ z = x + y }}\nsync\n"), 3)
    base = best_of(lambda: whole_process(setup + "sync\n"), 3)
    per = max(loop - base, 0.0) / reps
    print(f"| add, {n:,} f32, simulated cuda:0 (host cost) | {per / n * 1e9:.2f} ns/element | | {threads(n)} |")

for stmts in [1_000, 10_000] + ([] if QUICK else [100_000, 1_000_000]):
    elapsed = whole_process("x = ones(16)\n" + "x = x + 1\n" * stmts)
    print(f"| script of {stmts:,} statements (`cudash run`, parse + run + transcript) | {elapsed / stmts * 1e6:.1f} µs/statement | | whole process |")

# `profile`'s timeline on a long block (issue 22): the same loop of kernels
# run plainly, under `profile`, and under `profile` writing a Chrome trace.
ops = 100_000 // SCALE
setup = "w = randn(16, device=cuda)\n"
loop = f"for i in 0..{ops} {{ y = w * 2 }}"
trace = os.path.join(tempfile.gettempdir(), f"cudash-bench-{os.getpid()}.json")
plain = best_of(lambda: whole_process(setup + loop + "\nsync\n"), 3)
profiled = best_of(lambda: whole_process(setup + f"profile {{ {loop} }}\n"), 3)
traced = best_of(lambda: whole_process(setup + f'profile "{trace}" {{ {loop} }}\n'), 3)
size = os.path.getsize(trace)
os.unlink(trace)
print(f"| {ops:,} kernels, plain (`cudash run`) | {plain * 1e3:.0f} ms | | whole process |")
print(f"| {ops:,} kernels under `profile` (timeline) | {profiled * 1e3:.0f} ms | | whole process; {profiled / plain:.2f}× plain |")
print(f"| {ops:,} kernels under `profile \"run.json\"` (timeline and trace) | {traced * 1e3:.0f} ms | | whole process; {traced / plain:.2f}× plain; {size / 2**20:.1f} MiB of trace |")
