# torch.nn.functional's affine_grid and grid_sample, written for cudash
# over tensor ops (so autograd differentiates them, with respect to the
# input and to the grid, and they run on every backend): PyTorch's
# formulas for the sampling points, the four bilinear weights and the
# padding modes, for 4-d inputs. The graph holds the parts
# (`BmmBackward0`, `GatherBackward0`, ...) where PyTorch's has one
# `AffineGridGeneratorBackward0` or `GridSampler2DBackward0`.
import warnings

import torch

_warned = False


def _default_corners(align_corners):
    # PyTorch's warning when `align_corners` is left out: Python shows it
    # once per place it is given from, so once a session here.
    global _warned
    if align_corners is None:
        if not _warned:
            _warned = True
            warnings.warn(
                "Default grid_sample and affine_grid behavior has changed to align_corners=False "
                "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                "See the documentation of grid_sample for details."
            )
        return False
    return align_corners


def _linspace_from_neg_one(theta, num_steps, align_corners):
    if num_steps <= 1:
        return torch.tensor(0, dtype=theta.dtype, device=theta.device)
    r = torch.linspace(-1, 1, num_steps, dtype=theta.dtype, device=theta.device)
    if not align_corners:
        r = r * (num_steps - 1) / num_steps
    return r


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) of the affine maps `theta` (N, 2, 3)
    for an output of `size` (N, C, H, W), in [-1, 1] coordinates."""
    align_corners = _default_corners(align_corners)
    if not theta.is_floating_point():
        raise ValueError(
            f"Expected theta to have floating point type, but got {theta.dtype}"
        )
    size = list(size)
    if len(size) != 4:
        raise NotImplementedError(
            "affine_grid only supports 4D sizes in cudash (PyTorch also takes 5D ones), "
            f"got a size of {len(size)} dimensions"
        )
    if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
        raise ValueError(
            f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {torch.Size(size)}. "
            f"Got {theta.shape}."
        )
    n, _, h, w = size
    xs = _linspace_from_neg_one(theta, w, align_corners)
    ys = _linspace_from_neg_one(theta, h, align_corners)
    base = torch.stack(
        [
            xs.reshape(1, w).expand(h, w),
            ys.reshape(h, 1).expand(h, w),
            torch.ones(h, w, dtype=theta.dtype, device=theta.device),
        ],
        dim=-1,
    )
    grid = base.reshape(1, h * w, 3).expand(n, h * w, 3).bmm(theta.transpose(1, 2))
    return grid.reshape(n, h, w, 2)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord, size):
    return coord.clamp(0, size - 1)


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return torch.zeros_like(coord)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - mn).abs()
    extra = torch.fmod(coord, span)
    flips = torch.floor(coord / span)
    return torch.where(torch.fmod(flips, 2) == 0, extra + mn, span - extra + mn)


def _source_index(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = _clip(coord, size)
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = _clip(coord, size)
    return coord


def _gather(flat, iy, ix, h, w):
    # input values at (iy, ix) (long, N x Ho x Wo), zero outside.
    n, c = flat.shape[0], flat.shape[1]
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    idx = (iy.clamp(0, h - 1) * w + ix.clamp(0, w - 1)).reshape(n, 1, -1).expand(n, c, -1)
    vals = flat.gather(2, idx).reshape(n, c, *ix.shape[1:])
    return vals, inside.unsqueeze(1)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """`input` (N, C, H, W) read at the points of `grid` (N, Ho, Wo, 2),
    each an (x, y) in [-1, 1]: bilinear or nearest, outside the image
    zeros, the border's values, or reflected."""
    align_corners = _default_corners(align_corners)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
            f"but got: '{mode}'"
        )
    if mode == "bicubic":
        raise NotImplementedError("cudash's grid_sample has no 'bicubic' mode yet")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
            f"or 'reflection', but got: '{padding_mode}'"
        )
    if input.dim() != 4:
        raise NotImplementedError(
            f"cudash's grid_sample takes 4-D inputs (N, C, H, W), got {input.dim()}-D"
        )
    if grid.dim() != 4 or grid.shape[-1] != 2:
        raise RuntimeError(
            "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    n, c, h, w = input.shape
    ix = _source_index(grid[..., 0], w, padding_mode, align_corners)
    iy = _source_index(grid[..., 1], h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)
    if mode == "nearest":
        x0 = torch.round(ix).long()
        y0 = torch.round(iy).long()
        vals, inside = _gather(flat, y0, x0, h, w)
        return torch.where(inside, vals, torch.zeros_like(vals))
    ix_nw = torch.floor(ix)
    iy_nw = torch.floor(iy)
    ix_ne, iy_ne = ix_nw + 1, iy_nw
    ix_sw, iy_sw = ix_nw, iy_nw + 1
    ix_se, iy_se = ix_nw + 1, iy_nw + 1
    # PyTorch's weights: each corner's by the area opposite it.
    nw = (ix_se - ix) * (iy_se - iy)
    ne = (ix - ix_sw) * (iy_sw - iy)
    sw = (ix_ne - ix) * (iy - iy_ne)
    se = (ix - ix_nw) * (iy - iy_nw)
    out = None
    for cx, cy, wt in ((ix_nw, iy_nw, nw), (ix_ne, iy_ne, ne), (ix_sw, iy_sw, sw), (ix_se, iy_se, se)):
        vals, inside = _gather(flat, cy.long(), cx.long(), h, w)
        term = torch.where(inside, vals * wt.unsqueeze(1), torch.zeros_like(vals))
        out = term if out is None else out + term
    return out
