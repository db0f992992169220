"""`torchvision.models.vgg`: where torchvision defines its VGGs (the same
classes and builders as `torchvision.models`)."""

from torchvision.models import (
    VGG, make_layers, cfgs,
    vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn,
    VGG11_Weights, VGG11_BN_Weights, VGG13_Weights, VGG13_BN_Weights, VGG16_Weights,
    VGG16_BN_Weights, VGG19_Weights, VGG19_BN_Weights,
)
