"""Python's `multiprocessing` as a PyTorch program uses it (and
`torch.multiprocessing`, which re-exports it): `Process` with `start`,
`join`, `is_alive`, `exitcode`, `pid`, a subclass's own `run`;
`set_start_method`, `get_start_method`, `current_process`,
`active_children`, `cpu_count`;
the objects processes share (`Queue`, `SimpleQueue`, `Lock`, `RLock`,
`Event`, `Value`) and `Pool`'s `map`, `starmap`, `apply` and their
`_async` forms.

A process runs in an interpreter and a runtime of their own
(`src/eval/processes.rs`): copies of the program's variables, and its
target and arguments as its own copies whose tensors share the program's
memory, as torch.multiprocessing's pickling moves them to shared memory.
Its lines come out when the program joins one of its processes."""
import os
import queue as _queue
import _cudash

_start_method = [None]
_methods = ["fork", "spawn", "forkserver"]
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
        number = _cudash.process_number()
        self._target = target
        self._args = tuple(args)
        self._kwargs = dict(kwargs) if kwargs is not None else {}
        self._name = name if name is not None else f"Process-{number}"
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
        pickled = get_start_method() != "fork"
        self._handle, self._pid = _cudash.process_start(*call, self._name, pickled)
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


class _Current:
    """What `current_process()` gives: the running process's name and id."""

    def __init__(self, name):
        self.name = name
        self.daemon = False
        self.pid = os.getpid()
        self.ident = self.pid

    def __repr__(self):
        if self.name == "MainProcess":
            return "<_MainProcess name='MainProcess' parent=None started>"
        return f"<{self.name.split('-')[0]} name={self.name!r} parent=? started>"


def current_process():
    return _Current(_cudash.process_name() or "MainProcess")


def parent_process():
    return None


def active_children():
    return [p for p in _children if p.is_alive()]


class Queue:
    """A queue processes share: what one puts (its own copy, tensors in
    shared memory) another gets, in order."""

    def __init__(self, maxsize=0):
        self._id = _cudash.mp_make("Queue", maxsize)

    def put(self, obj, block=True, timeout=None):
        if not _cudash.mp_call(self._id, "put", block, timeout, obj):
            raise _queue.Full()

    def put_nowait(self, obj):
        self.put(obj, False)

    def get(self, block=True, timeout=None):
        got = _cudash.mp_call(self._id, "get", block, timeout)
        if not got:
            raise _queue.Empty()
        return got[0]

    def get_nowait(self):
        return self.get(False)

    def qsize(self):
        return _cudash.mp_call(self._id, "qsize")

    def empty(self):
        return self.qsize() == 0

    def full(self):
        return False

    def close(self):
        pass

    def join_thread(self):
        pass

    def cancel_join_thread(self):
        pass


class SimpleQueue(Queue):
    def __init__(self):
        super().__init__()


class JoinableQueue(Queue):
    def task_done(self):
        pass

    def join(self):
        pass


class Lock:
    _kind = "Lock"

    def __init__(self):
        self._id = _cudash.mp_make(self._kind, None)

    def acquire(self, block=True, timeout=None):
        return _cudash.mp_call(self._id, "acquire", block, timeout)

    def release(self):
        _cudash.mp_call(self._id, "release")

    def __enter__(self):
        self.acquire()
        return True

    def __exit__(self, *exc):
        self.release()
        return False


class RLock(Lock):
    _kind = "RLock"


class Event:
    def __init__(self):
        self._id = _cudash.mp_make("Event", None)

    def set(self):
        _cudash.mp_call(self._id, "set")

    def clear(self):
        _cudash.mp_call(self._id, "clear")

    def is_set(self):
        return _cudash.mp_call(self._id, "is_set")

    def wait(self, timeout=None):
        return _cudash.mp_call(self._id, "wait", True, timeout)


_INT_CODES = "bBhHiIlLqQ"
_FLOAT_CODES = "fd"


class Value:
    """A number processes share: `v.value`, and `v.get_lock()` to change
    it in steps no other process comes between."""

    def __init__(self, typecode_or_type, *args, lock=True):
        code = typecode_or_type
        if code not in _INT_CODES and code not in _FLOAT_CODES and code != "c":
            raise TypeError(f"unsupported typecode {code!r}: cudash's Value holds a number")
        self._code = code
        self._id = _cudash.mp_make("Value", self._convert(args[0] if args else 0))
        self._lock = lock if isinstance(lock, (Lock, RLock)) else RLock()

    def _convert(self, x):
        if self._code in _INT_CODES:
            return int(x)
        if self._code in _FLOAT_CODES:
            return float(x)
        return x

    @property
    def value(self):
        return _cudash.mp_call(self._id, "value")

    @value.setter
    def value(self, x):
        _cudash.mp_call(self._id, "set_value", True, None, self._convert(x))

    def get_lock(self):
        return self._lock

    def get_obj(self):
        return self.value

    def __repr__(self):
        return f"<Synchronized wrapper for c_{'int' if self._code in _INT_CODES else 'double'}({self.value})>"


