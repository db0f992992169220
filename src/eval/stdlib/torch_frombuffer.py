"""torch.frombuffer: a 1-D CPU tensor of the bytes read as `dtype`'s
elements (little-endian), as PyTorch's. PyTorch shares the buffer's
memory; bytes cannot change, so cudash copies them, and warns as PyTorch
does of a buffer that is not writable."""
import torch
import _cudash
import warnings

_CODES = {
    torch.uint8: "B", torch.int8: "b", torch.bool: "?", torch.int16: "h", torch.int32: "i",
    torch.int64: "q", torch.float16: "e", torch.bfloat16: "E", torch.float32: "f", torch.float64: "d",
}
_warned = []


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    if dtype not in _CODES:
        raise TypeError(f"frombuffer: cudash has no {dtype} elements to read")
    if isinstance(buffer, bytes) and not _warned:
        _warned.append(True)
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
            "This means you can write to the underlying (supposedly non-writable) buffer using the "
            "tensor. You may want to copy the buffer to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest of this program.",
            UserWarning,
        )
    t = _cudash.frombuffer(buffer, _CODES[dtype], False, count, offset)
    if requires_grad:
        t.requires_grad_()
    return t
