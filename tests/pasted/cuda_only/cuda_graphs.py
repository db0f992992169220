# The CUDA semantics notes' CUDA Graphs section as pasted (smaller sizes,
# no dropout so that graphed and eager training can be compared), with
# what a learner checks around it: capture runs nothing, replay reads the
# static inputs as they are then, and what capture refuses.
from itertools import chain

import torch

# Basic: capture `static_input * 2`, replay with new data copied in.
g = torch.cuda.CUDAGraph()
static_input = torch.empty((5,), device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for i in range(3):
        static_output = static_input * 2
torch.cuda.current_stream().wait_stream(s)
with torch.cuda.graph(g):
    static_output = static_input * 2
print("after capture", static_output.tolist())
static_input.copy_(torch.full((5,), 3, device="cuda"))
g.replay()
print("replay 1", static_output.tolist())
static_input.copy_(torch.full((5,), 4, device="cuda"))
g.replay()
print("replay 2", static_output.tolist())

# In-place work is captured, not run: the counter moves at each replay.
counter = torch.zeros(1, device="cuda")
g2 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g2):
    counter.add_(1)
print("counter after capture", counter.item())
for _ in range(3):
    g2.replay()
print("counter after 3 replays", counter.item())

# Whole-network capture: forward, backward and the optimizer's step.
N, D_in, H, D_out = 64, 32, 16, 8
loss_fn = torch.nn.MSELoss()
torch.manual_seed(0)
inputs = [torch.randn(N, D_in, device="cuda") for _ in range(4)]
targets = [torch.randn(N, D_out, device="cuda") for _ in range(4)]


def network():
    torch.manual_seed(1)
    return torch.nn.Sequential(
        torch.nn.Linear(D_in, H), torch.nn.ReLU(), torch.nn.Linear(H, D_out)
    ).cuda()


model = network()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
eager = []
for x, t in zip(inputs, targets):
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), t)
    loss.backward()
    optimizer.step()
    eager.append(loss.item())

model = network()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
static_input = torch.randn(N, D_in, device="cuda")
static_target = torch.randn(N, D_out, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    # The warmup is the first real batch: the optimizer makes its state.
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(inputs[0]), targets[0])
    loss.backward()
    optimizer.step()
torch.cuda.current_stream().wait_stream(s)
graphed = [loss.item()]

g3 = torch.cuda.CUDAGraph()
optimizer.zero_grad(set_to_none=True)
with torch.cuda.graph(g3):
    static_y_pred = model(static_input)
    static_loss = loss_fn(static_y_pred, static_target)
    static_loss.backward()
    optimizer.step()
for data, target in zip(inputs[1:], targets[1:]):
    static_input.copy_(data)
    static_target.copy_(target)
    g3.replay()
    graphed.append(static_loss.item())
print("whole network: graphed equals eager", graphed == eager)

# Partial-network capture with make_graphed_callables.
def modules():
    torch.manual_seed(2)
    return (
        torch.nn.Linear(D_in, H).cuda(),
        torch.nn.Linear(H, D_out).cuda(),
        torch.nn.Linear(H, D_out).cuda(),
    )


def train(module1, module2, module3, optimizer):
    losses = []
    for data, target in zip(inputs, targets):
        optimizer.zero_grad(set_to_none=True)
        tmp = module1(data)
        if tmp.sum().item() > 0:
            tmp = module2(tmp)
        else:
            tmp = module3(tmp)
        loss = loss_fn(tmp, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


m1, m2, m3 = modules()
eager = train(m1, m2, m3, torch.optim.SGD(chain(m1.parameters(), m2.parameters(), m3.parameters()), lr=0.1))
module1, module2, module3 = modules()
optimizer = torch.optim.SGD(
    chain(module1.parameters(), module2.parameters(), module3.parameters()), lr=0.1
)
x = torch.randn(N, D_in, device="cuda")
h = torch.randn(N, H, device="cuda", requires_grad=True)
module1 = torch.cuda.make_graphed_callables(module1, (x,))
module2 = torch.cuda.make_graphed_callables(module2, (h,))
module3 = torch.cuda.make_graphed_callables(module3, (h,))
graphed = train(module1, module2, module3, optimizer)
print("partial network: graphed equals eager", graphed == eager)
print(type(module1(inputs[0]).grad_fn).__name__)

# A small CNN with an embedding and cross-entropy (gathers and scatters
# by index): captured training again gives eager's losses.
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 3 * 3, 10)
        self.emb = nn.Embedding(10, 4)

    def forward(self, x, tok):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc(x) + self.emb(tok).sum((1, 2)).unsqueeze(1)


torch.manual_seed(5)
xs = [torch.randn(8, 1, 8, 8, device="cuda") for _ in range(4)]
ys = [torch.randint(0, 10, (8,), device="cuda") for _ in range(4)]
toks = [torch.randint(0, 10, (8, 3), device="cuda") for _ in range(4)]
torch.manual_seed(0)
net = Net().cuda()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
eager = []
for x, y, t in zip(xs, ys, toks):
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(net(x, t), y)
    loss.backward()
    opt.step()
    eager.append(loss.item())
torch.manual_seed(0)
net = Net().cuda()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sx, sy, st = xs[0].clone(), ys[0].clone(), toks[0].clone()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(net(sx, st), sy)
    loss.backward()
    opt.step()
torch.cuda.current_stream().wait_stream(s)
graphed = [loss.item()]
cnn = torch.cuda.CUDAGraph()
opt.zero_grad(set_to_none=True)
with torch.cuda.graph(cnn):
    sloss = F.cross_entropy(net(sx, st), sy)
    sloss.backward()
    opt.step()
for x, y, t in zip(xs[1:], ys[1:], toks[1:]):
    sx.copy_(x)
    sy.copy_(y)
    st.copy_(t)
    cnn.replay()
    graphed.append(sloss.item())
print("cnn: graphed equals eager", graphed == eager)

# Random ops draw anew at each replay.
ones = torch.ones(1000, device="cuda")
drop = torch.cuda.CUDAGraph()
with torch.cuda.graph(drop):
    dropped = F.dropout(ones, 0.5)
drop.replay()
first = dropped.clone()
drop.replay()
print("dropout masks differ between replays", not torch.equal(first, dropped))

# What a capture refuses.
try:
    torch.cuda.CUDAGraph().replay()
except RuntimeError as e:
    print(e)
try:
    torch.cuda.CUDAGraph().capture_begin()
except RuntimeError as e:
    print(e)
try:
    with torch.cuda.graph(torch.cuda.CUDAGraph()):
        y = static_input * 2
        print(y.sum().item())
except RuntimeError as e:
    print(str(e).splitlines()[0])
torch.cuda.set_stream(torch.cuda.default_stream())
adam = torch.optim.Adam(model.parameters())
try:
    with torch.cuda.graph(torch.cuda.CUDAGraph()):
        adam.step()
except RuntimeError as e:
    print(e)
torch.cuda.set_stream(torch.cuda.default_stream())
print(torch.cuda.is_current_stream_capturing())

# An index out of range at a replay is the gather kernel's assertion,
# reported by the next call that waits for the device.
st.fill_(12)
cnn.replay()
try:
    print(sloss.item())
except RuntimeError as e:
    print(str(e).splitlines()[0])
