# Seeded as PyTorch's tutorials seed theirs: `torch.manual_seed(0)`, random
# data, each layer's own initialization, a split made with a generator, a
# shuffled DataLoader, dropout on the CPU, and makemore-style sampling with
# `torch.Generator().manual_seed(2147483647)`. No weight comes from a
# formula: a CPU tensor's random numbers are PyTorch's own, so every number
# printed is the one PyTorch prints.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

X = torch.randn(200, 10)
true_w = torch.randn(10, 3)
y = (X @ true_w + 0.5 * torch.randn(200, 3)).argmax(dim=1)
print(f"first sample: {[round(v, 4) for v in X[0, :5].tolist()]}, label {y[0].item()}")
print(f"randint: {torch.randint(0, 10, (8,)).tolist()}, randperm: {torch.randperm(6).tolist()}")
print(f"rand: {torch.rand(3).tolist()}")

train, test = random_split(TensorDataset(X, y), [160, 40], generator=torch.Generator().manual_seed(42))
print(f"test indices: {test.indices[:8]}")
train_loader = DataLoader(train, batch_size=32, shuffle=True)
test_loader = DataLoader(test, batch_size=40)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(10, 32),
            nn.ReLU(),
            nn.Linear(32, 3),
        )

    def forward(self, x):
        return self.layers(x)


model = Net().to(device)
w = model.layers[0].weight
print(f"first layer: {w[0, :3].tolist()}, bias {model.layers[0].bias[:2].tolist()}")
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

for epoch in range(4):
    model.train()
    for batch, (xb, yb) in enumerate(train_loader):
        xb, yb = xb.to(device), yb.to(device)
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch == 0 and batch < 2:
            print(f"  batch {batch}: first labels {yb[:6].tolist()}, loss {loss.item():.6f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in test_loader:
            xb, yb = xb.to(device), yb.to(device)
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch}: last loss {loss.item():.6f}, test accuracy {100 * correct / 40:.1f}%")

# Dropout's mask and the other draws, on CPU tensors.
print(f"dropout: {nn.Dropout(0.5)(torch.ones(10)).tolist()}")
print(f"bernoulli: {torch.bernoulli(torch.full((8,), 0.3)).tolist()}")
emb = nn.Embedding(5, 3)
conv = nn.Conv2d(1, 2, 3)
lstm = nn.LSTM(4, 3)
print(f"embedding {emb.weight.sum().item():.6f}, conv {conv.weight.sum().item():.6f}, "
      f"lstm {sum(p.sum().item() for p in lstm.parameters()):.6f}")
print(f"normal_: {torch.empty(20).normal_(0.0, 0.02).sum().item():.8f}")
print(f"float64: {torch.randn(3, dtype=torch.float64).tolist()}")

# makemore's bigram sampling: one generator for the table and the draws.
g = torch.Generator().manual_seed(2147483647)
P = torch.rand((27, 27), generator=g) ** 4
P = P / P.sum(1, keepdim=True)
chars = "." + "abcdefghijklmnopqrstuvwxyz"
for _ in range(4):
    out = []
    ix = 0
    while True:
        ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
        if ix == 0 or len(out) == 12:
            break
        out.append(chars[ix])
    print("".join(out))
C = torch.randn((27, 2), generator=g)
print(f"C[5] = {C[5].tolist()}")
