# Older programs' names for the allocator's figures (PyTorch still has
# them, with a FutureWarning), and memory_stats() as nested dicts.
import torch

x = torch.ones(1000, device="cuda")
print(torch.cuda.memory_cached() == torch.cuda.memory_reserved())
print(torch.cuda.max_memory_cached() == torch.cuda.max_memory_reserved())
torch.cuda.reset_max_memory_cached()
torch.cuda.reset_max_memory_allocated()
nested = torch.cuda.memory_stats_as_nested_dict()
print(nested["allocated_bytes"]["all"]["current"], nested["max_split_size"])
print(nested["segment"]["small_pool"] == {"allocated": 1, "current": 1, "freed": 0, "peak": 1})
