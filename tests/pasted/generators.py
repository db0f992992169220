# A data pipeline of generators, in the style of pytorch/examples' data
# loaders written without a DataLoader: words are made as they are read,
# windows and batches as training asks for them. Uses a package of its own
# with relative imports, `from m import *`, set literals and comprehensions,
# `.001`-style floats, and Python names cudash reserves in its own language
# (`mem`, `fn`, `help`).
import torch
import torch.nn as nn
import torch.nn.functional as F

from pipeline import tokenize, Vocabulary, windows, batches, Meter
from pipeline.batching import *

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

TEXT = [
    "The cat sat on the mat.",
    "The dog sat on the log.",
    "A cat and a dog met on the mat, and the cat ran.",
]


def trace(lines):
    for i, line in enumerate(lines):
        print("reading line", i)
        yield line


words = tokenize(trace(TEXT))
print(type(words).__name__ if False else "a generator, nothing read yet")
print(next(words), next(words))
rest = list(words)
print(len(rest), rest[:4])
vocab = Vocabulary(tokenize(TEXT))
print(len(vocab), vocab.words[:5])
stop = {"the", "a", "and", "on"}
print(sorted({w for w in vocab.words if w not in stop}))
print(len(stop | {"cat", "the"}), sorted(stop & {"cat", "the"}))

ids = [vocab.index[w] for w in tokenize(TEXT)]
print(ids[:8])


class Bigram(nn.Module):
    def __init__(self, n, width):
        super().__init__()
        self.embed = nn.Embedding(n, width)
        self.out = nn.Linear(width * 2, n)

    def forward(self, x):
        return self.out(self.embed(x).flatten(1))


model = Bigram(len(vocab), 8)
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (0.7 + .1 * k)).reshape(p.shape) * .5)
model = model.to(device)
opt = torch.optim.SGD(model.parameters(), lr=.5)


def apply(fn, xs):
    return [fn(x) for x in xs]


help = "lr={}".format(opt.param_groups[0]["lr"])
print(help, apply(lambda x: x * 2, [1, 2]))

for epoch in range(3):
    mem = Meter()
    for step, (x, y) in enumerate(batches(windows(ids, 2), 8, device)):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        mem.update(loss.item() * len(y), len(y))
    print(f"epoch {epoch}: {step + 1} batches, mean loss {mem.mean():.4f}")


def forever(start):
    k = start
    while True:
        yield k
        k += 1


for k in forever(10):
    if k % 2:
        continue
    if k > 14:
        break
    print("even", k)


def flatten(groups):
    for g in groups:
        yield from g


print(list(flatten([[1, 2], (3,), range(4, 6)])), sum(x * x for x in forever(0) if x < 0) if False else "ok")


def failing():
    yield 1
    raise ValueError("the source ran dry")


g = failing()
print(next(g))
try:
    next(g)
except ValueError as e:
    print("ValueError:", e)
print(next(g, "done"))
try:
    _hidden()
except NameError as e:
    print("NameError:", e)
