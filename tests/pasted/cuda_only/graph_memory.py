# The CUDA notes' "Graph memory management" as a learner checks it: a
# capture allocates from the graph's private pool, which eager work does
# not use and `empty_cache()` does not release while the graph lives;
# "sharing memory across captures" (`pool=g1.pool()`) lets a second
# capture reuse what the first freed; `make_graphed_callables` puts all
# its graphs in one pool; and the snapshot names each segment's pool.
import torch

MiB = 2**20


def show(what):
    print(
        f"{what}: allocated {torch.cuda.memory_allocated() // MiB} MiB, "
        f"reserved {torch.cuda.memory_reserved() // MiB} MiB"
    )


def pools():
    """Each segment's pool and size, as the allocator's snapshot has them."""
    segments = torch.cuda.memory._snapshot()["segments"]
    return sorted((s["segment_pool_id"], s["total_size"] // MiB) for s in segments)


# Tensors of 4 MiB: each large-pool segment a request of 1-10 MiB gets
# holds 20 MiB.
static_in = torch.randn(1024, 1024, device="cuda")
show("static input")

g1 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g1):
    tmp = static_in * 2  # an intermediate, freed inside the capture
    out1 = tmp + 1
    del tmp
show("g1 captured")
print("g1.pool()", g1.pool(), "segments", pools())

# The pool's free memory (tmp's block and the rest of its segment) is the
# graph's: eager tensors take the ordinary pool's, then a new segment, and
# `empty_cache()` gives back only that one.
eager16 = torch.empty(4096, 1024, device="cuda")
eager4 = torch.empty(1024, 1024, device="cuda")
show("eager tensors of 16 and 4 MiB")
del eager16, eager4
torch.cuda.empty_cache()
show("eager tensors freed, empty_cache")

# Sharing memory across captures: g2 reads g1's output, and its capture
# reuses the block g1's intermediate freed.
g2 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g2, pool=g1.pool()):
    out2 = out1 * 10
show("g2 captured into g1's pool")
print("g2.pool()", g2.pool(), "segments", pools())

static_in.copy_(torch.ones(1024, 1024, device="cuda"))
g1.replay()
g2.replay()
print("replayed in capture order:", out1[0, :3].tolist(), out2[0, :3].tolist())

# A graph of its own pool, for comparison: a capture that does not share
# takes a segment of its own.
g3 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g3):
    out3 = static_in * 10
show("g3 captured into a pool of its own")
print("g3.pool()", g3.pool(), "segments", pools())

# A pool outlives its first graph while another shares it; its memory goes
# back once no graph uses it and its tensors are freed.
del g1
torch.cuda.empty_cache()
show("g1 deleted (g2 still uses the pool)")
g2.reset()
torch.cuda.empty_cache()
show("g2 reset: out1 and out2 still hold the pool's segment")
del out1, out2
torch.cuda.empty_cache()
show("out1 and out2 freed")
del g3, out3
torch.cuda.empty_cache()
show("g3 and out3 gone")
print("segments", pools())

# make_graphed_callables captures every graph into one pool.
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 512)).cuda()
x = torch.randn(256, 512, device="cuda", requires_grad=True)
graphed = torch.cuda.make_graphed_callables(model, (x,))
ids = sorted({p for p, _ in pools() if p != (0, 0)})
print("make_graphed_callables: private pools", ids)
handle = torch.cuda.graph_pool_handle()
print("a new handle", handle, "is not one of them", handle not in ids)

# A sync inside a capture fails it; the graph holds no pool afterwards.
g4 = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g4):
        y = static_in * 3
        torch.cuda.synchronize()
except RuntimeError as e:
    print("capture failed:", str(e).splitlines()[0])
try:
    g4.pool()
except RuntimeError as e:
    print("g4.pool():", e)

# memory_snapshot(mempool_id): the segments of one pool.
g5 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g5):
    out5 = static_in + 5
mine = torch.cuda.memory_snapshot(g5.pool())
print("g5's pool", g5.pool(), "holds", len(mine), "segment of", mine[0]["total_size"] // MiB, "MiB")
print("its blocks:", [(b["size"] // MiB, b["state"]) for b in mine[0]["blocks"]])
