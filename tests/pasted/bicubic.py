# F.interpolate(mode="bicubic") and nn.Upsample(mode="bicubic") (session of
# 2026-12-07, seventh): PyTorch's places (not clamped at 0), Keys' kernel
# with A = -0.75, edges clamped; float32 within a few ulp of PyTorch's
# (rounded to 4 places here), float64 to 10.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)
x = torch.randn(2, 3, 5, 4).to(device)


def show(t, places=4):
    print(tuple(t.shape), str(t.dtype), [round(v, places) for v in t.flatten().tolist()[:8]], round(t.sum().item(), places - 1))


cases = [dict(scale_factor=2), dict(size=(7, 9)), dict(size=(3, 2)), dict(scale_factor=2, align_corners=True),
         dict(size=(8, 3), align_corners=True), dict(scale_factor=(1.7, 0.6)), dict(scale_factor=1.5, recompute_scale_factor=True)]
for kw in cases:
    show(F.interpolate(x, mode="bicubic", **kw))
    show(F.interpolate(x.double(), mode="bicubic", **kw), 10)
q = x.clone().requires_grad_()
y = F.interpolate(q, size=(9, 7), mode="bicubic")
print(y.grad_fn.name())
y.pow(2).sum().backward()
show(q.grad)
up = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)
print(up)
show(up(x))
print([round(v, 5) for v in F.interpolate(torch.ones(1, 1, 2, 2).to(device), scale_factor=3, mode="bicubic").flatten().tolist()])
for t, kw in [(torch.ones(1, 1, 3), dict(scale_factor=2, mode="bicubic")),
              (torch.ones(1, 1, 3, 3, dtype=torch.int64), dict(scale_factor=2, mode="bicubic"))]:
    try:
        F.interpolate(t.to(device), **kw)
    except NotImplementedError as e:
        print("NotImplementedError:", str(e).replace("_cuda", "").replace("_cpu", ""))
