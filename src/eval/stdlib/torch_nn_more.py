"""More of `torch.nn` and `torch.nn.functional`, written as PyTorch 2.15
composes them (Python over other ops): `F.local_response_norm` and
`nn.LocalResponseNorm` (AlexNet's normalization across channels),
`F.lp_pool1d`/`lp_pool2d` and `nn.LPPool1d`/`LPPool2d`,
`F.multi_margin_loss` and `nn.MultiMarginLoss`,
`F.triplet_margin_with_distance_loss` and
`nn.TripletMarginWithDistanceLoss`. The graphs hold the ops they compute
with: PyTorch's for the first three families but that a 4-d
`local_response_norm` pools with `avg_pool2d` over [N, 1, C, H * W] where
PyTorch pools with `avg_pool3d` (the same numbers), and
`MultiMarginLossBackward0` is its parts here."""
import math
import _cudash
import torch
import torch.nn as nn
import torch.nn.functional as F


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Each element divided by (k + alpha * the mean of the squares over
    `size` neighbouring channels) ** beta."""
    dim = input.dim()
    if dim < 3:
        # (PyTorch's message keeps its source line's indentation.)
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], -1)
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window (`norm_type` p)."""
    kw, kh = _pair(kernel_size)
    if stride is not None:
        out = F.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = F.avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (torch.sign(out) * F.relu(torch.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window of a sequence."""
    if stride is not None:
        out = F.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = F.avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (torch.sign(out) * F.relu(torch.abs(out))).mul(kernel_size).pow(1.0 / norm_type)


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The multi-class hinge loss: for each sample, the mean over the other
    classes j of max(0, margin - x[y] + x[j]) ** p (times weight[y])."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    y = target.reshape(-1)
    if x.dim() != 2 or y.shape[0] != x.shape[0]:
        raise RuntimeError(
            f"inconsistent target size, expected {x.shape[0]} but got {list(target.shape)}")
    classes = x.shape[1]
    x_y = x.gather(1, y.unsqueeze(1))
    z = (margin - x_y + x).clamp(min=0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y].unsqueeze(1)
    z = z.scatter(1, y.unsqueeze(1), 0)
    loss = z.sum(1) / classes
    if input.dim() == 1 and reduction == "none":
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the
    given distance (`pairwise_distance` by default); with `swap`, the
    negative's distance the nearer of anchor's and positive's."""
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have "
            f"the same number of dimensions, but got: anchor {a_dim}D, "
            f"positive {p_dim}D, and negative {n_dim}D inputs")
    distance = distance_function if distance_function is not None else F.pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = torch.minimum(dist_neg, distance(positive, negative))
    loss = torch.clamp_min(margin + dist_pos - dist_neg, 0)
    return _reduce(loss, reduction)


class LocalResponseNorm(nn.Module):
    __module__ = "torch.nn.modules.normalization"

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class LPPool2d(nn.Module):
    __module__ = "torch.nn.modules.pooling"

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, ceil_mode={self.ceil_mode}"


class LPPool1d(LPPool2d):
    __module__ = "torch.nn.modules.pooling"

    def forward(self, input):
        return lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class MultiMarginLoss(nn.Module):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.register_buffer("weight", weight)
        self.p = p
        self.margin = margin
        self.reduction = reduction

    def forward(self, input, target):
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight, reduction=self.reduction)


class TripletMarginWithDistanceLoss(nn.Module):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__()
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None else F.pairwise_distance
        self.margin = margin
        self.swap = swap
        self.reduction = reduction

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


# ---- 3-d convolutions and pools ------------------------------------------------


