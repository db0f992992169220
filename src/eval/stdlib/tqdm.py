"""tqdm's progress bar, as the tqdm package (4.x) draws it: on stderr, one
line redrawn with a carriage return at most every `mininterval` seconds,
in tqdm's format:

    train:  40%|████      | 4/10 [00:02<00:03,  1.98it/s, loss=0.231]

`tqdm(iterable)`, `tqdm(total=n)` with `update`, `trange`, `set_description`,
`set_postfix`, `tqdm.write`, `with tqdm(...) as bar:`, `leave`, `disable`,
`unit`, `unit_scale`, `ncols`, `ascii`, `bar_format`, `initial`, `file`.
On a terminal the line fills its width; without one (a file, a pipe, a
notebook's stream) the bar is ten cells wide, as tqdm's.
"""

import os
import sys
import time

__version__ = "4.66.1"

_UNICODE = " " + "".join(chr(0x258F - k) for k in range(8))
_ASCII = " 123456789#"


def _screen_width(fp):
    """tqdm's width for a bar on `sys.stderr` or `sys.stdout`: its
    terminal's columns; else `COLUMNS` less one; else none (ten cells)."""
    try:
        fd = fp.fileno()
    except Exception:
        return None
    if fd not in (1, 2):
        return None
    try:
        return os.get_terminal_size(fd).columns
    except OSError:
        try:
            return int(os.environ["COLUMNS"]) - 1
        except (KeyError, ValueError):
            return None


def _format_interval(t):
    """`MM:SS`, or `H:MM:SS` from an hour on, as tqdm writes a time."""
    mins, s = divmod(int(t), 60)
    h, m = divmod(mins, 60)
    if h:
        return "{0:d}:{1:02d}:{2:02d}".format(h, m, s)
    return "{0:02d}:{1:02d}".format(m, s)


def _format_sizeof(num, suffix="", divisor=1000):
    """`1.23k`, `45.6M`: a number with an SI prefix (`unit_scale=True`)."""
    for unit in ["", "k", "M", "G", "T", "P", "E", "Z"]:
        if abs(num) < 999.5:
            if abs(num) < 99.95:
                if abs(num) < 9.995:
                    return "{0:1.2f}".format(num) + unit + suffix
                return "{0:2.1f}".format(num) + unit + suffix
            return "{0:3.0f}".format(num) + unit + suffix
        num /= divisor
    return "{0:3.1f}Y".format(num) + suffix


def _format_num(n):
    """A postfix number: the shorter of `'{:.3g}'` and `str`."""
    f = "{0:.3g}".format(n).replace("+0", "+").replace("-0", "-")
    n = str(n)
    return f if len(f) < len(n) else n


def _bar(frac, width, charset):
    nsyms = len(charset) - 1
    full, part = divmod(int(frac * width * nsyms), nsyms)
    text = charset[-1] * full
    if full < width:
        text = text + charset[part] + " " * (width - full - 1)
    return text


def _fill_bar(fmt, draw):
    """`bar_format` with each `{bar}` (or `{bar:20}`, `{bar:-10a}`) drawn
    by `draw(spec)`, `{{` and `}}` kept for the `format` after."""
    out = ""
    rest = fmt
    while "{bar" in rest and rest[rest.index("{bar") + 4] in ":}":
        k = rest.index("{bar")
        end = rest.index("}", k)
        out = out + rest[:k] + draw(rest[k + 4 : end].lstrip(":")).replace("{", "{{").replace("}", "}}")
        rest = rest[end + 1 :]
    return out + rest


def _sized_bar(frac, spec, width, charset):
    """The bar as `{bar:spec}` asks: a width (from the free width when
    negative) and a charset (`a` ASCII, `u` Unicode, `b` blank)."""
    sets = {"a": _ASCII, "u": _UNICODE, "b": "  "}
    if spec and spec[-1].lower() in sets:
        charset = sets[spec[-1].lower()]
        spec = spec[:-1]
    if spec:
        n = int(spec)
        width = n + width if n < 0 else n
    return _bar(frac, width, charset)


