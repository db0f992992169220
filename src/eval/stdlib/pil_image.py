"""PIL.Image, as cudash gives it (written for cudash, after Pillow 13's
`Image.py`; pixels checked against Pillow 13.0): `open` reads PNG and JPEG
files (decoded as Pillow's libjpeg-turbo decodes, bit for bit), `new`,
`fromarray`, and an image's `resize` (Pillow's filters and fixed-point
arithmetic), `crop`, `transpose`, `rotate` by right angles, `convert`
between 1, L, LA, P, RGB, RGBA and YCbCr, `getpixel`, `split`, `save` as PNG,
`np.array(img)`. The pixels are an `H×W×C` uint8 tensor (`img._pixels`);
`mode` and `size` are PIL's."""
import math
import torch
import _cudash

NEAREST = 0
LANCZOS = 1
BILINEAR = 2
BICUBIC = 3
BOX = 4
HAMMING = 5

FLIP_LEFT_RIGHT = 0
FLIP_TOP_BOTTOM = 1
ROTATE_90 = 2
ROTATE_180 = 3
ROTATE_270 = 4
TRANSPOSE = 5
TRANSVERSE = 6


class Resampling:
    NEAREST = 0
    LANCZOS = 1
    BILINEAR = 2
    BICUBIC = 3
    BOX = 4
    HAMMING = 5


class Transpose:
    FLIP_LEFT_RIGHT = 0
    FLIP_TOP_BOTTOM = 1
    ROTATE_90 = 2
    ROTATE_180 = 3
    ROTATE_270 = 4
    TRANSPOSE = 5
    TRANSVERSE = 6


class UnidentifiedImageError(OSError):
    pass


_CHANNELS = {"1": 1, "L": 1, "P": 1, "LA": 2, "La": 2, "RGB": 3, "RGBA": 4, "RGBa": 4, "YCbCr": 3}
_BANDS = {"YCbCr": ("Y", "Cb", "Cr")}
_FILTERS = (NEAREST, LANCZOS, BILINEAR, BICUBIC, BOX, HAMMING)


def _fixed6(c, center=0):
    """Pillow's JPEG/JFIF YCbCr tables: c * (i - center) in 6-bit fixed
    point, rounded half up, and one more where negative (as Pillow's
    tables hold them; checked on all 2^24 colors both ways)."""
    out = []
    for i in range(256):
        x = c * 64 * (i - center)
        out.append(math.floor(x + 0.5) + (1 if x < 0 else 0))
    return torch.tensor(out, dtype=torch.int64)


_YCC = {}


def _ycc_tables():
    if not _YCC:
        _YCC["y"] = [_fixed6(c) for c in (0.299, 0.587, 0.114)]
        _YCC["cb"] = [_fixed6(c) for c in (-0.16874, -0.33126, 0.5)]
        _YCC["cr"] = [_fixed6(c) for c in (0.5, -0.41869, -0.08131)]
        _YCC["rgb"] = [_fixed6(c, 128) for c in (1.402, -0.34414, -0.71414, 1.772)]
    return _YCC


def _rgb_to_ycbcr(rgb):
    """H×W×3 int64 RGB to YCbCr as Pillow's ImagingConvertRGB2YCbCr."""
    t = _ycc_tables()
    r, g, b = rgb[:, :, 0], rgb[:, :, 1], rgb[:, :, 2]
    planes = []
    for k, name in enumerate(("y", "cb", "cr")):
        tr, tg, tb = t[name]
        v = (tr[r] + tg[g] + tb[b]) // 64
        planes.append(v if k == 0 else v + 128)
    return torch.stack(planes, 2)


def _ycbcr_to_rgb(ycc):
    """H×W×3 int64 YCbCr to RGB as Pillow's ImagingConvertYCbCr2RGB."""
    r_cr, g_cb, g_cr, b_cb = _ycc_tables()["rgb"]
    y, cb, cr = ycc[:, :, 0], ycc[:, :, 1], ycc[:, :, 2]
    r = y + r_cr[cr] // 64
    g = y + (g_cb[cb] + g_cr[cr]) // 64
    b = y + b_cb[cb] // 64
    return torch.stack([r, g, b], 2).clamp(0, 255)


