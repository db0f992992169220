# `backward(inputs=...)`: gradients into the named tensors' `.grad` only.
# A GAN's discriminator step fills D's parameters and leaves G's alone; a
# non-leaf input keeps its gradient (PyTorch makes it `retain_grad()`);
# only the graph that leads to an input runs, its hooks too.
import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
z = torch.randn(5, 4)
fake = G(z)
loss_d = D(fake).mean()
loss_d.backward(inputs=list(D.parameters()), retain_graph=True)
print([p.grad is None for p in G.parameters()])
print([tuple(p.grad.shape) for p in D.parameters()])
print(D[2].bias.grad)
loss_d.backward(inputs=list(G.parameters()))
print([p.grad is None for p in G.parameters()])
print(G[2].bias.grad)

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
(x * y).sum().backward(inputs=[x])
print(x.grad, y.grad)
(x * y).sum().backward(inputs=y)
print(x.grad, y.grad)
# a non-leaf input is retained
h = x * 2
z = (h * y).sum()
z.backward(inputs=[h], retain_graph=True)
print(h.grad, h.retains_grad, x.grad)
z.backward(inputs=(h, x))
print(h.grad, x.grad, y.grad)
# torch.autograd.backward
w = torch.ones(2, requires_grad=True)
v = torch.ones(2, requires_grad=True)
torch.autograd.backward([(w * v * 3).sum()], inputs=[v])
print(w.grad, v.grad)
# a leaf the outputs do not use
u = torch.ones(2, requires_grad=True)
(w * 2).sum().backward(inputs=[u, w])
print(u.grad, w.grad)
try:
    (w * 2).sum().backward(inputs=[])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    (w * 2).sum().backward(inputs=[torch.ones(2)])
except RuntimeError as e:
    print("RuntimeError:", e)
# a hook on a node not on the path does not run
a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
c = a * 3
c.register_hook(lambda g: print("hook on c", g))
d = b * 4
d.register_hook(lambda g: print("hook on d", g))
(c + d).sum().backward(inputs=[b])
print(a.grad, b.grad)
net = torch.nn.Linear(2, 1)
out = net(torch.ones(1, 2)).sum()
out.backward(inputs=dict(net.named_parameters()), retain_graph=True)
print(net.weight.grad, net.bias.grad)
net.zero_grad()
out.backward(inputs=list(net.parameters())[:1], retain_graph=True)
print(net.weight.grad, net.bias.grad)
out.backward(inputs=net.parameters())
print(net.weight.grad, net.bias.grad)
try:
    torch.autograd.grad(out, [])
except RuntimeError as e:
    print("RuntimeError:", e)
# grad(): a hook on a node off the path does not run either
a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
c = a * 3
c.register_hook(lambda g: print("hook on c", g))
d = b * 4
d.register_hook(lambda g: print("hook on d", g))
print(torch.autograd.grad((c + d).sum(), [b]))
