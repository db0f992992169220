"""PyTorch's `torch.autograd.gradcheck`, as cudash gives it: `gradcheck`
compares the gradients backward computes (the analytical Jacobian, one
backward per output element, run twice to see that backward gives the same
numbers again) with central finite differences (the numerical Jacobian, two
calls of the function per input element), with PyTorch's defaults
(`eps=1e-6`, `atol=1e-5`, `rtol=1e-3`), warnings and errors;
`fast_mode=True` compares one random projection of each instead, as
PyTorch's fast mode. `gradgradcheck` runs `gradcheck` on the function's
backward (`create_graph=True`). `check_forward_ad=True` also compares the
Jacobian forward-mode AD computes (one dual-level run per input element,
or one along the random direction in fast mode) with the same finite
differences. Not checked: undefined output gradients, batched gradients."""
import warnings

import torch


class GradcheckError(RuntimeError):
    """Error raised by `gradcheck` and `gradgradcheck`."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _checked_inputs(inputs):
    # The inputs the Jacobians are taken with respect to, with PyTorch's
    # warnings and errors.
    wanted = []
    for idx, t in enumerate(inputs):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            if t.dtype != torch.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are not of double precision floating point or complex. "
                )
            if any(s == 0 and n > 1 for s, n in zip(t.stride(), t.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                    "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck."
                )
            wanted.append(idx)
    if not wanted:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    return wanted


def _outputs(fn, inputs):
    return _as_tuple(fn(*inputs))


def _differentiable(outputs):
    return [o for o in outputs if isinstance(o, torch.Tensor) and o.requires_grad]


def _float_outputs(outputs):
    return [o for o in outputs if isinstance(o, torch.Tensor) and o.is_floating_point()]


def _unravel(k, shape):
    idx = []
    for n in reversed(shape):
        idx.append(k % n)
        k //= n
    return tuple(reversed(idx))


def _numerical(fn, inputs, wanted, eps):
    # Per input index: per float output, a Jacobian [input numel, output
    # numel] of central differences. As PyTorch's, each element of the
    # input is perturbed in place through `.data` (autograd does not count
    # it as a change) and the function called with the inputs themselves (a
    # function that differentiates inside, as gradgradcheck's, sees tensors
    # that require grad).
    result = {}
    for j in wanted:
        data = inputs[j].data
        shape = tuple(data.shape)
        cols = []
        for k in range(data.numel()):
            at = _unravel(k, shape)
            orig = data[at].item()
            with torch.no_grad():
                data[at] = orig - eps
            before = [o.detach().clone() for o in _float_outputs(_outputs(fn, inputs))]
            with torch.no_grad():
                data[at] = orig + eps
            after = [o.detach().clone() for o in _float_outputs(_outputs(fn, inputs))]
            with torch.no_grad():
                data[at] = orig
            cols.append([((a - b) / (2 * eps)).reshape(-1) for a, b in zip(after, before)])
        n_out = len(cols[0]) if cols else 0
        result[j] = [torch.stack([c[i] for c in cols]) for i in range(n_out)]
    return result


def _analytical(output, inputs, wanted):
    # Per input index: [input numel, output numel], one backward per output
    # element with a one-hot gradient.
    cols = {j: [] for j in wanted}
    targets = [inputs[j] for j in wanted]
    for m in range(output.numel()):
        # Row-major whatever the output's layout (m counts its elements so).
        grad_out = torch.zeros_like(output, memory_format=torch.contiguous_format)
        grad_out.view(-1)[m] = 1
        grads = torch.autograd.grad(output, targets, grad_out, retain_graph=True, allow_unused=True)
        for j, g, t in zip(wanted, grads, targets):
            if g is None:
                g = torch.zeros_like(t)
            elif g.shape != t.shape:
                raise GradcheckError("Analytical gradient has incorrect size")
            cols[j].append(g.reshape(-1))
    return {j: torch.stack(cols[j], dim=1) for j in wanted}


def _forward(fn, inputs, wanted):
    # Per input index: per float output, [input numel, output numel]: row k
    # is the outputs' tangent for a one-hot tangent at element k of the
    # input (PyTorch's `_get_analytical_jacobian_forward_ad`).
    import torch.autograd.forward_ad as fwAD

    result = {}
    for j in wanted:
        x = inputs[j]
        rows = []
        for k in range(x.numel()):
            tangent = torch.zeros_like(x.detach())
            tangent.view(-1)[k] = 1
            rows.append(_tangents_out(fn, inputs, j, tangent))
        n_out = len(rows[0]) if rows else 0
        result[j] = [torch.stack([r[i] for r in rows]) for i in range(n_out)]
    return result


def _tangents_out(fn, inputs, j, tangent):
    # The float outputs' tangents (flattened) with input j carrying `tangent`.
    import torch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        duals = list(inputs)
        duals[j] = fwAD.make_dual(inputs[j], tangent)
        row = []
        for o in _float_outputs(_outputs(fn, duals)):
            t = fwAD.unpack_dual(o).tangent
            if t is None:
                t = torch.zeros_like(o)
            row.append(t.detach().reshape(-1).clone())
    return row


def _slow_forward(fn, inputs, outputs, wanted, eps, atol, rtol, raise_exception):
    numerical = _numerical(fn, inputs, wanted, eps)
    analytical = _forward(fn, inputs, wanted)
    for i, _ in enumerate(_float_outputs(outputs)):
        for j in wanted:
            n = numerical[j][i]
            a = analytical[j][i].to(n.dtype)
            if not torch.allclose(a, n, rtol, atol):
                return _fail(
                    f"Jacobian computed with forward mode mismatch for output {i:d} with respect to input {j:d},\n"
                    f"numerical:{n}\nanalytical:{a}\n",
                    raise_exception,
                )
    return True


def _fast_forward(fn, inputs, outputs, wanted, eps, atol, rtol, raise_exception):
    # v . (J u): by central differences along u, and by one forward-mode run.
    floats = _float_outputs(outputs)
    vs = [torch.rand_like(o.detach()) for o in floats]
    for j in wanted:
        u = torch.rand_like(inputs[j].detach())
        data = inputs[j].data
        base = data.clone()
        with torch.no_grad():
            data.copy_(base + eps * u)
        after = [o.detach().clone() for o in _float_outputs(_outputs(fn, inputs))]
        with torch.no_grad():
            data.copy_(base - eps * u)
        before = [o.detach() for o in _float_outputs(_outputs(fn, inputs))]
        with torch.no_grad():
            data.copy_(base)
        tangents = _tangents_out(fn, inputs, j, u)
        for i, v in enumerate(vs):
            n = ((after[i] - before[i]) / (2 * eps) * v).sum()
            a = (tangents[i] * v.reshape(-1)).sum()
            if not torch.allclose(a.to(n.dtype), n, rtol, atol):
                return _fail(
                    f"Jacobian computed with forward mode mismatch for output {i:d} with respect to input {j:d},\n"
                    f"numerical:{n}\nanalytical:{a}\n",
                    raise_exception,
                )
    return True


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _slow(fn, inputs, outputs, wanted, eps, atol, rtol, nondet_tol, raise_exception):
    numerical = _numerical(fn, inputs, wanted, eps)
    floats = _float_outputs(outputs)
    for i, out in enumerate(floats):
        if not out.requires_grad:
            for j in wanted:
                if numerical[j][i].ne(0).any():
                    return _fail("Numerical gradient for function expected to be zero", raise_exception)
            continue
        first = _analytical(out, inputs, wanted)
        again = _analytical(out, inputs, wanted)
        for j in wanted:
            a = first[j].to(numerical[j][i].dtype)
            n = numerical[j][i]
            if not torch.allclose(a, n, rtol, atol):
                return _fail(
                    f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                    f"numerical:{n}\nanalytical:{a}\n",
                    raise_exception,
                )
            if (first[j] - again[j]).abs().max() > nondet_tol:
                return _fail(
                    "Backward is not reentrant, i.e., running backward with same input and grad_output "
                    "multiple times gives different values, although analytical gradient matches numerical "
                    f"gradient.The tolerance for nondeterminism was {nondet_tol}.",
                    raise_exception,
                )
    return True


def _fast(fn, inputs, outputs, wanted, eps, atol, rtol, raise_exception):
    # One random direction u per input, one v per output: v . (J u) by
    # central differences along u against (v J) . u by one backward.
    us = {j: torch.rand_like(inputs[j].detach()) for j in wanted}
    floats = _float_outputs(outputs)
    vs = [torch.rand_like(o.detach()) for o in floats]
    numerical = {}
    for j in wanted:
        data = inputs[j].data
        base = data.clone()
        with torch.no_grad():
            data.copy_(base + eps * us[j])
        after = [o.detach().clone() for o in _float_outputs(_outputs(fn, inputs))]
        with torch.no_grad():
            data.copy_(base - eps * us[j])
        before = [o.detach() for o in _float_outputs(_outputs(fn, inputs))]
        with torch.no_grad():
            data.copy_(base)
        for i, v in enumerate(vs):
            numerical[(j, i)] = ((after[i] - before[i]) / (2 * eps) * v).sum()
    targets = [inputs[j] for j in wanted]
    for i, out in enumerate(floats):
        if not out.requires_grad:
            continue
        grads = torch.autograd.grad(out, targets, vs[i], retain_graph=True, allow_unused=True)
        for j, g in zip(wanted, grads):
            a = torch.zeros((), dtype=out.dtype) if g is None else (g * us[j]).sum()
            n = numerical[(j, i)]
            if not torch.allclose(a.to(n.dtype), n, rtol, atol):
                return _fail(
                    f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                    f"numerical:{n}\nanalytical:{a}\n\n"
                    "The above quantities relating the numerical and analytical jacobians are computed \n"
                    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
                    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n",
                    raise_exception,
                )
    return True


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """Whether `func`'s gradients with respect to the `inputs` that require
    grad agree with finite differences; a GradcheckError says where they do
    not (or False, with `raise_exception=False`)."""
    if check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError(
            "cudash's gradcheck checks no batched gradients: check_batched_grad and "
            "check_batched_forward_grad are not there"
        )
    inputs = _as_tuple(inputs)
    wanted = _checked_inputs(inputs)
    outputs = _outputs(func, inputs)
    if check_backward_ad:
        check = _fast if fast_mode else _slow
        args = (func, inputs, outputs, wanted, eps, atol, rtol)
        ok = check(*args, raise_exception) if fast_mode else check(*args, nondet_tol, raise_exception)
        if not ok:
            return False
    if check_forward_ad:
        check = _fast_forward if fast_mode else _slow_forward
        return check(func, inputs, outputs, wanted, eps, atol, rtol, raise_exception)
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """`gradcheck` of `func`'s backward: the gradients of its gradients, with
    random `grad_outputs` (uniform in [-1, 1), requiring grad) when none are
    given, as PyTorch's."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable(_outputs(func, inputs))
        grad_outputs = tuple(
            (torch.rand_like(o.detach()) * 2 - 1).requires_grad_() for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)
    wanted = [i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.requires_grad]

    def new_func(*args):
        ins = args[:n]
        gos = args[n:]
        outs = _differentiable(_outputs(func, ins))
        grads = torch.autograd.grad(
            outs, [ins[i] for i in wanted], gos, create_graph=True, allow_unused=True
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        new_func,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        fast_mode=fast_mode,
    )
