# torch.kthvalue, written for cudash over a sort (so autograd
# differentiates it, the gradient going to the element picked: PyTorch's
# KthvalueBackward0 does the same through its indices).
import torch
import _cudash


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The k-th smallest element along `dim` and where it is."""
    ndim = input.dim()
    d = dim % ndim if ndim else 0
    if ndim and not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})"
        )
    n = input.shape[d] if ndim else 1
    if k < 1 or k > n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if ndim == 0:
        return _cudash.return_type("kthvalue", values=input.clone(), indices=torch.zeros((), dtype=torch.int64, device=input.device))
    values, indices = torch.sort(input, dim=d, stable=True)
    v = values.narrow(d, k - 1, 1)
    i = indices.narrow(d, k - 1, 1)
    if not keepdim:
        v = v.squeeze(d)
        i = i.squeeze(d)
    if out is not None:
        out[0].copy_(v)
        out[1].copy_(i)
        return _cudash.return_type("kthvalue", values=out[0], indices=out[1])
    return _cudash.return_type("kthvalue", values=v, indices=i)


# index_fill, index_copy and index_add, in place and not (as methods and
# torch's functions), over indexing and scatter_add_: the same values and
# gradients as PyTorch's, their nodes the parts' (`IndexPutBackward0`,
# `ScatterAddBackward0`) where PyTorch's are `IndexFillBackward0`, ...


def _check_index(name, index):
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {_type_name(index)}")


def _type_name(t):
    return {
        torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
        torch.bfloat16: "BFloat16", torch.bool: "Bool", torch.uint8: "Byte",
        torch.int8: "Char", torch.int16: "Short",
    }.get(t.dtype, str(t.dtype))


def _along(x, dim, index):
    # The index that picks `index` along `dim` and everything else.
    d = dim % x.dim() if x.dim() else 0
    parts = [slice(None)] * d
    parts.append(index.reshape(-1))
    return tuple(parts)


def _index_assign(name, input, dim, index, value):
    # `input`'s slices at `index` along `dim` set to `value` (a number, or
    # a tensor of those slices' shape), in place.
    _check_index(name, index)
    input[_along(input, dim, index)] = value
    return input


def index_fill_(input, dim, index, value):
    return _index_assign("index_fill_", input, dim, index, value)


def index_fill(input, dim, index, value):
    _check_index("index_fill", index)
    return _index_assign("index_fill", input.clone(), dim, index, value)


def index_copy_(input, dim, index, source):
    return _index_assign("index_copy_", input, dim, index, source)


def index_copy(input, dim, index, source):
    _check_index("index_copy", index)
    return _index_assign("index_copy", input.clone(), dim, index, source)


def _index_added(input, dim, index, source, alpha):
    # `input` with `source`'s slices added at `index` along `dim` (a
    # repeated index adds up), as one scatter_add.
    d = dim % input.dim() if input.dim() else 0
    shape = [1] * source.dim()
    if source.dim():
        shape[d] = -1
    idx = index.reshape(shape).expand(source.shape) if source.dim() else index.reshape(())
    src = source * alpha if alpha != 1 else source
    return input.scatter_add(d, idx, src)


def index_add_(input, dim, index, source, *, alpha=1):
    _check_index("index_add_", index)
    return input.copy_(_index_added(input, dim, index, source, alpha))


def index_add(input, dim, index, source, *, alpha=1):
    _check_index("index_add", index)
    return _index_added(input, dim, index, source, alpha)


def _index_put(name, input, indices, values, accumulate):
    # `input[indices] = values`, in place; with `accumulate`, every element
    # an index names gets the sum of what lands on it (a repeated index
    # adds up), as one index_add over the indexed dims flattened.
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, "
            f"not {type(indices).__name__}")
    if not isinstance(values, torch.Tensor):
        raise TypeError(
            f"{name}(): argument 'values' (position 2) must be Tensor, not "
            f"{type(values).__name__}")
    if values.dtype != input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{_dtype_name(input.dtype)} for the destination and "
            f"{_dtype_name(values.dtype)} for the source.")
    indices = tuple(indices)
    if not accumulate:
        input[indices] = values
        return input
    longs = []
    for i in indices:
        if i.dtype == torch.bool or i.dtype == torch.uint8:
            longs.extend(i.nonzero(as_tuple=True))
        else:
            longs.append(i)
    k = len(longs)
    if k > input.dim():
        raise IndexError(
            f"too many indices for tensor of dimension {input.dim()} (got {k})")
    longs = torch.broadcast_tensors(*longs)
    lead = list(input.shape[:k])
    rest = list(input.shape[k:])
    linear = torch.zeros(longs[0].shape, dtype=torch.long, device=input.device)
    for i, size in zip(longs, lead):
        linear = linear * size + i % size
    n = 1
    for size in lead:
        n *= size
    vals = values.expand(list(longs[0].shape) + rest).reshape([-1] + rest)
    added = input.reshape([n] + rest).index_add(0, linear.reshape(-1), vals)
    return input.copy_(added.reshape(input.shape))


def _dtype_name(dtype):
    return {
        torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
        torch.bfloat16: "BFloat16", torch.int64: "Long", torch.int32: "Int",
        torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool",
    }.get(dtype, str(dtype))


def index_put_(input, indices, values, accumulate=False):
    return _index_put("index_put_", input, indices, values, accumulate)


def index_put(input, indices, values, accumulate=False):
    return _index_put("index_put", input.clone(), indices, values, accumulate)