def _triple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v, v)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 3-d convolution of [N, C, D, H, W] (or [C, D, H, W]) by weight
    [Cout, C / groups, kd, kh, kw], computed as one 2-d convolution: each
    input's depth windows (a view, `unfold`) laid beside its channels, the
    weight's depth beside its input channels. Its values agree with
    PyTorch's to rounding (the sums add in another order); the graph is
    the 2-d convolution's and the views' (`ConvolutionBackward0` under
    reshapes)."""
    batched = input.dim() == 5
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: {list(input.shape)}")
    x = input if batched else input.unsqueeze(0)
    if weight.dim() != 5:
        raise RuntimeError(
            f"weight should have at least three dimensions")
    cout, cg, kd, kh, kw = weight.shape
    if x.shape[1] != cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(x.shape)} "
            f"to have {cg * groups} channels, but got {x.shape[1]} channels instead")
    sd, sh, sw = _triple(stride)
    dd, dh, dw = _triple(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0), (0, 0), (0, 0))
        elif padding == "same":
            pads = []
            for k, d in ((kd, dd), (kh, dh), (kw, dw)):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    else:
        pads = tuple((p, p) for p in _triple(padding))
    (pd0, pd1), (ph0, ph1), (pw0, pw1) = pads
    if (pd0, pd1, ph0, ph1, pw0, pw1) != (pd0, pd0, ph0, ph0, pw0, pw0):
        x = F.pad(x, (0, pw1 - pw0, 0, ph1 - ph0, 0, 0))
    if pd0 or pd1:
        x = F.pad(x, (0, 0, 0, 0, pd0, pd1))
    span = (kd - 1) * dd + 1
    x = x.unfold(2, span, sd)
    if dd > 1:
        x = x[..., ::dd]
    n, c, do, h, w, _ = x.shape
    cols = x.permute(0, 2, 1, 5, 3, 4).reshape(n * do, c * kd, h, w)
    y = F.conv2d(cols, weight.reshape(cout, cg * kd, kh, kw), bias, (sh, sw), (ph0, pw0), (dh, dw), groups)
    ho, wo = y.shape[-2:]
    y = y.reshape(n, do, cout, ho, wo).permute(0, 2, 1, 3, 4).contiguous()
    return y if batched else y.squeeze(0)


def _depth_windows(x, kernel, stride, padding, fill):
    # [N, C, D, H, W] -> [N, C, Do, H, W, kd]: each output depth's window.
    kd, sd, pd = kernel, stride, padding
    if pd:
        x = F.pad(x, (0, 0, 0, 0, pd, pd), value=fill)
    return x.unfold(2, kd, sd)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Each 3-d window's largest element: the largest of each depth window,
    then a 2-d max pool over height and width."""
    if return_indices or ceil_mode or _triple(dilation) != (1, 1, 1):
        raise NotImplementedError(
            "cudash's max_pool3d has no return_indices, ceil_mode or dilation yet")
    kd, kh, kw = _triple(kernel_size)
    sd, sh, sw = _triple(stride if stride is not None else kernel_size)
    pd, ph, pw = _triple(padding)
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    x = _depth_windows(x, kd, sd, pd, -float("inf")).max(-1).values
    n, c, do, h, w = x.shape
    y = F.max_pool2d(x.reshape(n, c * do, h, w), (kh, kw), (sh, sw), (ph, pw))
    y = y.reshape(n, c, do, y.shape[-2], y.shape[-1])
    return y if batched else y.squeeze(0)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """Each 3-d window's mean (padding counted): the mean of each depth
    window, then a 2-d average pool over height and width."""
    if ceil_mode or not count_include_pad or divisor_override is not None:
        raise NotImplementedError(
            "cudash's avg_pool3d has no ceil_mode, count_include_pad=False or divisor_override yet")
    kd, kh, kw = _triple(kernel_size)
    sd, sh, sw = _triple(stride if stride is not None else kernel_size)
    pd, ph, pw = _triple(padding)
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    x = _depth_windows(x, kd, sd, pd, 0.0).mean(-1)
    n, c, do, h, w = x.shape
    y = F.avg_pool2d(x.reshape(n, c * do, h, w), (kh, kw), (sh, sw), (ph, pw))
    y = y.reshape(n, c, do, y.shape[-2], y.shape[-1])
    return y if batched else y.squeeze(0)


