# More of torch's functions and layers programs reach for (session of
# 2026-12-07, sixth): heaviside, gcd/lcm, renorm, can_cast, the window
# functions, linalg.multi_dot/matrix_norm/matrix_rank/cond/slogdet, tile,
# fill_diagonal_, ChannelShuffle, MultiLabelMarginLoss, ReplicationPad3d,
# Dropout1d, AlphaDropout, FeatureAlphaDropout (their draws PyTorch's).
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def r(t, places=5):
    return [round(v, places) for v in t.flatten().tolist()]


torch.manual_seed(0)
print(r(torch.heaviside(torch.tensor([-1.0, 0.0, 2.0, float("nan")]).to(device), torch.tensor([0.5]).to(device))))
print(torch.gcd(torch.tensor([12, -18, 0, 7]).to(device), torch.tensor([18, 12, 0, 0]).to(device)).tolist(),
      torch.lcm(torch.tensor([4, -6, 0]).to(device), torch.tensor([6, 4, 5]).to(device)).tolist())
x = (torch.randn(3, 4) * 3).to(device)
print(r(torch.renorm(x, 2, 0, 2.0)), r(x.renorm(1, 1, 1.5)))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32),
      torch.can_cast(torch.int64, torch.bool), torch.can_cast(torch.bool, torch.int8))
for n in (0, 1, 2, 5, 8):
    print(n, r(torch.hann_window(n)), r(torch.hann_window(n, periodic=False)), r(torch.hamming_window(n)))
    print(r(torch.bartlett_window(n)), r(torch.bartlett_window(n, False)), r(torch.blackman_window(n, device=device)))
for shapes in [[(3, 4), (4, 5), (5, 2)], [(5, 4), (4, 3), (3, 6)], [(6, 2), (2, 7), (7, 3), (3, 5), (5, 4)],
               [(4,), (4, 3), (3,)], [(4,), (4, 3), (3, 2), (2, 5)]]:
    ms = [torch.randn(*s).to(device) for s in shapes]
    out = torch.linalg.multi_dot(ms)
    print(out.shape, r(out, 4)[:4])
A = torch.randn(2, 3, 3).to(device)
for o in ["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")]:
    print(o, r(torch.linalg.matrix_norm(A, ord=o), 4), torch.linalg.matrix_norm(A, ord=o, keepdim=True).shape)
print(torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]]).to(device)).item(), torch.linalg.matrix_rank(A).tolist())
print(r(torch.linalg.cond(A), 3), r(torch.linalg.cond(A, 1), 3), r(torch.linalg.cond(A, "fro"), 3))
s = torch.linalg.slogdet(A)
print(type(s).__name__, r(s.sign), r(s.logabsdet, 4))
print(torch.arange(3).tile((2,)).tolist(), torch.arange(4).reshape(2, 2).tile((2, 1, 2)).shape, torch.tile(torch.ones(2), (3,)).shape)
print(torch.zeros(3, 3).to(device).fill_diagonal_(5.0).tolist())
print(torch.zeros(7, 3).fill_diagonal_(1, wrap=True).tolist())
print(torch.zeros(2, 2, 2).fill_diagonal_(3).tolist())

x = torch.arange(24.0).reshape(1, 6, 2, 2).to(device)
print(nn.ChannelShuffle(3)(x)[0, :, 0, 0].tolist(), nn.ChannelShuffle(2))
xi = torch.randn(3, 5).to(device).requires_grad_()
y = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4]]).to(device)
loss = nn.MultiLabelMarginLoss()(xi, y)
loss.backward()
print(round(loss.item(), 5), r(xi.grad), r(nn.MultiLabelMarginLoss(reduction="none")(xi, y)))
print(nn.ReplicationPad3d(1)(torch.arange(8.0).reshape(1, 1, 2, 2, 2).to(device)).sum().item(), nn.ReplicationPad3d((1, 0, 0, 1, 2, 0)))
d = nn.Dropout1d(0.5)
# Dropout draws on the CPU (a GPU draws from its own generator, as PyTorch's).
print(d, d(torch.ones(2, 3, 4)).tolist(), d(torch.ones(3, 4)).tolist())
a = nn.AlphaDropout(0.2)
print(a, r(a(torch.ones(2, 5))))
fa = nn.FeatureAlphaDropout(0.3)
print(r(fa(torch.ones(2, 3, 2))))
a.eval()
print(a(torch.ones(2)).tolist(), round(torch.rand(1).item(), 6))

# interpolate's "area" mode (adaptive average pooling; sizes that divide
# the input evenly), and a matrix's conjugate transpose `H` / `mH`.
x = torch.randn(1, 2, 4, 6).to(device).requires_grad_()
y = F.interpolate(x, size=(2, 3), mode="area")
y.sum().backward()
print(y.shape, y.grad_fn.name(), r(y), r(x.grad)[:6])
print(F.interpolate(torch.arange(10.0).reshape(1, 1, 10).to(device), scale_factor=0.5, mode="area").tolist())
m = torch.arange(6.0).reshape(2, 3).to(device).requires_grad_()
print(m.H.shape, m.H.grad_fn.name(), m.mH.shape, torch.zeros(2, 3, 4).mH.shape)
try:
    torch.zeros(3).H
except RuntimeError as e:
    print(e)