def _format_meter(n, total, elapsed, ncols=None, prefix="", ascii=False,
                 unit="it", unit_scale=False, rate=None, bar_format=None,
                 postfix=None, unit_divisor=1000, initial=0, colour=None, **extra):
    """The line tqdm shows for `n` of `total` after `elapsed` seconds
    (`rate`, when given, is the smoothed one; else the mean)."""
    if total and n >= total + 0.5:
        total = None
    if unit_scale and unit_scale not in (True, 1):
        if total:
            total *= unit_scale
        n *= unit_scale
        if rate:
            rate *= unit_scale
        unit_scale = False
    elapsed_str = _format_interval(elapsed)
    if rate is None and elapsed:
        rate = (n - initial) / elapsed
    inv_rate = 1 / rate if rate else None
    if unit_scale:
        rate_noinv = (_format_sizeof(rate) if rate else "?") + unit + "/s"
        rate_inv = (_format_sizeof(inv_rate) if inv_rate else "?") + "s/" + unit
        n_fmt = _format_sizeof(n, divisor=unit_divisor)
        total_fmt = _format_sizeof(total, divisor=unit_divisor) if total is not None else "?"
    else:
        rate_noinv = ("{0:5.2f}".format(rate) if rate else "?") + unit + "/s"
        rate_inv = ("{0:5.2f}".format(inv_rate) if inv_rate else "?") + "s/" + unit
        n_fmt = str(n)
        total_fmt = str(total) if total is not None else "?"
    rate_fmt = rate_inv if inv_rate and inv_rate > 1 else rate_noinv
    post = ", " + postfix if postfix else ""
    remaining = (total - n) / rate if rate and total else 0
    remaining_str = _format_interval(remaining) if rate else "?"
    if prefix:
        l_bar = prefix if prefix[-2:] == ": " else prefix + ": "
    else:
        l_bar = ""
    r_bar = "| {0}/{1} [{2}<{3}, {4}{5}]".format(
        n_fmt, total_fmt, elapsed_str, remaining_str, rate_fmt, post)
    fields = {"n": n, "n_fmt": n_fmt, "total": total, "total_fmt": total_fmt,
              "elapsed": elapsed_str, "elapsed_s": elapsed, "ncols": ncols,
              "desc": prefix or "", "unit": unit,
              "rate": inv_rate if inv_rate and inv_rate > 1 else rate,
              "rate_fmt": rate_fmt, "rate_noinv": rate, "rate_noinv_fmt": rate_noinv,
              "rate_inv": inv_rate, "rate_inv_fmt": rate_inv, "postfix": post,
              "unit_divisor": unit_divisor, "remaining": remaining_str,
              "remaining_s": remaining, "l_bar": l_bar, "r_bar": r_bar}
    for key in extra:
        fields[key] = extra[key]
    charset = _ASCII if ascii is True else (ascii or _UNICODE)
    if total:
        frac = n / total
        l_bar = l_bar + "{0:3.0f}%|".format(frac * 100)
        if ncols == 0:
            return l_bar[:-1] + r_bar[1:]
        fields["l_bar"] = l_bar
        if bar_format:
            fields["percentage"] = frac * 100
            if not prefix:
                bar_format = bar_format.replace("{desc}: ", "")
        else:
            bar_format = "{l_bar}{bar}{r_bar}"
    elif bar_format:
        frac = 0
        charset = "  "
        fields["l_bar"] = l_bar + "|"
        fields["percentage"] = 0
    else:
        # tqdm adds `: ` here even to a `set_description` that ends with one.
        lead = prefix + ": " if prefix else ""
        return lead + "{0}{1} [{2}, {3}{4}]".format(n_fmt, unit, elapsed_str, rate_fmt, post)
    if "{bar" not in bar_format:
        return bar_format.format(**fields)
    nobar = _fill_bar(bar_format, lambda spec: "").format(**fields)
    width = max(1, ncols - len(nobar)) if ncols else 10
    line = _fill_bar(bar_format, lambda spec: _sized_bar(frac, spec, width, charset))
    line = line.format(**fields)
    return line[:ncols] if ncols else line


