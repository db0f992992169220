# An iterable-style dataset (a stream whose __iter__ yields samples), as
# PyTorch programs that read streams write one: sharded across workers with
# get_worker_info(), batched, collated (dicts, tuples, strings), drop_last,
# batch_size=None, ChainDataset by +, a collate_fn, and the generator draws
# each pass makes (the base seed, each worker seeded with base_seed + id).
import math
import random
import torch
from torch.utils.data import IterableDataset, DataLoader, get_worker_info, default_collate, StackDataset

class Stream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end
    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per = int(math.ceil((self.end - self.start) / float(info.num_workers)))
            lo = self.start + info.id * per
            hi = min(lo + per, self.end)
        for i in range(lo, hi):
            yield {"x": torch.tensor([float(i)]), "i": i, "r": torch.rand(1).item() < 2}

class Noisy(IterableDataset):
    def __iter__(self):
        for k in range(5):
            yield torch.randn(2), random.random() < 2, "s%d" % k

torch.manual_seed(0)
ds = Stream(3, 10)
print([b["i"].tolist() for b in DataLoader(ds, batch_size=2)])
print([b["i"].tolist() for b in DataLoader(ds, batch_size=2, num_workers=2)])
print([b["i"].tolist() for b in DataLoader(ds, batch_size=3, num_workers=2, drop_last=True)])
print([int(b["i"]) for b in DataLoader(ds, batch_size=None)])
print([b["i"].tolist() for b in DataLoader(Stream(0, 3), batch_size=2, num_workers=2)])
for xb, flag, names in DataLoader(Noisy(), batch_size=2, num_workers=2):
    print(xb.shape, flag.tolist(), names)
print(torch.rand(1).item())
for b in DataLoader(Noisy(), batch_size=4):
    print(b[0].shape, b[2])
print(torch.rand(1).item())
try:
    DataLoader(ds, shuffle=True)
except ValueError as e:
    print("ValueError:", e)
print(default_collate([(1, 2.0), (3, 4.0)]))
print(len(DataLoader(Stream(0, 4) + Stream(4, 5), batch_size=2)) if hasattr(Stream, "__len__") else "no len")
print([b.tolist() for b in DataLoader(Stream(0, 3) + Stream(10, 12), batch_size=2, collate_fn=lambda s: torch.cat([d["x"] for d in s]))])

# StackDataset: datasets of one length read together (a tuple, or a dict by name).
images = torch.arange(12.0).reshape(6, 2)
labels = torch.arange(6)
ds = StackDataset(images, labels)
print(len(ds), ds[2])
d2 = StackDataset(x=images, y=labels)
print(d2[1])
for b in DataLoader(d2, batch_size=4):
    print(b["x"].shape, b["y"].tolist())
for x, y in DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(0)):
    print(x.tolist(), y.tolist())
try:
    StackDataset(images, labels[:3])
except ValueError as e:
    print(e)
