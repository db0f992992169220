# `.data = ...`: the older way programs swap a tensor's contents
# (hand-written SGD, weight tying, net surgery, dtype and device changes).
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)

# Hand-written SGD, as the old tutorials wrote it.
x = torch.randn(64, 3).to(device)
true_w = torch.tensor([[1.5], [-2.0], [0.5]]).to(device)
y = x @ true_w + 0.1
model = nn.Linear(3, 1).to(device)
w = model.weight
for step in range(30):
    loss = ((model(x) - y) ** 2).mean()
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data = p.data - 0.1 * p.grad.data
    if step % 10 == 9:
        print(step, round(loss.item(), 5))
print(w is model.weight, w.is_leaf, w.requires_grad)
print(model.weight.data.cpu())

# Weight tying through .data: both parameters share one memory.
emb = nn.Embedding(5, 4).to(device)
out = nn.Linear(4, 5, bias=False).to(device)
out.weight.data = emb.weight.data
print(out.weight.data_ptr() == emb.weight.data_ptr())
opt = torch.optim.SGD(list(emb.parameters()) + list(out.parameters()), lr=0.5)
tokens = torch.tensor([0, 2, 4]).to(device)
loss = out(emb(tokens)).logsumexp(1).mean()
loss.backward()
opt.step()
print(torch.equal(out.weight, emb.weight), out.weight.grad.shape)
print(emb.weight.detach().cpu())

# A parameter given data of another shape, dtype or device.
lin = nn.Linear(4, 3)
lin.weight.data = lin.weight.data[:2]
lin.bias.data = lin.bias.data[:2]
print(lin, lin.weight.shape, lin(torch.ones(1, 4)).shape)
p = torch.zeros(2, requires_grad=True)
p.data = p.data.double()
(p * 2).sum().backward()
print(p.dtype, p.grad)
q = nn.Parameter(torch.ones(3))
q.data = q.data.to(device)
print(q.device.type == torch.device(device).type, q.is_leaf, q.data.cpu())

# Views taken before keep the old memory; the new data is shared.
a = torch.zeros(2, 3)
row = a[0]
b = torch.arange(6.).view(3, 2)
a.data = b.t()
print(a, a.stride(), a.is_contiguous(), row)
b.add_(10)
print(a)
print(a._version, b._version)

# requires_grad, grad and grad_fn stay the tensor's own.
c = torch.ones(3, requires_grad=True)
(c * c).sum().backward()
c.data = torch.full((3,), 4.0)
print(c, c.grad, c.is_leaf)
d = c * 3
d.data = torch.zeros(3)
print(d, type(d.grad_fn).__name__)

# What PyTorch refuses.
for bad in [3, torch.arange(3)]:
    try:
        c.data = bad
    except (TypeError, RuntimeError) as e:
        print(type(e).__name__ + ":", e)
print(c)
