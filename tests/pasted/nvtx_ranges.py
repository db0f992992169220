# NVTX annotations as profiling code writes them for Nsight Systems: with
# no tool attached (PyTorch without nsys, and cudash always) they do
# nothing and return NVTX's answers for that case.
import torch
import torch.nn as nn
from torch.cuda import nvtx

model = nn.Linear(4, 2)
x = torch.ones(3, 4)
print(torch.cuda.nvtx.range_push("forward"))
y = model(x)
print(torch.cuda.nvtx.range_pop())
with nvtx.range("backward {}", 1):
    y.sum().backward()
handle = nvtx.range_start("step")
print(handle, nvtx.range_end(handle), nvtx.mark("done"))
print(model.weight.grad.sum().item())
