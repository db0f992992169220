"""PyTorch's `torch.func` (functorch's transforms), as cudash gives it:
`vmap`, `grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`,
`hessian`, `functional_call` and `stack_module_state`, with PyTorch 2.15's
results, shapes and errors.

Two differences, both in how the work is done; the values agree to
rounding (a matrix product of one element, as the loop computes it, adds
in another order than the row of PyTorch's batched product, so a value
can differ in its last bits, and `torch.equal` with a batched formula can
fail where PyTorch's holds):

- `vmap` calls the function once per element of the mapped dimension and
  stacks the results (warned once). PyTorch's runs each op once over the
  whole batch, so it launches fewer, larger kernels and takes less time:
  what `profile`, `mem` and a timer show for a vmapped function is the
  loop's, not PyTorch's.
- The transforms are built on autograd (`torch.autograd.grad`, with
  `create_graph=True` where another transform differentiates the result),
  and `jacfwd` and `jvp` compute in reverse mode (`jvp` by the
  double-backward trick, as `torch.autograd.functional.jvp` does), where
  PyTorch's use forward-mode AD.

`from torch.func import vmap` and `torch.vmap` read this module."""
import torch
import _cudash

_LOOP = (
    "torch.vmap: cudash runs the function once per element of the mapped dimension "
    "and stacks the results; PyTorch's vmap runs each op once over the whole batch, "
    "so PyTorch launches fewer kernels, takes less time and memory than cudash shows "
    "(the values agree to rounding: a product of one element adds in another order "
    "than a row of PyTorch's batched one)"
)

# Whether the loop's note was shown (once a session).
_warned = [False]

# How many grad-like transforms (grad, vjp, jvp, jacrev) are running: an
# inner one keeps its results' history for the outer one to differentiate.
_depth = [0]


# ---- trees of tensors (a tensor, or tuples, lists and dicts of them) ----


def _is_leaf(x):
    return not isinstance(x, (tuple, list, dict))


def _leaves(tree):
    if isinstance(tree, dict):
        out = []
        for k in tree:
            out.extend(_leaves(tree[k]))
        return out
    if isinstance(tree, (tuple, list)):
        out = []
        for x in tree:
            out.extend(_leaves(x))
        return out
    return [tree]


def _rebuild(tree, items, at=None):
    # `tree`'s structure with its leaves taken in order from `items`.
    if at is None:
        at = [0]
    if isinstance(tree, dict):
        return {k: _rebuild(tree[k], items, at) for k in tree}
    if isinstance(tree, (tuple, list)):
        made = [_rebuild(x, items, at) for x in tree]
        return tuple(made) if isinstance(tree, tuple) else made
    x = items[at[0]]
    at[0] += 1
    return x


def _map(tree, fn):
    return _rebuild(tree, [fn(x) for x in _leaves(tree)])


def _tensors_in(tree):
    return [x for x in _leaves(tree) if isinstance(x, torch.Tensor)]


def _any_requires_grad(trees):
    for tree in trees:
        for t in _tensors_in(tree):
            if t.requires_grad:
                return True
    return False


def _fresh(tree):
    # The inputs a transform differentiates: a view keeping an outer
    # history (another transform's, or the program's autograd), else a new
    # leaf that requires grad.
    def one(t):
        if not isinstance(t, torch.Tensor):
            return t
        if t.requires_grad:
            return t.view_as(t)
        return t.detach().requires_grad_()

    return _map(tree, one)


def _done(tree, keep):
    if keep:
        return tree
    return _map(tree, lambda t: t.detach() if isinstance(t, torch.Tensor) else t)


def _argnums(argnums, n, fn):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if isinstance(argnums, tuple) and len(argnums) == 0:
        raise RuntimeError(f"{fn}: argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(
                f"{fn}: argnums must be int or Tuple[int, ...], got: {type(argnums)}"
            )
        if a < -n or a >= n:
            raise RuntimeError(
                f"Got argnum={a}, but only {n} positional inputs"
            )
    return tuple(a % n for a in nums)


def _grads(outs, inputs, cotangents, create_graph):
    # d(outs)/d(inputs) against `cotangents`: zeros where an input is not reached.
    pairs = [(o, c) for o, c in zip(outs, cotangents) if o.requires_grad]
    if len(pairs) == 0:
        return [torch.zeros_like(x) for x in inputs]
    found = torch.autograd.grad(
        [o for o, _ in pairs],
        inputs,
        [c for _, c in pairs],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )
    return [torch.zeros_like(x) if g is None else g for g, x in zip(found, inputs)]


# ---- vmap ----


