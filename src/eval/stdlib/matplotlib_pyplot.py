"""matplotlib.pyplot for cudash (written for cudash): figures, axes and
what programs draw on them (`plot`, `scatter`, `bar`, `hist`, `imshow`,
`matshow`), kept as matplotlib keeps them and drawn into a PNG (or a PDF or SVG
holding it) by `savefig`. The backend is a non-interactive one, as matplotlib's Agg where
there is no display: `show()` shows nothing. Titles, labels, tick labels,
legends and other text are kept (`ax.get_title()`), not drawn; colormaps
are drawn from a few of each map's colours, linearly between them."""
import os
import time

import torch
import _cudash
import matplotlib

# The formats `savefig` writes, and those matplotlib writes that it does not.
_FORMATS = ["pdf", "png", "svg"]
_NOT_WRITTEN = ["eps", "jpeg", "jpg", "pgf", "ps", "raw", "rgba", "svgz", "tif", "tiff", "webp"]

# `hist` takes a parameter called `range`, as matplotlib's.
_range = range

_CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
_NAMED = {
    "b": "#0000ff", "g": "#008000", "r": "#ff0000", "c": "#00bfbf", "m": "#bf00bf", "y": "#bfbf00",
    "k": "#000000", "w": "#ffffff", "blue": "#0000ff", "green": "#008000", "red": "#ff0000",
    "cyan": "#00ffff", "magenta": "#ff00ff", "yellow": "#ffff00", "black": "#000000", "white": "#ffffff",
    "orange": "#ffa500", "purple": "#800080", "gray": "#808080", "grey": "#808080", "brown": "#a52a2a",
    "pink": "#ffc0cb", "olive": "#808000", "navy": "#000080", "teal": "#008080", "lime": "#00ff00",
    "darkblue": "#00008b", "darkgreen": "#006400", "darkred": "#8b0000", "lightblue": "#add8e6",
    "lightgray": "#d3d3d3", "lightgrey": "#d3d3d3", "gold": "#ffd700", "salmon": "#fa8072",
    "tab:blue": "#1f77b4", "tab:orange": "#ff7f0e", "tab:green": "#2ca02c", "tab:red": "#d62728",
    "tab:purple": "#9467bd", "tab:brown": "#8c564b", "tab:pink": "#e377c2", "tab:gray": "#7f7f7f",
    "tab:grey": "#7f7f7f", "tab:olive": "#bcbd22", "tab:cyan": "#17becf",
}
# A few colours of each map, from 0 to 1.
_MAPS = {
    "viridis": ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"],
    "plasma": ["#0d0887", "#7e03a8", "#cc4778", "#f89540", "#f0f921"],
    "inferno": ["#000004", "#57106e", "#bc3754", "#f98e09", "#fcffa4"],
    "magma": ["#000004", "#51127c", "#b73779", "#fc8961", "#fcfdbf"],
    "cividis": ["#00224e", "#575d6d", "#a59c74", "#fee838"],
    "gray": ["#000000", "#ffffff"],
    "Greys": ["#ffffff", "#000000"],
    "binary": ["#ffffff", "#000000"],
    "bone": ["#000000", "#545474", "#a7c7c7", "#ffffff"],
    "hot": ["#0b0000", "#ff0000", "#ffff00", "#ffffff"],
    "jet": ["#00007f", "#0000ff", "#00ffff", "#7fff7f", "#ffff00", "#ff0000", "#7f0000"],
    "Blues": ["#f7fbff", "#6baed6", "#08306b"],
    "Reds": ["#fff5f0", "#fb6a4a", "#67000d"],
    "coolwarm": ["#3b4cc0", "#dddddd", "#b40426"],
    "RdBu": ["#67001f", "#f7f7f7", "#053061"],
}


def _hex(h):
    h = h.lstrip("#")
    if len(h) == 3:
        h = "".join(c + c for c in h)
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def _rgb(c, k=0):
    """A colour as matplotlib reads one: a name, `"C3"`, `"#1f77b4"`, a
    grey level as a string, or RGB(A) floats in [0, 1]."""
    if c is None:
        return _hex(_CYCLE[k % len(_CYCLE)])
    if isinstance(c, str):
        if c.startswith("#"):
            return _hex(c)
        if len(c) == 2 and c[0] == "C" and c[1].isdigit():
            return _hex(_CYCLE[int(c[1])])
        if c in _NAMED:
            return _hex(_NAMED[c])
        try:
            g = int(round(float(c) * 255))
            return (g, g, g)
        except ValueError:
            raise ValueError(f"{c!r} is not a valid color value.")
    c = [float(v) for v in c]
    return tuple(int(round(max(0.0, min(1.0, v)) * 255)) for v in c[:3])