def _adaptive3d(input, output_size, reduce, pools):
    size = _triple(output_size)
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    n, c, d, h, w = x.shape
    size = tuple(s if s is not None else dim for s, dim in zip(size, (d, h, w)))
    od, oh, ow = size
    if all(dim % s == 0 for s, dim in zip(size, (d, h, w))):
        # Even windows: each one reduced at once.
        x = x.reshape(n, c, od, d // od, oh, h // oh, ow, w // ow)
        y = reduce(x, (3, 5, 7))
    else:
        # Uneven or overlapping windows (PyTorch's start = floor(i * in /
        # out), end = ceil((i + 1) * in / out)) are boxes, so reduced over
        # height and width first, then over depth.
        pool2d, pool1d = pools
        y = pool2d(x.reshape(n, c * d, h, w), (oh, ow))
        y = y.reshape(n, c, d, oh * ow).transpose(2, 3).reshape(n, c * oh * ow, d)
        y = pool1d(y, od).reshape(n, c, oh * ow, od).transpose(2, 3).reshape(n, c, od, oh, ow)
    return y if batched else y.squeeze(0)


def adaptive_avg_pool3d(input, output_size):
    """The mean of each of the output's windows (uneven windows as the
    mean over depth of the means over height and width: the same value to
    rounding)."""
    return _adaptive3d(input, output_size, lambda x, dims: x.mean(dims),
                       (F.adaptive_avg_pool2d, F.adaptive_avg_pool1d))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The largest of each of the output's windows."""
    if return_indices:
        raise NotImplementedError("cudash's adaptive_max_pool3d has no return_indices yet")
    return _adaptive3d(input, output_size, lambda x, dims: x.amax(dims),
                       (F.adaptive_max_pool2d, F.adaptive_max_pool1d))


class _Conv3dNd(nn.Module):
    """What Conv3d and ConvTranspose3d share: PyTorch's checks, settings,
    parameters and their initialization (`_ConvNd`)."""

    def _setup(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
               bias, padding_mode, weight_channels, kw):
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _triple(kernel_size)
        self.stride = _triple(stride)
        self.padding = padding if isinstance(padding, str) else _triple(padding)
        self.dilation = _triple(dilation)
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = nn.Parameter(torch.empty(weight_channels + self.kernel_size, **kw))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.kernel_size[0] * self.kernel_size[1] * self.kernel_size[2]
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                nn.init.uniform_(self.bias, -bound, bound)

    def _settings(self, more=""):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1, 1):
            s += f", dilation={self.dilation}"
        s += more
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv3d(_Conv3dNd):
    __module__ = "torch.nn.modules.conv"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError("cudash's Conv3d pads with zeros only (padding_mode='zeros')")
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                    padding_mode, (out_channels, in_channels // groups), {"device": device, "dtype": dtype})

    def forward(self, input):
        return conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        return self._settings()


def _stuff(x, dim, stride):
    # stride - 1 zeros between the elements along dim (a transposed
    # convolution's input spread out), through pad and reshape.
    if stride == 1:
        return x
    x = x.movedim(dim, -1)
    n = x.shape[-1]
    y = F.pad(x.unsqueeze(-1), (0, stride - 1)).reshape(tuple(x.shape[:-1]) + (n * stride,))
    return y[..., : (n - 1) * stride + 1].movedim(-1, dim)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transposed 3-d convolution (the gradient of `conv3d` with respect
    to its input) of [N, Cin, D, H, W] by weight [Cin, Cout / groups, kd,
    kh, kw]: the input spread out by the stride, padded by `dilation * (k -
    1) - padding` (and `output_padding` at the end), convolved with the
    flipped weight. Values agree with PyTorch's to rounding; the graph is
    those ops' (PyTorch's is one `ConvolutionBackward0`)."""
    batched = input.dim() == 5
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: {list(input.shape)}")
    x = input if batched else input.unsqueeze(0)
    cin, cg, kd, kh, kw = weight.shape
    if x.shape[1] != cin:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} "
            f"to have {cin} channels, but got {x.shape[1]} channels instead")
    strides, pads, outs, dils = _triple(stride), _triple(padding), _triple(output_padding), _triple(dilation)
    for k in range(3):
        if outs[k] >= max(strides[k], dils[k]):
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got output_padding_depth: {outs[0]} output_padding_height: {outs[1]} "
                               f"output_padding_width: {outs[2]} stride_depth: {strides[0]} "
                               f"stride_height: {strides[1]} stride_width: {strides[2]} dilation_depth: {dils[0]} "
                               f"dilation_height: {dils[1]} dilation_width: {dils[2]}")
    for k in range(3):
        x = _stuff(x, 2 + k, strides[k])
    # Padding each side by dilation * (k - 1) - padding: a negative amount
    # crops.
    sizes = (kd, kh, kw)
    amounts = []
    for k in (2, 1, 0):
        edge = dils[k] * (sizes[k] - 1) - pads[k]
        amounts += [edge, edge + outs[k]]
    x = F.pad(x, tuple(max(a, 0) for a in amounts))
    crops = [max(-a, 0) for a in amounts]
    if any(crops):
        (w0, w1, h0, h1, d0, d1) = crops
        x = x[:, :, d0: x.shape[2] - d1, h0: x.shape[3] - h1, w0: x.shape[4] - w1]
    w = weight.reshape((groups, cin // groups, cg, kd, kh, kw)).transpose(1, 2)
    w = w.reshape((groups * cg, cin // groups, kd, kh, kw)).flip(2, 3, 4)
    y = conv3d(x, w, bias, 1, 0, dils, groups)
    return y if batched else y.squeeze(0)


class ConvTranspose3d(_Conv3dNd):
    __module__ = "torch.nn.modules.conv"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.output_padding = _triple(output_padding)
        self._setup(in_channels, out_channels, kernel_size, stride, _triple(padding), dilation, groups, bias,
                    padding_mode, (in_channels, out_channels // groups), {"device": device, "dtype": dtype})

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        requested = output_size
        output_size = list(output_size)[-3:]
        spatial = list(input.shape)[-3:]
        result = []
        for d in range(3):
            least = ((spatial[d] - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            most = least + self.stride[d] - 1
            if not least <= output_size[d] <= most:
                raise ValueError(
                    f"requested an output size of {requested}, but valid sizes range from "
                    f"{[(spatial[k] - 1) * self.stride[k] - 2 * self.padding[k] + self.dilation[k] * (self.kernel_size[k] - 1) + 1 for k in range(3)]} to "
                    f"{[(spatial[k] - 1) * self.stride[k] - 2 * self.padding[k] + self.dilation[k] * (self.kernel_size[k] - 1) + self.stride[k] for k in range(3)]} "
                    f"(for an input of {input.shape[-3:]})")
            result.append(output_size[d] - least)
        return tuple(result)

    def forward(self, input, output_size=None):
        out = self._output_padding(input, output_size)
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, out,
                                self.groups, self.dilation)

    def extra_repr(self):
        more = f", output_padding={self.output_padding}" if self.output_padding != (0, 0, 0) else ""
        return self._settings(more)


class MaxPool3d(nn.Module):
    __module__ = "torch.nn.modules.pooling"

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool3d(nn.Module):
    __module__ = "torch.nn.modules.pooling"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(nn.Module):
    __module__ = "torch.nn.modules.pooling"

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(nn.Module):
    __module__ = "torch.nn.modules.pooling"

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


# ---- channel shuffle, multilabel margin, 3-d replication padding ------------


def channel_shuffle(input, groups):
    """The channels split into `groups` and interleaved (ShuffleNet's)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], list(input.shape[2:])
    return input.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape([n, c] + rest)


class ChannelShuffle(nn.Module):
    __module__ = "torch.nn.modules.channelshuffle"

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample, the hinge `max(0, 1 - (x[y] - x[i]))` of each of its
    target classes `y` (those before the first -1) against each class `i`
    that is not one, summed and divided by the number of classes."""
    one = input.dim() <= 1
    x = input.reshape(1, -1) if one else input
    y = target.reshape(1, -1) if one else target
    if x.shape != y.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    n, c = x.shape
    losses = []
    for k in range(n):
        row = y[k].tolist()
        targets = []
        for v in row:
            if v < 0:
                break
            targets.append(int(v))
        is_target = torch.zeros(c, dtype=torch.bool, device=x.device)
        if targets:
            is_target[torch.tensor(targets, device=x.device)] = True
        if not targets:
            losses.append((x[k] * 0).sum())
            continue
        picked = x[k][torch.tensor(targets, device=x.device)]
        hinge = (1 - picked.unsqueeze(1) + x[k].unsqueeze(0)).clamp(min=0)
        hinge = hinge * (~is_target).to(x.dtype).unsqueeze(0)
        losses.append(hinge.sum() / c)
    loss = torch.stack(losses)
    if one:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


class MultiLabelMarginLoss(nn.Module):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class ReplicationPad3d(nn.Module):
    __module__ = "torch.nn.modules.padding"

    def __init__(self, padding):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (list, tuple)) else (padding,) * 6

    def forward(self, input):
        return F.pad(input, self.padding, mode="replicate")

    def extra_repr(self):
        return f"{self.padding}"


# ---- feature and alpha dropout ------------------------------------------------


_ALPHA = 1.7580993408473766


def _dropout_impl(input, p, train, inplace, feature, alpha, name):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = torch.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        noise = torch.empty(shape, dtype=input.dtype, device=input.device)
    else:
        noise = torch.empty_like(input)
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels of a (N, C, L) or (C, L) input zeroed with
    probability `p`, the rest scaled by 1 / (1 - p)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                           "spatial dimension, a channel dimension, and an optional batch dimension "
                           "(i.e. 2D or 3D inputs).")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    out = _dropout_impl(x, p, training, inplace, True, False, "dropout1d")
    return out if batched else out.squeeze(0)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """SELU's dropout: dropped elements set to SELU's negative saturation,
    then an affine map that keeps the mean and variance."""
    return _dropout_impl(input, p, training, inplace, False, True, "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """`alpha_dropout` of whole channels."""
    return _dropout_impl(input, p, training, inplace, True, True, "feature_alpha_dropout")


class _DropoutNd(nn.Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input):
        return dropout1d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input):
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input):
        return feature_alpha_dropout(input, self.p, self.training)


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """The rows of `weight` that `indices` pick, each whose `norm_type`-norm
    passes `max_norm` scaled down to it (by `max_norm / (norm + 1e-7)`,
    computed in double and applied in the weight's dtype, as PyTorch's CPU
    kernel), in place, without a graph: what `F.embedding(max_norm=...)`
    and `nn.Embedding(max_norm=...)` do before they read the rows."""
    with torch.no_grad():
        picked = indices.reshape(-1)
        rows = weight[picked]
        norms = rows.norm(p=norm_type, dim=1, keepdim=True)
        scale = (max_norm / (norms.double() + 1e-7)).to(weight.dtype)
        weight[picked] = torch.where(norms > max_norm, rows * scale, rows)
    return weight


class RreluWithNoise(torch.autograd.Function):
    """`x * noise`, the gradient `grad * noise` (PyTorch's
    `RreluWithNoiseBackward0`)."""

    @staticmethod
    def forward(ctx, input, noise):
        ctx.save_for_backward(noise)
        return input * noise

    @staticmethod
    def backward(ctx, grad):
        (noise,) = ctx.saved_tensors
        return grad * noise, None


def _rrelu_noise(input, lower, upper):
    # A slope uniform in [lower, upper) for each element at or below 0, 1
    # above: PyTorch's CPU kernel's draws on its generator; on a GPU drawn
    # with device ops (PyTorch's curand draws differ).
    with torch.no_grad():
        if input.device.type == "cpu":
            return _cudash.cpu_sample("rrelu", input.contiguous(), float(lower), float(upper))
        slopes = torch.rand_like(input) * (upper - lower) + lower
        return torch.where(input <= 0, slopes, torch.ones_like(input))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """The randomized leaky ReLU: in training each negative element's slope
    is drawn uniformly from [lower, upper]; in evaluation it is their mean
    (a `leaky_relu`)."""
    if upper < lower:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training and (inplace or not (input.requires_grad and torch.is_grad_enabled())):
        return F.leaky_relu(input, (lower + upper) / 2, inplace)
    if not training:
        # PyTorch records its RReLU node in evaluation too (the mean slope).
        with torch.no_grad():
            slope = torch.full_like(input, (lower + upper) / 2)
            noise = torch.where(input <= 0, slope, torch.ones_like(input))
        return RreluWithNoise.apply(input, noise)
    noise = _rrelu_noise(input, lower, upper)
    if inplace:
        return input.mul_(noise)
    if input.requires_grad and torch.is_grad_enabled():
        return RreluWithNoise.apply(input, noise)
    return input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


class RReLU(nn.Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"


# ---- CTC loss --------------------------------------------------------------


def _lse3(a, b, c):
    # log(exp(a) + exp(b) + exp(c)) as PyTorch's CPU CTC kernel computes
    # it: shifted by the largest (0 where all are -inf).
    m = torch.maximum(torch.maximum(a, b), c)
    m = torch.where(m == -math.inf, torch.zeros_like(m), m)
    return ((a - m).exp() + (b - m).exp() + (c - m).exp()).log() + m


def _ctc_labels(targets, target_lengths, batch, blank):
    # The extended labels l' ([N, 2 S + 1]: blanks around each target) and
    # where a path may skip the blank before a label.
    S = max(max(target_lengths), 0) if target_lengths else 0
    rows = []
    if targets.dim() == 1:
        start = 0
        for n in range(batch):
            rows.append(targets[start:start + target_lengths[n]])
            start += target_lengths[n]
    else:
        rows = [targets[n, :target_lengths[n]] for n in range(batch)]
    padded = torch.full((batch, S), blank, dtype=torch.long, device=targets.device)
    for n in range(batch):
        if target_lengths[n]:
            padded[n, :target_lengths[n]] = rows[n].long()
    labels = torch.full((batch, 2 * S + 1), blank, dtype=torch.long, device=targets.device)
    labels[:, 1::2] = padded
    skip = torch.zeros((batch, 2 * S + 1), dtype=torch.bool, device=targets.device)
    if S > 1:
        skip[:, 3::2] = padded[:, 1:] != padded[:, :-1]
    return labels, skip


def _shift(x, k):
    # x moved k places right along the last dim, -inf coming in.
    if k == 0:
        return x
    pad = torch.full(tuple(x.shape[:-1]) + (k,), -math.inf, dtype=x.dtype, device=x.device)
    return torch.cat([pad, x[..., :-k]], -1)


def _unshift(x, k):
    pad = torch.full(tuple(x.shape[:-1]) + (k,), -math.inf, dtype=x.dtype, device=x.device)
    return torch.cat([x[..., k:], pad], -1)


def _ctc_alpha(lp, labels, skip, input_lengths, target_lengths):
    # Forward variables [T, N, 2S+1] and each sequence's negative log
    # likelihood.
    T, N, _ = lp.shape
    L = labels.shape[1]
    emit = lp.gather(2, labels.unsqueeze(0).expand(T, N, L))
    pos = torch.arange(L, device=lp.device)
    tl = torch.tensor(target_lengths, device=lp.device)
    il = torch.tensor(input_lengths, device=lp.device)
    first = torch.where(pos <= 1, emit[0], torch.full_like(emit[0], -math.inf))
    first = torch.where(pos.unsqueeze(0) < (2 * tl + 1).unsqueeze(1), first, torch.full_like(first, -math.inf))
    alphas = [first]
    a = first
    for t in range(1, T):
        skipped = torch.where(skip, _shift(a, 2), torch.full_like(a, -math.inf))
        step = _lse3(a, _shift(a, 1), skipped) + emit[t]
        a = torch.where((t < il).unsqueeze(1), step, a)
        alphas.append(a)
    alpha = torch.stack(alphas)
    end = 2 * tl
    last = a.gather(1, end.unsqueeze(1)).squeeze(1)
    before = a.gather(1, (end - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
    before = torch.where(tl > 0, before, torch.full_like(before, -math.inf))
    m = torch.maximum(last, before)
    m = torch.where(m == -math.inf, torch.zeros_like(m), m)
    nll = -(((last - m).exp() + (before - m).exp()).log() + m)
    return alpha, emit, nll


def _ctc_grad(lp, labels, skip, input_lengths, target_lengths, alpha, emit, nll):
    # d nll / d log_probs [T, N, C], PyTorch's formula:
    # exp(lp) - exp(log sum over s with l'(s) = c of alpha beta + nll - lp).
    T, N, C = lp.shape
    L = labels.shape[1]
    pos = torch.arange(L, device=lp.device)
    tl = torch.tensor(target_lengths, device=lp.device)
    il = torch.tensor(input_lengths, device=lp.device)
    inf = torch.full((N, L), -math.inf, dtype=lp.dtype, device=lp.device)
    ends = (pos.unsqueeze(0) == (2 * tl).unsqueeze(1)) | (pos.unsqueeze(0) == (2 * tl - 1).unsqueeze(1))
    b = inf
    betas = [None] * T
    for t in range(T - 1, -1, -1):
        skipped = torch.where(_unshift(skip, 2) if L > 2 else torch.zeros_like(skip), _unshift(b, 2), inf)
        step = _lse3(b, _unshift(b, 1), skipped) + emit[t]
        init = torch.where(ends, emit[t], inf)
        at_end = (t == il - 1).unsqueeze(1)
        inside = (t < il - 1).unsqueeze(1)
        b = torch.where(at_end, init, torch.where(inside, step, inf))
        betas[t] = b
    beta = torch.stack(betas)
    ab = alpha + beta
    m = ab.max(-1, keepdim=True).values
    m = torch.where(m == -math.inf, torch.zeros_like(m), m)
    summed = torch.zeros((T, N, C), dtype=lp.dtype, device=lp.device)
    summed = summed.scatter_add(2, labels.unsqueeze(0).expand(T, N, L), (ab - m).exp())
    lcab = summed.log() + m
    grad = lp.exp() - (lcab + nll.view(1, N, 1) - lp).exp()
    valid = (torch.arange(T, device=lp.device).unsqueeze(1) < il.unsqueeze(0)).unsqueeze(2)
    return torch.where(valid, grad, torch.zeros_like(grad))


class CtcLoss(torch.autograd.Function):
    """Each sequence's negative log likelihood; its gradient PyTorch's
    (`CtcLossBackward0`)."""

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        with torch.no_grad():
            labels, skip = _ctc_labels(targets, target_lengths, log_probs.shape[1], blank)
            alpha, emit, nll = _ctc_alpha(log_probs, labels, skip, input_lengths, target_lengths)
        ctx.save_for_backward(log_probs, alpha, emit, nll)
        ctx.rest = (labels, skip, input_lengths, target_lengths, zero_infinity)
        if zero_infinity:
            nll = torch.where(nll == math.inf, torch.zeros_like(nll), nll)
        return nll

    @staticmethod
    def backward(ctx, grad_out):
        log_probs, alpha, emit, nll = ctx.saved_tensors
        labels, skip, input_lengths, target_lengths, zero_infinity = ctx.rest
        with torch.no_grad():
            grad = _ctc_grad(log_probs, labels, skip, input_lengths, target_lengths, alpha, emit, nll)
            if zero_infinity:
                grad = torch.where((nll == math.inf).view(1, -1, 1), torch.zeros_like(grad), grad)
            grad = grad * grad_out.view(1, -1, 1)
        return grad, None, None, None, None, None


def _lengths(v, name):
    if isinstance(v, torch.Tensor):
        return [int(x) for x in v.reshape(-1).tolist()]
    return [int(x) for x in v]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The Connectionist Temporal Classification loss of `log_probs`
    [T, N, C] (log-softmax outputs over time; [T, C] unbatched) against
    `targets` ([N, S] padded, or all targets concatenated), as PyTorch's
    (the forward variables summed in log space, PyTorch's gradient)."""
    unbatched = log_probs.dim() == 2
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1 and len(tl) == 1:
            targets = targets.unsqueeze(0)
    T, N, C = log_probs.shape
    if len(il) != N:
        raise RuntimeError(f"input_lengths must be of size batch_size, but got {len(il)} and {N}")
    if len(tl) != N:
        raise RuntimeError(f"target_lengths must be of size batch_size, but got {len(tl)} and {N}")
    for n in range(N):
        if il[n] > T:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {T}, but got value {il[n]} "
                f"(while checking arguments for ctc_loss_cpu)")
    if blank < 0 or blank >= C:
        raise RuntimeError("blank must be in label range")
    nll = CtcLoss.apply(log_probs, targets, il, tl, blank, zero_infinity)
    if unbatched:
        nll = nll.squeeze(0)
    if reduction == "mean":
        lengths = torch.tensor(tl, dtype=nll.dtype, device=nll.device).clamp(min=1)
        if unbatched:
            return nll / lengths[0]
        return (nll / lengths).mean()
    if reduction == "sum":
        return nll.sum()
    return nll


