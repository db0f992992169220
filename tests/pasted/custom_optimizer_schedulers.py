# The learning-rate schedulers on an optimizer of the program's (a
# torch.optim.Optimizer subclass with two parameter groups): each rate
# along twelve (or twenty) epochs, as PyTorch's chainable forms give it.
import math
import torch
class MySGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1, momentum=0.0):
        super().__init__(params, dict(lr=lr, momentum=momentum))
    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-g["lr"])
def run(make, n=12):
    w = torch.ones(2, requires_grad=True)
    b = torch.ones(1, requires_grad=True)
    opt = MySGD([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)
    sched = make(opt)
    out = []
    for _ in range(n):
        (w.sum() + b.sum()).backward()
        opt.step()
        opt.zero_grad()
        sched.step()
        out.append([round(x, 10) for x in sched.get_last_lr()])
    print(type(sched).__name__, out[:3], out[-1], [round(g["lr"], 10) for g in opt.param_groups])
S = torch.optim.lr_scheduler
run(lambda o: S.StepLR(o, step_size=3, gamma=0.5))
run(lambda o: S.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.3))
run(lambda o: S.ExponentialLR(o, gamma=0.9))
run(lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.01), 20)
run(lambda o: S.LambdaLR(o, lr_lambda=lambda e: 1 / (e + 1)))
run(lambda o: S.LambdaLR(o, lr_lambda=[lambda e: 0.5 ** e, lambda e: e + 1]))
run(lambda o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.95))
run(lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4))
run(lambda o: S.ConstantLR(o, factor=0.5, total_iters=3))
w = torch.ones(1, requires_grad=True)
opt = MySGD([w])
sched = S.StepLR(opt, 2)
print(sched.state_dict()["last_epoch"], isinstance(sched, S.LRScheduler))
try:
    S.LinearLR(opt, start_factor=0)
except ValueError as e:
    print("ValueError:", e)
