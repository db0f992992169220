# Lazy modules as the d2l.ai book writes its models: layers whose input
# size the first batch gives, an optimizer made before that batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)

net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(3))
print(net)
print(net[0].weight, net[0].bias, type(net[0].weight).__name__)
print(net[0].has_uninitialized_params(), isinstance(net[0].weight, nn.Parameter),
      isinstance(net[0].weight, nn.UninitializedParameter))
try:
    net[0].weight.shape
except RuntimeError as e:
    print("RuntimeError:", str(e)[:62])
# The optimizer is made before the first batch makes the parameters, on
# the CPU (its draws are the CPU generator's), then all moves to the device.
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(16, 5)
y = torch.randint(0, 3, (16,))
net(x)
net = net.to(device)
x, y = x.to(device), y.to(device)
for step in range(20):
    loss = F.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(step, round(loss.item(), 4))
print(net)
print(type(net[0]).__name__, isinstance(net[0], nn.Linear), net[0].in_features)
print(net[0].weight.shape, net[2].bias.detach().cpu())
print(sorted(net.state_dict().keys()), sum(p.numel() for p in net.parameters()))
try:
    net[0].has_uninitialized_params()
except AttributeError as e:
    print("AttributeError:", e)


class LeNetLazy(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.LazyConv2d(6, kernel_size=5, padding=2)
        self.bn1 = nn.LazyBatchNorm2d()
        self.conv2 = nn.LazyConv2d(16, kernel_size=5)
        self.fc = nn.LazyLinear(num_classes)

    def forward(self, x):
        x = F.max_pool2d(torch.sigmoid(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(torch.sigmoid(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


model = LeNetLazy()
print(model)
print(model.bn1.running_mean, model.bn1.num_batches_tracked)
out = model(torch.randn(2, 1, 28, 28))
print(out.shape, model)
model = model.to(device)
print(model.bn1.running_mean.shape, model.bn1.num_batches_tracked.item())
print(round(out.sum().item(), 4), model.fc.weight.shape)
seq1 = nn.Sequential(nn.LazyConv1d(4, 3), nn.LazyBatchNorm1d())
print(seq1(torch.randn(2, 3, 10)).shape, seq1)
# Made where the module's tensors are: a module moved before its first call.
on_device = nn.LazyLinear(4).to(device)
print(on_device(torch.ones(2, 6).to(device)).device.type == torch.device(device).type,
      on_device.weight.device.type == torch.device(device).type)