def _muldiv255(a, b):
    tmp = a * b + 128
    return ((tmp // 256) + tmp) // 256


class Image:
    __module__ = "PIL.Image"

    def __init__(self, pixels, mode, palette=None, info=None):
        if pixels.dim() == 2:
            pixels = pixels.unsqueeze(2)
        if mode not in _CHANNELS or pixels.size(2) != _CHANNELS[mode]:
            raise ValueError(f"an image of mode {mode} has {_CHANNELS.get(mode, '1, 2, 3 or 4')} channels, not {pixels.size(2)}")
        if pixels.dtype != torch.uint8:
            raise TypeError(f"an image holds uint8 pixels, not {pixels.dtype}")
        self._pixels = pixels
        self.mode = mode
        self.size = (pixels.size(1), pixels.size(0))
        self.width = pixels.size(1)
        self.height = pixels.size(0)
        self.format = None
        self.filename = ""
        self.palette = palette
        self.info = {} if info is None else info
        self.readonly = 0

    def __repr__(self):
        kind = "Image.Image"
        if self.format == "JPEG":
            kind = "JpegImagePlugin.JpegImageFile"
        elif self.format == "PNG":
            kind = "PngImagePlugin.PngImageFile"
        return f"<PIL.{kind} image mode={self.mode} size={self.width}x{self.height} at 0x{id(self):X}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        # Pillow's compares classes too: an opened file's (its format's)
        # is not a copy's.
        return (isinstance(other, Image) and self.format == other.format and self.mode == other.mode
                and self.size == other.size and self.info == other.info and self.palette == other.palette
                and bool((self._pixels == other._pixels).all()))

    def __array__(self, dtype=None):
        import numpy as np
        p = self._pixels
        if p.size(2) == 1:
            p = p[:, :, 0]
        if self.mode == "1":
            return np.array(p != 0)
        return np.array(p) if dtype is None else np.array(p, dtype)

    def load(self):
        return None

    def close(self):
        return None

    def verify(self):
        return None

    def _new(self, pixels, mode=None):
        return Image(pixels, self.mode if mode is None else mode, self.palette if (mode or self.mode) == "P" else None)

    def getpixel(self, xy):
        x, y = xy
        p = self._pixels[y, x]
        if p.size(0) == 1:
            return int(p[0])
        return tuple(int(v) for v in p)

    def putpixel(self, xy, value):
        x, y = xy
        self._pixels[y, x] = torch.tensor(value if isinstance(value, (tuple, list)) else [value], dtype=torch.uint8)

    def getbands(self):
        if self.mode in _BANDS:
            return _BANDS[self.mode]
        return (self.mode,) if len(self.mode) == 1 else tuple(self.mode)

    def getextrema(self):
        bands = [(int(c.min()), int(c.max())) for c in self._pixels.unbind(2)]
        return bands[0] if len(bands) == 1 else tuple(bands)

    def split(self):
        if self.mode == "P":
            return (self.copy(),)
        return tuple(Image(c.contiguous(), "L") for c in self._pixels.unbind(2))

    def copy(self):
        return Image(self._pixels.clone(), self.mode, self.palette, dict(self.info))

    def getpalette(self, rawmode="RGB"):
        return None if self.palette is None else list(self.palette)

    def transpose(self, method):
        p = self._pixels
        if method == FLIP_LEFT_RIGHT:
            p = p.flip(1)
        elif method == FLIP_TOP_BOTTOM:
            p = p.flip(0)
        elif method == ROTATE_90:
            p = p.transpose(0, 1).flip(0)
        elif method == ROTATE_180:
            p = p.flip(0).flip(1)
        elif method == ROTATE_270:
            p = p.transpose(0, 1).flip(1)
        elif method == TRANSPOSE:
            p = p.transpose(0, 1)
        elif method == TRANSVERSE:
            p = p.transpose(0, 1).flip(0).flip(1)
        else:
            raise ValueError("Expected method to be one of FLIP_LEFT_RIGHT, FLIP_TOP_BOTTOM, ROTATE_90, ROTATE_180, ROTATE_270, TRANSPOSE or TRANSVERSE")
        return self._new(p.contiguous())

    def rotate(self, angle, resample=NEAREST, expand=0, center=None, translate=None, fillcolor=None):
        angle = angle % 360.0
        if center is None and translate is None and angle % 90 == 0:
            if angle == 0:
                return self.copy()
            if angle == 180:
                return self.transpose(ROTATE_180)
            if expand or self.width == self.height:
                return self.transpose(ROTATE_90 if angle == 90 else ROTATE_270)
        raise NotImplementedError(
            f"cudash's images rotate by right angles (with expand=True, or when square); rotating by {angle} degrees "
            "resamples through Pillow's affine transform, which is not in cudash")

    def crop(self, box=None):
        """The pixels in (left, upper, right, lower); outside the image, zeros."""
        if box is None:
            return self.copy()
        left, upper, right, lower = (int(round(v)) for v in box)
        if right < left:
            raise ValueError("Coordinate 'right' is less than 'left'")
        if lower < upper:
            raise ValueError("Coordinate 'lower' is less than 'upper'")
        out = self._pixels.new_zeros((lower - upper, right - left, self._pixels.size(2)))
        top, bottom = max(upper, 0), min(lower, self.height)
        first, last = max(left, 0), min(right, self.width)
        if bottom > top and last > first:
            out[top - upper:bottom - upper, first - left:last - left] = self._pixels[top:bottom, first:last]
        return self._new(out)

    def resize(self, size, resample=None, box=None, reducing_gap=None):
        if resample is None:
            resample = BICUBIC
        elif resample not in _FILTERS:
            raise ValueError(f"Unknown resampling filter ({resample}). Use Image.Resampling.NEAREST (0), "
                             "Image.Resampling.LANCZOS (1), Image.Resampling.BILINEAR (2), Image.Resampling.BICUBIC (3), "
                             "Image.Resampling.BOX (4) or Image.Resampling.HAMMING (5)")
        if reducing_gap is not None:
            raise NotImplementedError("cudash's Image.resize has no reducing_gap (Pillow's reduce() first); leave it None")
        size = tuple(int(v) for v in size)
        if len(size) != 2:
            raise ValueError("size must be a (width, height) tuple")
        if box is None:
            box = (0, 0) + self.size
        box = tuple(box)
        if self.size == size and box == (0, 0) + self.size:
            return self.copy()
        if size[0] <= 0 or size[1] <= 0:
            raise ValueError("height and width must be > 0")
        if self.mode in ("1", "P"):
            resample = NEAREST
        if self.mode in ("LA", "RGBA") and resample != NEAREST:
            im = self.convert({"LA": "La", "RGBA": "RGBa"}[self.mode])
            return im.resize(size, resample, box).convert(self.mode)
        pixels = _cudash.image_resize(self._pixels, size, resample, tuple(float(v) for v in box))
        return self._new(pixels)

    def thumbnail(self, size, resample=BICUBIC, reducing_gap=2.0):
        raise NotImplementedError("cudash's images have no thumbnail() (Pillow decodes JPEGs at a reduced scale for it); "
                                  "img.resize((w, h)) resizes")

    def convert(self, mode=None, matrix=None, dither=None, palette=None, colors=256):
        if mode is None or mode == self.mode:
            return self.copy()
        if matrix is not None:
            raise NotImplementedError("cudash's Image.convert has no matrix")
        im = self
        if im.mode == "P":
            im = im._unpalette(mode in ("RGBA", "LA", "La", "RGBa"))
        elif im.mode == "1":
            im = Image(im._pixels, "L")
        if im.mode == mode:
            return im
        p = im._pixels.long()
        src = im.mode
        if src == "YCbCr" or mode == "YCbCr":
            return im._ycbcr(p, mode)
        if src in ("RGBa", "La"):
            # Pillow's unpremultiply: 255 * c / alpha, truncated.
            a = p[:, :, -1:]
            c = torch.where((a == 0) | (a == 255), p[:, :, :-1], (255 * p[:, :, :-1] // a.clamp(min=1)).clamp(max=255))
            p = torch.cat([c, a], 2)
            src = src[:-1] + "A"
            if src == mode:
                return Image(p.byte(), mode)
        if src in ("RGBA", "LA") and mode in ("RGBa", "La") and src[:-1] == mode[:-1]:
            a = p[:, :, -1:]
            return Image(torch.cat([_muldiv255(p[:, :, :-1], a), a], 2).byte(), mode)
        color = p[:, :, :-1] if src in ("RGBA", "LA") else p
        alpha = p[:, :, -1:] if src in ("RGBA", "LA") else None
        if color.size(2) == 3 and mode in ("L", "LA"):
            # ITU-R 601-2 luma in Pillow's fixed point.
            r, g, b = color[:, :, 0:1], color[:, :, 1:2], color[:, :, 2:3]
            color = (r * 19595 + g * 38470 + b * 7471 + 0x8000) // 65536
        elif color.size(2) == 1 and mode in ("RGB", "RGBA"):
            color = color.expand(-1, -1, 3)
        elif not (mode in ("L", "LA", "RGB", "RGBA") and color.size(2) == _CHANNELS[mode[:3] if mode.startswith("RGB") else mode[:1]]):
            raise ValueError(f"conversion from {self.mode} to {mode} not supported")
        if mode in ("RGBA", "LA"):
            if alpha is None:
                alpha = torch.full_like(color[:, :, :1], 255)
            color = torch.cat([color, alpha], 2)
        return Image(color.byte().contiguous(), mode)

    def _ycbcr(self, p, mode):
        """To or from YCbCr (JPEG's colors, Pillow's fixed point): from L its
        luma with Cb = Cr = 128, from RGB(A) the alpha dropped; to L its Y."""
        src = self.mode
        if mode == "YCbCr":
            if src in ("L", "LA"):
                y = p[:, :, :1]
                color = torch.cat([y, torch.full_like(y, 128), torch.full_like(y, 128)], 2)
            elif src in ("RGB", "RGBA"):
                color = _rgb_to_ycbcr(p)
            else:
                raise ValueError(f"conversion from {src} to {mode} not supported")
            return Image(color.byte().contiguous(), mode)
        if mode in ("L", "LA"):
            color = p[:, :, :1]
        elif mode in ("RGB", "RGBA"):
            color = _ycbcr_to_rgb(p)
        else:
            raise ValueError(f"conversion from {src} to {mode} not supported")
        if mode in ("LA", "RGBA"):
            color = torch.cat([color, torch.full_like(color[:, :, :1], 255)], 2)
        return Image(color.byte().contiguous(), mode)

    def _unpalette(self, with_alpha):
        pal = list(self.palette or []) + [0] * (768 - len(self.palette or []))
        table = torch.tensor(pal[:768], dtype=torch.uint8).view(256, 3)
        idx = self._pixels[:, :, 0].long()
        rgb = table[idx]
        if not with_alpha:
            return Image(rgb, "RGB")
        alphas = [255] * 256
        t = self.info.get("transparency")
        if isinstance(t, int):
            alphas[t] = 0
        elif isinstance(t, (list, tuple)):
            for i, a in enumerate(t):
                alphas[i] = a
        a = torch.tensor(alphas, dtype=torch.uint8)[idx].unsqueeze(2)
        return Image(torch.cat([rgb, a], 2), "RGBA")

    def save(self, fp, format=None, **params):
        name = fp if isinstance(fp, str) else str(fp)
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        fmt = (format or {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG"}.get(ext, ext.upper())).upper()
        if fmt != "PNG":
            raise NotImplementedError(f"cudash saves images as PNG, not {fmt} (Pillow's encoders are not in cudash)")
        if self.mode == "YCbCr":
            raise OSError("cannot write mode YCbCr as PNG")
        im = self.convert("RGB") if self.mode == "P" else self
        im = im.convert("L") if im.mode == "1" else im
        if im.mode in ("LA", "La", "RGBa"):
            im = im.convert("RGBA")
        _cudash.write_png(name, im._pixels)

    def show(self, title=None):
        print(repr(self))


def open(fp, mode="r", formats=None):
    """An image file (PNG or JPEG) as Pillow opens it."""
    if mode != "r":
        raise ValueError(f"bad mode {mode!r}")
    # An in-memory file (`io.BytesIO`): its bytes from where it stands.
    source = fp.read() if hasattr(fp, "getvalue") and hasattr(fp, "read") else fp
    try:
        fmt, m, pixels, palette, alphas = _cudash.image_open(source)
    except OSError as e:
        if str(e).startswith("cannot identify image file"):
            raise UnidentifiedImageError(str(e)) from None
        raise
    info = {}
    if alphas is not None:
        zeros = [i for i, a in enumerate(alphas) if a == 0]
        info["transparency"] = zeros[0] if len(zeros) == 1 and all(a in (0, 255) for a in alphas) else list(alphas)
    img = Image(pixels, m, palette, info)
    img.format = fmt
    img.filename = fp if isinstance(fp, str) else getattr(fp, "name", "")
    return img


def new(mode, size, color=0):
    """An image of `size` (width, height) filled with `color`."""
    if mode not in _CHANNELS:
        raise ValueError(f"unrecognized image mode {mode!r}")
    width, height = size
    c = _CHANNELS[mode]
    named = {"black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0), "green": (0, 128, 0), "blue": (0, 0, 255)}
    if isinstance(color, str):
        if color not in named:
            raise ValueError(f"unknown color specifier: {color!r}")
        color = named[color]
        if c == 1:
            r, g, b = color
            color = (r * 19595 + g * 38470 + b * 7471 + 0x8000) // 65536
    if isinstance(color, (int, float)):
        values = [int(color)] * c if c == 1 else [int(color)] + [0] * (c - 1)
    else:
        values = list(color) + ([255] if len(color) == c - 1 else [])
    pixels = torch.tensor(values, dtype=torch.uint8).view(1, 1, c).expand(height, width, c).contiguous()
    return Image(pixels, mode)


def fromarray(obj, mode=None):
    """An image of an `H×W` or `H×W×C` array (or tensor) of uint8 values."""
    if not isinstance(obj, torch.Tensor):
        import numpy as np
        arr = np.asarray(obj)
        if str(arr.dtype) == "bool":
            return Image((torch.from_numpy(arr).byte() * 255), "1")
        obj = torch.from_numpy(arr)
    if obj.dtype != torch.uint8:
        raise TypeError(f"Cannot handle this data type: {tuple(obj.shape[2:])}, {obj.dtype} (cudash's images are uint8)")
    if mode is None:
        c = 1 if obj.dim() == 2 else obj.size(2)
        mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}.get(c)
        if mode is None:
            raise TypeError(f"Cannot handle this data type: {c} channels")
    return Image(obj.contiguous(), mode)
