"""A training script in the style of PyTorch's examples (mnist/main.py):
its settings from the command line with argparse, a model class with a
property and an evaluation method under `@torch.no_grad()`, the loader's
keyword arguments merged with `dict.update`, a timing context manager,
Python's `random` for the order of the batches.

Data and initial weights come from formulas, so cudash and PyTorch print
the same numbers (`random` is CPython's generator in both).
"""
from __future__ import print_function
import argparse
import random
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, hidden):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(12, hidden)
        self.fc2 = nn.Linear(hidden, 3)
        self.history = []

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)

    @property
    def num_parameters(self):
        return sum(p.numel() for p in self.parameters())

    @torch.no_grad()
    def accuracy(self, x, target):
        pred = self(x).argmax(dim=1)
        return pred.eq(target).float().mean().item()


class Stopwatch:
    """Times a block: `with Stopwatch("epoch") as watch:`."""

    def __init__(self, name):
        self.name = name
        self.laps = 0

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.seconds = time.perf_counter() - self.start
        return False


def init_weights(model):
    for k, p in enumerate(model.parameters()):
        with torch.no_grad():
            n = p.numel()
            p.copy_(torch.cos(torch.arange(n, dtype=torch.float32) * (0.7 + k)).reshape(p.shape) * 0.3)


def train(args, model, device, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        model.history.append(loss.item())
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(loader.dataset), loss.item()))
            if args.dry_run:
                break


def main():
    parser = argparse.ArgumentParser(description='PyTorch synthetic-data example',
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--batch-size', type=int, default=16, metavar='N',
                        help='input batch size for training')
    parser.add_argument('--epochs', type=int, default=2, metavar='N',
                        help='number of epochs to train')
    parser.add_argument('--lr', type=float, default=0.5, metavar='LR',
                        help='learning rate')
    parser.add_argument('--hidden', type=int, default=8, choices=[4, 8, 16])
    parser.add_argument('--no-accel', action='store_true',
                        help='disables accelerator')
    parser.add_argument('--dry-run', action='store_true',
                        help='quickly check a single pass')
    parser.add_argument('--seed', type=int, default=1, metavar='S',
                        help='random seed')
    parser.add_argument('--log-interval', type=int, default=2, metavar='N',
                        help='how many batches to wait before logging training status')
    args = parser.parse_args()
    print(args)
    print("settings:", ", ".join("%s=%s" % (k, v) for k, v in vars(args).items()))

    random.seed(args.seed)
    torch.backends.cudnn.deterministic = True
    use_accel = not args.no_accel and torch.cuda.is_available()
    device = torch.device("cuda" if use_accel else "cpu")

    X = torch.sin(torch.arange(96 * 12, dtype=torch.float32).reshape(96, 12) * 0.29)
    y = (torch.arange(96) * 5 + torch.arange(96) // 7) % 3
    order = list(range(96))
    random.shuffle(order)
    picked = torch.tensor(order[:64])
    train_kwargs = {'batch_size': args.batch_size}
    extra_kwargs = {'shuffle': False}
    train_kwargs.update(extra_kwargs)
    loader = DataLoader(TensorDataset(X[picked], y[picked]), **train_kwargs)

    model = Net(args.hidden)
    init_weights(model)
    model = model.to(device)
    print(f"Net with "
          f"{model.num_parameters} parameters, first lr {args.lr}")
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

    for epoch in range(1, args.epochs + 1):
        with Stopwatch("epoch") as watch:
            train(args, model, device, loader, optimizer, epoch)
        assert watch.seconds >= 0
        print(f"epoch {epoch}: {len(model.history)} steps so far, "
              f"accuracy {model.accuracy(X.to(device), y.to(device)):.4f}")
    del model.history[:]
    print("history cleared:", model.history, "| grad enabled:", torch.is_grad_enabled())
    print("picked", random.sample(order, 4), "then", random.randint(1, 100))
    if getattr(args, "dry_run", False):
        sys.exit(0)
    print("done")


if __name__ == '__main__':
    main()
