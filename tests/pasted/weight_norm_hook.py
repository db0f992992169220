# torch.nn.utils.weight_norm (the older API, a forward pre-hook) and
# remove_weight_norm.
import torch
import torch.nn as nn
from torch.nn.utils import weight_norm, remove_weight_norm
def show(name, t):
    vals = [round(v, 4) for v in t.detach().flatten().tolist()[:8]]
    print(name, tuple(t.shape), t.requires_grad, vals)
torch.manual_seed(0)
m = weight_norm(nn.Linear(20, 40), name='weight')
print([n for n, _ in m.named_parameters()])
show("g", m.weight_g); show("v", m.weight_v); show("w", m.weight)
print(list(m.state_dict().keys()))
x = torch.linspace(-1, 1, 60).reshape(3, 20)
with torch.no_grad():
    m.weight_g.mul_(2)
y = m(x); show("y", y)
y.sum().backward(); show("g.grad", m.weight_g.grad)
c = nn.utils.weight_norm(nn.Conv1d(2, 3, 3), dim=None)
show("g none", c.weight_g)
remove_weight_norm(m)
print([n for n, _ in m.named_parameters()], isinstance(m.weight, nn.Parameter))
show("w after", m.weight)
try:
    remove_weight_norm(m)
except ValueError as e:
    print("ValueError:", e)
try:
    weight_norm(c)
except RuntimeError as e:
    print("RuntimeError:", e)
