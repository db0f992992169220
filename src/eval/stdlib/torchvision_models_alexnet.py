"""`torchvision.models.alexnet`: where torchvision defines AlexNet (the
same class and builder as `torchvision.models`)."""

from torchvision.models import AlexNet, alexnet, AlexNet_Weights
