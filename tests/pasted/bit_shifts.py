"""Shifts, as hashing and quantization code writes them: `<<` and `>>` on
Python's ints and on integer tensors of every width (PyTorch's counts out
of range, the sign kept by `>>`), the functions and methods, `<<=` in
place, precedence between `+` and `&`, and the errors."""
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

print(1 << 10, -8 >> 1, True << 2, 5 >> 10, -5 >> 100, 3 << 0)
print(2 + 3 << 1, 1 << 2 & 7, 6 & 3 << 1, 1 | 2 << 1, 1 << 2 ** 3)
for bad in (lambda: 1 << -1, lambda: 1.0 << 2):
    try:
        print(bad())
    except (ValueError, TypeError) as e:
        print(type(e).__name__)

x = torch.tensor([1, -8, 5, 127], dtype=torch.int8, device=device)
print((x << 1).tolist(), (x >> 1).tolist(), (x << 9).tolist(), (x >> 9).tolist(), (x >> -1).tolist())
print((x << torch.tensor([0, 1, 7, 8], dtype=torch.int8, device=device)).tolist(), (x << 1).dtype)
u = torch.tensor([1, 200, 255], dtype=torch.uint8, device=device)
print((u << 1).tolist(), (u >> 3).tolist(), (u >> 8).tolist(), (u << 8).tolist())
for dt in (torch.int16, torch.int32, torch.int64):
    i = torch.tensor([1, -1, 3, -100], dtype=dt, device=device)
    bits = torch.iinfo(dt).bits
    print(dt, (i << (bits - 2)).tolist(), (i << (bits - 1)).tolist(), (i >> bits).tolist(), (i >> 2).tolist())
i = torch.tensor([1, -1, 3], device=device)
print(torch.bitwise_left_shift(i, 2).tolist(), i.bitwise_right_shift(1).tolist(), (1 << i).tolist(), (16 >> i).tolist())
print((torch.tensor([1, 2], dtype=torch.int32, device=device) << torch.tensor([1, 2], device=device)).dtype)
print((torch.tensor([True, False], device=device) << 1).tolist())
y = torch.tensor([3, 4], device=device)
y <<= 2
print(y.tolist())
y >>= 1
print(y.tolist())
y.bitwise_left_shift_(1)
print(y.tolist(), y._version)
y.bitwise_xor_(5)
print(y.tolist())

# A hash of token pairs, as n-gram code packs two ids into one integer.
a = torch.arange(6, device=device)
b = torch.arange(6, device=device).flip(0)
print(((a << 16) | b).tolist(), (((a << 16) | b) >> 16).tolist(), (((a << 16) | b) & 0xFFFF).tolist())

for bad in (lambda: torch.tensor([1.0]) << 1, lambda: torch.tensor([2]) >> 1.5):
    try:
        print(bad())
    except NotImplementedError:
        print("NotImplementedError")
