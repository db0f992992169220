"""torch.testing, as cudash gives it (written for cudash, after PyTorch
2.15's `torch/testing/_comparison.py`): `assert_close` of tensors, Python
numbers, and lists, tuples and dicts of them, with PyTorch's tolerances
for each dtype (float32: rtol 1.3e-6, atol 1e-5), exact comparison of
integers and bools, and PyTorch's report of what differs: how many
elements, the greatest absolute and relative differences and where."""
import torch

_TOLERANCES = {
    "torch.float16": (1e-3, 1e-5),
    "torch.bfloat16": (1.6e-2, 1e-5),
    "torch.float32": (1.3e-6, 1e-5),
    "torch.float64": (1e-7, 1e-7),
}


def _tolerances(dtype, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.")
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(str(dtype), (0.0, 0.0))


def _fail(message, where):
    if where:
        message += f"\n\nThe failure occurred for item {''.join(f'[{k!r}]' for k in where)}"
    raise AssertionError(message)


def _index(flat, shape):
    out = []
    for n in reversed(list(shape)):
        out.append(flat % n)
        flat //= n
    return tuple(reversed(out))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, where):
    if actual.shape != expected.shape:
        _fail(msg or f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}.", where)
    if check_device and actual.device != expected.device:
        _fail(msg or f"The values for attribute 'device' do not match: {actual.device} != {expected.device}.", where)
    if check_dtype and actual.dtype != expected.dtype:
        _fail(msg or f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}.", where)
    rtol, atol = _tolerances(actual.dtype, rtol, atol)
    a = actual.detach().cpu()
    e = expected.detach().cpu()
    exact = not (a.is_floating_point() or e.is_floating_point())
    # The differences are computed in the inputs' dtype, as PyTorch's.
    if exact:
        a, e = a.to(torch.int64), e.to(torch.int64)
        close = a == e
    else:
        common = torch.promote_types(a.dtype, e.dtype)
        a, e = a.to(common), e.to(common)
        close = torch.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(close.all()):
        return
    if msg:
        _fail(msg, where)
    kind = "equal" if exact else "close"
    if a.dim() == 0:
        ea, ee = a.item(), e.item()
        diff = abs(ea - ee)
        rel = diff / abs(ee) if ee != 0 else float("inf")
        tail_a = "" if exact else f" (up to {atol} allowed)"
        tail_r = "" if exact else f" (up to {rtol} allowed)"
        _fail(f"Scalars are not {kind}!\n\nExpected {ee} but got {ea}.\n"
              f"Absolute difference: {diff}{tail_a}\nRelative difference: {rel}{tail_r}", where)
    total = close.numel()
    bad = total - int(close.sum())
    abs_diff = (a - e).abs().flatten()
    rel_diff = abs_diff / e.abs().flatten()
    max_abs, at_abs = abs_diff.max(0)
    max_rel, at_rel = rel_diff.max(0)
    tail_a = "" if exact else f" (up to {atol} allowed)"
    tail_r = "" if exact else f" (up to {rtol} allowed)"
    _fail(f"Tensor-likes are not {kind}!\n\n"
          f"Mismatched elements: {bad} / {total} ({100 * bad / total:.1f}%)\n"
          f"Greatest absolute difference: {max_abs.item()} at index {_index(int(at_abs), a.shape)}{tail_a}\n"
          f"Greatest relative difference: {max_rel.item()} at index {_index(int(at_rel), a.shape)}{tail_r}", where)


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, where):
    if isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor):
        return _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, where)
    numbers = (bool, int, float)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if isinstance(actual, float) or isinstance(expected, float):
            a, e = torch.tensor(float(actual), dtype=torch.float64), torch.tensor(float(expected), dtype=torch.float64)
        else:
            a, e = torch.tensor(int(actual)), torch.tensor(int(expected))
        return _compare_tensors(a, e, rtol, atol, equal_nan, False, False, msg, where)
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            _fail(msg or f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where)
        for k in range(len(actual)):
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_device, check_dtype, msg, where + [k])
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual.keys()) != set(expected.keys()):
            _fail(msg or f"The keys of the mappings do not match:\n{sorted(actual.keys())} != {sorted(expected.keys())}", where)
        for k in actual:
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_device, check_dtype, msg, where + [k])
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises AssertionError unless `actual` and `expected` are close:
    |actual - expected| <= atol + rtol * |expected| elementwise."""
    _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, [])
