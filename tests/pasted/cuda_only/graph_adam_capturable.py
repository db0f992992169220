# Whole-network capture with Adam, as the CUDA notes' "Whole-network
# capture" example does with SGD: Adam needs `capturable=True`, which keeps
# each parameter's step count on the GPU so that every replay counts it up
# there (a step counted on the host would be frozen into the graph).
import warnings

import torch
import torch.nn as nn

# The warm-up steps run outside a capture, which PyTorch warns of.
warnings.filterwarnings("ignore", category=UserWarning)


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).cuda()


torch.manual_seed(1)
data = [(torch.randn(5, 4, device="cuda"), torch.randn(5, 2, device="cuda")) for _ in range(8)]
loss_fn = nn.MSELoss()

# Eager training, for reference.
eager = make()
eager_opt = torch.optim.Adam(eager.parameters(), lr=0.01, capturable=True)
eager_losses = []
for x, y in data:
    eager_opt.zero_grad(set_to_none=True)
    loss = loss_fn(eager(x), y)
    loss.backward()
    eager_opt.step()
    eager_losses.append(loss.item())

model = make()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, capturable=True)
print("capturable:", optimizer.param_groups[0]["capturable"])
static_input = torch.zeros(5, 4, device="cuda")
static_target = torch.zeros(5, 2, device="cuda")

# Warm up on a side stream.
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for x, y in data[:3]:
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        optimizer.step()
torch.cuda.current_stream().wait_stream(s)
step = optimizer.state[model[0].weight]["step"]
print("step after warm-up:", step, step.dtype)

g = torch.cuda.CUDAGraph()
optimizer.zero_grad(set_to_none=True)
with torch.cuda.graph(g):
    static_loss = loss_fn(model(static_input), static_target)
    static_loss.backward()
    optimizer.step()
print("step after capture:", optimizer.state[model[0].weight]["step"].item())

losses = []
for x, y in data[3:]:
    static_input.copy_(x)
    static_target.copy_(y)
    g.replay()
    losses.append(static_loss.item())
print("step after 5 replays:", step.item())
print("losses as eager's:", losses == eager_losses[3:])
print("parameters as eager's:", all(torch.equal(a, b) for a, b in zip(model.parameters(), eager.parameters())))
print("state as eager's:", all(
    torch.equal(optimizer.state[a]["exp_avg_sq"], eager_opt.state[b]["exp_avg_sq"])
    for a, b in zip(model.parameters(), eager.parameters())
))

# A checkpoint's step is loaded onto the parameter's device.
restored = make()
restored_opt = torch.optim.Adam(restored.parameters(), lr=0.01, capturable=True)
state = optimizer.state_dict()
state["state"][0]["step"] = state["state"][0]["step"].cpu()
restored_opt.load_state_dict(state)
print("loaded step on", restored_opt.state[restored[0].weight]["step"].device)

# What a capture refuses, and where capturable does not apply.
plain = torch.optim.Adam(model.parameters(), lr=0.01)
try:
    with torch.cuda.graph(torch.cuda.CUDAGraph()):
        plain.step()
except RuntimeError as e:
    print("RuntimeError:", e)
w = torch.ones(3, requires_grad=True)
w.sum().backward()
try:
    torch.optim.AdamW([w], capturable=True).step()
except AssertionError as e:
    print("AssertionError:", e)