def _dims_for(arg, dim):
    # `dim` (an int or None, or a structure like `arg`'s) for each leaf of `arg`.
    if dim is None or isinstance(dim, int):
        return [dim] * len(_leaves(arg))
    if isinstance(arg, dict) and isinstance(dim, dict):
        out = []
        for k in arg:
            out.extend(_dims_for(arg[k], dim[k]))
        return out
    if isinstance(arg, (tuple, list)) and isinstance(dim, (tuple, list)) and len(arg) == len(dim):
        out = []
        for a, d in zip(arg, dim):
            out.extend(_dims_for(a, d))
        return out
    raise ValueError(
        f"vmap(in_dims={dim}, ...)(<inputs>): in_dims is not compatible with the "
        "structure of `inputs`. in_dims has structure "
        f"{type(dim).__name__} but inputs has structure {type(arg).__name__}."
    )


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`func` mapped over dimension `in_dims` of its inputs, its results
    stacked along `out_dims` (computed one element at a time: see the module's
    note)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )

    name = getattr(func, "__name__", repr(func))

    def wrapped(*args, **kwargs):
        if isinstance(in_dims, int):
            dims = [in_dims] * len(args)
        elif isinstance(in_dims, (tuple, list)):
            if len(in_dims) != len(args):
                raise ValueError(
                    f"vmap({name}, in_dims={tuple(in_dims)}, ...)(<inputs>): in_dims is not "
                    "compatible with the structure of `inputs`. in_dims has structure "
                    f"{len(in_dims)} items but inputs has structure {len(args)} items."
                )
            dims = list(in_dims)
        else:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}."
            )
        flat = []
        flat_dims = []
        for a, d in zip(args, dims):
            flat.extend(_leaves(a))
            flat_dims.extend(_dims_for(a, d))
        sizes = []
        for x, d in zip(flat, flat_dims):
            if d is None:
                continue
            if not isinstance(x, torch.Tensor):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                    f"but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                    "arguments, please use None as the respective in_dim"
                )
            if d < -x.dim() or d >= max(x.dim(), 1) or x.dim() == 0:
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                    f"but that input is a Tensor of dimensionality {x.dim()} so expected "
                    f"in_dim to satisfy -{x.dim()} <= in_dim < {x.dim()}."
                )
            sizes.append(x.shape[d])
        if len(sizes) == 0:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one input must be "
                "mapped over (got in_dims=None for every input)."
            )
        if any(s != sizes[0] for s in sizes):
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped "
                f"dimension, got sizes {sizes} for the mapped dimension"
            )
        if not _warned[0]:
            _warned[0] = True
            _cudash.warn(_LOOP)
        n = sizes[0]
        saved = None
        if randomness == "same":
            on_gpus = torch.cuda.is_available()
            saved = (torch.get_rng_state(), torch.cuda.get_rng_state_all() if on_gpus else None)
        results = []
        # Each mapped input's slices, as views (`unbind` makes them once).
        sliced = [None if d is None else x.unbind(d) for x, d in zip(flat, flat_dims)]
        # A backward inside keeps its graph for the elements after (PyTorch
        # runs it once, batched, and frees the graph then: after the last).
        outer = _cudash.vmap_retain()
        refused = _cudash.vmap_random_refused(randomness == "error")
        try:
            for b in range(n):
                if saved is not None:
                    torch.set_rng_state(saved[0])
                    if saved[1] is not None:
                        torch.cuda.set_rng_state_all(saved[1])
                items = [x if s is None else s[b] for x, s in zip(flat, sliced)]
                at = 0
                call = []
                for a in args:
                    k = len(_leaves(a))
                    call.append(_rebuild(a, items[at : at + k]))
                    at += k
                _cudash.vmap_retain(outer or b < n - 1)
                results.append(func(*call, **kwargs))
        finally:
            _cudash.vmap_retain(outer)
            _cudash.vmap_random_refused(refused)
        return _stacked(results, out_dims, n)

    return wrapped


def _stacked(results, out_dims, n):
    first = results[0]
    outs = [_leaves(r) for r in results]
    leaves = _leaves(first)
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(leaves)
    else:
        dims = _dims_for(first, out_dims)
    made = []
    for k, x in enumerate(leaves):
        if not isinstance(x, torch.Tensor):
            raise ValueError(
                "vmap(<function>, ...): `<function>` must only return Tensors, got type "
                f"{type(x)}. Did you mean to set out_dims= to None for output?"
            )
        column = [o[k] for o in outs]
        if dims[k] is None:
            made.append(column[0])
        else:
            made.append(torch.stack(column, dim=dims[k]))
    return _rebuild(first, made)


# ---- grad, vjp, jvp ----


