# More of torch.nn as PyTorch composes it: LocalResponseNorm, LPPool1d/2d,
# MultiMarginLoss, TripletMarginWithDistanceLoss (modules and functions:
# values, gradients, reprs, errors); and a program's own module class with
# extra_repr, which PyTorch's Module.__repr__ shows.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 5, 3, 4, requires_grad=True)
lrn = nn.LocalResponseNorm(3)
print(lrn)
y = lrn(x)
print(y.shape, [round(v, 5) for v in y[0, :, 0, 0].tolist()])
y.sum().backward(); print([round(v, 5) for v in x.grad[1, :, 2, 3].tolist()])
print([round(v, 5) for v in F.local_response_norm(torch.randn(2, 4, 6), 2, alpha=0.1, beta=0.5, k=2.0)[0, :, 0].tolist()])
try:
    F.local_response_norm(torch.randn(2, 3), 2)
except ValueError as e:
    print("ValueError", e)
p = nn.LPPool2d(2, 3, stride=2)
print(p, [round(v, 5) for v in p(torch.randn(1, 2, 7, 7)).flatten()[:5].tolist()])
print(nn.LPPool1d(1.5, 2), [round(v, 5) for v in nn.LPPool1d(1.5, 2)(torch.rand(1, 2, 6)).flatten().tolist()])
inp = torch.randn(4, 5, requires_grad=True); tgt = torch.tensor([0, 3, 1, 4])
for kw in [{}, {"p": 2}, {"margin": 0.5, "weight": torch.tensor([1., 2., 1., 0.5, 3.])}, {"reduction": "none"}, {"reduction": "sum"}]:
    l = F.multi_margin_loss(inp, tgt, **kw)
    g = torch.autograd.grad(l.sum(), inp)[0]
    print([round(v, 5) for v in l.flatten().tolist()], [round(v, 5) for v in g[1].tolist()])
print(nn.MultiMarginLoss(), round(nn.MultiMarginLoss()(torch.tensor([0.1, 0.2, 0.4, 0.8]), torch.tensor([3])).item(), 5))
a, pp, n = torch.randn(3, 4, requires_grad=True), torch.randn(3, 4), torch.randn(3, 4)
crit = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v), margin=0.3, swap=True)
print(crit, round(crit(a, pp, n).item(), 5), round(F.triplet_margin_with_distance_loss(a, pp, n).item(), 5))
try:
    F.triplet_margin_with_distance_loss(a, pp, n[0])
except RuntimeError as e:
    print("RuntimeError", e)

class Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s
    def extra_repr(self):
        return f"s={self.s}"
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Scale(2)
        self.b = nn.Linear(2, 2)
print(Scale(3))
print(Net())
n = Net()
print(f"model: {n}")
s = str(n)
print(s.count("s=2"), repr(Scale(5)))
print([Scale(1)])
