# TensorFloat-32, as PyTorch's CUDA semantics notes show it: with
# `torch.backends.cuda.matmul.allow_tf32` on (or a float32 matmul precision
# below "highest"), an f32 product on an Ampere or later GPU rounds its
# operands to TF32 (10 bits of mantissa) and runs on tensor cores: a larger
# error against the exact product, in far less time. Written for cudash's
# tests; one GPU.
import torch

torch.manual_seed(0)
n = 256
a_full = torch.randn(n, n, dtype=torch.double, device="cuda")
b_full = torch.randn(n, n, dtype=torch.double, device="cuda")
ab_full = a_full @ b_full
mean = ab_full.abs().mean()
a, b = a_full.float(), b_full.float()


def timed(f):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    out = f()
    end.record()
    end.synchronize()
    return out, start.elapsed_time(end)


print(torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
ab_fp32 = a @ b
on_cpu = a.cpu() @ b.cpu()
big = torch.randn(1024, 1024, device="cuda")
_, t_fp32 = timed(lambda: big @ big)
torch.backends.cuda.matmul.allow_tf32 = True
ab_tf32 = a @ b
_, t_tf32 = timed(lambda: big @ big)
rel_fp32 = ((ab_fp32 - ab_full).abs().max() / mean).item()
rel_tf32 = ((ab_tf32 - ab_full).abs().max() / mean).item()
print("fp32 error below 1e-4:", rel_fp32 < 1e-4)
print("tf32 error between 1e-4 and 1e-2:", 1e-4 < rel_tf32 < 1e-2)
print("tf32 at least 3x faster:", t_tf32 * 3 < t_fp32)


# The operands rounded to TF32 by hand (to nearest, ties away, in f64):
# their exact product is the TF32 product but for f32 accumulation.
def tf32(x):
    x = x.double()
    ulp = torch.pow(2.0, torch.floor(torch.log2(x.abs())) - 10)
    return torch.sign(x) * torch.floor(x.abs() / ulp + 0.5) * ulp


by_hand = tf32(a) @ tf32(b)
print("tf32 is the rounded operands' product:",
      ((ab_tf32 - by_hand).abs().max() / mean).item() < rel_tf32 / 10)

torch.backends.cuda.matmul.allow_tf32 = False
print("off again:", torch.equal(a @ b, ab_fp32))
torch.set_float32_matmul_precision("high")
print(torch.backends.cuda.matmul.allow_tf32, torch.equal(a @ b, ab_tf32))
print("a CPU product ignores it:", torch.equal(a.cpu() @ b.cpu(), on_cpu))
torch.set_float32_matmul_precision("highest")
print(torch.backends.cuda.matmul.allow_tf32, torch.equal(a @ b, ab_fp32))
