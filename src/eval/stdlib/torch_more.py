"""More of torch's functions, written for cudash with tensor ops (so they
run on every backend and autograd differentiates them through those ops):
`diff`, `rot90`, `fliplr`, `flipud`, `tensordot`, `inner`, `addr`,
`matrix_power`, `cartesian_prod`, `combinations`, `take_along_dim`,
`take`, `tensor_split`, `atleast_1d/2d/3d`, `moveaxis`, `block_diag`,
`triu_indices`, `tril_indices`, `searchsorted`, `bucketize`, `isin`,
`bincount`, `histc`, `unique_consecutive`, `aminmax`, `nansum`, `nanmean`,
`quantile`, `nanquantile`, `cov`, `corrcoef`, `vander`, `trapezoid`,
`cumulative_trapezoid`, `logcumsumexp`, `logaddexp`, `logit`, `xlogy`,
`hypot`, `true_divide`, `float_power`, `deg2rad`, `rad2deg`, `sgn`,
`msort`, `slogdet`, `logdet`.

Their values are PyTorch's (to rounding where PyTorch's kernel adds in
another order). Where PyTorch composes the function from other ops too
(`diff`, `rot90`, `tensordot`, `cartesian_prod`, `take_along_dim`,
`nanmean`, `quantile`, `cov`, `corrcoef`, `vander`, `trapezoid`,
`matrix_power`, `tensor_split`, `atleast_2d`), the graph holds the nodes
PyTorch's does; where PyTorch has a node of its own (`NansumBackward0`,
`LogaddexpBackward0`, `LogitBackward0`, `XlogyBackward0`,
`HypotBackward0`, `AddrBackward0`, `TakeBackward0`, `BlockDiagBackward0`,
`LogcumsumexpBackward0`, `SlogdetBackward0`), cudash's graph holds the ops
it computes with, and each is launched as its own kernel."""
import math
import torch
import _cudash


def _dims(n, ndim):
    return n % ndim if ndim else 0


# ---- shapes and views ----------------------------------------------------


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dims(dim, input.dim())

    def edge(p):
        # A number or 0-d tensor as one slice of input's shape along dim.
        if isinstance(p, torch.Tensor) and p.dim():
            return p
        return torch.as_tensor(p, device=input.device).expand(*input.shape[:d], 1, *input.shape[d + 1:])

    parts = [edge(p) for p in (prepend,) if p is not None] + [input]
    parts += [edge(p) for p in (append,) if p is not None]
    x = torch.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        after = x.narrow(d, 1, size - 1)
        before = x.narrow(d, 0, size - 1)
        x = torch.logical_xor(after, before) if x.dtype == torch.bool else after - before
    return x


def rot90(input, k=1, dims=(0, 1)):
    """`input` turned k quarter turns in the plane of `dims` (from the
    first dim toward the second)."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = dims[0] % input.dim(), dims[1] % input.dim()
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = k % 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def fliplr(input):
    """`input` mirrored left to right (dim 1)."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """`input` mirrored up to down (dim 0)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def moveaxis(input, source, destination):
    """`movedim`'s NumPy name."""
    return input.movedim(source, destination)


def _atleast(k, tensors):
    def one(t):
        while t.dim() < k:
            if k == 3 and t.dim() == 2:
                t = t.unsqueeze(-1)
            elif k == 3 and t.dim() == 1:
                t = t.unsqueeze(0).unsqueeze(-1)
            else:
                t = t.unsqueeze(0)
        return t
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(one(t) for t in tensors[0])
    if len(tensors) == 1:
        return one(tensors[0])
    return tuple(one(t) for t in tensors)


def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one as [1])."""
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dims (new ones in front)."""
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dims (a matrix [m, n] as [m, n, 1])."""
    return _atleast(3, tensors)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of `input` split along `dim`: into n parts as even as can be
    (the first ones one longer), or at the given indices."""
    if input.dim() == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _dims(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, torch.Tensor) and indices_or_sections.dim() == 0:
        indices_or_sections = indices_or_sections.item()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds = []
        at = 0
        for i in range(n):
            step = base + (1 if i < extra else 0)
            bounds.append((at, at + step))
            at += step
    else:
        idx = list(indices_or_sections.tolist() if isinstance(indices_or_sections, torch.Tensor)
                   else indices_or_sections)
        bounds = []
        at = 0
        for i in idx + [size]:
            end = max(min(i, size), at) if i >= 0 else max(min(size + i, size), at)
            start = min(at, size)
            bounds.append((start, end))
            at = end
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)


def block_diag(*tensors):
    """The tensors (each 0-, 1- or 2-d) on the diagonal of one matrix,
    zeros elsewhere."""
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                f"Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return torch.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = torch.promote_types(dtype, m.dtype)
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out = torch.zeros(rows, cols, dtype=dtype, device=mats[0].device)
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r += m.shape[0]
        c += m.shape[1]
    return out


def _tri_indices(row, col, offset, upper, dtype, device):
    r = torch.arange(row, device=device).unsqueeze(1)
    c = torch.arange(col, device=device).unsqueeze(0)
    keep = (c - r >= offset) if upper else (c - r <= offset)
    return torch.stack(keep.nonzero(as_tuple=True)).to(dtype)


def triu_indices(row, col, offset=0, *, dtype=torch.long, device="cpu", layout=None):
    """The [2, n] row and column indices of the upper triangle of a
    row x col matrix (from diagonal `offset`), row by row."""
    return _tri_indices(row, col, offset, True, dtype, device)


def tril_indices(row, col, offset=0, *, dtype=torch.long, device="cpu", layout=None):
    """The [2, n] row and column indices of the lower triangle."""
    return _tri_indices(row, col, offset, False, dtype, device)


# ---- products ------------------------------------------------------------


def tensordot(a, b, dims=2, out=None):
    """The sum of products over `a`'s last and `b`'s first `dims` dims (or
    the dims listed for each), as a matrix product of the two reshaped."""
    if isinstance(dims, torch.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    da = [d % a.dim() for d in da]
    db = [d % b.dim() for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                f"and second has size {b.shape[y]} in dim {y}")
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    size = 1
    for d in da:
        size *= a.shape[d]
    left = 1
    for d in free_a:
        left *= a.shape[d]
    right = 1
    for d in free_b:
        right *= b.shape[d]
    am = a.permute(free_a + da).reshape(left, size)
    bm = b.permute(db + free_b).reshape(size, right)
    result = am.mm(bm).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])
    if out is not None:
        out.copy_(result)
        return out
    return result


