# torch.nn.utils.spectral_norm, PyTorch's older hook API as GANs use it
# (session of 2026-12-07, seventh): weight_orig, weight_u, weight_v, the
# power iteration before each training forward, remove_spectral_norm.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)


def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]


lin = nn.utils.spectral_norm(nn.Linear(5, 3)).to(device)
print(sorted(n for n, _ in lin.named_parameters()), sorted(n for n, _ in lin.named_buffers()))
print(sorted(lin.state_dict()))
print(r(lin.weight_u), r(lin.weight_v))
x = torch.randn(4, 5).to(device)
y = lin(x)
print(r(y), y.grad_fn.name())
print(r(torch.linalg.matrix_norm(lin.weight, ord=2)))
y.sum().backward()
print(r(lin.weight_orig.grad))
lin.eval()
print(r(lin(x).sum()), r(lin.weight_u))
conv = nn.utils.spectral_norm(nn.ConvTranspose2d(2, 3, 3)).to(device)
print(conv.weight_u.shape, conv.weight_v.shape)
conv(torch.randn(1, 2, 4, 4).to(device))
print(r(conv.weight_u))
nn.utils.remove_spectral_norm(lin)
print(sorted(n for n, _ in lin.named_parameters()), type(lin.weight).__name__)
try:
    nn.utils.remove_spectral_norm(lin)
except ValueError as e:
    print(e)
D = nn.Sequential(nn.utils.spectral_norm(nn.Conv2d(1, 4, 3, 2, 1)), nn.LeakyReLU(0.2), nn.Flatten(), nn.utils.spectral_norm(nn.Linear(4 * 4 * 4, 1))).to(device)
opt = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
imgs = torch.randn(6, 1, 8, 8).to(device)
for step in range(3):
    opt.zero_grad()
    loss = F.softplus(-D(imgs)).mean()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 6))
