"""PyTorch's `torch.autograd.functional`, as cudash gives it: written for
cudash on `torch.autograd.grad` (with `create_graph=True` where a second
derivative is needed), giving PyTorch 2.15's results, shapes and errors:
`jacobian`, `hessian`, `vjp`, `jvp`, `vhp` and `hvp`. The jacobian is built
in reverse mode, one row per output element (`vectorize=True` and
`strategy="forward-mode"` are refused); `jvp` and `hvp` use the
double-backward trick, as PyTorch's do.

`from torch.autograd.functional import jacobian` reads this module."""
import torch


def _tupled(x, what, fn):
    # (whether x was a tuple, x as a tuple of tensors), checked.
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, torch.Tensor):
            if is_tuple:
                where = f"the value at index {i} has type {type(t)}"
            else:
                where = f"the given {what} has type {type(t)}"
            raise TypeError(
                f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but {where}."
            )
    return is_tuple, tuple(items)


def _untupled(res, is_tuple):
    return res if is_tuple else res[0]


def _fresh(tensors, create_graph, need_graph):
    # New tensor objects, so that the ones the function closes over stay
    # apart: a view keeping the history when a graph is created, else a
    # detached leaf.
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _done(tensors, create_graph):
    # Without create_graph the results carry no history.
    if create_graph:
        return tuple(tensors)
    return tuple(t.detach() for t in tensors)


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    # `grad` of the outputs that require grad (none for each input when
    # none does); an input they do not reach gets none.
    outs = []
    gos = []
    for k, out in enumerate(outputs):
        if out is not None and out.requires_grad:
            outs.append(out)
            gos.append(None if grad_outputs is None else grad_outputs[k])
    if len(outs) == 0:
        return (None,) * len(inputs)
    found = torch.autograd.grad(
        outs,
        list(inputs),
        gos,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )
    return tuple(found)


def _or_zeros(grads, refs, strict, what):
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(what.format(i=i))
            g = torch.zeros_like(refs[i])
        out.append(g)
    return tuple(out)


def _check_outputs(outputs, strict):
    if not strict:
        return
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients."
                " The outputs must be computed in a differentiable manner from the input"
                " when running in strict mode."
            )


def _check_jacobian(first, strict):
    # In strict mode a Hessian needs a gradient that depends on the inputs.
    if not strict:
        return
    for i, g in enumerate(first):
        if g is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}."
                " This is not allowed in strict mode."
            )
        if not g.requires_grad:
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided"
                f" function with respect to input {i} is independent of the input. This is not"
                " allowed in strict mode. You should ensure that your function is twice"
                " differentiable and that the jacobian depends on the inputs (this would be"
                " violated by a linear function for example)."
            )


def _check_v(v, other, other_is_tuple):
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i in range(len(v)):
        if v[i].shape != other[i].shape:
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {other[i].shape} but got {v[i].shape}."
            )


def _v_of(v, refs, refs_tuple, fn, create_graph, none_ok):
    # The vector `v` as a tuple matching `refs`; none only where `refs` is
    # one single-element tensor.
    if v is None:
        if not none_ok:
            raise RuntimeError(none_ok_message(fn))
        return None
    _, v = _tupled(v, "v", fn)
    v = _fresh(v, create_graph, False)
    _check_v(v, refs, refs_tuple)
    return v


def none_ok_message(fn):
    if fn == "vjp":
        return (
            "The vector v can only be None if the user-provided function returns a single "
            "Tensor with a single element."
        )
    return (
        "The vector v can only be None if the input to the user-provided function is a "
        "single Tensor with a single element."
    )


def _single(outputs, outputs_tuple, fn):
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn} should contain a single element"
        )


def _finish(outputs, product, tupled, create_graph):
    # What vjp, jvp, vhp and hvp give back: the outputs and the product,
    # without history unless a graph is created, tupled as given.
    outputs_tuple, product_tuple = tupled
    outputs = _done(outputs, create_graph)
    product = _done(product, create_graph)
    return _untupled(outputs, outputs_tuple), _untupled(product, product_tuple)


def _product(outputs, inputs, v, create_graph, refs_strict_what):
    # `grad` of outputs by inputs with v, recorded only when a graph is
    # created (or grad mode is on), none filled with zeros.
    refs, strict, what = refs_strict_what
    with torch.set_grad_enabled(create_graph or torch.is_grad_enabled()):
        found = _grads(outputs, inputs, v, create_graph=create_graph)
        return _or_zeros(found, refs, strict, what)


