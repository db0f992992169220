# The idioms of PyTorch's "CUDA semantics" notes, as programs write them:
# devices bound to the names `cuda` and `cpu`, `torch.cuda.device` blocks,
# and `torch.cuda.set_sync_debug_mode` reporting the ops that make the
# host wait for a stream. Written for cudash's tests; two GPUs.
import torch

cuda = torch.device("cuda")  # the current CUDA device, wherever it is used
cuda0 = torch.device("cuda:0")
gpu1 = torch.device("cuda:1")

a = torch.ones(2, device=cuda0)
with torch.cuda.device(1):
    b = torch.ones(2, device=cuda)
    c = torch.ones(2).cuda()
    print(b.device, c.device, (b + c).device, torch.ones(2, device=gpu1).device)
    print((a + a).device)
print(torch.ones(1, device=cuda).device)

cpu = torch.device("cpu")
print(torch.ones(1, device=cpu).device)


def place(t, cuda):
    return t.cuda() if cuda else t


print(place(torch.ones(1), cuda=False).device, place(torch.ones(1), True).device)
print(dict(cuda=True, cpu=False))
cuda = torch.cuda.is_available()
print(cuda)
del cuda
print(torch.ones(1, device=cuda).device)  # unbound again: the device

print(torch.cuda.get_allocator_backend(), torch.cuda.memory.get_allocator_backend())
print(torch.cuda.get_sync_debug_mode())
torch.cuda.set_sync_debug_mode("warn")
print(torch.cuda.get_sync_debug_mode())
x = torch.arange(4.0, device=cuda0)
y = (x * 2).sum()  # queued: no wait
torch.cuda.synchronize()  # a device sync, not reported
print(y.item())  # a blocking copy: reported
torch.cuda.set_sync_debug_mode("error")
for what, op in [
    ("cpu()", lambda: x.cpu()),
    ("item()", lambda: y.item()),
    ("stream.synchronize()", lambda: torch.cuda.current_stream().synchronize()),
    ("to(cuda)", lambda: torch.ones(2).to(cuda0)),
    ("x[mask]", lambda: x[x > 1]),
    # Not a wait PyTorch reports: queued copies, a device's or an event's sync.
    ("copy_(non_blocking=True)", lambda: torch.empty(4).copy_(x, non_blocking=True)),
    ("to(cuda:1)", lambda: x.to(gpu1)),
    ("event.synchronize()", lambda: torch.cuda.Event().synchronize()),
    ("empty_cache()", lambda: torch.cuda.empty_cache()),
]:
    try:
        op()
        print(what, "passed")
    except RuntimeError as e:
        print(what, "RuntimeError:", e)
torch.cuda.current_stream().wait_stream(torch.cuda.current_stream())
torch.cuda.synchronize()
torch.cuda.set_sync_debug_mode(0)
print(x.cpu())
try:
    torch.cuda.set_sync_debug_mode("loud")
except RuntimeError as e:
    print("RuntimeError:", e)
torch.cuda.memory.empty_cache()
print(torch.cuda.memory.memory_reserved(), torch.cuda.memory.max_memory_allocated() > 0)
