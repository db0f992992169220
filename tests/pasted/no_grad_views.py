# A view made under no_grad of a tensor that requires grad: PyTorch's view
# requires grad too (a leaf with no history, whose gradient goes nowhere),
# and changing it in place outside no_grad is refused.
import torch

a = torch.ones(3, requires_grad=True)
with torch.no_grad():
    v = a[:2]
    w = a.view(3)
print(v.requires_grad, v.is_leaf, v.grad_fn, w.requires_grad, w.is_leaf)
try:
    v.mul_(2)
except RuntimeError as e:
    print("RuntimeError:", e)
(v * 2).sum().backward()
print(v.grad, a.grad)

with torch.no_grad():
    u = a[1:]
    u.mul_(3)
print(a, u.requires_grad)

b = torch.ones(3)
with torch.no_grad():
    p = b[:2]
p.mul_(2)
print(b, p.requires_grad)

c = a * 1
with torch.no_grad():
    q = c[:2]
print(q.requires_grad, q.is_leaf, q.grad_fn)
try:
    q.add_(1)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:38])

with torch.no_grad():
    t = a.detach()[:2]
    r = a.reshape(3)
    f = a.flatten()
    n = a.unsqueeze(0)
    ch = a.chunk(3)
    m = a * 2
print(t.requires_grad, r.requires_grad, f.requires_grad, n.requires_grad, ch[0].requires_grad, m.requires_grad)

lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    first = lin.weight[0]
    first.zero_()
print(lin.weight.requires_grad, first.requires_grad, lin.weight[0].sum().item())
