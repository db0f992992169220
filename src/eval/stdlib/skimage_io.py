"""`skimage.io`: `imread` reads an image file into a NumPy array (height,
width[, channels], uint8), as scikit-image does through imageio."""
import numpy as np
from PIL import Image as _Image


def imread(fname, as_gray=False, plugin=None, **plugin_args):
    with _Image.open(fname) as img:
        if as_gray:
            raise NotImplementedError("cudash's skimage.io.imread has no as_gray")
        return np.asarray(img)


def imsave(fname, arr, plugin=None, check_contrast=True, **plugin_args):
    _Image.fromarray(np.asarray(arr)).save(fname)
