# Folding a BatchNorm into the layer before it for inference
# (torch.nn.utils.fusion), as PyTorch's quantization and deployment
# tutorials do: the fused layers' outputs and reprs.
import torch
import torch.nn as nn
from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from torch.nn.utils import fuse_conv_bn_weights
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)
r = lambda t: [round(v, 5) for v in t.flatten().tolist()]
conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
bn = nn.BatchNorm2d(4)
x = torch.randn(2, 3, 5, 5).to(device)
conv.to(device); bn.to(device)
bn.train()
for _ in range(3):
    bn(conv(torch.randn(2, 3, 5, 5).to(device)))
conv.eval(); bn.eval()
fused = fuse_conv_bn_eval(conv, bn)
print(fused)
print(r((fused(x) - bn(conv(x))).abs().max()), r(fused(x)[0, 0, 0]))
print(fused.weight.requires_grad, type(fused.bias).__name__, r(fused.bias))
lin = nn.Linear(6, 4)
bn1 = nn.BatchNorm1d(4)
lin.to(device); bn1.to(device)
bn1.train(); bn1(lin(torch.randn(8, 6).to(device))); bn1.eval(); lin.eval()
fl = fuse_linear_bn_eval(lin, bn1)
y = torch.randn(3, 6).to(device)
print(fl, r((fl(y) - bn1(lin(y))).abs().max() < 1e-6), r(fl(y)[0]))
tconv = nn.ConvTranspose2d(4, 2, 3, bias=True)
bn2 = nn.BatchNorm2d(2); bn2.eval(); tconv.eval()
w, b = fuse_conv_bn_weights(tconv.weight, tconv.bias, bn2.running_mean + 0.5, bn2.running_var * 2, bn2.eps, bn2.weight, bn2.bias, transpose=True)
print(w.shape, r(b))
try:
    conv.train()
    fuse_conv_bn_eval(conv, bn)
except AssertionError as e:
    print("AssertionError", e)
