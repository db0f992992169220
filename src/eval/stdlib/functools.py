"""Python's functools as PyTorch programs use it: `partial` (a collate_fn
with its settings bound), `reduce`, `wraps` over a decorator's wrapper,
`lru_cache`/`cache` on a function of strings and numbers; `wraps`
gives the wrapper the wrapped function's `__name__` and `__doc__`;
`cached_property`, `total_ordering`, `cmp_to_key`. Written for cudash in
Python; `singledispatch` is not here."""
import _cudash


class partial:
    """`partial(f, *args, **keywords)`: f with those arguments given first."""

    def __init__(self, func, *args, **keywords):
        if not callable(func):
            raise TypeError("the first argument must be callable")
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args, **keywords):
        given = dict(self.keywords)
        given.update(keywords)
        return self.func(*self.args, *args, **given)

    def __repr__(self):
        parts = [repr(self.func)] + [repr(a) for a in self.args]
        parts += [k + "=" + repr(v) for k, v in self.keywords.items()]
        return "functools.partial(" + ", ".join(parts) + ")"


def reduce(function, iterable, *initial):
    """`reduce(f, [a, b, c])` is `f(f(a, b), c)`; an initial value goes first."""
    if len(initial) > 1:
        raise TypeError("reduce expected at most 3 arguments, got " + str(2 + len(initial)))
    it = iter(iterable)
    if initial:
        value = initial[0]
    else:
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value")
    for x in it:
        value = function(value, x)
    return value


WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")
WRAPPER_UPDATES = ("__dict__",)


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """The wrapper given the wrapped function's name, qualified name and
    docstring (those it has), and `__wrapped__`, as Python's."""
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            pass
        else:
            setattr(wrapper, attr, value)
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """`@wraps(f)` over a decorator's wrapper: `update_wrapper(wrapper, f)`."""

    def decorator(wrapper):
        return update_wrapper(wrapper, wrapped, assigned, updated)

    return decorator


def cached_property(func):
    """`@cached_property` over a method: read as an attribute, computed the
    first time and then kept on the instance under the method's name."""
    return _cudash.cached_property(func)


def total_ordering(cls):
    """A class defining `__eq__` and one of `__lt__`, `__le__`, `__gt__`,
    `__ge__` given the other three, as Python's."""
    ops = {
        "__lt__": [("__gt__", lambda self, other: not (self < other) and self != other),
                   ("__le__", lambda self, other: self < other or self == other),
                   ("__ge__", lambda self, other: not (self < other))],
        "__le__": [("__ge__", lambda self, other: not (self <= other) or self == other),
                   ("__lt__", lambda self, other: self <= other and not self == other),
                   ("__gt__", lambda self, other: not (self <= other))],
        "__gt__": [("__lt__", lambda self, other: not (self > other) and self != other),
                   ("__ge__", lambda self, other: self > other or self == other),
                   ("__le__", lambda self, other: not (self > other))],
        "__ge__": [("__le__", lambda self, other: not (self >= other) or self == other),
                   ("__gt__", lambda self, other: self >= other and not self == other),
                   ("__lt__", lambda self, other: not (self >= other))],
    }
    roots = [op for op in ops if getattr(cls, op, None) is not None]
    if not roots:
        raise ValueError("must define at least one ordering operation: < > <= >=")
    root = max(roots)
    for name, method in ops[root]:
        if name not in roots:
            setattr(cls, name, method)
    return cls


def cmp_to_key(mycmp):
    """A key for `sorted` from an old-style comparison function."""

    class K:
        def __init__(self, obj):
            self.obj = obj

        def __lt__(self, other):
            return mycmp(self.obj, other.obj) < 0

        def __gt__(self, other):
            return mycmp(self.obj, other.obj) > 0

        def __eq__(self, other):
            return mycmp(self.obj, other.obj) == 0

        def __le__(self, other):
            return mycmp(self.obj, other.obj) <= 0

        def __ge__(self, other):
            return mycmp(self.obj, other.obj) >= 0

    return K


class _CacheInfo:
    def __init__(self, hits, misses, maxsize, currsize):
        self.hits = hits
        self.misses = misses
        self.maxsize = maxsize
        self.currsize = currsize

    def __repr__(self):
        return "CacheInfo(hits=%d, misses=%d, maxsize=%s, currsize=%d)" % (
            self.hits, self.misses, self.maxsize, self.currsize)


class _Cached:
    """A function whose results are kept by its arguments (their repr: the
    arguments are strings, numbers and tuples of them), the oldest used
    dropped past `maxsize`."""

    def __init__(self, func, maxsize):
        self.__wrapped__ = func
        self.maxsize = maxsize
        self._cache = {}
        self._order = []
        self._hits = 0
        self._misses = 0

    def __call__(self, *args, **keywords):
        key = repr(args) + repr(sorted(keywords.items()))
        if key in self._cache:
            self._hits += 1
            if self.maxsize is not None:
                self._order.remove(key)
                self._order.append(key)
            return self._cache[key]
        self._misses += 1
        value = self.__wrapped__(*args, **keywords)
        if self.maxsize is None or self.maxsize > 0:
            self._cache[key] = value
            self._order.append(key)
            if self.maxsize is not None and len(self._order) > self.maxsize:
                del self._cache[self._order.pop(0)]
        return value

    def cache_info(self):
        return _CacheInfo(self._hits, self._misses, self.maxsize, len(self._cache))

    def cache_clear(self):
        self._cache = {}
        self._order = []
        self._hits = 0
        self._misses = 0


def lru_cache(maxsize=128, typed=False):
    """`@lru_cache` or `@lru_cache(maxsize=None)` over a function."""
    if callable(maxsize):
        return _Cached(maxsize, 128)

    def decorator(func):
        return _Cached(func, maxsize)

    return decorator


def cache(func):
    """`@cache`: `lru_cache(maxsize=None)`."""
    return _Cached(func, None)


class _SingleDispatch:
    """A function that picks its implementation by its first argument's
    class: the one registered for the nearest class it is an instance of
    (a class derived from another before it), else the function itself."""

    def __init__(self, func):
        self.__wrapped__ = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._default = func
        self._classes = []
        self._funcs = []

    def register(self, cls, func=None):
        """`@f.register(int)` over a `def`, or `f.register(int, g)`."""
        if func is None:
            if not isinstance(cls, type):
                raise TypeError(
                    f"Invalid first argument to `register()`: {cls!r}. Use "
                    "`@register(some_class)`: cudash reads no annotations")

            def decorator(g):
                return self.register(cls, g)

            return decorator
        self._classes.append(cls)
        self._funcs.append(func)
        return func

    def _nearest(self, takes):
        """The implementation of the nearest registered class `takes`."""
        best = None
        for k, c in enumerate(self._classes):
            if takes(c) and (best is None or issubclass(c, self._classes[best])):
                best = k
        if best is None:
            return self._default
        return self._funcs[best]

    def dispatch(self, cls):
        """The implementation for an instance of `cls`."""
        return self._nearest(lambda c: issubclass(cls, c))

    def __call__(self, *args, **keywords):
        if not args:
            raise TypeError(f"{self.__name__} requires at least 1 positional argument")
        first = args[0]
        return self._nearest(lambda c: isinstance(first, c))(*args, **keywords)


def singledispatch(func):
    """`@singledispatch` over a function: `@f.register(cls)` adds the
    implementation for instances of `cls`."""
    return _SingleDispatch(func)
