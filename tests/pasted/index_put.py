"""`index_put_` and `index_put` (with and without `accumulate`, a mask
among the indices, PyTorch's dtype error), and `scatter_`/`scatter_add_`
in place on tensors in a graph, through a view too: PyTorch's nodes
(`ScatterAddBackward0`, `ScatterBackward1`) and gradients.
"""
import torch

x = torch.zeros(5)
x.index_put_((torch.tensor([0, 2, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(x.tolist())
y = torch.zeros(3, 4)
y.index_put_((torch.tensor([0, 2]), torch.tensor([1, 3])), torch.tensor(5.0))
y.index_put_((torch.tensor([1, 1]), torch.tensor([-1, -1])), torch.tensor([1.5, 2.5]), accumulate=True)
print(y.tolist())
z = torch.index_put(torch.zeros(2, 3), (torch.tensor([1]),), torch.ones(3))
print(z.tolist())
m = torch.zeros(2, 3)
m.index_put_((torch.tensor([[True, False, True], [False, False, True]]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(m.tolist())
try:
    torch.zeros(3).index_put_((torch.tensor([0]),), torch.tensor([1]))
except RuntimeError as e:
    print("RuntimeError:", e)

w = torch.ones(4, requires_grad=True)
a = w * 2
b = torch.zeros(4).scatter_add(0, torch.tensor([0, 0, 1, 3]), a)
b.sum().backward()
print(b.tolist(), b.grad_fn.name(), w.grad.tolist())
c = torch.zeros(3)
d = w * 3
c.scatter_add_(0, torch.tensor([0, 1, 1, 2]), d)
c.sum().backward()
print(c.tolist(), c.grad_fn.name(), w.grad.tolist())
e = (w * 1).index_put((torch.tensor([1]),), torch.tensor(9.0))
e.sum().backward()
print(e.tolist(), e.grad_fn.name(), w.grad.tolist())
f = (w * 1).index_put((torch.tensor([1, 1, 3]),), torch.tensor([2.0, 3.0, 4.0]), accumulate=True)
(f * torch.arange(4.0)).sum().backward()
print(f.tolist(), w.grad.tolist())

v = torch.arange(4.0, requires_grad=True)
base = torch.ones(2, 3, requires_grad=True)
x = base * 1
row = x[1]
row.scatter_(0, torch.tensor([0, 2]), v[:2] * 10)
x.scatter_add_(1, torch.tensor([[0, 0], [1, 2]]), torch.ones(2, 2) * v[2])
x.scatter_(0, torch.tensor([[1, 0, 1]]), 7.5)
print(x.grad_fn.name(), x.grad_fn.next_functions[0][0].name())
(x * torch.arange(6.0).reshape(2, 3)).sum().backward()
print(x.tolist(), base.grad.tolist(), v.grad.tolist())
leaf = torch.zeros(3, requires_grad=True)
try:
    leaf.scatter_(0, torch.tensor([0]), 1.0)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
