# Sliding windows: Tensor.unfold (a view), F.unfold / F.fold (im2col and
# col2im) and nn.Unfold / nn.Fold, as programs cut images into patches (a
# vision transformer's tokens), write a convolution by hand, or smooth a
# signal with overlapping windows; and PyTorch's IndexError for a dim out
# of range.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)

x = torch.arange(8.0, device=device)
for args in [(0, 2, 1), (0, 3, 2), (0, 8, 1), (0, 9, 1), (0, 2, 0), (1, 2, 1), (-1, 2, 3), (0, 0, 1)]:
    try:
        r = x.unfold(*args)
        print(args, tuple(r.shape), r.stride(), r.tolist())
    except (RuntimeError, IndexError) as e:
        print(args, type(e).__name__, e)
s = torch.tensor(3.0, device=device)
print(s.unfold(0, 1, 1).tolist(), s.unfold(0, 1, 1).shape)
m = torch.arange(12.0, device=device).view(3, 4).t()
u = m.unfold(1, 2, 1)
print(u.shape, u.stride(), u.is_contiguous(), u.data_ptr() == m.data_ptr())

# Its history: the windows' gradients added back, overlaps summed.
v = torch.randn(2, 7).to(device).requires_grad_()
w = v.unfold(1, 3, 2)
print(type(w.grad_fn).__name__, [type(f).__name__ for f, _ in w.grad_fn.next_functions])
(w * torch.arange(w.numel(), device=device).view(w.shape)).sum().backward()
print(v.grad.tolist())
d = torch.randn(2, 5, dtype=torch.float64).to(device).requires_grad_()
print(torch.autograd.gradcheck(lambda t: t.t().unfold(0, 3, 1), (d,)))

# A moving average over overlapping windows.
signal = torch.tensor([1.0, 3.0, 2.0, 5.0, 4.0, 6.0], device=device)
print(signal.unfold(0, 3, 1).mean(dim=-1).tolist())

# Image patches, as a vision transformer cuts them.
img = torch.arange(2 * 3 * 4 * 6.0, device=device).view(2, 3, 4, 6)
patches = img.unfold(2, 2, 2).unfold(3, 2, 2)
print(patches.shape)
tokens = patches.permute(0, 2, 3, 1, 4, 5).reshape(2, -1, 3 * 2 * 2)
print(tokens.shape, tokens[0, 1].tolist())

# F.unfold and F.fold.
x = torch.arange(2 * 3 * 4 * 5.0, device=device).view(2, 3, 4, 5).requires_grad_()
cols = F.unfold(x, kernel_size=(2, 3), dilation=1, padding=1, stride=(2, 1))
print(cols.shape, type(cols.grad_fn).__name__)
print(cols[0, :4, :6].tolist())
f = F.fold(cols, output_size=(4, 5), kernel_size=(2, 3), padding=1, stride=(2, 1))
print(f.shape, type(f.grad_fn).__name__, f[0, 0].tolist())
(f * torch.arange(f.numel(), device=device).view(f.shape)).sum().backward()
print(x.grad[1, 2].tolist())
print(F.unfold(torch.randn(3, 4, 4).to(device), 2).shape, F.fold(torch.randn(12, 9).to(device), (4, 4), 2).shape)
bad = [
    lambda: F.unfold(torch.randn(4, 4), 2),
    lambda: F.fold(torch.randn(1, 5, 9), (4, 4), 2),
    lambda: F.fold(torch.randn(1, 8, 16), (5, 5), 2, stride=2),
    lambda: F.unfold(torch.randn(1, 1, 2, 2), 3),
    lambda: F.fold(torch.randn(2, 3, 4, 5), (4, 4), 2),
]
for g in bad:
    try:
        print(g().shape)
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
print(nn.Unfold(kernel_size=(2, 3), stride=2), nn.Fold(output_size=(4, 5), kernel_size=2, dilation=2, padding=1))
t = torch.randn(1, 2, 4, 5, dtype=torch.float64).to(device).requires_grad_()
print(torch.autograd.gradcheck(lambda t: F.unfold(t, 2, dilation=2, padding=1), (t,)))
print(torch.autograd.gradgradcheck(lambda t: F.unfold(t, 2, stride=2), (t,)))
c = torch.randn(1, 8, 12, dtype=torch.float64).to(device).requires_grad_()
print(torch.autograd.gradcheck(lambda c: F.fold(c, (4, 5), 2, stride=1), (c,)))

# A convolution written as unfold, a matrix product and fold (PyTorch's
# documentation's example).
inp = torch.randn(1, 3, 10, 12).to(device)
weight = torch.randn(2, 3, 4, 5).to(device)
inp_unf = F.unfold(inp, (4, 5))
out_unf = inp_unf.transpose(1, 2).matmul(weight.view(weight.size(0), -1).t()).transpose(1, 2)
out = F.fold(out_unf, (7, 8), (1, 1))
print((F.conv2d(inp, weight) - out).abs().max().item() < 1e-4)

# The modules in a model, trained a step.
class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.unfold = nn.Unfold(kernel_size=2, stride=2)
        self.proj = nn.Linear(3 * 4, 8)
        self.fold = nn.Fold(output_size=(4, 6), kernel_size=2, stride=2)

    def forward(self, x):
        t = self.unfold(x).transpose(1, 2)
        t = self.proj(t).relu()
        return self.fold(t.transpose(1, 2)[:, :8].repeat(1, 1, 1))

torch.manual_seed(1)  # (gradgradcheck drew on the device's generator)
model = PatchEmbed().to(device)
print(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
y = model(img / 100)
print(y.shape)
loss = y.square().mean()
loss.backward()
opt.step()
print(round(loss.item(), 4), round(model(img / 100).square().mean().item(), 4))

# A dim out of range is PyTorch's IndexError.
z = torch.randn(2, 3)
for g in [lambda: z.sum(5), lambda: z.transpose(0, 3), lambda: z.softmax(-3), lambda: torch.cat([z, z], 3)]:
    try:
        g()
    except IndexError as e:
        print("IndexError", e)

# Saved whole and loaded back.
import io
m = nn.Sequential(nn.Unfold(2, stride=2), nn.Fold((4, 4), (2, 2), stride=2), nn.CircularPad2d(1))
buffer = io.BytesIO()
torch.save(m, buffer)
buffer.seek(0)
m2 = torch.load(buffer, weights_only=False)
print(m2)
x = torch.arange(16.0).view(1, 1, 4, 4)
print(torch.equal(m(x), m2(x)), m2[0].kernel_size, m2[1].kernel_size, m2[1].output_size, m2[2].padding)
