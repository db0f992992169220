"""`torch.layout` and `torch.memory_format`: how a tensor's elements are laid
out (written for cudash). `torch.strided` is every dense tensor's layout;
`torch.sparse_coo` a sparse COO tensor's (`x.to_sparse()`,
`torch.sparse_coo_tensor`). A memory format is the order a dense tensor's
dimensions lie in memory: `torch.contiguous_format` is row-major,
`torch.channels_last` lays an NCHW tensor out pixel by pixel (strides
`(HWC, 1, WC, C)`), `torch.channels_last_3d` an NCDHW one, and
`torch.preserve_format` asks a copy for its source's order."""


class _Named:
    __module__ = "torch"

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


class layout(_Named):
    __module__ = "torch"


class memory_format(_Named):
    __module__ = "torch"


strided = layout("strided")
sparse_coo = layout("sparse_coo")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
