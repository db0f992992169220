# Expandable segments, as PyTorch's CUDA notes describe them: each step
# frees a temporary a little larger than the last and keeps a tensor that
# lands in the temporary's segment, so every segment keeps an unusable
# sliver, and under a memory limit the fifth step runs out of memory.
# With expandable_segments:True the allocator grows one segment instead,
# and the same steps fit. Figures follow PyTorch's allocator rules.
import torch

MiB = 2**20


def steps(count):
    kept = []
    for n in range(count):
        temporary = torch.empty((100 + 2 * n) * MiB // 4, device="cuda")
        del temporary
        kept.append(torch.empty((60 + n) * MiB // 4, device="cuda"))
    return kept


total = torch.cuda.get_device_properties(0).total_memory
torch.cuda.set_per_process_memory_fraction(480 * MiB / total)

try:
    kept = steps(5)
except torch.cuda.OutOfMemoryError as e:
    print(type(e).__name__, torch.cuda.memory_reserved() // MiB)
print(torch.cuda.max_memory_reserved() // MiB, torch.cuda.memory_allocated())

torch.cuda.empty_cache()
torch.cuda.reset_peak_memory_stats()
torch.cuda.reset_accumulated_memory_stats()
torch.cuda.memory._set_allocator_settings("expandable_segments:True")
kept = steps(5)
stats = torch.cuda.memory_stats()
print(torch.cuda.max_memory_reserved() // MiB, torch.cuda.memory_allocated() // MiB)
print(stats["segment.all.current"], stats["num_device_alloc"], stats["inactive_split.all.current"])

# empty_cache() unmaps the whole free pages (20 MiB each in the large pool).
torch.cuda.empty_cache()
print(torch.cuda.memory_reserved() // MiB, torch.cuda.memory_stats()["num_device_free"])
snapshot = torch.cuda.memory._snapshot()
for segment in snapshot["segments"]:
    print(segment["segment_type"], segment["total_size"] // MiB, segment["is_expandable"])
actions = [e["action"] for e in snapshot["device_traces"][0]]
print([actions.count(a) for a in ["segment_alloc", "segment_free", "segment_map", "segment_unmap", "oom"]])

# Its memory cannot be sent to another process (CUDA IPC needs a
# cudaMalloc'd allocation): starting a process with one of its tensors fails.
import torch.multiprocessing as mp


def show(t):
    print(t.shape)


if __name__ == "__main__":
    p = mp.Process(target=show, args=(kept[0],))
    try:
        p.start()
    except RuntimeError as e:
        print(str(e).split(". ")[0])
