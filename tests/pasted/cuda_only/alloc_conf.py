# PYTORCH_CUDA_ALLOC_CONF as programs set it: in os.environ before the
# first CUDA allocation, and torch.cuda.memory._set_allocator_settings
# at any time.
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:100"
import torch

# With a max split size, a 30 MiB request does not split the cached
# 300 MiB block: it gets a segment of its own.
a = torch.empty(300 * 2**20 // 4, device="cuda")
del a
b = torch.empty(30 * 2**20 // 4, device="cuda")
s = torch.cuda.memory_stats()
print(s["max_split_size"], s["segment.all.current"], s["reserved_bytes.all.current"] // 2**20)
print(s["oversize_segments.current"], s["inactive_split.all.current"])

# Rounded up to a quarter of the power of two: 1.2 MB takes 1.25 MiB.
torch.cuda.memory._set_allocator_settings("roundup_power2_divisions:4")
c = torch.empty(1_200_000 // 4, device="cuda")
print(torch.cuda.memory_stats()["allocated_bytes.all.current"] - 30 * 2**20)

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:200"
print(torch.cuda.memory_stats()["max_split_size"] // 2**20)
try:
    torch.cuda.memory._set_allocator_settings("max_split_size_mb:10")
except RuntimeError as e:
    print(e)
