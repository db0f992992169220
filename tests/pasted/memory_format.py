"""Channels-last memory format, as PyTorch's memory_format tutorial and
vision training scripts write it (`model.to(memory_format=torch.channels_last)`,
`input.to(memory_format=...)`): strides, `is_contiguous(memory_format=)`,
the layout kept by clone, `*_like`, casts, moves and elementwise ops, the
first operand deciding, a convolution, batch norm and pooling giving
channels-last output, `.grad` laid out as its parameter, and the same
numbers as the row-major model."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

cl = torch.channels_last
print(cl, torch.contiguous_format, torch.preserve_format, torch.channels_last_3d)
print(type(cl), cl == torch.channels_last, cl is torch.channels_last)

# The tutorial's lines.
N, C, H, W = 10, 3, 32, 32
x = torch.empty(N, C, H, W)
print(x.stride())
x = x.to(memory_format=torch.channels_last)
print(x.shape, x.shape.numel(), torch.Size([2, 3]).numel())
print(x.stride())
x = x.to(memory_format=torch.contiguous_format)
print(x.stride())
x = x.contiguous(memory_format=torch.channels_last)
print(x.stride())
print(x.is_contiguous(memory_format=torch.channels_last), x.is_contiguous())
special_x = torch.empty(4, 1, 4, 4)
print(special_x.is_contiguous(memory_format=torch.channels_last))
print(special_x.is_contiguous(memory_format=torch.contiguous_format))
x = torch.empty(N, C, H, W, memory_format=torch.channels_last)
print(x.stride())
print(x.clone().stride(), torch.empty_like(x).stride())
print(torch.empty(2, 1, 4, 4, memory_format=cl).stride(), torch.empty(2, 3, 1, 1, memory_format=cl).stride())

# The values stay where they were: only the order in memory changes.
a = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32, device=device).reshape(2, 3, 4, 5)
b = a.to(memory_format=cl)
print(b.stride(), torch.equal(a, b), b[1, 2, 3, 4].item(), b.sum().item())
print(b.contiguous().stride(), b.contiguous().is_contiguous(), b.view(2, 3, 4, 5).shape)
print(b.flatten().tolist()[:6], b.permute(0, 2, 3, 1).is_contiguous())
print(b.to(memory_format=cl) is b, b.contiguous(memory_format=cl) is b, a.contiguous() is a)

# New tensors keep their inputs' order.
print((b + 1).stride(), (b * a).stride(), (a * b).stride(), b.exp().stride())
print(torch.where(b > 3, b, 0.0).stride(), (b + torch.ones(5, device=device)).stride())
print(b.relu().stride(), torch.sigmoid(b).stride(), (b > 1).stride())
print(b.double().stride(), b.half().stride(), b.to(torch.float64).stride(), b.cpu().stride())
print(torch.zeros_like(b).stride(), torch.ones_like(b).stride(), torch.full_like(b, 2).stride())
print(torch.zeros_like(b, memory_format=torch.contiguous_format).stride())
print(b.clone(memory_format=torch.contiguous_format).stride())
print(b.sum(0).stride(), b.mean((2, 3), keepdim=True).shape)

# A transposed matrix: the same rule in two dimensions.
t = torch.ones(3, 4, device=device).t()
print((t + 1).stride(), t.clone().stride(), (t + torch.ones(4, 3, device=device)).stride())
print((torch.ones(4, 3, device=device) + t).stride(), (t * 2).is_contiguous())
try:
    (t * 2).view(-1)
except RuntimeError:
    print("RuntimeError: view of a transposed result")
print((t * 2).reshape(-1).tolist())

try:
    torch.ones(2, 3, 4).to(memory_format=cl)
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.ones(2, 3, 4).is_contiguous(memory_format=cl))
z = torch.ones(2, 3, 4, 5, 6).to(memory_format=torch.channels_last_3d)
print(z.stride(), z.is_contiguous(memory_format=torch.channels_last_3d))

# A model in channels-last: the convolution's output is channels-last
# when its input or its weight is.
torch.manual_seed(0)
conv = nn.Conv2d(3, 4, 3, padding=1).to(device)
out = conv(b)
print(out.stride(), out.is_contiguous(memory_format=cl))
same = conv.to(memory_format=cl)
print(same is conv, conv.weight.stride(), conv.bias.stride(), conv.weight.is_leaf)
print(conv(a).stride())
up = nn.ConvTranspose2d(3, 2, 2, stride=2).to(device)
print(up(b).stride(), up(a).stride(), torch.allclose(up(a), up(b), atol=1e-6))
bn = nn.BatchNorm2d(3).to(device)
print(bn(b).stride(), F.max_pool2d(b, 2).stride(), F.avg_pool2d(b, 2).stride())
print(F.adaptive_avg_pool2d(b, 1).stride(), nn.AdaptiveAvgPool2d((1, 1))(b).stride())
print(F.adaptive_avg_pool2d(a, 1).stride(), F.adaptive_avg_pool2d(b, (2, 1)).stride())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.conv2(x))
        x = F.avg_pool2d(x, 2)
        return self.fc(torch.flatten(x, 1))


def run(model, inputs, target, memory_format):
    model = model.to(device, memory_format=memory_format)
    inputs = inputs.to(device, memory_format=memory_format)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(model(inputs), target)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    w = model.conv1.weight
    print(memory_format, losses, w.stride(), w.grad.stride(), model.fc.weight.grad.stride())
    return model


torch.manual_seed(1)
inputs = torch.randn(6, 3, 16, 16)
target = torch.tensor([0, 1, 2, 3, 4, 0], device=device)
torch.manual_seed(2)
m1 = run(Net(), inputs, target, torch.contiguous_format)
torch.manual_seed(2)
m2 = run(Net(), inputs, target, torch.channels_last)
print(torch.allclose(m1.conv1.weight, m2.conv1.weight, atol=1e-5))
print(torch.allclose(m1.fc.weight, m2.fc.weight, atol=1e-5))

# A leaf in channels-last gets its .grad in channels-last; a row-major
# leaf keeps a row-major .grad whatever the gradient's layout.
q = torch.randn(2, 3, 4, 5, device=device).to(memory_format=cl).requires_grad_()
(q * 2).sum().backward()
print(q.grad.stride())
p = torch.randn(2, 3, 4, 5, device=device, requires_grad=True)
(p.permute(0, 2, 3, 1) * 2).sum().backward()
print(p.grad.stride())
w2 = torch.randn(4, 3, device=device, requires_grad=True)
(torch.ones(2, 3, device=device) @ w2.t()).sum().backward()
print(w2.grad.stride())


def contains_cl(args):
    for t in args:
        if isinstance(t, torch.Tensor):
            if t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
                return True
        elif isinstance(t, list) or isinstance(t, tuple):
            if contains_cl(list(t)):
                return True
    return False


print(contains_cl([a, [b]]), contains_cl((a, 1)))

# torch.empty_strided: memory laid out by the strides given.
x = torch.empty_strided((2, 3), (1, 2), device=device)
print(x.shape, x.stride(), x.is_contiguous(), x.t().is_contiguous())
y = torch.empty_strided((2, 3, 4, 5), (60, 1, 15, 3), device=device)
print(y.is_contiguous(memory_format=torch.channels_last))
z = torch.empty_strided((3, 2), (4, 1), device=device, dtype=torch.float64)
print(z.stride(), z.dtype, z.storage_offset())
z.fill_(2.0)
print(z.sum().item())
w = torch.empty_strided((2, 2), (0, 1), device=device)
print(w.stride())
try:
    torch.empty_strided((2, 2), (1,), device=device)
except RuntimeError as e:
    print("RuntimeError")
print(torch.empty_strided((0, 3), (3, 1), device=device).shape)
print(torch.empty_strided((2, 3), (1, 2), device=device, requires_grad=True).requires_grad)