class CTCLoss(nn.Module):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)


# ---- AdaptiveLogSoftmaxWithLoss ---------------------------------------------

from collections import namedtuple as _namedtuple

_ASMoutput = _namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(nn.Module):
    """Grave et al.'s adaptive softmax (a large vocabulary's output layer):
    the frequent classes and one entry per cluster in the head, each rarer
    cluster behind a smaller projection; `forward(input, target)` gives
    each target's log-probability and the mean loss, op for op as PyTorch
    2.15's."""

    __module__ = "torch.nn.modules.adaptive"

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                "where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = nn.Linear(self.in_features, self.head_size, bias=self.head_bias, **kw)
        self.tail = nn.ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            projection = nn.Sequential(
                nn.Linear(self.in_features, hsz, bias=False, **kw),
                nn.Linear(hsz, osz, bias=False, **kw),
            )
            self.tail.append(projection)

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(
                    f"1D target tensor expects 2D input tensors, but found inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(
                    f"0D target tensor expects 1D input tensors, but found inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx = cutoff_values[i]
            high_idx = cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_output = self.head(input)
        head_logprob = F.log_softmax(head_output, dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i in range(len(self.cutoffs) - 1):
            start_idx, stop_idx = self.cutoffs[i], self.cutoffs[i + 1]
            cluster_output = self.tail[i](input)
            cluster_logprob = F.log_softmax(cluster_output, dim=1)
            output_logprob = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
            out[:, start_idx:stop_idx] = output_logprob
        return out

    def log_prob(self, input):
        """Every class's log-probability, [N, n_classes]."""
        head_output = self.head(input)
        return self._get_full_log_prob(input, head_output)

    def predict(self, input):
        """The most likely class of each row."""
        head_output = self.head(input)
        output = torch.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        all_in_shortlist = not not_in_shortlist.any()
        if all_in_shortlist:
            return output
        elif not_in_shortlist.all():
            log_prob = self._get_full_log_prob(input, head_output)
            return torch.argmax(log_prob, dim=1)
        else:
            log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
            output[not_in_shortlist] = torch.argmax(log_prob, dim=1)
            return output