# Adaptive average pooling to sizes that do not divide the input (windows
# that differ or overlap, as PyTorch's), and interpolate's area mode by it.
torch.manual_seed(1)
x = torch.randn(2, 3, 5, 7, requires_grad=True)
y = F.adaptive_avg_pool2d(x, (3, 4))
print(y.shape, y.grad_fn.name(), r(y)[:8])
(y * torch.arange(24.0).reshape(2, 3, 1, 4)).sum().backward()
print(r(x.grad)[:12])
z = nn.AdaptiveAvgPool2d((7, 7))(torch.randn(2, 4, 1, 1))
print(z.shape, r(z)[:9])
u = nn.AdaptiveAvgPool2d((5, 3))(torch.randn(1, 2, 2, 2))
print(r(u))
print(r(F.adaptive_avg_pool1d(torch.randn(1, 2, 7), 3)))
print(r(F.interpolate(torch.arange(25.0).reshape(1, 1, 5, 5), size=(3, 2), mode="area")))
print(r(F.interpolate(torch.arange(4.0).reshape(1, 1, 2, 2), scale_factor=1.5, mode="area")))
cl = torch.randn(1, 3, 5, 5).to(memory_format=torch.channels_last)
o = F.adaptive_avg_pool2d(cl, 3)
print(o.is_contiguous(memory_format=torch.channels_last), r(o)[:6])
h = F.adaptive_avg_pool2d(torch.randn(1, 2, 5, 5).half(), 3)
print(h.dtype, r(h.float(), 4)[:6])
print(r(F.adaptive_avg_pool2d(torch.randn(3, 5, 6), (4, 4)))[:5])

# Adaptive max pooling over uneven windows (ties keep the first, a NaN wins).
torch.manual_seed(2)
x = torch.randn(2, 3, 5, 7, requires_grad=True)
y = F.adaptive_max_pool2d(x, (3, 4))
print(y.shape, y.grad_fn.name(), y.flatten().tolist()[:8])
(y * torch.arange(24.0).reshape(2, 3, 1, 4)).sum().backward()
print(x.grad.flatten().tolist()[:14])
z = nn.AdaptiveMaxPool2d((4, 3))(torch.randn(1, 2, 2, 2))
print(z.flatten().tolist())
t = torch.tensor([[[[1.0, float("nan"), 3.0], [2.0, 2.0, 0.0]]]])
print(F.adaptive_max_pool2d(t, (1, 2)).tolist(), F.adaptive_max_pool1d(torch.tensor([[1.0, 5.0, 5.0, 2.0, 7.0]]), 3).tolist())
h = F.adaptive_max_pool2d(torch.randn(1, 2, 5, 5).half(), 3)
print(h.dtype, h.float().flatten().tolist()[:4])

# hsplit/vsplit/dsplit, signbit, copysign, F.pdist (session of 2026-12-07, seventh).
x = torch.arange(24.0).view(2, 3, 4).to(device)
print([t.shape for t in torch.hsplit(x, 3)], [t.shape for t in torch.vsplit(x, [1])], [t.shape for t in torch.dsplit(x, 2)])
print([t.tolist() for t in torch.arange(6).to(device).hsplit(3)], [t.shape for t in x[0].vsplit(3)])
for f, args in [(torch.hsplit, (x, 2)), (torch.vsplit, (torch.ones(3).to(device), 1)), (torch.dsplit, (x[0], 2))]:
    try:
        f(*args)
    except RuntimeError as e:
        print(e)
v = torch.tensor([1.0, -2.0, 0.0, -0.0, float("inf"), -3.5]).to(device)
print(torch.signbit(v).tolist(), v.signbit().tolist(), torch.signbit(torch.tensor([-1, 2]).to(device)).tolist())
print(torch.copysign(v, -1.0).tolist(), torch.copysign(torch.tensor([1, -2]).to(device), torch.tensor([-1, 1]).to(device)).tolist())
print(v.copysign(2).tolist())
w = torch.tensor([1.5, -2.0, 3.0]).to(device).requires_grad_()
torch.copysign(w, torch.tensor([-1.0, -1.0, 1.0]).to(device)).sum().backward()
print(w.grad.tolist())
pts = torch.randn(5, 3).to(device)
print(r(F.pdist(pts)), r(F.pdist(pts, p=1)), r(F.pdist(pts, p=float("inf"))))
q = pts.clone().requires_grad_()
F.pdist(q).sum().backward()
print(r(q.grad, 4))
# torch.gradient (uniform, scalar and coordinate spacing, both edge orders) and torch.ldexp.
torch.manual_seed(0)
f = torch.randn(5, 6)
print([g.tolist() for g in torch.gradient(f)])
print([g.tolist() for g in torch.gradient(f, spacing=0.3, dim=1, edge_order=2)])
print([g.tolist() for g in torch.gradient(f, spacing=(0.5, 2.0))])
cx = torch.tensor([0.0, 0.5, 1.5, 1.7, 3.0])
print([g.tolist() for g in torch.gradient(f, spacing=(cx,), dim=0)])
print([g.tolist() for g in torch.gradient(f, spacing=(cx,), dim=0, edge_order=2)])
print([g.tolist() for g in torch.gradient(torch.tensor([1, 4, 9, 16]))])
print([g.tolist() for g in torch.gradient(f.double(), dim=-1)])
print(torch.ldexp(torch.tensor([1.0, 3.0]), torch.tensor([2, -1])).tolist(), torch.tensor([1.5]).ldexp(torch.tensor([3])).tolist())
try:
    torch.gradient(torch.ones(2), edge_order=2)
except RuntimeError as e:
    print("RuntimeError", e)
