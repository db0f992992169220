"""torchvision.transforms.v2, as cudash gives it (written for cudash, after
torchvision 0.29's v2 package): the transforms PyTorch's current tutorials
and training scripts compose (`Compose`, `ToImage`, `ToDtype`,
`ToPureTensor`, `Normalize`, `Resize`, `CenterCrop`, `RandomCrop`,
`RandomResizedCrop`, `RandomHorizontalFlip`, `RandomVerticalFlip`, `Pad`,
`Grayscale`, `Lambda`, `RandomApply`, `RandomChoice`, `RandomOrder`,
the deprecated `ToTensor`), each an `nn.Module` that prints as v2's and
draws its random numbers as v2's does, over the functions of
`torchvision.transforms.functional`.

Differences from torchvision: an image is a plain tensor (torchvision's
`tv_tensors.Image` is a tensor subclass: `type(x).__name__` says
`Tensor` here); of several inputs (`t(img, label)`), the PIL images are
transformed, or else the first tensor, the others handed back as they
are (torchvision also knows boxes and masks); `RandomRotation`,
`RandomAffine` and `ColorJitter` are refused with a message."""
import math
import warnings

import torch
from torch import nn
from torchvision.transforms import functional as F
from PIL import Image as _pil

InterpolationMode = F.InterpolationMode
_NUMBER = (int, float)


def _size_pair(size, what="size"):
    if isinstance(size, _NUMBER):
        return (int(size), int(size))
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return (size[0], size[0])
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"Please provide only two dimensions (h, w) for {what}.")
    return tuple(size)


def _mode(interpolation):
    """An InterpolationMode of one given as it, as its value ("bilinear",
    v2's default) or as PIL's number."""
    if isinstance(interpolation, int):
        return F._interpolation_modes_from_int(interpolation)
    if isinstance(interpolation, str):
        for name in ("NEAREST", "NEAREST_EXACT", "BILINEAR", "BICUBIC", "BOX", "HAMMING", "LANCZOS"):
            mode = getattr(InterpolationMode, name)
            if mode.value == interpolation:
                return mode
        raise ValueError(f"{interpolation} is not a valid InterpolationMode")
    return interpolation


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """As v2's `resize`: a CPU's uint8 image is resized as uint8 by
    PyTorch's own kernel (PIL's method) where v2 does so (bilinear, and
    bicubic with antialias), anything else as `transforms.functional.resize`
    (a uint8 bicubic without antialias in float, rounded back: PyTorch's
    uint8 kernel may round a few pixels the other way)."""
    interpolation = _mode(interpolation)
    native = (isinstance(inpt, torch.Tensor) and inpt.dtype == torch.uint8 and inpt.device.type == "cpu"
              and (interpolation.value == "bilinear" or interpolation.value == "bicubic" and antialias))
    if not native:
        return F.resize(inpt, size, interpolation, max_size, antialias)
    if isinstance(size, int):
        size = [size]
    _, height, width = F.get_dimensions(inpt)
    out = F._compute_resized_output_size((height, width), size, max_size)
    if list(out) == [height, width]:
        return inpt
    shape = inpt.shape
    x = inpt.reshape(-1, shape[-3], height, width)
    x = torch.nn.functional.interpolate(x, size=list(out), mode=interpolation.value, align_corners=False,
                                        antialias=bool(antialias))
    return x.reshape(tuple(shape[:-2]) + tuple(out))


def resized_crop(inpt, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize(F.crop(inpt, top, left, height, width), size, interpolation, antialias=antialias)


class Transform(nn.Module):
    """What every v2 transform does with its inputs: the images among them
    (PIL images, else the first tensor) go through `transform`, with one
    draw of `make_params` for the call; the rest come back unchanged."""

    def make_params(self, image):
        return {}

    def transform(self, inpt, params):
        return inpt

    def forward(self, *inputs):
        items = list(inputs)
        chosen = [k for k, v in enumerate(items) if isinstance(v, _pil.Image)]
        if not chosen:
            chosen = [k for k, v in enumerate(items) if isinstance(v, torch.Tensor)][:1]
        params = self.make_params(items[chosen[0]]) if chosen else {}
        for k in chosen:
            items[k] = self.transform(items[k], params)
        return items[0] if len(items) == 1 else tuple(items)


class _RandomApplyTransform(Transform):
    def __init__(self, p=0.5):
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs):
        if torch.rand(1) >= self.p:
            return inputs[0] if len(inputs) == 1 else inputs
        return super().forward(*inputs)

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p})"


