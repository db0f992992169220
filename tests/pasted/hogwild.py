"""Hogwild training as PyTorch's mnist_hogwild example writes it: a model
in shared memory (`model.share_memory()`), `torch.multiprocessing.Process`
started with the model in its arguments, each process with its own
optimizer and gradients, updating the one set of parameters. Here the
processes run one after another (each joined before the next starts), so
the numbers are the same in every run; then two processes that run
together form a process group, as PyTorch's "Writing Distributed
Applications" tutorial starts its ranks, and write their results into a
tensor in shared memory. The data and targets come from formulas; the
weights from the CPU's generator, which cudash draws as PyTorch does.
"""
import os
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def make_dataset(n):
    x = torch.linspace(-1, 1, n * 16).reshape(n, 16).sin()
    y = (torch.arange(n) * 7 + 3) % 4
    x[torch.arange(n), y * 4] += 2.0
    return TensorDataset(x, y)


def train(rank, model, dataset, epochs, losses):
    torch.manual_seed(1 + rank)
    loader = DataLoader(dataset, batch_size=8, shuffle=True)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    model.train()
    for epoch in range(1, epochs + 1):
        for batch_idx, (data, target) in enumerate(loader):
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            if batch_idx % 4 == 0:
                print('Process {}\tTrain Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                    rank, epoch, batch_idx * len(data), len(loader.dataset), loss.item()))
    losses[rank] = loss.item()
    print(f"process {rank}: its own gradient {model.fc1.weight.grad.abs().sum().item():.5f}")


def test(model, dataset):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in DataLoader(dataset, batch_size=16):
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            correct += output.max(1)[1].eq(target).sum().item()
    test_loss /= len(dataset)
    print('Test set: Average loss: {:.4f}, Accuracy: {}/{}'.format(
        test_loss, correct, len(dataset)))


def run(rank, size, results):
    tensor = torch.zeros(1)
    if rank == 0:
        tensor += 1
        dist.send(tensor=tensor, dst=1)
    else:
        dist.recv(tensor=tensor, src=0)
    total = torch.tensor([rank + 1.0])
    dist.all_reduce(total, op=dist.ReduceOp.SUM)
    results[rank, 0] = tensor[0]
    results[rank, 1] = total[0]


def init_process(rank, size, fn, results, backend='gloo'):
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size, results)
    dist.destroy_process_group()


if __name__ == '__main__':
    torch.manual_seed(1)
    mp.set_start_method('spawn', force=True)
    print(mp.get_start_method())
    model = Net()
    model.share_memory()
    print(model.fc1.weight.is_shared(), model.fc1.weight.grad)
    dataset = make_dataset(64)
    test(model, dataset)

    losses = torch.zeros(2).share_memory_()
    for rank in range(2):
        p = mp.Process(target=train, args=(rank, model, dataset, 2, losses))
        p.start()
        p.join()
        print(p.name, p.exitcode, p.is_alive())
    print('last losses', [round(x, 6) for x in losses.tolist()])
    print('the parent has no gradient:', model.fc1.weight.grad)
    test(model, dataset)

    size = 2
    results = torch.zeros(size, 2)
    processes = []
    for rank in range(size):
        p = mp.Process(target=init_process, args=(rank, size, run, results))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    print('exit codes', [p.exitcode for p in processes])
    print('received and summed', results.tolist())
