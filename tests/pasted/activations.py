"""The activations PyTorch's models reach for beyond ReLU: a MobileNet-style
block with ReLU6 and Hardswish in place, a self-normalising MLP with SELU,
a gated layer with GLU, PReLU's learnt slopes, ELU as the graph attention
example applies it, Softplus for a positive scale; each one's values and
gradients, the nodes autograd records, and the refusals PyTorch gives.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(shape, scale):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32, device=device).reshape(shape) * 0.37).sin() * scale


def show(t):
    return [round(v, 4) for v in t.flatten().tolist()]


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.expand = nn.Linear(6, 12)
        self.act1 = nn.ReLU6(inplace=True)
        self.gate = nn.GLU(dim=1)
        self.project = nn.Linear(6, 6)
        self.act2 = nn.Hardswish()
        self.slope = nn.PReLU(6)
        self.out = nn.Sequential(nn.Linear(6, 4), nn.SELU(), nn.Linear(4, 3), nn.Softplus(beta=2))

    def forward(self, x):
        h = self.act1(self.expand(x))
        h = self.gate(h)
        h = self.slope(self.act2(self.project(h)))
        return self.out(h)


torch.manual_seed(0)
model = Block().to(device)
with torch.no_grad():
    for name, p in model.named_parameters():
        if name != "slope.weight":
            p.copy_(fill(p.shape, 0.6))
print(model)

x = fill((5, 6), 2.0)
target = torch.tensor([0, 2, 1, 1, 0], device=device)
opt = torch.optim.SGD(model.parameters(), lr=0.2)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.5f}")
print("PReLU slopes:", show(model.slope.weight))
print("grad of the slopes:", show(model.slope.weight.grad))

v = torch.tensor([[-4.0, -2.5, -1.0, -0.3, 0.0, 0.4, 1.5, 3.0, 5.0, 7.0]], device=device, requires_grad=True)
table = [
    ("elu", lambda t: F.elu(t)),
    ("elu(alpha=0.5)", lambda t: F.elu(t, alpha=0.5)),
    ("selu", F.selu),
    ("celu(2)", lambda t: F.celu(t, alpha=2.0)),
    ("softplus", F.softplus),
    ("softplus(beta=3, threshold=4)", lambda t: F.softplus(t, beta=3, threshold=4)),
    ("hardtanh(-2, 2)", lambda t: F.hardtanh(t, -2.0, 2.0)),
    ("relu6", F.relu6),
    ("leaky_relu(0.1)", lambda t: F.leaky_relu(t, 0.1)),
    ("logsigmoid", F.logsigmoid),
    ("hardswish", F.hardswish),
    ("hardsigmoid", F.hardsigmoid),
    ("hardshrink", F.hardshrink),
    ("softshrink(1)", lambda t: F.softshrink(t, 1.0)),
    ("threshold(0.5, -9)", lambda t: F.threshold(t, 0.5, -9.0)),
    ("softsign", F.softsign),
    ("tanhshrink", F.tanhshrink),
    ("softmin", lambda t: F.softmin(t, dim=1)),
    ("glu", F.glu),
    ("prelu", lambda t: F.prelu(t, torch.tensor([0.3], device=device))),
]
weights = torch.linspace(-1.0, 2.0, 10, device=device).reshape(1, 10)
for name, f in table:
    y = f(v)
    v.grad = None
    (y * weights[:, : y.shape[1]]).sum().backward()
    print(f"{name:30s} {y.grad_fn.name():20s} {show(y)}")
    print(f"{'':30s} {'grad':20s} {show(v.grad)}")

# In place: the node of the in-place form, and what it saves.
a = fill((2, 4), 3.0).requires_grad_()
b = a * 1.0
F.elu_(b)
print("elu_:", b.grad_fn.name(), show(b))
b.sum().backward()
print("grad:", show(a.grad))
c = a.detach().clone()
nn.Hardtanh(-1.0, 1.0, inplace=True)(c)
F.threshold_(c, 0.0, 0.25)
print("hardtanh then threshold in place:", show(c))

# Half precision computes in float and rounds once.
h = torch.tensor([-2.0, -0.5, 0.25, 1.5, 4.0], dtype=torch.float16, device=device)
print("half:", F.elu(h).tolist(), F.softplus(h).tolist(), F.hardswish(h).tolist(), F.logsigmoid(h).tolist())

for bad in [
    lambda: F.elu(torch.tensor([1, 2], device=device)),
    lambda: F.glu(torch.ones(2, 3, device=device)),
    lambda: F.hardtanh(torch.ones(2, device=device), 2.0, 1.0),
    lambda: F.prelu(torch.ones(2, 3, device=device), torch.ones(2, device=device)),
    lambda: nn.CELU(0.0)(torch.ones(2, device=device)),
    lambda: F.softshrink(torch.ones(2, device=device), -1.0),
]:
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__ + ":", str(e).split("\n")[0].replace("_cuda", "_cpu"))
