# torch.UntypedStorage as `x.untyped_storage()` gives it: the bytes behind a
# tensor and every view of it. A view's storage is its base's whole
# allocation (`x[:1].untyped_storage().nbytes()` is all of x's), which is
# why a small slice keeps a large tensor's memory alive. `x.storage()` is
# the older TypedStorage over the same memory: its elements in x's dtype.
import warnings

import _cudash
import torch


class _Storage:
    """What both storages share: the tensor whose storage they are, its
    address, size in bytes, device and flags."""

    def __init__(self, tensor):
        self._tensor = tensor

    def data_ptr(self):
        return _cudash.storage_ptr(self._tensor)

    def nbytes(self):
        return _cudash.storage_nbytes(self._tensor)

    @property
    def device(self):
        return self._tensor.device

    @property
    def is_cuda(self):
        return self._tensor.is_cuda

    def is_pinned(self):
        return self._tensor.is_pinned()

    def is_shared(self):
        return self._tensor.is_shared()

    def __getitem__(self, i):
        return self.tolist()[i]

    def __str__(self):
        return self.__repr__()


class UntypedStorage(_Storage):
    """The storage of a tensor: its address, its size in bytes, its
    device, and its bytes."""

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def tolist(self):
        return _cudash.storage_bytes(self._tensor)

    def __repr__(self):
        body = " " + "\n ".join(str(b) for b in self.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"


def untyped_storage(tensor):
    """`x.untyped_storage()`: the storage behind x (and its views)."""
    return UntypedStorage(tensor)


_TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"
)
_warned = []


class TypedStorage(_Storage):
    """`x.storage()`: the storage behind x (and its views) as elements of
    x's dtype."""

    @property
    def dtype(self):
        return self._tensor.dtype

    @property
    def _untyped_storage(self):
        return UntypedStorage(self._tensor)

    def untyped(self):
        return UntypedStorage(self._tensor)

    def element_size(self):
        return self._tensor.element_size()

    def size(self):
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    def tolist(self):
        whole = self._tensor.detach().as_strided((self.size(),), (1,), 0)
        return whole.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        info = f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        body = " " + "\n ".join(str(v) for v in self.tolist())
        return f"{body}\n{info}"


def storage(tensor):
    """`x.storage()`: x's storage as a TypedStorage, with PyTorch's
    deprecation warning the first time."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
    return TypedStorage(tensor)
