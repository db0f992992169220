# Anomaly detection as a program debugging NaN gradients uses it:
# detect_anomaly around forward and backward, set_detect_anomaly as a call
# and as a context manager, check_nan off, a node's metadata, and a custom
# Function whose backward fails. The tracebacks go to stderr as warnings.
import torch
import torch.nn as nn


def f(x):
    y = x.sqrt()
    return (y * 0).sum()


x = torch.tensor([0.0, 1.0], requires_grad=True)
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.detect_anomaly():
    print(torch.is_anomaly_enabled())
    out = f(x)
    try:
        out.backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(torch.is_anomaly_enabled(), x.grad)

# Without the mode the NaN goes through.
f(x).backward()
print(x.grad)

# A model whose loss is fine: same gradients with the mode on.
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
inp = torch.randn(5, 3)
model(inp).pow(2).mean().backward()
plain = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
with torch.autograd.set_detect_anomaly(True):
    loss = model(inp).pow(2).mean()
    meta = loss.grad_fn.metadata
    print(sorted(meta.keys()), len(meta["traceback_"]), meta["traceback_"][0].strip().splitlines()[-1])
    loss.backward()
print(all(torch.equal(a, p.grad) for a, p in zip(plain, model.parameters())))
print(torch.is_anomaly_enabled())

# The metadata dict is the node's own: what a program puts there stays.
y = (x * 2).sum()
y.grad_fn.metadata["note"] = "mine"
print(y.grad_fn.metadata)

# A call turns it on; check_nan=False keeps the tracebacks, not the check.
torch.autograd.set_detect_anomaly(True)
z = torch.tensor([1.0], requires_grad=True)
w = (z / 0) * 0
try:
    w.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
torch.autograd.set_detect_anomaly(True, check_nan=False)
print(torch.is_anomaly_check_nan_enabled())
w = (z / 0) * 0
w.backward()
print(z.grad)


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, g):
        raise ValueError("broken backward")


out = Bad.apply(z).sum()
try:
    out.backward()
except ValueError as e:
    print("ValueError:", e)
torch.autograd.set_detect_anomaly(False)
print(torch.is_anomaly_enabled())
