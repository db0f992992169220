# torch.autograd.function: where PyTorch defines `Function` and its context,
# and the decorator `once_differentiable` for a backward that is not
# differentiated again.
import functools

import torch

Function = torch.autograd.Function


def once_differentiable(fn):
    """A custom Function's backward run without recording (under
    `torch.no_grad()`), as PyTorch's decorator does: its gradients have no
    `grad_fn`, so a second derivative through it is an error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with torch.no_grad():
            return fn(ctx, *args)

    return wrapper
