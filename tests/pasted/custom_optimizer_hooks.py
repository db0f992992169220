# A program's own optimizer (a torch.optim.Optimizer subclass) gets the
# step hooks every optimizer has: PyTorch wraps the subclass's `step` at
# the first optimizer of the class. Pre-hooks may hand `step` new
# arguments (a closure); the profiler shows the step as a range.
import torch
class MySGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))
    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-g["lr"])
        return None
w = torch.ones(2, requires_grad=True)
opt = MySGD([w])
h1 = opt.register_step_pre_hook(lambda o, args, kwargs: print("pre", type(o).__name__))
h2 = opt.register_step_post_hook(lambda o, args, kwargs: print("post", w))
(w * 3).sum().backward()
opt.step()
h1.remove()
opt.step()
print(opt.state_dict()["param_groups"])

# a pre-hook that hands step a closure
def give_closure(o, args, kwargs):
    print(len(args), args[0] is o)
    return args, {"closure": lambda: 7.0}
class Closing(torch.optim.Optimizer):
    def __init__(self, params):
        super().__init__(params, {})
    def step(self, closure=None):
        return None if closure is None else closure()
c = Closing([torch.zeros(1, requires_grad=True)])
h = c.register_step_pre_hook(give_closure)
print(c.step())
h.remove()
print(c.step())
bad = c.register_step_pre_hook(lambda o, a, k: 5)
try:
    c.step()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(" must")[1])
bad.remove()
sgd = torch.optim.SGD([w], lr=0.1)
sgd.register_step_pre_hook(lambda o, args, kwargs: print(len(args), args[0] is o, kwargs))
sgd.step()
from torch.profiler import profile
with profile() as prof:
    opt.step()
print("Optimizer.step#MySGD.step" in prof.key_averages().table())
lb = torch.optim.LBFGS([w])
hl = lb.register_step_post_hook(lambda o, a, k: print("lbfgs post"))
def closure():
    lb.zero_grad()
    loss = (w * w).sum()
    loss.backward()
    return loss
lb.step(closure)
