"""torchvision.transforms.functional, as cudash gives it (written for
cudash, after torchvision 0.29's `functional.py`): each function takes an
image (`PIL.Image.Image`, in place of PIL's) or a tensor image
(`..., C, H, W`) and does what torchvision's does with it. What resamples
(`resize`, `rotate`, `affine`) is not here."""
import torch
from PIL import Image as _pil

_NUMBER = (int, float)


def _is_image(img):
    return isinstance(img, _pil.Image)


def _image_or_tensor(img):
    if not _is_image(img) and not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")


def get_dimensions(img):
    """[channels, height, width]."""
    _image_or_tensor(img)
    if _is_image(img):
        return [img._pixels.size(2), img.height, img.width]
    if img.dim() < 2:
        raise TypeError("Tensor is not a torch image.")
    channels = 1 if img.dim() == 2 else img.size(-3)
    return [channels, img.size(-2), img.size(-1)]


def get_image_size(img):
    """[width, height]."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


def to_tensor(pic):
    """An image's pixels as a float tensor `C×H×W` in [0, 1]."""
    if not _is_image(pic):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    img = pic._pixels.permute(2, 0, 1).contiguous()
    return img.to(dtype=torch.get_default_dtype()).div(255)


def pil_to_tensor(pic):
    """An image's pixels as a tensor `C×H×W` of their 8-bit values."""
    if not _is_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    return pic._pixels.permute(2, 0, 1)


def to_pil_image(pic, mode=None):
    """A tensor `C×H×W` (or `H×W`) as an image: floats in [0, 1] times
    255 and `.byte()` (modulo 256, as PyTorch converts)."""
    if not isinstance(pic, torch.Tensor):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.dim() not in (2, 3):
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.dim()} dimensions.")
    if pic.dim() == 2:
        pic = pic.unsqueeze(0)
    if pic.size(0) > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.size(0)} channels.")
    if pic.is_floating_point():
        pic = pic.mul(255).byte()
    else:
        pic = pic.byte()
    pixels = pic.cpu().permute(1, 2, 0).contiguous()
    image = _pil.fromarray(pixels)
    if mode is not None and mode != image.mode:
        raise ValueError(f"Incorrect mode ({mode}) supplied for input type ({image.mode})")
    return image


def normalize(tensor, mean, std, inplace=False):
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.dim() < 3:
        raise ValueError(
            f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = {tensor.size()}"
        )
    if not inplace:
        tensor = tensor.clone()
    dtype = tensor.dtype
    mean = torch.as_tensor(mean, dtype=dtype, device=tensor.device)
    std = torch.as_tensor(std, dtype=dtype, device=tensor.device)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to division by zero.")
    if mean.dim() == 1:
        mean = mean.view(-1, 1, 1)
    if std.dim() == 1:
        std = std.view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


def hflip(img):
    _image_or_tensor(img)
    if _is_image(img):
        return img.transpose(_pil.FLIP_LEFT_RIGHT)
    return img.flip(-1)


def vflip(img):
    _image_or_tensor(img)
    if _is_image(img):
        return img.transpose(_pil.FLIP_TOP_BOTTOM)
    return img.flip(-2)


