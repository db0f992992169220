# The meta device: tensors with a shape, a dtype and strides but no data.
# Ops give results of the right shape without computing or allocating.
import torch
import torch.nn as nn
import torch.nn.functional as F

t = torch.rand(2, 3, 10, 10, device="meta")
conv = nn.Conv2d(3, 5, 2, device="meta")
out = conv(t)
print(out.shape, out.device, out.dtype, out.requires_grad, out.grad_fn.name())
print(out.is_meta, t.is_meta, torch.ones(1).is_meta)

# Shapes of anything, however large: nothing is allocated.
big = torch.rand(2**10, 3, 2**16, 2**16, device="meta")
print(conv(big).shape)
print(torch.empty(10**12, device="meta").shape)

# Every op's shape and dtype rules hold on meta.
a = torch.randn(4, 1, 3, device="meta")
b = torch.randn(5, 3, device="meta")
print((a + b).shape, (a * 2).dtype, (a > 0).dtype, (a @ b.T).shape)
print(torch.cat([b, b]).shape, torch.stack([b, b], 1).shape, b.sum(0).shape)
print(b.mean(dim=1, keepdim=True).shape, b.argmax(1).dtype, b.T.contiguous().stride())
print(b.to(torch.float16).dtype, b.double().dtype, b.int().dtype)
print(b.softmax(-1).shape, torch.topk(b, 2).values.shape, torch.sort(b, 1)[1].dtype)
print(b[1:3, ::2].shape, b[torch.tensor([0, 2])].shape, b.view(15).shape)
print(F.max_pool2d(out, 2).shape, F.avg_pool2d(out, 3).shape, out.flatten(1).shape)
print(torch.arange(5, device="meta").dtype, torch.zeros(3, dtype=torch.int8, device="meta").dtype)
print(torch.randint(0, 10, (3, 4), device="meta").shape, torch.eye(3, device="meta").shape)
print(b.data_ptr(), b.numel(), b.element_size(), b.nbytes)

# Meta with a cpu tensor is an error (but a python number or a 0-d cpu tensor joins).
try:
    b + torch.ones(5, 3)
except RuntimeError as e:
    print("RuntimeError")
print((b + torch.tensor(2.0)).device, (b + 1).device)

# Reading values is refused: a meta tensor has none.
for what, f in [
    ("item", lambda: b.sum().item()),
    ("float", lambda: float(b.sum())),
    ("bool", lambda: bool(b[0, 0])),
    ("tolist", lambda: b.tolist()),
    ("cpu", lambda: b.cpu()),
    ("to", lambda: b.to("cpu")),
    ("nonzero", lambda: b.nonzero()),
    ("mask", lambda: b[b > 0]),
]:
    try:
        f()
        print(what, "ran")
    except (RuntimeError, NotImplementedError) as e:
        print(what, type(e).__name__)


# A model made on the meta device: its layers' shapes, no memory.
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.bn = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.bn(self.conv2(x))))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def fw_hook(module, input, output):
    print(f"{type(module).__name__}: {output.shape}")


with torch.device("meta"):
    net = Net()
    inp = torch.randn((1024, 3, 32, 32))
print(inp.device, net.fc1.weight.device, net.bn.running_mean.device)
for name, layer in net.named_children():
    layer.register_forward_hook(fw_hook)
out = net(inp)
print(out.shape, out.device)

# Backward on meta: the gradients' shapes.
loss = out.sum()
loss.backward()
print(net.fc1.weight.grad.shape, net.fc1.weight.grad.device, net.conv1.bias.grad.shape)

# From meta to real memory: to_empty, then the values.
torch.manual_seed(0)
real = Net()
sd = real.state_dict()
net.to_empty(device="cpu")
print(net.fc1.weight.device, net.fc1.weight.shape, net.fc1.weight.requires_grad)
net.load_state_dict(sd)
x = torch.randn(2, 3, 32, 32)
print(torch.allclose(net(x), real(x)))

# load_state_dict(assign=True): the checkpoint's own tensors, no copy.
with torch.device("meta"):
    lazy = Net()
result = lazy.load_state_dict(sd, assign=True)
print(result.missing_keys, result.unexpected_keys)
print(lazy.fc1.weight.device, type(lazy.fc1.weight).__name__, lazy.fc1.weight.requires_grad)
print(lazy.fc1.weight.data_ptr() == sd["fc1.weight"].data_ptr())
print(torch.allclose(lazy(x), real(x)))

# model.to("meta") drops the data; to() back is refused.
m = nn.Linear(4, 2).to("meta")
print(m.weight.device, m.weight.requires_grad)
try:
    m.to("cpu")
except NotImplementedError:
    print("NotImplementedError")