class Compose(Transform):
    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        if not transforms:
            raise ValueError("Pass at least one transformation")
        self.transforms = list(transforms)

    def forward(self, *inputs):
        unpack = len(inputs) > 1
        outputs = inputs
        for t in self.transforms:
            outputs = t(*inputs)
            inputs = outputs if unpack else (outputs,)
        return outputs

    def __repr__(self):
        lines = "".join(f"\n      {t}" for t in self.transforms)
        return f"{type(self).__name__}({lines}\n)"


class RandomApply(Transform):
    def __init__(self, transforms, p=0.5):
        super().__init__()
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.transforms = list(transforms)
        self.p = p

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        if torch.rand(1) >= self.p:
            return sample
        for t in self.transforms:
            sample = t(*sample) if len(inputs) > 1 else t(sample)
        return sample

    def __repr__(self):
        lines = "".join(f"\n      {t}" for t in self.transforms)
        return f"{type(self).__name__}({lines}\n)"


class RandomChoice(Transform):
    def __init__(self, transforms, p=None):
        super().__init__()
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        self.transforms = list(transforms)
        total = sum(p)
        self.p = [prob / total for prob in p]

    def forward(self, *inputs):
        idx = int(torch.multinomial(torch.tensor(self.p), 1))
        return self.transforms[idx](*inputs)


class RandomOrder(Transform):
    def __init__(self, transforms):
        super().__init__()
        self.transforms = list(transforms)

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        for idx in torch.randperm(len(self.transforms)).tolist():
            t = self.transforms[idx]
            sample = t(*sample) if len(inputs) > 1 else t(sample)
        return sample


class ToImage(Transform):
    """A PIL image, an array or a tensor as a tensor image (C, H, W),
    its values as they are."""

    def transform(self, inpt, params):
        return to_image(inpt)

    def __repr__(self):
        return "ToImage()"


def to_image(inpt):
    if isinstance(inpt, _pil.Image):
        return F.pil_to_tensor(inpt)
    if isinstance(inpt, torch.Tensor):
        return inpt
    if hasattr(inpt, "shape") and hasattr(inpt, "dtype"):
        t = torch.from_numpy(inpt)
        if t.dim() == 2:
            t = t.unsqueeze(-1)
        return t.permute(2, 0, 1).contiguous()
    raise TypeError(f"Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} instead.")


class ToPureTensor(Transform):
    def transform(self, inpt, params):
        return inpt

    def __repr__(self):
        return "ToPureTensor()"


class PILToTensor(Transform):
    def transform(self, inpt, params):
        return F.pil_to_tensor(inpt)

    def __repr__(self):
        return "PILToTensor()"


class ToPILImage(Transform):
    def __init__(self, mode=None):
        super().__init__()
        self.mode = mode

    def forward(self, *inputs):
        items = [F.to_pil_image(v, mode=self.mode) if isinstance(v, torch.Tensor) else v for v in inputs]
        return items[0] if len(items) == 1 else tuple(items)

    def __repr__(self):
        return "ToPILImage()" if self.mode is None else f"ToPILImage(mode={self.mode})"


class ToTensor(Transform):
    """Deprecated in v2: `Compose([ToImage(), ToDtype(torch.float32, scale=True)])`."""

    def __init__(self):
        warnings.warn(
            "The transform `ToTensor()` is deprecated and will be removed in a future release. Instead, please "
            "use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`.Output is equivalent up to "
            "float precision."
        )
        super().__init__()

    def forward(self, *inputs):
        items = [F.to_tensor(v) if isinstance(v, _pil.Image) or hasattr(v, "shape") and not isinstance(v, torch.Tensor)
                 else v for v in inputs]
        return items[0] if len(items) == 1 else tuple(items)

    def __repr__(self):
        return "ToTensor()"


def _max_value(dtype):
    return {torch.uint8: 255, torch.int8: 127, torch.int16: 32767, torch.int32: 2147483647,
            torch.int64: 9223372036854775807}.get(dtype, 1.0)


def _value_bits(dtype):
    bits = {torch.uint8: 8, torch.int8: 7, torch.int16: 15, torch.int32: 31, torch.int64: 63}
    if dtype not in bits:
        raise TypeError(f"Number of value bits is only defined for integer dtypes, but got {dtype}.")
    return bits[dtype]


