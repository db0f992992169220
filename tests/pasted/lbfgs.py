# PyTorch's examples/time_sequence_prediction, shortened (8 sine waves of
# 60 points, three steps): two LSTMCells in float64 trained by LBFGS, whose
# closure recomputes the loss; then LBFGS with its strong-Wolfe line search
# fitting a small regression, and an optimizer written as a class derived
# from torch.optim.Optimizer, as custom-optimizer tutorials write one.
import math

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.optimizer import Optimizer, required

device = "cuda" if torch.cuda.is_available() else "cpu"


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double, device=input.device)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double, device=input.device)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double, device=input.device)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double, device=input.device)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


T, L, N = 20, 60, 8
data = torch.tensor([[math.sin((i + 7 * n - 20) / T) for i in range(L)] for n in range(N)], dtype=torch.float64)
input = data[3:, :-1].to(device)
target = data[3:, 1:].to(device)
test_input = data[:3, :-1].to(device)
test_target = data[:3, 1:].to(device)

torch.manual_seed(0)
seq = Sequence()
seq.double()
seq.to(device)
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=8)
for i in range(3):
    print("STEP: ", i)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print("loss:", f"{loss.item():.10f}")
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        future = 20
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss:", f"{loss.item():.10f}")
        y = pred.detach().cpu().numpy()
    print("predicted:", [round(float(v), 6) for v in y[0, -3:]])
state = optimizer.state[optimizer.param_groups[0]["params"][0]]
print("func_evals", state["func_evals"], "n_iter", state["n_iter"], "history", len(state["old_dirs"]))

# LBFGS with the strong-Wolfe line search on a small regression.
torch.manual_seed(1)
x = torch.randn(64, 5, dtype=torch.float64)
w_true = torch.randn(5, 1, dtype=torch.float64)
y = x @ w_true + 0.1 * torch.randn(64, 1, dtype=torch.float64)
x, y = x.to(device), y.to(device)
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1)).double().to(device)
opt = optim.LBFGS(model.parameters(), history_size=4, max_iter=10, line_search_fn="strong_wolfe")
calls = 0


def closure():
    global calls
    calls += 1
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for step in range(3):
    loss = opt.step(closure)
    state = opt.state[opt.param_groups[0]["params"][0]]
    print(f"step {step}: loss {loss.item():.8f}, closure calls {calls}, func_evals {state['func_evals']}, history {len(state['old_dirs'])}")
print(f"final loss {nn.functional.mse_loss(model(x), y).item():.8f}")
print(opt)
print(sorted(opt.state_dict()["state"][0].keys()))


# An optimizer of one's own: SGD with momentum, as tutorials derive one.
class MomentumSGD(Optimizer):
    def __init__(self, params, lr=required, momentum=0.9):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = p.grad.clone()
                else:
                    state["momentum_buffer"].mul_(group["momentum"]).add_(p.grad)
                p.add_(state["momentum_buffer"], alpha=-group["lr"])
        return loss


torch.manual_seed(2)
net = nn.Linear(5, 1).double().to(device)
mine = MomentumSGD([{"params": [net.weight]}, {"params": [net.bias], "lr": 0.01}], lr=0.05)
builtin_net = nn.Linear(5, 1).double().to(device)
builtin_net.load_state_dict(net.state_dict())
builtin = optim.SGD([{"params": [builtin_net.weight]}, {"params": [builtin_net.bias], "lr": 0.01}], lr=0.05, momentum=0.9)
for epoch in range(5):
    for o, m in ((mine, net), (builtin, builtin_net)):
        o.zero_grad()
        nn.functional.mse_loss(m(x), y).backward()
        o.step()
    print(f"epoch {epoch}: mine {nn.functional.mse_loss(net(x), y).item():.8f}, SGD {nn.functional.mse_loss(builtin_net(x), y).item():.8f}")
print(mine)
print(isinstance(mine, Optimizer), isinstance(builtin, optim.Optimizer), isinstance(opt, Optimizer))
saved = mine.state_dict()
print(saved["param_groups"][1], sorted(saved["state"]))
again = MomentumSGD(net.parameters(), lr=0.5)
try:
    again.load_state_dict(saved)
except ValueError as e:
    print("ValueError:", e)
try:
    MomentumSGD(net.parameters())
except ValueError as e:
    print("ValueError:", e)
try:
    MomentumSGD([net.weight, net.weight * 2], lr=0.1)
except ValueError as e:
    print("ValueError:", e)
