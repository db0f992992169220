"""PyTorch's "Writing Distributed Applications with PyTorch" tutorial
(intermediate_source/dist_tuto.rst) as it runs its code: two processes
started with `torch.multiprocessing.Process`, each joining the group in
`init_process`, then blocking and non-blocking point-to-point messages, an
all-reduce over `new_group`, the six collectives, the tutorial's own ring
all-reduce, and its distributed synchronous SGD (`average_gradients` over
`param.grad.data`) on a partitioned dataset. Only rank 0 prints (the
tutorial's ranks print at once, in an order no run fixes), after a
barrier. The data come from formulas (the tutorial's MNIST); its batch
size is made an int (`128 / float(size)` is a float, which PyTorch's
DataLoader refuses).
"""
import os
from math import ceil
from random import Random

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def run_p2p(rank, size):
    tensor = torch.zeros(1)
    if rank == 0:
        tensor += 1
        dist.send(tensor=tensor, dst=1)
    else:
        dist.recv(tensor=tensor, src=0)
    received = tensor.clone()
    dist.barrier()
    if rank == 1:
        print('Rank ', rank, ' has data ', received[0].item())


def run_nonblocking(rank, size):
    tensor = torch.zeros(1)
    req = None
    if rank == 0:
        tensor += 1
        req = dist.isend(tensor=tensor, dst=1)
    else:
        req = dist.irecv(tensor=tensor, src=0)
    req.wait()
    all_ = [torch.zeros(1) for _ in range(size)]
    dist.all_gather(all_, tensor)
    if rank == 0:
        print('Ranks have data', [t[0].item() for t in all_], req.is_completed())


def run_allreduce(rank, size):
    group = dist.new_group([0, 1])
    tensor = torch.ones(1)
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM, group=group)
    if rank == 0:
        print('Rank ', rank, ' has data ', tensor[0].item())


def run_collectives(rank, size):
    t = torch.tensor([rank + 1.0, 10.0 * rank])
    dist.broadcast(t, src=1)
    r = torch.tensor([rank + 2.0, rank + 3.0])
    dist.reduce(r, dst=0, op=dist.ReduceOp.PRODUCT)
    m = torch.tensor([3.0 - rank])
    dist.all_reduce(m, op=dist.ReduceOp.MAX)
    s = torch.zeros(2)
    parts = [torch.tensor([10.0, 11.0]), torch.tensor([20.0, 21.0])] if rank == 0 else None
    dist.scatter(s, scatter_list=parts, src=0)
    gathered = [torch.zeros(2) for _ in range(size)] if rank == 0 else None
    dist.gather(s * 2, gather_list=gathered, dst=0)
    everyone = [torch.zeros(1) for _ in range(size)]
    dist.all_gather(everyone, torch.tensor([rank + 0.5]))
    dist.barrier()
    if rank == 0:
        print('broadcast', t.tolist(), 'reduce', r.tolist(), 'max', m.item())
        print('scatter', s.tolist(), 'gather', [g.tolist() for g in gathered],
              'all_gather', [e.item() for e in everyone])


def allreduce(send, recv):
    rank = dist.get_rank()
    size = dist.get_world_size()
    send_buff = send.clone()
    recv_buff = send.clone()
    accum = send.clone()

    left = ((rank - 1) + size) % size
    right = (rank + 1) % size

    for i in range(size - 1):
        if i % 2 == 0:
            # Send send_buff
            send_req = dist.isend(send_buff, right)
            dist.recv(recv_buff, left)
            accum[:] += recv_buff[:]
        else:
            # Send recv_buff
            send_req = dist.isend(recv_buff, right)
            dist.recv(send_buff, left)
            accum[:] += send_buff[:]
        send_req.wait()
    recv[:] = accum[:]


def run_ring(rank, size):
    send = torch.tensor([rank + 1.0, 2.0 ** rank, -rank])
    recv = torch.zeros(3)
    allreduce(send, recv)
    if rank == 0:
        print('ring all-reduce', recv.tolist())


class Partition(object):

    def __init__(self, data, index):
        self.data = data
        self.index = index

    def __len__(self):
        return len(self.index)

    def __getitem__(self, index):
        data_idx = self.index[index]
        return self.data[data_idx]


class DataPartitioner(object):

    def __init__(self, data, sizes=[0.7, 0.2, 0.1], seed=1234):
        self.data = data
        self.partitions = []
        rng = Random()
        rng.seed(seed)
        data_len = len(data)
        indexes = [x for x in range(0, data_len)]
        rng.shuffle(indexes)

        for frac in sizes:
            part_len = int(frac * data_len)
            self.partitions.append(indexes[0:part_len])
            indexes = indexes[part_len:]

    def use(self, partition):
        return Partition(self.data, self.partitions[partition])


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x.view(-1, 64)))
        return F.log_softmax(self.fc2(x), dim=1)


def make_dataset(n):
    x = torch.linspace(-1, 1, n * 64).reshape(n, 1, 8, 8).cos()
    y = (torch.arange(n) * 7 + 3) % 10
    x[torch.arange(n), 0, y % 8, (y * 3) % 8] += 1.5
    return torch.utils.data.TensorDataset(x, y)


def partition_dataset():
    dataset = make_dataset(512)
    size = dist.get_world_size()
    bsz = int(128 / float(size))
    partition_sizes = [1.0 / size for _ in range(size)]
    partition = DataPartitioner(dataset, partition_sizes)
    partition = partition.use(dist.get_rank())
    train_set = torch.utils.data.DataLoader(partition,
                                            batch_size=bsz,
                                            shuffle=True)
    return train_set, bsz


def average_gradients(model):
    size = float(dist.get_world_size())
    for param in model.parameters():
        dist.all_reduce(param.grad.data, op=dist.ReduceOp.SUM)
        param.grad.data /= size


def run_sgd(rank, size):
    torch.manual_seed(1234)
    train_set, bsz = partition_dataset()
    model = Net()
    optimizer = optim.SGD(model.parameters(),
                          lr=0.01, momentum=0.5)

    num_batches = ceil(len(train_set.dataset) / float(bsz))
    for epoch in range(3):
        epoch_loss = 0.0
        for data, target in train_set:
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            epoch_loss += loss.item()
            loss.backward()
            average_gradients(model)
            optimizer.step()
        losses = [torch.zeros(1) for _ in range(size)]
        dist.all_gather(losses, torch.tensor([epoch_loss / num_batches]))
        if rank == 0:
            print('epoch ', epoch, ': ', ['{:.6f}'.format(l.item()) for l in losses])
    weights = [torch.zeros_like(model.fc2.weight) for _ in range(size)]
    dist.all_gather(weights, model.fc2.weight.detach())
    if rank == 0:
        print('the ranks hold one model:', torch.equal(weights[0], weights[1]))


def init_process(rank, size, fn, backend='gloo'):
    """ Initialize the distributed environment. """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    dist.init_process_group(backend, rank=rank, world_size=size)
    fn(rank, size)
    dist.destroy_process_group()


if __name__ == "__main__":
    size = 2
    mp.set_start_method("spawn")
    for run in (run_p2p, run_nonblocking, run_allreduce, run_collectives, run_ring, run_sgd):
        processes = []
        for rank in range(size):
            p = mp.Process(target=init_process, args=(rank, size, run))
            p.start()
            processes.append(p)

        for p in processes:
            p.join()
        if any(p.exitcode != 0 for p in processes):
            print(run.__name__, 'failed')
