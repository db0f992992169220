# torch.nn.utils.prune, written for cudash as PyTorch's works: pruning
# `module.weight` moves the parameter to `weight_orig`, keeps a mask as the
# buffer `weight_mask`, and sets `weight` (a plain attribute now) to
# `weight_orig * weight_mask`, again before each forward by a forward
# pre-hook, the pruning method itself.
#
# PyTorch finds a tensor's pruning among `module._forward_pre_hooks` and
# deletes it there; cudash's `_forward_pre_hooks` is a copy, so each
# method keeps the handle of its hook (`_handle`) and removes itself by it.
import torch
from abc import ABC, abstractmethod

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


class BasePruningMethod(ABC):
    """A way to compute a pruning mask; called as a forward pre-hook, it
    sets the pruned tensor on the module again."""

    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for `t`, given the mask it has (`default_mask`)."""

    def apply_mask(self, module):
        """The pruned tensor: the original times the mask."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes `module.<name>` with a new `cls(*args, **kwargs)`, on top
        of the pruning it has (the two in a PruningContainer)."""
        old_method = None
        found = 0
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                found += 1
        if found > 1:
            raise AssertionError(
                f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                f"{module}. Use a PruningContainer."
            )
        if old_method is not None:
            old_method._handle.remove()
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            if isinstance(old_method, PruningContainer):
                old_method.add_pruning_method(method)
                method = old_method
            else:
                container = PruningContainer(old_method)
                container.add_pruning_method(method)
                method = container
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            delattr(module, name)
            default_mask = torch.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            method._handle = module.register_forward_pre_hook(method)
        except Exception as e:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                delattr(module, name + "_orig")
                module.register_parameter(name, orig)
            raise e
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """`t` pruned (a copy): `t` times the mask computed for it."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, "
                    f"got {importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else torch.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Makes the pruning permanent: `<name>` a parameter again, with
        the pruned values; `<name>_orig` and `<name>_mask` gone."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = getattr(module, self._tensor_name + "_orig")
        with torch.no_grad():
            orig.copy_(weight)
        delattr(module, self._tensor_name + "_orig")
        delattr(module, self._tensor_name + "_mask")
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The prunings applied to one tensor, in order (iterative pruning):
    each new one acts on what the ones before it left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and isinstance(args[0], BasePruningMethod):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on "
                f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                + f" Found '{method._tensor_name}'"
            )
        self._pruning_methods = self._pruning_methods + (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            # The entries not pruned yet.
            keep = mask == 1
            new_mask = mask.clone()
            new_mask[keep] = method.compute_mask(t[keep], default_mask=mask[keep]).to(dtype=mask.dtype)
            return new_mask
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` defined.'
                )
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            # The channels not pruned yet.
            keep_channel = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
            slc = tuple(slc)
            new_mask = mask.clone()
            partial = method.compute_mask(t[slc], default_mask=mask[slc])
            new_mask[slc] = partial.to(dtype=new_mask.dtype)
            return new_mask
        elif method.PRUNING_TYPE == "global":
            return method.compute_mask(t, default_mask=mask).to(dtype=mask.dtype)
        raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")


class Identity(BasePruningMethod):
    """A mask of ones: nothing pruned."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """`amount` of the entries (a fraction, or a count), drawn at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        # The entries of the largest random draws.
        return _unstructured_mask(t, default_mask, self.amount, lambda: torch.rand_like(t), True)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """`amount` of the entries (a fraction, or a count): the smallest in
    absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        # The entries of the smallest magnitude.
        return _unstructured_mask(t, default_mask, self.amount, lambda: torch.abs(t), False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """`amount` of the channels along `dim`, drawn at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = torch.rand(tensor_size)
        # PyTorch's `torch.kthvalue(prob, k).values`.
        threshold = torch.sort(prob).values[nparams_toprune - 1]
        channel_mask = prob > threshold
        mask = torch.zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = channel_mask
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """`amount` of the channels along `dim`: those of the smallest
    `n`-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        norm = _compute_norm(t, self.n, self.dim)
        topk = torch.topk(norm, k=nparams_tokeep, largest=True)
        mask = torch.zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = topk.indices
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """The mask given."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape {self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the `(module, name)` tensors together: `amount` of all their
    entries, wherever they are."""
    if not isinstance(parameters, (list, tuple)):
        parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = torch.cat(
        [importance_scores.get((module, name), getattr(module, name)).reshape(-1)
         for (module, name) in parameters]
    )
    default_mask = torch.cat(
        [getattr(module, name + "_mask", torch.ones_like(getattr(module, name))).reshape(-1)
         for (module, name) in parameters]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for '
            f"the `pruning_method`. Found method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer : pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Makes the pruning of `module.<name>` permanent."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            hook._handle.remove()
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module):
    """Whether `module` or a module below it has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _unstructured_mask(t, default_mask, amount, scores, largest):
    # `default_mask` with `amount` of the entries set to zero: those
    # `scores()` ranks first (drawn only when something is pruned, as
    # PyTorch draws).
    tensor_size = t.nelement()
    nparams_toprune = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(nparams_toprune, tensor_size)
    mask = default_mask.clone()
    if nparams_toprune != 0:
        topk = torch.topk(scores().view(-1), k=nparams_toprune, largest=largest)
        mask.view(-1)[topk.indices] = 0
    return mask


def _validate_pruning_amount_init(amount):
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, int) and amount < 0) or (
        not isinstance(amount, int) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer"
        )


def _validate_pruning_amount(amount, tensor_size):
    if isinstance(amount, int) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}"
        )


def _validate_structured_pruning(t):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to "
            "multidimensional tensors. Found tensor of shape "
            f"{shape} with {len(shape)} dims"
        )


def _compute_nparams_toprune(amount, tensor_size):
    if isinstance(amount, int):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    if n == "nuc":
        raise NotImplementedError("cudash's ln_structured takes a number or 'fro' as n, not 'nuc'")
    if n == "fro":
        n = 2
    return torch.linalg.vector_norm(t, ord=n, dim=dims)
