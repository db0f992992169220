# nn.CTCLoss and F.ctc_loss (speech and OCR models' loss): padded and
# concatenated targets, repeated labels, reductions, impossible alignments
# and zero_infinity, an unbatched float64 input, empty targets, gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()]
T, N, C, S = 12, 3, 5, 4
x = torch.randn(T, N, C).to(device).requires_grad_()
lp = x.log_softmax(2)
targets = torch.randint(1, C, (N, S), dtype=torch.long)
targets[1, 2] = targets[1, 1]
targets = targets.to(device)
il = torch.tensor([12, 10, 7])
tl = torch.tensor([4, 3, 2])
ctc = nn.CTCLoss()
print(ctc)
loss = ctc(lp, targets, il, tl)
print(round(loss.item(), 5), loss.grad_fn.__class__.__name__)
loss.backward()
print(r(x.grad[:, 0]), r(x.grad[:, 1]), r(x.grad[:, 2]))
for red in ["sum", "none"]:
    print(red, r(F.ctc_loss(lp, targets, il, tl, reduction=red)))
flat = torch.cat([targets[0, :4], targets[1, :3], targets[2, :2]])
print(r(F.ctc_loss(lp, flat, (12, 10, 7), (4, 3, 2), reduction="none")))
# impossible alignment: a target longer than its input
bad = F.ctc_loss(lp, targets, torch.tensor([12, 3, 2]), tl, reduction="none")
print(r(bad), r(F.ctc_loss(lp, targets, torch.tensor([12, 3, 2]), tl, reduction="none", zero_infinity=True)))
x2 = torch.randn(T, N, C).to(device).requires_grad_()
l2 = F.ctc_loss(x2.log_softmax(2), targets, torch.tensor([12, 3, 2]), tl, zero_infinity=True)
l2.backward()
print(round(l2.item(), 5), r(x2.grad[:3, 2]), r(x2.grad[:2, 0]))
# unbatched, blank elsewhere, double
u = torch.randn(8, 4, dtype=torch.float64).to(device).requires_grad_()
lu = F.ctc_loss(u.log_softmax(1), torch.tensor([0, 1, 1], device=device), torch.tensor([8]), torch.tensor([3]), blank=3)
lu.backward()
print(round(lu.item(), 8), r(u.grad))
# empty target
print(r(F.ctc_loss(lp, targets, il, torch.tensor([0, 3, 2]), reduction="none")))
