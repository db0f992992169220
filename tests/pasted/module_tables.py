"""A module's own tables as PyTorch 2 keeps them: `_parameters`, `_buffers`
and `_modules` read in registration order (None where a member was
registered empty), written (`self._parameters["scale"] = Parameter(...)`
in `__init__`, as older model code registers) and deleted through.
"""
import torch
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
print(list(m._modules.keys()))
print(list(m[0]._parameters.keys()), m[0]._buffers)
for name, child in m._modules.items():
    print(name, type(child).__name__)
bn = nn.BatchNorm1d(3)
print(list(bn._buffers.keys()), bn._buffers['num_batches_tracked'].tolist())

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self._parameters['scale'] = nn.Parameter(torch.ones(2))
        self._buffers['count'] = torch.zeros(1)
        self._modules['fc'] = nn.Linear(2, 1)
        self.register_parameter('unused', None)
    def forward(self, x):
        return self.fc(x * self.scale) + self.count

net = Net()
print([n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()], list(net._parameters.keys()), net._parameters['unused'])
print(net(torch.ones(1, 2)).shape)
del net._parameters['scale']
del net._modules['fc']
print(list(net._parameters.keys()), list(net._modules.keys()), hasattr(net, 'scale'))
for name, p in m[0]._parameters.items():
    if p is not None:
        print(name, p.shape)
