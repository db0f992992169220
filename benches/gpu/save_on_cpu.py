# save_on_cpu on a GPU: the activations a forward keeps in device memory
# with and without it, and the gradients (the same). Run by PyTorch and by
# cudash (`cudash --backend cuda script`); tests/saved_tensors.rs runs it on
# sim and emu.
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
x = torch.randn(128, 256, device="cuda")
# A step first: cuBLAS's workspace (tens of MiB on a GPU, through the
# caching allocator) is not an activation.
model(x).sum().backward()
model.zero_grad(set_to_none=True)
base = torch.cuda.memory_allocated()
loss = model(x).sum()
print("plain", torch.cuda.memory_allocated() - base)
loss.backward()
g = [p.grad.clone() for p in model.parameters()]
model.zero_grad(set_to_none=True)
del loss
base = torch.cuda.memory_allocated()
with torch.autograd.graph.save_on_cpu(pin_memory=True):
    loss = model(x).sum()
print("save_on_cpu", torch.cuda.memory_allocated() - base)
loss.backward()
print(max(float((a - p.grad).abs().max()) for a, p in zip(g, model.parameters())) < 1e-5)
