# torch.nn.utils.prune as PyTorch's pruning tutorial uses it: LeNet's
# layers pruned at random, by L1 and by Ln norm along channels, iterative
# pruning in a PruningContainer, the state_dict, prune.remove, pruning by
# type, global pruning, a pruning method of one's own, and training a
# pruned model (the pruned entries stay zero).
import torch
from torch import nn
import torch.nn.utils.prune as prune
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device.type} device")


def show(name, t):
    vals = [round(v, 4) for v in t.detach().flatten().tolist()[:12]]
    print(name, tuple(t.shape), t.requires_grad, t.grad_fn is not None, vals)


def names(pairs):
    return [n for n, _ in pairs]


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(start_dim=1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


# Pruned on the host (a random pruning draws from the generator of the
# tensor's device), then moved: `weight_orig` and the mask move, and the
# pre-hook computes `weight` on the device at the next forward.
torch.manual_seed(0)
model = LeNet()
module = model.conv1
print(names(module.named_parameters()))
print(names(module.named_buffers()))

prune.random_unstructured(module, name="weight", amount=0.3)
print(names(module.named_parameters()))
print(names(module.named_buffers()))
show("weight", module.weight)
show("weight_mask", module.weight_mask)
print("zeros", int((module.weight == 0).sum()))
print([type(h).__name__ for h in module._forward_pre_hooks.values()])

prune.l1_unstructured(module, name="bias", amount=3)
print(names(module.named_parameters()))
print(names(module.named_buffers()))
show("bias", module.bias)
print([type(h).__name__ for h in module._forward_pre_hooks.values()])

# Iterative pruning: half the channels by their L2 norm, on top.
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
show("weight", module.weight)
print("channels kept", (module.weight.flatten(1).abs().sum(1) != 0).tolist())
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(type(hook).__name__, [type(m).__name__ for m in hook], len(hook))
print(list(model.state_dict().keys()))

# The forward uses the pruned weight (recomputed by the pre-hook).
model = model.to(device=device)
print("moved", model.conv1.weight_orig.device.type == device.type, model.conv1.weight_mask.device.type == device.type)
x = torch.linspace(-1, 1, 2 * 28 * 28).reshape(2, 1, 28, 28).to(device)
out = model(x)
show("out", out)
out.sum().backward()
print("weight on the device", model.conv1.weight.device.type == device.type)
g = model.conv1.weight_orig.grad
print("pruned entries get no gradient", bool((g[model.conv1.weight_mask == 0] == 0).all()))

prune.remove(module, "weight")
print(names(module.named_parameters()))
print(names(module.named_buffers()))
show("weight", module.weight)
print("is a parameter", isinstance(module.weight, nn.Parameter))
print("pruned", prune.is_pruned(model))

# Pruning by type.
new_model = LeNet()
for name, module in new_model.named_modules():
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name="weight", amount=0.2)
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())

# Global pruning.
model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
prune.global_unstructured(
    parameters_to_prune,
    pruning_method=prune.L1Unstructured,
    amount=0.2,
)
for name in ["conv1", "conv2", "fc1", "fc2", "fc3"]:
    w = getattr(model, name).weight
    print("Sparsity in {}.weight: {:.2f}%".format(name, 100.0 * float(torch.sum(w == 0)) / float(w.nelement())))
total = sum(float(torch.sum(getattr(model, n).weight == 0)) for n in ["conv1", "conv2", "fc1", "fc2", "fc3"])
count = sum(getattr(model, n).weight.nelement() for n in ["conv1", "conv2", "fc1", "fc2", "fc3"])
print("Global sparsity: {:.2f}%".format(100.0 * total / count))


# A pruning method of one's own.
class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")
show("fc3.bias_mask", model.fc3.bias_mask)
print(model.fc3)

# Training a pruned model: the optimizer steps weight_orig, the mask
# keeps the pruned entries at zero.
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
prune.random_structured(net[0], "weight", amount=0.25, dim=0)
prune.l1_unstructured(net[2], "weight", amount=2)
print("rows kept", (net[0].weight.abs().sum(1) != 0).tolist())
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = torch.linspace(-1, 1, 32).reshape(8, 4).to(device)
target = data.sum(1, keepdim=True)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(net(data), target)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 5))
print("still zero", int((net[2].weight == 0).sum()), int((net[0].weight == 0).sum()))
show("pruned by hand", prune.L1Unstructured(amount=0.5).prune(torch.tensor([3.0, -1.0, 2.0, -4.0])))


def error(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)


error(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5))
error(lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5))
error(lambda: prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0))
error(lambda: prune.remove(nn.Linear(2, 2), "weight"))