def inner(input, other, *, out=None):
    """The sum of products over the last dim of each (a number times a
    tensor where one is 0-d)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]), out=out)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * outer(vec1, vec2)`."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(
            f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1 else
            f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    product = torch.outer(vec1, vec2)
    if alpha != 1:
        product = alpha * product
    result = product if beta == 0 else (input + product if beta == 1 else beta * input + product)
    if beta == 0 and result.shape != torch.broadcast_shapes(input.shape, result.shape):
        result = result.expand(torch.broadcast_shapes(input.shape, result.shape))
    if out is not None:
        out.copy_(result)
        return out
    return result


def matrix_power(input, n, *, out=None):
    """The matrix (or each of a batch) to the integer power n, by repeated
    squaring as PyTorch multiplies; n = 0 the identity, n < 0 the inverse's
    power."""
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{input.shape[-2] if input.dim() >= 2 else 1} by {input.shape[-1]} matrices")
    if n == 0:
        # The identity copied into a clone, so that it is in the graph (with
        # a zero gradient), as PyTorch's.
        eye = torch.eye(input.shape[-1], dtype=input.dtype, device=input.device)
        result = input.clone().copy_(eye.expand(input.shape))
    else:
        a = torch.linalg.inv(input) if n < 0 else input
        n = abs(n)
        if n == 1:
            result = a.clone()
        elif n == 2:
            result = a.matmul(a)
        elif n == 3:
            result = a.matmul(a).matmul(a)
        else:
            result = None
            z = None
            while n > 0:
                z = a if z is None else z.matmul(z)
                if n & 1:
                    result = z if result is None else result.matmul(z)
                n >>= 1
    if out is not None:
        out.copy_(result)
        return out
    return result


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-d tensor, [n, k] (one
    tensor: itself)."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(
                f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(*tensors, indexing="ij")
    return torch.stack([g.flatten() for g in grids], dim=1)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-d tensor's elements, in order, as
    rows [n, r] (each element with itself too where `with_replacement`)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return torch.empty(0, dtype=input.dtype, device=input.device)
    n = input.shape[0]
    rows = []

    def walk(start, picked):
        if len(picked) == r:
            rows.append(list(picked))
            return
        for i in range(start, n):
            walk(i if with_replacement else i + 1, picked + [i])

    walk(0, [])
    if not rows:
        return torch.empty(0, r, dtype=input.dtype, device=input.device)
    idx = torch.tensor(rows, device=input.device)
    return input[idx]


def take_along_dim(input, indices, dim=None, *, out=None):
    """`input`'s elements at `indices` along `dim` (the two broadcast but
    along `dim`), or of the flattened input when `dim` is None."""
    if dim is None:
        result = input.reshape(-1).gather(0, indices.reshape(-1))
    else:
        d = _dims(dim, input.dim())
        shape_i = list(input.shape)
        shape_x = list(indices.shape)
        shape_i[d] = 1
        shape_x[d] = 1
        b = list(torch.broadcast_shapes(shape_i, shape_x))
        bi = list(b)
        bi[d] = input.shape[d]
        bx = list(b)
        bx[d] = indices.shape[d]
        result = input.expand(bi).gather(d, indices.expand(bx))
    if out is not None:
        out.copy_(result)
        return out
    return result


def take(input, index):
    """`input`'s elements at `index` of it flattened, in `index`'s shape."""
    n = input.numel()
    flat = index.reshape(-1)
    if flat.numel() and (bool((flat >= n).any()) or bool((flat < -n).any())):
        bad = flat[(flat >= n) | (flat < -n)][0].item()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return input.reshape(-1)[flat % n if n else flat].reshape(index.shape)


# ---- searching and counting (no gradients) -------------------------------


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """For each value, where it would go in the sorted last dim of
    `sorted_sequence` to keep it sorted: the first place (or past the last
    equal element with `right=True` / `side="right"`). NaN sorts last."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                "side and right can't be set to opposites, got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = seq.gather(-1, sorter)
    scalar = not isinstance(input, torch.Tensor)
    values = torch.as_tensor(input, device=seq.device) if scalar else input
    if seq.dim() > 1 and list(seq.shape[:-1]) != list(values.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}")
    with torch.no_grad():
        s = seq.unsqueeze(-2) if seq.dim() > 1 else seq
        v = values.unsqueeze(-1)
        # As PyTorch's binary search compares: NaN sorts after every number.
        if right:
            before = (s > v).logical_not()
        else:
            before = (s >= v).logical_not()
        result = before.sum(-1)
        result = result.to(torch.int32 if out_int32 else torch.int64)
    if out is not None:
        out.copy_(result)
        return out
    return result


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Which bucket of the 1-d sorted `boundaries` each value falls in
    (`searchsorted(boundaries, input)`)."""
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element is one of `test_elements` (a bool tensor in
    `elements`' shape)."""
    e = elements if isinstance(elements, torch.Tensor) else torch.as_tensor(elements)
    t = test_elements if isinstance(test_elements, torch.Tensor) else torch.as_tensor(
        test_elements, device=e.device)
    with torch.no_grad():
        found = (e.unsqueeze(-1) == t.reshape(-1)).any(-1)
    return found.logical_not() if invert else found


