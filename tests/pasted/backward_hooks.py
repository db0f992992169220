# Backward hooks of modules and of autograd's nodes, as PyTorch's
# "nn package" tutorial (former_torchies/nnft_tutorial.py) and its docs use
# them: register_full_backward_hook and _pre_hook (the gradients of a
# module's inputs and outputs, through BackwardHookFunctionBackward), the
# older register_backward_hook (the last node's gradients), and
# grad_fn.register_hook / register_prehook.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")


def desc(t):
    if t is None:
        return "None"
    return f"{tuple(t.shape)} {[round(v, 4) for v in t.flatten().tolist()[:4]]}"


def grads(name, gs):
    print(name, type(gs).__name__, len(gs), [desc(g) for g in gs])


torch.manual_seed(0)
fc = nn.Linear(3, 2)
x = torch.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()


def full(module, grad_input, grad_output):
    print("full hook on", type(module).__name__)
    grads("  grad_input", grad_input)
    grads("  grad_output", grad_output)


def pre(module, grad_output):
    print("pre hook on", type(module).__name__)
    grads("  grad_output", grad_output)
    return (grad_output[0] * 2,)


h1 = fc.register_full_backward_hook(full)
h2 = fc.register_full_backward_pre_hook(pre)
y = fc(x)
print("output grad_fn", y.grad_fn.name())
y.sum().backward()
print("x.grad", desc(x.grad))
print("weight.grad", desc(fc.weight.grad))
print("hooks", len(fc._backward_hooks), len(fc._backward_pre_hooks), fc._is_full_backward_hook)
h1.remove()
h2.remove()
print("hooks", len(fc._backward_hooks), len(fc._backward_pre_hooks))
x.grad = None
fc(x).sum().backward()
print("x.grad", desc(x.grad))


# A hook that replaces grad_input; a module of two inputs, one needing no
# gradient; a module whose input needs none (the hook fires with None).
class Mix(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, a, b):
        return self.fc(a) * b


def zero_first(module, grad_input, grad_output):
    grads("mix grad_input", grad_input)
    return (torch.zeros_like(grad_input[0]), None)


mix = Mix()
mix.register_full_backward_hook(zero_first)
a = torch.ones(2, 3, requires_grad=True)
b = torch.full((2, 3), 0.5)
mix(a, b).sum().backward()
print("a.grad", desc(a.grad))

first = nn.Linear(3, 2)
first.register_full_backward_hook(full)
first(torch.ones(1, 3)).sum().backward()


# Hooks on every layer of a model, collecting what flows back.
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


net = Net()
seen = []
for name, layer in net.named_children():
    layer.register_full_backward_hook(lambda m, gi, go, name=name: seen.append((name, go[0].abs().sum().item())))
inp = torch.linspace(-1, 1, 8).reshape(2, 4).requires_grad_()
F.cross_entropy(net(inp), torch.tensor([0, 1])).backward()
print([(n, round(v, 5)) for n, v in seen])

# The older register_backward_hook: the last node's gradients (a Linear's
# addmm: bias, input, weight).
old = nn.Linear(3, 2)


def printgradnorm(self, grad_input, grad_output):
    print("Inside " + self.__class__.__name__ + " backward")
    print("grad_input: ", type(grad_input), len(grad_input))
    print("grad_output: ", type(grad_output), len(grad_output))
    print("grad_input shapes:", [None if g is None else tuple(g.shape) for g in grad_input])
    print("grad_output[0] size:", grad_output[0].size())


old.register_backward_hook(printgradnorm)
old(torch.ones(2, 3, requires_grad=True)).sum().backward()
try:
    old.register_full_backward_hook(full)
except RuntimeError as e:
    print("RuntimeError:", e)

# Node hooks.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = w * w
seen_nodes = []


def post(grad_inputs, grad_outputs):
    seen_nodes.append(("post", [desc(g) for g in grad_inputs], [desc(g) for g in grad_outputs]))
    return (grad_inputs[0] * 10, grad_inputs[1])


def prehook(grad_outputs):
    seen_nodes.append(("pre", [desc(g) for g in grad_outputs]))
    return (grad_outputs[0] + 1,)


hp = z.grad_fn.register_hook(post)
hq = z.grad_fn.register_prehook(prehook)
z.sum().backward()
for s in seen_nodes:
    print(*s)
print("w.grad", desc(w.grad))
hp.remove()
hq.remove()
w.grad = None
(w * w).sum().backward()
print("w.grad", desc(w.grad))


def wrong(grad_inputs, grad_outputs):
    return (grad_inputs[0],)


v = torch.ones(2, requires_grad=True)
u = v * v
u.grad_fn.register_hook(wrong)
try:
    u.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
