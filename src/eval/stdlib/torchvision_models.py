"""torchvision.models, as cudash gives it (written for cudash, after
torchvision 0.29's `resnet.py`, `vgg.py`, `alexnet.py` and `vision_transformer.py`): the
ResNets (18, 34, 50, 101, 152, ResNeXt, wide), the VGGs (11, 13, 16, 19,
with and without batch norm), AlexNet and the Vision Transformers (B/16,
B/32, L/16, L/32), built from `torch.nn`'s layers in
torchvision's order and initialised as torchvision initialises them, so
a seeded model holds torchvision's numbers. `weights=` (an enum member,
its name, or `pretrained=True` with torchvision's deprecation warnings)
loads the ImageNet weights through `torch.hub`'s cache, downloading the
file there first; `transforms()` is the weights' `ImageClassification`
(resize, center crop, rescale, normalize, as torchvision's). A weights'
`meta` has no `categories` (ImageNet's 1000 names are not carried)."""
import math
import warnings
from collections import OrderedDict

import torch
from torch import nn

__all__ = [
    "ResNet", "BasicBlock", "Bottleneck", "VGG", "AlexNet",
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext101_32x8d", "wide_resnet50_2", "wide_resnet101_2",
    "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "alexnet",
    "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights", "ResNet101_Weights", "ResNet152_Weights",
    "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights", "VGG16_Weights",
    "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "AlexNet_Weights",
    "VisionTransformer", "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32",
    "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights", "ViT_L_32_Weights",
]

_DOWNLOADS = "https://download.pytorch.org/models/"


class Weights:
    """One set of trained weights: where its file is, and what it is."""

    def __init__(self, enum, name, file, num_params):
        self._enum = enum
        self.name = name
        self.url = _DOWNLOADS + file
        self.meta = {"num_params": num_params, "min_size": (1, 1)}
        self.value = self

    def __repr__(self):
        return f"{self._enum}.{self.name}"

    def get_state_dict(self, progress=True, check_hash=False):
        return torch.hub.load_state_dict_from_url(self.url, progress=progress, check_hash=check_hash)

    def transforms(self):
        # torchvision's V2 ImageNet weights were evaluated resized to 232.
        return ImageClassification(crop_size=224, resize_size=232 if self.name == "IMAGENET1K_V2" else 256)


class ImageClassification(nn.Module):
    """torchvision's `transforms._presets.ImageClassification`: what a
    model's ImageNet weights expect of an image (a PIL image or a tensor)."""

    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation=None, antialias=True):
        super().__init__()
        from torchvision.transforms import functional as F
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = F.InterpolationMode.BILINEAR if interpolation is None else interpolation
        self.antialias = antialias

    def forward(self, img):
        from torchvision.transforms import functional as F
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, torch.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, torch.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        format_string = self.__class__.__name__ + "("
        format_string += f"\n    crop_size={self.crop_size}"
        format_string += f"\n    resize_size={self.resize_size}"
        format_string += f"\n    mean={self.mean}"
        format_string += f"\n    std={self.std}"
        format_string += f"\n    interpolation={self.interpolation}"
        format_string += "\n)"
        return format_string


def _weights(enum, versions, default):
    """The class of a model's weights: its members, `DEFAULT`, `verify`."""
    members = {name: Weights(enum, name, file, n) for name, (file, n) in versions.items()}

    class _Enum:
        __module__ = "torchvision.models"

        @classmethod
        def verify(cls, obj):
            if obj is None or isinstance(obj, Weights):
                if isinstance(obj, Weights) and obj._enum != enum:
                    raise TypeError(f"Invalid Weight class provided; expected {enum} but received {obj._enum}.")
                return obj
            if isinstance(obj, str):
                key = obj.replace(enum + ".", "")
                if key == "DEFAULT":
                    return members[default]
                if key in members:
                    return members[key]
                raise KeyError(key)
            raise TypeError(f"Invalid Weight class provided; expected {enum} but received {type(obj).__name__}.")

    for name, w in members.items():
        setattr(_Enum, name, w)
    _Enum.DEFAULT = members[default]
    _Enum.__name__ = enum
    _Enum.__qualname__ = enum
    return _Enum


