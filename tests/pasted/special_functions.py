# torch.special and the gamma family (lgamma, digamma, polygamma, mvlgamma),
# erfc / erfcx / ndtr, sinc, entr, xlog1py: values (to six significant
# digits: cudash rounds float64 results once, where PyTorch's float32
# kernels are an ulp or two off now and then), poles, gradients.
import math
import torch
import torch.special as S

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def g6(t):
    return [v if v != v or v in (math.inf, -math.inf) else float(f"{v:.6g}") for v in t.flatten().tolist()]


x = torch.tensor([0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 123.4, -0.5, -2.5, -3.0, 0.0], device=device)
for dtype in (torch.float32, torch.float64):
    v = x.to(dtype)
    print(g6(torch.lgamma(v)), [float(f"{d:.5g}") for d in v.digamma().tolist()], g6(torch.polygamma(1, v[:10])))
print(g6(torch.polygamma(2, x[:8].double())), g6(torch.polygamma(3, x[:8].double())))
y = torch.tensor([-3.0, -1.0, -0.2, 0.0, 0.3, 1.0, 2.5, 4.0, 6.0, 9.0, 12.0, 30.0], device=device)
print(g6(torch.erfc(y)), g6(y.double().erfc()))
print(g6(S.erfcx(torch.tensor([0.5, 3.0, 10.0], device=device))), g6(S.ndtr(torch.tensor([-1.0, 0.0, 2.0], device=device))), g6(S.ndtri(torch.tensor([0.1, 0.5], device=device))))
print(g6(S.expit(torch.tensor([0.3]))), g6(S.entr(torch.tensor([0.0, 0.5, -1.0]))), g6(torch.sinc(torch.tensor([0.0, 0.5, 1.5]))), g6(S.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([5.0, 1.0]))))
print(g6(S.gammaln(torch.tensor([4.0]))), g6(S.psi(torch.tensor([1.0]))), g6(torch.mvlgamma(torch.tensor([2.5, 3.0]), 2)), g6(S.multigammaln(torch.tensor([4.0]), 3)))
print(g6(S.log_ndtr(torch.tensor([-2.0, 1.0]))), g6(S.logit(torch.tensor([0.25]))), g6(S.xlogy(torch.tensor([2.0]), torch.tensor([3.0]))), g6(S.softmax(torch.tensor([1.0, 2.0]), 0)), g6(S.round(torch.tensor([1.26]), decimals=1)))
g = torch.tensor([2.5, 0.7, 4.0], dtype=torch.float64, device=device, requires_grad=True)
check = torch.autograd.gradcheck
print(check(torch.lgamma, (g,)), check(torch.digamma, (g,)), check(lambda t: torch.polygamma(2, t), (g,)), check(torch.erfc, (g - 2,)))
print(check(lambda t: torch.mvlgamma(t, 2), (g + 1,)), check(torch.sinc, (g,)), check(lambda t: S.xlog1py(t, t), (g,)))
h = torch.tensor([3.0], device=device, requires_grad=True)
torch.lgamma(h).backward()
print(g6(h.grad))
try:
    torch.polygamma(-1, h)
except RuntimeError as e:
    print("RuntimeError", e)
# A Poisson log-likelihood, as a count model writes it.
rate = torch.tensor([0.5, 2.0, 7.5], device=device)
k = torch.tensor([0.0, 3.0, 5.0], device=device)
print(g6(k * rate.log() - rate - torch.lgamma(k + 1)))

# Forward-mode AD through them (and through the new shape functions),
# against central differences.
import torch.autograd.forward_ad as fwAD

x0 = torch.randn(3, 4, dtype=torch.float64).to(device)
t0 = torch.randn(3, 4, dtype=torch.float64).to(device)
cases = [
    ("lgamma", lambda z: torch.lgamma(z.abs() + 1)),
    ("digamma", lambda z: torch.digamma(z.abs() + 1)),
    ("polygamma", lambda z: torch.polygamma(2, z.abs() + 1)),
    ("erfc", torch.erfc),
    ("atan2", lambda z: torch.atan2(z, z.flip(0) + 0.5)),
    ("diff", lambda z: torch.diff(z, dim=1)),
    ("rot90", torch.rot90),
    ("tensordot", lambda z: torch.tensordot(z, z.T, 1)),
    ("cummax", lambda z: torch.cummax(z, 1).values),
    ("unfold", lambda z: z.unfold(1, 2, 1)),
    ("F.unfold", lambda z: torch.nn.functional.unfold(z.view(1, 1, 3, 4), 2)),
]
with fwAD.dual_level():
    dual = fwAD.make_dual(x0, t0)
    for name, f in cases:
        tangent = fwAD.unpack_dual(f(dual)).tangent
        eps = 1e-6
        fd = (f(x0 + eps * t0) - f(x0 - eps * t0)) / (2 * eps)
        print(name, tangent is not None and torch.allclose(tangent, fd, atol=1e-6))
