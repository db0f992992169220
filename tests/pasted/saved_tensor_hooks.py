# PyTorch's tutorial "Hooks for autograd saved tensors"
# (intermediate_source/autograd_saved_tensors_hooks_tutorial.py), its code
# as written, on `device`; what it shows is printed as lists, names and
# flags, so the CPU, a GPU and PyTorch print the same lines. Also the
# errors PyTorch gives for hooks that break its rules.
import os
import tempfile
import uuid

import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def show(t):
    name = t.grad_fn.name() if t.grad_fn is not None else None
    return f"{t.tolist()} requires_grad={t.requires_grad} grad_fn={name}"


# What a node saves: the inputs themselves, a new tensor for its output.
a = torch.randn(5, requires_grad=True, device=device)
b = torch.ones(5, requires_grad=True, device=device)
y = a * b
print(show(y.grad_fn._saved_other))
print(y.grad_fn._saved_self is a, y.grad_fn._saved_other is b)

a = torch.randn(5, requires_grad=True, device=device)
y = torch.exp(a)
print(y.grad_fn._saved_result.equal(y), y.grad_fn._saved_result is y)
print(y.grad_fn._saved_result.grad_fn.name())
print((a * 2).grad_fn._saved_other.item(), (a * 2).grad_fn._saved_self)


# Pack and unpack hooks, called as the op saves and as backward reads.
def pack_hook(x):
    print("Packing", show(x))
    return x


def unpack_hook(x):
    print("Unpacking", show(x))
    return x


a = torch.ones(5, requires_grad=True, device=device)
b = torch.ones(5, requires_grad=True, device=device) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad.tolist())

x = torch.randn(5, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
    y = torch.pow(x, 2)
y.sum().backward()
assert x.grad.equal(2 * x)

storage = []


def pack(x):
    storage.append(x)
    return len(storage) - 1


def unpack(x):
    return storage[x]


x = torch.randn(5, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()
assert x.grad.equal(2 * x)
print("saved by index:", len(storage))


def pack(x):
    delta = torch.randn(*x.size(), device=x.device)
    return x - delta, lambda x: x + delta


def unpack(packed):
    x, f = packed
    return f(x)


x = torch.randn(5, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()
assert torch.allclose(x.grad, 2 * x)


def pack_hook(x):
    return (x.device, x.cpu())


def unpack_hook(packed):
    device, tensor = packed
    return tensor.to(device)


x = torch.randn(5, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x * x
y.sum().backward()
print(torch.allclose(x.grad, (2 * x)))


# save_on_cpu: a module's saved activations kept in host memory.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5))

    def forward(self, x):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.w * x


x = torch.randn(5, device=device)
model = Model().to(device)
loss = model(x).sum()
loss.backward()
print(torch.allclose(model.w.grad, x))


class SaveToCpu(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.module(*args, **kwargs)


torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(10, 100),
    SaveToCpu(nn.Linear(100, 100)),
    nn.Linear(100, 10),
).to(device)
x = torch.randn(10).to(device)
loss = model(x).sum()
loss.backward()
grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
model(x).sum().backward()
print(all(torch.allclose(g, p.grad) for g, p in zip(grads, model.parameters())))

# Saving to disk: the file is read back, then removed, so a second read fails.
tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


def pack_hook(tensor):
    name = os.path.join(tmp_dir, str(uuid.uuid4()))
    torch.save(tensor, name)
    return name


def unpack_hook(name):
    tensor = torch.load(name, weights_only=True)
    os.remove(name)
    return tensor


x = torch.ones(5, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
print(show(y.grad_fn._saved_self), len(os.listdir(tmp_dir)))
try:
    print(y.grad_fn._saved_self)
    print("Double access succeeded!")
except:
    print("Double access failed!")

# The order tensors are packed in, and the innermost hooks win.
shapes = []


def record(x):
    shapes.append(tuple(x.shape))
    return x


with torch.autograd.graph.saved_tensors_hooks(record, lambda p: p):
    with torch.autograd.graph.saved_tensors_hooks(lambda x: record(x) * 1, lambda p: p):
        m = torch.randn(2, 3, requires_grad=True, device=device)
        z = m @ torch.randn(3, 4, requires_grad=True, device=device)
        z = m / torch.randn(1, 3, requires_grad=True, device=device)
        z = m * torch.randn(1, 3, requires_grad=True, device=device)
        z = m.exp().sigmoid()
print(shapes)

# A retained graph unpacks again for every backward.
count = [0]


def counting(p):
    count[0] += 1
    return p


w = torch.randn(3, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x, counting):
    out = (w * w).sum()
out.backward(retain_graph=True)
out.backward()
print("unpacked", count[0], "times")

# What PyTorch refuses.
x = torch.ones(3, requires_grad=True, device=device)
with torch.autograd.graph.saved_tensors_hooks(lambda x: 1, lambda p: p):
    y = x * x
try:
    y.sum().backward()
except TypeError as e:
    print("TypeError:", e)


def changes(x):
    x.add_(1)
    return x


try:
    with torch.autograd.graph.saved_tensors_hooks(changes, lambda p: p):
        y = x.exp()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:50])

with torch.autograd.graph.disable_saved_tensors_hooks("no hooks in this block"):
    try:
        with torch.autograd.graph.save_on_cpu():
            pass
    except RuntimeError as e:
        print("RuntimeError:", e)

y = x.exp()
try:
    y.grad_fn._saved_input
except AttributeError as e:
    print("AttributeError:", e)
y.sum().backward()
try:
    y.grad_fn._saved_result
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])

net = nn.DataParallel(SaveToCpu(Model()))
print(type(net).__name__)