ResNet18_Weights = _weights("ResNet18_Weights", {"IMAGENET1K_V1": ("resnet18-f37072fd.pth", 11689512)}, "IMAGENET1K_V1")
ResNet34_Weights = _weights("ResNet34_Weights", {"IMAGENET1K_V1": ("resnet34-b627a593.pth", 21797672)}, "IMAGENET1K_V1")
ResNet50_Weights = _weights("ResNet50_Weights", {"IMAGENET1K_V1": ("resnet50-0676ba61.pth", 25557032),
                                                 "IMAGENET1K_V2": ("resnet50-11ad3fa6.pth", 25557032)}, "IMAGENET1K_V2")
ResNet101_Weights = _weights("ResNet101_Weights", {"IMAGENET1K_V1": ("resnet101-63fe2227.pth", 44549160),
                                                   "IMAGENET1K_V2": ("resnet101-cd907fc2.pth", 44549160)}, "IMAGENET1K_V2")
ResNet152_Weights = _weights("ResNet152_Weights", {"IMAGENET1K_V1": ("resnet152-394f9c45.pth", 60192808),
                                                   "IMAGENET1K_V2": ("resnet152-f82ba261.pth", 60192808)}, "IMAGENET1K_V2")
VGG11_Weights = _weights("VGG11_Weights", {"IMAGENET1K_V1": ("vgg11-8a719046.pth", 132863336)}, "IMAGENET1K_V1")
VGG11_BN_Weights = _weights("VGG11_BN_Weights", {"IMAGENET1K_V1": ("vgg11_bn-6002323d.pth", 132868840)}, "IMAGENET1K_V1")
VGG13_Weights = _weights("VGG13_Weights", {"IMAGENET1K_V1": ("vgg13-19584684.pth", 133047848)}, "IMAGENET1K_V1")
VGG13_BN_Weights = _weights("VGG13_BN_Weights", {"IMAGENET1K_V1": ("vgg13_bn-abd245e5.pth", 133053736)}, "IMAGENET1K_V1")
VGG16_Weights = _weights("VGG16_Weights", {"IMAGENET1K_V1": ("vgg16-397923af.pth", 138357544)}, "IMAGENET1K_V1")
VGG16_BN_Weights = _weights("VGG16_BN_Weights", {"IMAGENET1K_V1": ("vgg16_bn-6c64b313.pth", 138365992)}, "IMAGENET1K_V1")
VGG19_Weights = _weights("VGG19_Weights", {"IMAGENET1K_V1": ("vgg19-dcbb9e9d.pth", 143667240)}, "IMAGENET1K_V1")
VGG19_BN_Weights = _weights("VGG19_BN_Weights", {"IMAGENET1K_V1": ("vgg19_bn-c79401a0.pth", 143678248)}, "IMAGENET1K_V1")
AlexNet_Weights = _weights("AlexNet_Weights", {"IMAGENET1K_V1": ("alexnet-owt-7be5be79.pth", 61100840)}, "IMAGENET1K_V1")


def _pick(weights_class, weights, kwargs):
    """`weights=` as given (a member, its name, None), or `pretrained=`
    (True: the class's first weights, with torchvision's warnings)."""
    if "pretrained" in kwargs:
        pretrained = kwargs.pop("pretrained")
        warnings.warn("The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
                      "please use 'weights' instead.")
        if pretrained:
            default = getattr(weights_class, "IMAGENET1K_V1")
            warnings.warn("Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 and "
                          "may be removed in the future. The current behavior is equivalent to passing "
                          f"`weights={default!r}`. You can also use `weights={weights_class.__name__}.DEFAULT` "
                          "to get the most up-to-date weights.")
            return default
        return None
    return weights_class.verify(weights)


def _loaded(model, weights, progress):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1, width_per_group=64,
                 replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None "
                             f"or a 3-element tuple, got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)

    def forward(self, x):
        return self._forward_impl(x)


def _resnet(block, layers, weights_class, weights, progress, kwargs):
    weights = _pick(weights_class, weights, kwargs) if weights_class is not None else weights
    if weights is not None and weights_class is None:
        raise NotImplementedError("cudash's torchvision knows no trained weights for this model: weights=None")
    if weights is not None:
        kwargs["num_classes"] = 1000
    return _loaded(ResNet(block, layers, **kwargs), weights, progress)


def resnet18(*, weights=None, progress=True, **kwargs):
    return _resnet(BasicBlock, [2, 2, 2, 2], ResNet18_Weights, weights, progress, kwargs)


def resnet34(*, weights=None, progress=True, **kwargs):
    return _resnet(BasicBlock, [3, 4, 6, 3], ResNet34_Weights, weights, progress, kwargs)


