# nn.MaxPool2d(return_indices=True), F.max_pool2d_with_indices and the
# unpools (nn.MaxUnpool1d/2d, F.max_unpool1d/2d), as a SegNet decoder
# writes them: values, graph (MaxUnpool2DBackward0), gradients, output_size
# and PyTorch's errors.
# pasted: host only
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 6, requires_grad=True)
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
print(pool, unpool)
out, idx = pool(x)
print(out.grad_fn, idx)
u = unpool(out, idx)
print(u.shape, u.grad_fn, u[0, 0])
(u * torch.arange(u.numel()).view(u.shape)).sum().backward()
print(x.grad[0, 1])
print(unpool(out, idx, output_size=torch.Size([1, 2, 5, 7])).shape, F.max_unpool2d(out, idx, 2, output_size=(5, 6)).shape)
try:
    unpool(out, idx, output_size=(8, 8))
except ValueError as e:
    print("ValueError", e)
try:
    F.max_unpool2d(out, idx, 1)
except RuntimeError as e:
    print("RuntimeError", str(e)[:27])
try:
    F.max_unpool2d(out, idx.float(), 2)
except RuntimeError as e:
    print("RuntimeError", str(e)[:27])
o, i = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
print(i)
print(F.max_unpool2d(o, i, 3, stride=2, padding=1, output_size=(4, 6)).shape)
s = torch.randn(2, 3, 8)
o1, i1 = F.max_pool1d(s, 2, return_indices=True)
print(i1[0], nn.MaxPool1d(2, return_indices=True)(s)[1].shape)
r = F.max_unpool1d(o1, i1, 2)
print(r.shape, torch.equal(r.max_pool1d(2) if hasattr(r, 'max_pool1d') else F.max_pool1d(r, 2), o1))
print(nn.MaxUnpool1d(2)(o1, i1).shape, nn.MaxUnpool1d(3, stride=2, padding=1))
print(F.max_pool2d_with_indices(x, 2)[1].shape)
print(torch.autograd.gradcheck(lambda t: F.max_unpool2d(*F.max_pool2d(t, 2, return_indices=True), 2), (torch.randn(1, 1, 4, 4, dtype=torch.float64, requires_grad=True),)))
print(torch.autograd.gradgradcheck(lambda t: F.max_unpool2d(t, torch.tensor([[[[0, 3], [9, 14]]]]), 2), (torch.randn(1, 1, 2, 2, dtype=torch.float64, requires_grad=True),)))
class SegNetBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(2, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, 2)
        self.dec = nn.Conv2d(4, 2, 3, padding=1)
    def forward(self, x):
        size = x.size()
        h, where = self.pool(self.enc(x).relu())
        return self.dec(self.unpool(h, where, output_size=size[:2] + (size[2], size[3])))
net = SegNetBlock()
print(net)
y = net(torch.randn(2, 2, 5, 6))
print(y.shape, round(y.square().mean().item(), 5))
import io
b = io.BytesIO()
torch.save(net, b)
b.seek(0)
print(torch.load(b, weights_only=False).pool)