def crop(img, top, left, height, width):
    _image_or_tensor(img)
    if _is_image(img):
        return img.crop((left, top, left + width, top + height))
    _, h, w = get_dimensions(img)
    right = left + width
    bottom = top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding_ltrb = [
            max(-left + min(0, right), 0),
            max(-top + min(0, bottom), 0),
            max(right - max(w, left), 0),
            max(bottom - max(h, top), 0),
        ]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], padding_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def center_crop(img, output_size):
    if isinstance(output_size, _NUMBER):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        padding_ltrb = [
            (crop_width - image_width) // 2 if crop_width > image_width else 0,
            (crop_height - image_height) // 2 if crop_height > image_height else 0,
            (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
            (crop_height - image_height + 1) // 2 if crop_height > image_height else 0,
        ]
        img = pad(img, padding_ltrb, fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def _ltrb(padding):
    if isinstance(padding, _NUMBER):
        p = int(padding)
        return [p, p, p, p]
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    if len(padding) == 4:
        return list(padding)
    raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")


def _source_index(n, before, after, mode):
    """For each place of a padded row of `n`, the place it copies."""
    index = []
    for i in range(-before, n + after):
        if 0 <= i < n:
            index.append(i)
        elif mode == "edge":
            index.append(min(max(i, 0), n - 1))
        elif mode == "reflect":
            index.append(-i if i < 0 else 2 * (n - 1) - i)
        else:
            index.append(-i - 1 if i < 0 else 2 * n - 1 - i)
    return torch.tensor(index)


def _pad_planes(t, hdim, wdim, ltrb, fill, mode):
    left, top, right, bottom = ltrb
    if min(ltrb) < 0:
        raise ValueError("cudash pads by numbers >= 0 (a negative padding crops in torchvision; crop instead)")
    h, w = t.size(hdim), t.size(wdim)
    if mode == "reflect" and (max(left, right) >= w or max(top, bottom) >= h):
        raise ValueError(f"Padding size should be less than the corresponding input dimension, but got: padding ({left}, {right}) at dimension {wdim} of input {list(t.shape)}")
    if mode == "constant":
        shape = list(t.shape)
        shape[hdim] = h + top + bottom
        shape[wdim] = w + left + right
        out = t.new_zeros(shape)
        if isinstance(fill, (tuple, list)):
            out[...] = torch.tensor(list(fill), dtype=t.dtype)
        elif fill != 0:
            out.fill_(fill)
        out.narrow(hdim, top, h).narrow(wdim, left, w).copy_(t)
        return out
    t = t.index_select(hdim, _source_index(h, top, bottom, mode).to(t.device))
    return t.index_select(wdim, _source_index(w, left, right, mode).to(t.device))


def pad(img, padding, fill=0, padding_mode="constant"):
    _image_or_tensor(img)
    if not isinstance(padding, (_NUMBER, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    ltrb = _ltrb(padding)
    if _is_image(img):
        if fill is None:
            fill = 0
        pixels = _pad_planes(img._pixels, 0, 1, ltrb, fill, padding_mode)
        return _pil.Image(pixels, img.mode)
    if fill is None:
        fill = 0
    if isinstance(fill, (tuple, list)):
        raise TypeError("tensor images pad with one number as fill")
    return _pad_planes(img, img.dim() - 2, img.dim() - 1, ltrb, fill, padding_mode)


def rgb_to_grayscale(img, num_output_channels=1):
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if _is_image(img):
        gray = img.convert("L")
        if num_output_channels == 3:
            gray = gray.convert("RGB")
        return gray
    if img.dim() < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.dim()}")
    c = img.size(-3)
    if c not in (1, 3):
        raise TypeError(f"Input image tensor permitted channel values are [1, 3], but found {c}")
    if c == 3:
        r, g, b = img.unbind(dim=-3)
        l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype)
        l_img = l_img.unsqueeze(dim=-3)
    else:
        l_img = img.clone()
    if num_output_channels == 3:
        return l_img.expand(img.shape)
    return l_img


class InterpolationMode:
    """torchvision's interpolation modes (an Enum there: `InterpolationMode.BILINEAR.value`
    is "bilinear")."""

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return f"<InterpolationMode.{self.name}: {self.value!r}>"

    def __str__(self):
        return f"InterpolationMode.{self.name}"


for _name, _value in [("NEAREST", "nearest"), ("NEAREST_EXACT", "nearest-exact"), ("BILINEAR", "bilinear"),
                      ("BICUBIC", "bicubic"), ("BOX", "box"), ("HAMMING", "hamming"), ("LANCZOS", "lanczos")]:
    setattr(InterpolationMode, _name, InterpolationMode(_name, _value))

# PIL's filter for each mode's value (torchvision's pil_modes_mapping).
_PIL_FILTERS = {"nearest": 0, "bilinear": 2, "bicubic": 3, "nearest-exact": 0, "box": 4, "hamming": 5, "lanczos": 1}


def _interpolation_modes_from_int(i):
    return {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
            4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}[i]


def _compute_resized_output_size(image_size, size, max_size=None):
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if len(size) == 1:
        requested_new_short = size if isinstance(size, int) else size[0]
        new_short, new_long = requested_new_short, int(requested_new_short * long / short)
        if max_size is not None:
            if max_size <= requested_new_short:
                raise ValueError(
                    f"max_size = {max_size} must be strictly greater than the requested "
                    f"size for the smaller edge size = {size}"
                )
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    else:
        new_w, new_h = size[1], size[0]
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """An image resized as torchvision resizes it: a PIL image by Pillow's
    `resize` (its filters always antialias); a tensor image by `interpolate`."""
    if isinstance(interpolation, int):
        interpolation = _interpolation_modes_from_int(interpolation)
    elif not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer constant")
    if isinstance(size, (list, tuple)):
        if len(size) not in [1, 2]:
            raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError(
                "max_size should only be passed if size specifies the length of the smaller edge, "
                "i.e. size should be an int or a sequence of length 1 in torchscript mode."
            )
    _, image_height, image_width = get_dimensions(img)
    if isinstance(size, int):
        size = [size]
    output_size = _compute_resized_output_size((image_height, image_width), size, max_size)
    if [image_height, image_width] == output_size:
        return img
    if _is_image(img):
        if antialias is False:
            import warnings
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        return img.resize(tuple(output_size[::-1]), _PIL_FILTERS[interpolation.value])
    mode = interpolation.value
    if mode not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise ValueError(f"Interpolation mode {mode} is unsupported with Tensor input")
    blends = mode in ("bilinear", "bicubic")
    squeeze = img.dim() < 4
    x = img.unsqueeze(0) if squeeze else img
    cast = not x.is_floating_point()
    out_dtype = x.dtype
    if cast:
        # (An integer image is resized in float and rounded back: PyTorch's
        # own uint8 kernel may round a few pixels the other way.)
        x = x.float()
    x = torch.nn.functional.interpolate(x, size=output_size, mode=mode, align_corners=False if blends else None,
                                        antialias=bool(antialias) and blends)
    if mode == "bicubic" and out_dtype == torch.uint8:
        x = x.clamp(min=0, max=255)
    if cast:
        x = x.round().to(out_dtype) if blends else x.to(out_dtype)
    return x.squeeze(0) if squeeze else x


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    img = crop(img, top, left, height, width)
    return resize(img, size, interpolation, antialias=antialias)


def _resampling(name):
    raise NotImplementedError(
        f"cudash's torchvision has no {name} yet: it resamples through Pillow's affine transform, which is not in cudash"
    )


def rotate(img, angle, *args, **kwargs):
    _resampling("rotate")


def affine(img, *args, **kwargs):
    _resampling("affine")


def _max_value(dtype):
    if dtype == torch.uint8:
        return 255
    if dtype == torch.int32:
        return 2147483647
    if dtype == torch.int64:
        return 9223372036854775807
    return 1 if dtype == torch.bool else 1.0


def convert_image_dtype(image, dtype=torch.float):
    """A tensor image in another dtype, its range scaled (uint8 0..255 to
    float 0..1 and back) as torchvision scales it."""
    if not isinstance(image, torch.Tensor):
        raise TypeError("Input img should be Tensor Image")
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if torch.tensor(0, dtype=dtype).is_floating_point():
            return image.to(dtype)
        if (image.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or (
                image.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        eps = 1e-3
        max_val = float(_max_value(dtype))
        return image.mul(max_val + 1.0 - eps).to(dtype)
    input_max = float(_max_value(image.dtype))
    if torch.tensor(0, dtype=dtype).is_floating_point():
        return image.to(dtype) / input_max
    output_max = float(_max_value(dtype))
    if input_max > output_max:
        factor = int((input_max + 1) // (output_max + 1))
        return torch.div(image, factor, rounding_mode="floor").to(dtype)
    factor = int((output_max + 1) // (input_max + 1))
    return image.to(dtype) * factor


def _gaussian_kernel1d(size, sigma, dtype, device):
    """A normalised Gaussian of `size` taps (torchvision's: `linspace`
    over the half widths, `exp(-x^2 / 2 sigma^2)`, over its sum)."""
    half = (size - 1) * 0.5
    x = torch.linspace(-half, half, steps=size, dtype=dtype, device=device)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size, sigma=None):
    """`img` blurred by a Gaussian of `kernel_size` (odd sizes, width then
    height) and `sigma`, as torchvision's: one depthwise convolution over
    the image padded by reflection; a PIL image or an integer one through
    float and back (rounded)."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    for ksize in kernel_size:
        if ksize % 2 == 0 or ksize < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [ksize * 0.15 + 0.35 for ksize in kernel_size]
    if isinstance(sigma, (list, tuple)):
        sigma = list(sigma)
        if len(sigma) == 1:
            sigma = [sigma[0], sigma[0]]
        elif len(sigma) != 2:
            raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    elif isinstance(sigma, _NUMBER):
        sigma = [float(sigma), float(sigma)]
    else:
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    pil = _is_image(img)
    t = pil_to_tensor(img) if pil else img
    dtype = t.dtype if t.is_floating_point() else torch.float32
    kx = _gaussian_kernel1d(kernel_size[0], sigma[0], dtype, t.device)
    ky = _gaussian_kernel1d(kernel_size[1], sigma[1], dtype, t.device)
    kernel = torch.mm(ky[:, None], kx[None, :])
    channels = t.shape[-3]
    kernel = kernel.expand(channels, 1, kernel.shape[0], kernel.shape[1])
    squeeze = t.dim() < 4
    x = t.unsqueeze(0) if squeeze else t
    cast = x.dtype != dtype
    if cast:
        x = x.to(dtype)
    pad = [kernel_size[0] // 2, kernel_size[0] // 2, kernel_size[1] // 2, kernel_size[1] // 2]
    x = torch.nn.functional.pad(x, pad, mode="reflect")
    x = torch.nn.functional.conv2d(x, kernel, groups=channels)
    if cast:
        x = x.round().to(t.dtype)
    out = x.squeeze(0) if squeeze else x
    return to_pil_image(out) if pil else out


def erase(img, i, j, h, w, v, inplace=False):
    """`img` with the box at (i, j) of h × w set to `v` (a tensor image)."""
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


def _area_and_aspect(area, scale, ratio):
    """One of the ten tries of a random crop or erasing box: its area drawn
    uniformly in `scale` of `area`, then its aspect ratio log-uniformly in
    `ratio` (torchvision's two draws, in its order)."""
    log_ratio = torch.log(torch.tensor(ratio))
    box = area * torch.empty(1).uniform_(scale[0], scale[1]).item()
    aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0].item(), log_ratio[1].item())).item()
    return box, aspect


def _check_scale_ratio(scale, ratio):
    """A random crop's or erasing box's `scale` and `ratio`, checked as
    torchvision checks them (a warning for a reversed range)."""
    if not isinstance(scale, (list, tuple)):
        raise TypeError("Scale should be a sequence")
    if not isinstance(ratio, (list, tuple)):
        raise TypeError("Ratio should be a sequence")
    if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
        import warnings
        warnings.warn("Scale and ratio should be of kind (min, max)")

