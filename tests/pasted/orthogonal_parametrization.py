# torch.nn.utils.parametrizations.orthogonal: the matrix exponential,
# Cayley and Householder maps, a rectangular weight completed by a random
# draw, state_dict keys, and three SGD steps staying orthogonal.
import torch, torch.nn as nn
from torch.nn.utils.parametrizations import orthogonal
torch.manual_seed(0)
m = orthogonal(nn.Linear(3, 3))
print(m)
print(list(m.state_dict().keys()))
W = m.weight
print([round(v, 5) for v in W.flatten().tolist()], torch.allclose(W @ W.T, torch.eye(3), atol=1e-5))
r = orthogonal(nn.Linear(5, 3))
print([round(v, 5) for v in r.weight.flatten().tolist()][:6], torch.allclose(r.weight @ r.weight.T, torch.eye(3), atol=1e-5))
t = orthogonal(nn.Linear(3, 5), orthogonal_map="householder")
print([round(v, 5) for v in t.weight.flatten().tolist()][:6])
c = orthogonal(nn.Linear(4, 4), orthogonal_map="cayley")
print([round(v, 5) for v in c.weight.flatten().tolist()][:6])
opt = torch.optim.SGD(m.parameters(), lr=0.1)
x = torch.randn(8, 3)
for _ in range(3):
    opt.zero_grad()
    loss = (m(x) - x.flip(1)).pow(2).mean()
    loss.backward()
    opt.step()
    print(round(loss.item(), 5), torch.allclose(m.weight @ m.weight.T, torch.eye(3), atol=1e-5))
print([round(v, 5) for v in m.weight.flatten().tolist()])
