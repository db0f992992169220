# torch.cuda.CUDAGraph and torch.cuda.graph: a side stream's work captured
# once, then replayed on the same memory. Capture records the kernels
# without running them; `replay()` runs them all, reading what the static
# inputs hold then and writing the static outputs (runtime/dispatch/graph.rs).
import _cudash
import torch
from torch.func import _leaves, _rebuild


class CUDAGraph:
    """A CUDA graph: empty until a capture ends, then replayable."""

    def __init__(self, keep_graph=False):
        self._graph = _cudash.graph_new()
        self._keep_graph = keep_graph
        self._ended = False

    def capture_begin(self, pool=None, capture_error_mode="global"):
        if capture_error_mode not in ("global", "thread_local", "relaxed"):
            raise RuntimeError(
                "Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got "
                + str(capture_error_mode)
            )
        # A MemPool is shared by its id.
        pool = getattr(pool, "id", pool)
        _cudash.graph_capture_begin(self._graph, pool)

    def capture_end(self):
        _cudash.graph_capture_end(self._graph)
        self._ended = True

    def instantiate(self):
        if not self._ended:
            raise RuntimeError("capture_end() must have been called before calling instantiate")

    def replay(self):
        _cudash.graph_replay(self._graph)

    def reset(self):
        _cudash.graph_reset(self._graph)
        self._ended = False

    def pool(self):
        """The id of the private memory pool this graph's capture
        allocated from: pass it as another capture's `pool` to share it."""
        return _cudash.graph_pool(self._graph)

    def enable_debug_mode(self):
        pass


def graph_pool_handle():
    """An opaque token naming a memory pool graphs may share."""
    return _cudash.graph_pool_handle()


def is_current_stream_capturing():
    """Whether the current CUDA stream is capturing a graph."""
    return _cudash.is_current_stream_capturing()


_capture_streams = []


class graph:
    """Captures the block's CUDA work into `cuda_graph`, on a side stream
    (`stream`, or one kept for every capture)."""

    def __init__(
        self,
        cuda_graph,
        pool=None,
        stream=None,
        capture_error_mode="global",
        enable_annotations=False,
        annotation_config=None,
        check_input_liveness=False,
    ):
        if stream is None:
            if not _capture_streams:
                _capture_streams.append(torch.cuda.Stream())
            stream = _capture_streams[0]
        self.capture_stream = stream
        self.cuda_graph = cuda_graph
        self.pool = pool
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        # As PyTorch: everything queued so far finishes, and cached memory
        # goes back to the device, before the capture starts.
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        self._before = torch.cuda.current_stream(self.capture_stream.device)
        self._device = torch.cuda.current_device()
        torch.cuda.set_stream(self.capture_stream)
        self.cuda_graph.capture_begin(self.pool, capture_error_mode=self.capture_error_mode)

    def __exit__(self, *args):
        self.cuda_graph.capture_end()
        torch.cuda.set_stream(self._before)
        torch.cuda.set_device(self._device)
        return False


