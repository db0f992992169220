"""torch.optim.Optimizer: the base class of an optimizer a program writes
(and of LBFGS), as PyTorch's: `param_groups` (a list of dicts, each with
its `params` and every default the group did not set), `state` (a
defaultdict of dicts keyed by parameter), `zero_grad`, `add_param_group`,
`state_dict` / `load_state_dict` (parameters by their position), its
printed form, and its step hooks: a subclass's `step` is wrapped once, at
the first optimizer of its class, as PyTorch's `_patch_step_function`
does, so `register_step_pre_hook` / `register_step_post_hook` run around
it and the profiler shows `Optimizer.step#<class>.step`."""

import torch
from collections import defaultdict


class _RequiredParameter:
    """The default of an option every parameter group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class RemovableHandle:
    """What `register_step_pre_hook` gives: `remove()` takes the hook off."""

    _next_id = [0]

    def __init__(self, hooks):
        self.hooks_dict_ref = hooks
        self.id = RemovableHandle._next_id[0]
        RemovableHandle._next_id[0] += 1

    def remove(self):
        if self.id in self.hooks_dict_ref:
            del self.hooks_dict_ref[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


# The classes whose `step` is wrapped (PyTorch marks the function
# `hooked`; cudash's functions take no attributes).
_patched = []


def _profile_hook_step(func):
    # `args` holds the optimizer itself first, as PyTorch's hooks see it.
    def wrapper(*args, **kwargs):
        self = args[0]
        name = f"Optimizer.step#{self.__class__.__name__}.step"
        with torch.autograd.profiler.record_function(name):
            for pre_hook in list(self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                        )
            out = func(*args, **kwargs)
            for post_hook in list(self._optimizer_step_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

    return wrapper


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = {}
        self._optimizer_step_post_hooks = {}
        self._patch_step_function()
        if isinstance(params, torch.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor"
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" + f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        tensors = []
        names = []
        for p in params:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if len(names) != 0:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, torch.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + type(p).__name__
                )
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = set()
        for group in self.param_groups:
            for p in group["params"]:
                seen.add(p)
        for p in tensors:
            if p in seen:
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    def _patch_step_function(self):
        cls = self.__class__
        if cls not in _patched:
            _patched.append(cls)
            cls.step = _profile_hook_step(cls.step)

    def register_step_pre_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def state_dict(self):
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {}
        for k, v in self.state.items():
            state[index[id(k)] if isinstance(k, torch.Tensor) else k] = v
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, old in zip(self.param_groups, saved):
            if len(group["params"]) != len(old["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
        by_id = {}
        for group, old in zip(self.param_groups, saved):
            for p, k in zip(group["params"], old["params"]):
                by_id[k] = p
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in by_id:
                state[by_id[k]] = _cast(by_id[k], v, None)
            else:
                state[k] = v
        groups = []
        for group, old in zip(self.param_groups, saved):
            new = {k: v for k, v in old.items()}
            new["params"] = group["params"]
            if "param_names" in group and "param_names" not in new:
                new["param_names"] = group["param_names"]
            groups.append(new)
        self.state = state
        self.param_groups = groups


def _cast(param, value, key):
    """A copy of `value` with its tensors on `param`'s device (and in its
    dtype when it is a float, except a `step` count), as PyTorch's
    load_state_dict does."""
    if isinstance(value, torch.Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_cast(param, v, None) for v in value]
    if isinstance(value, tuple):
        return tuple(_cast(param, v, None) for v in value)
    return value