def to_dtype(image, dtype=torch.float, scale=False):
    """`image` as `dtype`; with `scale`, its values moved from one range
    to the other (`[0, 255]` to `[0.0, 1.0]` and back), as v2 moves them."""
    if image.dtype == dtype:
        return image
    if not scale:
        return image.to(dtype)
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if (image.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or (
                image.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The conversion from {image.dtype} to {dtype} cannot be performed safely.")
        return image.mul(float(_max_value(dtype)) + 1.0 - 1e-3).to(dtype)
    if dtype.is_floating_point:
        return image.to(dtype).mul_(1.0 / _max_value(image.dtype))
    shift = abs(_value_bits(image.dtype) - _value_bits(dtype))
    if _value_bits(image.dtype) > _value_bits(dtype):
        return image.bitwise_right_shift(shift).to(dtype)
    return image.to(dtype).bitwise_left_shift(shift)


class ToDtype(Transform):
    def __init__(self, dtype, scale=False):
        super().__init__()
        if isinstance(dtype, dict):
            raise NotImplementedError("cudash's ToDtype takes one dtype, not a dict of them")
        self.dtype = dtype
        self.scale = scale

    def transform(self, inpt, params):
        return to_dtype(inpt, self.dtype, self.scale)

    def __repr__(self):
        return f"ToDtype(scale={self.scale})"


class ConvertImageDtype(ToDtype):
    def __init__(self, dtype=torch.float32):
        super().__init__(dtype, scale=True)

    def __repr__(self):
        return "ConvertImageDtype()"


class Normalize(Transform):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.inplace = inplace

    def transform(self, inpt, params):
        if isinstance(inpt, _pil.Image):
            raise TypeError("Normalize() does not support PIL images.")
        return F.normalize(inpt, self.mean, self.std, self.inplace)

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std}, inplace={self.inplace})"


class Lambda(Transform):
    def __init__(self, lambd, *types):
        super().__init__()
        self.lambd = lambd
        self.types = types or (object,)

    def forward(self, *inputs):
        items = [self.lambd(v) if isinstance(v, self.types) else v for v in inputs]
        return items[0] if len(items) == 1 else tuple(items)

    def __repr__(self):
        name = getattr(self.lambd, "__name__", type(self.lambd).__name__)
        return f"Lambda({name}, types={[t.__name__ for t in self.types]})"


class Resize(Transform):
    def __init__(self, size, interpolation="bilinear", max_size=None, antialias=True):
        super().__init__()
        if isinstance(size, int):
            size = [size]
        elif isinstance(size, (list, tuple)) and len(size) in (1, 2):
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"max_size must be an integer when size is None, but got {max_size} instead.")
        else:
            raise ValueError(
                f"size can be an integer, a sequence of one or two integers, or None, but got {size} instead.")
        self.size = size
        # Kept as given, and shown so (v2's default is the string).
        self.interpolation = interpolation
        _mode(interpolation)
        self.max_size = max_size
        self.antialias = antialias

    def transform(self, inpt, params):
        return resize(inpt, self.size, _mode(self.interpolation), self.max_size, self.antialias)

    def __repr__(self):
        shown = f"size={self.size}, interpolation={self.interpolation}"
        if self.max_size is not None:
            shown += f", max_size={self.max_size}"
        return f"Resize({shown}, antialias={self.antialias})"


class CenterCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _size_pair(size)

    def transform(self, inpt, params):
        return F.center_crop(inpt, self.size)

    def __repr__(self):
        return f"CenterCrop(size={self.size})"


def _padding_list(padding):
    if isinstance(padding, int):
        return [padding] * 4
    padding = list(padding)
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


class RandomCrop(Transform):
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = _size_pair(size)
        self.padding = _padding_list(padding) if padding is not None else None
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def make_params(self, image):
        _, height, width = F.get_dimensions(image)
        if self.padding is not None:
            left, top, right, bottom = self.padding
            height += top + bottom
            width += left + right
        else:
            left = top = right = bottom = 0
        crop_h, crop_w = self.size
        if self.pad_if_needed:
            if height < crop_h:
                diff = crop_h - height
                top += diff
                bottom += diff
                height += 2 * diff
            if width < crop_w:
                diff = crop_w - width
                left += diff
                right += diff
                width += 2 * diff
        if height < crop_h or width < crop_w:
            raise ValueError(
                f"Required crop size {(crop_h, crop_w)} is larger than "
                f"{'padded ' if self.padding is not None else ''}input image size {(height, width)}.")
        i = int(torch.randint(0, height - crop_h + 1, size=())) if height > crop_h else 0
        j = int(torch.randint(0, width - crop_w + 1, size=())) if width > crop_w else 0
        return {"padding": [left, top, right, bottom], "top": i, "left": j}

    def transform(self, inpt, params):
        if any(params["padding"]):
            inpt = F.pad(inpt, params["padding"], self.fill, self.padding_mode)
        return F.crop(inpt, params["top"], params["left"], self.size[0], self.size[1])

    def __repr__(self):
        return (f"RandomCrop(size={self.size}, padding={self.padding}, pad_if_needed={self.pad_if_needed}, "
                f"fill={self.fill}, padding_mode={self.padding_mode})")


