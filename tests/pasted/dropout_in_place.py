"""Dropout with inplace=True, as DCGAN-style and VGG-style models write it
(`nn.Dropout(0.5, inplace=True)`, `F.dropout(x, p, training, inplace=True)`,
`nn.Dropout2d(inplace=True)`): the input itself is changed, its version
goes up, the module prints its setting, the graph is `x.mul_(noise)`, and
PyTorch's errors for a leaf and for a saved tensor changed in place."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

d = nn.Dropout(0.5, inplace=True)
print(d, d.inplace, nn.Dropout(0.2), nn.Dropout2d(0.3, inplace=True))

torch.manual_seed(0)
x = torch.ones(2, 8, device=device)
y = d(x)
print(y is x, x._version, sorted(set(x.flatten().tolist())))
print(int((x == 0).sum()) + int((x == 2).sum()) == 16)

d.eval()
z = torch.ones(3, device=device)
print(d(z) is z, z._version, z.tolist())

w = torch.linspace(-1, 1, 6, device=device, requires_grad=True)
h = w * 3
out = F.dropout(h, p=0.25, training=True, inplace=True)
print(out is h, h.grad_fn.name(), h._version)
h.sum().backward()
kept = h != 0
print(torch.equal(w.grad != 0, kept), set(round(v, 4) for v in w.grad.tolist()) <= {0.0, 4.0})

try:
    leaf = torch.ones(3, requires_grad=True, device=device)
    F.dropout(leaf, 0.5, True, True)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

a = torch.linspace(0.5, 2, 4, device=device, requires_grad=True)
e = a.exp()
nn.Dropout(0.5, inplace=True)(e)
try:
    e.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", str(err).split(":")[0])

c = torch.ones(2, 3, 2, 2, device=device)
nn.Dropout2d(0.5, inplace=True)(c)
per_channel = c.sum(dim=(2, 3)).flatten().tolist()
print(c._version, all(v in (0.0, 8.0) for v in per_channel))
q = torch.ones(4, device=device)
F.dropout(q, p=1.0, inplace=True)
print(q.tolist(), q._version)
