"""Still more of torch's functions, written for cudash with tensor ops (so
they run on every backend and autograd differentiates them through those
ops), each as PyTorch computes it: `heaviside`, `gcd`, `lcm`, `renorm`,
`can_cast`, `chain_matmul`, the window functions (`hann_window`,
`hamming_window`, `bartlett_window`, `blackman_window`: PyTorch's op
sequence, so the same float32 values), `torch.linalg.multi_dot` (PyTorch's
order of products), `matrix_norm`, `matrix_rank`, `cond`, and the tensor
methods `tile` and `fill_diagonal_`."""
import math
import warnings

import torch
import _cudash


def heaviside(input, values):
    """0 where `input` < 0, `values` where it is 0, 1 where it is > 0."""
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return torch.where(input == 0, values, (input > 0).to(input.dtype))


def _integral(name, *tensors):
    for t in tensors:
        if t.is_floating_point() or t.dtype == torch.bool:
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{_dtype_name(t.dtype)}\'')


def _dtype_name(dtype):
    return {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
            torch.bfloat16: "BFloat16", torch.bool: "Bool"}.get(dtype, str(dtype))


def gcd(input, other):
    """The greatest common divisor, element by element (never negative)."""
    _integral("gcd", input, other)
    a, b = torch.broadcast_tensors(input.abs(), other.abs())
    dtype = torch.promote_types(input.dtype, other.dtype)
    a, b = a.to(dtype), b.to(dtype)
    while bool((a != 0).any()):
        going = a != 0
        safe = torch.where(going, a, torch.ones_like(a))
        rest = torch.where(going, b % safe, torch.zeros_like(a))
        b = torch.where(going, a, b)
        a = rest
    return b


def lcm(input, other):
    """The least common multiple, element by element (0 where either is)."""
    _integral("lcm", input, other)
    g = gcd(input, other)
    safe = torch.where(g == 0, torch.ones_like(g), g)
    a, b = torch.broadcast_tensors(input, other)
    return torch.where(g == 0, torch.zeros_like(g), (torch.div(a, safe, rounding_mode="trunc") * b).abs())


