# PyTorch's "Tensor Views" page and the strided-layout idioms around it:
# views share their base's storage (`storage().data_ptr()`), an in-place
# change through a view shows in the base, `as_strided` makes overlapping
# windows without a copy, and its gradient adds up where windows overlap.
import torch

t = torch.rand(4, 4)
b = t.view(2, 8)
print(t.storage().data_ptr() == b.storage().data_ptr())  # `t` and `b` share the same underlying data.
# Modifying view tensor changes base tensor as well.
b[0][0] = 3.14
print(t[0][0])

base = torch.tensor([[0, 1], [2, 3]])
print(base.is_contiguous())
t = base.transpose(0, 1)  # `t` is a view of `base`. No data movement happened here.
# View tensors might be non-contiguous.
print(t.is_contiguous())
# To get a contiguous tensor, call `.contiguous()` to enforce
# copying data when `t` is not contiguous.
c = t.contiguous()
print(c.is_contiguous(), c.storage().data_ptr() == base.storage().data_ptr())

# The storage behind a view is the whole allocation.
x = torch.arange(12.0).reshape(3, 4)
row = x[1]
s = row.storage()
print(len(s), s.size(), s.dtype, s.element_size(), s.nbytes(), row.storage_offset())
print(s[5], s.tolist()[:6])
print(torch.arange(4, dtype=torch.int16).storage())
print(x.stride(), x.t().stride(), x[:, 1].stride(), x[:, 1].storage_offset())

# Sliding windows with as_strided: no copy, overlapping rows.
signal = torch.arange(8.0)
windows = signal.as_strided((6, 3), (1, 1))
print(windows)
print(windows.storage().data_ptr() == signal.storage().data_ptr(), windows.is_contiguous())
print(torch.as_strided(signal, (2, 2), (4, 1), 2))
print(torch.as_strided(x, x.size(), x.stride()).equal(x))
print(x[1:].as_strided((2, 2), (1, 4)), x[1:].as_strided((2, 2), (1, 4), 0))
try:
    signal.as_strided((3, 4), (3, 1))
except RuntimeError as e:
    print("RuntimeError:", e)

# Gradients flow back through the windows, adding up where they overlap.
w = torch.linspace(-1.0, 1.0, 6, requires_grad=True)
win = w.as_strided((4, 3), (1, 1))
print(win.grad_fn.name())
(win * torch.arange(3.0)).sum().backward()
print(w.grad)
