# PyTorch's recipe "Tips for Loading an nn.Module from a Checkpoint"
# (pytorch/tutorials: recipes_source/recipes/module_load_state_dict_tips.py):
# its code, in a temporary directory, with what each step gives printed
# (it prints nothing itself): torch.load(mmap=True), a module made under
# torch.device('meta'), load_state_dict(assign=True).
import os, tempfile
import torch
from torch import nn
torch.manual_seed(0)
os.chdir(tempfile.mkdtemp())

class SomeModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(1, 1) for i in range(10)])

    def forward(self, x):
        return self.linears(x)


m = SomeModule()
torch.save(m.state_dict(), 'checkpoint.pth')
state_dict = torch.load('checkpoint.pth', mmap=True)
with torch.device('meta'):
  meta_m = SomeModule()
print(meta_m.load_state_dict(state_dict, assign=True))

state_dict = torch.load('checkpoint.pth')
m = SomeModule()
print(m.load_state_dict(state_dict))

state_dict = torch.load('checkpoint.pth')
state_dict = torch.load('checkpoint.pth', mmap=True)
m = SomeModule()
with torch.device('meta'):
  meta_m = SomeModule()
print(meta_m.linears[3].weight)
print(m.load_state_dict(state_dict))
print(meta_m.load_state_dict(state_dict, assign=True))
print(meta_m.linears[3].weight, meta_m.linears[3].weight.device)
print(meta_m.linears[3].weight is state_dict['linears.3.weight'], m.linears[3].weight is state_dict['linears.3.weight'])
print(torch.equal(m.linears[9].bias, meta_m.linears[9].bias))
