# nn.Embedding(max_norm=...) and F.embedding(max_norm=...) (session of
# 2026-12-07, seventh): the rows read are scaled down in the weight first,
# in place and outside the graph, as PyTorch's embedding_renorm_.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)


def r(t, places=5):
    return [round(v, places) for v in t.flatten().tolist()]


emb = nn.Embedding(10, 4, max_norm=1.0).to(device)
print(emb, nn.Embedding(5, 2, padding_idx=0, max_norm=2, norm_type=1.0))
idx = torch.tensor([[1, 2, 2], [7, 1, 0]]).to(device)
before = emb.weight.detach().clone()
v0 = emb.weight._version
out = emb(idx)
print(r(out.norm(dim=-1)))
print((emb.weight != before).any(dim=1).tolist(), emb.weight._version - v0, emb.weight.requires_grad)
print(r(emb.weight.norm(dim=1)))
out.sum().backward()
print(r(emb.weight.grad.sum(dim=1)))
w = (torch.randn(6, 3) * 3).to(device)
x = F.embedding(torch.tensor([0, 5, 5]).to(device), w, max_norm=2.0, norm_type=1.0)
print(r(x), r(w.abs().sum(dim=1)))
w2 = (torch.randn(4, 3, dtype=torch.float64) * 2).to(device)
print(r(F.embedding(torch.tensor([3]).to(device), w2, max_norm=0.5), 10), r(w2.norm(dim=1), 10))
model = nn.Sequential(nn.Embedding(20, 8, max_norm=1.5), nn.Flatten(), nn.Linear(16, 2)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
tokens = torch.randint(0, 20, (5, 2)).to(device)
for step in range(3):
    opt.zero_grad()
    loss = model(tokens).pow(2).mean()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), round(model[0].weight.norm(dim=1).max().item(), 5))
