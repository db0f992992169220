# Fine-tuning as tutorials write it: train the new head with the backbone
# frozen, then unfreeze the backbone and hand it to the optimizer with a
# smaller learning rate (`add_param_group`); step hooks count and log.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


torch.manual_seed(0)
model = Net()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.4, 0.4 + 0.05 * i, p.numel()).reshape(p.shape))
x = torch.linspace(-2, 2, 60).reshape(10, 6)
y = torch.arange(10) % 3

for p in model.backbone.parameters():
    p.requires_grad = False
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1, momentum=0.9)
print(optimizer.defaults)

steps = []
pre = optimizer.register_step_pre_hook(lambda opt, args, kwargs: steps.append(len(opt.param_groups)))
post = optimizer.register_step_post_hook(lambda opt, args, kwargs: steps.append("done"))


def train(n):
    for _ in range(n):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


print(f"head only: {train(3):.6f}")
for p in model.backbone.parameters():
    p.requires_grad = True
optimizer.add_param_group({"params": model.backbone.parameters(), "lr": 0.01})
print(len(optimizer.param_groups), [g["lr"] for g in optimizer.param_groups])
print({k: v for k, v in optimizer.param_groups[1].items() if k != "params"})
print(f"whole model: {train(3):.6f}")
print(steps)
pre.remove()
post.remove()
train(1)
print(len(steps))
try:
    optimizer.add_param_group({"params": [model.head.weight]})
except ValueError as e:
    print("ValueError:", e)
try:
    optimizer.add_param_group([model.head.bias])
except TypeError as e:
    print("TypeError:", e)


# A pre-hook may hand the step a closure.
def closure():
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


h = optimizer.register_step_pre_hook(lambda opt, args, kwargs: ((opt, closure), {}))
print(f"closure from the hook: {optimizer.step().item():.6f}")
h.remove()
print(sum(len(g["params"]) for g in optimizer.param_groups), len(optimizer.state))
