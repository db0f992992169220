# F.pad's circular mode, nn.CircularPad1d/2d, and a convolution's
# padding_mode ("reflect", "replicate", "circular") and padding="same"
# with an even kernel, as image models (CycleGAN's generators, periodic
# domains in physics models) and U-Nets write them.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)

x = torch.arange(6.0, device=device).view(1, 2, 3)
for pads in [(1,), (1, 1), (4, 1), (1, 1, 1, 1), (-1, 2), (-2, -2), (3, 3), (1, 1, 1, 1, 1, 1)]:
    try:
        print(pads, F.pad(x, pads, mode="circular").tolist())
    except (RuntimeError, NotImplementedError) as e:
        print(pads, type(e).__name__, e)
for mode, value in [("circular", 2.0), ("reflect", 1)]:
    try:
        F.pad(x, (1, 1), mode=mode, value=value)
    except RuntimeError as e:
        print(e)
try:
    F.pad(x, (1, 1), mode="wrap")
except NotImplementedError as e:
    print(e)

# The history: copies into slices of a new tensor.
y = torch.arange(12.0, device=device).view(1, 1, 3, 4).requires_grad_()
p = F.pad(y, (1, 2, 2, 1), mode="circular")
print(p.tolist())
print(type(p.grad_fn).__name__, [type(f).__name__ for f, _ in p.grad_fn.next_functions])
(p * torch.arange(p.numel(), device=device).view(p.shape)).sum().backward()
print(y.grad.tolist())
print(nn.CircularPad2d((1, 0, 2, 1)))
print(nn.CircularPad1d(2)(torch.arange(3.0, device=device).view(1, 3)).tolist())
d = torch.randn(2, 3, 4, dtype=torch.float64).to(device).requires_grad_()
print(torch.autograd.gradcheck(lambda t: F.pad(t, (2, 1, 0, 3), mode="circular"), (d,)))

# Convolutions that pad with their input's edges.
c = nn.Conv2d(1, 2, 3, padding=1, padding_mode="circular").to(device)
print(c)
out = c(y)
print(out.shape, type(out.grad_fn.next_functions[0][0]).__name__)
out.square().sum().backward()
print(round(y.grad.sum().item(), 3), round(c.weight.grad.sum().item(), 3))
print(nn.Conv1d(1, 2, 3, padding=2, padding_mode="reflect"))
print(nn.Conv2d(1, 2, 3, padding=(1, 2), padding_mode="replicate")._reversed_padding_repeated_twice)
print(nn.Conv2d(1, 2, 3, padding=(1, 2))._reversed_padding_repeated_twice)
print(nn.Conv2d(1, 2, 3, padding="same", padding_mode="circular")._reversed_padding_repeated_twice)
print(nn.Conv2d(1, 2, 4, padding="same")._reversed_padding_repeated_twice)
print(c.padding_mode, list(c.state_dict().keys()))
try:
    nn.Conv2d(1, 2, 3, padding=1, padding_mode="wrap")
except ValueError as e:
    print("ValueError", str(e).split("but got ")[1])
try:
    nn.ConvTranspose2d(1, 2, 3, padding=1, padding_mode="reflect")
except ValueError as e:
    print(e)

r = nn.Conv1d(2, 3, 3, padding=1, padding_mode="reflect").to(device)
s = torch.randn(2, 2, 6).to(device).requires_grad_()
o = r(s)
print(type(o.grad_fn.next_functions[0][0]).__name__, o.shape)
o.sum().backward()
print([[round(v, 4) for v in row] for row in s.grad[0].tolist()])
m = nn.Conv2d(2, 3, 3, stride=2, padding=2, padding_mode="replicate").to(device)
z = torch.randn(1, 2, 5, 6).to(device).requires_grad_()
print(m(z).shape, round(m(z).sum().item(), 4))

# padding="same" with an even kernel: the extra place right and below.
e = nn.Conv2d(2, 3, 4, padding="same").to(device)
o = e(z)
print(o.shape, type(o.grad_fn.next_functions[0][0]).__name__)
o.square().sum().backward()
print(round(z.grad.sum().item(), 3), round(e.weight.grad.sum().item(), 3))
w = torch.randn(3, 2, 2, 3).to(device)
print(F.conv2d(z, w, padding="same").shape, round(F.conv2d(z, w, padding="same", dilation=2).sum().item(), 4))
print(F.conv1d(torch.randn(1, 2, 7).to(device), torch.randn(1, 2, 4).to(device), padding="same").shape)

# Saved whole and loaded back, the mode kept.
import io
buffer = io.BytesIO()
torch.save(nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), buffer)
buffer.seek(0)
m2 = torch.load(buffer, weights_only=False)
print(m2, m2.padding_mode)
