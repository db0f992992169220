"""Writes tests/fixtures/torch_save: files PyTorch's torch.save wrote, and
beside each the same tensors as .safetensors, for tests/torch_files.rs.

Run with the torch-check venv (PyTorch CPU):
    target/torch-venv/bin/python scripts/torch_fixtures.py
"""
import os
import pathlib

import torch
import torch.nn as nn
from safetensors.torch import save_file

out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "torch_save"
out.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        x = torch.max_pool2d(x, 2)
        return self.fc(torch.flatten(x, 1))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(8, 1, 14, 14)
loss = model(x).square().mean()
loss.backward()
opt.step()
sd = model.state_dict()

# A state_dict (the BatchNorm's running statistics and its int64 counter too).
torch.save(sd, out / "net.pt")
save_file({k: v.contiguous() for k, v in sd.items()}, out / "net.safetensors")

# A checkpoint as PyTorch's tutorial saves one (a .tar by its convention).
torch.save(
    {
        "epoch": 5,
        "model_state_dict": sd,
        "optimizer_state_dict": opt.state_dict(),
        "loss": loss.item(),
        "note": "run 1",
        "flags": [True, None, 2.5],
    },
    out / "checkpoint.tar",
)

# Views into shared storages, 16-bit floats, a scalar, bools, a Parameter.
base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
views = {
    "transposed": base.t(),
    "strided": base[1:, ::2],
    "half": torch.linspace(-2, 2, 5).half(),
    "bf16": torch.linspace(-2, 2, 5).bfloat16(),
    "count": torch.tensor(7),
    "mask": torch.tensor([True, False, True]),
    "weight": nn.Parameter(torch.ones(2, 2)),
}
torch.save(views, out / "views.pt")
save_file({k: v.detach().contiguous() for k, v in views.items()}, out / "views.safetensors")

# A file PyTorch's weights_only load refuses: unpickling it would run a command.
class Evil:
    def __reduce__(self):
        return (os.system, ("echo this must never run",))


torch.save({"weight": torch.ones(2), "payload": Evil()}, out / "unsafe.pt")

# The format before PyTorch 1.6, and a TorchScript archive.
torch.save(torch.ones(2), out / "legacy.pt", _use_new_zipfile_serialization=False)
torch.jit.save(torch.jit.script(nn.Linear(2, 2)), out / "scripted.pt")
# A whole model (`torch.save(model, path)`): classes of `__main__`, which
# a load needs defined; in eval mode, with its input and PyTorch's output.
class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.act = nn.GELU(approximate="tanh")
        self.scale = 0.5

    def forward(self, x):
        return x + self.scale * self.act(self.fc(x))


class Whole(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding="same")
        self.bn = nn.BatchNorm2d(2)
        self.pool = nn.AdaptiveAvgPool2d((2, 2))
        self.emb = nn.Embedding(7, 8, padding_idx=0)
        self.lstm = nn.LSTM(8, 8, batch_first=True)
        self.blocks = nn.Sequential(Block(8), Block(8))
        self.head = nn.Linear(16, 3)
        self.register_buffer("offset", torch.full((3,), 0.25), persistent=False)
        self.labels = ["a", "b", "c"]
        self.sizes = {"hidden": 8}

    def forward(self, image, tokens):
        a = torch.flatten(self.pool(torch.relu(self.bn(self.conv(image)))), 1)
        h, _ = self.lstm(self.emb(tokens))
        b = self.blocks(h[:, -1])
        return self.head(torch.cat([a, b], 1)) + self.offset


whole = Whole()
whole(torch.randn(4, 1, 6, 6), torch.randint(0, 7, (4, 5)))  # running statistics
whole.eval()
image, tokens = torch.randn(2, 1, 6, 6), torch.tensor([[1, 2, 3, 0, 0], [4, 5, 6, 2, 1]])
with torch.no_grad():
    torch.save({"model": whole, "image": image, "tokens": tokens, "output": whole(image, tokens)},
               out / "whole.pt")

print("wrote", sorted(p.name for p in out.iterdir()))