def _pool_worker(func, jobs, results, initializer, initargs, star):
    if initializer is not None:
        initializer(*initargs)
    for i, item in jobs:
        try:
            r = func(*item) if star else func(item)
            results.put((i, True, r))
        except Exception as e:
            results.put((i, False, e))


class AsyncResult:
    def __init__(self, value, ok):
        self._value = value
        self._ok = ok

    def get(self, timeout=None):
        if not self._ok:
            raise self._value
        return self._value

    def wait(self, timeout=None):
        pass

    def ready(self):
        return True

    def successful(self):
        return self._ok


class Pool:
    """Worker processes for `map` and `apply`: each call deals its items out
    to `processes` processes (started for the call, with `initializer`
    run in each first) and gives back the results in order."""

    def __init__(self, processes=None, initializer=None, initargs=(), maxtasksperchild=None):
        if processes is not None and processes < 1:
            raise ValueError("Number of processes must be at least 1")
        self._n = processes or cpu_count()
        self._init = initializer
        self._initargs = tuple(initargs)
        self._open = True

    def _run(self, func, items, star):
        if not self._open:
            raise ValueError("Pool not running")
        items = list(items)
        n = min(self._n, len(items))
        results = Queue()
        workers = []
        for w in range(n):
            jobs = [(i, items[i]) for i in range(w, len(items), n)]
            p = Process(target=_pool_worker,
                        args=(func, jobs, results, self._init, self._initargs, star))
            p.start()
            workers.append(p)
        got = [results.get() for _ in items]
        for p in workers:
            p.join()
        got.sort(key=lambda r: r[0])
        for _, ok, value in got:
            if not ok:
                raise value
        return [value for _, _, value in got]

    def map(self, func, iterable, chunksize=None):
        return self._run(func, iterable, False)

    def starmap(self, func, iterable, chunksize=None):
        return self._run(func, iterable, True)

    def imap(self, func, iterable, chunksize=1):
        return iter(self._run(func, iterable, False))

    def imap_unordered(self, func, iterable, chunksize=1):
        return iter(self._run(func, iterable, False))

    def apply(self, func, args=(), kwds={}):
        return self._run(lambda a: func(*a[0], **a[1]), [(tuple(args), dict(kwds))], False)[0]

    def _async(self, call):
        try:
            return AsyncResult(call(), True)
        except Exception as e:
            return AsyncResult(e, False)

    def map_async(self, func, iterable, chunksize=None, callback=None, error_callback=None):
        r = self._async(lambda: self.map(func, iterable))
        if r.successful() and callback is not None:
            callback(r.get())
        if not r.successful() and error_callback is not None:
            error_callback(r._value)
        return r

    def starmap_async(self, func, iterable, chunksize=None, callback=None, error_callback=None):
        r = self._async(lambda: self.starmap(func, iterable))
        if r.successful() and callback is not None:
            callback(r.get())
        return r

    def apply_async(self, func, args=(), kwds={}, callback=None, error_callback=None):
        r = self._async(lambda: self.apply(func, args, kwds))
        if r.successful() and callback is not None:
            callback(r.get())
        if not r.successful() and error_callback is not None:
            error_callback(r._value)
        return r

    def close(self):
        self._open = False

    def terminate(self):
        self._open = False

    def join(self):
        if self._open:
            raise ValueError("Pool is still running")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.terminate()
        return False


# torch.multiprocessing's strategies for sharing CPU tensors between
# processes (a file descriptor each, or a file in /dev/shm): every process
# here is a thread of one program, so the choice is only remembered.
_sharing = ["file_descriptor"]


def get_all_sharing_strategies():
    return {"file_descriptor", "file_system"}


def get_sharing_strategy():
    return _sharing[0]


def set_sharing_strategy(new_strategy):
    assert new_strategy in get_all_sharing_strategies()
    _sharing[0] = new_strategy


class _Context:
    """What `get_context(method)` gives: this module's processes and shared
    objects, under one start method (all start alike here)."""

    def __init__(self, method):
        self._method = method
        self.Process = Process
        self.Queue = Queue
        self.SimpleQueue = SimpleQueue
        self.Lock = Lock
        self.RLock = RLock
        self.Event = Event
        self.Value = Value
        self.Pool = Pool

    def get_start_method(self, allow_none=False):
        return self._method

    def cpu_count(self):
        return cpu_count()

    def __repr__(self):
        return f"<multiprocessing.context.{self._method.capitalize()}Context object>"


def get_context(method=None):
    if method is None:
        method = get_start_method()
    if method not in _methods:
        raise ValueError(f"cannot find context for {method!r}")
    return _Context(method)
