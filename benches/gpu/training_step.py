"""Issue 50's GPU rows: one training step of an MLP 784 -> 256 -> 10
(forward, cross_entropy, backward, SGD) on the GPU, from a cudash script
on `--backend cuda` beside the same step in PyTorch eager, at batch 64
(launch-bound: target at least 1.5x faster than PyTorch) and 8192
(compute-bound: target within 0.95x, i.e. at most 1/0.95 of PyTorch's time);
and issue 67's CNN step (the MNIST example's network, batch 64, Adadelta:
target at least 0.9x PyTorch eager's speed).

cudash: whole-process wall time of a script running N steps then `sync`,
minus the same script with 10 steps (start-up, context, kernel loading and
the first steps' allocations excluded), over N - 10 steps; best of 3.
PyTorch: the same steps timed with `torch.cuda.synchronize()` around them,
after 10 warm-up steps; best of 3.

    python3 benches/gpu/training_step.py gpu-bin/cudash [--backend cuda] [--torch-device cuda]

`--backend emu --torch-device cpu --quick` checks the harness on a machine
without a GPU (fewer steps and a smaller second batch; the figures then
mean nothing).
"""

import os
import subprocess
import sys
import tempfile
import time

CUDASH = sys.argv[1]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


BACKEND = arg("--backend", "cuda")
TORCH_DEVICE = arg("--torch-device", "cuda")
WARM = 10
QUICK = "--quick" in sys.argv


def script(batch: int, steps: int) -> str:
    return f"""seed(0)
x = randn({batch}, 784, device=cuda)
labels = (rand({batch}, device=cuda) * 10).to(i64)
W1 = (randn(256, 784, device=cuda) * 0.05).requires_grad_()
b1 = zeros(256, device=cuda, requires_grad=true)
W2 = (randn(10, 256, device=cuda) * 0.05).requires_grad_()
b2 = zeros(10, device=cuda, requires_grad=true)
opt = SGD([W1, b1, W2, b2], lr=0.1)
for i in 0..{steps} {{ opt.zero_grad(); loss = cross_entropy(linear(linear(x, W1, b1).relu(), W2, b2), labels); loss.backward(); opt.step() }}
sync
"""


def cudash_step(batch: int, steps: int, make=None) -> float:
    make = make or script

    def wall(n: int) -> float:
        with tempfile.NamedTemporaryFile("w", suffix=".cudash", delete=False) as f:
            f.write(make(batch, n))
            path = f.name
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([CUDASH, "run", path, "--backend", BACKEND], check=True, capture_output=True)
            best = min(best, time.perf_counter() - t)
        os.unlink(path)
        return best

    return max(wall(steps) - wall(WARM), 0.0) / (steps - WARM)


def timed(step, sync, steps: int) -> float:
    """PyTorch's seconds per step: WARM steps, then the best of 3 runs of
    the rest, synchronised around each."""
    for _ in range(WARM):
        step()
    sync()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(steps - WARM):
            step()
        sync()
        best = min(best, (time.perf_counter() - t) / (steps - WARM))
    return best


def torch_step(batch: int, steps: int) -> float:
    import torch
    import torch.nn.functional as F

    dev = torch.device(TORCH_DEVICE)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    torch.manual_seed(0)
    x = torch.randn(batch, 784, device=dev)
    labels = (torch.rand(batch, device=dev) * 10).long()
    w1 = (torch.randn(256, 784, device=dev) * 0.05).requires_grad_()
    b1 = torch.zeros(256, device=dev, requires_grad=True)
    w2 = (torch.randn(10, 256, device=dev) * 0.05).requires_grad_()
    b2 = torch.zeros(10, device=dev, requires_grad=True)
    opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.1)

    def step():
        opt.zero_grad()
        F.cross_entropy(F.linear(F.linear(x, w1, b1).relu(), w2, b2), labels).backward()
        opt.step()

    return timed(step, sync, steps)


# Issue 71's AMP step: the same MLP under autocast (f16 on cuda) with a
# GradScaler, beside PyTorch's AMP step; target: at least 0.95x its speed.
def amp_script(batch: int, steps: int) -> str:
    return f"""seed(0)
x = randn({batch}, 784, device=cuda)
labels = (rand({batch}, device=cuda) * 10).to(i64)
W1 = (randn(256, 784, device=cuda) * 0.05).requires_grad_()
b1 = zeros(256, device=cuda, requires_grad=true)
W2 = (randn(10, 256, device=cuda) * 0.05).requires_grad_()
b2 = zeros(10, device=cuda, requires_grad=true)
opt = SGD([W1, b1, W2, b2], lr=0.1)
scaler = GradScaler()
for i in 0..{steps} {{ opt.zero_grad(); with autocast() {{ loss = cross_entropy(linear(linear(x, W1, b1).relu(), W2, b2), labels) }}; scaler.scale(loss).backward(); scaler.step(opt); scaler.update() }}
sync
"""


