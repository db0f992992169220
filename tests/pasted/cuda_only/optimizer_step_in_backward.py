# PyTorch's "How to save memory by fusing the optimizer step into the
# backward pass" (intermediate_source/optimizer_step_in_backward_tutorial.py)
# as pasted, smaller: a Vision Transformer of 4 layers on 64x64 images
# instead of `models.vit_l_16(weights='DEFAULT')` (1.2 GB of weights to
# download), and the peaks it asks the snapshots about printed. The
# tutorial's text is left out.
import torch
from torchvision import models
from pickle import dump

model = models.VisionTransformer(image_size=64, patch_size=16, num_layers=4, num_heads=4,
                                 hidden_dim=256, mlp_dim=1024).cuda()
optimizer = torch.optim.Adam(model.parameters())

IMAGE_SIZE = 64

def train(model, optimizer):
  # create our fake image input: tensor shape is batch_size, channels, height, width
  fake_image = torch.rand(1, 3, IMAGE_SIZE, IMAGE_SIZE).cuda()

  # call our forward and backward
  loss = model.forward(fake_image)
  loss.sum().backward()

  # optimizer update
  optimizer.step()
  optimizer.zero_grad()

# tell CUDA to start recording memory allocations
torch.cuda.memory._record_memory_history(enabled='all')

# train 3 steps
for _ in range(3):
  train(model, optimizer)

# save a snapshot of the memory allocations
s = torch.cuda.memory._snapshot()
with open(f"snapshot.pickle", "wb") as f:
    dump(s, f)

# tell CUDA to stop recording memory allocations now
torch.cuda.memory._record_memory_history(enabled=None)
P = sum(p.numel() * 4 for p in model.parameters())
# (Not the tutorial's: the peak, in parameters' sizes.)
print("peak with Adam's step: %.2f P" % (torch.cuda.max_memory_allocated() / P))

optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}

# Define our hook, which will call the optimizer ``step()`` and ``zero_grad()``
def optimizer_hook(parameter) -> None:
  optimizer_dict[parameter].step()
  optimizer_dict[parameter].zero_grad()

# Register the hook onto every parameter
for p in model.parameters():
   p.register_post_accumulate_grad_hook(optimizer_hook)

def train(model):
  # create our fake image input: tensor shape is batch_size, channels, height, width
  fake_image = torch.rand(1, 3, IMAGE_SIZE, IMAGE_SIZE).cuda()

  # call our forward and backward
  loss = model.forward(fake_image)
  loss.sum().backward()

del optimizer
torch.cuda.reset_peak_memory_stats()  # (not the tutorial's)

# tell CUDA to start recording memory allocations
torch.cuda.memory._record_memory_history(enabled='all')

# train 3 steps. note that we no longer pass the optimizer into train()
for _ in range(3):
  train(model)

# save a snapshot of the memory allocations
s = torch.cuda.memory._snapshot()
with open(f"snapshot-opt-in-bwd.pickle", "wb") as f:
    dump(s, f)

# tell CUDA to stop recording memory allocations now
torch.cuda.memory._record_memory_history(enabled=None)
print("peak with the step in backward: %.2f P" % (torch.cuda.max_memory_allocated() / P))
print(sorted(s.keys()), len(s["segments"]), len(s["device_traces"]))