def make_graphed_callables(
    callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None
):
    """Each callable (a function or a module) and its backward, captured
    into two graphs: calling the result copies its arguments into the
    captured inputs and replays the forward graph; its backward replays
    the backward graph."""
    if torch.is_autocast_enabled() and torch.is_autocast_cache_enabled():
        raise RuntimeError(
            "make_graphed_callables does not support the autocast caching. Please set `cache_enabled=False`."
        )
    one = not isinstance(callables, tuple)
    if one:
        callables = (callables,)
        sample_args = (sample_args,)
    flat_args = []
    for c, args in zip(callables, sample_args):
        if isinstance(c, torch.nn.Module):
            for b in c.buffers():
                if b.requires_grad:
                    raise AssertionError(
                        "In any :class:`~torch.nn.Module` passed to :func:`~make_graphed_callables`, only "
                        "parameters may be trainable. All buffers must have ``requires_grad=False``."
                    )
        leaves = _leaves(tuple(args))
        for a in leaves:
            if not isinstance(a, torch.Tensor):
                raise AssertionError(
                    "In the beta API, sample_args for each callable must contain only Tensors. "
                    "Other types are not allowed."
                )
        flat_args.append(tuple(leaves))
    params = [tuple(c.parameters()) if isinstance(c, torch.nn.Module) else () for c in callables]
    surfaces = [flat_args[i] + params[i] for i in range(len(callables))]
    fwd_graphs = [CUDAGraph() for _ in callables]
    bwd_graphs = [CUDAGraph() for _ in callables]
    mempool = graph_pool_handle() if pool is None else pool

    # Warm up on a side stream: what runs once (lazy state) runs before capture.
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for func, args, surface in zip(callables, sample_args, surfaces):
            for _ in range(num_warmup_iters):
                outputs = _leaves(func(*args))
                needing = tuple(o for o in outputs if o.requires_grad)
                if len(needing) > 0:
                    torch.autograd.grad(
                        outputs=needing,
                        inputs=tuple(i for i in surface if i.requires_grad),
                        grad_outputs=tuple(torch.empty_like(o) for o in needing),
                        allow_unused=allow_unused_input,
                    )
    torch.cuda.synchronize()

    static_outputs = []
    out_trees = []
    for func, args, g in zip(callables, sample_args, fwd_graphs):
        with graph(g, pool=mempool, stream=stream):
            out = func(*args)
        out_trees.append(out)
        static_outputs.append(tuple(_leaves(out)))

    static_grad_outputs = [None] * len(callables)
    static_grad_inputs = [None] * len(callables)
    for i in reversed(range(len(callables))):
        grad_outs = tuple(
            torch.empty_like(o) if o.requires_grad else None for o in static_outputs[i]
        )
        needing = tuple(o for o in static_outputs[i] if o.requires_grad)
        grads = None
        if len(needing) > 0:
            with graph(bwd_graphs[i], pool=mempool, stream=stream):
                grads = torch.autograd.grad(
                    outputs=needing,
                    inputs=tuple(a for a in surfaces[i] if a.requires_grad),
                    grad_outputs=tuple(g for g in grad_outs if g is not None),
                    allow_unused=allow_unused_input,
                )
        per_input = []
        k = 0
        for a in surfaces[i]:
            if a.requires_grad and grads is not None:
                per_input.append(grads[k])
                k += 1
            else:
                per_input.append(None)
        static_grad_outputs[i] = grad_outs
        static_grad_inputs[i] = tuple(per_input)

    results = []
    for i, func in enumerate(callables):
        graphed = _graphed_function(
            fwd_graphs[i],
            bwd_graphs[i],
            params[i],
            len(flat_args[i]),
            out_trees[i],
            surfaces[i],
            static_outputs[i],
            static_grad_outputs[i],
            static_grad_inputs[i],
        )
        if isinstance(func, torch.nn.Module):
            func.forward = _graphed_forward(func, func.training, graphed)
            results.append(func)
        else:
            results.append(graphed)
    if one:
        return results[0]
    return tuple(results)


def _graphed_function(
    fwd_graph,
    bwd_graph,
    module_params,
    n_user_args,
    out_tree,
    surface,
    static_outputs,
    static_grad_outputs,
    static_grad_inputs,
):
    class Graphed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            for i in range(n_user_args):
                if surface[i].data_ptr() != inputs[i].data_ptr():
                    surface[i].copy_(inputs[i])
            fwd_graph.replay()
            return tuple(o.detach() for o in static_outputs)

        @staticmethod
        def backward(ctx, *grads):
            for g, grad in zip(static_grad_outputs, grads):
                if g is not None and g.data_ptr() != grad.data_ptr():
                    g.copy_(grad)
            bwd_graph.replay()
            return tuple(b.detach() if b is not None else None for b in static_grad_inputs)

    def functionalized(*user_args):
        flat = tuple(_leaves(tuple(user_args)))
        out = Graphed.apply(*(flat + module_params))
        if not isinstance(out, tuple):
            out = (out,)
        return _rebuild(out_tree, out)

    return functionalized


def _graphed_forward(module, training, graphed):
    # The graphs replay in the training mode they were captured in; in the
    # other mode the module runs eagerly.
    def forward(*args):
        if module.training == training:
            return graphed(*args)
        return _cudash.own_forward(module, *args)

    return forward
