"""`torch.jit` as PyTorch 2.15 runs it with `PYTORCH_JIT=0` (its switch
that turns TorchScript off): `script` and `trace` give back what they are
given, after PyTorch's deprecation warning, so the function or module runs
as the Python it is written in; `@torch.jit.export`, `ignore`, `unused`,
`script_if_tracing` leave what they decorate as it is; `is_scripting()`
and `is_tracing()` are False. cudash has no TorchScript compiler, so
there is no TorchScript to show (`.code`, `.graph`), save or load: those
say so."""
import warnings as _warnings
from typing import Final

import torch

_isinstance = isinstance

_OFF = (
    "cudash runs torch.jit as PyTorch does with PYTORCH_JIT=0: script and trace give back "
    "the module or function itself, which has no TorchScript"
)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    _warnings.warn(
        "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        FutureWarning,
    )
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    _warnings.warn(
        "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        FutureWarning,
    )
    return func


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-05, strict=True, _force_outplace=False,
                 _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    return mod


def script_method(fn):
    _warnings.warn(
        "`torch.jit.script_method` is deprecated. Please switch to `torch.compile` or "
        "`torch.export`.",
        FutureWarning,
    )
    return fn


def script_if_tracing(fn):
    return fn


def export(fn):
    return fn


def unused(fn):
    return fn


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop

    def decorator(fn):
        return fn

    return decorator


def interface(obj):
    return obj


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type):
    return _isinstance(obj, target_type)


class Future:
    """What `fork` gives: its function has run already (nothing runs in the
    background here); `wait` gives the result."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def done(self):
        return True

    def value(self):
        return self._value


def fork(func, *args, **kwargs):
    return Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


class ScriptModule(torch.nn.Module):
    pass


class ScriptFunction:
    pass


class RecursiveScriptModule(ScriptModule):
    pass


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    if not _isinstance(mod, ScriptModule):
        raise RuntimeError(
            "Freezing expects a ScriptModule as input. Please use torch.jit.script or "
            "torch.jit.trace to script your 'nn.Module'."
        )
    return mod


def optimize_for_inference(mod, other_methods=None):
    if not _isinstance(mod, ScriptModule):
        raise RuntimeError(
            "optimize_for_inference expects a ScriptModule as input. Please use "
            "torch.jit.script or torch.jit.trace to script your 'nn.Module'."
        )
    return mod


def save(m, f, _extra_files=None):
    raise RuntimeError(
        _OFF + " to save. Save its weights instead: torch.save(model.state_dict(), path)"
    )


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise RuntimeError(
        "cudash has no TorchScript runtime to load a torch.jit archive into: load the "
        "model's state_dict with torch.load into the model's own class instead"
    )


def enable_onednn_fusion(enabled):
    pass


def onednn_fusion_enabled():
    return False


def set_fusion_strategy(strategy):
    return [("STATIC", 2), ("DYNAMIC", 10)]
