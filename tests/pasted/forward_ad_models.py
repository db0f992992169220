# Forward-mode AD through whole models: a CNN with batch norm, max pooling
# and a cross-entropy loss, and a small text model with an embedding,
# layer norm and attention-free mixing; parameters made dual with
# torch.func.functional_call, an input made dual directly, in training and
# in eval mode. Each tangent is checked against finite differences too.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call

torch.manual_seed(0)
cnn = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1),
    nn.BatchNorm2d(4),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(4, 6, 3),
    nn.GroupNorm(2, 6),
    nn.AvgPool2d(2),
    nn.Flatten(),
    nn.Linear(6, 3),
)
images = torch.randn(5, 1, 8, 8, dtype=torch.float64)
labels = torch.tensor([0, 2, 1, 1, 0])
cnn = cnn.double()


def loss_of(params, x):
    return F.cross_entropy(functional_call(cnn, params, (x,)), labels)


params = {k: v.detach() for k, v in cnn.named_parameters()}
directions = {k: torch.randn_like(v) for k, v in params.items()}
for mode in ["train", "eval"]:
    getattr(cnn, mode)()
    with fwAD.dual_level():
        dual = {k: fwAD.make_dual(v, directions[k]) for k, v in params.items()}
        loss = loss_of(dual, images)
        primal, tangent = fwAD.unpack_dual(loss)
    eps = 1e-6
    plus = {k: v + eps * directions[k] for k, v in params.items()}
    minus = {k: v - eps * directions[k] for k, v in params.items()}
    cnn.eval()  # finite differences with the running statistics fixed
    if mode == "train":
        cnn.train()
        saved = [b.clone() for b in cnn.buffers()]
    fd = (loss_of(plus, images) - loss_of(minus, images)) / (2 * eps)
    if mode == "train":
        for b, s in zip(cnn.buffers(), saved):
            b.copy_(s)
    print(mode, round(primal.item(), 6), round(tangent.item(), 6), abs(tangent.item() - fd.item()) < 1e-6)

# The input dual: how the class scores move along an image direction.
cnn.eval()
with fwAD.dual_level():
    scores = cnn(fwAD.make_dual(images, torch.ones_like(images)))
    # (detached: its history, through parameters that require grad, has
    # PyTorch's AddBackward0 of a zero term where cudash's has MmBackward0)
    print(fwAD.unpack_dual(scores).tangent.detach())


class TextModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.norm = nn.LayerNorm(8)
        self.mix = nn.Linear(8, 8)
        self.out = nn.Linear(8, 10)

    def forward(self, tokens):
        h = self.norm(self.embed(tokens))
        h = h + torch.tanh(self.mix(h))
        return self.out(h.max(dim=1).values)


torch.manual_seed(1)
text = TextModel().double()
tokens = torch.tensor([[1, 4, 4, 9], [0, 3, 7, 2]])
params = {k: v.detach() for k, v in text.named_parameters()}
directions = {k: torch.randn_like(v) for k, v in params.items()}
with fwAD.dual_level():
    dual = {k: fwAD.make_dual(v, directions[k]) for k, v in params.items()}
    logits = functional_call(text, dual, (tokens,))
    loss = F.cross_entropy(logits, torch.tensor([3, 5]))
    print(fwAD.unpack_dual(logits).tangent)
    print(round(fwAD.unpack_dual(loss).tangent.item(), 6))
