"""`torch.autograd.forward_ad`: forward-mode AD, as PyTorch's. Inside
`with dual_level():` a tensor made by `make_dual(primal, tangent)` carries
its tangent through the ops on it, each computing its result's tangent (a
Jacobian-vector product) as it runs; `unpack_dual(t)` gives the primal and
the tangent back. Leaving the level drops every tangent made in it.
cudash's autograd keeps the tangents (src/autograd/forward_ad.rs); one
level at a time, as in PyTorch."""

import _cudash
from collections import namedtuple

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]

# The level the other functions use when given none.
_current_level = -1


def enter_dual_level():
    """Enters a new forward grad level, the one the other functions use by
    default; gives its number."""
    global _current_level
    new_level = _cudash.enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError(
            "Entering a new forward AD level but the current level is not valid. "
            "Make sure you did not modified it directly."
        )
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    """Exits a forward grad level: every tangent made in it is dropped."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one "
            "that was created. This is not supported."
        )
    _cudash.exit_dual_level(level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` carrying `tangent` as its forward gradient."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level "
            "exists, make sure to enter_dual_level() first."
        )
    if not tensor.is_floating_point():
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not tangent.is_floating_point():
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    return _cudash.make_dual(tensor, tangent)


UnpackedDualTensor = namedtuple(
    "UnpackedDualTensor", ["primal", "tangent"], module="torch.autograd.forward_ad"
)


def unpack_dual(tensor, *, level=None):
    """The primal (a view of `tensor`) and the tangent (None when it has
    none in this level)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    primal, dual = _cudash.unpack_dual(tensor)
    return UnpackedDualTensor(primal, dual)


class dual_level:
    """Context manager: the level every forward AD computation runs in;
    the tangents made inside are dropped on leaving it."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
