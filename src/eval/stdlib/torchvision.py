"""torchvision, as cudash gives it (written for cudash, after torchvision
0.29's Python): the datasets that come as files of numbers (MNIST,
FashionMNIST, KMNIST, read from the IDX files torchvision downloads;
CIFAR's pickled arrays), `ImageFolder` of PNG and JPEG pictures, `FakeData`,
the transforms of a tensor or a `PIL.Image` (`ToTensor`, `Normalize`,
`Compose`, crops, flips, padding, `Resize`, `RandomResizedCrop`) and
`utils.make_grid`/`save_image`. Rotations, affine maps and color changes
say so when they are made."""
from torchvision import datasets, io, models, transforms, utils
