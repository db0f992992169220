"""torch.autograd.profiler, as cudash gives it (written for cudash, after
PyTorch 2.15's `torch/autograd/profiler.py`): the older `profile(enabled=,
use_device=)`, whose table has the device's rows only with
`use_device="cuda"`, and `record_function`, over `torch.profiler`."""
import torch.profiler as _profiler
from torch.profiler import record_function

__all__ = ["profile", "record_function"]


class profile(_profiler.profile):
    """Records what runs inside it: `with profile(use_device="cuda") as prof:`."""

    def __init__(self, enabled=True, *, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False,
                 with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        activities = [_profiler.ProfilerActivity.CPU]
        if use_device == "cuda":
            activities.append(_profiler.ProfilerActivity.CUDA)
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.enabled:
            self.stop()
        return False

    def table(self, sort_by=None, row_limit=100, **kwargs):
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit)
