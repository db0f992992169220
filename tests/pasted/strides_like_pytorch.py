"""Strides as PyTorch lays them out, over random layouts: permuted,
channels-last, sliced and row-major tensors with dimensions of size 1,
each with a broadcast, a permuted or a plain second operand. The strides
of an elementwise result (`a * 2 + b`, `b + a`, `where`, `exp`), of
`clone`, `empty_like` and `.double()`, and the values, against
PyTorch's TensorIterator and preserve_format (src/runtime/memory_format.rs)."""
import torch
import random
import math
random.seed(5)
out = []
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
for case in range(200):
    nd = random.randint(2, 4)
    shape = [random.choice([1, 1, 2, 3, 4]) for _ in range(nd)]
    base = torch.arange(1.0, 1.0 + math.prod(shape)).reshape(shape).to(device)
    perm = list(range(nd))
    random.shuffle(perm)
    a = base.permute(perm)
    k = random.randint(0, 5)
    if k == 0:
        a = a.contiguous()
    elif k == 1 and a.dim() == 4:
        a = a.contiguous(memory_format=torch.channels_last)
    elif k == 2:
        d = random.randrange(a.dim())
        if a.shape[d] > 1:
            a = a.narrow(d, 0, a.shape[d] - 1)
    bshape = list(a.shape)
    kind = random.randint(0, 3)
    if kind == 0:
        b = torch.ones(bshape, device=device).permute(list(range(len(bshape)))[::-1]).contiguous().permute(list(range(len(bshape)))[::-1])
    elif kind == 1:
        b = torch.ones(bshape[-1:], device=device)
    elif kind == 2:
        bs = [s if random.random() < 0.5 else 1 for s in bshape]
        b = torch.ones(bs, device=device)
    else:
        p2 = list(range(len(bshape)))
        random.shuffle(p2)
        b = torch.ones([bshape[i] for i in p2], device=device).permute([p2.index(i) for i in range(len(bshape))])
    r1 = a * 2 + b
    r2 = b + a
    r3 = torch.where(a > 3, a, b)
    r4 = a.clone()
    r5 = torch.empty_like(a)
    r6 = a.double()
    r7 = a.exp()
    print(case, tuple(a.shape), a.stride(), b.stride(), r1.stride(), r2.stride(), r3.stride(), r4.stride(), r5.stride(), r6.stride(), r7.stride(), round(r1.sum().item(), 3), round(r3.sum().item(), 3), r1.flatten().tolist()[:3])
