# The tensor tutorials' small integer dtypes, bitwise functions and linear
# algebra (introyt1's and tensors_deeper's), as PyTorch's programs use them.
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

# int8 and int16: their names, sizes, ranges and wrapping arithmetic.
i = torch.ones((5, 3), dtype=torch.int16, device=device)
print(i.dtype, i.element_size(), i.tolist()[0], i.type().replace(".cuda", ""))
print(torch.short, torch.int16 == torch.short, torch.iinfo(torch.int8), torch.iinfo(torch.int16).max)
a = torch.tensor([100, -100, 127, -128], dtype=torch.int8, device=device)
print((a * 2).tolist(), (a + 1).tolist(), (-a).tolist(), a.abs().tolist())
print((a // 3).tolist(), (a % 3).tolist(), (a / 4).tolist(), (a / 4).dtype)
print(a.sum().item(), a.sum().dtype, a.prod().dtype, a.cumsum(0).tolist(), a.max().item(), a.min().item())
print(a.sort().values.tolist(), a.argsort().tolist(), a.float().mean().item())
s = torch.tensor([300, -200, 40000], device=device)
print(s.to(torch.int8).tolist(), s.to(torch.int16).tolist(), s.char().tolist(), s.short().dtype)
print(torch.tensor([1.75, -2.5, 100.9], device=device).to(torch.int8).tolist())
print(torch.arange(5, dtype=torch.int16, device=device).tolist(), torch.full((2,), 7, dtype=torch.int8, device=device).tolist())

# promotion: uint8 and int8 meet in int16; a float scalar gives float32
u = torch.tensor([200, 10], dtype=torch.uint8, device=device)
print((u + a[:2]).dtype, (u + a[:2]).tolist(), (a + 1.5).dtype, (i + u[:1]).dtype)
print(torch.promote_types(torch.uint8, torch.int8), torch.promote_types(torch.int8, torch.int16), torch.promote_types(torch.int16, torch.float16))
print(torch.result_type(a, 1), torch.result_type(a, 1.0), torch.where(a > 0, 1.0, -1.0).dtype)

# bitwise functions
b = torch.tensor([1, 5, 11], device=device)
c = torch.tensor([2, 7, 10], device=device)
print(torch.bitwise_xor(b, c).tolist(), torch.bitwise_and(b, 3).tolist(), b.bitwise_or(c).tolist())
print(torch.bitwise_xor(torch.tensor([True, False]), torch.tensor([True, True])).tolist(), (a & 15).tolist())

# fmod: the remainder with the dividend's sign, and its gradients
print(torch.fmod(torch.tensor([-7, 7], device=device), 3).tolist(), torch.fmod(torch.tensor([-7.5, 7.5], device=device), 2).tolist(), torch.fmod(a, 3).tolist())
xs = torch.tensor([5., -5., 7.5], device=device, requires_grad=True)
ys = torch.tensor([3., 3., -2.], device=device, requires_grad=True)
r = torch.fmod(xs, ys)
r.sum().backward()
print(r.tolist(), r.grad_fn.name(), xs.fmod(2).grad_fn.name(), xs.grad.tolist(), ys.grad.tolist())

# the determinant, the cross product, matmul under linalg
d = torch.tensor([[4., 7.], [2., 6.]], device=device)
print(round(torch.det(d).item(), 4), round(torch.linalg.det(d).item(), 4))
m3 = torch.tensor([[2., -1., 0.], [-1., 2., -1.], [0., -1., 2.]], device=device, dtype=torch.float64)
print(torch.det(m3).item(), torch.det(torch.tensor([[1., 2.], [2., 4.]])).item())
batch = torch.arange(1., 19., device=device).view(2, 3, 3) ** 0.5
print([round(x, 5) for x in torch.linalg.det(batch).tolist()])
v1 = torch.tensor([1., 0., 0.], device=device)
v2 = torch.tensor([0., 1., 0.], device=device)
print(torch.linalg.cross(v2, v1).tolist(), torch.cross(v1, v2, dim=0).tolist())
print(torch.linalg.matmul(d, d).tolist(), round(d.det().item(), 4), v1.cross(v2, dim=0).tolist())

# the singular value decomposition (its values; the vectors' signs are the
# method's, so only what does not depend on them is printed)
m = torch.tensor([[3., 1.], [1., 3.]], device=device) * torch.tensor([[1., 2.], [3., 4.]], device=device)
U, S, Vh = torch.linalg.svd(m)
print([round(x, 4) for x in S.tolist()], torch.allclose(U @ torch.diag(S) @ Vh, m, atol=1e-5))
print(torch.allclose(U.T @ U, torch.eye(2, device=device), atol=1e-6), U.shape, Vh.shape)
r = torch.linspace(-1, 1, 12, device=device).view(4, 3)
U, S, V = torch.svd(r)
print([round(x, 4) for x in S.tolist()], U.shape, V.shape, torch.allclose(U @ torch.diag(S) @ V.T, r, atol=1e-5))
U, S, Vh = torch.linalg.svd(r)
print(U.shape, torch.allclose(U.T @ U, torch.eye(4, device=device), atol=1e-5))
print([round(x, 4) for x in torch.linalg.svdvals(r.T).tolist()])

# `out=` of a factory
z = torch.zeros(2, 2, device=device)
old = id(z)
torch.rand(2, 2, out=z)
print(id(z) == old, z.shape)

# a program's own names that cudash's dtype words share
i8 = 3
for u8 in range(2):
    i8 += u8
f32 = torch.tensor([i8], dtype=torch.int8, device=device)
print(i8, f32.dtype, f32.is_signed(), f32.sum(axis=0, keepdims=True).tolist())
def f16(x):
    return x * 2
class bf16:
    pass
print(f16(3), bf16.__name__)

# numbers past an integer dtype's range: bounds that bound nothing,
# negative integers wrapping into uint8, and PyTorch's overflow errors
q = torch.ones(3, dtype=torch.int8, device=device)
m = torch.tensor([True, False, True], device=device)
w = torch.ones(3, dtype=torch.uint8, device=device)
print(q.clamp(max=1000).tolist(), q.clamp(min=-300).tolist(), w.clamp(max=300).tolist(), torch.where(m, w, -1).tolist())
print(w.masked_fill(m, -1).tolist(), torch.full((2,), -1, dtype=torch.uint8).tolist(), torch.tensor([-1], dtype=torch.uint8).tolist())
for bad in [lambda: torch.where(m, q, 300), lambda: q.masked_fill(m, 300), lambda: w.masked_fill(m, -256)]:
    try:
        bad()
    except RuntimeError as err:
        print(err)
