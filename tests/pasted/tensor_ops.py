"""Tensor ops as training scripts use them: a DQN update picks each
action's value with gather; labels become one-hot rows through scatter_ and
F.one_hot; a hand-written Adam keeps its moments with mul_/addcmul_ and
steps with addcdiv_; an EMA of the weights with lerp_; a contrastive score
with F.normalize and F.cosine_similarity; a stable log-softmax through
logsumexp and amax; key padding through repeat_interleave; the unary
math of a positional encoding and an RMS norm (rsqrt, sin, cos, exp2, ...);
sequences padded with F.pad into a batch for SiLU and Mish layers.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def T(data, **kw):
    return torch.tensor(data, device=device, **kw)


def fill(shape, scale):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32, device=device).reshape(shape) * 0.37).sin() * scale


def show(name, t, digits=4):
    print(name, [round(v, digits) for v in t.reshape(-1).tolist()])


# A Q-network's values for each action, and the taken actions' values.
class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(fill(p.shape, 0.5))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


policy = QNet().to(device)
target = QNet().to(device)
target.load_state_dict(policy.state_dict())
ema = QNet().to(device)
states = fill((5, 4), 1.0)
actions = T([[0], [2], [1], [1], [0]])
rewards = T([1.0, 0.0, -1.0, 0.5, 1.0])
done = T([False, False, True, False, True])
m = [torch.zeros_like(p) for p in policy.parameters()]
v = [torch.zeros_like(p) for p in policy.parameters()]
lr, betas, eps = 0.01, (0.9, 0.999), 1e-8
for step in range(1, 4):
    q = policy(states).gather(1, actions).squeeze(1)
    with torch.no_grad():
        nxt = target(states).amax(1)
        expected = rewards + 0.9 * nxt * (~done)
    loss = F.smooth_l1_loss(q, expected)
    for p in policy.parameters():
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p, m1, v1 in zip(policy.parameters(), m, v):
            m1.mul_(betas[0]).add_(p.grad, alpha=1 - betas[0])
            v1.mul_(betas[1]).addcmul_(p.grad, p.grad, value=1 - betas[1])
            denom = (v1 / (1 - betas[1] ** step)).sqrt().add_(eps)
            p.addcdiv_(m1, denom, value=-lr / (1 - betas[0] ** step))
        for e, p in zip(ema.parameters(), policy.parameters()):
            e.lerp_(p, 0.25)
    print(f"step {step}: loss {loss.item():.6f} grad_fn {q.grad_fn.name()}")
show("ema fc2.bias", ema.fc2.bias)
show("policy fc2.bias", policy.fc2.bias)

# Labels as one-hot rows, and label smoothing through scatter.
labels = T([2, 0, 1, 2])
one_hot = torch.zeros(4, 3, device=device).scatter_(1, labels.unsqueeze(1), 1.0)
print(one_hot.tolist(), F.one_hot(labels, 3).tolist())
smooth = torch.full((4, 3), 0.1 / 2, device=device).scatter(1, labels.unsqueeze(1), 0.9)
logits = fill((4, 3), 2.0).requires_grad_()
log_probs = logits - logits.logsumexp(1, keepdim=True)
loss = -(smooth * log_probs).sum(1).mean()
loss.backward()
print(f"smoothed loss {loss.item():.6f}")
show("logits grad", logits.grad)
counts = torch.zeros(3, device=device).scatter_add_(0, labels, torch.ones(4, device=device))
print("counts", counts.tolist(), "nonzero", labels.count_nonzero().item())

# A contrastive score between two views of a batch.
a = fill((3, 4), 1.0).requires_grad_()
b = fill((3, 4), -0.7) + 0.2
za, zb = F.normalize(a, dim=1), F.normalize(b, dim=1)
sim = za @ zb.t()
show("similarity", sim)
cos = F.cosine_similarity(a, b)
cos.sum().backward()
show("cosine", cos, 5)
show("a grad", a.grad)
print(cos.grad_fn.name(), sim.grad_fn.name())

# Keys repeated for grouped heads, a padding mask, selected scores.
keys = fill((2, 3), 1.0).requires_grad_()
rep = keys.repeat_interleave(2, dim=0)
mask = T([[True, False, True], [True, True, False], [False, True, True], [True, True, True]])
picked = rep.masked_select(mask)
picked.pow(2).sum().backward()
show("picked", picked)
show("keys grad", keys.grad)
rows = keys.index_select(0, T([1, 1, 0]))
print(rows.shape, rows.grad_fn.name(), picked.grad_fn.name(), rep.grad_fn.name())

# A sinusoidal encoding and an RMS norm.
pos = torch.arange(4, dtype=torch.float32, device=device).unsqueeze(1)
div = torch.exp2(torch.arange(0, 4, 2, dtype=torch.float32, device=device) * -(math.log2(10000.0) / 4))
pe = torch.zeros(4, 4, device=device)
pe[:, 0::2] = torch.sin(pos * div)
pe[:, 1::2] = torch.cos(pos * div)
show("encoding", pe)
h = fill((2, 4), 3.0).requires_grad_()
rms = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
rms.sum().backward()
show("rms", rms)
show("rms grad", h.grad)
u = T([-2.0, -0.25, 0.5, 3.0])
for name, r in [("sign", u.sign()), ("tan", torch.tan(u)), ("atan", u.atan()), ("reciprocal", u.reciprocal()),
                ("log2", u.abs().log2()), ("expm1", u.expm1()), ("sinh", u.sinh()), ("clip", u.clip(-1, 1)),
                ("outer", torch.outer(u[:2], u[2:])), ("lerp", torch.lerp(u, u.flip(0), 0.75))]:
    show(name, r)
w = u.clone()
w.tanh_()
w.mul_(2).exp_()
show("in place", w)
print("finite", torch.isfinite(T([1.0, math.inf, math.nan])).tolist(), "inf", T([-math.inf, 0.0]).isinf().tolist())
print(torch.hstack([u[:2], u[2:]]).shape, torch.vstack([u, u]).shape, torch.column_stack([u, u]).shape)

# Padded sequences and the activations of newer models.
seqs = [T([1.0, 2.0, 3.0]), T([4.0]), T([5.0, 6.0])]
batch = torch.stack([F.pad(s, (0, 3 - s.shape[0]), value=0.0) for s in seqs])
print(batch.tolist(), (batch != 0).any(dim=1).tolist(), (batch != 0).all(dim=1).tolist())
rows, cols = torch.where(batch > 2)
print(rows.tolist(), cols.tolist())
act = nn.Sequential(nn.Linear(3, 3), nn.SiLU(), nn.Linear(3, 2), nn.Mish()).to(device)
with torch.no_grad():
    for p in act.parameters():
        p.copy_(fill(p.shape, 0.8))
out = act(F.pad(batch, (1, -1)))
out.sum().backward()
show("activations", out)
show("first weight grad", act[0].weight.grad)
print(act, out.grad_fn.name())

# Attention scores and a bilinear form written with einsum.
q = fill((2, 3, 4), 1.0).requires_grad_()
k = fill((2, 5, 4), -0.5)
scores = torch.einsum("bqd,bkd->bqk", q, k) / math.sqrt(4)
mixed = torch.einsum("bqk,bkd->bqd", scores.softmax(-1), k)
bil = torch.einsum("i,ij,j->", q[0, 0], fill((4, 4), 0.3), k[0, 0])
(mixed.sum() + bil).backward()
show("scores", scores[0])
show("q grad", q.grad[1])
print(scores.grad_fn.name(), mixed.grad_fn.name(), round(bil.item(), 5), torch.einsum("ij->j", pe).shape)

# A letter twice in one operand: a diagonal (a trace, a batch of them).
sq = fill((3, 3), 1.0).requires_grad_()
tr = torch.einsum("ii", sq)
tr.backward()
show("diag", torch.einsum("ii->i", sq).detach())
show("batch diag", torch.einsum("bii->bi", fill((2, 3, 3), 0.5)))
show("iji", torch.einsum("iji->j", fill((2, 4, 2), 1.0)))
show("ij,jj", torch.einsum("ij,jj->i", fill((2, 3), 1.0), fill((3, 3), 0.7)))
show("trace grad", sq.grad)
print(round(tr.item(), 5), tr.grad_fn.name(), torch.einsum("ii->i", sq).grad_fn.name(),
      torch.einsum("ij->ij", sq).grad_fn.name())

# What PyTorch refuses.
for bad in ["gather", "scatter_add_", "one_hot", "exp_"]:
    try:
        if bad == "gather":
            states.gather(1, T([0, 1]))
        elif bad == "scatter_add_":
            policy.fc1.weight.scatter_add_(0, T([[0]]), T([[1.0]]))
        elif bad == "one_hot":
            F.one_hot(T([0.0, 1.0]))
        else:
            torch.arange(3, device=device).exp_()
    except RuntimeError as e:
        print(f"{bad}: RuntimeError: {str(e).splitlines()[0]}")
