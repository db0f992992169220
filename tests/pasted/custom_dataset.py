"""A custom Dataset class, a DataLoader over it, a small regression model
trained with Adam, and an evaluation loop that reports accuracy: the shape
of many tutorials' training scripts, on data made from formulas.
"""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader


class Waves(Dataset):
    """Sample i: 8 readings of a wave and whether its mean is positive."""

    def __init__(self, n: int, phase: float = 0.0):
        self.n = n
        self.phase = phase

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        t = torch.arange(8, dtype=torch.float32) * 0.5 + idx * 0.31 + self.phase
        x = torch.sin(t) + 0.25 * torch.cos(3.0 * t)
        label = 1 if x.mean().item() > 0 else 0
        return x, label


class Classifier(nn.Module):
    def __init__(self, n_in, hidden, n_out=2):
        super().__init__()
        self.hidden = nn.Linear(n_in, hidden)
        self.out = nn.Linear(hidden, n_out)

    def forward(self, x):
        h = torch.tanh(self.hidden(x))
        return self.out(h)


def evaluate(model, loader):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            loss_sum += F.cross_entropy(logits, yb, reduction="sum").item()
            correct += (logits.argmax(dim=1) == yb).sum().item()
            total += yb.shape[0]
    return loss_sum / total, correct / total


train_set, test_set = Waves(96), Waves(40, phase=0.7)
train_loader = DataLoader(train_set, batch_size=12, shuffle=False)
test_loader = DataLoader(test_set, batch_size=20)

model = Classifier(8, 16)
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.37 + k).reshape(p.shape) * 0.3)

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
history = []
start = time.time()
for epoch in range(4):
    model.train()
    running = 0.0
    for step, (xb, yb) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    val_loss, acc = evaluate(model, test_loader)
    history.append((epoch, running / len(train_loader), val_loss, acc))
    print("epoch %d: train loss %.5f, val loss %.5f, accuracy %.1f%%" % (epoch + 1, running / len(train_loader), val_loss, 100 * acc))

best = min(history, key=lambda h: h[2]) if False else sorted([h[2] for h in history])[0]
print(f"best val loss: {best:.5f} after {len(history)} epochs")
for (epoch, train_loss, val_loss, acc), name in zip(history, ["first", "second", "third", "fourth"]):
    assert acc >= 0.0, "accuracy is a fraction"
    print("{:>6}: {:.4f} {:.4f}".format(name, train_loss, val_loss))
elapsed = time.time() - start
print(f"took less than a minute: {elapsed < 60} | sqrt(2) = {round(math.sqrt(2), 4)}")
