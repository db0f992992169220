# Reading and changing an optimizer's state through `optimizer.state`, as
# programs that resume training, inspect Adam's moments or count the
# optimizer's memory do.
import os
import tempfile

import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def make_model():
    model = Net().to(device)
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_(torch.linspace(-0.5, 0.5 + 0.1 * i, n).reshape(p.shape))
    return model


x = torch.linspace(-1, 1, 20).reshape(5, 4).to(device)
y = torch.linspace(0, 1, 10).reshape(5, 2).to(device)


def train(model, optimizer, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
print("before any step:", len(optimizer.state))
loss = train(model, optimizer, 3)
print(f"loss {loss:.6f}, {len(optimizer.state)} parameters with state")

# What Adam keeps per parameter.
first = next(iter(optimizer.state))
print("first key is fc1.weight:", first is model.fc1.weight)
for name, p in model.named_parameters():
    state = optimizer.state[p]
    print(name, sorted(state.keys()), state["step"].item(), tuple(state["exp_avg"].shape))
print({k: v.cpu() for k, v in optimizer.state[model.fc2.bias].items()})

# The optimizer's memory: two moments per parameter.
state_bytes = 0
for state in optimizer.state.values():
    for k, v in state.items():
        if torch.is_tensor(v) and k != "step":
            state_bytes += v.numel() * v.element_size()
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
print("state bytes", state_bytes, "=", state_bytes // param_bytes, "x parameter bytes")

# Resuming: load a checkpoint on the host, then move the state to the
# model's device, as the common recipe does.
path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
checkpoint = torch.load(path, map_location="cpu")
resumed = make_model()
resumed.load_state_dict(checkpoint["model"])
resumed_opt = torch.optim.Adam(resumed.parameters(), lr=0.01)
resumed_opt.load_state_dict(checkpoint["optimizer"])
print("exp_avg on", resumed_opt.state[resumed.fc1.weight]["exp_avg"].device.type == torch.device(device).type)
for state in resumed_opt.state.values():
    for k, v in state.items():
        if isinstance(v, torch.Tensor):
            state[k] = v.to(device)
a = train(model, optimizer, 2)
b = train(resumed, resumed_opt, 2)
print(f"continued {a:.6f}, resumed {b:.6f}, same: {a == b}")

# Changing the state changes the next step: a moment reset by hand.
for p in model.parameters():
    optimizer.state[p]["exp_avg"].zero_()
    optimizer.state[p]["exp_avg_sq"] = torch.zeros_like(p)
print(f"after a reset: {train(model, optimizer, 1):.6f}")
print("steps", [int(s["step"]) for s in optimizer.state.values()])
print("fc1.bias in state:", model.fc1.bias in optimizer.state, "a new tensor:", torch.zeros(1) in optimizer.state)

# SGD with momentum keeps one buffer.
sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
train(model, sgd, 2)
print({k: tuple(v.shape) for k, v in sgd.state[model.fc1.weight].items()})
print([round(v, 5) for v in sgd.state[model.fc2.bias]["momentum_buffer"].tolist()])

# A state_dict holds the optimizer's own tensors, step included: an
# optimizer that loads it in memory counts in the same step tensors.
w = torch.ones(2, requires_grad=True)
first_opt = torch.optim.Adam([w], lr=0.1)
w.sum().backward()
first_opt.step()
second_opt = torch.optim.Adam([w], lr=0.1)
second_opt.load_state_dict(first_opt.state_dict())
step = first_opt.state[w]["step"]
second_opt.step()
print("shared step:", step, second_opt.state[w]["step"] is step)
