# torch's functions that programs reach for beyond the basics: differences
# and rotations, tensordot, searching and counting (searchsorted,
# bucketize, isin, bincount, histc), statistics (quantile, cov, corrcoef,
# nanmean), integration (trapezoid), combinatorics (cartesian_prod,
# combinations, triu_indices), matrix powers, F.gumbel_softmax; their
# values, graphs, gradients (gradcheck) and errors as PyTorch's.
import torch
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)


def show(*xs):
    def host(x):
        if isinstance(x, torch.Tensor):
            return x.detach().cpu()
        if isinstance(x, (tuple, list)):
            return type(x)(host(i) for i in x)
        return x
    print(*[host(x) for x in xs])


def t(data, **kw):
    return torch.tensor(data, device=device, **kw)


def err(f):
    try:
        f()
    except (RuntimeError, NotImplementedError, IndexError) as e:
        print(type(e).__name__, e)


# Counting and searching.
i = t([0, 2, 2, 5])
show(torch.bincount(i), torch.bincount(i, minlength=8), i.bincount(weights=t([1.0, 0.5, 0.5, 2.0])))
show(torch.bincount(i, weights=t([1.0, 0.5, 0.5, 2.0], dtype=torch.float64)).dtype, torch.bincount(t([], dtype=torch.long)))
err(lambda: torch.bincount(t([-1, 2])))
err(lambda: torch.bincount(t([1.0])))
show(torch.histc(t([1.0, 2, 1, 4, 2.5]), bins=4, min=0, max=4), t([1.0, 2, 1]).histc(bins=4))
err(lambda: torch.histc(t([1, 2]), bins=2))
s = t([1, 3, 5, 7, 9])
v = t([[3, 6, 9], [3, 6, 9]])
show(torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), torch.searchsorted(s, v, side="right").dtype, torch.searchsorted(s, v, out_int32=True).dtype)
show(torch.bucketize(v, s), torch.bucketize(t([3.0, float("nan")]), t([1.0, 3.0]), right=True))
show(torch.searchsorted(t([[1, 3, 5], [2, 4, 6]]), t([[3], [3]])), torch.searchsorted(s, 4))
show(torch.searchsorted(t([1.0, 2.0, float("nan")]), t([float("nan"), 5.0])))
show(torch.isin(t([[1, 2], [3, 4]]), t([2, 3])), torch.isin(t([1, 2]), 2, invert=True))
show(torch.unique_consecutive(t([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True))
show(torch.aminmax(t([1.0, 5, -2])))
show(torch.aminmax(t([[1.0, 5], [-2, 3]]), dim=1, keepdim=True))
show(torch.triu_indices(3, 3), torch.tril_indices(3, 4, -1), torch.triu_indices(4, 3, 1))

# Shapes.
show(torch.tensor_split(torch.arange(8, device=device), 3), torch.tensor_split(torch.arange(7, device=device), [1, 5]))
show(torch.arange(8, device=device).view(2, 4).tensor_split(3, dim=1))
show(torch.combinations(t([1, 2, 3])), torch.combinations(t([1, 2, 3]), 3), torch.combinations(t([1, 2, 3]), with_replacement=True))
show(torch.combinations(t([1, 2, 3]), 0), torch.combinations(t([1, 2]), 3))
show(torch.cartesian_prod(t([1, 2]), t([3, 4])), torch.cartesian_prod(t([1, 2])))
show(torch.diff(t([1, 3, 2])), torch.diff(t([[1.0, 2, 4], [3, 7, 8]]), n=2, dim=1), torch.diff(t([1, 3]), prepend=t([0]), append=t([5, 9])), torch.diff(t([True, False, False])))
a = torch.arange(6, device=device).view(2, 3)
show(torch.rot90(a), torch.rot90(a, 2), a.rot90(-1, [1, 0]), torch.fliplr(a), torch.flipud(a))
err(lambda: torch.rot90(a, 1, [0, 0]))
err(lambda: torch.fliplr(torch.arange(3)))
show(torch.moveaxis(torch.ones(2, 3, 4), 0, -1).shape, torch.atleast_1d(torch.tensor(1.0)), torch.atleast_2d(t([1.0, 2])), torch.atleast_3d(torch.ones(2, 3)).shape)
show(torch.block_diag(torch.ones(2, 2), t([[5.0]]), t([1.0, 2])))
show(torch.take(t([[4, 3], [5, 6]]), t([0, 3])), torch.msort(t([[3, 1], [1, 2]])))
show(torch.take_along_dim(t([[10, 30, 20], [60, 40, 50]]), t([[0], [2]]), dim=1), torch.take_along_dim(t([[10, 30], [60, 40]]), t([3, 0])))
err(lambda: torch.take(t([1, 2]), t([5])))

# Products and powers.
show(torch.tensordot(torch.arange(6.0, device=device).view(2, 3), torch.arange(12.0, device=device).view(3, 4), dims=1))
show(torch.tensordot(torch.arange(24.0, device=device).view(2, 3, 4), torch.arange(12.0, device=device).view(3, 4), dims=([1, 2], [0, 1])))
show(torch.tensordot(torch.ones(2, 2, device=device), torch.ones(2, 2, device=device), dims=0).shape)
show(torch.inner(t([1.0, 2]), t([3.0, 4])), torch.inner(torch.ones(2, 3, device=device), torch.ones(4, 3, device=device)).shape)
show(torch.addr(torch.zeros(2, 2, device=device), t([1.0, 2]), t([3.0, 4]), beta=0.5, alpha=2))
show(torch.matrix_power(t([[1.0, 1], [0, 1]]), 5), torch.linalg.matrix_power(t([[2.0, 0], [0, 4]]), -2), torch.matrix_power(t([[2.0, 1], [0, 4]]), 0))
show(torch.vander(t([1, 2, 3])), torch.vander(t([1.0, 2, 3]), N=2, increasing=True))

# Statistics.
x = t([[0.0, 1, 2], [2, 1, 0]])
show(torch.cov(x), torch.cov(x, correction=0), torch.cov(x, fweights=t([1, 2, 1]), aweights=t([0.5, 1.0, 1.0])), torch.corrcoef(x))
show(torch.cov(t([1.0, 2.0, 4.0])), torch.corrcoef(t([1.0, 2.0, 4.0])))
q = t([[0.0, 1, 2, 3], [4.0, 3, 1, 7]])
show(torch.quantile(q, 0.4), torch.quantile(q, t([0.25, 0.5]), dim=1, keepdim=True))
show([q.quantile(0.3, dim=0, interpolation=m) for m in ["linear", "lower", "higher", "nearest", "midpoint"]])
show(torch.nanquantile(t([1.0, float("nan"), 3.0]), 0.5), torch.quantile(t([1.0, float("nan"), 3.0]), 0.5))
err(lambda: torch.quantile(q, 1.5))
show(torch.nansum(t([1.0, float("nan"), 2.0])), torch.nanmean(t([[1.0, float("nan")], [2.0, 4.0]]), dim=1), torch.nansum(t([1, 2])))
show(torch.trapezoid(t([1.0, 5, 10])), torch.trapezoid(t([1.0, 5, 10]), dx=2), torch.trapezoid(t([1.0, 5, 10]), t([1.0, 3, 6])))
show(torch.trapz(t([[1.0, 2], [3, 4]]), dim=0), torch.cumulative_trapezoid(t([1.0, 5, 10])))
show(torch.logcumsumexp(t([0.0, 1, 2]), 0), torch.logcumsumexp(t([-1000.0, 1000.0, 0.0]), 0))

# Elementwise.
show(torch.logaddexp(t([-1.0, 0, float("inf")]), t([-1.0, 2, float("inf")])), torch.logit(t([0.25, 0.5, 0.9])))
show(torch.logit(t([0.0, 1.0]), eps=1e-6), torch.xlogy(t([0.0, 2, 0]), t([0.0, 3, float("nan")])), torch.hypot(t([3.0]), t([4.0])))
show(torch.deg2rad(t([180.0])), torch.true_divide(t([3]), 2), torch.float_power(t([2]), 3), torch.sgn(t([-2.0, 0, 3])))
show(torch.slogdet(t([[2.0, 1], [1, 3]])))
show(torch.logdet(t([[2.0, 1], [1, 3]])))

# Graphs where PyTorch composes the function from other ops too.
w = torch.randn(6).to(device).requires_grad_()
m = torch.randn(3, 3).to(device).requires_grad_()
names = lambda *ts: [type(r.grad_fn).__name__ for r in ts]
print(names(torch.diff(w), torch.tensordot(m, m, 1), torch.inner(w, w), torch.cartesian_prod(w, w), torch.combinations(w, 2)))
print(names(torch.take_along_dim(m, t([[0], [1], [2]]), 1), torch.nanmean(w), torch.cov(m), torch.corrcoef(m), torch.vander(w), torch.vander(w, increasing=True)))
print(names(torch.matrix_power(m, 2), torch.matrix_power(m, 5), torch.matrix_power(m, 1), torch.matrix_power(m, 0), torch.tensor_split(w, 3)[1], torch.atleast_2d(w), torch.fliplr(m), torch.msort(m)))

# Gradients against finite differences.
d = lambda *shape: torch.randn(*shape, dtype=torch.float64).to(device).requires_grad_()
check = torch.autograd.gradcheck
print(check(lambda x: torch.diff(x, n=2, dim=0, append=x[:1]), (d(4, 3),)))
print(check(lambda x: torch.rot90(x, 3, [1, 2]), (d(2, 3, 4),)), check(torch.fliplr, (d(2, 3),)))
print(check(lambda a, b: torch.tensordot(a, b, ([0, 2], [1, 0])), (d(2, 3, 4), d(4, 2, 5))))
print(check(lambda a, b, c: torch.addr(a, b, c, beta=2, alpha=0.5), (d(3, 2), d(3), d(2))))
print(check(lambda x: torch.matrix_power(x, 5), (d(3, 3),)), check(lambda x: torch.matrix_power(x, -2), (d(2, 2) + 3 * torch.eye(2, dtype=torch.float64, device=device),)))
print(check(lambda x: torch.combinations(x, 2, with_replacement=True), (d(4),)), check(lambda x, y: torch.cartesian_prod(x, y), (d(2), d(3))))
print(check(lambda x: torch.take_along_dim(x, t([[2, 0], [1, 1]]), 1), (d(2, 3),)), check(lambda x: torch.take(x, t([[5, 0], [2, 2]])), (d(2, 3),)))
print(check(lambda x, y: torch.block_diag(x, y), (d(2, 2), d(3))))
print(check(lambda x: torch.nanmean(x, 1), (d(3, 4),)), check(lambda x: torch.nansum(x), (d(3, 4),)))
print(check(lambda x: torch.quantile(x, t([0.2, 0.9], dtype=torch.float64), dim=1), (d(3, 5),)))
print(check(torch.cov, (d(3, 6),)), check(torch.corrcoef, (d(3, 6),)))
# (PyTorch's own vander fails gradcheck: its cumprod writes into a view it saved.)
print(check(lambda y, x: torch.trapezoid(y, x), (d(5), d(5))), check(torch.cumulative_trapezoid, (d(2, 5),)))
print(check(lambda x: torch.logcumsumexp(x, 1), (d(2, 5),)), check(torch.logaddexp, (d(4), d(4))), check(torch.hypot, (d(4), d(4))))
print(check(lambda x: torch.logit(x.sigmoid()), (d(4),)), check(lambda x, y: torch.xlogy(x, y.exp()), (d(4), d(4))))
print(check(lambda x: torch.slogdet(x).logabsdet, (d(3, 3),)), check(lambda x: torch.logdet(x @ x.mT + torch.eye(3, dtype=torch.float64, device=device)), (d(3, 3),)))

# F.gumbel_softmax: Gumbel noise from exponential draws, then softmax;
# hard=True is the one-hot with the soft sample's gradient.
torch.manual_seed(0)
logits = torch.randn(2, 5).requires_grad_()
soft = F.gumbel_softmax(logits, tau=0.5)
show(soft, type(soft.grad_fn).__name__)
hard = F.gumbel_softmax(logits, hard=True)
show(hard, type(hard.grad_fn).__name__)
(hard * torch.arange(5.0)).sum().backward()
show(logits.grad)

# Running extremes, the mode, and nn.init's eye_, dirac_ and sparse_.
x = t([1.0, 3.0, 3.0, 2.0, 5.0, 5.0, 0.0]).requires_grad_()
v, i = torch.cummax(x, 0)
show(v, i)
v.sum().backward()
show(x.grad)
show(torch.cummin(t([[3, 1, 1, 2], [0, 0, 1, -1]]), 1))
show(t([1.0, float("nan"), 2.0]).cummax(0))
show(torch.mode(t([3, 1, 2, 1, 3, 0])), torch.mode(t([[1.0, 2, 2], [3, 3, 1]]), 1))
show(t([5, 5, 1, 1]).mode(), torch.mode(t([[1, 1], [2, 3]]), 0, keepdim=True))
w = torch.empty(3, 5, device=device)
show(torch.nn.init.eye_(w))
w = torch.empty(2, 2, 3, device=device)
show(torch.nn.init.dirac_(w))
show(torch.nn.init.dirac_(torch.empty(4, 2, 3, 3, device=device), groups=2)[:, :, 1, 1])
torch.manual_seed(0)
w = torch.empty(4, 3)
show(torch.nn.init.sparse_(w, 0.5))
try:
    torch.nn.init.eye_(torch.empty(2, 2, 2))
except ValueError as e:
    print("ValueError", e)

# scatter_reduce and index_reduce: each reduction, with and without self,
# values and gradients (PyTorch's formulas: ties share a max's gradient).
src = t([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).requires_grad_()
index = t([0, 1, 0, 1, 2, 1])
inp = t([1.0, 2.0, 3.0, 4.0]).requires_grad_()
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        out = inp.scatter_reduce(0, index, src, reduce=red, include_self=inc)
        g = torch.autograd.grad(out, (inp, src), torch.arange(1.0, 5.0, device=device))
        print(red, inc, out.tolist(), g[0].tolist(), g[1].tolist())
x = t([[1.0, 5.0, 5.0], [2.0, 2.0, 0.0]]).requires_grad_()
o = torch.zeros(2, 2, device=device).scatter_reduce(1, t([[0, 1, 1], [1, 1, 0]]), x, "amax", include_self=False)
show(o, torch.autograd.grad(o.sum(), x)[0])
show(torch.zeros(3, dtype=torch.long, device=device).scatter_reduce(0, t([0, 0, 2]), t([3, 4, 5]), "mean"))
show(torch.ones(2, 3, device=device).index_reduce(0, t([0, 0]), t([[2.0, 3, 4], [5, 6, 7]]), "prod"))
show(torch.ones(2, 3, device=device).index_reduce_(1, t([2, 0, 2]), t([[2.0, 3, 4], [5, 6, 7]]), "amax", include_self=False))
big = torch.randn(1000)
idx = torch.randint(0, 7, (1000,))
print(torch.zeros(7).scatter_reduce(0, idx, big, "sum").tolist() == torch.zeros(7).scatter_add(0, idx, big).tolist())
print([round(v, 4) for v in torch.zeros(7).scatter_reduce(0, idx, big, "mean", include_self=False).tolist()])
print([round(v, 4) for v in torch.zeros(7).scatter_reduce(0, idx, big, "amax", include_self=False).tolist()])
print([round(v, 6) for v in torch.ones(7).scatter_reduce(0, idx[:30], big[:30], "prod").tolist()])
print(check(lambda s: torch.zeros(3, dtype=torch.float64, device=device).scatter_reduce(0, t([0, 1, 0, 2, 2, 1]), s, "prod", include_self=False), (d(6),)))
print(check(lambda s: torch.zeros(3, dtype=torch.float64, device=device).scatter_reduce(0, t([0, 1, 0, 2, 2, 1]), s, "mean"), (d(6),)))

# atan2 (C's quadrants and signed zeros), div's rounding_mode, and the
# NumPy names of torch's ops.
y = t([1.0, -1.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 3.0, float("inf"), -float("inf"), float("nan"), 2.5, -7.25])
x = t([1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 0.0, 0.0, -4.0, float("inf"), -float("inf"), 1.0, -0.3, -2.0])
print([round(v, 5) for v in torch.atan2(y, x).tolist()], [round(v, 5) for v in y.arctan2(x).tolist()])
gy, gx = t([0.5, -2.0]).requires_grad_(), t([0.0, 3.0]).requires_grad_()
torch.atan2(gy, gx).sum().backward()
show(gy.grad, gx.grad)
print(check(torch.atan2, (d(5), d(5))))
a, b = t([-7.0, 7.5, 3.0]), t([2.0, 2.0, -2.0])
show(torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"), a.div(b, rounding_mode=None))
show(torch.div(t([-7, 7]), 2, rounding_mode="trunc"), torch.div(t([-7, 7]), 2, rounding_mode="floor"), torch.div(t([-7, 7]), 2))
a.div_(2, rounding_mode="floor")
show(a)
err(lambda: torch.div(a, b, rounding_mode="round"))
show(torch.divide(t([5]), 3, rounding_mode="floor"), torch.multiply(torch.ones(2, device=device), 3), t([1.0, 2]).subtract(1, alpha=2))
show(torch.greater(torch.arange(3, device=device), 1), torch.less_equal(t([1, 2]), 1), torch.not_equal(t([1, 2]), 1))
show(torch.concat([torch.ones(1), torch.zeros(1)]), torch.concatenate([torch.ones(1), torch.zeros(1)], axis=0), torch.fix(t([-1.5, 1.5])), t([-2.0]).absolute(), torch.negative(t([3])))

# QR by Householder reflections (LAPACK's signs), the pseudo-inverse and
# least squares.
torch.manual_seed(0)
A = torch.randn(4, 3).to(device)
Q, R = torch.linalg.qr(A)
show(Q, R)
show(torch.linalg.qr(A, mode="complete").Q.shape, torch.linalg.qr(A, mode="r").R)
print(torch.allclose(Q @ R, A, atol=1e-6), torch.allclose(Q.mT @ Q, torch.eye(3, device=device), atol=1e-6))
show(torch.linalg.qr(torch.randn(2, 2, 3).to(device))[1].shape)
show(torch.linalg.pinv(A), torch.linalg.pinv(t([[1.0, 2.0], [2.0, 4.0]])))
B = torch.randn(4, 2).to(device)
sol = torch.linalg.lstsq(A, B)
show(sol.solution, sol.rank)
print(check(lambda a: torch.linalg.qr(a).R, (d(4, 3),)), check(lambda a: torch.linalg.pinv(a), (d(3, 2),)))

# torch.histogram (equal bins, a range, density, given edges and weights)
# and torch.frexp.
x = t([1.0, 2.0, 1.0, 4.0, 2.5, 0.0])
show(torch.histogram(x.cpu(), bins=4))
show(torch.histogram(x.cpu(), bins=3, range=(0.0, 3.0), density=True))
show(torch.histogram(x.cpu(), bins=torch.tensor([0.0, 1.0, 2.5, 5.0]), weight=torch.tensor([1.0, 2.0, 1.0, 1.0, 1.0, 3.0])))
show(torch.frexp(t([8.0, 0.3, -5.0, 0.0, 1e-40, float("inf")])), x.cpu().histogram(2))
