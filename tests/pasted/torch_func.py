# torch.func: vmap, grad, vjp, jvp, jacrev, jacfwd, hessian,
# functional_call and stack_module_state, as PyTorch's tutorials use them.
import torch
import torch.nn as nn
import torch.nn.functional as F
from functools import partial
from torch.func import (
    functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp,
    stack_module_state, vjp, vmap,
)


def show(name, t):
    if isinstance(t, dict):
        for k in t:
            show(f"{name}[{k}]", t[k])
        return
    if isinstance(t, (tuple, list)):
        for i, x in enumerate(t):
            show(f"{name}[{i}]", x)
        return
    vals = [round(v, 4) for v in t.detach().flatten().tolist()[:6]]
    print(name, tuple(t.shape), t.dtype, t.requires_grad, vals)


torch.manual_seed(0)
x, y = torch.randn(2, 5), torch.randn(2, 5)
show("dot", torch.vmap(torch.dot)(x, y))
show("in_dims=1", vmap(lambda a: a.sum(0), in_dims=1)(torch.arange(6.0).reshape(2, 3)))
show("None", vmap(lambda a, b: a * b, in_dims=(0, None))(x, torch.ones(5)))
show("out_dims=1", vmap(lambda a: a * 2, out_dims=1)(torch.arange(6.0).reshape(2, 3)))
show("neg", vmap(lambda a: a.max(), in_dims=-1)(torch.arange(6.0).reshape(2, 3)))
show("tuple out", vmap(lambda a: (a.sum(), a.mean()))(x))
show("dict in", vmap(lambda d: d["a"] + d["b"])({"a": x, "b": y}))
show("kwargs", vmap(lambda a, scale=1.0: a * scale)(x, scale=3.0))
show("nested", vmap(vmap(torch.dot, (None, 0)), (0, None))(x, y))
show("select", vmap(lambda a: a.select(0, -1) * 2)(torch.arange(6.0).reshape(3, 2)))
show("torch.select", torch.select(torch.arange(6.0).reshape(2, 3), 1, 0))

# vmap's own tutorial: a model's weights closed over, batched examples.
weights = torch.randn(5, requires_grad=True)
model = lambda v: v.dot(weights).relu()
examples = torch.randn(3, 5)
result = vmap(model)(examples)
expected = torch.stack([model(e) for e in examples.unbind()])
print("allclose", torch.allclose(result, expected), result.requires_grad)

# The vmap recipe: a vjp per basis vector, each backward without
# retain_graph (PyTorch runs it once, batched; the graph is freed after).
N = 5
xr = torch.randn(N, requires_grad=True)
yr = xr**2
rows = [torch.autograd.grad(yr, xr, v, retain_graph=True)[0] for v in torch.eye(N).unbind()]
get_vjp = lambda v: torch.autograd.grad(yr, xr, v)[0]
print("vjp per row", torch.allclose(vmap(get_vjp)(torch.eye(N)), torch.stack(rows)))
try:
    torch.autograd.grad(yr, xr, torch.ones(N))
    print("graph kept")
except RuntimeError:
    print("graph freed after vmap")

f = lambda t: (t**3).sum()
xx = torch.tensor([1.0, 2.0, 3.0])
show("grad", grad(f)(xx))
show("grad grad", grad(grad(lambda t: t**3))(torch.tensor(2.0)))
show("grad argnums", grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(xx, xx * 2))
g, aux = grad(lambda t: ((t**2).sum(), t.mean()), has_aux=True)(xx)
show("grad aux", (g, aux))
show("grad_and_value", grad_and_value(f)(xx))
xg = torch.tensor([1.0, 2.0], requires_grad=True)
gg = grad(lambda t: (t**3).sum())(xg)
show("grad of a leaf", gg)
gg.sum().backward()
show("and its backward", xg.grad)

out, fn = vjp(lambda t: t**2, xx)
show("vjp", (out, fn(torch.ones(3))))
out, fn = vjp(lambda a, b: a * b, xx, xx + 1)
show("vjp 2", fn(torch.ones(3)))
show("jvp", jvp(lambda t: t**2, (xx,), (torch.ones(3),)))
show("jvp 2", jvp(lambda a, b: a * b.sin(), (xx, xx), (torch.ones(3), torch.ones(3))))

show("jacrev", jacrev(torch.sin)(xx))
show("jacrev 2", jacrev(lambda a, b: a * b, argnums=(0, 1))(xx, xx))
show("jacrev tuple out", jacrev(lambda a: (a.sum(), a * 2))(xx))
show("jacfwd", jacfwd(lambda t: t.exp() * t)(xx))
show("hessian", hessian(f)(xx))


