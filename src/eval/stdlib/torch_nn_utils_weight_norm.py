# torch.nn.utils.weight_norm (PyTorch's older API, deprecated for
# torch.nn.utils.parametrizations.weight_norm but in many programs),
# written for cudash as PyTorch's works: `weight` becomes `weight_g`
# (its norm along `dim`) and `weight_v` (its direction), two parameters,
# and a plain attribute `weight` computed from them again before each
# forward by a forward pre-hook.
import warnings
import torch
from torch.nn import Parameter
from torch.nn.utils.parametrizations import _norm_except_dim

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_warned = False


class WeightNorm:
    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module, name, dim):
        # Python shows a warning once per place it is given from: here,
        # once a session.
        global _warned
        if not _warned:
            _warned = True
            warnings.warn(
                "`torch.nn.utils.weight_norm` is deprecated "
                "in favor of `torch.nn.utils.parametrizations.weight_norm`.",
                FutureWarning,
            )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        delattr(module, name)
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, 2, dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        fn._handle = module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        delattr(module, self.name + "_g")
        delattr(module, self.name + "_v")
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """`module.<name>` as `<name>_g` (its norm along `dim`) times
    `<name>_v` over its norm, recomputed before each forward."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """`module.<name>` a parameter again, with its current value."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            hook._handle.remove()
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
