"""Losses beyond classification, as training scripts use them: knowledge
distillation with KLDivLoss, a siamese encoder trained with
CosineEmbeddingLoss and TripletMarginLoss, a ranker with
MarginRankingLoss, a multi-label tagger with MultiLabelSoftMarginLoss, a
count model with PoissonNLLLoss and a regressor that predicts its own
uncertainty with GaussianNLLLoss (the variance through Softplus).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


def fill(shape, scale):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32, device=device).reshape(shape) * 0.37).sin() * scale


def init(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(fill(p.shape, 0.1 if name.endswith("bias") else 0.4))


x = fill((6, 5), 1.0)

# Distillation: the student matches the teacher's softened distribution.
teacher = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
student = nn.Linear(5, 3).to(device)
init(teacher)
init(student)
with torch.no_grad():
    teacher[2].weight.mul_(2.0)
labels = torch.tensor([0, 1, 2, 1, 0, 2], device=device)
kd = nn.KLDivLoss(reduction="batchmean")
ce = nn.CrossEntropyLoss()
opt = torch.optim.SGD(student.parameters(), lr=0.5)
T = 2.0
for step in range(3):
    opt.zero_grad()
    with torch.no_grad():
        soft = F.softmax(teacher(x) / T, dim=1)
    logits = student(x)
    distill = kd(F.log_softmax(logits / T, dim=1), soft) * T * T
    loss = 0.7 * distill + 0.3 * ce(logits, labels)
    loss.backward()
    opt.step()
    print(f"distill step {step}: kl {distill.item():.5f} total {loss.item():.5f}")
print("grad_fn:", distill.grad_fn.name(), loss.grad_fn.name())

# A siamese encoder: pairs that match get close, the others apart.
encoder = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 4)).to(device)
init(encoder)
pairs = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0, -1.0], device=device)
cosine = nn.CosineEmbeddingLoss(margin=0.2)
triplet = nn.TripletMarginLoss(margin=1.0, p=2)
opt = torch.optim.Adam(encoder.parameters(), lr=0.05)
for step in range(3):
    opt.zero_grad()
    a, b = encoder(x), encoder(x.flip(0) + 0.3)
    c = cosine(a, b, pairs)
    t = triplet(a, encoder(x + 0.1), encoder(-x))
    (c + t).backward()
    opt.step()
    print(f"siamese step {step}: cosine {c.item():.5f} triplet {t.item():.5f}")
dist = nn.PairwiseDistance()(encoder(x), encoder(x.flip(0)))
print("distances:", [round(d, 4) for d in dist.tolist()])

# A ranker: the first of each pair should score higher when target is 1.
scorer = nn.Linear(5, 1).to(device)
init(scorer)
rank = nn.MarginRankingLoss(margin=0.5)
s1, s2 = scorer(x).squeeze(1), scorer(x.roll(1, 0)).squeeze(1)
r = rank(s1, s2, pairs)
r.backward()
print(f"ranking loss {r.item():.5f} grad {[round(v, 4) for v in scorer.weight.grad[0].tolist()]}")

# A multi-label tagger with per-class weights.
tagger = nn.Linear(5, 4).to(device)
init(tagger)
tags = (fill((6, 4), 1.0) > 0.2).float()
ml = nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0], device=device))
m = ml(tagger(x), tags)
m.backward()
print(f"multilabel {m.item():.5f} bias grad {[round(v, 4) for v in tagger.bias.grad.tolist()]}")

# Counts: log rates with PoissonNLLLoss (and Stirling's term).
counts = (fill((6, 1), 3.0).abs() + 0.5).floor()
rate = nn.Linear(5, 1).to(device)
init(rate)
for full in (False, True):
    rate.zero_grad()
    p = nn.PoissonNLLLoss(full=full)(rate(x), counts)
    p.backward()
    print(f"poisson full={full}: {p.item():.5f} grad {round(rate.bias.grad.item(), 5)}")

# A regressor with its own variance.
head = nn.Linear(5, 2).to(device)
init(head)
target = fill((6, 1), 2.0)
out = head(x)
mean, var = out[:, :1], F.softplus(out[:, 1:]) + 1e-3
g = nn.GaussianNLLLoss()(mean, target, var)
g.backward()
print(f"gaussian nll {g.item():.5f} grad {[round(v, 4) for v in head.bias.grad.tolist()]}")

print("soft margin:", round(F.soft_margin_loss(fill((4,), 2.0), torch.tensor([1.0, -1.0, 1.0, -1.0], device=device)).item(), 5))
print("hinge:", [round(v, 4) for v in F.hinge_embedding_loss(fill((4,), 2.0), torch.tensor([1.0, -1.0, 1.0, -1.0], device=device), reduction="none").tolist()])
print(nn.Sequential(kd, cosine, triplet, rank, ml, nn.PoissonNLLLoss(), nn.GaussianNLLLoss(), nn.SoftMarginLoss()))