def resnet50(*, weights=None, progress=True, **kwargs):
    return _resnet(Bottleneck, [3, 4, 6, 3], ResNet50_Weights, weights, progress, kwargs)


def resnet101(*, weights=None, progress=True, **kwargs):
    return _resnet(Bottleneck, [3, 4, 23, 3], ResNet101_Weights, weights, progress, kwargs)


def resnet152(*, weights=None, progress=True, **kwargs):
    return _resnet(Bottleneck, [3, 8, 36, 3], ResNet152_Weights, weights, progress, kwargs)


def resnext50_32x4d(*, weights=None, progress=True, **kwargs):
    kwargs["groups"], kwargs["width_per_group"] = 32, 4
    return _resnet(Bottleneck, [3, 4, 6, 3], None, weights, progress, kwargs)


def resnext101_32x8d(*, weights=None, progress=True, **kwargs):
    kwargs["groups"], kwargs["width_per_group"] = 32, 8
    return _resnet(Bottleneck, [3, 4, 23, 3], None, weights, progress, kwargs)


def wide_resnet50_2(*, weights=None, progress=True, **kwargs):
    kwargs["width_per_group"] = 64 * 2
    return _resnet(Bottleneck, [3, 4, 6, 3], None, weights, progress, kwargs)


def wide_resnet101_2(*, weights=None, progress=True, **kwargs):
    kwargs["width_per_group"] = 64 * 2
    return _resnet(Bottleneck, [3, 4, 23, 3], None, weights, progress, kwargs)


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = torch.flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)


# The layers of each VGG: output channels of 3×3 convolutions, "M" a 2×2 max pool.
cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def make_layers(cfg, batch_norm=False):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(v))
        layers.append(nn.ReLU(inplace=True))
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(cfg, batch_norm, weights_class, weights, progress, kwargs):
    weights = _pick(weights_class, weights, kwargs)
    if weights is not None:
        kwargs["init_weights"] = False
        kwargs["num_classes"] = 1000
    return _loaded(VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs), weights, progress)


def vgg11(*, weights=None, progress=True, **kwargs):
    return _vgg("A", False, VGG11_Weights, weights, progress, kwargs)


def vgg11_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("A", True, VGG11_BN_Weights, weights, progress, kwargs)


def vgg13(*, weights=None, progress=True, **kwargs):
    return _vgg("B", False, VGG13_Weights, weights, progress, kwargs)


def vgg13_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("B", True, VGG13_BN_Weights, weights, progress, kwargs)


def vgg16(*, weights=None, progress=True, **kwargs):
    return _vgg("D", False, VGG16_Weights, weights, progress, kwargs)


def vgg16_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("D", True, VGG16_BN_Weights, weights, progress, kwargs)


def vgg19(*, weights=None, progress=True, **kwargs):
    return _vgg("E", False, VGG19_Weights, weights, progress, kwargs)


def vgg19_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("E", True, VGG19_BN_Weights, weights, progress, kwargs)


class AlexNet(nn.Module):
    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(256 * 6 * 6, 4096),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        x = torch.flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)


def alexnet(*, weights=None, progress=True, **kwargs):
    weights = _pick(AlexNet_Weights, weights, kwargs)
    if weights is not None:
        kwargs["num_classes"] = 1000
    return _loaded(AlexNet(**kwargs), weights, progress)


# ---- Vision Transformers (torchvision's `vision_transformer.py`) ----

ViT_B_16_Weights = _weights("ViT_B_16_Weights", {"IMAGENET1K_V1": ("vit_b_16-c867db91.pth", 86567656)}, "IMAGENET1K_V1")
ViT_B_32_Weights = _weights("ViT_B_32_Weights", {"IMAGENET1K_V1": ("vit_b_32-d86f8d99.pth", 88224232)}, "IMAGENET1K_V1")
ViT_L_16_Weights = _weights("ViT_L_16_Weights", {"IMAGENET1K_V1": ("vit_l_16-852ce7e3.pth", 304326632)}, "IMAGENET1K_V1")
ViT_L_32_Weights = _weights("ViT_L_32_Weights", {"IMAGENET1K_V1": ("vit_l_32-c7638314.pth", 306535400)}, "IMAGENET1K_V1")


