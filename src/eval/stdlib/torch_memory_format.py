"""`torch.memory_format`: the order a dense tensor's dimensions lie in memory
(written for cudash). `torch.contiguous_format` is row-major;
`torch.channels_last` lays an NCHW tensor out pixel by pixel (strides
`(HWC, 1, WC, C)`), `torch.channels_last_3d` an NCDHW one;
`torch.preserve_format` asks a copy for its source's order."""


class memory_format:
    __module__ = "torch"

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