def torch_amp_step(batch: int, steps: int) -> float:
    import torch
    import torch.nn.functional as F

    dev = torch.device(TORCH_DEVICE)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    torch.manual_seed(0)
    x = torch.randn(batch, 784, device=dev)
    labels = (torch.rand(batch, device=dev) * 10).long()
    w1 = (torch.randn(256, 784, device=dev) * 0.05).requires_grad_()
    b1 = torch.zeros(256, device=dev, requires_grad=True)
    w2 = (torch.randn(10, 256, device=dev) * 0.05).requires_grad_()
    b2 = torch.zeros(10, device=dev, requires_grad=True)
    opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.1)
    scaler = torch.amp.GradScaler(dev.type)

    def step():
        opt.zero_grad()
        with torch.autocast(dev.type):
            loss = F.cross_entropy(F.linear(F.linear(x, w1, b1).relu(), w2, b2), labels)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return timed(step, sync, steps)


# Issue 67's CNN: PyTorch's examples/mnist network (two 3x3 convolutions,
# max-pool, two linears), batch 64, nll_loss, backward, Adadelta; target:
# at least 0.9x PyTorch eager's speed.
CNN_MODEL = """class Net(Module) {
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
"""


def cnn_script(batch: int, steps: int) -> str:
    return f"""seed(0)
{CNN_MODEL}model = Net().to(cuda)
opt = Adadelta(model.parameters(), lr=1.0)
data = randn({batch}, 1, 28, 28, device=cuda)
target = (rand({batch}, device=cuda) * 10).to(i64)
for i in 0..{steps} {{ opt.zero_grad(); loss = nll_loss(model(data), target); loss.backward(); opt.step() }}
sync
"""


def torch_cnn_step(batch: int, steps: int) -> float:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    dev = torch.device(TORCH_DEVICE)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
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

    model = Net().to(dev)
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
    data = torch.randn(batch, 1, 28, 28, device=dev)
    target = (torch.rand(batch, device=dev) * 10).long()

    def step():
        opt.zero_grad()
        F.nll_loss(model(data), target).backward()
        opt.step()

    return timed(step, sync, steps)


def fmt(s: float) -> str:
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


rows = []
for batch, steps, target, ok in [
    (64, 20 if QUICK else 2010, "≥ 1.5× faster", lambda r: r <= 1 / 1.5),
    (512 if QUICK else 8192, 15 if QUICK else 210, "within 0.95×", lambda r: r <= 1 / 0.95),
]:
    ours = cudash_step(batch, steps)
    theirs = torch_step(batch, steps)
    ratio = ours / theirs
    rows.append((batch, ours, theirs, ratio, target, "yes" if ok(ratio) else "**no**"))

print(f"Training step, MLP 784→256→10, SGD: cudash --backend {BACKEND} beside PyTorch on {TORCH_DEVICE}")
print()
print("| batch | cudash | PyTorch | cudash time / PyTorch time | target | met |")
print("| ---: | ---: | ---: | ---: | --- | --- |")
for batch, ours, theirs, ratio, target, met in rows:
    print(f"| {batch} | {fmt(ours)} | {fmt(theirs)} | {ratio:.2f}× | {target} | {met} |")

cnn_steps = 12 if QUICK else 110
ours = cudash_step(64, cnn_steps, cnn_script)
theirs = torch_cnn_step(64, cnn_steps)
ratio = ours / theirs
print()
print(f"Training step, MNIST example's CNN, Adadelta: cudash --backend {BACKEND} beside PyTorch on {TORCH_DEVICE}")
print()
print("| batch | cudash | PyTorch | cudash time / PyTorch time | target | met |")
print("| ---: | ---: | ---: | ---: | --- | --- |")
met = "yes" if ratio <= 1 / 0.9 else "**no**"
print(f"| 64 | {fmt(ours)} | {fmt(theirs)} | {ratio:.2f}× | at least 0.9× PyTorch's speed | {met} |")

amp_batch, amp_steps = (512, 15) if QUICK else (8192, 210)
ours = cudash_step(amp_batch, amp_steps, amp_script)
theirs = torch_amp_step(amp_batch, amp_steps)
ratio = ours / theirs
print()
print(f"AMP training step (autocast f16 + GradScaler), MLP 784→256→10: cudash --backend {BACKEND} beside PyTorch on {TORCH_DEVICE}")
print()
print("| batch | cudash | PyTorch | cudash time / PyTorch time | target | met |")
print("| ---: | ---: | ---: | ---: | --- | --- |")
met = "yes" if ratio <= 1 / 0.95 else "**no**"
print(f"| {amp_batch} | {fmt(ours)} | {fmt(theirs)} | {ratio:.2f}× | at least 0.95× PyTorch's AMP step speed | {met} |")