def _prepared(inputs, v, fn, create_graph):
    # The inputs (fresh tensors) and the vector v for jvp, vhp and hvp.
    inputs_tuple, inputs = _tupled(inputs, "inputs", fn)
    inputs = _fresh(inputs, create_graph, True)
    single = len(inputs) == 1 and inputs[0].numel() == 1
    return inputs_tuple, inputs, _v_of(v, inputs, inputs_tuple, fn, create_graph, single)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's outputs and the vector-Jacobian product `v^T J`."""
    with torch.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, True)
        outputs_tuple, outputs = _tupled(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_outputs(outputs, strict)
        single = len(outputs) == 1 and outputs[0].numel() == 1
        v = _v_of(v, outputs, outputs_tuple, "vjp", create_graph, single)
    what = (
        "The output of the user-provided function is independent of input {i}. "
        "This is not allowed in strict mode."
    )
    product = _product(outputs, inputs, v, create_graph, (inputs, strict, what))
    return _finish(outputs, product, (outputs_tuple, inputs_tuple), create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's outputs and the Jacobian-vector product `J v`, by the
    double-backward trick: the vjp with a gradient that requires grad,
    differentiated by that gradient."""
    with torch.enable_grad():
        inputs_tuple, inputs, v = _prepared(inputs, v, "jvp", create_graph)
        outputs_tuple, outputs = _tupled(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_outputs(outputs, strict)
        dummies = tuple(torch.zeros_like(out).requires_grad_(True) for out in outputs)
        back = _grads(outputs, inputs, dummies, create_graph=True)
    what = (
        "The gradient with respect to the input is independent of entry {i} in the "
        "grad_outputs when using the double backward trick to compute forward mode "
        "gradients. This is not allowed in strict mode."
    )
    product = _product(back, dummies, v, create_graph, (outputs, strict, what))
    return _finish(outputs, product, (outputs_tuple, outputs_tuple), create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: for each output and input, a
    tensor of shape `output.shape + input.shape`."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if vectorize or strategy == "forward-mode":
        raise NotImplementedError(
            "cudash's jacobian is built in reverse mode, one row at a time: vectorize=True "
            'and strategy="forward-mode" are not here'
        )
    with torch.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, True)
        outputs_tuple, outputs = _tupled(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_outputs(outputs, strict)
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.numel()):
                row = _grads((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k in range(len(inputs)):
                    if row[k] is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        rows[k].append(torch.zeros_like(inputs[k]))
                    else:
                        rows[k].append(row[k])
            per_input = []
            for k in range(len(inputs)):
                shape = tuple(out.shape) + tuple(inputs[k].shape)
                per_input.append(torch.stack(rows[k], 0).view(shape))
            result.append(_done(per_input, create_graph))
    return _untupled(tuple(_untupled(r, inputs_tuple) for r in result), outputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function of one element at `inputs`: the Jacobian
    of its gradient (for inputs `(a, b)`, the blocks `((aa, ab), (ba, bb))`)."""
    inputs_tuple, inputs = _tupled(inputs, "inputs", "hessian")

    def one_element(*inp):
        out = func(*inp)
        outputs_tuple, outputs = _tupled(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outputs, strict)
        _single(outputs, outputs_tuple, "hessian")
        return out.squeeze()

    def gradient(*inp):
        g = jacobian(one_element, inp, create_graph=True)
        _check_jacobian(g, strict)
        return g

    blocks = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    if not inputs_tuple:
        return blocks[0][0]
    return blocks


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's output and the vector-Hessian product `v^T H`."""
    with torch.enable_grad():
        inputs_tuple, inputs, v = _prepared(inputs, v, "vhp", create_graph)
        outputs_tuple, outputs = _tupled(
            func(*inputs), "outputs of the user-provided function", "vhp"
        )
        _check_outputs(outputs, strict)
        _single(outputs, outputs_tuple, "vhp")
        first = _grads(outputs, inputs, create_graph=True)
        _check_jacobian(first, strict)
    what = (
        "The jacobian of the user-provided function is independent of input {i}. "
        "This is not allowed in strict mode."
    )
    product = _product(first, inputs, v, create_graph, (inputs, strict, what))
    return _finish(outputs, product, (outputs_tuple, inputs_tuple), create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's output and the Hessian-vector product `H v`, by the
    double-backward trick (for a symmetric Hessian, `vhp`'s values)."""
    with torch.enable_grad():
        inputs_tuple, inputs, v = _prepared(inputs, v, "hvp", create_graph)
        outputs_tuple, outputs = _tupled(
            func(*inputs), "outputs of the user-provided function", "hvp"
        )
        _check_outputs(outputs, strict)
        _single(outputs, outputs_tuple, "hvp")
        first = _grads(outputs, inputs, create_graph=True)
        _check_jacobian(first, strict)
        dummies = tuple(torch.zeros_like(t).requires_grad_(True) for t in inputs)
        second = _grads(first, inputs, dummies, create_graph=True)
    what = (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
        "double backward trick to replace forward mode AD."
    )
    product = _product(second, dummies, v, create_graph, (inputs, strict, what))
    return _finish(outputs, product, (outputs_tuple, inputs_tuple), create_graph)