class tqdm:
    """A progress bar over `iterable`, or one moved by `update(n)`."""

    _instances = []

    @staticmethod
    def format_interval(t):
        return _format_interval(t)

    @staticmethod
    def format_sizeof(num, suffix="", divisor=1000):
        return _format_sizeof(num, suffix, divisor)

    @staticmethod
    def format_num(n):
        return _format_num(n)

    @staticmethod
    def format_meter(n, total, elapsed, **kwargs):
        return _format_meter(n, total, elapsed, **kwargs)

    def __init__(self, iterable=None, desc=None, total=None, leave=True, file=None,
                 ncols=None, mininterval=0.1, maxinterval=10.0, miniters=None,
                 ascii=None, disable=False, unit="it", unit_scale=False,
                 dynamic_ncols=False, smoothing=0.3, bar_format=None, initial=0,
                 position=None, postfix=None, unit_divisor=1000, write_bytes=False,
                 lock_args=None, nrows=None, colour=None, delay=0, gui=False,
                 **kwargs):
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except (TypeError, AttributeError):
                total = None
        if total == float("inf"):
            total = None
        self.iterable = iterable
        self.desc = desc or ""
        self.total = total
        self.leave = leave
        self.fp = file if file is not None else sys.stderr
        if ncols is None and not disable:
            ncols = _screen_width(self.fp)
        self.ncols = ncols
        self.nrows = nrows
        self.mininterval = mininterval
        self.maxinterval = maxinterval
        # No `miniters`: tqdm's own, moved after each redraw.
        self.dynamic_miniters = miniters is None
        self.miniters = miniters or 0
        self.ascii = ascii
        self.disable = disable
        self.unit = unit
        self.unit_scale = unit_scale
        self.unit_divisor = unit_divisor
        self.smoothing = smoothing
        self.bar_format = bar_format
        self.initial = initial
        self.colour = colour
        self.delay = delay
        self.n = initial
        self.last_print_n = initial
        self.postfix = None
        self._last_len = 0
        self._ema_dn = _EMA(smoothing)
        self._ema_dt = _EMA(smoothing)
        self._ema_miniters = _EMA(smoothing)
        self._smooth_rate = True
        if disable:
            return
        if postfix is not None:
            try:
                self.set_postfix(refresh=False, **postfix)
            except TypeError:
                self.postfix = postfix
        self.start_t = time.time()
        self.last_print_t = self.start_t
        tqdm._instances.append(self)
        if delay <= 0:
            self.refresh()

    def __len__(self):
        if self.total is not None:
            return self.total
        return len(self.iterable)

    def __iter__(self):
        iterable = self.iterable
        if self.disable:
            for obj in iterable:
                yield obj
            return
        # As tqdm counts: in a local, `self.n` set at each redraw and at the end.
        last_print_t = self.last_print_t
        last_print_n = self.last_print_n
        n = self.n
        try:
            for obj in iterable:
                yield obj
                n += 1
                if n - last_print_n >= self.miniters:
                    now = time.time()
                    if now - last_print_t >= self.mininterval and now >= self.start_t + self.delay:
                        self.update(n - last_print_n)
                        last_print_n = self.last_print_n
                        last_print_t = self.last_print_t
        finally:
            self.n = n
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()
        return False

    def update(self, n=1):
        """Moves the bar on by `n`: redrawn when at least `miniters` steps
        and `mininterval` seconds have passed since the last redraw."""
        if self.disable:
            return None
        if n < 0:
            self.last_print_n += n
        self.n += n
        if self.n - self.last_print_n < self.miniters:
            return None
        now = time.time()
        dt = now - self.last_print_t
        if dt < self.mininterval or now < self.start_t + self.delay:
            return None
        dn = self.n - self.last_print_n
        if self.smoothing and dt and dn:
            self._ema_dn(dn)
            self._ema_dt(dt)
        self.refresh()
        if self.dynamic_miniters:
            if self.maxinterval and dt >= self.maxinterval:
                self.miniters = dn * (self.mininterval or self.maxinterval) / dt
            elif self.smoothing:
                self.miniters = self._ema_miniters(
                    dn * (self.mininterval / dt if self.mininterval and dt else 1))
            else:
                self.miniters = max(self.miniters, dn)
        self.last_print_n = self.n
        self.last_print_t = now
        return True

    @property
    def format_dict(self):
        """What the line is made from (tqdm's own keys)."""
        rate = None
        if self._smooth_rate and self._ema_dt():
            rate = self._ema_dn() / self._ema_dt()
        return {"n": self.n, "total": self.total,
                "elapsed": time.time() - self.start_t if not self.disable else 0,
                "ncols": self.ncols, "nrows": self.nrows, "prefix": self.desc,
                "ascii": self.ascii, "unit": self.unit, "unit_scale": self.unit_scale,
                "rate": rate, "bar_format": self.bar_format, "postfix": self.postfix,
                "unit_divisor": self.unit_divisor, "initial": self.initial,
                "colour": self.colour}

    def __str__(self):
        return _format_meter(**self.format_dict)

    def _print(self, text):
        pad = " " * max(self._last_len - len(text), 0)
        self.fp.write("\r" + text + pad)
        self.fp.flush()
        self._last_len = len(text)

    def refresh(self, nolock=False, lock_args=None):
        """Draws the bar now."""
        if self.disable:
            return None
        self._print(str(self))
        return True

    def clear(self, nolock=False):
        """Blanks the bar's line (`tqdm.write` draws it again after)."""
        if self.disable:
            return None
        self._print("")
        self.fp.write("\r")
        self.fp.flush()
        return None

    def close(self):
        """Draws the bar a last time, with the mean rate, and ends its line
        (`leave=False`: blanks it)."""
        if self.disable:
            return None
        if self in tqdm._instances:
            tqdm._instances.remove(self)
        if self.last_print_t < self.start_t + self.delay:
            self.disable = True
            return None
        if self.leave:
            self._smooth_rate = False
            self._print(str(self))
            self.fp.write("\n")
        else:
            self._print("")
            self.fp.write("\r")
        self.fp.flush()
        self.disable = True
        return None

    def reset(self, total=None):
        """Starts again from 0 (with a new `total` if given)."""
        self.n = 0
        if total is not None:
            self.total = total
        if self.disable:
            return None
        self.last_print_n = 0
        self.last_print_t = self.start_t = time.time()
        self._ema_dn = _EMA(self.smoothing)
        self._ema_dt = _EMA(self.smoothing)
        self._ema_miniters = _EMA(self.smoothing)
        self.refresh()
        return None

    def set_description(self, desc=None, refresh=True):
        """The text before the bar (tqdm adds `': '`)."""
        self.desc = desc + ": " if desc else ""
        if refresh:
            self.refresh()

    def set_description_str(self, desc=None, refresh=True):
        """The text before the bar, as it is."""
        self.desc = desc or ""
        if refresh:
            self.refresh()

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        """`acc=0.9, loss=0.231` after the rate (keyword arguments in
        sorted order); numbers as the shorter of `'{:.3g}'` and `str`."""
        items = {}
        if ordered_dict is not None:
            for key in ordered_dict:
                items[key] = ordered_dict[key]
        for key in sorted(kwargs.keys()):
            items[key] = kwargs[key]
        parts = []
        for key in items:
            value = items[key]
            if isinstance(value, (int, float)):
                value = _format_num(value)
            elif not isinstance(value, str):
                value = str(value)
            parts.append(key + "=" + value.strip())
        self.postfix = ", ".join(parts)
        if refresh:
            self.refresh()

    def set_postfix_str(self, s="", refresh=True):
        """The text after the rate, as it is."""
        self.postfix = str(s)
        if refresh:
            self.refresh()

    @staticmethod
    def write(s, file=None, end="\n", nolock=False):
        """Prints `s` (on stdout) above the open bars, which are drawn
        again below it."""
        fp = file if file is not None else sys.stdout
        bars = list(tqdm._instances)
        for bar in bars:
            bar.clear()
        fp.write(s)
        fp.write(end)
        for bar in bars:
            bar.refresh()


class _EMA:
    """tqdm's moving average: `smoothing` is the weight of the newest
    value; corrected for its start at zero."""

    def __init__(self, smoothing=0.3):
        self.alpha = smoothing
        self.last = 0
        self.calls = 0

    def __call__(self, x=None):
        beta = 1 - self.alpha
        if x is not None:
            self.last = self.alpha * x + beta * self.last
            self.calls += 1
        return self.last / (1 - beta ** self.calls) if self.calls else self.last


def trange(*args, **kwargs):
    """`tqdm(range(*args), **kwargs)`."""
    return tqdm(range(*args), **kwargs)
