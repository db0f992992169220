"""scikit-image, the part PyTorch's data-loading tutorial uses (written for
cudash): `skimage.io.imread` (a file's pixels as a NumPy array, read by
cudash's PIL) and `skimage.transform.resize` and `rescale` as
scikit-image 0.26 computes them: the image as floats in [0, 1], a
Gaussian anti-aliasing filter when it shrinks (sigma `(factor - 1) / 2`
per axis, scipy's `gaussian_filter` truncated at 4 sigma, mirrored at the
edges), then linear interpolation on the pixel grid (scipy's `zoom` with
`grid_mode=True`, mirrored at the edges), clipped to the input's range."""
from skimage import io, transform
