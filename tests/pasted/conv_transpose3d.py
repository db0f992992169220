# nn.ConvTranspose3d and F.conv_transpose3d (a 3-d U-Net's upsampling):
# strides, padding, output_padding and output_size, groups, dilation,
# gradients, PyTorch's checks.
import torch
import torch.nn as nn
import torch.nn.functional as F
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()]
up = nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, output_padding=1)
print(up)
up.to(device)
x = torch.randn(2, 4, 3, 4, 2).to(device).requires_grad_()
y = up(x)
print(y.shape, r(y[0, 0, 0]), r(y[1, 1, -1]))
y.square().sum().backward()
print(r(x.grad[0, 0, 0]), r(up.weight.grad[0, 0, 0]), r(up.bias.grad))
g = nn.ConvTranspose3d(4, 6, (2, 3, 1), stride=(1, 2, 3), padding=(0, 1, 0), groups=2, dilation=(2, 1, 1), bias=False)
print(g)
z = g.to(device)(torch.randn(1, 4, 3, 3, 3).to(device))
print(z.shape, r(z.sum((0, 2, 3, 4))))
print(up(torch.randn(1, 4, 3, 3, 3).to(device), output_size=(6, 5, 6)).shape)
w = torch.randn(4, 3, 2, 2, 2).to(device)
print(r(F.conv_transpose3d(torch.randn(4, 2, 2, 2).to(device), w, stride=2).sum((1, 2, 3))))
try:
    up(torch.randn(1, 4, 3, 3, 3).to(device), output_size=(9, 5, 6))
except ValueError as e:
    print("ValueError", e)
