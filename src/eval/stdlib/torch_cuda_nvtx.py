# torch.cuda.nvtx: NVTX annotations for an external profiler (Nsight
# Systems). No NVTX tool attaches to cudash, so each call does what it does
# in PyTorch when none is attached: nothing, returning NVTX's answers for
# that case (-2 for a push or a pop, 0 for a range's id).
from contextlib import contextmanager

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def range_push(msg):
    """Starts a nested range (NVTX's nvtxRangePushA); its depth with a
    tool attached, -2 without."""
    return -2


def range_pop():
    """Ends the innermost range; its depth with a tool attached, -2
    without."""
    return -2


def range_start(msg):
    """Starts a range that may end on another thread; its id (0 without a
    tool)."""
    return 0


def range_end(range_id):
    """Ends the range `range_start` gave `range_id`."""
    return None


def mark(msg):
    """An instant event in the profiler's timeline."""
    return None


@contextmanager
def range(msg, *args, **kwargs):
    """Context manager: a range around the block, named
    `msg.format(*args, **kwargs)`."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
