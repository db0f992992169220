# torch.nn.utils.spectral_norm (PyTorch's older API, kept beside
# torch.nn.utils.parametrizations.spectral_norm and used by many GANs),
# written for cudash as PyTorch's works: `weight` becomes the parameter
# `weight_orig` and two buffers, `weight_u` and `weight_v` (the singular
# vectors' estimates, drawn from the session's generator, u first); before
# each forward a pre-hook divides `weight_orig` by its largest singular
# value, estimated by power iteration (v then u, in training mode only)
# and stores the result as the plain attribute `weight`.
import torch
import torch.nn.functional as F
from torch.nn import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """`dim` first, the others flattened into the columns."""
        if self.dim != 0:
            order = [self.dim] + [d for d in range(weight.dim()) if d != self.dim]
            weight = weight.permute(*order)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with torch.no_grad():
                # The buffers themselves are updated, as PyTorch's `out=`.
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(torch.mv(matrix.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(torch.mv(matrix, v), dim=0, eps=self.eps))
                u = u.clone()
                v = v.clone()
        sigma = torch.dot(u, torch.mv(matrix, v))
        return weight / sigma

    def remove(self, module):
        with torch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = getattr(module, name)
        with torch.no_grad():
            matrix = fn.reshape_weight_to_matrix(weight)
            h, w = matrix.shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        # Until the first forward, `weight` is the original's elements.
        setattr(module, name, weight.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        fn._handle = module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """`module.<name>` divided by its largest singular value (power
    iteration, `n_power_iterations` steps per training forward)."""
    if dim is None:
        transposed = type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
        dim = 1 if transposed else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """`module.<name>` a parameter again, with its current value."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            hook._handle.remove()
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
