# torch.random.fork_rng: run a block with the generators' states put back
# afterwards (the CPU's always, and each listed CUDA device's).
import warnings
from contextlib import contextmanager

import torch

_fork_rng_warned_already = False


@contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Context manager: the CPU generator's state, and that of each CUDA
    device in `devices` (every device when None, with PyTorch's warning
    when there are several), are restored when the block ends."""
    global _fork_rng_warned_already
    if device_type == "meta" or not enabled:
        yield
        return
    kind = device_type.upper()
    if devices is None:
        count = torch.cuda.device_count()
        if count > 1 and not _fork_rng_warned_already:
            warnings.warn(
                f"{kind} reports that you have {count} available devices, and "
                f"you have used {_caller} without explicitly specifying which devices are being used. "
                f"For safety, we initialize *every* {kind} device by default, which can "
                f"be quite slow if you have a lot of {kind}s. If you know that you are only"
                f" making use of a few {kind} devices, set the environment variable "
                f"{kind}_VISIBLE_DEVICES or the '{_devices_kw}' keyword argument of {_caller} "
                "with the set of devices you are actually using. For example, if you are using CPU only, "
                "set device.upper()_VISIBLE_DEVICES= or devices=[]; if you are using device 0 only, "
                f"set {kind}_VISIBLE_DEVICES=0 or devices=[0].  To initialize all devices "
                f"and suppress this warning, set the '{_devices_kw}' keyword argument to "
                f"`range(torch.{device_type}.device_count())`."
            )
            _fork_rng_warned_already = True
        devices = list(range(count))
    else:
        devices = list(devices)
    cpu_state = torch.get_rng_state()
    device_states = [torch.cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        torch.set_rng_state(cpu_state)
        for d, state in zip(devices, device_states):
            torch.cuda.set_rng_state(state, d)