class MLPBlock(nn.Sequential):
    """The encoder block's MLP: Linear, GELU, Dropout, Linear, Dropout
    (torchvision's `ops.MLP`), its weights Xavier-uniform, its biases tiny."""

    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(nn.Linear(in_dim, mlp_dim), nn.GELU(), nn.Dropout(dropout),
                         nn.Linear(mlp_dim, in_dim), nn.Dropout(dropout))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)


class EncoderBlock(nn.Module):
    """Pre-norm self-attention, then pre-norm MLP, each added back."""

    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or (lambda d: nn.LayerNorm(d, eps=1e-6))
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        if input.dim() != 3:
            raise AssertionError(f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x)
        x = x + input
        y = self.ln_2(x)
        y = self.mlp(y)
        return x + y


class Encoder(nn.Module):
    """The position embedding added, the blocks, a last LayerNorm."""

    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or (lambda d: nn.LayerNorm(d, eps=1e-6))
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        layers = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                        attention_dropout, norm_layer)
        self.layers = nn.Sequential(layers)
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        if input.dim() != 3:
            raise AssertionError(f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        input = input + self.pos_embedding
        return self.ln(self.layers(self.dropout(input)))


class VisionTransformer(nn.Module):
    """Patches of the image projected by a strided convolution, a class
    token before them, the encoder, the class token's output classified."""

    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, dropout=0.0,
                 attention_dropout=0.0, num_classes=1000, representation_size=None, norm_layer=None,
                 conv_stem_configs=None):
        super().__init__()
        if image_size % patch_size != 0:
            raise AssertionError("Input shape indivisible by patch size!")
        if conv_stem_configs is not None:
            raise NotImplementedError("cudash's VisionTransformer has no convolutional stem: conv_stem_configs=None")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer or (lambda d: nn.LayerNorm(d, eps=1e-6))
        self.conv_proj = nn.Conv2d(in_channels=3, out_channels=hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, self.norm_layer)
        self.seq_length = seq_length
        heads_layers = OrderedDict()
        if representation_size is None:
            heads_layers["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads_layers["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads_layers["act"] = nn.Tanh()
            heads_layers["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads_layers)
        fan_in = 3 * patch_size * patch_size
        nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
        nn.init.zeros_(self.conv_proj.bias)
        if representation_size is not None:
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / hidden_dim))
            nn.init.zeros_(self.heads.pre_logits.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, c, h, w = x.shape
        p = self.patch_size
        if h != self.image_size:
            raise AssertionError(f"Wrong image height! Expected {self.image_size} but got {h}!")
        if w != self.image_size:
            raise AssertionError(f"Wrong image width! Expected {self.image_size} but got {w}!")
        n_h = h // p
        n_w = w // p
        x = self.conv_proj(x)
        x = x.reshape(n, self.hidden_dim, n_h * n_w)
        return x.permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        n = x.shape[0]
        batch_class_token = self.class_token.expand(n, -1, -1)
        x = torch.cat([batch_class_token, x], dim=1)
        x = self.encoder(x)
        x = x[:, 0]
        return self.heads(x)


def _vision_transformer(patch_size, num_layers, num_heads, hidden_dim, mlp_dim, weights_class, weights, progress,
                        kwargs):
    weights = _pick(weights_class, weights, kwargs)
    if weights is not None:
        kwargs["num_classes"] = 1000
        kwargs["image_size"] = 224
    image_size = kwargs.pop("image_size", 224)
    model = VisionTransformer(image_size=image_size, patch_size=patch_size, num_layers=num_layers,
                              num_heads=num_heads, hidden_dim=hidden_dim, mlp_dim=mlp_dim, **kwargs)
    return _loaded(model, weights, progress)


def vit_b_16(*, weights=None, progress=True, **kwargs):
    return _vision_transformer(16, 12, 12, 768, 3072, ViT_B_16_Weights, weights, progress, kwargs)


def vit_b_32(*, weights=None, progress=True, **kwargs):
    return _vision_transformer(32, 12, 12, 768, 3072, ViT_B_32_Weights, weights, progress, kwargs)


def vit_l_16(*, weights=None, progress=True, **kwargs):
    return _vision_transformer(16, 24, 16, 1024, 4096, ViT_L_16_Weights, weights, progress, kwargs)


def vit_l_32(*, weights=None, progress=True, **kwargs):
    return _vision_transformer(32, 24, 16, 1024, 4096, ViT_L_32_Weights, weights, progress, kwargs)

