"""`torch.layout`: how a tensor's elements are laid out (written for cudash).
`torch.strided` is every dense tensor's; `torch.sparse_coo` a sparse COO
tensor's (`x.to_sparse()`, `torch.sparse_coo_tensor`)."""


class layout:
    __module__ = "torch"

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
