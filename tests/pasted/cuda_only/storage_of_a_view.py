# A small slice keeps its base's whole allocation: the slice's storage is
# the base's 4 MiB until a clone gives it 16 KiB of its own (as PyTorch's
# caching allocator counts it).
import torch
x = torch.randn(1024, 1024, device="cuda")
head = x[:4]
del x
print(torch.cuda.memory_allocated(), head.untyped_storage().nbytes(), head.untyped_storage().device)
head = head.clone()
print(torch.cuda.memory_allocated(), head.untyped_storage().nbytes())
s = torch.ones(2, device="cuda").untyped_storage()
print(s.tolist(), s.is_cuda, s.data_ptr() % 512)
