# F.interpolate and nn.Upsample over volumes [N, C, D, H, W] (3-d U-Nets):
# trilinear (align_corners both ways), nearest and nearest-exact, sizes and
# per-dim scales, gradients, and PyTorch's check of each linear mode's dims.
import torch
import torch.nn as nn
import torch.nn.functional as F
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)
r = lambda t: [round(v, 5) for v in t.flatten().tolist()]
r4 = lambda t: [round(v, 4) for v in t.flatten().tolist()]
x = torch.randn(2, 3, 3, 4, 5).to(device).requires_grad_()
for mode, ac in [("trilinear", False), ("trilinear", True), ("nearest", None), ("nearest-exact", None)]:
    y = F.interpolate(x, scale_factor=2, mode=mode, align_corners=ac)
    z = F.interpolate(x, size=(4, 7, 3), mode=mode, align_corners=ac)
    print(mode, ac, y.shape, y.grad_fn.name(), r(y[0, 0, 1, 2]), r(z[1, 2, -1]))
    x.grad = None
    (y.square().sum() + z.sum()).backward()
    print(r4(x.grad[0, 0, 0]), r4(x.grad[1, 2, 2, 3]))
up = nn.Upsample(scale_factor=(1.5, 2, 0.5), mode="trilinear")
print(up, r(up(x)[0, 1, 2, 3]), up(x).shape)
print(nn.Upsample(scale_factor=2)(x).shape)
w = torch.randn(1, 1, 2, 2, 2, dtype=torch.float64).to(device)
print(r(F.interpolate(w, scale_factor=3, mode="trilinear", align_corners=True)[0, 0, 1]))
for shape, mode in [((1, 1, 2, 2), "linear"), ((1, 1, 2), "bilinear"), ((1, 1, 2, 2, 2), "bilinear"), ((1, 1, 2, 2), "trilinear")]:
    try:
        F.interpolate(torch.zeros(shape), scale_factor=2, mode=mode)
    except NotImplementedError as e:
        print("NotImplementedError", e)
try:
    nn.Upsample(scale_factor=2, mode="bilinear")(torch.zeros(1, 1, 2, 2, 2))
except NotImplementedError as e:
    print("NotImplementedError", e)
# Adaptive 3-d pools to any size (uneven and overlapping windows) and the
# area mode of a volume.
v = torch.randn(2, 3, 5, 7, 6).to(device).requires_grad_()
for size in [(2, 3, 4), (3, 3, 3), (7, 9, 2), (5, 7, 3)]:
    a = F.adaptive_avg_pool3d(v, size)
    m = F.adaptive_max_pool3d(v, size)
    print(size, a.shape, r(a[1, 2, -1]), r(m[0, 1, 0]))
    v.grad = None
    (a.sum() + m.square().sum()).backward()
    print(r(v.grad[0, 0, 0, :2]))
print(r(F.interpolate(v, size=(3, 4, 5), mode="area")[0, 0, 1]), r(F.interpolate(v, scale_factor=2, mode="area")[1, 1, 2, 3]))
print(nn.AdaptiveAvgPool3d((2, None, 3))(v).shape)
