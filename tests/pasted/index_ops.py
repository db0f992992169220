# index_fill, index_copy and index_add (in place and not, as methods and
# torch's functions, with alpha=), their gradients and PyTorch's error
# for an index that is not of integers.
import torch
x = torch.zeros(3, 4, requires_grad=True).clone()
y = x.index_fill(1, torch.tensor([0, 2]), 5.)
print(y.tolist(), y.requires_grad)
z = torch.zeros(3, 4).index_copy_(1, torch.tensor([3, 0]), torch.ones(3, 2) * torch.tensor([1., 2.]))
print(z.tolist())
a = torch.zeros(5).index_add_(0, torch.tensor([0, 1, 0]), torch.tensor([1., 2., 3.]), alpha=2)
print(a.tolist())
s = torch.ones(2, 3, requires_grad=True)
w = torch.zeros(2, 5).index_add(1, torch.tensor([4, 4, 0]), s)
print(w.tolist())
w.sum().backward(); print(s.grad.tolist())
print(torch.index_fill(torch.arange(6.).view(2, 3), 0, torch.tensor([1]), -1.).tolist())
print(torch.index_add(torch.zeros(3, 2), 0, torch.tensor([2, 2]), torch.ones(2, 2)).tolist())
print(torch.index_copy(torch.zeros(4), 0, torch.tensor([1, 3]), torch.tensor([7., 8.])).tolist())
try:
    torch.zeros(3).index_add_(0, torch.tensor([0.]), torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
