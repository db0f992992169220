# torch.optim.Adafactor, Rprop and ASGD training a small model: losses,
# parameters, state_dict (step sizes, the running average) as PyTorch's,
# their repr and argument checks, and a scheduler driving one.
import torch, torch.nn as nn
torch.manual_seed(0)
for name, make in [("Adafactor", lambda p: torch.optim.Adafactor(p)), ("Adafactor", lambda p: torch.optim.Adafactor(p, lr=0.05, weight_decay=0.1, eps=(1e-20, 1e-3), d=2.0)), ("Rprop", lambda p: torch.optim.Rprop(p, lr=0.05)), ("Rprop", lambda p: torch.optim.Rprop(p, etas=(0.3, 1.5), step_sizes=(1e-4, 0.2), maximize=False)), ("ASGD", lambda p: torch.optim.ASGD(p, lr=0.05, t0=3, weight_decay=0.01)), ("ASGD", lambda p: torch.optim.ASGD(p))]:
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = make(model.parameters())
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    losses = []
    for step in range(6):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 6))
    print(name, losses)
    sd = opt.state_dict()
    print(sorted(sd["state"][0].keys()), {k: v for k, v in sd["param_groups"][0].items() if k != "params"})
    print([round(v, 6) for v in model[0].weight[0].tolist()])
    if name == "Adafactor":
        print([round(v, 6) for v in sd["state"][0]["row_var"].flatten().tolist()][:4], [round(v, 6) for v in sd["state"][1]["variance"].flatten().tolist()][:4])
    elif name == "ASGD":
        print([round(v, 6) for v in sd["state"][0]["ax"][0].tolist()], sd["state"][0]["eta"], sd["state"][0]["mu"], sd["state"][0]["step"])
    else:
        print([round(v, 6) for v in sd["state"][0]["step_size"][0].tolist()], sd["state"][0]["step"])
print(torch.optim.Rprop([torch.zeros(1, requires_grad=True)]))
try:
    torch.optim.Rprop([torch.zeros(1, requires_grad=True)], etas=(1.5, 1.2))
except ValueError as e:
    print("ValueError", e)
sched = torch.optim.lr_scheduler.StepLR(torch.optim.ASGD([torch.zeros(1, requires_grad=True)], lr=0.1), 2, gamma=0.5)
for _ in range(3):
    sched.optimizer.step()
    sched.step()
print(sched.get_last_lr())
