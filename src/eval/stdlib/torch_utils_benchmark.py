"""torch.utils.benchmark, as cudash gives it (written for cudash, after
PyTorch 2.15's `torch/utils/benchmark/utils/timer.py` and `common.py`):
`Timer(stmt, setup, globals=...)` with `timeit(number)`,
`blocked_autorange(min_run_time=)` and `adaptive_autorange(threshold,
min_run_time=, max_run_time=)`, PyTorch's loops for choosing the block
size and for stopping, and `Measurement` with its statistics (`median`,
`mean`, `iqr`, `times`) and its repr.

The clock: PyTorch's default timer synchronises the current CUDA device
and reads the host's wall clock. cudash's synchronises too, and reads the
host's clock as cudash keeps it: on a GPU the wall clock; where device
time is modelled (`sim`, `emu`) the modelled one, which advances by what
the reference machine would spend (launches, copies waited for, host ops,
page-locking) and not by the simulator's own work. A statement that moves
the modelled clock by nothing (pure Python) is timed by the wall clock.
`num_threads` is kept as the label PyTorch gives it; the modelled host
keeps its cores.
A `timer=` of the program's own is read as given."""
import math
import textwrap
import time

import _cudash
import torch

__all__ = ["Timer", "Measurement", "timer", "select_unit"]

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_MIN_CONFIDENCE_INTERVAL = 25e-9
_MAX_SIGNIFICANT_FIGURES = 4


def _sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def timer():
    """The default timer: the device synchronised, then the host's clock
    (modelled where device time is)."""
    _sync()
    modelled = _cudash.host_clock()
    return time.perf_counter() if modelled is None else modelled


def _both_clocks():
    _sync()
    return (_cudash.host_clock(), time.perf_counter())


def _elapsed(t0, t1, number):
    """Seconds between two readings of `_both_clocks` around `number` runs:
    the modelled clock's when it moved (or nothing ran: the timer's own
    cost, nothing on the model), the wall clock's otherwise."""
    modelled0, wall0 = t0
    modelled1, wall1 = t1
    if modelled0 is not None and (modelled1 > modelled0 or number == 0):
        return modelled1 - modelled0
    return wall1 - wall0


def _clean(code):
    code = textwrap.dedent(code)
    if code and code[0] == "\n":
        code = code[1:]
    return code.rstrip()


def select_unit(t):
    """The unit `t` seconds reads best in, and its scale."""
    exponent = math.floor(math.log10(t)) // 3 if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def _quantile(xs, q):
    """`xs` sorted; linear interpolation, as torch.quantile's default."""
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


class TaskSpec:
    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None,
                 description=None, env=None, num_threads=1):
        self.stmt = stmt
        self.setup = setup
        self.global_setup = global_setup
        self.label = label
        self.sub_label = sub_label
        self.description = description
        self.env = env
        self.num_threads = num_threads

    @property
    def title(self):
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        paren = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{paren}\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([f"{s}\n" if "\n" in s else s for s in sections if s])


class Measurement:
    """What a Timer measured: `raw_times`, each the seconds of
    `number_per_run` runs of the statement."""

    # Where PyTorch defines it (`type(m)` shows it).
    __module__ = "torch.utils.benchmark.utils.common"

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata
        self._sorted = sorted(t / number_per_run for t in self.raw_times)
        self._warnings = ()
        if self._sorted:
            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                self._warn("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                self._warn("This could indicate system fluctuation.")

    def _warn(self, message):
        relative = self.iqr / self.median * 100
        self._warnings += (
            f"  WARNING: Interquartile range is {relative:.1f}% "
            f"of the median measurement.\n           {message}",
        )

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return _quantile(self._sorted, 0.5)

    @property
    def mean(self):
        return sum(self._sorted) / len(self._sorted)

    @property
    def iqr(self):
        return _quantile(self._sorted, 0.75) - _quantile(self._sorted, 0.25)

    @property
    def has_warnings(self):
        return bool(self._warnings)

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def significant_figures(self):
        n = len(self._sorted)
        middle = self._sorted[n // 4:math.ceil(3 * n / 4)]
        mean = sum(middle) / len(middle)
        std = math.sqrt(sum((x - mean) ** 2 for x in middle) / len(middle))
        interval = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(self.median / interval))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def title(self):
        return self.task_spec.title

    @property
    def stmt(self):
        return self.task_spec.stmt

    @property
    def setup(self):
        return self.task_spec.setup

    @property
    def label(self):
        return self.task_spec.label

    @property
    def sub_label(self):
        return self.task_spec.sub_label

    @property
    def description(self):
        return self.task_spec.description

    @property
    def num_threads(self):
        return self.task_spec.num_threads

    @property
    def env(self):
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        n = len(self._sorted)
        unit, scale = select_unit(self.median)
        p25, p75 = _quantile(self._sorted, 0.25), _quantile(self._sorted, 0.75)
        lines = [
            f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>",
            self.task_spec.summarize(),
            f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}",
        ]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({p25 / scale:.2f} to {p75 / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        runs = "per measurement," if n > 1 else ","
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {runs} {threads}")
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    def __str__(self):
        return self.__repr__()


class Timer:
    """Runs `stmt` (Python source) in the names of `globals` after `setup`,
    and measures it."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=None,
                 globals=None, label=None, sub_label=None, description=None,
                 env=None, num_threads=1, language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in ("python", "py"):
            raise ValueError(f"cudash's Timer runs Python statements, not language={language!r}")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most "
                "likely this code can simply be moved to `setup`."
            )
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", torch)
        self._timer = timer
        stmt, setup = _clean(stmt), _clean(setup)
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label,
                                   description, env, num_threads)

    def _timeit(self, number):
        """Seconds of `number` runs of the statement, after the setup."""
        g = self._globals
        g["_timer_clock"] = _both_clocks if self._timer is None else self._timer
        body = textwrap.indent(self._task_spec.stmt or "pass", "    ")
        source = (
            f"{self._task_spec.setup or 'pass'}\n"
            "_timer_t0 = _timer_clock()\n"
            f"for _timer_i in range({int(number)}):\n{body}\n"
            "_timer_t1 = _timer_clock()\n"
        )
        exec(source, g)
        if self._timer is None:
            seconds = _elapsed(g["_timer_t0"], g["_timer_t1"], number)
        else:
            seconds = g["_timer_t1"] - g["_timer_t0"]
        return max(seconds, 1e-9)

    def timeit(self, number=1000000):
        """`number` runs, after a warm-up of a hundredth of them (2 at least)."""
        self._timeit(max(int(number // 100), 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        total, can_stop, times = 0.0, False, []
        while total < min_run_time or not can_stop:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            can_stop = stop(times)
            if max_run_time and total > max_run_time:
                break
        return times

    def _estimate_block_size(self, min_run_time):
        """The runs per measurement: ten times more until the timer's own
        cost is under 0.01% of a block and a block takes a thousandth of
        `min_run_time`, or a block alone takes all of it."""
        overheads = sorted(self._timeit(0) for _ in range(5))
        overhead = overheads[2]
        number = 1
        while True:
            taken = self._timeit(number)
            if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                break
            if taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        number = self._estimate_block_size(0.05)

        def stop(times):
            if len(times) > 3:
                return Measurement(number, times, self._task_spec).meets_confidence(threshold)
            return False

        times = self._measurement_loop(number, stop, min_run_time, max_run_time, callback)
        return Measurement(number, times, self._task_spec)