def _keeps(args, argnums, fn):
    # Whether a transform's results keep their history: inside another
    # transform, or where an input has one (the program's autograd).
    nums = _argnums(argnums, len(args), fn)
    return _depth[0] > 0 or _any_requires_grad([args[i] for i in nums])


def _call_differentiating(func, args, argnums, has_aux, fn):
    # func(*args) with the argnums inputs fresh leaves: (output, aux, the
    # fresh inputs by argnum, their numbers).
    nums = _argnums(argnums, len(args), fn)
    args = list(args)
    for i in nums:
        args[i] = _fresh(args[i])
    with torch.enable_grad():
        out = func(*args)
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(
                f"{fn}(f, ...)(*args): output of function f should be a tuple: (output, aux) "
                "if has_aux is True"
            )
        out, aux = out
    return out, aux, [args[i] for i in nums], nums


def grad_and_value(func, argnums=0, has_aux=False):
    """`func`'s gradient with respect to the inputs `argnums`, and its value."""

    def wrapped(*args, **kwargs):
        keep = _keeps(args, argnums, "grad_and_value")
        _depth[0] += 1
        try:
            out, aux, inputs, nums = _call_differentiating(
                lambda *a: func(*a, **kwargs), args, argnums, has_aux, "grad_and_value"
            )
            if not isinstance(out, torch.Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?"
                )
            flat = []
            for t in inputs:
                flat.extend(_tensors_in(t))
            found = _grads([out], flat, [torch.ones_like(out)], keep)
            at = [0]
            made = [_rebuild(t, found, at) for t in inputs]
        finally:
            _depth[0] -= 1
        grads = made[0] if isinstance(argnums, int) else tuple(made)
        grads = _done(grads, keep)
        value = _done(out, keep)
        if has_aux:
            return grads, (value, _done(aux, keep))
        return grads, value

    return wrapped


def grad(func, argnums=0, has_aux=False):
    """`func`'s gradient with respect to its inputs `argnums` (`func` gives
    a one-element tensor)."""

    def wrapped(*args, **kwargs):
        g, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapped


def vjp(func, *primals, has_aux=False):
    """`(func(*primals), vjp_fn)`: `vjp_fn(cotangents)` gives the
    vector-Jacobian products, one per primal."""
    everything = tuple(range(len(primals)))
    keep = _keeps(primals, everything, "vjp")
    _depth[0] += 1
    try:
        out, aux, inputs, nums = _call_differentiating(
            func, primals, everything, has_aux, "vjp"
        )
    finally:
        _depth[0] -= 1
    for x in _leaves(out):
        if not isinstance(x, torch.Tensor):
            raise RuntimeError(
                f"vjp(f, *primals): Expected f to be a function that has non-empty output "
                f"(got output = {out})"
            )

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        outs = _leaves(out)
        cots = _leaves(cotangents)
        if len(cots) != len(outs):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree "
                "structure of outputs to the function."
            )
        for o, c in zip(outs, cots):
            if o.shape != c.shape:
                raise RuntimeError(
                    "Mismatch in shape: grad_output[0] has a shape of "
                    f"{c.shape} and output[0] has a shape of {o.shape}."
                )
        flat = []
        for t in inputs:
            flat.extend(_tensors_in(t))
        cg = keep or _depth[0] > 0 or bool(create_graph)
        found = _grads(outs, flat, cots, cg)
        at = [0]
        made = tuple(_rebuild(t, found, at) for t in inputs)
        return _done(made, cg)

    result = (_done(out, keep), vjp_fn)
    if has_aux:
        return result[0], vjp_fn, _done(aux, keep)
    return result


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`(func(*primals), J @ tangents)`: the Jacobian-vector product
    (computed by the double-backward trick: see the module's note)."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
            "valid to call f(*primals)."
        )
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same "
            "python structure. For example, if primals is a tuple of 3 tensors, tangents "
            "also must be. Got primals with structure "
            f"{type(primals).__name__} and tangents with structure {type(tangents).__name__}"
        )
    everything = tuple(range(len(primals)))
    keep = _keeps(primals, everything, "jvp")
    _depth[0] += 1
    try:
        out, aux, inputs, nums = _call_differentiating(
            func, primals, everything, has_aux, "jvp"
        )
        outs = _leaves(out)
        flat = []
        for t in inputs:
            flat.extend(_tensors_in(t))
        flat_tangents = []
        for p, t in zip(primals, tangents):
            flat_tangents.extend(_leaves(_like(p, t)))
        us = [torch.zeros_like(o).requires_grad_() for o in outs]
        gs = _grads(outs, flat, us, True)
        pairs = [(g, t) for g, t in zip(gs, flat_tangents) if g.requires_grad]
        if len(pairs) == 0:
            jv = [torch.zeros_like(o) for o in outs]
        else:
            found = torch.autograd.grad(
                [g for g, _ in pairs],
                us,
                [t for _, t in pairs],
                retain_graph=True,
                create_graph=keep,
                allow_unused=True,
            )
            jv = [torch.zeros_like(o) if j is None else j for j, o in zip(found, outs)]
    finally:
        _depth[0] -= 1
    value = _done(out, keep)
    tangent_out = _done(_rebuild(out, jv), keep)
    if has_aux:
        return value, tangent_out, _done(aux, keep)
    return value, tangent_out