def _lut(name):
    reverse = name.endswith("_r")
    base = name[:-2] if reverse else name
    if base not in _MAPS:
        raise ValueError(f"{name!r} is not a valid value for cmap; supported values are " + ", ".join(repr(m) for m in sorted(_MAPS)))
    stops = torch.tensor([_hex(h) for h in _MAPS[base]], dtype=torch.float64)
    if reverse:
        stops = stops.flip(0)
    pos = torch.linspace(0, len(stops) - 1, 256, dtype=torch.float64)
    lo = pos.floor().long().clamp(max=len(stops) - 2)
    frac = (pos - lo.double()).unsqueeze(1)
    return (stops[lo] * (1 - frac) + stops[lo + 1] * frac).round().to(torch.uint8)


def _tensor(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    if hasattr(x, "_t"):
        return x._t
    if hasattr(x, "_pixels"):
        return x._pixels
    return torch.tensor(x)


def _floats(v):
    if isinstance(v, torch.Tensor) or hasattr(v, "_t"):
        return _tensor(v).double().flatten().tolist()
    if isinstance(v, (int, float)):
        return [float(v)]
    return [float(x) for x in v]


class Artist:
    """What every drawn thing has: whether it is drawn (`set_visible`, as
    `matplotlib.animation` shows one frame's artists at a time)."""

    _visible = True
    _animated = False

    def set_visible(self, b):
        self._visible = bool(b)

    def get_visible(self):
        return self._visible

    def set_animated(self, b):
        self._animated = bool(b)

    def get_animated(self):
        return self._animated


class Line2D(Artist):
    def __init__(self, x, y, color, linestyle, marker, label, linewidth):
        self._x, self._y = x, y
        self._color, self._linestyle, self._marker = color, linestyle, marker
        self._label, self._linewidth = label, linewidth

    def get_xdata(self):
        return list(self._x)

    def get_ydata(self):
        return list(self._y)

    def set_data(self, x, y):
        self._x, self._y = _floats(x), _floats(y)

    def set_ydata(self, y):
        self._y = _floats(y)

    def set_xdata(self, x):
        self._x = _floats(x)

    def get_label(self):
        return self._label

    def set_label(self, s):
        self._label = s

    def get_color(self):
        return "#%02x%02x%02x" % self._color

    def set_color(self, c):
        self._color = _rgb(c)

    def remove(self):
        for ax in _all_axes():
            if self in ax.lines:
                ax.lines.remove(self)


class Rectangle(Artist):
    def __init__(self, x, y, width, height, color):
        self._x, self._y, self._w, self._h, self._color = x, y, width, height, color

    def get_height(self):
        return self._h

    def get_width(self):
        return self._w

    def get_x(self):
        return self._x

    def get_y(self):
        return self._y

    def set_height(self, h):
        self._h = float(h)

    def set_color(self, c):
        self._color = _rgb(c)


class BarContainer:
    """The bars `bar` drew (a sequence of `Rectangle`s)."""

    def __init__(self):
        self._bars = []
        self.label = None

    def append(self, r):
        self._bars.append(r)

    def __getitem__(self, k):
        return self._bars[k]

    def __iter__(self):
        return iter(self._bars)

    def __len__(self):
        return len(self._bars)

    @property
    def patches(self):
        return list(self._bars)


class AxesImage(Artist):
    def __init__(self, rgb, shape, aspect, cmap=None, norm=None):
        self._rgb, self._shape, self._aspect = rgb, shape, aspect
        self.cmap, self.norm = cmap, norm

    def get_size(self):
        return self._shape

    def set_data(self, data):
        self._rgb = _image_rgb(_tensor(data), self.cmap or matplotlib.rcParams["image.cmap"], None, None)


def _image_rgb(t, cmap, vmin, vmax):
    """H x W x 3 uint8 pixels of an image or of values (mapped by `cmap`)."""
    if t.dim() == 3 and t.size(2) == 1:
        t = t[:, :, 0]
    if t.dim() == 2:
        v = t.double()
        lo = float(v.min()) if vmin is None else float(vmin)
        hi = float(v.max()) if vmax is None else float(vmax)
        k = ((v - lo) / (hi - lo) if hi > lo else torch.zeros_like(v)).clamp(0, 1)
        return _lut(cmap if isinstance(cmap, str) else cmap.name)[(k * 255).round().long()]
    if t.dim() != 3 or t.size(2) not in (3, 4):
        raise TypeError(f"Invalid shape {tuple(t.shape)} for image data")
    t = t[:, :, :3]
    if t.dtype == torch.uint8:
        return t.contiguous()
    if t.dtype.is_floating_point:
        return (t.double().clamp(0, 1) * 255).round().to(torch.uint8)
    return t.clamp(0, 255).to(torch.uint8)


class _Locator:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class Axis:
    def __init__(self):
        self.major = None
        self.formatter = None
        self.visible = True

    def set_major_locator(self, locator):
        self.major = locator

    def set_major_formatter(self, formatter):
        self.formatter = formatter

    def set_minor_locator(self, locator):
        pass

    def set_visible(self, b):
        self.visible = b

    def set_ticks(self, ticks, labels=None):
        pass

    def set_ticklabels(self, labels):
        pass

    def grid(self, visible=None, which="major", **kwargs):
        self._grid = True if visible is None else visible

    def tick_top(self):
        pass

    def tick_bottom(self):
        pass


def _error_sizes(err, n):
    # matplotlib's error sizes: one for all points, one per point, or a pair
    # of rows (below, above).
    if isinstance(err, (int, float)):
        return [float(err)] * n, [float(err)] * n
    t = _tensor(err).double()
    if t.dim() == 0:
        return [t.item()] * n, [t.item()] * n
    if t.dim() == 2:
        return t[0].tolist(), t[1].tolist()
    return t.tolist(), t.tolist()


class ErrorbarContainer:
    """What `errorbar` returns: the data line and the error lines (matplotlib's
    `(data_line, caplines, barlinecols)`)."""

    def __init__(self, data_line, lines):
        self.lines = (data_line, (), tuple(lines))
        self.has_xerr = False
        self.has_yerr = True

    def __getitem__(self, k):
        return self.lines[k]

    def __iter__(self):
        return iter(self.lines)

    def __len__(self):
        return 3


class Text(Artist):
    def __init__(self, s):
        self._text = s

    def get_text(self):
        return self._text

    def set_text(self, s):
        self._text = s

    def set_rotation(self, r):
        pass

    def set_fontsize(self, s):
        pass


class Axes:
    def __init__(self, fig, rect):
        self.figure = fig
        self._rect = rect
        self.lines = []
        self.patches = []
        self.images = []
        self.collections = []
        self.texts = []
        self._title = ""
        self._xlabel = ""
        self._ylabel = ""
        self._xlim = None
        self._ylim = None
        self._axis_on = True
        self._legend = None
        self._xticks = None
        self._yticks = None
        self._grid = False
        self._next = 0
        self.xaxis = Axis()
        self.yaxis = Axis()

    def __repr__(self):
        return "<Axes: >"

    def _color(self, c):
        if c is None:
            k = self._next
            self._next += 1
            return _rgb(None, k)
        return _rgb(c)

    def plot(self, *args, **kwargs):
        groups = []
        args = list(args)
        while args:
            if len(args) >= 2 and not isinstance(args[1], str):
                x, y = args[0], args[1]
                args = args[2:]
            else:
                y = args[0]
                x = None
                args = args[1:]
            fmt = ""
            if args and isinstance(args[0], str):
                fmt = args[0]
                args = args[1:]
            groups.append((x, y, fmt))
        made = []
        for x, y, fmt in groups:
            ys = _floats(y)
            xs = list(range(len(ys))) if x is None else _floats(x)
            if len(xs) != len(ys):
                raise ValueError(f"x and y must have same first dimension, but have shapes ({len(xs)},) and ({len(ys)},)")
            color, style, marker = None, "-", None
            rest = fmt
            for s in ("--", "-.", "-", ":"):
                if s in rest:
                    style = s
                    rest = rest.replace(s, "", 1)
                    break
            for ch in rest:
                if ch in "bgrcmykw":
                    color = ch
                elif ch in "o.,xs+^v*Dd<>ph":
                    marker = ch
            if marker is not None and not any(s in fmt for s in ("-", ":")):
                style = "None"
            style = kwargs.get("linestyle", kwargs.get("ls", style))
            marker = kwargs.get("marker", marker)
            width = kwargs.get("linewidth", kwargs.get("lw", matplotlib.rcParams["lines.linewidth"]))
            line = Line2D(xs, ys, self._color(kwargs.get("color", kwargs.get("c", color))), style, marker, kwargs.get("label", "_child%d" % len(self.lines)), width)
            self.lines.append(line)
            made.append(line)
        return made

    def scatter(self, x, y, s=None, c=None, marker="o", label=None, **kwargs):
        xs, ys = _floats(x), _floats(y)
        color = self._color(c if isinstance(c, str) or c is None else None)
        line = Line2D(xs, ys, color, "None", marker, label, 1.0)
        line._size = 20.0 if s is None else float(_floats(s)[0])
        self.collections.append(line)
        return line

    def bar(self, x, height, width=0.8, bottom=None, color=None, label=None, **kwargs):
        xs = _floats(x) if not isinstance(x[0] if isinstance(x, (list, tuple)) and x else 0, str) else list(range(len(x)))
        hs = _floats(height)
        if len(xs) == 1 and len(hs) > 1:
            xs = xs * len(hs)
        bottoms = [0.0] * len(hs) if bottom is None else _floats(bottom)
        if len(bottoms) == 1:
            bottoms = bottoms * len(hs)
        colors = color if isinstance(color, (list, tuple)) and color and not isinstance(color[0], (int, float)) else None
        c = None if colors is not None else self._color(color)
        bars = BarContainer()
        for k, (xk, hk, bk) in enumerate(zip(xs, hs, bottoms)):
            ck = _rgb(colors[k % len(colors)]) if colors is not None else c
            r = Rectangle(xk - width / 2, bk, width, hk, ck)
            self.patches.append(r)
            bars.append(r)
        bars.label = label
        centres = [xk for xk in xs[: len(hs)]]
        tops = [bk + hk for hk, bk in zip(hs, bottoms)]
        bars.errorbar = self._error_lines(centres, tops, kwargs.get("yerr"), kwargs.get("xerr"), kwargs.get("ecolor"))
        return bars

    def errorbar(self, x, y, yerr=None, xerr=None, fmt="", ecolor=None, label=None, **kwargs):
        """The points (drawn with `fmt`, `"none"` for none) and a line through
        each point's error interval, in `ecolor` (matplotlib's caps and
        line widths are not drawn)."""
        ys = _floats(y)
        xs = list(range(len(ys))) if x is None else _floats(x)
        data = None
        if fmt != "none":
            style = {k: v for k, v in kwargs.items() if k in ("color", "c", "marker", "linestyle", "ls", "linewidth", "lw")}
            data = self.plot(xs, ys, fmt, label=label, **style)[0] if fmt else self.plot(xs, ys, label=label, **style)[0]
        return ErrorbarContainer(data, self._error_lines(xs, ys, yerr, xerr, ecolor or (data.get_color() if data else None)))

    def _error_lines(self, xs, ys, yerr, xerr, ecolor):
        made = []
        for err, vertical in ((yerr, True), (xerr, False)):
            if err is None:
                continue
            lower, upper = _error_sizes(err, len(ys))
            for xk, yk, lo, hi in zip(xs, ys, lower, upper):
                ex, ey = ([xk, xk], [yk - lo, yk + hi]) if vertical else ([xk - lo, xk + hi], [yk, yk])
                line = Line2D(ex, ey, self._color(ecolor), "-", None, "_nolegend_", matplotlib.rcParams["lines.linewidth"])
                self.lines.append(line)
                made.append(line)
        return made

    def barh(self, y, width, height=0.8, color=None, **kwargs):
        ys, ws = _floats(y), _floats(width)
        c = self._color(color)
        bars = BarContainer()
        for yk, wk in zip(ys, ws):
            r = Rectangle(0.0, yk - height / 2, wk, height, c)
            self.patches.append(r)
            bars.append(r)
        return bars

    def bar_label(self, container, labels=None, **kwargs):
        return [Text(str(l)) for l in (labels or [r.get_height() for r in container])]

    def hist(self, x, bins=10, range=None, color=None, label=None, **kwargs):
        t = _tensor(x).double().flatten()
        lo, hi = (float(t.min()), float(t.max())) if range is None else range
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        counts = torch.histc(t, bins=bins, min=lo, max=hi)
        edges = torch.linspace(lo, hi, bins + 1, dtype=torch.float64)
        w = (hi - lo) / bins
        c = self._color(color)
        bars = BarContainer()
        for k in _range(bins):
            r = Rectangle(lo + k * w, 0.0, w, float(counts[k]), c)
            self.patches.append(r)
            bars.append(r)
        import numpy as np
        return np.asarray(counts), np.asarray(edges), bars

    def imshow(self, X, cmap=None, vmin=None, vmax=None, aspect=None, interpolation=None, **kwargs):
        t = _tensor(X)
        cmap = matplotlib.rcParams["image.cmap"] if cmap is None else cmap
        rgb = _image_rgb(t, cmap, vmin, vmax)
        im = AxesImage(rgb, (t.size(0), t.size(1)), aspect or "equal", cmap)
        self.images.append(im)
        return im

    def matshow(self, Z, cmap=None, **kwargs):
        return self.imshow(Z, cmap=cmap, **kwargs)

    def text(self, x, y, s, **kwargs):
        t = Text(s)
        self.texts.append(t)
        return t

    def annotate(self, text, xy, **kwargs):
        return self.text(xy[0], xy[1], text)

    def axhline(self, y=0, color=None, **kwargs):
        return self.plot([0, 1], [y, y], color=color if color is not None else "k")

    def axvline(self, x=0, color=None, **kwargs):
        return self.plot([x, x], [0, 1], color=color if color is not None else "k")

    def set_title(self, label, **kwargs):
        self._title = label
        return Text(label)

    def get_title(self):
        return self._title

    def set_xlabel(self, label, **kwargs):
        self._xlabel = label

    def set_ylabel(self, label, **kwargs):
        self._ylabel = label

    def get_xlabel(self):
        return self._xlabel

    def get_ylabel(self):
        return self._ylabel

    def set_xlim(self, left=None, right=None):
        if isinstance(left, (tuple, list)):
            left, right = left
        self._xlim = (left, right)

    def set_ylim(self, bottom=None, top=None):
        if isinstance(bottom, (tuple, list)):
            bottom, top = bottom
        self._ylim = (bottom, top)

    def get_xlim(self):
        return self._limits()[0]

    def get_ylim(self):
        return self._limits()[1]

    def set_xticks(self, ticks, labels=None, **kwargs):
        self._xticks = list(ticks)

    def set_yticks(self, ticks, labels=None, **kwargs):
        self._yticks = list(ticks)

    def set_xticklabels(self, labels, **kwargs):
        return [Text(str(l)) for l in labels]

    def set_yticklabels(self, labels, **kwargs):
        return [Text(str(l)) for l in labels]

    def get_xticklabels(self):
        return [Text(str(t)) for t in (self._xticks or [])]

    def get_yticklabels(self):
        return [Text(str(t)) for t in (self._yticks or [])]

    def tick_params(self, **kwargs):
        pass

    def set_aspect(self, aspect, **kwargs):
        for im in self.images:
            im._aspect = aspect

    def legend(self, *args, **kwargs):
        self._legend = args or True
        return self._legend

    def grid(self, visible=None, **kwargs):
        self._grid = True if visible is None else visible

    def axis(self, arg=None, **kwargs):
        if arg in ("off", False):
            self._axis_on = False
        elif arg in ("on", True):
            self._axis_on = True
        elif isinstance(arg, (list, tuple)) and len(arg) == 4:
            self._xlim, self._ylim = (arg[0], arg[1]), (arg[2], arg[3])
        return self._limits()[0] + self._limits()[1]

    def set_axis_off(self):
        self._axis_on = False

    def set_axis_on(self):
        self._axis_on = True

    def cla(self):
        self.__init__(self.figure, self._rect)

    def clear(self):
        self.cla()

    def get_legend_handles_labels(self):
        lines = [l for l in self.lines if l._label and not str(l._label).startswith("_")]
        return lines, [l._label for l in lines]

    def twinx(self):
        ax = Axes(self.figure, self._rect)
        self.figure.axes.append(ax)
        return ax

    def _limits(self):
        """The data limits: as set, else the data's with matplotlib's 5% margins
        (an image's own extent, its first row at the top)."""
        if self.images and self._xlim is None and self._ylim is None:
            h, w = self.images[-1]._shape
            return (-0.5, w - 0.5), (h - 0.5, -0.5)
        xs, ys = [], []
        for l in self.lines + self.collections:
            xs += l._x
            ys += l._y
        for r in self.patches:
            xs += [r._x, r._x + r._w]
            ys += [r._y, r._y + r._h]

        def span(v, margin):
            if not v:
                return (0.0, 1.0)
            lo, hi = min(v), max(v)
            if hi == lo:
                return (lo - 0.05 * abs(lo or 1), hi + 0.05 * abs(hi or 1))
            d = (hi - lo) * margin
            return (lo - d, hi + d)
        x = span(xs, 0.05)
        y = span(ys, 0.05)
        if self._xlim is not None:
            x = (x[0] if self._xlim[0] is None else self._xlim[0], x[1] if self._xlim[1] is None else self._xlim[1])
        if self._ylim is not None:
            y = (y[0] if self._ylim[0] is None else self._ylim[0], y[1] if self._ylim[1] is None else self._ylim[1])
        return x, y

    def _draw(self, canvas, W, H):
        left, bottom, width, height = self._rect
        bx0, bx1 = int(round(left * W)), int(round((left + width) * W))
        by0, by1 = int(round((1 - bottom - height) * H)), int(round((1 - bottom) * H))
        shown = [im for im in self.images if im._visible]
        if shown:
            im = shown[-1]
            h, w = im._shape
            bw, bh = bx1 - bx0, by1 - by0
            if im._aspect == "auto":
                sx, sy = bw / w, bh / h
            else:
                sx = sy = min(bw / w, bh / h)
            ow, oh = max(1, int(w * sx)), max(1, int(h * sy))
            bx0, by0 = bx0 + (bw - ow) // 2, by0 + (bh - oh) // 2
            bx1, by1 = bx0 + ow, by0 + oh
            rows = (torch.arange(oh, dtype=torch.float64) / sy).floor().long().clamp(max=h - 1)
            cols = (torch.arange(ow, dtype=torch.float64) / sx).floor().long().clamp(max=w - 1)
            canvas[by0:by1, bx0:bx1] = im._rgb[rows][:, cols]
        (x0, x1), (y0, y1) = self._limits()
        box = (bx0, bx1, by0, by1)

        def px(v):
            return bx0 + (v - x0) / (x1 - x0) * (bx1 - bx0 - 1) if x1 != x0 else float(bx0)

        def py(v):
            return by1 - 1 - (v - y0) / (y1 - y0) * (by1 - by0 - 1) if y1 != y0 else float(by1 - 1)
        for r in self.patches:
            if not r._visible:
                continue
            xa, xb = sorted((px(r._x), px(r._x + r._w)))
            ya, yb = sorted((py(r._y), py(r._y + r._h)))
            xa, xb = max(bx0, int(round(xa))), min(bx1, int(round(xb)) + 1)
            ya, yb = max(by0, int(round(ya))), min(by1, int(round(yb)) + 1)
            if xa < xb and ya < yb:
                canvas[ya:yb, xa:xb] = torch.tensor(r._color, dtype=torch.uint8)
        dpi = self.figure.dpi
        for l in self.lines:
            if not l._visible:
                continue
            pts_x = [px(v) for v in l._x]
            pts_y = [py(v) for v in l._y]
            if l._linestyle not in ("None", "none", "", " "):
                _polyline(canvas, pts_x, pts_y, l._color, max(1, int(round(l._linewidth * dpi / 72))), box)
            if l._marker is not None:
                _dots(canvas, pts_x, pts_y, l._color, max(1, int(round(3 * dpi / 72))), box)
        for l in self.collections:
            if not l._visible:
                continue
            radius = max(1, int(round((l._size ** 0.5) / 2 * dpi / 72)))
            _dots(canvas, [px(v) for v in l._x], [py(v) for v in l._y], l._color, radius, box)
        if self._axis_on:
            black = torch.tensor([0, 0, 0], dtype=torch.uint8)
            canvas[by0, bx0:bx1] = black
            canvas[by1 - 1, bx0:bx1] = black
            canvas[by0:by1, bx0] = black
            canvas[by0:by1, bx1 - 1] = black


def _put(canvas, xs, ys, color, box):
    bx0, bx1, by0, by1 = box
    keep = (xs >= bx0) & (xs < bx1) & (ys >= by0) & (ys < by1)
    xs, ys = xs[keep], ys[keep]
    if xs.numel():
        canvas[ys, xs] = torch.tensor(color, dtype=torch.uint8)


def _polyline(canvas, xs, ys, color, width, box):
    """Segments between consecutive points, `width` pixels wide."""
    if len(xs) < 2:
        return
    x = torch.tensor(xs, dtype=torch.float64)
    y = torch.tensor(ys, dtype=torch.float64)
    dx, dy = x[1:] - x[:-1], y[1:] - y[:-1]
    n = torch.maximum(dx.abs(), dy.abs()).ceil().clamp(min=1)
    m = int(n.max()) + 1
    t = torch.arange(m, dtype=torch.float64).unsqueeze(0) / n.unsqueeze(1)
    keep = t <= 1
    px = (x[:-1].unsqueeze(1) + dx.unsqueeze(1) * t)[keep].round().long()
    py = (y[:-1].unsqueeze(1) + dy.unsqueeze(1) * t)[keep].round().long()
    lo = -(width // 2)
    for ox in range(width):
        for oy in range(width):
            _put(canvas, px + (lo + ox), py + (lo + oy), color, box)


def _dots(canvas, xs, ys, color, radius, box):
    if not xs:
        return
    px = torch.tensor(xs, dtype=torch.float64).round().long()
    py = torch.tensor(ys, dtype=torch.float64).round().long()
    for ox in range(2 * radius + 1):
        for oy in range(2 * radius + 1):
            a, b = ox - radius, oy - radius
            if a * a + b * b <= radius * radius:
                _put(canvas, px + a, py + b, color, box)


class _Grid:
    """What `subplots` gives for several axes: indexed as NumPy's array of
    them (`axes[0, 1]`, `axes[1]`, `axes.flat`, `axes.ravel()`)."""

    def __init__(self, rows):
        self._rows = rows
        self.shape = (len(rows), len(rows[0])) if rows and isinstance(rows[0], list) else (len(rows),)

    def _items(self):
        if len(self.shape) == 1:
            return list(self._rows)
        return [a for row in self._rows for a in row]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            r, c = key
            return self._rows[r][c]
        v = self._rows[key]
        return _Grid(v) if isinstance(v, list) else v

    def __iter__(self):
        for k in range(len(self._rows)):
            yield self[k]

    def __len__(self):
        return len(self._rows)

    @property
    def flat(self):
        return self._items()

    def ravel(self):
        return self._items()

    def flatten(self):
        return self._items()

    def reshape(self, *shape):
        return self._items()


class _Canvas:
    def __init__(self, fig):
        self.figure = fig

    def draw(self):
        pass

    def draw_idle(self):
        pass

    def flush_events(self):
        pass

    def tostring_rgb(self):
        raise NotImplementedError("cudash's figures give their pixels through savefig")

    def get_width_height(self):
        return self.figure._pixels()


class Figure:
    def __init__(self, figsize=None, dpi=None, num=None):
        size = figsize or matplotlib.rcParams["figure.figsize"]
        self._size = [float(size[0]), float(size[1])]
        self.dpi = float(dpi or matplotlib.rcParams["figure.dpi"])
        self.axes = []
        self.number = num
        self._suptitle = ""
        self.canvas = _Canvas(self)

    def __repr__(self):
        w, h = self._pixels()
        return f"<Figure size {w}x{h} with {len(self.axes)} Axes>"

    def __str__(self):
        w, h = self._pixels()
        return f"Figure({w}x{h})"

    def _pixels(self):
        return int(round(self._size[0] * self.dpi)), int(round(self._size[1] * self.dpi))

    def add_subplot(self, *args, **kwargs):
        nrows, ncols, index = _grid_spec(args)
        ax = Axes(self, _cell(nrows, ncols, index))
        self.axes.append(ax)
        _state["ax"] = ax
        return ax

    def add_axes(self, rect, **kwargs):
        ax = Axes(self, tuple(rect))
        self.axes.append(ax)
        _state["ax"] = ax
        return ax

    def subplots(self, nrows=1, ncols=1, squeeze=True, **kwargs):
        rows = [[self.add_subplot(nrows, ncols, r * ncols + c + 1) for c in range(ncols)] for r in range(nrows)]
        if squeeze and nrows == 1 and ncols == 1:
            return rows[0][0]
        if squeeze and (nrows == 1 or ncols == 1):
            return _Grid([a for row in rows for a in row])
        return _Grid(rows)

    def gca(self):
        if not self.axes:
            return self.add_subplot(1, 1, 1)
        return self.axes[-1]

    def suptitle(self, t, **kwargs):
        self._suptitle = t
        return Text(t)

    def tight_layout(self, **kwargs):
        pass

    def subplots_adjust(self, **kwargs):
        pass

    def colorbar(self, mappable=None, ax=None, **kwargs):
        return _Locator(mappable)

    def legend(self, *args, **kwargs):
        return args

    def text(self, x, y, s, **kwargs):
        return Text(s)

    def set_size_inches(self, w, h=None):
        if h is None:
            w, h = w
        self._size = [float(w), float(h)]

    def get_size_inches(self):
        return tuple(self._size)

    def set_dpi(self, dpi):
        self.dpi = float(dpi)

    def clf(self):
        self.axes = []

    def clear(self):
        self.clf()

    def show(self):
        pass

    def savefig(self, fname, dpi=None, format=None, **kwargs):
        """The figure drawn into a PNG, a PDF or an SVG file: a path (the
        format from its extension, PNG where it has none) or a binary file
        object (`io.BytesIO`). A PDF's page and an SVG's picture are the
        figure's size, holding its pixels (matplotlib draws those two
        formats as vector paths)."""
        to_file = hasattr(fname, "write") and not isinstance(fname, str)
        name = "" if to_file else os.fspath(fname)
        base = os.path.basename(name)
        fmt = (format or (base.rsplit(".", 1)[-1] if "." in base else "png")).lower()
        if fmt not in _FORMATS:
            known = ", ".join(sorted(_FORMATS + _NOT_WRITTEN))
            if fmt in _NOT_WRITTEN:
                raise ValueError(f"Format {fmt!r} is one matplotlib writes and cudash does not; cudash writes png, pdf and svg")
            raise ValueError(f"Format {fmt!r} is not supported (supported formats: {known})")
        if not to_file and "." not in base:
            name = name + "." + fmt
        keep = self.dpi
        if dpi is not None and dpi != "figure":
            self.dpi = float(dpi)
        try:
            data = _cudash.encode_figure(self._canvas(), fmt, self._size[0] * 72, self._size[1] * 72)
        finally:
            self.dpi = keep
        if to_file:
            fname.write(data)
        else:
            with open(name, "wb") as f:
                f.write(data)

    def _canvas(self):
        W, H = self._pixels()
        canvas = torch.full((H, W, 3), 255, dtype=torch.uint8)
        for ax in self.axes:
            ax._draw(canvas, W, H)
        return canvas


def _grid_spec(args):
    if len(args) == 1:
        n = int(args[0])
        return n // 100, (n // 10) % 10, n % 10
    if len(args) == 0:
        return 1, 1, 1
    return int(args[0]), int(args[1]), args[2]


def _cell(nrows, ncols, index):
    """The rectangle of cell `index` (from 1, or a `(first, last)` span) of
    an `nrows` x `ncols` grid, with matplotlib's default margins and gaps."""
    left, right, bottom, top, wspace, hspace = 0.125, 0.9, 0.11, 0.88, 0.2, 0.2
    w = (right - left) / (ncols + wspace * (ncols - 1))
    h = (top - bottom) / (nrows + hspace * (nrows - 1))
    first, last = (index, index) if isinstance(index, int) else index
    if not 1 <= first <= nrows * ncols or not 1 <= last <= nrows * ncols:
        raise ValueError(f"num must be an integer with 1 <= num <= {nrows * ncols}, not {index}")

    def at(k):
        r, c = (k - 1) // ncols, (k - 1) % ncols
        x = left + c * w * (1 + wspace)
        y = top - (r + 1) * h - r * h * hspace
        return x, y
    x0, y0 = at(first)
    x1, y1 = at(last)
    xa, ya = min(x0, x1), min(y0, y1)
    return (xa, ya, max(x0, x1) + w - xa, max(y0, y1) + h - ya)


_state = {"fig": None, "ax": None, "figs": [], "interactive": False}


def _all_axes():
    return [a for f in _state["figs"] for a in f.axes]


def figure(num=None, figsize=None, dpi=None, **kwargs):
    for f in _state["figs"]:
        if num is not None and f.number == num:
            _state["fig"] = f
            return f
    fig = Figure(figsize, dpi, num if num is not None else len(_state["figs"]) + 1)
    _state["figs"].append(fig)
    _state["fig"] = fig
    _state["ax"] = None
    return fig


def gcf():
    if _state["fig"] is None:
        return figure()
    return _state["fig"]


def gca():
    fig = gcf()
    if _state["ax"] is None or _state["ax"] not in fig.axes:
        _state["ax"] = fig.gca()
    return _state["ax"]


def sca(ax):
    _state["fig"] = ax.figure
    _state["ax"] = ax


def subplot(*args, **kwargs):
    return gcf().add_subplot(*args, **kwargs)


def subplots(nrows=1, ncols=1, figsize=None, dpi=None, squeeze=True, **kwargs):
    fig = figure(figsize=figsize, dpi=dpi)
    return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def close(fig=None):
    if fig == "all":
        _state["figs"] = []
        _state["fig"] = None
        return
    fig = _state["fig"] if fig is None else fig
    if fig in _state["figs"]:
        _state["figs"].remove(fig)
    if _state["fig"] is fig:
        _state["fig"] = _state["figs"][-1] if _state["figs"] else None


def clf():
    gcf().clf()
    _state["ax"] = None


def cla():
    gca().cla()


def get_fignums():
    return [f.number for f in _state["figs"]]


def plot(*args, **kwargs):
    return gca().plot(*args, **kwargs)


def scatter(*args, **kwargs):
    return gca().scatter(*args, **kwargs)


def errorbar(*args, **kwargs):
    return gca().errorbar(*args, **kwargs)


def bar(*args, **kwargs):
    return gca().bar(*args, **kwargs)


def barh(*args, **kwargs):
    return gca().barh(*args, **kwargs)


def hist(*args, **kwargs):
    return gca().hist(*args, **kwargs)


def imshow(*args, **kwargs):
    return gca().imshow(*args, **kwargs)


def matshow(A, fignum=None, **kwargs):
    return gca().matshow(A, **kwargs)


def text(*args, **kwargs):
    return gca().text(*args, **kwargs)


def axhline(*args, **kwargs):
    return gca().axhline(*args, **kwargs)


def axvline(*args, **kwargs):
    return gca().axvline(*args, **kwargs)


def title(label, **kwargs):
    return gca().set_title(label)


def suptitle(t, **kwargs):
    return gcf().suptitle(t)


def xlabel(label, **kwargs):
    gca().set_xlabel(label)


def ylabel(label, **kwargs):
    gca().set_ylabel(label)


def xlim(*args, **kwargs):
    if args or kwargs:
        gca().set_xlim(*args, **kwargs)
    return gca().get_xlim()


def ylim(*args, **kwargs):
    if args or kwargs:
        gca().set_ylim(*args, **kwargs)
    return gca().get_ylim()


def xticks(ticks=None, labels=None, **kwargs):
    if ticks is not None:
        gca().set_xticks(ticks)
    return gca()._xticks, labels


def yticks(ticks=None, labels=None, **kwargs):
    if ticks is not None:
        gca().set_yticks(ticks)
    return gca()._yticks, labels


def legend(*args, **kwargs):
    return gca().legend(*args, **kwargs)


def grid(visible=None, **kwargs):
    gca().grid(visible)


def axis(arg=None, **kwargs):
    return gca().axis(arg, **kwargs)


def colorbar(mappable=None, **kwargs):
    return gcf().colorbar(mappable)


def tight_layout(**kwargs):
    pass


def subplots_adjust(**kwargs):
    pass


def setp(obj, *args, **kwargs):
    pass


def savefig(fname, **kwargs):
    gcf().savefig(fname, **kwargs)


def show(block=None):
    """In a notebook, each open figure as an image (matplotlib's inline
    backend), then closed; elsewhere nothing (as matplotlib's Agg backend
    where there is no display)."""
    for fig in list(_state["figs"]):
        if not _cudash.show_png(repr(fig), fig._canvas()):
            return
        close(fig)


def draw():
    pass


def pause(interval):
    time.sleep(interval)


def ion():
    _state["interactive"] = True
    matplotlib.rcParams["interactive"] = True


def ioff():
    _state["interactive"] = False
    matplotlib.rcParams["interactive"] = False


def isinteractive():
    return _state["interactive"]


def switch_backend(name):
    matplotlib.use(name)


def get_cmap(name=None, lut=None):
    name = matplotlib.rcParams["image.cmap"] if name is None else name
    _lut(name)
    return Colormap(name)


class Colormap:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<matplotlib.colors.Colormap object: {self.name}>"


cm = None
