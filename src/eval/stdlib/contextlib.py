"""Python's contextlib as PyTorch programs use it: `nullcontext()` in place
of autocast on the CPU (nanoGPT's `ctx`), `@contextmanager` generators
(a timer, a seed, a temporary eval mode), `suppress(...)` and `closing`.
Written for cudash on its generators' `throw` and `close`."""


class nullcontext:
    """A context that does nothing; `with nullcontext(x) as y` binds x."""

    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        return False


def _same(exc, value):
    # The error the block raised, come back out of the generator.
    return exc is value or (type(exc) is type(value) and str(exc) == str(value))


class _GeneratorContextManager:
    def __init__(self, func, args, kwds):
        self.gen = func(*args, **kwds)

    def __enter__(self):
        try:
            return next(self.gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield")

    def __exit__(self, typ, value, traceback):
        if typ is None:
            try:
                next(self.gen)
            except StopIteration:
                return False
            raise RuntimeError("generator didn't stop")
        if value is None:
            value = typ()
        try:
            self.gen.throw(value)
        except StopIteration:
            # The generator caught the error and ended: it is swallowed.
            return True
        except BaseException as exc:
            if _same(exc, value):
                return False
            raise
        raise RuntimeError("generator didn't stop after throw()")

    def __call__(self, func):
        # Used as a decorator: each call of `func` runs inside the context.
        manager = self

        def inner(*args, **kwds):
            with manager:
                return func(*args, **kwds)

        return inner


def contextmanager(func):
    """`@contextmanager` over a generator that yields once: the code before
    the yield runs on entering, the code after it on leaving (an error of
    the block raised at the yield)."""

    def helper(*args, **kwds):
        return _GeneratorContextManager(func, args, kwds)

    return helper


class suppress:
    """`with suppress(FileNotFoundError):`: those errors end the block quietly."""

    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        return None

    def __exit__(self, typ, value, traceback):
        if typ is None:
            return False
        for e in self._exceptions:
            if isinstance(value, e):
                return True
        return False


class closing:
    """`with closing(thing) as t:` calls `thing.close()` on leaving."""

    def __init__(self, thing):
        self.thing = thing

    def __enter__(self):
        return self.thing

    def __exit__(self, *excinfo):
        self.thing.close()
        return False
