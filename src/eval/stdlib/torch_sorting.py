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