def renorm(input, p, dim, maxnorm):
    """Each slice along `dim` whose p-norm passes `maxnorm` scaled down to it."""
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    dim = dim % input.dim()
    others = [d for d in range(input.dim()) if d != dim]
    norm = torch.linalg.vector_norm(input, p, dim=others, keepdim=True)
    factor = torch.where(norm > maxnorm, maxnorm / (norm + 1e-7), torch.ones_like(norm))
    return input * factor


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow `from_` to `to` in an op's
    output (no float to integer, no complex to real, nothing to bool)."""
    complex_types = (torch.complex64, torch.complex128) if hasattr(torch, "complex64") else ()
    if from_ in complex_types and to not in complex_types:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to in complex_types):
        return False
    if from_ != torch.bool and to == torch.bool:
        return False
    return True


def _window(window_length, periodic, dtype, device, requires_grad, name):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window length, got window_length={window_length}")
    dtype = dtype or torch.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length == 0:
        return torch.empty(0, dtype=dtype, device=device, requires_grad=requires_grad)
    if window_length == 1:
        return torch.ones(1, dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    """`alpha - beta * cos(2 pi n / (N - 1))`, PyTorch's op by op."""
    short = _window(window_length, periodic, dtype, device, requires_grad, "hamming_window")
    if short is not None:
        return short
    n = window_length + 1 if periodic else window_length
    window = torch.arange(n, dtype=dtype or torch.get_default_dtype(), device=device)
    window.mul_(math.pi * 2.0 / (n - 1)).cos_().mul_(-beta).add_(alpha)
    window = window.narrow(0, 0, n - 1) if periodic else window
    return window.requires_grad_(requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window: `hamming_window` with alpha = beta = 0.5."""
    if window_length > 1 or window_length < 0:
        return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device,
                              requires_grad=requires_grad)
    return _window(window_length, periodic, dtype, device, requires_grad, "hann_window")


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangular window, PyTorch's op by op."""
    short = _window(window_length, periodic, dtype, device, requires_grad, "bartlett_window")
    if short is not None:
        return short
    n = window_length + 1 if periodic else window_length
    window = torch.arange(n, dtype=dtype or torch.get_default_dtype(), device=device).mul_(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    window.narrow(0, half, n - half).mul_(-1).add_(2)
    window = window.narrow(0, 0, n - 1) if periodic else window
    return window.requires_grad_(requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """`0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))`,
    PyTorch's op by op."""
    short = _window(window_length, periodic, dtype, device, requires_grad, "blackman_window")
    if short is not None:
        return short
    n = window_length + 1 if periodic else window_length
    window = torch.arange(n, dtype=dtype or torch.get_default_dtype(), device=device).mul_(math.pi / (n - 1))
    window = window.mul(4).cos_().mul_(0.08) - window.mul(2).cos_().mul_(0.5) + 0.42
    window = window.narrow(0, 0, n - 1) if periodic else window
    return window.requires_grad_(requires_grad)


def multi_dot(tensors, *, out=None):
    """The product of matrices in PyTorch's order (the cheaper of the two
    for three, the matrix chain order for more); the first may be a row
    vector and the last a column vector."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first_1d = tensors[0].dim() == 1
    last_1d = tensors[-1].dim() == 1
    ms = list(tensors)
    if first_1d:
        ms[0] = ms[0].unsqueeze(0)
    if last_1d:
        ms[-1] = ms[-1].unsqueeze(-1)
    for k, m in enumerate(ms):
        if m.dim() != 2:
            which = "first" if k == 0 else "last" if k == n - 1 else None
            if which:
                raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {tensors[k].dim()}D")
            raise RuntimeError(f"multi_dot(): tensor {k} must be 2D but got {m.dim()}D")
    if n == 2:
        result = ms[0].mm(ms[1])
    elif n == 3:
        a, b = ms[0].shape[0], ms[1].shape[0]
        c, d = ms[2].shape[0], ms[2].shape[1]
        cost_1 = (a * c) * (b + d)
        cost_2 = (b * d) * (a + c)
        if cost_1 > cost_2:
            result = ms[0].mm(ms[1].mm(ms[2]))
        else:
            result = ms[0].mm(ms[1]).mm(ms[2])
    else:
        p = [m.shape[0] for m in ms] + [ms[-1].shape[1]]
        cost = [[0] * n for _ in range(n)]
        split = [[0] * n for _ in range(n)]
        for length in range(1, n):
            for i in range(n - length):
                j = i + length
                cost[i][j] = None
                for k in range(i, j):
                    q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                    if cost[i][j] is None or q < cost[i][j]:
                        cost[i][j] = q
                        split[i][j] = k

        def chain(i, j):
            if i == j:
                return ms[i]
            k = split[i][j]
            return chain(i, k).mm(chain(k + 1, j))

        result = chain(0, n - 1)
    if first_1d and last_1d:
        return result.view(())
    if first_1d:
        return result.squeeze(0)
    if last_1d:
        return result.squeeze(-1)
    return result


def chain_matmul(*matrices, out=None):
    """Deprecated in PyTorch for `torch.linalg.multi_dot`, which it is."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
                  "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
                  "than multiple parameters.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The Frobenius, nuclear, 1, inf, 2 (and negative) norms of matrices."""
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = dim[0] % A.dim(), dim[1] % A.dim()
    if ord == "fro":
        return torch.linalg.vector_norm(A, 2, dim=(d0, d1), keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        moved = A.movedim((d0, d1), (-2, -1))
        s = torch.linalg.svdvals(moved)
        out = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            out = out.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0, d1))
        return out
    if ord in (1, -1, math.inf, -math.inf):
        summed, reduced = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = torch.linalg.vector_norm(A, 1, dim=summed, keepdim=True)
        out = sums.amax(reduced, keepdim=True) if ord > 0 else sums.amin(reduced, keepdim=True)
        if not keepdim:
            out = out.squeeze(max(d0, d1)).squeeze(min(d0, d1))
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """How many singular values pass max(atol, rtol * the largest)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    s = torch.linalg.eigvalsh(A).abs() if hermitian else torch.linalg.svdvals(A)
    if atol is None and rtol is None:
        rtol = torch.finfo(s.dtype).eps * max(A.shape[-2], A.shape[-1])
        atol = 0.0
    atol = 0.0 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    limit = torch.clamp(s.amax(-1, keepdim=True) * rtol, min=atol) if s.numel() else s
    return (s > limit).sum(-1)


def cond(A, p=None, *, out=None):
    """The condition number: by singular values for p = None, 2, -2; else
    `matrix_norm(A, p) * matrix_norm(inv(A), p)`."""
    if p is None or p in (2, -2):
        s = torch.linalg.svdvals(A)
        if p == -2:
            return s[..., -1] / s[..., 0]
        return s[..., 0] / s[..., -1]
    return matrix_norm(A, p) * matrix_norm(torch.linalg.inv(A), p)


def slogdet(A, *, out=None):
    """`torch.linalg.slogdet`: `torch.slogdet`'s sign and log of the
    absolute determinant, as its own named tuple (`linalg_slogdet`)."""
    r = torch.slogdet(A)
    return _cudash.return_type("linalg_slogdet", sign=r.sign, logabsdet=r.logabsdet)


# ---- tensor methods -------------------------------------------------------


def tile(input, dims):
    """`input` repeated `dims` times along each dimension (dims padded with
    ones in front to the tensor's)."""
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return input.repeat(dims)


def fill_diagonal_(input, fill_value, wrap=False):
    """The main diagonal filled in place (for a tall matrix with `wrap`,
    restarting every `cols + 1` rows, as PyTorch's)."""
    nd = input.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = input.shape[0], input.shape[1]
    if nd > 2 and any(s != height for s in input.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    size = min(height, width)
    stride = sum(input.stride())
    offset = input.storage_offset()
    input.as_strided((size,), (stride,), offset).fill_(fill_value)
    if wrap and nd == 2 and height > width + 1:
        step = width + 1
        wrap_size = ((input.numel() + step - 1) // step) - size
        input.as_strided((wrap_size,), (stride,), size * stride + offset).fill_(fill_value)
    return input


def _split_along(name, input, indices_or_sections, dim, least):
    if input.dim() < least:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor "
            f"with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections != 0:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
    return torch.tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """`tensor_split` along the columns (the only dimension of a vector)."""
    return _split_along("hsplit", input, indices_or_sections, 0 if input.dim() == 1 else 1, 1)


def vsplit(input, indices_or_sections):
    """`tensor_split` along the rows."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """`tensor_split` along the third dimension."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def signbit(input):
    """Whether each element's sign bit is set (`-0.0` included)."""
    if input.dtype == torch.bool:
        return torch.zeros_like(input)
    if not input.is_floating_point():
        return input < 0
    # A zero's sign shows in its reciprocal (-0.0 gives -inf).
    return (input < 0) | ((input == 0) & ((1 / input) < 0))


def copysign(input, other):
    """`input`'s magnitude with `other`'s sign, as a float."""
    if not torch.is_tensor(other):
        other = torch.tensor(other, device=input.device)
    magnitude = input.abs()
    if not magnitude.is_floating_point():
        magnitude = magnitude.to(torch.get_default_dtype())
    return torch.where(signbit(other), -magnitude, magnitude)


def pdist(input, p=2):
    """The p-norm distance of each pair of rows `i < j`, in row order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    i, j = torch.triu_indices(n, n, offset=1, device=input.device)
    return (input[i] - input[j]).norm(p=p, dim=1)


def apply_(self, callable):
    """Each element replaced by `callable(element)`, in place (a CPU
    tensor's only, as PyTorch's)."""
    if self.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(
            "Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
    values = [callable(v) for v in self.flatten().tolist()]
    self.copy_(torch.tensor(values, dtype=self.dtype).view(self.shape))
    return self


def _float_of(input):
    if not isinstance(input, torch.Tensor):
        input = torch.tensor(input)
    return input if input.is_floating_point() else input.to(torch.get_default_dtype())


def _in_double(fn, input):
    # fn over a float32/16 tensor in float64, rounded once (so within an
    # ulp of the C library's function, as PyTorch's kernels call it).
    x = _float_of(input)
    if x.dtype == torch.float64:
        return fn(x)
    return fn(x.double()).to(x.dtype)


def _atanh(x):
    return 0.5 * (torch.log1p(x) - torch.log1p(-x))


def _asinh(x):
    a = x.abs()
    return torch.sign(x) * torch.log1p(a + a * a / (1 + torch.sqrt(1 + a * a)))


def _acosh(x):
    return torch.log(x + torch.sqrt((x - 1) * (x + 1)))


def atanh(input):
    """The inverse hyperbolic tangent, `(log1p(x) - log1p(-x)) / 2` (nan
    outside [-1, 1], +-inf at +-1)."""
    return _in_double(_atanh, input)


def asinh(input):
    """The inverse hyperbolic sine, `sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`
    (no cancellation near 0)."""
    return _in_double(_asinh, input)


def acosh(input):
    """The inverse hyperbolic cosine, `log(x + sqrt(x^2 - 1))` (nan below 1)."""
    return _in_double(_acosh, input)


arctanh = atanh
arcsinh = asinh
arccosh = acosh


def ldexp(input, other):
    """`input * 2 ** other`, as PyTorch composes it."""
    return torch.mul(input, torch.pow(2.0, other))


def _slice(t, dim, start, stop=None):
    n = t.shape[dim]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return t.narrow(dim, start, stop - start)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Each dim's derivative estimated by central differences inside and
    one-sided differences of `edge_order` at the ends, over unit, scalar
    or coordinate spacing: a tuple of tensors, as PyTorch's."""
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [d + input.dim() if d < 0 else d for d in dims]
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1")
    if not input.is_floating_point():
        input = input.to(torch.get_default_dtype())
    if isinstance(spacing, (int, float)):
        spacing = [spacing] * len(dims)
    elif isinstance(spacing, torch.Tensor) and spacing.dim() == 0:
        spacing = [spacing.item()] * len(dims)
    else:
        spacing = list(spacing)
        if len(spacing) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                f"and a dim argument of length {len(dims)}.")
    result = []
    for d, h in zip(dims, spacing):
        if isinstance(h, torch.Tensor) and h.dim() == 1:
            result.append(_gradient_coordinates(input, d, h, edge_order))
            continue
        center = (_slice(input, d, 2) - _slice(input, d, 0, -2)) / h
        if edge_order == 1:
            prepend = (_slice(input, d, 1, 2) - _slice(input, d, 0, 1)) / h
            append = (_slice(input, d, -1) - _slice(input, d, -2, -1)) / h
        else:
            prepend = (-1.5 * _slice(input, d, 0, 1) + 2 * _slice(input, d, 1, 2) - 0.5 * _slice(input, d, 2, 3)) / h
            append = (0.5 * _slice(input, d, -3, -2) - 2 * _slice(input, d, -2, -1) + 1.5 * _slice(input, d, -1)) / h
        result.append(torch.cat([prepend, center / 2, append], d))
    return tuple(result)


def _gradient_coordinates(input, d, coordinates, edge_order):
    shape = [1] * input.dim()
    shape[d] = -1
    dx = coordinates.diff(1, 0)
    dx1 = dx[:-1]
    dx2 = dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _slice(input, d, 0, -2) + b * _slice(input, d, 1, -1) + c * _slice(input, d, 2)
    if edge_order == 1:
        prepend = (_slice(input, d, 1, 2) - _slice(input, d, 0, 1)) / dx[0]
        append = (_slice(input, d, -1) - _slice(input, d, -2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
        prepend = a * _slice(input, d, 0, 1) + b * _slice(input, d, 1, 2) + c * _slice(input, d, 2, 3)
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        append = a * _slice(input, d, -3, -2) + b * _slice(input, d, -2, -1) + c * _slice(input, d, -1)
    return torch.cat([prepend, center, append], d)
