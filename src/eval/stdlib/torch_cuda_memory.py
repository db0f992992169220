"""PyTorch's other names for the allocator's statistics
(torch/cuda/memory.py): `memory_stats_as_nested_dict()`,
`memory_snapshot()`, and the names
from before "cached" became "reserved" (`memory_cached`,
`max_memory_cached`, `reset_max_memory_cached`) and before the peaks were
reset together (`reset_max_memory_allocated`), each with PyTorch's
FutureWarning."""
import warnings

import torch


def memory_stats_as_nested_dict(device=None):
    """`memory_stats()` as nested dicts: `stats["allocated_bytes"]["all"]["peak"]`."""
    nested = {}
    for key, value in torch.cuda.memory_stats(device).items():
        parts = key.split(".")
        at = nested
        for part in parts[:-1]:
            at = at.setdefault(part, {})
        at[parts[-1]] = value
    return nested


def memory_snapshot(mempool_id=None, include_traces=True):
    """Every device's segments, with their blocks, as `_snapshot()` has
    them; only those of memory pool `mempool_id` where one is given (a
    CUDA graph's `g.pool()`, a `graph_pool_handle()`)."""
    segments = torch.cuda.memory._snapshot()["segments"]
    if mempool_id is None or tuple(mempool_id) == (0, 0):
        return segments
    want = tuple(mempool_id)
    return [s for s in segments if tuple(s["segment_pool_id"]) == want]


def memory_cached(device=None):
    warnings.warn(
        "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return torch.cuda.memory_reserved(device)


def max_memory_cached(device=None):
    warnings.warn(
        "`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return torch.cuda.max_memory_reserved(device)


def reset_max_memory_cached(device=None):
    warnings.warn(
        "torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, "
        "which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    torch.cuda.reset_peak_memory_stats(device)


def reset_max_memory_allocated(device=None):
    warnings.warn(
        "torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
        "which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    torch.cuda.reset_peak_memory_stats(device)
