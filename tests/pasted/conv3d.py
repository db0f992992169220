# 3-d convolutions and pools (nn.Conv3d, MaxPool3d, AvgPool3d, the adaptive
# ones, BatchNorm3d, InstanceNorm3d), as video and medical-volume models
# write them: PyTorch's initial weights, outputs, gradients and reprs, and
# a small 3-d CNN trained two steps on the device.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

torch.manual_seed(0)
conv = nn.Conv3d(2, 4, 3, padding=1)
print(conv, conv.weight.shape, [round(v, 5) for v in conv.weight.flatten()[:4].tolist()], [round(v, 5) for v in conv.bias.tolist()])
x = torch.randn(2, 2, 5, 6, 7, requires_grad=True)
y = conv(x)
print(y.shape, y.is_contiguous(), [round(v, 4) for v in y[0, 0, 0, 0, :4].tolist()])
y.square().mean().backward()
print([round(v, 5) for v in x.grad[0, 0, 0, 0, :4].tolist()], round(conv.weight.grad.sum().item(), 4), round(conv.bias.grad.sum().item(), 4))
c2 = nn.Conv3d(4, 6, (2, 3, 3), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(2, 1, 1), groups=2, bias=False)
print(c2, c2(torch.randn(1, 4, 6, 5, 5)).shape)
w = torch.randn(3, 2, 2, 2, 2)
print([round(v, 4) for v in F.conv3d(torch.randn(2, 5, 4, 4), w[:, :1].repeat(1, 1, 1, 1, 1)[:, :, :, :, :].expand(3, 1, 2, 2, 2).contiguous().repeat(1, 2, 1, 1, 1)[:, :2], stride=2).flatten()[:3].tolist()] if False else F.conv3d(torch.randn(1, 2, 4, 4, 4), w, stride=2).shape)
try:
    F.conv3d(torch.randn(1, 3, 4, 4, 4), w)
except RuntimeError as e:
    print("RuntimeError", e)
print(nn.Conv3d(1, 1, 3, padding="same")(torch.randn(1, 1, 4, 4, 4)).shape)
mp = nn.MaxPool3d(2, stride=2)
ap = nn.AvgPool3d((1, 2, 2))
z = torch.randn(1, 2, 4, 6, 6, requires_grad=True)
print(mp, ap, [round(v, 4) for v in mp(z).flatten()[:4].tolist()], [round(v, 4) for v in ap(z).flatten()[:4].tolist()])
(mp(z).sum() + ap(z).sum()).backward(); print(round(z.grad.sum().item(), 4))
print([round(v, 4) for v in F.max_pool3d(z, 3, stride=2, padding=1).flatten()[:4].tolist()], F.avg_pool3d(z, 3, stride=1, padding=1).shape)
g = nn.AdaptiveAvgPool3d(1)
print(g, g(z).shape, [round(v, 4) for v in g(z).flatten().tolist()], nn.AdaptiveAvgPool3d((2, 3, 3))(z).shape, nn.AdaptiveMaxPool3d(1)(z).shape)
print(nn.BatchNorm3d(2), [round(v, 4) for v in nn.BatchNorm3d(2)(z).flatten()[:3].tolist()])

print(nn.InstanceNorm3d(2)(torch.randn(1, 2, 2, 3, 3)).shape)
try:
    nn.BatchNorm3d(2)(torch.randn(2, 2, 3, 3))
except ValueError as e:
    print("ValueError", e)
m = nn.Sequential(nn.Conv3d(1, 2, 3), nn.BatchNorm3d(2), nn.ReLU(), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(2, 3))
print(m)
print(m(torch.randn(2, 1, 5, 5, 5)).shape, list(m.state_dict().keys()))
torch.manual_seed(1)
net = nn.Sequential(
    nn.Conv3d(1, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(), nn.MaxPool3d(2),
    nn.Conv3d(4, 8, 3, padding=1, bias=False), nn.ReLU(), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(8, 2),
).to(device)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
vol = torch.randn(4, 1, 8, 8, 8).to(device)
label = torch.tensor([0, 1, 1, 0]).to(device)
for step in range(2):
    opt.zero_grad()
    loss = F.cross_entropy(net(vol), label)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
