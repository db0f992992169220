# What PyTorch's beginner tutorials (pytorch/tutorials: basics/
# tensorqs_tutorial.py, blitz/tensor_tutorial.py, introyt/modelsyt_tutorial.py
# and autogradyt_tutorial.py, data_tutorial.py) do besides training:
# `out=`, NumPy's ufuncs writing into an array, a Softmax without `dim`,
# walking `next_functions`, and matplotlib's figures (made with matplotlib
# in PyTorch's run: `pip install matplotlib` beside torch).
import os
import tempfile

import numpy as np
import torch
import torch.functional as F
import matplotlib.pyplot as plt

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

# tensorqs_tutorial: the three ways to multiply, the third with out=.
tensor = torch.ones(4, 4, device=device)
tensor[:, 1] = 0
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
r = torch.matmul(tensor, tensor.T, out=y3)
print(r is y3, y3.tolist() == y1.tolist())
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z3.sum().item())
values = torch.empty(4, device=device)
indices = torch.empty(4, dtype=torch.long, device=device)
torch.max(torch.arange(16.0, device=device).reshape(4, 4), 1, out=(values, indices))
print(values.tolist(), indices.tolist())
try:
    torch.add(torch.ones(2, device=device), 1.5, out=torch.zeros(2, dtype=torch.long, device=device))
except RuntimeError as e:
    print("RuntimeError:", e)
w = torch.ones(2, requires_grad=True)
try:
    torch.mul(w, 2, out=torch.zeros(2))
except RuntimeError as e:
    print("RuntimeError:", e)

# tensor_tutorial: a NumPy array shares memory with the tensor; np.add
# writes into it.
t = torch.ones(5)
n = t.numpy()
np.add(n, 1, out=n)
print(t.tolist(), n.tolist())
print(np.multiply(np.arange(4), 3).tolist(), np.power(np.arange(4), 2).tolist())
parts = np.array_split(np.arange(10), 3)
print([p.tolist() for p in parts])
a = np.zeros((2, 4))
a[1, :3] = [1, 2, 3]
print(a.tolist())


# modelsyt_tutorial: `import torch.functional as F`, and a Softmax without dim.
class TinyModel(torch.nn.Module):
    def __init__(self):
        super(TinyModel, self).__init__()
        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


tinymodel = TinyModel().to(device)
print(tinymodel.softmax)
out = tinymodel(torch.rand(3, 100, device=device))
print(out.shape, [round(s, 4) for s in out.sum(1).tolist()])
print(F.einsum("ij,jk->ik", torch.eye(3), torch.ones(3, 2)).sum().item())

# autogradyt_tutorial: the graph behind d, walked back to its leaf.
a = torch.linspace(0.0, 2.0 * 3.14159, steps=25, requires_grad=True)
b = torch.sin(a)
c = 2 * b
d = c + 1
names = []
f = d.grad_fn
while f is not None:
    names.append(f.name())
    nxt = [g for g, _ in f.next_functions if g is not None]
    f = nxt[0] if nxt else None
print(names)
print([(g.name() if g is not None else None) for g, _ in (2 - b).grad_fn.next_functions])
print([(g.name() if g is not None else None) for g, _ in (b ** 2).grad_fn.next_functions])

# data_tutorial's grid of samples, and a plot, saved as PNG files.
figure = plt.figure(figsize=(8, 8))
cols, rows = 3, 3
for i in range(1, cols * rows + 1):
    img = torch.rand(1, 28, 28)
    figure.add_subplot(rows, cols, i)
    plt.title(f"sample {i}")
    plt.axis("off")
    plt.imshow(img.squeeze(), cmap="gray")
print(len(figure.axes), figure.axes[4].get_title())
fig, axes = plt.subplots(2, 3, figsize=(6, 4))
print(axes.shape, len(fig.axes))
axes[0, 1].plot([0, 1, 2], [0, 1, 4], "r--", label="squares")
axes[1, 2].bar(["a", "b"], [3, 5])
print([round(float(v), 6) for v in axes[0, 1].get_xlim() + axes[0, 1].get_ylim()], len(axes[0, 1].lines))
plt.figure()
plt.plot(torch.linspace(0, 1, 11) ** 2)
plt.xlabel("step")
plt.ylabel("loss")
plt.imshow(np.zeros((4, 6)))
print([round(float(v), 6) for v in plt.gca().get_xlim() + plt.gca().get_ylim()], plt.gca().get_ylabel())
d = tempfile.mkdtemp()
figure.savefig(os.path.join(d, "grid.png"))
fig.savefig(os.path.join(d, "subplots.png"))
plt.savefig(os.path.join(d, "current"))
plt.show()
from PIL import Image
print(sorted(os.listdir(d)), Image.open(os.path.join(d, "grid.png")).size, Image.open(os.path.join(d, "subplots.png")).size)
plt.close("all")
print(plt.get_fignums())
