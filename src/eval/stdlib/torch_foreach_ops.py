# torch._foreach_*: one op over lists of tensors, as optimizers and weight
# averaging write them (`torch._foreach_lerp_(ema, params, 0.001)`).
# PyTorch runs each list as few fused kernels (multi_tensor_apply); cudash
# runs the op tensor by tensor, so the values and the memory are PyTorch's
# and the kernel count is one per tensor.
import torch


def _pairs(name, xs, ys):
    xs = list(xs)
    if isinstance(ys, (list, tuple)):
        ys = list(ys)
        if len(xs) != len(ys):
            raise RuntimeError(
                f"Tensor lists must have the same number of tensors, got {len(xs)} and {len(ys)}"
            )
        return list(zip(xs, ys))
    return [(x, ys) for x in xs]


def _foreach_add(self, other, alpha=1):
    return [x.add(y, alpha=alpha) if isinstance(y, torch.Tensor) else x + y * alpha for x, y in _pairs("add", self, other)]


def _foreach_add_(self, other, alpha=1):
    for x, y in _pairs("add_", self, other):
        x.add_(y, alpha=alpha) if isinstance(y, torch.Tensor) else x.add_(y * alpha)


def _foreach_sub(self, other, alpha=1):
    return [x.sub(y, alpha=alpha) if isinstance(y, torch.Tensor) else x - y * alpha for x, y in _pairs("sub", self, other)]


def _foreach_sub_(self, other, alpha=1):
    for x, y in _pairs("sub_", self, other):
        x.sub_(y, alpha=alpha) if isinstance(y, torch.Tensor) else x.sub_(y * alpha)


def _foreach_mul(self, other):
    return [x * y for x, y in _pairs("mul", self, other)]


def _foreach_mul_(self, other):
    for x, y in _pairs("mul_", self, other):
        x.mul_(y)


def _foreach_div(self, other):
    return [x / y for x, y in _pairs("div", self, other)]


def _foreach_div_(self, other):
    for x, y in _pairs("div_", self, other):
        x.div_(y)


def _foreach_lerp(self, tensors, weight):
    weights = weight if isinstance(weight, (list, tuple)) else [weight] * len(self)
    return [x.lerp(y, w) for (x, y), w in zip(_pairs("lerp", self, tensors), weights)]


def _foreach_lerp_(self, tensors, weight):
    weights = weight if isinstance(weight, (list, tuple)) else [weight] * len(self)
    for (x, y), w in zip(_pairs("lerp_", self, tensors), weights):
        x.lerp_(y, w)


def _foreach_addcmul_(self, tensor1, tensor2, value=1):
    values = value if isinstance(value, (list, tuple)) else [value] * len(self)
    for (x, a), b, v in zip(_pairs("addcmul_", self, tensor1), tensor2, values):
        x.addcmul_(a, b, value=v)


def _foreach_addcdiv_(self, tensor1, tensor2, value=1):
    values = value if isinstance(value, (list, tuple)) else [value] * len(self)
    for (x, a), b, v in zip(_pairs("addcdiv_", self, tensor1), tensor2, values):
        if isinstance(v, torch.Tensor):
            x.add_(a / b * v)
        else:
            x.addcdiv_(a, b, value=v)


def _foreach_copy_(self, src, non_blocking=False):
    for x, y in _pairs("copy_", self, src):
        x.copy_(y, non_blocking=non_blocking)


def _foreach_zero_(self):
    for x in self:
        x.zero_()


def _foreach_neg(self):
    return [-x for x in self]


def _foreach_sqrt(self):
    return [x.sqrt() for x in self]


def _foreach_sqrt_(self):
    for x in self:
        x.sqrt_()


def _foreach_abs(self):
    return [x.abs() for x in self]


def _foreach_exp(self):
    return [x.exp() for x in self]


def _foreach_maximum_(self, other):
    for x, y in _pairs("maximum_", self, other):
        x.copy_(torch.maximum(x, y if isinstance(y, torch.Tensor) else torch.full_like(x, y)))


def _foreach_clamp_min_(self, scalar):
    for x in self:
        x.clamp_(min=scalar)


def _foreach_norm(self, ord=2):
    return [torch.linalg.vector_norm(x, ord) for x in self]
