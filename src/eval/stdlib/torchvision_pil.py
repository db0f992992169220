"""The images torchvision's datasets hand to their transforms, in place of
PIL's (cudash has no PIL): 8-bit pixels in an `H×W×C` tensor of uint8,
with PIL's `mode` ("L"
gray, "RGB", "RGBA") and `size` (width, height). `crop` and `transpose`
do what PIL's do; `ToTensor` and `ToPILImage` convert."""
import torch

FLIP_LEFT_RIGHT = 0
FLIP_TOP_BOTTOM = 1

_CHANNELS = {"L": 1, "RGB": 3, "RGBA": 4}


class Image:
    __module__ = "PIL.Image"

    def __init__(self, pixels, mode):
        if pixels.dim() == 2:
            pixels = pixels.unsqueeze(2)
        if mode not in _CHANNELS or pixels.size(2) != _CHANNELS[mode]:
            raise ValueError(f"an image of mode {mode} has {_CHANNELS.get(mode, '1, 3 or 4')} channels, not {pixels.size(2)}")
        if pixels.dtype != torch.uint8:
            raise TypeError(f"an image holds uint8 pixels, not {pixels.dtype}")
        self._pixels = pixels
        self.mode = mode
        self.size = (pixels.size(1), pixels.size(0))
        self.width = pixels.size(1)
        self.height = pixels.size(0)

    def __repr__(self):
        return f"<PIL.Image.Image image mode={self.mode} size={self.width}x{self.height} at 0x{id(self):X}>"

    def getpixel(self, xy):
        x, y = xy
        p = self._pixels[y, x]
        if self.mode == "L":
            return int(p[0])
        return tuple(int(v) for v in p)

    def getbands(self):
        return ("L",) if self.mode == "L" else tuple(self.mode)

    def copy(self):
        return Image(self._pixels.clone(), self.mode)

    def transpose(self, method):
        if method == FLIP_LEFT_RIGHT:
            return Image(self._pixels.flip(1), self.mode)
        if method == FLIP_TOP_BOTTOM:
            return Image(self._pixels.flip(0), self.mode)
        raise ValueError(f"cudash's images flip (FLIP_LEFT_RIGHT, FLIP_TOP_BOTTOM); transpose method {method} is not there")

    def crop(self, box):
        """The pixels in (left, upper, right, lower); outside the image, zeros."""
        left, upper, right, lower = (int(v) for v in box)
        out = self._pixels.new_zeros((max(lower - upper, 0), max(right - left, 0), self._pixels.size(2)))
        top, bottom = max(upper, 0), min(lower, self.height)
        first, last = max(left, 0), min(right, self.width)
        if bottom > top and last > first:
            out[top - upper:bottom - upper, first - left:last - left] = self._pixels[top:bottom, first:last]
        return Image(out, self.mode)

    def convert(self, mode):
        if mode == self.mode:
            return self.copy()
        p = self._pixels
        if self.mode == "L" and mode in ("RGB", "RGBA"):
            rgb = p.expand(-1, -1, 3)
            if mode == "RGBA":
                rgb = torch.cat([rgb, torch.full_like(p, 255)], 2)
            return Image(rgb.contiguous(), mode)
        if self.mode in ("RGB", "RGBA") and mode == "L":
            # PIL's ITU-R 601-2 luma, in its fixed point.
            r, g, b = p[:, :, 0].long(), p[:, :, 1].long(), p[:, :, 2].long()
            return Image(((r * 19595 + g * 38470 + b * 7471 + 0x8000) // 65536).byte(), "L")
        if self.mode == "RGBA" and mode == "RGB":
            return Image(p[:, :, :3].contiguous(), "RGB")
        if self.mode == "RGB" and mode == "RGBA":
            return Image(torch.cat([p, torch.full_like(p[:, :, :1], 255)], 2), "RGBA")
        raise ValueError(f"cudash's images convert between L, RGB and RGBA, not to {mode}")


def fromarray(pixels, mode=None):
    """An image of an `H×W` or `H×W×C` array (or tensor) of values 0..255."""
    if not isinstance(pixels, torch.Tensor):
        pixels = torch.from_numpy(pixels)
    if mode is None:
        c = 1 if pixels.dim() == 2 else pixels.size(2)
        mode = {1: "L", 3: "RGB", 4: "RGBA"}.get(c)
        if mode is None:
            raise TypeError(f"Cannot handle this data type: {c} channels")
    return Image(pixels, mode)
