# Activation checkpointing as programs use it: torch.utils.checkpoint's
# checkpoint (both variants) and checkpoint_sequential, checked against the
# same model run plainly; the recomputation seen from inside the function;
# the random state kept for dropout; and the errors PyTorch gives.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential, CheckpointError

torch.manual_seed(0)
calls = []


class Block(nn.Module):
    def __init__(self, width, p):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        calls.append("block")
        return self.drop(torch.tanh(self.fc(x)))


class Net(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.blocks = nn.ModuleList([Block(8, 0.25) for _ in range(3)])
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        for b in self.blocks:
            if self.mode == "plain":
                x = b(x)
            else:
                x = checkpoint(b, x, use_reentrant=(self.mode == "reentrant"))
        return self.head(x)


def grads(mode, seed=1):
    torch.manual_seed(0)
    net = Net(mode)
    x = torch.randn(4, 8, requires_grad=True)
    torch.manual_seed(seed)
    calls.clear()
    out = net(x)
    forward_calls = len(calls)
    loss = out.pow(2).sum()
    loss.backward()
    print(mode, "calls in forward", forward_calls, "in backward", len(calls) - forward_calls)
    print(mode, "loss", round(loss.item(), 5), "grad_fn", type(net.blocks[2].drop(x).grad_fn).__name__ if False else out.grad_fn.name())
    return [x.grad] + [p.grad for p in net.parameters()]


plain = grads("plain")
for mode in ["non_reentrant", "reentrant"]:
    got = grads(mode)
    print(mode, "same gradients as plain:", all(torch.allclose(a, b) for a, b in zip(plain, got)))

# What the checkpointed output's grad_fn is.
torch.manual_seed(0)
lin = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
print(type(checkpoint(lin, x, use_reentrant=False).grad_fn).__name__)
print(type(checkpoint(lin, x, use_reentrant=True).grad_fn).__name__)

# Non-reentrant: keyword arguments, several outputs, a non-tensor argument.
def two(a, b, scale=1.0):
    calls.append("two")
    return a * b * scale, (a + b).sin()

a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
calls.clear()
p, q = checkpoint(two, a, b, use_reentrant=False, scale=2.0)
(p.sum() + q.sum()).backward()
print("two calls", len(calls))
print(torch.allclose(a.grad, 2.0 * b + (a + b).cos()), torch.allclose(b.grad, 2.0 * a + (a + b).cos()))

# Reentrant refuses keyword arguments.
try:
    checkpoint(two, a, b, use_reentrant=True, scale=2.0)
except ValueError as e:
    print("ValueError:", e)

# Two backwards through one graph: one recomputation each.
calls.clear()
a.grad = None
y = checkpoint(lambda t: (calls.append("f"), t.exp())[1], a, use_reentrant=False)
y.sum().backward(retain_graph=True)
y.sum().backward()
print("recomputations", len(calls) - 1, torch.allclose(a.grad, 2 * a.exp()))

# torch.autograd.grad: fine without reentrancy, an error with it.
y = checkpoint(torch.sin, a, use_reentrant=False)
print(torch.allclose(torch.autograd.grad(y.sum(), a)[0], a.cos()))
y = checkpoint(torch.sin, a, use_reentrant=True)
try:
    torch.autograd.grad(y.sum(), a)
except RuntimeError as e:
    print("RuntimeError:", e)

# Recomputation that saves other shapes than forward did.
state = {"n": 2}

def grows(t):
    state["n"] += 1
    return (t[: state["n"]] * t[: state["n"]]).sum()

t = torch.randn(6, requires_grad=True)
out = checkpoint(grows, t, use_reentrant=False)
try:
    out.backward()
except CheckpointError as e:
    print("CheckpointError:", str(e).splitlines()[0])
    print(str(e).splitlines()[1])

# checkpoint_sequential over a Sequential, against the plain run.
torch.manual_seed(0)
seq = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 1))
x = torch.randn(7, 5, requires_grad=True)
seq(x).sum().backward()
want = [x.grad.clone()] + [p.grad.clone() for p in seq.parameters()]
x.grad = None
seq.zero_grad()
out = checkpoint_sequential(seq, 2, x, use_reentrant=False)
out.sum().backward()
got = [x.grad] + [p.grad for p in seq.parameters()]
print("sequential", out.shape, all(torch.allclose(u, v) for u, v in zip(want, got)))

# fork_rng: the generators are as they were after the block.
torch.manual_seed(3)
with torch.random.fork_rng():
    inside = torch.rand(2)
after = torch.rand(2)
print(torch.equal(inside, after))
print(torch.is_autocast_enabled(), torch.get_autocast_dtype("cpu"))
