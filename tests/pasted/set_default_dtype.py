# torch.set_default_dtype(torch.float64), as scientific programs begin:
# the dtype of literals, factories, promotions, layers' parameters and
# optimizer state, then a float64 fit (LBFGS, then a physics-informed
# loss with create_graph) on the program's device, and back to float32.
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype())
torch.manual_seed(0)
i = torch.tensor([1, 2, 3])
checks = {
 "tensor float": torch.tensor([1.5]), "tensor scalar": torch.tensor(2.0), "tensor int": torch.tensor([1]), "tensor bool": torch.tensor([True]),
 "randn": torch.randn(2), "rand": torch.rand(2), "zeros": torch.zeros(2), "ones": torch.ones(2, 2), "empty": torch.empty(2), "full float": torch.full((2,), 1.5),
 "full int": torch.full((2,), 3), "arange float": torch.arange(0., 1., 0.5), "arange int": torch.arange(3), "linspace": torch.linspace(0, 1, 3), "logspace": torch.logspace(0, 1, 3),
 "eye": torch.eye(2), "normal": torch.normal(0., 1., (2,)), "randint": torch.randint(0, 3, (2,)), "zeros_like int": torch.zeros_like(i), "rand_like": torch.rand_like(torch.zeros(2, dtype=torch.float32)),
 "int*float": i * 0.5, "int/int": i / 2, "int+1": i + 1, "sqrt int": torch.sqrt(i), "sigmoid int": torch.sigmoid(i), "mean float(int)": i.float().mean(),
 "float()": i.float(), "double()": i.double(), "as_tensor": torch.as_tensor([1.0, 2.0]), "from_numpy": torch.from_numpy(np.ones(2, dtype=np.float32)),
 "np array": torch.tensor(np.ones(2)), "one_hot float": F.one_hot(i).float(), "stack floats": torch.stack([torch.tensor(1.0), torch.tensor(2.0)]),
 "scalar tensor + float": torch.tensor(1) + 2.5, "div int scalar": torch.tensor(3) / torch.tensor(2), "pow int float": i ** 0.5, "true_divide": torch.true_divide(i, 2),
 "bernoulli": torch.bernoulli(torch.full((2,), 0.5)), "where scalars": torch.where(i > 1, 1.0, 0.0), "clamp": torch.clamp(torch.tensor([0.5]), 0, 1),
}
for name, t in checks.items():
    print(name, t.dtype)
lin = nn.Linear(3, 2)
print("Linear", lin.weight.dtype, lin.bias.dtype)
for m in [nn.Conv2d(1, 2, 3), nn.LSTM(3, 4), nn.Embedding(5, 3), nn.BatchNorm1d(3), nn.LayerNorm(3), nn.MultiheadAttention(4, 2), nn.GRU(2, 3), nn.Bilinear(2, 2, 1), nn.PReLU()]:
    print(type(m).__name__, sorted({p.dtype for p in m.parameters()} | {b.dtype for b in m.buffers() if b.is_floating_point()}))
x = torch.randn(4, 3)
print(lin(x).dtype, F.mse_loss(lin(x), torch.zeros(4, 2)).dtype)
opt = torch.optim.Adam(lin.parameters())
lin(x).sum().backward()
opt.step()
print(lin.weight.dtype, opt.state[lin.weight]["exp_avg"].dtype, opt.state[lin.weight]["step"].dtype)
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print("TypeError", e)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.5]).dtype, nn.Linear(1, 1).weight.dtype, (i * 0.5).dtype)
import math
torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
# A physics-informed fit of y = sin(x) in float64, as scientific programs set it up.
x = torch.linspace(-math.pi, math.pi, 64).unsqueeze(1).to(device)
y = (torch.sin(x.cpu()) + 0.01 * torch.randn(64, 1)).to(device)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)
def closure():
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    return loss
for i in range(4):
    loss = opt.step(closure)
    print(f"{i}: {loss.item():.12f}")
adam = torch.optim.Adam(model.parameters(), lr=1e-3)
for i in range(3):
    adam.zero_grad()
    xs = x.clone().requires_grad_()
    u = model(xs)
    du = torch.autograd.grad(u.sum(), xs, create_graph=True)[0]
    loss = F.mse_loss(du, torch.cos(x)) + F.mse_loss(u, y)
    loss.backward()
    adam.step()
    print(f"pinn {i}: {loss.item():.12f} {du.dtype}")
print(model[0].weight.dtype, torch.tensor([0.1]).dtype, (torch.arange(3) / 3).dtype, torch.randn(2).dtype)
print([round(v, 10) for v in torch.randn(3).tolist()])
