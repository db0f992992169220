# nn.AdaptiveLogSoftmaxWithLoss (a large vocabulary's output layer): the
# head and the tail clusters, the loss and its gradients, log_prob,
# predict, an unbatched row, and PyTorch's checks.
import torch
import torch.nn as nn
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()]
asm = nn.AdaptiveLogSoftmaxWithLoss(16, 50, cutoffs=[5, 20], div_value=2.0).to(device)
print(asm)
x = torch.randn(8, 16).to(device).requires_grad_()
target = torch.tensor([0, 3, 7, 19, 20, 49, 4, 30]).to(device)
out = asm(x, target)
print(type(out).__name__, r(out.output), round(out.loss.item(), 5))
out.loss.backward()
print(r(x.grad[0]), r(asm.head.weight.grad[0, :4]), r(asm.tail[1][1].weight.grad[0, :4]))
lp = asm.log_prob(x)
print(lp.shape, r(lp.exp().sum(1)), r(lp[0, :6]))
print(asm.predict(x).tolist())
single = asm(x[0], target[0])
print(r(single.output), round(single.loss.item(), 5))
print([n for n, _ in asm.named_parameters()])
try:
    asm(x, torch.tensor([0, 1, 2, 3, 4, 5, 6, 50]).to(device))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    nn.AdaptiveLogSoftmaxWithLoss(16, 50, cutoffs=[20, 5])
except ValueError as e:
    print("ValueError", e)
