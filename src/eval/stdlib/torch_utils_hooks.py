# torch.utils.hooks' BackwardHook, written for cudash after PyTorch's: how a
# module's backward hooks see its gradients. Calling a module that has
# full backward hooks (`register_full_backward_hook`,
# `register_full_backward_pre_hook`) passes the inputs that require grad
# through an identity Function (`BackwardHookFunctionBackward`) before
# `forward`, and the outputs through another after: the outputs' node
# sees the gradients of the outputs (the pre-hooks run there), the inputs'
# node the gradients of the inputs (the hooks run there), each through a
# hook on the node (`grad_fn.register_hook`). cudash's methods/module.rs
# calls `_setup_input`, `_setup_output` and, for the older
# `register_backward_hook`, `_register_non_full`.
import warnings

import torch


class BackwardHookFunction(torch.autograd.Function):
    """The identity, as a node the hooks are registered on."""

    @staticmethod
    def forward(ctx, *args):
        outs = tuple(a.view_as(a) for a in args)
        ctx.mark_non_differentiable(*[o for o, a in zip(outs, args) if not a.requires_grad])
        return outs

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """One call's state: the gradients of the outputs, kept until the
    inputs' node runs."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack_with_none(self, indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _unpack_none(self, indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # The outputs' gradients never came: none of them was used.
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        requires_grad = any(args[i].requires_grad for i in tensors_idx)
        if not (requires_grad and torch.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*[args[i] for i in tensors_idx])
        grad_fns = [
            t.grad_fn for t in new_tensors
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args):
        def fn(grad_fn):
            self._set_user_hook(grad_fn)

        res, input_idx = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(
                    self.output_tensors_index, grad_output, self.n_outputs
                )
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError(
                                "Backward pre hook returned an invalid number of grad_output, "
                                f"got {actual_len}, but expected {expected_len}"
                            )
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # No input requires grad: the hooks run here, with no
                    # gradient of an input.
                    if self.user_hooks:
                        warnings.warn(
                            "Full backward hook is firing when gradients are computed with "
                            "respect to module outputs since no inputs require gradients. See "
                            "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                            "#torch.nn.Module.register_full_backward_hook for more details."
                        )
                        grad_inputs = self._pack_with_none([], [], self.n_inputs)
                        for user_hook in self.user_hooks:
                            res = user_hook(self.module, grad_inputs, self.grad_outputs)
                            if res is not None and not (
                                isinstance(res, tuple) and all(el is None for el in res)
                            ):
                                raise RuntimeError(
                                    "Backward hook for Modules where no input requires "
                                    "gradient should always return None or None for all gradients."
                                )
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res


def _setup_input(module, args):
    # Before `forward`: the call's BackwardHook and the inputs to use.
    full_hooks = list(module._backward_hooks.values())
    pre_hooks = list(module._backward_pre_hooks.values())
    bw_hook = BackwardHook(module, full_hooks, pre_hooks)
    return bw_hook, bw_hook.setup_input_hook(tuple(args))


def _setup_output(bw_hook, result):
    # After `forward` and the forward hooks: the output to give back.
    return bw_hook.setup_output_hook(result)


def _register_non_full(module, args, result):
    # `register_backward_hook` (deprecated in PyTorch): each hook on the
    # node that made the output, seeing that node's gradients.
    var = result
    while not isinstance(var, torch.Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, torch.Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in module._backward_hooks.values():
        grad_fn.register_hook(_wrapped(hook, module))
    _maybe_warn_non_full_backward_hook(args, result, grad_fn)


def _wrapped(hook, module):
    def call(grad_input, grad_output):
        return hook(module, grad_input, grad_output)

    return call


def _maybe_warn_non_full_backward_hook(inputs, result, grad_fn):
    if not isinstance(result, torch.Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, torch.Tensor) for r in result)):
            warnings.warn(
                "Using non-full backward hooks on a Module that does not return a "
                "single Tensor or a tuple of Tensors is deprecated and will be removed "
                "in future versions. This hook will be missing some of the grad_output. "
                "Please use register_full_backward_hook to get the documented behavior.",
                FutureWarning,
            )
            return
    else:
        result = (result,)
    if not isinstance(inputs, torch.Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, torch.Tensor) for i in inputs)):
            warnings.warn(
                "Using non-full backward hooks on a Module that does not take as input a "
                "single Tensor or a tuple of Tensors is deprecated and will be removed "
                "in future versions. This hook will be missing some of the grad_input. "
                "Please use register_full_backward_hook to get the documented behavior.",
                FutureWarning,
            )
            return
    else:
        inputs = (inputs,)
    out_grad_fn = [r.grad_fn for r in result if r.grad_fn is not None]
    if len(out_grad_fn) == 0 or not any(g is grad_fn for g in out_grad_fn):
        warnings.warn(
            "Using a non-full backward hook when outputs are nested in python data structure "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_output.",
            FutureWarning,
        )
    elif len(out_grad_fn) > 1 and not all(g is out_grad_fn[0] for g in out_grad_fn):
        warnings.warn(
            "Using a non-full backward hook when outputs are generated by different autograd Nodes "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_output. Please use register_full_backward_hook to get the documented behavior.",
            FutureWarning,
        )
    else:
        inputs_grad_fn = [i.grad_fn for i in inputs if i.grad_fn is not None]
        next_functions = [n[0] for n in grad_fn.next_functions]
        same = len(inputs_grad_fn) == len(next_functions) and all(
            any(a is b for b in next_functions) for a in inputs_grad_fn
        )
        if not same:
            warnings.warn(
                "Using a non-full backward hook when the forward contains multiple autograd Nodes "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_input. Please use register_full_backward_hook to get the documented "
                "behavior.",
                FutureWarning,
            )
