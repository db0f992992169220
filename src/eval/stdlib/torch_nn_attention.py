"""PyTorch's `torch.nn.attention`: the `SDPBackend`s of
`scaled_dot_product_attention` and `sdpa_kernel(backends)`, a `with` block
that lets only those run and puts the enabled set back after. Which one
runs is cudash's `autograd/sdp.rs`, with PyTorch's rules (flash on the CPU
and on a GPU, memory-efficient on a GPU, the math path; cudash has no
cuDNN attention)."""
import contextlib
from enum import Enum

import _cudash


class SDPBackend(Enum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value


# The flag each backend is, as `torch.backends.cuda` names it.
_FLAG = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}

WARN_FOR_UNFUSED_KERNELS = False


def _cur_sdpa_kernel_backends(with_priority=False):
    return [b for b, flag in _FLAG.items() if _cudash.sdp_enabled(flag)]


def _sdpa_kernel(backends):
    for b, flag in _FLAG.items():
        _cudash.enable_sdp(flag, b in backends)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    assert isinstance(backends, (list, SDPBackend)), (
        "Backend must be an instance of SDPBackend or a list of SDPBackend instances"
    )
    if isinstance(backends, SDPBackend):
        backends = [backends]
    previous = _cur_sdpa_kernel_backends()
    try:
        _sdpa_kernel(set(backends))
        yield {}
    finally:
        _sdpa_kernel(set(previous))
