"""PyTorch's `torch.backends.cuda` switches for the kernels of
`scaled_dot_product_attention` (`enable_flash_sdp(False)`,
`flash_sdp_enabled()`, ...) and its deprecated `sdp_kernel(...)` block.
They are process-wide, as PyTorch's, and hold for the CPU too (its flash
kernel)."""
import contextlib
import warnings

import _cudash
from torch.nn.attention import SDPBackend, sdpa_kernel


def enable_flash_sdp(enabled):
    _cudash.enable_sdp("flash", enabled)


def flash_sdp_enabled():
    return _cudash.sdp_enabled("flash")


def enable_mem_efficient_sdp(enabled):
    _cudash.enable_sdp("mem_efficient", enabled)


def mem_efficient_sdp_enabled():
    return _cudash.sdp_enabled("mem_efficient")


def enable_math_sdp(enabled):
    _cudash.enable_sdp("math", enabled)


def math_sdp_enabled():
    return _cudash.sdp_enabled("math")


def enable_cudnn_sdp(enabled):
    _cudash.enable_sdp("cudnn", enabled)


def cudnn_sdp_enabled():
    return _cudash.sdp_enabled("cudnn")


def is_flash_attention_available():
    return True


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
        "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
        "manager, with updated signature.",
        FutureWarning,
        stacklevel=2,
    )
    backends = []
    if enable_flash:
        backends.append(SDPBackend.FLASH_ATTENTION)
    if enable_mem_efficient:
        backends.append(SDPBackend.EFFICIENT_ATTENTION)
    if enable_math:
        backends.append(SDPBackend.MATH)
    if enable_cudnn:
        backends.append(SDPBackend.CUDNN_ATTENTION)
    with sdpa_kernel(backends) as context:
        yield context