def _like(primal, tangent):
    # The tangent in the primal's order (a dict's keys in the primal's order).
    if isinstance(primal, dict):
        return {k: _like(primal[k], tangent[k]) for k in primal}
    if isinstance(primal, (tuple, list)):
        return [_like(p, t) for p, t in zip(primal, tangent)]
    return tangent


# ---- Jacobians and Hessians ----


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of `func` with respect to the inputs `argnums`, one row
    per output element (reverse mode): shaped `output.shape + input.shape`."""

    def wrapped(*args, **kwargs):
        keep = _keeps(args, argnums, "jacrev")
        _depth[0] += 1
        try:
            out, aux, inputs, nums = _call_differentiating(
                lambda *a: func(*a, **kwargs), args, argnums, has_aux, "jacrev"
            )
            outs = _leaves(out)
            flat = []
            for t in inputs:
                flat.extend(_tensors_in(t))
            per_output = []
            for o in outs:
                rows = []
                for k in range(o.numel()):
                    cots = []
                    for p in outs:
                        c = torch.zeros(p.numel(), dtype=p.dtype, device=p.device)
                        if p is o:
                            c[k] = 1
                        cots.append(c.reshape(p.shape))
                    rows.append(_grads(outs, flat, cots, True))
                jac = []
                for i, x in enumerate(flat):
                    if o.numel() == 0:
                        jac.append(torch.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype, device=x.device))
                    else:
                        column = torch.stack([r[i] for r in rows])
                        jac.append(column.reshape(tuple(o.shape) + tuple(x.shape)))
                at = [0]
                made = [_rebuild(t, jac, at) for t in inputs]
                per_output.append(made[0] if isinstance(argnums, int) else tuple(made))
        finally:
            _depth[0] -= 1
        result = _done(_rebuild(out, per_output), keep)
        if has_aux:
            return result, _done(aux, keep)
        return result

    return wrapped


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of `func` with respect to the inputs `argnums` (PyTorch
    computes it in forward mode; cudash in reverse mode: the same values)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of `func` with respect to the inputs `argnums`:
    `jacfwd(jacrev(func))`."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---- modules as functions ----


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """`module(*args, **kwargs)` with its parameters and buffers replaced by
    the tensors of the dict (or dicts) given, by key (`fc1.weight`), for this
    call only."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            if not isinstance(d, dict):
                raise ValueError(
                    "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
                )
            for k in d:
                if k in merged:
                    raise ValueError(
                        f"{k} appeared in multiple dictionaries; behavior of functional call is ambiguous"
                    )
                merged[k] = d[k]
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
            f"but got {type(parameter_and_buffer_dicts)}"
        )
    if strict:
        names = set(k for k, _ in module.named_parameters()) | set(k for k, _ in module.named_buffers())
        missing = sorted(names - set(merged))
        unexpected = sorted(set(merged) - names)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(
                "Error(s) in reparametrizing for " + type(module).__name__ + ":\n\t" + "\n\t".join(parts)
            )
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    if kwargs is None:
        kwargs = {}
    old = _cudash.swap_module_tensors(module, merged)
    try:
        return module(*args, **kwargs)
    finally:
        _cudash.swap_module_tensors(module, old)


def stack_module_state(models):
    """`(params, buffers)`: each parameter and buffer of the models stacked
    along a new first dimension, by name (the stacked parameters are new
    leaves that require grad)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    all_train = all(m.training for m in models)
    all_eval = all(not m.training for m in models)
    if not (all_train or all_eval):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) == first for m in models):
        raise RuntimeError(
            "stack_module_state: Expected all models to be of the same class."
        )
    all_params = [dict(m.named_parameters()) for m in models]
    params = {}
    for k in all_params[0]:
        tensors = [p[k] for p in all_params]
        need = [t.requires_grad for t in tensors]
        if any(need) and not all(need):
            raise RuntimeError(
                f"Expected {k} from each model to have the same .requires_grad"
            )
        stacked = torch.stack([t.detach() for t in tensors])
        if all(need):
            stacked = stacked.requires_grad_()
        params[k] = stacked
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: torch.stack([b[k] for b in all_buffers]) for k in all_buffers[0]}
    return params, buffers
