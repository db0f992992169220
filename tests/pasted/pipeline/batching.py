import torch

from .text import tokenize

__all__ = ["windows", "batches", "Meter"]


def windows(ids, size):
    """Every run of `size` ids and the id after it."""
    for start in range(len(ids) - size):
        yield ids[start:start + size], ids[start + size]


def batches(pairs, batch_size, device):
    xs, ys = [], []
    for x, y in pairs:
        xs.append(x)
        ys.append(y)
        if len(xs) == batch_size:
            yield torch.tensor(xs, device=device), torch.tensor(ys, device=device)
            xs, ys = [], []
    if xs:
        yield torch.tensor(xs, device=device), torch.tensor(ys, device=device)


class Meter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, total, n):
        self.sum, self.count = self.sum + total, self.count + n

    def mean(self):
        return self.sum / self.count


def _hidden():
    return "not exported"
