# torch.autograd.graph: hooks for the tensors autograd saves for backward.
# The pairs are kept by cudash's autograd (src/autograd/saved_hooks.rs);
# pack is called right after the op that saved a tensor, unpack when
# backward (or `grad_fn._saved_<name>`) needs it back.
import torch
import _cudash


class saved_tensors_hooks:
    """Context manager: every tensor saved for backward inside is given to
    `pack_hook`, and the node keeps what it returns; backward gives that to
    `unpack_hook` to get the tensor back. The innermost pair is in force."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _cudash.saved_hooks_push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _cudash.saved_hooks_pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept in host memory (pinned when asked, copied without
    blocking) and copied back to their device for backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        device_module = getattr(torch, device_type, torch.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            is_pinnable = device_module.is_available() and not tensor.is_sparse
            packed = torch.empty(tensor.size(), dtype=tensor.dtype, layout=tensor.layout, pin_memory=is_pinnable)
            packed.copy_(tensor, non_blocking=is_pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager: entering saved_tensors_hooks inside raises
    RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message
        self.previous = None

    def __enter__(self):
        self.previous = _cudash.saved_hooks_disable(self.error_message)

    def __exit__(self, *args):
        _cudash.saved_hooks_disable(self.previous)


class Node:
    """The class of autograd's nodes (`y.grad_fn`, `AccumulateGrad`):
    `isinstance(y.grad_fn, torch.autograd.graph.Node)` holds of each, as
    PyTorch registers its C++ nodes with this abstract class."""

    _every_autograd_node = True
