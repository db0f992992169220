# Run with PyTorch (not cudash): reads the output of memory_summary.py and
# prints it again with each table made by PyTorch's own
# torch.cuda.memory_summary from the memory_stats() dict printed above it,
# so memory_summary.py.expected is PyTorch's formatting of cudash's figures.
import ast
import sys

import torch.cuda.memory as memory

out = []
abbreviated = False
for line in open(sys.argv[1]).read().split("\n"):
    if line.startswith("{"):
        stats = ast.literal_eval(line)
        memory.memory_stats = lambda device=None, stats=stats: stats
        out.append(line + "\n")
        out.append(memory.memory_summary(device=0, abbreviated=abbreviated))
        abbreviated = True
print("".join(out), end="")
