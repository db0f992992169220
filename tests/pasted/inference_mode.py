# torch.inference_mode(): what it makes, and what PyTorch refuses later.
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(16, 4).to(device)
target = torch.randint(0, 2, (16,)).to(device)

# Evaluation under inference mode: no graph, and inference tensors.
model.eval()
with torch.inference_mode():
    print("enabled inside:", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    logits = model(data)
    pred = logits.argmax(dim=1)
    first = logits[0]
    print("logits:", logits.is_inference(), logits.requires_grad, logits.grad_fn)
    print("a view of one:", first.is_inference())
    print("accuracy:", (pred == target).float().mean().item())
    with torch.inference_mode(False):
        normal = torch.zeros(2, device=device)
        print("inference_mode(False):", torch.is_inference_mode_enabled(), torch.is_grad_enabled(), normal.is_inference())
    logits.mul_(2)  # in place inside inference mode: allowed
print("enabled after:", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
print("a parameter:", model[0].weight.is_inference())

def report(what, f):
    try:
        f()
        print(what, "ok")
    except RuntimeError as e:
        print(what, "->", str(e).split(".")[0] + ".")

# What PyTorch refuses once the block has ended.
model.train()
head = nn.Linear(2, 2).to(device)
report("train on inference logits", lambda: nn.functional.cross_entropy(head(logits), target).backward())
report("mul with a weight", lambda: logits * head.weight.sum())
report("add to a bias", lambda: logits + head.bias)
report("in place", lambda: logits.add_(1))
report("requires_grad_", lambda: logits.requires_grad_())
report("_version", lambda: logits._version)
def assign():
    logits[0, 0] = 1.0
report("item assignment", assign)

# The fix PyTorch's message names: a clone is a normal tensor.
features = logits.clone()
print("clone:", features.is_inference())
loss = nn.functional.cross_entropy(head(features), target)
loss.backward()
print("loss:", round(loss.item(), 4), head.weight.grad.shape)

# A model made under inference mode has inference parameters.
with torch.inference_mode():
    frozen = nn.Linear(2, 2).to(device)
print("made inside:", frozen.weight.is_inference(), frozen.weight.requires_grad)
x = torch.randn(3, 2).to(device)
report("forward outside", lambda: frozen(x).sum().backward())
report("optimizer step", lambda: torch.optim.SGD(frozen.parameters(), lr=0.1).step())

# As a decorator, with and without parentheses.
@torch.inference_mode()
def predict(batch):
    return model(batch).softmax(dim=1)

@torch.inference_mode
def embed(batch):
    return model[0](batch)

p = predict(data[:3])
print("decorated:", p.is_inference(), p.requires_grad, embed(data[:1]).is_inference(), torch.is_inference_mode_enabled())
print(torch.is_inference(p), torch.is_inference(data))

# Under no_grad the same results are normal tensors.
with torch.no_grad():
    plain = model(data)
print("no_grad:", plain.is_inference(), plain.requires_grad)
print(plain.mul_(1)._version)

# A custom Function that saves one, and an in-place change of shape.
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        ctx.save_for_backward(s)
        return x * s

    @staticmethod
    def backward(ctx, g):
        (s,) = ctx.saved_tensors
        return g * s, None

with torch.inference_mode():
    s = torch.full((3,), 2.0, device=device)
w = torch.ones(3, device=device, requires_grad=True)
report("custom Function", lambda: Scale.apply(w, s))
print("saved when nothing records:", Scale.apply(w.detach(), s).is_inference())
report("unsqueeze_", lambda: s.unsqueeze_(0))
print("its shape:", tuple(s.shape))
