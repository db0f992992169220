"""Adam's relatives as training scripts pick them (Adamax, RAdam, NAdam)
with a warm-up schedule (SequentialLR of LinearLR and CosineAnnealingLR),
and their state saved and loaded as a checkpoint holds it."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(shape, scale):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32, device=device).reshape(shape) * 0.37).sin() * scale


x = fill((8, 4), 2.0)
y = torch.tensor([0, 1, 2, 1, 0, 2, 1, 0], device=device)
for name, make in [
    ("Adamax", lambda ps: torch.optim.Adamax(ps, lr=0.05)),
    ("RAdam", lambda ps: torch.optim.RAdam(ps, lr=0.05, weight_decay=0.01)),
    ("NAdam", lambda ps: torch.optim.NAdam(ps, lr=0.05, momentum_decay=0.004)),
    ("NAdam decoupled", lambda ps: torch.optim.NAdam(ps, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
]:
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3)).to(device)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(fill(p.shape, 0.5))
    opt = make(model.parameters())
    warm = LinearLR(opt, start_factor=0.2, total_iters=3)
    decay = CosineAnnealingLR(opt, T_max=7)
    sched = SequentialLR(opt, [warm, decay], milestones=[3])
    losses = []
    for step in range(8):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(round(loss.item(), 5))
    print(f"{name}: losses {losses}")
    print(f"  lr {sched.get_last_lr()[0]:.6f} state {sorted(opt.state_dict()['state'][0].keys())}")
    saved = opt.state_dict()
    again = make(model.parameters())
    again.load_state_dict(saved)
    print(f"  reloaded steps {[float(s['step']) for s in again.state_dict()['state'].values()][:2]}")
