# torch.nn.utils.parametrize, written for cudash: a parametrization (a
# module) computes a module's tensor from the tensor it keeps under
# `module.parametrizations[name].original`.
#
# PyTorch makes `module.weight` a property of a class it makes for the
# module (`ParametrizedLinear`). cudash keeps the module's class: reading
# `module.weight` of a parametrized name calls `_get_parametrized`,
# assigning calls `_set_parametrized` (methods/module.rs), a built-in
# layer's forward computes with `_get_parametrized`'s tensors, and the
# printed module says `ParametrizedLinear` while it has parametrizations,
# as PyTorch's class does (`type(module)` stays `Linear`).
import torch
from contextlib import contextmanager
from torch.nn import Module, ModuleDict, ModuleList, Parameter

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Each parametrized tensor computed once inside the block."""
    global _cache
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X):
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src):
    # PyTorch's `dest.set_(src)`: the same tensor object (an optimizer that
    # holds it keeps it) with `src`'s values. cudash copies the values in,
    # which needs the same shape.
    if tuple(dest.shape) != tuple(src.shape):
        raise NotImplementedError(
            f"cudash keeps a parametrization's original tensor at its shape: "
            f"{tuple(dest.shape)} cannot take a tensor of shape {tuple(src.shape)}"
        )
    with torch.no_grad():
        dest.copy_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and the tensor they
    start from (`original`, or `original0`, `original1`, ... where the first
    one's `right_inverse` gives several)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape = original.shape
        original_dtype = original.dtype
        with torch.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, torch.Tensor) and not isinstance(new, (list, tuple)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, torch.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}"
                )
            if new is not original:
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, torch.Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        "(list, tuple...). "
                        f"Got element {i} of the sequence with type {type(originali).__name__}."
                    )
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, torch.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {Z.dtype}"
                )
            if Z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {Z.shape}"
                )

    def right_inverse(self, value):
        """Assigning to the parametrized tensor: each parametrization's
        `right_inverse`, last first, then the result into `original`."""
        with torch.no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
            if self.is_tensor:
                if not isinstance(value, torch.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, (list, tuple)):
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}."
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, torch.Tensor):
                        raise ValueError(
                            "'right_inverse' must return a sequence of tensors. "
                            f"Got element {i} of type {type(tensor).__name__}."
                        )
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                            f"while `original{i}` has dtype {original_i.dtype}"
                        )
                    _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            originals = [getattr(self, f"original{i}") for i in range(self.ntensors)]
            x = self[0](*originals)
        for module in list(self)[1:]:
            x = module(x)
        return x


def _get_parametrized(module, tensor_name):
    # `module.weight` of a parametrized `weight` (PyTorch's property getter).
    parametrization = module.parametrizations[tensor_name]
    if _cache_enabled:
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor
    return parametrization()


def _set_parametrized(module, tensor_name, value):
    # `module.weight = value` (PyTorch's property setter).
    module.parametrizations[tensor_name].right_inverse(value)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """`module.<tensor_name>` computed by `parametrization` from the tensor
    it had, which moves to `module.parametrizations[tensor_name].original`."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, torch.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {Y.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {X.dtype}"
                )
            if X.shape != Y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {Y.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {X.shape}"
                )
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    Z = None
                if Z is not None:
                    if not isinstance(Z, torch.Tensor):
                        raise ValueError(
                            f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}"
                        )
                    if Z.dtype != Y.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the same dtype "
                            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                            f"module.{tensor_name}.dtype: {Y.dtype}\n"
                            f"returned dtype: {Z.dtype}"
                        )
                    if Z.shape != Y.shape:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the same shape "
                            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                            f"module.{tensor_name}.shape: {Y.shape}\n"
                            f"returned shape: {Z.shape}"
                        )
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe = plist.unsafe or unsafe
    elif tensor_name in dict(module.named_parameters(recurse=False)) or tensor_name in dict(
        module.named_buffers(recurse=False)
    ):
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has a parametrization (on `tensor_name`, given one)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """The parametrizations of `tensor_name` taken off: the tensor is left
    with its parametrized value (or its original, `leave_parametrized=False`)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with torch.no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if leave_parametrized:
            t = getattr(module, tensor_name)
            original = Parameter(t) if t.requires_grad else t
        else:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                "that is parametrized in terms of a sequence of tensors."
            )
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
    return module


def type_before_parametrizations(module):
    """The module's class as it was before it was parametrized (cudash
    keeps the class: `type(module)`)."""
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """`from_module`'s parametrizations (and their originals) on `to_module`."""
    if not is_parametrized(from_module):
        raise AssertionError("from_module must be parametrized")
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations.keys())
    for name in names:
        if not is_parametrized(to_module, name):
            if not hasattr(to_module, name):
                to_module.register_parameter(
                    name, Parameter(getattr(from_module, name).detach().clone())
                )
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            with torch.no_grad():
                src = from_module.parametrizations[name]
                dst = to_module.parametrizations[name]
                if src.is_tensor:
                    _maybe_set(dst.original, src.original)
                else:
                    for i in range(src.ntensors):
                        _maybe_set(getattr(dst, f"original{i}"), getattr(src, f"original{i}"))
    return to_module
