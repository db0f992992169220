"""torch.profiler, as cudash gives it (written for cudash, after PyTorch
2.15's `torch/profiler/profiler.py`): `profile(activities=, schedule=,
on_trace_ready=)` as a context or with `start()`/`stop()`, `step()` through
a `schedule(wait=, warmup=, active=, repeat=, skip_first=)`,
`key_averages().table(sort_by=, row_limit=)`, `export_chrome_trace(path)`,
`tensorboard_trace_handler(dir)`, `record_function(name)`, `ProfilerActivity`
and `ProfilerAction`.

What is recorded is cudash's timeline (the one `profile { }` draws):
measured on a GPU, modelled on the reference GPU elsewhere. A warm-up
step records nothing (PyTorch records and discards it: the profiler's
own start-up cost, which cudash's recorder does not have)."""
import os
import time
import warnings
from enum import Enum

import _cudash
import torch

__all__ = ["profile", "schedule", "ProfilerActivity", "ProfilerAction",
           "tensorboard_trace_handler", "record_function", "supported_activities"]


class ProfilerActivity(Enum):
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerAction(Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


_cuda_sync = [False]


def _set_cuda_sync_enabled_val(val):
    """`torch._C._profiler._set_cuda_sync_enabled_val(True)`: traces get the
    host's syncs (cudaStreamSynchronize, ...) as events of category
    `cuda_sync`. cudash's timeline always has them as waits; this puts
    them in the trace as instants too."""
    _cuda_sync[0] = bool(val)


def supported_activities():
    if torch.cuda.is_available():
        return {ProfilerActivity.CPU, ProfilerActivity.CUDA}
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The profiler's action at each step: `skip_first` steps, then cycles
    of `wait`, `warmup` and `active` steps (`repeat` of them; 0: no end),
    the last active step of each `RECORD_AND_SAVE`."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        if mod_step < num_steps - 1:
            return ProfilerAction.RECORD
        return ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step):
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class EventList:
    """What `key_averages()` gives: its `table()`."""

    def __init__(self, result, use_device):
        self._result = result
        self._use_device = use_device

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        if self._result is None:
            return ""
        return _cudash.profiler_table(self._result, sort_by, row_limit, self._use_device is not None)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return self.table()


class profile:
    """Records what runs between `start()` and `stop()` (a `with` block),
    on the steps `schedule` says to record."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        if use_cuda is not None:
            raise TypeError("profile.__init__() got an unexpected keyword argument 'use_cuda'")
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        if profile_memory:
            warnings.warn("cudash's profiler does not record memory: profile_memory=True adds no memory "
                          "columns (torch.cuda.memory_stats() and the memory history show the allocator)")
        self.with_stack = with_stack
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recording = False
        self._result = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    def _begin(self):
        if not self._recording:
            _cudash.profiler_start()
            self._recording = True

    def _end(self):
        if self._recording:
            self._recording = False
            self._result = _cudash.profiler_stop()

    def _ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def start(self):
        self.step_num = 0
        self.current_action = self.schedule(0)
        if self.current_action in _RECORDING:
            self._begin()

    def stop(self):
        if self.current_action in _RECORDING:
            self._end()
            self._ready()

    def step(self):
        """The next step: what the schedule says for it begins."""
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        now = self.current_action
        if prev == ProfilerAction.RECORD_AND_SAVE:
            self._end()
            self._ready()
        elif prev == ProfilerAction.RECORD and now not in _RECORDING:
            warnings.warn(f"Incorrect schedule: RECORD followed by {now.name}")
            self._end()
        elif prev == ProfilerAction.WARMUP and now == ProfilerAction.NONE:
            warnings.warn("Incorrect schedule: WARMUP followed by NONE")
        if now in _RECORDING:
            self._begin()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        if self._result is None:
            raise AssertionError("Expected profiling results")
        on_device = ProfilerActivity.CUDA in self.activities
        return EventList(self._result, "cuda" if on_device else None)

    def events(self):
        return self.key_averages()

    def export_chrome_trace(self, path):
        if self._result is None:
            raise AssertionError("Expected profiling results")
        _cudash.profiler_trace(self._result, path, _cuda_sync[0])
        return path


class record_function:
    """A labelled range of the program's (`with record_function("forward"):`):
    a row of the profiler's table, its span and the device time of the work
    launched inside it."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._range = None

    def __enter__(self):
        self._range = _cudash.profiler_range_begin(self.name)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self._range is not None:
            _cudash.profiler_range_end(self._range)
            self._range = None
        return False


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An `on_trace_ready` that writes each trace to `dir_name` as
    `<worker>.<time in ms>.pt.trace.json`, as PyTorch names them."""

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"cudash_{os.getpid()}"
        name = f"{worker}.{int(time.time() * 1000)}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler
