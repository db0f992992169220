"""PIL (Pillow), as cudash gives it: `PIL.Image` (files, resizing and
modes as Pillow 13's). ImageOps, ImageFilter, ImageDraw and ImageEnhance
are not here."""
from PIL import Image
from PIL.Image import UnidentifiedImageError

__version__ = "13.0.0"
