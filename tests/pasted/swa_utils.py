# Weight averaging as training scripts write it: torch.optim.swa_utils's
# AveragedModel (SWA and an EMA), SWALR, update_bn, and a learning-rate
# scheduler of the program's on torch.optim.lr_scheduler.LRScheduler.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn, get_ema_multi_avg_fn
from torch.optim.lr_scheduler import LRScheduler

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa_sched = SWALR(opt, swa_lr=0.05, anneal_epochs=3)
data = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(4)]
for epoch in range(6):
    for x, y in data:
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        ema_model.update_parameters(model)
    if epoch >= 2:
        swa_model.update_parameters(model)
    swa_sched.step()
    print(epoch, [round(lr, 6) for lr in swa_sched.get_last_lr()], swa_model.n_averaged.item())
update_bn([x for x, _ in data], swa_model)
print([round(v, 4) for v in swa_model.module[1].running_mean[:3].tolist()])
print(round(swa_model(data[0][0]).sum().item(), 4), round(ema_model(data[0][0]).sum().item(), 4))
print(sorted(swa_model.state_dict().keys())[:3], ema_model.n_averaged.item())
print(sorted(k for k in swa_sched.state_dict().keys()))

class WarmupLinear(LRScheduler):
    def __init__(self, optimizer, warmup, total, last_epoch=-1):
        self.warmup = warmup
        self.total = total
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e = self.last_epoch
        f = e / self.warmup if e < self.warmup else max(0.0, (self.total - e) / (self.total - self.warmup))
        return [base * f for base in self.base_lrs]

w = nn.Parameter(torch.ones(2))
opt2 = torch.optim.AdamW([w], lr=1e-3)
s2 = WarmupLinear(opt2, warmup=2, total=6)
lrs = []
for _ in range(6):
    opt2.step()
    s2.step()
    lrs.append(round(s2.get_last_lr()[0], 8))
print(lrs, opt2.param_groups[0]["initial_lr"], isinstance(s2, torch.optim.lr_scheduler.LRScheduler))
print(torch._foreach_add([torch.ones(2)], [torch.ones(2)], alpha=2)[0].tolist())
