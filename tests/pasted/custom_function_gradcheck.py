# Custom autograd Functions checked with gradcheck, as PyTorch's "Fusing
# Convolution and Batch Norm using Custom Function" tutorial writes them
# (intermediate_source/custom_function_conv_bn_tutorial.py), with smaller
# inputs; then gradcheck's failures, fast mode and gradgradcheck.
import math
import warnings
from statistics import mean, median, stdev

import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def convolution_backward(grad_out, X, weight):
    grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
    grad_X = F.conv_transpose2d(grad_out, weight)
    return grad_X, grad_input


class Conv2D(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, weight):
        ctx.save_for_backward(X, weight)
        return F.conv2d(X, weight)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        X, weight = ctx.saved_tensors
        return convolution_backward(grad_out, X, weight)


def formula(*shape, scale=1.0):
    n = math.prod(shape)
    return (torch.arange(n, dtype=torch.double, device=device).sin() * scale).reshape(shape)


weight = formula(4, 3, 3, 3).requires_grad_()
X = formula(2, 3, 5, 5, scale=0.5).requires_grad_()
print("Conv2D:", torch.autograd.gradcheck(Conv2D.apply, (X, weight)))


def unsqueeze_all(t):
    return t[None, :, None, None]


def batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
    tmp = ((X - unsqueeze_all(sum) / N) * grad_out).sum(dim=(0, 2, 3))
    tmp *= -1
    d_denom = tmp / (sqrt_var + eps) ** 2
    d_var = d_denom / (2 * sqrt_var)
    d_mean_dx = grad_out / unsqueeze_all(sqrt_var + eps)
    d_mean_dx = unsqueeze_all(-d_mean_dx.sum(dim=(0, 2, 3)) / N)
    grad_input = X * unsqueeze_all(d_var * N)
    grad_input += unsqueeze_all(-d_var * sum)
    grad_input *= 2 / ((N - 1) * N)
    grad_input += d_mean_dx
    grad_input *= unsqueeze_all(sqrt_var + eps)
    grad_input += grad_out
    grad_input /= unsqueeze_all(sqrt_var + eps)
    return grad_input


class BatchNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, eps=1e-3):
        sum = X.sum(dim=(0, 2, 3))
        var = X.var(unbiased=True, dim=(0, 2, 3))
        N = X.numel() / X.size(1)
        sqrt_var = torch.sqrt(var)
        ctx.save_for_backward(X)
        ctx.eps = eps
        ctx.sum = sum
        ctx.N = N
        ctx.sqrt_var = sqrt_var
        mean = sum / N
        denom = sqrt_var + eps
        out = X - unsqueeze_all(mean)
        out /= unsqueeze_all(denom)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        (X,) = ctx.saved_tensors
        return batch_norm_backward(grad_out, X, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)


a = formula(1, 2, 3, 4).requires_grad_()
print("BatchNorm:", torch.autograd.gradcheck(BatchNorm.apply, (a,), fast_mode=False))


class FusedConvBN2DFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, conv_weight, eps=1e-3):
        assert X.ndim == 4
        ctx.save_for_backward(X, conv_weight)
        X = F.conv2d(X, conv_weight)
        sum = X.sum(dim=(0, 2, 3))
        var = X.var(unbiased=True, dim=(0, 2, 3))
        N = X.numel() / X.size(1)
        sqrt_var = torch.sqrt(var)
        ctx.eps = eps
        ctx.sum = sum
        ctx.N = N
        ctx.sqrt_var = sqrt_var
        mean = sum / N
        denom = sqrt_var + eps
        out = X - unsqueeze_all(mean)
        out /= unsqueeze_all(denom)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        X, conv_weight = ctx.saved_tensors
        X_conv_out = F.conv2d(X, conv_weight)
        grad_out = batch_norm_backward(grad_out, X_conv_out, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)
        grad_X, grad_input = convolution_backward(grad_out, X, conv_weight)
        # Two inputs were given: the extra Nones are dropped, as PyTorch does.
        return grad_X, grad_input, None, None, None, None, None


weight = formula(3, 2, 3, 3).requires_grad_()
X = formula(2, 2, 4, 4, scale=2.0).requires_grad_()
print("Fused:", torch.autograd.gradcheck(FusedConvBN2DFunction.apply, (X, weight)))
out = FusedConvBN2DFunction.apply(X, weight)
(out * formula(*out.shape)).sum().backward()
print(out.grad_fn.name(), X.grad.shape, weight.grad.shape, f"{weight.grad.abs().sum().item():.6f}")
F.relu_(out.detach())


# A backward with a mistake: gradcheck says where, or returns False.
class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # should be 2 * g * x


x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.double, device=device, requires_grad=True)
try:
    torch.autograd.gradcheck(WrongSquare.apply, (x,))
except GradcheckError as e:
    print(type(e).__name__, isinstance(e, RuntimeError), str(e).splitlines()[0])
print("raise_exception=False:", torch.autograd.gradcheck(WrongSquare.apply, (x,), raise_exception=False))
print("fast mode:", torch.autograd.gradcheck(WrongSquare.apply, (x,), fast_mode=True, raise_exception=False))
print("fast mode, right:", torch.autograd.gradcheck(torch.sin, (x,), fast_mode=True))
try:
    torch.autograd.gradcheck(torch.sin, (x.detach(),))
except ValueError as e:
    print("ValueError:", e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ok = torch.autograd.gradcheck(torch.sin, (x.float(),), eps=1e-3, atol=1e-3, raise_exception=False)
    print("float32:", ok, str(caught[0].message)[:60])

# Second derivatives: the backward of tanh, and of a product of two inputs.
y = torch.tensor([0.5, -1.0], dtype=torch.double, device=device, requires_grad=True)
print("gradgradcheck tanh:", torch.autograd.gradgradcheck(torch.tanh, (y,)))
print("gradgradcheck mul:", torch.autograd.gradgradcheck(lambda a, b: a * b.exp(), (y, x[:2])))

# A double tensor's element takes a Python float's 53 bits.
z = torch.zeros(3, dtype=torch.double, device=device)
z[1] = 0.1 + 1e-9
z.view(-1)[2] = 1 / 3
print(z[1].item(), z[2].item())

# statistics, as the tutorial averages memory_allocated() samples
allocated = [1048576, 3145728, 2097152, 4194304]
print(mean(allocated), mean(allocated) / 1024**2, median(allocated), f"{stdev(allocated):.3f}")
print(mean([0.1, 0.2, 0.3]), math.fsum([0.1] * 10), sum([0.1] * 10))

# gradcheck perturbs its inputs through `.data`: the same memory with a
# version counter of its own, so autograd does not see the change (and a
# backward silently uses the new values), where `detach()` shares it.
w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
loss = (w * w).sum()
w.data[0] = 5.0
loss.backward()
print(w.grad.tolist(), w._version, w.data._version)
v = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
loss = (v * v).sum()
v.detach()[0] = 5.0
try:
    loss.backward()
except RuntimeError as e:
    print(str(e)[:68])
d = v.data
d.copy_(torch.ones(2))
d.add_(1)
print(d._version, v._version, v.detach()._version, v.tolist())