class RandomResizedCrop(Transform):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation="bilinear", antialias=True):
        super().__init__()
        self.size = _size_pair(size)
        F._check_scale_ratio(scale, ratio)
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation
        _mode(interpolation)
        self.antialias = antialias

    def make_params(self, image):
        _, height, width = F.get_dimensions(image)
        area = height * width
        for _ in range(10):
            target_area, aspect_ratio = F._area_and_aspect(area, self.scale, self.ratio)
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                i = torch.randint(0, height - h + 1, size=(1,)).item()
                j = torch.randint(0, width - w + 1, size=(1,)).item()
                return {"top": i, "left": j, "height": h, "width": w}
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w = width
            h = int(round(w / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h = height
            w = int(round(h * max(self.ratio)))
        else:
            w = width
            h = height
        return {"top": (height - h) // 2, "left": (width - w) // 2, "height": h, "width": w}

    def transform(self, inpt, params):
        return resized_crop(inpt, params["top"], params["left"], params["height"], params["width"], self.size,
                            _mode(self.interpolation), antialias=self.antialias)

    def __repr__(self):
        return (f"RandomResizedCrop(size={self.size}, scale={tuple(self.scale)}, ratio={tuple(self.ratio)}, "
                f"interpolation={self.interpolation}, antialias={self.antialias})")


class RandomHorizontalFlip(_RandomApplyTransform):
    def transform(self, inpt, params):
        return F.hflip(inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    def transform(self, inpt, params):
        return F.vflip(inpt)


class Pad(Transform):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def transform(self, inpt, params):
        return F.pad(inpt, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return f"Pad(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class Grayscale(Transform):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt, params):
        return F.rgb_to_grayscale(inpt, num_output_channels=self.num_output_channels)

    def __repr__(self):
        return f"Grayscale(num_output_channels={self.num_output_channels})"


class GaussianBlur(Transform):
    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _size_pair(kernel_size, "kernel_size")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, _NUMBER):
            sigma = [float(sigma), float(sigma)]
        else:
            sigma = [float(s) for s in sigma]
            if len(sigma) == 1:
                sigma = sigma * 2
        if not 0.0 < sigma[0] <= sigma[1]:
            raise ValueError(f"sigma values should be positive and of the form (min, max). Got {sigma}")
        self.sigma = sigma

    def make_params(self, image):
        sigma = torch.empty(1).uniform_(self.sigma[0], self.sigma[1]).item()
        return {"sigma": [sigma, sigma]}

    def transform(self, inpt, params):
        return F.gaussian_blur(inpt, list(self.kernel_size), params["sigma"])

    def __repr__(self):
        return f"GaussianBlur(kernel_size={self.kernel_size}, sigma={self.sigma})"


class RandomErasing(_RandomApplyTransform):
    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0.0, inplace=False):
        super().__init__(p=p)
        if not isinstance(value, (int, float, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        F._check_scale_ratio(scale, ratio)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        self.scale = scale
        self.ratio = ratio
        if isinstance(value, (int, float)):
            self.value = [float(value)]
        elif isinstance(value, str):
            self.value = None
        else:
            self.value = list(value)
        self.inplace = inplace

    def make_params(self, image):
        img_c, img_h, img_w = F.get_dimensions(image)
        if self.value is not None and len(self.value) not in (1, img_c):
            raise ValueError(
                f"If value is a sequence, it should have either a single value or {img_c} (number of inpt channels)")
        area = img_h * img_w
        for _ in range(10):
            erase_area, aspect_ratio = F._area_and_aspect(area, self.scale, self.ratio)
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if self.value is None:
                v = torch.empty([img_c, h, w], dtype=torch.float32).normal_()
            else:
                v = torch.tensor(self.value)[:, None, None]
            i = torch.randint(0, img_h - h + 1, size=(1,)).item()
            j = torch.randint(0, img_w - w + 1, size=(1,)).item()
            return {"i": i, "j": j, "h": h, "w": w, "v": v}
        return {"i": 0, "j": 0, "h": img_h, "w": img_w, "v": None}

    def transform(self, inpt, params):
        if params["v"] is None:
            return inpt
        return F.erase(inpt, params["i"], params["j"], params["h"], params["w"], params["v"], self.inplace)

    def __repr__(self):
        shown = f"p={self.p}, scale={self.scale}, ratio={self.ratio}"
        if self.value is not None:
            shown += f", value={self.value}"
        return f"RandomErasing({shown}, inplace={self.inplace})"


def _not_here(name):
    raise NotImplementedError(
        f"cudash's torchvision.transforms.v2 has no {name}: it resamples or recolours through "
        "Pillow's affine transform or ImageEnhance, which are not in cudash")


class RandomRotation(Transform):
    def __init__(self, *args, **kwargs):
        _not_here("RandomRotation")


class RandomAffine(Transform):
    def __init__(self, *args, **kwargs):
        _not_here("RandomAffine")


class ColorJitter(Transform):
    def __init__(self, *args, **kwargs):
        _not_here("ColorJitter")
