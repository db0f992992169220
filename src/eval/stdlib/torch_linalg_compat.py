"""`torch.cross` and `torch.svd`, torch's older forms of
`torch.linalg.cross` and `torch.linalg.svd` (written for cudash)."""
import warnings

import torch
import _cudash
from torch.linalg._ops import _svd


def cross(input, other, dim=None, *, out=None):
    """`torch.linalg.cross` along `dim`; without it, along the first
    dimension of size 3, with PyTorch's warning that this is deprecated."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a future release.")
        sizes = list(torch.broadcast_shapes(input.shape, other.shape))
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    return torch.linalg.cross(input, other, dim=dim, out=out)


def svd(input, some=True, compute_uv=True, *, out=None):
    """(U, S, V) with input = U diag(S) V^T: reduced unless `some=False`;
    U and V zeros when `compute_uv=False`."""
    U, S, V = _svd(input, not some)
    if not compute_uv:
        U, V = torch.zeros_like(U), torch.zeros_like(V)
    return _cudash.return_type("svd", U=U, S=S, V=V)
