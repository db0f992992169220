"""`torchvision.models.resnet`: where torchvision defines its ResNets (the
same classes and builders as `torchvision.models`, so a subclass of
`ResNet` made from here is a `torchvision.models.ResNet`)."""

from torchvision.models import (
    ResNet, BasicBlock, Bottleneck, conv1x1, conv3x3,
    resnet18, resnet34, resnet50, resnet101, resnet152,
    resnext50_32x4d, resnext101_32x8d, wide_resnet50_2, wide_resnet101_2,
    ResNet18_Weights, ResNet34_Weights, ResNet50_Weights, ResNet101_Weights, ResNet152_Weights,
)