def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in a 1-d tensor of
    non-negative ints (the weights summed instead: in float32 for float32
    weights, else in float64, as PyTorch's kernel)."""
    if input.is_floating_point():
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{_type_word(input.dtype)}'")
    if input.dim() != 1 or (input.numel() and int(input.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = max(int(input.max()) + 1 if input.numel() else 0, minlength)
    with torch.no_grad():
        if weights is None:
            return _count(input.long(), n)
        # PyTorch's kernel: float32 weights sum in float32, any others in float64.
        dtype = torch.float32 if weights.dtype == torch.float32 else torch.float64
        sums = torch.zeros(n, dtype=torch.float64, device=input.device)
        return sums.index_add(0, input.long(), weights.to(torch.float64)).to(dtype)


def _count(places, n):
    # How many of `places` (int64) are each of 0..n-1, added in float64
    # (exact to 2**53) as cudash adds into floats only.
    ones = torch.ones(places.shape, dtype=torch.float64, device=places.device)
    zeros = torch.zeros(n, dtype=torch.float64, device=places.device)
    return zeros.index_add(0, places, ones).long()


def _type_word(dtype):
    return {
        torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
        torch.bfloat16: "BFloat16", torch.int64: "Long", torch.int32: "Int",
        torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool",
    }.get(dtype, str(dtype))


def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of `bins` equal bins from `min` to `max` (the data's own
    range when both are 0); values outside are not counted, `max` falls in
    the last bin."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{_type_word(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    with torch.no_grad():
        x = input.reshape(-1)
        lo, hi = float(min), float(max)
        if lo == hi and x.numel():
            lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        if lo > hi:
            raise RuntimeError(
                f"torch.histc(): max must be larger than min, but got min {lo} max {hi}")
        keep = (x >= lo) & (x <= hi)
        x = x[keep]
        pos = ((x - lo) * bins / (hi - lo)).floor().long().clamp(0, bins - 1)
        result = _count(pos, bins).to(input.dtype)
    if out is not None:
        out.copy_(result)
        return out
    return result


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The tensor with each run of equal consecutive elements kept once
    (flattened unless `dim`), with each element's run and each run's
    length when asked."""
    if dim is not None:
        d = _dims(dim, input.dim())
        x = input.movedim(d, 0)
        n = x.shape[0]
        if n == 0:
            starts = torch.zeros(0, dtype=torch.bool, device=input.device)
        else:
            flat = x.reshape(n, -1)
            change = (flat[1:] != flat[:-1]).any(1)
            starts = torch.cat([torch.ones(1, dtype=torch.bool, device=input.device), change])
        values = x[starts].movedim(0, d)
    else:
        x = input.reshape(-1)
        n = x.shape[0]
        if n == 0:
            starts = torch.zeros(0, dtype=torch.bool, device=input.device)
        else:
            starts = torch.cat([torch.ones(1, dtype=torch.bool, device=input.device), x[1:] != x[:-1]])
        values = x[starts]
    runs = starts.long().cumsum(0) - 1
    result = [values]
    if return_inverse:
        result.append(runs.reshape(input.shape) if dim is None else runs)
    if return_counts:
        result.append(_count(runs, int(starts.sum())))
    return result[0] if len(result) == 1 else tuple(result)


def aminmax(input, *, dim=None, keepdim=False):
    """The smallest and largest element (along `dim`), as PyTorch's named
    tuple (min, max)."""
    if dim is None:
        if keepdim:
            mn = input.amin(dim=list(range(input.dim())), keepdim=True)
            mx = input.amax(dim=list(range(input.dim())), keepdim=True)
        else:
            mn, mx = input.amin(), input.amax()
    else:
        mn, mx = input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim)
    return _cudash.return_type("aminmax", min=mn, max=mx)


def _cumulative_extreme(name, input, dim, better):
    # The running maximum (minimum) along `dim` and where it was: a NaN
    # stays once met, a tie moves to the later place, as PyTorch's kernel
    # compares. The places are found without the graph; the values are
    # `gather`ed at them, so the gradient goes to each one's place.
    d = _dims(dim, input.dim())
    if input.dim() == 0:
        idx = torch.zeros((), dtype=torch.long, device=input.device)
        return _cudash.return_type(name, values=input.clone(), indices=idx)
    n = input.shape[d]
    with torch.no_grad():
        best = None
        places = []
        for i in range(n):
            x = input.select(d, i)
            here = torch.full(x.shape, i, dtype=torch.long, device=input.device)
            if best is None:
                best, at = x, here
            else:
                take = x.isnan() | (best.isnan().logical_not() & better(x, best))
                best = torch.where(take, x, best)
                at = torch.where(take, here, at)
            places.append(at)
        indices = torch.stack(places, d) if n else torch.zeros(input.shape, dtype=torch.long, device=input.device)
    values = input.gather(d, indices)
    return _cudash.return_type(name, values=values, indices=indices)


def cummax(input, dim):
    """The running maximum along `dim` and the place of each (PyTorch's
    named tuple `(values, indices)`)."""
    return _cumulative_extreme("cummax", input, dim, lambda x, best: x >= best)


def cummin(input, dim):
    """The running minimum along `dim` and the place of each."""
    return _cumulative_extreme("cummin", input, dim, lambda x, best: x <= best)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along `dim` (the smallest of those tied)
    and the last place it occurs, as PyTorch's named tuple."""
    d = _dims(dim, input.dim())
    x = input.movedim(d, -1) if input.dim() else input.reshape(1)
    rows = x.detach().reshape(-1, x.shape[-1]).tolist() if x.numel() else []
    picks = []
    for row in rows:
        counts = {}
        for v in row:
            counts[v] = counts.get(v, 0) + 1
        top = max(counts.values())
        value = min(v for v, c in counts.items() if c == top)
        picks.append(max(k for k, v in enumerate(row) if v == value))
    with torch.no_grad():
        idx = torch.tensor(picks, dtype=torch.long, device=input.device).reshape(x.shape[:-1] + (1,))
    values = x.gather(-1, idx)
    if keepdim and input.dim():
        values, idx = values.movedim(-1, d), idx.movedim(-1, d)
    else:
        values, idx = values.squeeze(-1), idx.squeeze(-1)
    return _cudash.return_type("mode", values=values, indices=idx)


def msort(input):
    """`input` sorted along dim 0 (`torch.sort(input, 0).values`)."""
    return torch.sort(input, 0).values


# ---- reductions with NaN, statistics ---------------------------------------


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum, NaNs counted as zero."""
    x = input if not input.is_floating_point() else torch.where(
        input.isnan(), torch.zeros_like(input), input)
    if dim is None:
        return x.sum(dtype=dtype) if dtype is not None else x.sum()
    return x.sum(dim, keepdim=keepdim, dtype=dtype) if dtype is not None else x.sum(dim, keepdim=keepdim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN."""
    if not input.is_floating_point():
        raise RuntimeError(
            "nanmean(): expected input to have floating point dtype but got "
            f"{_type_word(input.dtype)}")
    count = input.isnan().logical_not()
    if dim is None:
        return nansum(input, dtype=dtype) / count.sum()
    return nansum(input, dim, keepdim, dtype=dtype) / count.sum(dim, keepdim=keepdim)


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
            f"Got {interpolation}")
    if not input.is_floating_point():
        raise RuntimeError(
            f"{name}() input tensor must be either float or double dtype")
    scalar_q = not isinstance(q, torch.Tensor)
    qt = torch.as_tensor(q, dtype=input.dtype, device=input.device)
    if qt.dim() > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if bool(((qt < 0) | (qt > 1)).any()):
        if qt.dim() == 0:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = _dims(dim, input.dim())
        x = input
    sorted_x = x.sort(d).values.movedim(d, -1)
    n = sorted_x.shape[-1]
    if ignore_nan:
        valid = sorted_x.isnan().logical_not().sum(-1, keepdim=True)
    else:
        valid = torch.full(sorted_x.shape[:-1] + (1,), n, device=input.device)
    last = (valid - 1).clamp(min=0).to(input.dtype)
    qs = qt.reshape(-1)
    outs = []
    for k in range(qs.numel()):
        rank = qs[k] * last
        if interpolation == "lower":
            rank = rank.floor()
        elif interpolation == "higher":
            rank = rank.ceil()
        elif interpolation == "nearest":
            rank = rank.round()
        below = rank.floor().long().clamp(0, n - 1)
        above = rank.ceil().long().clamp(0, n - 1)
        lo = sorted_x.gather(-1, below)
        hi = sorted_x.gather(-1, above)
        if interpolation == "midpoint":
            weight = torch.where(above > below, torch.full_like(rank, 0.5), torch.zeros_like(rank))
        else:
            weight = rank - below.to(input.dtype)
        value = torch.lerp(lo, hi, weight)
        if not ignore_nan:
            has_nan = sorted_x.isnan().any(-1, keepdim=True)
            value = torch.where(has_nan, torch.full_like(value, float("nan")), value)
        else:
            value = torch.where(valid == 0, torch.full_like(value, float("nan")), value)
        outs.append(value)
    result = torch.stack(outs, 0).squeeze(-1)
    if dim is not None and keepdim:
        result = result.unsqueeze(d + 1)
    elif dim is None and keepdim:
        result = result.reshape([qs.numel()] + [1] * input.dim())
    if scalar_q or qt.dim() == 0:
        result = result.squeeze(0)
    return result


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The q-th quantiles (q in [0, 1], a number or 1-d tensor) over all
    elements or along `dim`, between the sorted values as `interpolation`
    says; a NaN makes its quantile NaN."""
    result = _quantile("quantile", input, q, dim, keepdim, interpolation, False)
    if out is not None:
        out.copy_(result)
        return out
    return result


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """`quantile` over the values that are not NaN."""
    result = _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)
    if out is not None:
        out.copy_(result)
        return out
    return result


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in `input`'s rows (their
    observations in the columns), weighted by frequency and importance
    when given."""
    if input.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.is_floating_point():
        x = x.to(torch.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = torch.tensor(n, dtype=x.dtype, device=x.device)
        norm_factor = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm_factor = w_sum
        elif aweights is None:
            norm_factor = w_sum - correction
        else:
            norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    norm_factor = torch.where(norm_factor <= 0, torch.zeros_like(norm_factor), norm_factor) \
        if isinstance(norm_factor, torch.Tensor) else norm_factor
    x = x - avg.unsqueeze(1)
    xw = x if w is None else x * w
    c = torch.mm(xw, x.t())
    return (c / norm_factor).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in `input`'s
    rows, clamped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-d x: columns x^(N-1), ..., x^0 (the
    other way with `increasing`)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.is_floating_point() else torch.long
    result = torch.ones(x.shape[0], n, dtype=dtype, device=x.device)
    if n > 1:
        # The powers written into the columns after the first (CopySlices).
        result[:, 1:] = x.unsqueeze(1).to(dtype).expand(-1, n - 1).cumprod(1)
    return result if increasing else result.flip(1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of y along `dim` by the trapezoidal rule, with sample
    points `x` or spacing `dx` (1)."""
    d = _dims(dim, y.dim())
    n = y.shape[d]
    if x is not None and not isinstance(x, torch.Tensor):
        dx, x = x, None
    if n == 0:
        return y.sum(d) * 0
    left = y.narrow(d, 0, n - 1)
    right = y.narrow(d, 1, n - 1)
    if x is None:
        step = 1 if dx is None else dx
        return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * step
    if x.dim() == 1:
        spacing = x.diff()
        shape = [1] * y.dim()
        shape[d] = n - 1
        spacing = spacing.reshape(shape)
    else:
        spacing = diff(x, dim=d)
    return ((left + right) * spacing).sum(d) / 2


def trapz(y, x=None, *, dx=None, dim=-1):
    """`trapezoid`'s older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """`trapezoid` accumulated: the integral up to each sample point."""
    d = _dims(dim, y.dim())
    n = y.shape[d]
    if x is not None and not isinstance(x, torch.Tensor):
        dx, x = x, None
    left = y.narrow(d, 0, max(n - 1, 0))
    right = y.narrow(d, 1, max(n - 1, 0)) if n else left
    if x is None:
        step = 1 if dx is None else dx
        return ((left + right) * step / 2).cumsum(d)
    spacing = x.diff() if x.dim() == 1 else diff(x, dim=d)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[d] = n - 1
        spacing = spacing.reshape(shape)
    return ((left + right) * spacing / 2).cumsum(d)


def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along `dim`: each place `logaddexp` of the
    one before and its element, as PyTorch's kernel accumulates (so it
    neither overflows nor underflows); one step a place along `dim`."""
    d = _dims(dim, input.dim())
    if input.dim() == 0:
        return input.clone()
    n = input.shape[d]
    if n == 0:
        return input.clone()
    outs = [input.select(d, 0)]
    for i in range(1, n):
        outs.append(logaddexp(outs[-1], input.select(d, i)))
    return torch.stack(outs, d)


# ---- elementwise ---------------------------------------------------------


def logaddexp(input, other):
    """log(exp(input) + exp(other)), without overflow."""
    m = torch.maximum(input, other)
    same_inf = input.isinf() & (input == other)
    tail = (-(input - other).abs()).exp().log1p()
    return torch.where(same_inf, input, m + tail)


def logit(input, eps=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when `eps` is given."""
    p = input if eps is None else input.clamp(eps, 1 - eps)
    return (p / (1 - p)).log()


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (NaN where other is NaN)."""
    x = input if isinstance(input, torch.Tensor) else torch.as_tensor(input, device=other.device)
    y = other if isinstance(other, torch.Tensor) else torch.as_tensor(other, device=x.device)
    if not x.is_floating_point() and not y.is_floating_point():
        x = x.to(torch.get_default_dtype())
    product = x * y.log()
    zero = (x == 0) & y.isnan().logical_not()
    return torch.where(zero, torch.zeros_like(product), product)


def hypot(input, other):
    """sqrt(input ** 2 + other ** 2)."""
    return (input * input + other * other).sqrt()


def true_divide(input, other):
    """`torch.div`'s older name (true division)."""
    return torch.div(input, other)


def float_power(input, exponent):
    """`input ** exponent` in float64."""
    x = input.to(torch.float64) if isinstance(input, torch.Tensor) else input
    e = exponent.to(torch.float64) if isinstance(exponent, torch.Tensor) else exponent
    if not isinstance(x, torch.Tensor):
        return torch.pow(float(x), e)
    return torch.pow(x, e)


def deg2rad(input):
    """Degrees as radians."""
    return input * (math.pi / 180)


def rad2deg(input):
    """Radians as degrees."""
    return input * (180 / math.pi)


def sgn(input):
    """The sign of each element (for real numbers, `sign`)."""
    return input.sign()


# ---- factorizations -------------------------------------------------------


def cholesky(A, *, upper=False, out=None):
    """The lower triangular L with L L^T = A for each symmetric positive
    definite matrix of A (L^T with `upper`), column by column as LAPACK's
    unblocked `potrf` computes it."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.cholesky: A must be batches of square matrices, but they are "
            f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1]} matrices")
    if not A.is_floating_point():
        raise RuntimeError(
            f"linalg.cholesky: Expected a floating point or complex tensor as input. Got {_type_word(A.dtype)}")
    n = A.shape[-1]
    cols = []
    for j in range(n):
        s = A[..., j:, j]
        if j:
            prev = torch.stack(cols, -1)
            s = s - (prev[..., j:, :] * prev[..., j:j + 1, :]).sum(-1)
        d = s[..., 0]
        bad = (d <= 0) | d.isnan()
        if bool(bad.any()):
            where = ""
            if A.dim() > 2:
                k = int(bad.reshape(-1).nonzero()[0, 0])
                where = f"(Batch element {k}): "
            raise RuntimeError(
                f"linalg.cholesky: {where}The factorization could not be completed because the input is "
                f"not positive-definite (the leading minor of order {j + 1} is not positive-definite).")
        pivot = d.sqrt().unsqueeze(-1)
        below = s[..., 1:] / pivot
        zeros = torch.zeros(A.shape[:-2] + (j,), dtype=A.dtype, device=A.device)
        cols.append(torch.cat([zeros, pivot, below], -1))
    L = torch.stack(cols, -1)
    result = L.mT if upper else L
    if out is not None:
        out.copy_(result)
        return out
    return result


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (X A = B when not `left`) for triangular A, by
    substitution row by row."""
    if not left:
        return solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
    n = A.shape[-1]
    if A.shape[-2] != n or B.shape[-2] != n:
        raise RuntimeError(
            f"linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B "
            f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    batch = tuple(torch.broadcast_shapes(A.shape[:-2], B.shape[:-2]))
    A = A.expand(batch + tuple(A.shape[-2:]))
    B = B.expand(batch + tuple(B.shape[-2:]))
    rows = [None] * n
    order = range(n - 1, -1, -1) if upper else range(n)
    done = []
    for i in order:
        r = B[..., i, :]
        for k in done:
            r = r - A[..., i, k:k + 1] * rows[k]
        rows[i] = r if unitriangular else r / A[..., i, i:i + 1]
        done.append(i)
    result = torch.stack(rows, -2)
    if out is not None:
        out.copy_(result)
        return out
    return result


def qr(A, mode="reduced", *, out=None):
    """A = QR by Householder reflections, as LAPACK's `geqrf`/`orgqr`
    (each reflector's sign makes R's diagonal the negative of the
    column's sign), as PyTorch's named tuple (Q, R); `mode` "reduced",
    "complete" or "r" (Q empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.qr: The input tensor A must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    R = A.clone()
    reflectors = []
    for j in range(k):
        x = R[..., j:, j]
        alpha = x[..., 0]
        rest = (x[..., 1:] * x[..., 1:]).sum(-1)
        norm = (alpha * alpha + rest).sqrt()
        beta = torch.where(alpha >= 0, -norm, norm)
        trivial = rest == 0
        safe_beta = torch.where(trivial, torch.ones_like(beta), beta)
        tau = torch.where(trivial, torch.zeros_like(beta), (beta - alpha) / safe_beta)
        scale = torch.where(trivial, torch.zeros_like(beta), 1 / (alpha - safe_beta))
        v = torch.cat([torch.ones_like(alpha).unsqueeze(-1), x[..., 1:] * scale.unsqueeze(-1)], -1)
        block = R[..., j:, j:]
        w = (v.unsqueeze(-1) * block).sum(-2)
        block = block - tau.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w.unsqueeze(-2)
        top = torch.where(trivial, alpha, beta)
        column = torch.cat([top.unsqueeze(-1), torch.zeros_like(x[..., 1:])], -1)
        block = torch.cat([column.unsqueeze(-1), block[..., :, 1:]], -1)
        R = torch.cat([R[..., :j, :], torch.cat([R[..., j:, :j], block], -1)], -2)
        reflectors.append((v, tau))
    cols = m if mode == "complete" else k
    R_out = R if mode == "complete" else R[..., :k, :]
    if mode == "r":
        return _cudash.return_type("linalg_qr", Q=torch.empty(0, dtype=A.dtype, device=A.device), R=R_out.triu())
    Q = torch.eye(m, cols, dtype=A.dtype, device=A.device).expand(A.shape[:-2] + (m, cols))
    for j in range(k - 1, -1, -1):
        v, tau = reflectors[j]
        block = Q[..., j:, :]
        w = (v.unsqueeze(-1) * block).sum(-2)
        block = block - tau.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w.unsqueeze(-2)
        Q = torch.cat([Q[..., :j, :], block], -2)
    return _cudash.return_type("linalg_qr", Q=Q, R=R_out.triu())


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse, from the singular value
    decomposition: singular values at or below max(atol, rtol * the
    largest) count as zero (rtol defaults to eps * max(m, n))."""
    m, n = A.shape[-2], A.shape[-1]
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else torch.finfo(A.dtype).eps * max(m, n)
    cutoff = S.amax(-1, keepdim=True) * rtol
    if atol is not None:
        cutoff = cutoff.clamp(min=atol)
    keep = S > cutoff
    S_inv = torch.where(keep, 1 / torch.where(keep, S, torch.ones_like(S)), torch.zeros_like(S))
    result = (Vh.mT * S_inv.unsqueeze(-2)) @ U.mT
    if out is not None:
        out.copy_(result)
        return out
    return result


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution X of A X = B (the minimum-norm one where
    A has not full rank), as PyTorch's named tuple with its CPU driver
    `gelsy`'s fields: `rank`, and `residuals` and `singular_values` empty."""
    vector = B.dim() == A.dim() - 1
    b = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != b.shape[-2]:
        raise RuntimeError(
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    solution = pinv(A, rtol=rcond) @ b
    S = torch.linalg.svdvals(A)
    tol = (rcond if rcond is not None else torch.finfo(A.dtype).eps * max(A.shape[-2], A.shape[-1]))
    rank = (S > S.amax(-1, keepdim=True) * tol).sum(-1)
    empty = torch.empty(0, dtype=A.dtype, device=A.device)
    return _cudash.return_type(
        "linalg_lstsq", solution=solution.squeeze(-1) if vector else solution,
        residuals=empty, rank=rank, singular_values=empty)


# ---- determinants ----------------------------------------------------------


def slogdet(A):
    """The sign and the log of the absolute value of the determinant, as
    PyTorch's named tuple (sign, logabsdet)."""
    d = torch.linalg.det(A)
    return _cudash.return_type("slogdet", sign=d.sign(), logabsdet=d.abs().log())


def logdet(A):
    """The log of the determinant (NaN for a negative one)."""
    d = torch.linalg.det(A)
    return torch.where(d < 0, torch.full_like(d, float("nan")), d.log())


# ---- torch.nn.functional ---------------------------------------------------


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution of `logits` at
    temperature `tau`: softmax((logits + g) / tau) with g Gumbel noise
    (minus the log of an exponential draw), as PyTorch's; with `hard`, the
    one-hot of its largest element, with the soft sample's gradient (the
    straight-through estimator)."""
    if eps != 1e-10:
        _cudash.warn("UserWarning: `eps` parameter is deprecated and has no effect.")
    gumbels = -torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---- torch.nn.init -----------------------------------------------------------


def eye_(tensor):
    """Fills a 2-d tensor with the identity (in place, not recorded)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with torch.no_grad():
        tensor.copy_(torch.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor, groups=1):
    """Fills a convolution's weight (3-, 4- or 5-d) with the Dirac delta:
    each output channel passes its input channel through (per group)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    min_dim = min(per_group, sizes[1])
    with torch.no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills a 2-d tensor from N(0, std) with a `sparsity` share of each
    column's rows zeroed, as PyTorch draws them (normal_, then a randperm
    per column)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with torch.no_grad():
        tensor.normal_(0, std)
        for col in range(cols):
            row_indices = torch.randperm(rows)
            tensor[row_indices[:num_zeros], col] = 0
    return tensor


# ---- scatter_reduce and index_reduce ---------------------------------------

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_places(self, dim, index):
    # Where each element of `index` (row-major) sends its value in `self`
    # flattened, and which elements of a tensor of index's shape it reads.
    d = _dims(dim, self.dim())
    strides = [1] * self.dim()
    for a in range(self.dim() - 2, -1, -1):
        strides[a] = strides[a + 1] * self.shape[a + 1]
    target = index.long() * strides[d] if self.dim() else index.long()
    for a in range(index.dim()):
        if a == d:
            continue
        shape = [1] * index.dim()
        shape[a] = index.shape[a]
        pos = torch.arange(index.shape[a], device=index.device).reshape(shape)
        target = target + pos * strides[a]
    return target.reshape(-1)


def _src_part(src, index):
    # The part of `src` that `index` covers (its leading corner), flattened.
    part = src
    for a in range(index.dim()):
        part = part.narrow(a, 0, index.shape[a])
    return part.reshape(-1)


def _reduced(self, dim, index, src, reduce, include_self):
    # The forward, without the graph: each target's reduction over the
    # values sent to it, in the order index lists them (and self's first,
    # with `include_self`).
    with torch.no_grad():
        out = self.detach().clone().reshape(-1)
        if index.numel() == 0:
            return out.reshape(self.shape), torch.zeros_like(out, dtype=torch.bool).reshape(self.shape)
        targets = _scatter_places(self, dim, index)
        values = _src_part(src.detach(), index)
        hit = torch.zeros(out.shape, dtype=torch.bool, device=out.device)
        hit[targets] = True
        if reduce in ("sum", "mean"):
            if not include_self:
                out[hit] = 0
            out = out.index_add(0, targets, values.to(out.dtype)) if out.is_floating_point() else \
                out.to(torch.float64).index_add(0, targets, values.to(torch.float64)).to(out.dtype)
            if reduce == "mean":
                count = _count(targets, out.numel()).to(out.dtype if out.is_floating_point() else torch.float64)
                if include_self:
                    count = count + 1
                count = count.clamp(min=1)
                out = out / count if out.is_floating_point() else out // count.long()
        else:
            # One step per rank within a target: the values of each rank
            # go to distinct targets, so each step is one indexed op.
            order = torch.sort(targets, stable=True).indices
            t_sorted = targets[order]
            v_sorted = values[order].to(out.dtype)
            _, counts = torch.unique_consecutive(t_sorted, return_counts=True)
            starts = counts.cumsum(0) - counts
            rank = torch.arange(t_sorted.numel(), device=out.device) - torch.repeat_interleave(starts, counts)
            if not include_self:
                identity = {"prod": 1.0, "amax": -math.inf, "amin": math.inf}[reduce]
                if not out.is_floating_point():
                    info = torch.iinfo(out.dtype)
                    identity = {"prod": 1, "amax": info.min, "amin": info.max}[reduce]
                out[hit] = identity
            for r in range(int(counts.max())):
                pick = rank == r
                t_r, v_r = t_sorted[pick], v_sorted[pick]
                old = out[t_r]
                if reduce == "prod":
                    new = old * v_r
                elif reduce == "amax":
                    new = torch.where(v_r.isnan() | (v_r > old), v_r, old)
                else:
                    new = torch.where(v_r.isnan() | (v_r < old), v_r, old)
                out[t_r] = new
        return out.reshape(self.shape), hit.reshape(self.shape)


class ScatterReduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, self, dim, index, src, reduce, include_self):
        result, hit = _reduced(self, dim, index, src, reduce, include_self)
        ctx.save_for_backward(self, index, src, result)
        ctx.hit = hit
        ctx.settings = (dim, reduce, include_self)
        return result

    @staticmethod
    def backward(ctx, grad):
        self, index, src, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.settings
        hit = ctx.hit
        d = _dims(dim, self.dim())
        if reduce == "sum":
            grad_self = grad if include_self else grad.masked_fill(hit, 0)
            grad_src = grad.gather(d, index)
        elif reduce == "mean":
            n = torch.ones_like(self) if include_self else torch.zeros_like(self)
            n = n.scatter_add(d, index, torch.ones_like(src))
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            if not include_self:
                grad_self = grad_self.masked_fill(hit, 0)
            grad_src = (grad / n).gather(d, index)
        elif reduce in ("amax", "amin"):
            # As PyTorch's formula: self's equal value shares the gradient
            # (is counted) even with include_self=False, then gets none.
            value = result.gather(d, index)
            self_is_result = (self == result).to(self.dtype)
            src_is_result = (_src_part(src, index).reshape(index.shape) == value).to(self.dtype)
            count = self_is_result.scatter_add(d, index, src_is_result)
            distributed = grad / count
            grad_self = self_is_result * distributed
            if not include_self:
                grad_self = grad_self.masked_fill(hit, 0)
            grad_src = src_is_result * distributed.gather(d, index)
        else:
            masked_self = self.masked_fill(self == 0, 1)
            masked_self_result, _ = _reduced(masked_self, d, index, src, reduce, include_self)
            grad_self = grad * masked_self_result / masked_self
            if not include_self:
                grad_self = grad_self.masked_fill(hit, 0)
            part = _src_part(src, index).reshape(index.shape)
            src_zero = part == 0
            zeros_at = torch.zeros_like(self).scatter_add(d, index, src_zero.to(self.dtype)).gather(d, index)
            single_zero = src_zero & (zeros_at == 1)
            masked_src = part.masked_fill(single_zero, 1)
            masked_src_result, _ = _reduced(self, d, index, masked_src, reduce, include_self)
            grad_src = torch.where(
                single_zero,
                (grad * masked_src_result).gather(d, index),
                (grad * result).gather(d, index) / part.masked_fill(src_zero, 1))
        if src.shape != index.shape:
            full = torch.zeros_like(src)
            full[tuple(slice(0, n) for n in index.shape)] = grad_src
            grad_src = full
        return grad_self, None, None, grad_src, None, None


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`input` with `src`'s values reduced into the places `index` names
    along `dim` (`sum`, `prod`, `mean`, `amax`, `amin`; `input`'s own
    value counted unless `include_self=False`), as PyTorch's."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dtype != torch.long:
        raise RuntimeError("scatter_reduce(): Expected dtype int64 for index")
    if input.dim() != index.dim() or src.dim() != index.dim():
        raise RuntimeError(
            "Index tensor must have the same number of dimensions as self tensor")
    if src.dtype != input.dtype:
        raise RuntimeError(
            f"scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    if index.numel() and (bool((index < 0).any()) or bool((index >= max(input.shape[_dims(dim, input.dim())], 1)).any())):
        bad = index[(index < 0) | (index >= input.shape[_dims(dim, input.dim())])][0].item()
        raise RuntimeError(
            f"index {bad} is out of bounds for dimension {_dims(dim, input.dim())} with size "
            f"{input.shape[_dims(dim, input.dim())]}")
    if input.requires_grad or src.requires_grad:
        return ScatterReduce.apply(input, dim, index, src, reduce, include_self)
    return _reduced(input, dim, index, src, reduce, include_self)[0]


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """`scatter_reduce`, written into `input`."""
    return input.copy_(scatter_reduce(input, dim, index, src, reduce, include_self=include_self))


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """`input` with each slice of `source` along `dim` reduced into the
    slice `index` names (`prod`, `mean`, `amax`, `amin`)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _dims(dim, input.dim())
    shape = [1] * source.dim()
    shape[d] = -1
    expanded = index.reshape(shape).expand(source.shape)
    return scatter_reduce(input, d, expanded, source, reduce, include_self=include_self)


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """`index_reduce`, written into `input`."""
    return input.copy_(index_reduce(input, dim, index, source, reduce, include_self=include_self))


# ---- NumPy-style names of torch's ops ----------------------------------------


def divide(input, other, *, rounding_mode=None, out=None):
    """`torch.div`'s NumPy name."""
    result = torch.div(input, other, rounding_mode=rounding_mode)
    return result if out is None else out.copy_(result)


def multiply(input, other, *, out=None):
    """`torch.mul`'s NumPy name."""
    result = torch.mul(input, other)
    return result if out is None else out.copy_(result)


def subtract(input, other, *, alpha=1, out=None):
    """`torch.sub`'s NumPy name."""
    result = torch.sub(input, other, alpha=alpha)
    return result if out is None else out.copy_(result)


def negative(input, *, out=None):
    """`torch.neg`'s NumPy name."""
    result = torch.neg(input)
    return result if out is None else out.copy_(result)


def absolute(input, *, out=None):
    """`torch.abs`'s NumPy name."""
    result = torch.abs(input)
    return result if out is None else out.copy_(result)


def fix(input, *, out=None):
    """`torch.trunc`'s NumPy name."""
    result = torch.trunc(input)
    return result if out is None else out.copy_(result)


def greater(input, other, *, out=None):
    """`torch.gt`'s NumPy name."""
    return torch.gt(input, other)


def less(input, other, *, out=None):
    """`torch.lt`'s NumPy name."""
    return torch.lt(input, other)


def greater_equal(input, other, *, out=None):
    """`torch.ge`'s NumPy name."""
    return torch.ge(input, other)


def less_equal(input, other, *, out=None):
    """`torch.le`'s NumPy name."""
    return torch.le(input, other)


def not_equal(input, other, *, out=None):
    """`torch.ne`'s NumPy name."""
    return torch.ne(input, other)


def concat(tensors, dim=0, *, out=None):
    """`torch.cat`'s other name."""
    result = torch.cat(tensors, dim)
    return result if out is None else out.copy_(result)


def concatenate(tensors, axis=0, *, out=None):
    """`torch.cat` with NumPy's `axis`."""
    result = torch.cat(tensors, axis)
    return result if out is None else out.copy_(result)


# ---- atan2 -------------------------------------------------------------------


def _atan2_values(y, x):
    # C's atan2 from atan(y / x) and the quadrant: signed zeros and
    # infinities as C's. Narrower floats are computed in float64 and
    # rounded once, so the quadrant's +-pi adds no rounding of its own.
    if y.dtype != torch.float64:
        with torch.no_grad():
            return _atan2_values(y.double(), x.double()).to(y.dtype)
    pi = math.pi
    r = torch.atan(y / x)
    y_neg = (y < 0) | ((y == 0) & ((1 / y) < 0))
    x_neg = (x < 0) | ((x == 0) & ((1 / x) < 0))
    left = torch.where(y_neg, r - pi, r + pi)
    result = torch.where(x_neg, left, r)
    # x == 0 (either sign), y != 0: +-pi/2.
    half = torch.where(y_neg, torch.full_like(r, -pi / 2), torch.full_like(r, pi / 2))
    result = torch.where((x == 0) & (y != 0), half, result)
    # y == 0: +-0 or +-pi.
    zero = torch.where(x_neg, torch.where(y_neg, torch.full_like(r, -pi), torch.full_like(r, pi)), y * 0)
    result = torch.where(y == 0, zero, result)
    # Both infinite: +-pi/4 or +-3pi/4.
    quarter = torch.where(x_neg, torch.full_like(r, 3 * pi / 4), torch.full_like(r, pi / 4))
    quarter = torch.where(y_neg, -quarter, quarter)
    result = torch.where(y.isinf() & x.isinf(), quarter, result)
    return torch.where(y.isnan() | x.isnan(), y + x, result)


class Atan2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(y, x)
        ctx.yx = (y, x)
        return _atan2_values(y, x)

    @staticmethod
    def jvp(ctx, ty, tx):
        import torch.autograd.forward_ad as fwAD

        y, x = (fwAD.unpack_dual(v).primal for v in ctx.yx)
        recip = (x * x + y * y).reciprocal()
        total = 0
        if ty is not None:
            total = total + ty * x * recip
        if tx is not None:
            total = total - tx * y * recip
        return total

    @staticmethod
    def backward(ctx, grad):
        y, x = ctx.saved_tensors
        recip = (x * x + y * y).reciprocal()
        return grad * x * recip, grad * -y * recip


def atan2(input, other, *, out=None):
    """The angle of the point (other, input) from the x axis, in
    (-pi, pi], as C's `atan2` (computed from `atan` and the quadrant, so
    within an ulp or two of PyTorch's)."""
    y, x = torch.broadcast_tensors(input, other)
    if not y.is_floating_point():
        y = y.to(torch.get_default_dtype())
    if not x.is_floating_point():
        x = x.to(y.dtype)
    if y.dtype != x.dtype:
        common = torch.promote_types(y.dtype, x.dtype)
        y, x = y.to(common), x.to(common)
    result = Atan2.apply(y, x)
    return result if out is None else out.copy_(result)


def arctan2(input, other, *, out=None):
    """`atan2`'s NumPy name."""
    return atan2(input, other, out=out)


# ---- histogram and frexp -----------------------------------------------------


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """A histogram of `input` (flattened): `bins` equal bins over `range`
    (the data's own by default) or the given increasing bin edges; each
    bin counts the values from its left edge up to its right (the last
    includes its right edge), weighted when `weight` is given; with
    `density`, divided by the total and the bins' widths. PyTorch's named
    tuple (hist, bin_edges). CPU tensors only, as PyTorch's."""
    if input.is_cuda:
        # PyTorch has no CUDA kernel for it.
        overload = "bins_tensor" if isinstance(bins, torch.Tensor) else "bin_ct"
        raise NotImplementedError(
            f"Could not run 'aten::histogram.{overload}' with arguments from the 'CUDA' backend.")
    if not input.is_floating_point():
        raise RuntimeError(
            f"torch.histogram: input tensor and bins tensors should have the same dtype, but got input "
            f"{input.dtype} and bins {torch.get_default_dtype()}")
    with torch.no_grad():
        x = input.reshape(-1)
        if isinstance(bins, torch.Tensor):
            edges = bins.to(input.dtype)
        else:
            if range is not None:
                lo, hi = float(range[0]), float(range[1])
            elif x.numel():
                lo, hi = float(x.min()), float(x.max())
            else:
                lo, hi = 0.0, 0.0
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edges = torch.linspace(lo, hi, bins + 1, dtype=input.dtype, device=input.device)
        n = edges.numel() - 1
        keep = (x >= edges[0]) & (x <= edges[-1])
        place = (torch.searchsorted(edges, x[keep], right=True) - 1).clamp(0, n - 1)
        w = weight.reshape(-1)[keep].to(torch.float64) if weight is not None else \
            torch.ones(place.shape, dtype=torch.float64, device=input.device)
        hist = torch.zeros(n, dtype=torch.float64, device=input.device).index_add(0, place, w).to(input.dtype)
        if density:
            hist = hist / (hist.sum() * edges.diff())
    return _cudash.return_type("histogram", hist=hist, bin_edges=edges)


def frexp(input):
    """Each element as mantissa * 2 ** exponent, the mantissa's magnitude
    in [0.5, 1) (0, infinities and NaN with exponent 0), as PyTorch's named
    tuple (mantissa, exponent int32)."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with torch.no_grad():
        x = input.double()
        finite = x.isfinite() & (x != 0)
        safe = torch.where(finite, x.abs(), torch.ones_like(x))
        e = safe.log2().floor() + 1
        m = x / torch.pow(2.0, e)
        big = finite & (m.abs() >= 1)
        m = torch.where(big, m / 2, m)
        e = torch.where(big, e + 1, e)
        small = finite & (m.abs() < 0.5)
        m = torch.where(small, m * 2, m)
        e = torch.where(small, e - 1, e)
        m = torch.where(finite, m, x)
        e = torch.where(finite, e, torch.zeros_like(e))
    return _cudash.return_type("frexp", mantissa=m.to(input.dtype), exponent=e.to(torch.int32))
