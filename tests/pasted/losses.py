"""The losses of one value per element, as a GAN, a VAE and a regression
script use them: binary cross entropy on probabilities (with weights) and
on logits (with pos_weight), smooth L1, Huber and L1, each reduction, the
input's and the target's gradients, the modules, PyTorch's errors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def T(data, **kw):
    return torch.tensor(data, device=device, **kw)



x = T([[0.2, 0.9, 0.5], [0.01, 0.7, 0.999]], requires_grad=True)
y = T([[0.0, 1.0, 1.0], [0.0, 0.3, 1.0]], requires_grad=True)
w = T([1.0, 2.0, 0.5])
for red in ["mean", "sum", "none"]:
    l = F.binary_cross_entropy(x, y, weight=w, reduction=red)
    l.sum().backward()
    print(red, [round(v, 5) for v in l.reshape(-1).tolist()], l.grad_fn.name())
    print([round(v, 4) for v in x.grad.reshape(-1).tolist()], [round(v, 4) for v in y.grad.reshape(-1).tolist()])
    x.grad = None
    y.grad = None
z = T([[2.0, -3.0, 0.5], [40.0, -40.0, 0.0]], requires_grad=True)
t = T([[1.0, 0.0, 1.0], [0.0, 1.0, 0.5]])
pw = T([3.0, 1.0, 0.5])
for kw in [{}, {"pos_weight": pw}, {"weight": w, "pos_weight": pw}]:
    l = F.binary_cross_entropy_with_logits(z, t, **kw)
    l.backward()
    print(round(l.item(), 5), l.grad_fn.name(), [round(v, 5) for v in z.grad.reshape(-1).tolist()])
    z.grad = None
a = T([0.5, -3.0, 1.0, 0.0, 2.5], requires_grad=True)
b = T([0.0, 0.0, 0.2, 0.0, 0.4])
for name, f in [("smooth_l1", lambda r: F.smooth_l1_loss(a, b, reduction=r, beta=0.8)),
                ("huber", lambda r: F.huber_loss(a, b, reduction=r, delta=1.5)),
                ("l1", lambda r: F.l1_loss(a, b, reduction=r))]:
    for red in ["mean", "sum", "none"]:
        l = f(red)
        l.sum().backward()
        print(name, red, [round(v, 5) for v in l.reshape(-1).tolist()], l.grad_fn.name(), [round(v, 5) for v in a.grad.tolist()])
        a.grad = None
print(F.smooth_l1_loss(a, b, beta=0.0).item())
crit = nn.BCELoss().to(device)
print(crit, nn.BCEWithLogitsLoss(pos_weight=pw), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(), nn.L1Loss())
print(round(crit(torch.sigmoid(z), t).item(), 5), round(nn.BCEWithLogitsLoss(pos_weight=pw)(z, t).item(), 5))
print(round(nn.MSELoss(reduction="none")(a, b).sum().item(), 5), nn.MSELoss(reduction="none")(a, b).grad_fn.name())
print(round(nn.L1Loss(reduction="sum")(a, b).item(), 4), round(nn.HuberLoss(delta=0.5)(a, b).item(), 5))
print([round(v, 4) for v in F.cross_entropy(T([[1.0, 2.0], [0.5, 0.1]]), T([1, 0]), reduction="none").tolist()])
print(F.nll_loss(T([[-1.0, -2.0], [-0.5, -0.1]]), T([1, 0]), reduction="none").tolist())
print(sorted(dict(nn.BCEWithLogitsLoss(pos_weight=pw).named_buffers()).keys()))
print(F.binary_cross_entropy(T([0.0, 1.0]), T([1.0, 0.0])).item())
try:
    F.binary_cross_entropy(T([0.5]), T([[1.0]]))
except ValueError as e:
    print("ValueError:", e)
try:
    F.binary_cross_entropy_with_logits(T([0.5]), T([[1.0]]))
except ValueError as e:
    print("ValueError:", e)
