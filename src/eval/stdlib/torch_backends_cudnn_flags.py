"""PyTorch's `torch.backends.cudnn.flags(...)`: a `with` block that sets
cuDNN's flags (each to the value given or to the function's own default,
as PyTorch's does) and puts them back after. cudash's convolutions are its
own kernels, not cuDNN's, so the flags change nothing but what they read
back as (docs/python-programs.md)."""
import torch
from contextlib import contextmanager


@contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    cudnn = torch.backends.cudnn
    before = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
    cudnn.enabled = enabled
    cudnn.benchmark = benchmark
    cudnn.deterministic = deterministic
    cudnn.allow_tf32 = allow_tf32
    try:
        yield
    finally:
        cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = before
