"""TorchScript's decorators and calls as model code writes them:
`@torch.jit.script` over a typed function, `torch.jit.Final`,
`@torch.jit.export` and `@torch.jit.ignore` in a module, `torch.jit.script`
and `torch.jit.trace` of modules, `annotate`, `fork`/`wait`. PyTorch
compiles them (or, with PYTORCH_JIT=0, runs them as Python, which is what
cudash does); either way the numbers are the module's own, so the printed
lines agree.
"""
import warnings
from typing import List

import torch
import torch.nn as nn
from torch.jit import script, trace

warnings.filterwarnings("ignore", category=FutureWarning)


@torch.jit.script
def scaled_sum(x: torch.Tensor, n: int) -> torch.Tensor:
    total = torch.zeros_like(x)
    for i in range(n):
        total = total + x * i
    return total


class Net(nn.Module):
    width: torch.jit.Final[int]

    def __init__(self):
        super(Net, self).__init__()
        self.width = 3
        self.fc = nn.Linear(4, 3)
        with torch.no_grad():
            self.fc.weight.copy_(torch.linspace(-1, 1, 12).reshape(3, 4))
            self.fc.bias.fill_(0.25)

    def forward(self, x):
        return torch.relu(self.fc(x)) + self.offset(x)

    @torch.jit.export
    def offset(self, x):
        return x.sum(dim=1, keepdim=True) / self.width

    @torch.jit.ignore
    def describe(self):
        return "a net of width {}".format(self.width)


def double(x):
    return x * 2


x = torch.linspace(0, 1, 8).reshape(2, 4)
print(scaled_sum(torch.tensor([1.0, 2.0]), 4).tolist())
net = Net()
scripted = torch.jit.script(net)
traced = trace(net, x)
print([round(v, 6) for v in net(x).flatten().tolist()])
print([round(v, 6) for v in scripted(x).flatten().tolist()])
print([round(v, 6) for v in traced(x).flatten().tolist()])
print([round(v, 6) for v in scripted.offset(x).flatten().tolist()])
print(net.describe(), torch.jit.is_scripting(), torch.jit.is_tracing())
xs: List[int] = torch.jit.annotate(List[int], [])
xs.append(4)
future = torch.jit.fork(double, torch.tensor([3.0]))
print(xs, torch.jit.wait(future).item(), script(double)(torch.tensor(1.5)).item())
