"""`torch.cuda.device` and `torch.cuda.device_of`, as PyTorch's
(torch/cuda/__init__.py): a context that makes a CUDA device current for
its block, the one `"cuda"` then means, and gives the previous one back
after. It does not move tensors or change where factories put them:
`with torch.device("cuda:1"):` does that (the default device)."""
import torch


def _index(device):
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return torch.cuda.current_device() if device.index is None else device.index
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")


class device:
    """Makes device `device` (an index, `"cuda:1"`, a `torch.device`)
    current inside the `with` block; None changes nothing."""

    __module__ = "torch.cuda"

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx == -1:
            return
        self.prev_idx = torch.cuda.current_device()
        if self.prev_idx != self.idx:
            torch.cuda.set_device(self.idx)

    def __exit__(self, type, value, traceback):
        if self.idx != -1 and self.prev_idx != self.idx:
            torch.cuda.set_device(self.prev_idx)
        return False


class device_of(device):
    """The device a tensor lives on made current (no change for a cpu
    tensor)."""

    __module__ = "torch.cuda"

    def __init__(self, obj):
        idx = obj.get_device() if obj.is_cuda else -1
        super().__init__(idx)