# The Jacobians and Hessians tutorial's `predict`.
def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 4
weight, bias, xp = torch.randn(D, D), torch.randn(D), torch.randn(D)
_, vjp_fn = vjp(partial(predict, weight, bias), xp)
(ft_jacobian,) = vmap(vjp_fn)(torch.eye(D))
rows = []
for v in torch.eye(D).unbind():
    x2 = xp.clone().requires_grad_()
    rows.append(torch.autograd.grad(predict(weight, bias, x2), x2, v)[0])
print("vjp rows", torch.allclose(ft_jacobian, torch.stack(rows)))
print("jacrev = jacfwd", torch.allclose(jacrev(predict, argnums=2)(weight, bias, xp), jacfwd(predict, argnums=2)(weight, bias, xp)))
hess = hessian(predict, argnums=2)(weight, bias, xp)
print("hessian", tuple(hess.shape), torch.allclose(hess, jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, xp), atol=1e-6))
jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, xp)
print("argnums", tuple(jw.shape), tuple(jb.shape))


# Per-sample gradients: functional_call, grad and vmap against a loop.
class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return F.log_softmax(self.fc(x.flatten(1)), dim=1)


net = Small()
data, targets = torch.randn(6, 1, 6, 6), torch.randint(3, (6,))
params = {k: v.detach() for k, v in net.named_parameters()}
buffers = {k: v.detach() for k, v in net.named_buffers()}


def compute_loss(params, buffers, sample, target):
    predictions = functional_call(net, (params, buffers), (sample.unsqueeze(0),))
    return F.nll_loss(predictions, target.unsqueeze(0))


ft = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
loop = []
for i in range(6):
    loss = F.nll_loss(net(data[i : i + 1]), targets[i : i + 1])
    loop.append(torch.autograd.grad(loss, list(net.parameters())))
for (name, g), k in zip(ft.items(), range(2)):
    print("per-sample", name, tuple(g.shape), torch.allclose(g, torch.stack([l[k] for l in loop]), atol=1e-6))
print("params untouched", all(p is q for p, q in zip(net.parameters(), [net.conv.weight, net.conv.bias, net.fc.weight, net.fc.bias])))

# Ensembling: stack_module_state, a base model, vmap over the models.
models = [nn.Linear(3, 2) for _ in range(4)]
p, b = stack_module_state(models)
show("stacked", {k: v[:1] for k, v in p.items()})
print({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in p.items()})
base = nn.Linear(3, 2)
minibatches = torch.randn(4, 5, 3)
fmodel = lambda params, buffers, x: functional_call(base, (params, buffers), (x,))
preds = vmap(fmodel)(p, b, minibatches)
print("ensemble", tuple(preds.shape), torch.allclose(preds, torch.stack([m(x) for m, x in zip(models, minibatches)]), atol=1e-6))
same = vmap(fmodel, in_dims=(0, 0, None))(p, b, minibatches[0])
print("same minibatch", torch.allclose(same, torch.stack([m(minibatches[0]) for m in models]), atol=1e-6))
bn = nn.BatchNorm1d(3)
out = functional_call(bn, {"running_mean": torch.ones(3)}, (torch.randn(4, 3),))
print("buffer swapped back", bn.running_mean.tolist())

# Random ops in vmap: refused by default, one draw for all with "same",
# one each with "different".
for f in [lambda t: t + torch.rand(3), lambda t: F.dropout(t, 0.5), lambda t: t.normal_()]:
    try:
        vmap(f)(torch.ones(2, 3))
    except RuntimeError as e:
        print("random", str(e)[:60])
print("eval dropout", tuple(vmap(lambda t: F.dropout(t, 0.5, training=False))(torch.ones(2, 3)).shape))
s = vmap(lambda t: t + torch.rand(3), randomness="same")(torch.zeros(2, 3))
d = vmap(lambda t: t + torch.rand(3), randomness="different")(torch.zeros(2, 3))
print("same", torch.equal(s[0], s[1]), "different", torch.equal(d[0], d[1]))

# Errors, as PyTorch words them.
for what, call in [
    ("sizes", lambda: vmap(torch.dot)(torch.randn(2, 3), torch.randn(3, 3))),
    ("non-tensor", lambda: vmap(lambda a, n: a * n)(x, 2)),
    ("nothing mapped", lambda: vmap(lambda a: a, in_dims=None)(x)),
    ("not scalar", lambda: grad(lambda t: t * 2)(xx)),
    ("stack none", lambda: stack_module_state([])),
    ("select", lambda: x.select(0, 5)),
    ("randomness", lambda: vmap(torch.sin, randomness="sometimes")(x)),
]:
    try:
        call()
        print(what, "ran")
    except (ValueError, RuntimeError, IndexError) as e:
        print(what, type(e).__name__, str(e).split("\n")[0])
