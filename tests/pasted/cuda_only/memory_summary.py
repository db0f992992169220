# The allocator's statistics as torch.cuda.memory_stats() and
# memory_summary() give them, after a few allocations, a free while another
# stream uses the block (record_stream) and empty_cache().
# memory_summary.py.expected is this program's output on simulated GPUs with
# each table made by PyTorch 2.15's own memory_summary from the dict printed
# above it (`python memory_summary_by_pytorch.py OUTPUT`, PyTorch's code on
# cudash's figures); tests/pasted_programs.rs compares.
import torch

x = torch.randn(1000, 1000, device="cuda")
y = torch.randn(10, device="cuda")
z = torch.randn(100, device="cuda")
big = [torch.empty(300 * 1024 * 1024 // 4, device="cuda") for _ in range(3)]
del big[1]
del y

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    w = z * 2
z.record_stream(side)
del z
print(dict(torch.cuda.memory_stats()))
print(torch.cuda.memory_summary(), end="")

torch.cuda.empty_cache()
print(dict(torch.cuda.memory_stats()))
print(torch.cuda.memory_summary(abbreviated=True), end="")
