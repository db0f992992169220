# torch.utils.checkpoint: activation checkpointing. A checkpointed function
# keeps none of the tensors its ops save for backward; backward runs it
# again, from the same inputs and random states, to get them back just
# before they are needed. Memory for time, as PyTorch trades it.
#
# use_reentrant=False (what PyTorch recommends) is written over
# saved_tensors_hooks: in forward each saved tensor becomes a placeholder
# (`_Holder`); the first unpack in a backward recomputes the function once
# under hooks that collect what it saves, and each unpack hands one tensor
# over, so a node's recomputed tensors go when the node has run.
# use_reentrant=True is PyTorch's older `CheckpointFunction`: forward runs
# without recording, and its backward recomputes with recording on and
# runs a backward of its own through the recomputed graph.
import contextlib
import warnings

import torch
from torch.autograd.graph import saved_tensors_hooks


class CheckpointError(RuntimeError):
    pass


class _StopRecomputationError(Exception):
    pass


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: " + type(inputs).__name__
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, torch.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


class _RngState:
    """The CPU generator's state and those of the CUDA devices the
    arguments are on, as forward found them."""

    def __init__(self, args):
        self.devices = []
        for a in args:
            if isinstance(a, torch.Tensor) and a.is_cuda and a.get_device() not in self.devices:
                self.devices.append(a.get_device())
        self.cpu = torch.get_rng_state()
        self.cuda = [torch.cuda.get_rng_state(d) for d in self.devices]

    def restore(self):
        torch.set_rng_state(self.cpu)
        for d, state in zip(self.devices, self.cuda):
            torch.cuda.set_rng_state(state, d)


class _AutocastState:
    """The autocast regions forward ran in, for the recomputation (backward
    itself runs outside autocast)."""

    def __init__(self):
        self.cuda = (torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda"))
        self.cpu = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
        self.cache = torch.is_autocast_cache_enabled()

    def run(self, fn, args, kwargs):
        with torch.autocast("cuda", dtype=self.cuda[1], enabled=self.cuda[0], cache_enabled=self.cache):
            with torch.autocast("cpu", dtype=self.cpu[1], enabled=self.cpu[0], cache_enabled=self.cache):
                return fn(*args, **kwargs)


def _rerun(fn, args, kwargs, rng, autocast):
    """`fn(*args, **kwargs)` with recording on, the random states forward
    had (when kept), and forward's autocast; the generators are as they
    were afterwards."""
    if rng is None:
        with torch.enable_grad():
            return autocast.run(fn, args, kwargs)
    with torch.random.fork_rng(devices=rng.devices):
        rng.restore()
        with torch.enable_grad():
            return autocast.run(fn, args, kwargs)


def _metadata(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


class _Holder:
    """What a checkpointed node keeps in place of a saved tensor."""

    def __init__(self, frame, index):
        self.frame = frame
        self.index = index


class _Frame:
    """One call of a checkpointed function: its inputs, what forward saved
    (as metadata only), and the tensors each backward recomputed."""

    def __init__(self, fn, args, kwargs, preserve_rng_state, early_stop):
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.rng = _RngState(args) if preserve_rng_state else None
        self.autocast = _AutocastState()
        self.early_stop = early_stop
        self.saved = []
        self.recomputed = {}
        self.outside = 0

    def pack(self, x):
        self.saved.append(_metadata(x))
        return _Holder(self, len(self.saved) - 1)

    def unpack(self, holder):
        task = torch._C._current_graph_task_id()
        if task == -1:
            # Outside a backward (`grad_fn._saved_self`): a recomputation of its own.
            self.outside += 1
            task = ("outside", self.outside)
        if task not in self.recomputed:
            self.recomputed[task] = self.recompute()
        values = self.recomputed[task]
        if holder.index not in values:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                "unpacked once. If you are calling ctx.saved_tensors in backward, make sure "
                "to do so only once. Otherwise please open an issue with details on your use case."
            )
        return values.pop(holder.index)

    def recompute(self):
        values = {}
        expected = len(self.saved)

        def pack(x):
            i = len(values)
            if i >= expected:
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during "
                    "recomputation than during the original forward pass."
                )
            # Detached, so that the recomputed graph's nodes do not keep
            # their own outputs alive: it goes as soon as the rerun ends.
            x = x.detach() if x.requires_grad else x
            values[i] = x
            if self.early_stop and len(values) == expected:
                raise _StopRecomputationError()
            return x

        def unpack(x):
            return x

        try:
            with saved_tensors_hooks(pack, unpack):
                _rerun(self.fn, self.args, self.kwargs, self.rng, self.autocast)
        except _StopRecomputationError:
            pass
        if len(values) != expected:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved "
                "during the original forward and recomputation.\n"
                f"Number of tensors saved during forward: {expected}\n"
                f"Number of tensors saved during recomputation: {len(values)}."
            )
        different = ""
        for i in range(expected):
            now = _metadata(values[i])
            if now != self.saved[i]:
                different += f"tensor at position {i}:\nsaved metadata: {self.saved[i]}\nrecomputed metadata: {now}\n"
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors "
                f"have different metadata than during the forward pass.\n{different}."
            )
        return values


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, early_stop):
    frame = _Frame(function, args, kwargs, preserve_rng_state, early_stop)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


class CheckpointFunction(torch.autograd.Function):
    """use_reentrant=True: forward without recording; backward recomputes
    with recording on and runs backward through what it recomputed."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng = _RngState(args) if preserve_rng_state else None
        ctx.autocast = _AutocastState()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, arg in enumerate(args):
            if torch.is_tensor(arg):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with torch.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not torch.autograd._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        outputs = _rerun(ctx.run_function, detached, {}, ctx.rng, ctx.autocast)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        with_grad = []
        grads_with = []
        for out, g in zip(outputs, grads):
            if torch.is_tensor(out) and out.requires_grad:
                with_grad.append(out)
                grads_with.append(g)
        if len(with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward(with_grad, grads_with)
        return (None, None) + tuple(x.grad if isinstance(x, torch.Tensor) else None for x in detached)


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=noop_context_fn,
    determinism_check="default",
    debug=False,
    early_stop=True,
    preserve_rng_state=True,
    **kwargs,
):
    """`function(*args, **kwargs)` without keeping what its ops save for
    backward: backward runs it again to get those tensors back."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. In a future release, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants."
        )
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` "
                "is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if context_fn is not noop_context_fn or debug is not False:
        raise NotImplementedError("cudash's checkpoint takes neither `context_fn` nor `debug`")
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, early_stop)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """A sequential model (or a list of functions) run in `segments` parts,
    each but the last under `checkpoint`."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In a future release, we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants."
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
