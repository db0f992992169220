"""torch.optim.Rprop and torch.optim.ASGD, as PyTorch 2.15's
single-tensor loops compute them (for-loop over the parameters; PyTorch's
foreach and fused kernels compute the same values, several parameters a
kernel): written for cudash on `torch.optim.Optimizer`, so they have
`state_dict`, hooks, the profiler's `Optimizer.step` range and the
schedulers, as a program's own optimizer does.

- `Rprop`: each element's step size grows by `etas[1]` while its
  gradient keeps its sign and shrinks by `etas[0]` when it flips (that
  step then skipped), within `step_sizes`; the parameter moves by its step
  size against the gradient's sign.
- `ASGD`: SGD with a decaying rate `eta = lr / (1 + lambd * lr * t) **
  alpha`, a decay of the parameter, and a running average `ax` of the
  parameters from step `t0` on."""

import torch
from torch.optim.optimizer import Optimizer


def _scalar(x):
    return x.item() if isinstance(x, torch.Tensor) else x


def _closure_loss(closure):
    # `step(closure)`: the closure's loss, its gradients made in grad mode.
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


def _check_lr(lr, words="Invalid learning rate: {}"):
    if isinstance(lr, torch.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(words.format(lr))


class Rprop(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                if grad.is_sparse:
                    raise RuntimeError("Rprop does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["prev"] = torch.zeros_like(p)
                    state["step_size"] = torch.full_like(grad, _scalar(group["lr"]))
                with torch.no_grad():
                    grad = grad if not group["maximize"] else -grad
                    prev = state["prev"]
                    step_size = state["step_size"]
                    state["step"] += 1
                    sign = grad.mul(prev).sign()
                    sign[sign.gt(0)] = etaplus
                    sign[sign.lt(0)] = etaminus
                    sign[sign.eq(0)] = 1
                    step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                    grad = grad.clone()
                    grad[sign.eq(etaminus)] = 0
                    p.addcmul_(grad.sign(), step_size, value=-1)
                    prev.copy_(grad)
        return loss


class ASGD(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError("ASGD does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.zeros(())
                    state["eta"] = torch.as_tensor(_scalar(lr)).clone().detach()
                    state["mu"] = torch.ones(())
                    state["ax"] = torch.zeros_like(p)
                with torch.no_grad():
                    grad = p.grad if not group["maximize"] else -p.grad
                    state["step"] += 1
                    step = state["step"].item()
                    if group["weight_decay"] != 0:
                        grad = grad.add(p, alpha=group["weight_decay"])
                    eta_value = state["eta"].item()
                    p.mul_(1 - lambd * eta_value)
                    p.add_(grad, alpha=-eta_value)
                    ax = state["ax"]
                    if state["mu"].item() != 1:
                        ax.add_(p.sub(ax).mul_(state["mu"]))
                    else:
                        ax.copy_(p)
                    state["eta"].copy_(torch.as_tensor(_scalar(lr) / ((1 + lambd * _scalar(lr) * step) ** alpha)))
                    state["mu"].copy_(torch.as_tensor(1 / max(1, step - t0)))
        return loss


class Adafactor(Optimizer):
    """Adafactor (PyTorch's, after Shazeer and Stern): the second moment of
    a matrix's gradient kept as its rows' and columns' means (a vector's in
    full), its update clipped to RMS `d`, the step `max(eps2, RMS(param)) *
    min(lr, 1 / sqrt(t))`, the moment's decay `t ** beta2_decay`."""

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        _check_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError("Adafactor does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    if p.grad.dim() > 1:
                        row_shape = list(p.grad.shape)
                        row_shape[-1] = 1
                        state["row_var"] = p.grad.new_zeros(row_shape)
                        col_shape = list(p.grad.shape)
                        col_shape[-2] = 1
                        state["col_var"] = p.grad.new_zeros(col_shape)
                    else:
                        state["variance"] = torch.zeros_like(p.grad)
                with torch.no_grad():
                    grad = p.grad if not group["maximize"] else -p.grad
                    e1 = eps1 if eps1 is not None else torch.finfo(p.dtype).eps
                    state["step"] += 1
                    t = state["step"].item()
                    one_minus_beta2_t = t ** group["beta2_decay"]
                    rho_t = min(lr, 1 / (t**0.5))
                    alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
                    if group["weight_decay"] != 0:
                        p.mul_(1 - lr * group["weight_decay"])
                    if grad.dim() > 1:
                        row_var, col_var = state["row_var"], state["col_var"]
                        row_mean = torch.linalg.vector_norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                        row_var.lerp_(row_mean, one_minus_beta2_t)
                        col_mean = torch.linalg.vector_norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                        col_var.lerp_(col_mean, one_minus_beta2_t)
                        var_estimate = row_var @ col_var
                        var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
                    else:
                        variance = state["variance"]
                        variance.lerp_(grad * grad, one_minus_beta2_t)
                        var_estimate = variance.clone()
                    update = var_estimate.clamp_(min=e1 * e1).rsqrt_()
                    update.mul_(grad)
                    denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
                    p.add_(update, alpha=-alpha / denom)
        return loss
