# Forward-mode AD as PyTorch's "Forward-mode Automatic Differentiation"
# tutorial uses it: dual tensors in a dual level, modules with dual
# parameters, functional_call, a custom Function with jvp, gradcheck with
# check_forward_ad, and torch.func.jvp to compare with.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call

torch.manual_seed(0)
primal = torch.randn(4, 3)
tangent = torch.randn(4, 3)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    plain = torch.randn(4, 3)
    dual_output = fn(dual_input, plain)
    unpacked = fwAD.unpack_dual(dual_output)
    jvp = unpacked.tangent
    print(type(unpacked).__name__, unpacked.primal.shape)
    print(dual_input)
    print(jvp)
    print(torch.allclose(jvp, 2 * primal * tangent))
    # Grad mode does not stop tangents.
    with torch.no_grad():
        print(fwAD.unpack_dual(dual_input.exp()).tangent)
    print(fwAD.unpack_dual(dual_input.detach()).tangent)
    print(fwAD.unpack_dual(plain).tangent)
# Leaving the level drops the tangents.
print(fwAD.unpack_dual(dual_output).tangent)

# Modules: parameters swapped for dual tensors.
model = nn.Linear(5, 3)
inp = torch.randn(6, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(inp)
    jvp = fwAD.unpack_dual(out).tangent
expected = inp @ tangents["weight"].t() + tangents["bias"]
print(torch.allclose(jvp, expected), jvp.shape)

# The functional module API.
model = nn.Linear(5, 3)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, inp)
    jvp2 = fwAD.unpack_dual(out).tangent
print(torch.allclose(jvp, jvp2))

# A network with a dual input, beside torch.func.jvp.
net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 2))
for p in net.parameters():
    p.requires_grad_(False)
v = torch.randn(6, 5)
with fwAD.dual_level():
    y = net(fwAD.make_dual(inp, v))
    probs = F.softmax(y, dim=1)
    loss = F.log_softmax(y, dim=1).mean()
    print(fwAD.unpack_dual(y).tangent)
    print(fwAD.unpack_dual(probs).tangent[:2])
    print(fwAD.unpack_dual(loss))
_, expected = torch.func.jvp(net, (inp,), (v,))
print((fwAD.unpack_dual(y).tangent if False else expected)[:2])


# A custom Function with its forward-mode formula.
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, g):
        out = g * ctx.result
        del ctx.result
        return out


p = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
t = torch.randn(3, 3, dtype=torch.double)
with fwAD.dual_level():
    d = fwAD.make_dual(p, t)
    out = Exp.apply(d)
    print(torch.allclose(fwAD.unpack_dual(out).tangent, t * p.exp()))
print(torch.autograd.gradcheck(Exp.apply, (p,), check_forward_ad=True,
                               check_backward_ad=False, check_undefined_grad=False,
                               check_batched_grad=False))


class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


with fwAD.dual_level():
    try:
        NoJvp.apply(fwAD.make_dual(p, t))
    except NotImplementedError as e:
        print("NotImplementedError:", e)

# gradcheck of built-in ops in both modes.
x = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
w = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
f = lambda x, w: torch.tanh(F.linear(x, w)).sigmoid().sum(dim=0) / (1 + x.abs().sum())
print(torch.autograd.gradcheck(f, (x, w), check_forward_ad=True))
print(torch.autograd.gradcheck(f, (x, w), check_forward_ad=True, fast_mode=True))

# In-place ops update the tangent in place, views share it.
with fwAD.dual_level():
    base = fwAD.make_dual(torch.zeros(2, 3), torch.ones(2, 3))
    row = base[1]
    row.mul_(3)
    print(fwAD.unpack_dual(base).tangent)
    c = torch.zeros(3)
    c.add_(fwAD.make_dual(torch.ones(3), torch.arange(3.0)))
    print(fwAD.unpack_dual(c).tangent)
    try:
        fwAD.make_dual(torch.zeros(2), torch.ones(3))
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    fwAD.make_dual(torch.zeros(2), torch.ones(2))
except RuntimeError as e:
    print("RuntimeError:", e)
