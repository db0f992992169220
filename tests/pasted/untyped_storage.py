# A tensor's storage as memory-teaching programs read it: x.untyped_storage()
# (its bytes, size, address and device), the whole allocation a view keeps.
import torch
x = torch.tensor([1.0, 2.0])
s = x[1:].untyped_storage()
print(repr(s)); print(str(s)); print(s.nbytes(), s.size(), len(s), s.element_size(), s.device, s.is_cuda, s.tolist(), s[4], type(s).__name__)
print(s.data_ptr() == x.data_ptr(), x[1:].data_ptr() - s.data_ptr())
e = torch.empty(0).untyped_storage(); print(repr(e))
print(torch.ones(3, dtype=torch.int64).untyped_storage().nbytes(), torch.ones(3).itemsize, torch.ones(2, dtype=torch.float16).untyped_storage().tolist())
big = torch.zeros(1000, 1000)
small = big[:2]
print(small.untyped_storage().nbytes(), small.clone().untyped_storage().nbytes(), small.nbytes)
t = torch.arange(6).view(2, 3).t()
print(t.untyped_storage().nbytes(), t.is_contiguous(), t.contiguous().untyped_storage().data_ptr() != t.untyped_storage().data_ptr())
