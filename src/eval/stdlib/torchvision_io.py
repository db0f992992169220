"""torchvision.io's pictures, as cudash gives them (written for cudash, after
torchvision 0.29's `io/image.py`): `read_file`, `decode_image`
(`decode_jpeg`, `decode_png`) and `read_image` of PNG and JPEG files, a
`C×H×W` uint8 tensor with torchvision's pixels (JPEGs decoded as its
libjpeg-turbo decodes, the same as PIL's). Modes: `UNCHANGED` and `RGB`,
`RGB_ALPHA` of PNGs in color or with alpha, `GRAY` of gray pictures; a
palette PNG reads as `RGB` only (torchvision's other modes of one give
unreliable values), and a color picture made gray (libjpeg's and libpng's
own conversions) is not here."""
import torch
import _cudash


class ImageReadMode:
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return f"<ImageReadMode.{self.name}: {self.value}>"

    def __str__(self):
        return f"ImageReadMode.{self.name}"


for _name, _value in [("UNCHANGED", 0), ("GRAY", 1), ("GRAY_ALPHA", 2), ("RGB", 3), ("RGB_ALPHA", 4)]:
    setattr(ImageReadMode, _name, ImageReadMode(_name, _value))


def read_file(path):
    """The file's bytes, a 1-D uint8 tensor."""
    return _cudash.read_file(path)


def _mode_name(mode):
    if isinstance(mode, str):
        return mode.upper()
    return mode.name


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """A picture's pixels, `C×H×W` uint8, as torchvision decodes them."""
    if not isinstance(input, torch.Tensor):
        input = read_file(str(input))
    fmt, pil_mode, pixels, palette, alphas = _cudash.image_open(input)
    mode = _mode_name(mode)
    if mode == "RGBA":
        mode = "RGB_ALPHA"
    hwc = pixels
    c = hwc.size(2)
    if pil_mode == "P" and mode == "RGB":
        table = torch.tensor(list(palette) + [0] * (768 - len(palette)), dtype=torch.uint8).view(256, 3)
        out = table[hwc[:, :, 0].long()]
    elif pil_mode == "P":
        raise NotImplementedError(f"cudash's decode_image reads a palette PNG as RGB, not {mode}")
    elif mode == "UNCHANGED":
        out = hwc
    elif mode == "RGB":
        out = hwc[:, :, :3] if c >= 3 else hwc[:, :, :1].expand(-1, -1, 3)
    elif mode == "RGB_ALPHA" and fmt == "PNG" and pil_mode in ("RGB", "RGBA", "LA"):
        rgb = hwc[:, :, :3] if c >= 3 else hwc[:, :, :1].expand(-1, -1, 3)
        alpha = hwc[:, :, c - 1:] if c in (2, 4) else torch.full_like(hwc[:, :, :1], 255)
        out = torch.cat([rgb, alpha], 2)
    elif mode == "GRAY" and c == 1 and pil_mode != "P":
        out = hwc
    else:
        raise NotImplementedError(
            f"cudash's decode_image reads this {fmt} ({pil_mode}) as UNCHANGED or RGB; mode {mode} is not there")
    return out.permute(2, 0, 1).contiguous()


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu", apply_exif_orientation=False):
    return decode_image(input, mode).to(device)


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    return decode_image(input, mode)


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """The picture at `path`, `C×H×W` uint8."""
    return decode_image(read_file(path), mode, apply_exif_orientation)
