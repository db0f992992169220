"""`skimage.transform.resize` and `rescale`, as scikit-image 0.26 computes
them (see `skimage.py`)."""
import math

import numpy as np
import torch


def _as_float(image, preserve_range):
    # skimage's `img_as_float`: integers scaled into [0, 1] (unless the
    # range is kept), floats kept.
    t = torch.from_numpy(np.asarray(image))
    if t.dtype in (torch.float32, torch.float64):
        return t
    if t.dtype == torch.float16:
        return t.to(torch.float32)
    if preserve_range:
        return t.to(torch.float64)
    if t.dtype == torch.uint8:
        return t.to(torch.float64) / 255.0
    if t.dtype == torch.bool:
        return t.to(torch.float64)
    info = {torch.int8: 127.0, torch.int16: 32767.0, torch.int32: 2147483647.0,
            torch.int64: 9223372036854775807.0}[t.dtype]
    return (t.to(torch.float64) / info).clamp(min=-1.0)


def _mirror(i, n):
    # scipy's "mirror" mode: d c b | a b c d | c b a, periodic with 2(n - 1).
    if n == 1:
        return torch.zeros_like(i)
    period = 2 * (n - 1)
    i = i.abs() % period
    return torch.where(i > n - 1, period - i, i)


def _gaussian_along(t, axis, sigma):
    # scipy.ndimage.gaussian_filter1d(..., mode="mirror", truncate=4.0).
    radius = int(4.0 * sigma + 0.5)
    if radius == 0:
        return t
    x = torch.arange(-radius, radius + 1, dtype=torch.float64)
    w = torch.exp(-0.5 * (x / sigma) ** 2)
    w = (w / w.sum()).to(t.dtype)
    n = t.shape[axis]
    out = torch.zeros_like(t)
    base = torch.arange(n)
    for k in range(2 * radius + 1):
        idx = _mirror(base + (k - radius), n)
        out = out + w[k] * t.index_select(axis, idx)
    return out


def _zoom_along(t, axis, out_size):
    # scipy.ndimage.zoom(order=1, mode="mirror", grid_mode=True) on one axis:
    # output pixel o samples the input at (o + 0.5) * n / out_size - 0.5.
    n = t.shape[axis]
    if n == out_size:
        return t
    x = (torch.arange(out_size, dtype=torch.float64) + 0.5) * (n / out_size) - 0.5
    i0 = torch.floor(x)
    frac = x - i0
    i0 = i0.to(torch.long)
    lo = t.index_select(axis, _mirror(i0, n))
    hi = t.index_select(axis, _mirror(i0 + 1, n))
    shape = [1] * t.dim()
    shape[axis] = out_size
    frac = frac.reshape(shape).to(t.dtype)
    return lo * (1.0 - frac) + hi * frac


def resize(image, output_shape, order=None, mode="reflect", cval=0, clip=True,
           preserve_range=False, anti_aliasing=None, anti_aliasing_sigma=None):
    if order not in (None, 1):
        raise NotImplementedError("cudash's skimage.transform.resize interpolates linearly (order=1)")
    if mode != "reflect":
        raise NotImplementedError("cudash's skimage.transform.resize mirrors at the edges (mode='reflect')")
    arr = np.asarray(image)
    input_shape = tuple(arr.shape)
    output_shape = tuple(int(s) for s in output_shape)
    if len(output_shape) == len(input_shape) - 1:
        output_shape = output_shape + (input_shape[-1],)
    if len(output_shape) != len(input_shape):
        raise ValueError("output_shape length cannot be smaller than the image number of dimensions")
    t = _as_float(arr, preserve_range)
    factors = [i / o for i, o in zip(input_shape, output_shape)]
    if anti_aliasing is None:
        anti_aliasing = any(o < i for o, i in zip(output_shape, input_shape))
    if anti_aliasing:
        if anti_aliasing_sigma is None:
            sigmas = [max(0.0, (f - 1.0) / 2.0) for f in factors]
        elif isinstance(anti_aliasing_sigma, (int, float)):
            sigmas = [float(anti_aliasing_sigma)] * len(factors)
        else:
            sigmas = [float(s) for s in anti_aliasing_sigma]
        for axis, s in enumerate(sigmas):
            if s > 0:
                t = _gaussian_along(t, axis, s)
    lo, hi = None, None
    if clip:
        src = _as_float(arr, preserve_range)
        lo, hi = src.min().item(), src.max().item()
    for axis, size in enumerate(output_shape):
        t = _zoom_along(t, axis, size)
    if clip:
        t = t.clamp(lo, hi)
    return t.numpy()


def rescale(image, scale, order=None, mode="reflect", cval=0, clip=True,
            preserve_range=False, anti_aliasing=None, anti_aliasing_sigma=None,
            *, channel_axis=None):
    arr = np.asarray(image)
    dims = arr.ndim if channel_axis is None else arr.ndim - 1
    scales = [scale] * dims if isinstance(scale, (int, float)) else list(scale)
    shape = [int(round(s * f)) for s, f in zip(arr.shape, scales)]
    if channel_axis is not None:
        shape.insert(channel_axis % arr.ndim, arr.shape[channel_axis])
    return resize(arr, shape, order=order, mode=mode, cval=cval, clip=clip,
                  preserve_range=preserve_range, anti_aliasing=anti_aliasing,
                  anti_aliasing_sigma=anti_aliasing_sigma)
