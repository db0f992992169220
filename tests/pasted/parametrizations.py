# torch.nn.utils.parametrizations: weight_norm and spectral_norm on a
# layer's weight, as parametrizations (PyTorch's current API).
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm, spectral_norm
def show(name, t):
    vals = [round(v, 4) for v in t.detach().flatten().tolist()[:8]]
    print(name, tuple(t.shape), t.dtype, t.requires_grad, vals)
torch.manual_seed(0)
m = weight_norm(nn.Linear(20, 40), name='weight')
print(m)
show("g", m.parametrizations.weight.original0)
show("v", m.parametrizations.weight.original1)
print(list(m.state_dict().keys()))
x = torch.linspace(-1, 1, 60).reshape(3, 20)
y = m(x); show("y", y)
y.sum().backward(); show("g.grad", m.parametrizations.weight.original0.grad)
c = weight_norm(nn.Conv1d(2, 3, 3), dim=None)
show("g none", c.parametrizations.weight.original0)
s = spectral_norm(nn.Linear(20, 40))
print(s)
show("u", s.parametrizations.weight[0]._u)
show("sn w", s.weight)
print("sigma", round(torch.linalg.svdvals(s.weight).max().item(), 3))
s.eval(); show("eval", s(x))
ct = spectral_norm(nn.ConvTranspose2d(2, 3, 3))
show("ct", ct.weight)
print(sorted(dict(s.named_buffers()).keys()))
