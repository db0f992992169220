# nn.RReLU and F.rrelu: random slopes drawn as PyTorch's CPU kernel draws them,
# the mean slope in evaluation, in place and in float64.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
m = nn.RReLU()
print(m, nn.RReLU(0.1, 0.3, inplace=True))
x = torch.randn(3, 4, requires_grad=True)
y = m(x)
print(y.grad_fn.__class__.__name__.startswith("Rrelu"), [round(v, 6) for v in y.flatten().tolist()])
y.sum().backward()
print([round(v, 6) for v in x.grad.flatten().tolist()])
m.eval()
z = m(x)
print(z.grad_fn.__class__.__name__.startswith("Rrelu"), [round(v, 6) for v in z.flatten().tolist()])
print([round(v, 6) for v in F.rrelu(x.detach().double(), 0.2, 0.5, training=True).flatten().tolist()])
w = torch.randn(5)
F.rrelu_(w, training=True)
print([round(v, 6) for v in w.tolist()])
print([round(v, 6) for v in torch.rand(2).tolist()])
try:
    F.rrelu(w, 0.5, 0.1, training=True)
except RuntimeError as e:
    print("RuntimeError", e)
