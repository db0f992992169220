"""Python's `multiprocessing` as a PyTorch program uses it (and
`torch.multiprocessing`, which re-exports it): `Process` with `start`,
`join`, `is_alive`, `exitcode`, `pid`, a subclass's own `run`;
`set_start_method`, `get_start_method`, `active_children`, `cpu_count`.

A process runs in an interpreter and a runtime of their own
(`src/eval/processes.rs`): copies of the program's variables, and its
target and arguments as its own copies whose tensors share the program's
memory, as torch.multiprocessing's pickling moves them to shared memory.
Its lines come out when the program joins one of its processes."""
import os
import _cudash

_start_method = [None]
_methods = ["fork", "spawn", "forkserver"]
_count = [0]
_children = []


def get_all_start_methods():
    return list(_methods)


def set_start_method(method, force=False):
    if _start_method[0] is not None and not force:
        raise RuntimeError("context has already been set")
    if method is not None and method not in _methods:
        raise ValueError(f"cannot find context for {method!r}")
    _start_method[0] = method


def get_start_method(allow_none=False):
    if _start_method[0] is None and not allow_none:
        # Python 3.14's default on Linux.
        _start_method[0] = "forkserver"
    return _start_method[0]


def cpu_count():
    return os.cpu_count()


class Process:
    """One process: `target(*args, **kwargs)`, or a subclass's `run()`."""

    def __init__(self, group=None, target=None, name=None, args=(), kwargs=None, *, daemon=None):
        if group is not None:
            raise AssertionError("group argument must be None for now")
        _count[0] += 1
        self._target = target
        self._args = tuple(args)
        self._kwargs = dict(kwargs) if kwargs is not None else {}
        self._name = name if name is not None else f"Process-{_count[0]}"
        self._daemon = bool(daemon) if daemon is not None else False
        self._handle = None
        self._pid = None
        self._exitcode = None
        self._closed = False
        self._parent_pid = os.getpid()

    def run(self):
        if self._target is not None:
            self._target(*self._args, **self._kwargs)

    def start(self):
        self._check_closed()
        if self._handle is not None:
            raise AssertionError("cannot start a process twice")
        if type(self).run is Process.run:
            # What the child unpickles: the target and its arguments.
            call = (self._target or (lambda: None), self._args, self._kwargs)
        else:
            call = (self.run, (), {})
        self._handle, self._pid = _cudash.process_start(*call, self._name)
        _children.append(self)

    def join(self, timeout=None):
        self._check_closed()
        if self._handle is None:
            raise AssertionError("can only join a started process")
        code = _cudash.process_join(self._handle, timeout)
        if code is not None:
            self._exitcode = code
            if self in _children:
                _children.remove(self)

    def is_alive(self):
        self._check_closed()
        if self._handle is None or self._exitcode is not None:
            return False
        return _cudash.process_alive(self._handle)

    def terminate(self):
        raise NotImplementedError(
            "cudash's processes are threads of one program and cannot be stopped from "
            "outside; let the target return (or press Ctrl-C)"
        )

    def kill(self):
        self.terminate()

    def close(self):
        if self._handle is not None and self._exitcode is None and self.is_alive():
            raise ValueError(
                "Cannot close a process while it is still running. You should first "
                "call join() or terminate()."
            )
        self._closed = True

    def _check_closed(self):
        if self._closed:
            raise ValueError("process object is closed")

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def daemon(self):
        return self._daemon

    @daemon.setter
    def daemon(self, value):
        if self._handle is not None:
            raise AssertionError("process has already started")
        self._daemon = bool(value)

    @property
    def pid(self):
        return self._pid

    @property
    def ident(self):
        return self._pid

    @property
    def exitcode(self):
        if self._handle is not None and self._exitcode is None:
            self.join(0)
        return self._exitcode

    def __repr__(self):
        exitcode = None
        if self._closed:
            status = "closed"
        elif self._handle is None:
            status = "initial"
        else:
            exitcode = self.exitcode
            status = "stopped" if exitcode is not None else "started"
        info = [type(self).__name__, f"name={self._name!r}"]
        if self._pid is not None:
            info.append(f"pid={self._pid}")
        info.append(f"parent={self._parent_pid}")
        info.append(status)
        if exitcode is not None:
            info.append(f"exitcode={exitcode}")
        if self._daemon:
            info.append("daemon")
        return "<" + " ".join(info) + ">"


def parent_process():
    return None


def active_children():
    return [p for p in _children if p.is_alive()]
