# torch.UntypedStorage as `x.untyped_storage()` gives it: the bytes behind a
# tensor and every view of it. A view's storage is its base's whole
# allocation (`x[:1].untyped_storage().nbytes()` is all of x's), which is
# why a small slice keeps a large tensor's memory alive.
import _cudash


class UntypedStorage:
    """The storage of a tensor: its address, its size in bytes, its
    device, and its bytes."""

    def __init__(self, tensor):
        self._tensor = tensor

    def data_ptr(self):
        return _cudash.storage_ptr(self._tensor)

    def nbytes(self):
        return _cudash.storage_nbytes(self._tensor)

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

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

    def tolist(self):
        return _cudash.storage_bytes(self._tensor)

    def __getitem__(self, i):
        return self.tolist()[i]

    def __repr__(self):
        body = " " + "\n ".join(str(b) for b in self.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"

    def __str__(self):
        return self.__repr__()


def untyped_storage(tensor):
    """`x.untyped_storage()`: the storage behind x (and its views)."""
    return UntypedStorage(tensor)
