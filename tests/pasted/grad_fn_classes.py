# The class of an autograd node, as programs that walk a graph ask it
# (`type(fn).__name__`), and the repr of a Python Function's node.
import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


x = torch.ones(2, requires_grad=True)
y = x * 2
z = Double.apply(x)
print(type(y.grad_fn), type(y.grad_fn).__name__, type(y.grad_fn).__module__)
print(type(y.grad_fn) == type((x * 3).grad_fn), type(y.grad_fn) == type((x + 3).grad_fn))
print(isinstance(y.grad_fn, type(y.grad_fn)), isinstance(z.grad_fn, type(y.grad_fn)))
print(z.grad_fn.__class__.__name__, type(z.grad_fn).__module__, type(z.grad_fn))
print(z)
print(z.grad_fn)


def walk(fn, depth=0):
    print("  " * depth + type(fn).__name__)
    for next_fn, _ in fn.next_functions:
        if next_fn is not None:
            walk(next_fn, depth + 1)


walk((Double.apply(x * 3) + y.exp()).sum().grad_fn)
print(isinstance(y.grad_fn, torch.autograd.graph.Node), isinstance(x, torch.autograd.graph.Node),
      isinstance(z.grad_fn, torch.autograd.graph.Node))
