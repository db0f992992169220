"""torchvision, as cudash gives it (written for cudash, after torchvision
0.29's Python): the datasets that come as files of numbers (MNIST,
FashionMNIST, KMNIST, read from the IDX files torchvision downloads),
`FakeData`, the transforms of a tensor or an image that do not resample
(`ToTensor`, `Normalize`, `Compose`, crops, flips, padding) and
`utils.make_grid`/`save_image`. Images are pixels in a tensor
(`torchvision._pil.Image`), since cudash has no PIL: what decodes JPEGs
(`ImageFolder`), resamples (`Resize`) or holds NumPy arrays (`CIFAR10`)
says so when it is called."""
from torchvision import datasets, models, transforms, utils
