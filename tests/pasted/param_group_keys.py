# Parameter groups are dicts that hold any key, as fine-tuning scripts and
# schedulers of their own use them: a group's "name", a scheduler's
# "initial_lr" and "swa_lr", kept through state_dict and load_state_dict.
import torch

w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.zeros(2))
opt = torch.optim.SGD([{"params": [w], "name": "enc"}, {"params": [b], "lr": 0.5, "tag": [1, 2]}], lr=0.1)
print(opt.param_groups[0]["name"], opt.param_groups[1]["tag"], "name" in opt.param_groups[0])
for group in opt.param_groups:
    print(group.setdefault("initial_lr", group["lr"]), group.setdefault("initial_lr", 5.0))
g = opt.param_groups[0]
print(g.setdefault("swa_lr", 0.05))
g["swa_lr"] = 0.02
print(g["swa_lr"], g.get("swa_lr"), g.get("missing", 7))
sd = opt.state_dict()
print(sorted(sd["param_groups"][0].keys()))
print(sorted(sd["param_groups"][1].keys()))
opt2 = torch.optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.3)
opt2.load_state_dict(sd)
print(opt2.param_groups[0]["name"], opt2.param_groups[0]["swa_lr"], opt2.param_groups[1]["tag"], opt2.param_groups[1]["lr"])
for group in opt2.param_groups:
    print(sorted(k for k in group.keys() if k != "params"))
names = {group["name"]: group["lr"] for group in opt.param_groups if "name" in group}
print(names)
w.grad = torch.ones(2)
opt.step()
print(w.tolist())
