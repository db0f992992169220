"""Python's `operator` as PyTorch programs use it: `itemgetter` and
`attrgetter` as sort keys (`sorted(counts.items(), key=itemgetter(1))`),
`methodcaller`, and the operators as functions (`reduce(operator.mul,
shape)`). Written for cudash in Python."""


_builtin_abs = abs


class itemgetter:
    """`itemgetter(1)(x)` is `x[1]`; of several items, their tuple."""

    def __init__(self, item, *items):
        self._items = (item,) + items

    def __call__(self, obj):
        if len(self._items) == 1:
            return obj[self._items[0]]
        return tuple(obj[i] for i in self._items)

    def __repr__(self):
        return "operator.itemgetter(" + ", ".join(repr(i) for i in self._items) + ")"


def _resolve(obj, dotted):
    for name in dotted.split("."):
        obj = getattr(obj, name)
    return obj


class attrgetter:
    """`attrgetter("a.b")(x)` is `x.a.b`; of several names, their tuple."""

    def __init__(self, attr, *attrs):
        for a in (attr,) + attrs:
            if not isinstance(a, str):
                raise TypeError("attribute name must be a string")
        self._attrs = (attr,) + attrs

    def __call__(self, obj):
        if len(self._attrs) == 1:
            return _resolve(obj, self._attrs[0])
        return tuple(_resolve(obj, a) for a in self._attrs)

    def __repr__(self):
        return "operator.attrgetter(" + ", ".join(repr(a) for a in self._attrs) + ")"


class methodcaller:
    """`methodcaller("strip", "-")(s)` is `s.strip("-")`."""

    def __init__(self, name, *args, **kwargs):
        if not isinstance(name, str):
            raise TypeError("method name must be a string")
        self._name = name
        self._args = args
        self._kwargs = kwargs

    def __call__(self, obj):
        return getattr(obj, self._name)(*self._args, **self._kwargs)


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def truediv(a, b):
    return a / b


def floordiv(a, b):
    return a // b


def mod(a, b):
    return a % b


def pow(a, b):
    return a**b


def matmul(a, b):
    return a @ b


def neg(a):
    return -a


def abs(a):
    return _builtin_abs(a)


def eq(a, b):
    return a == b


def ne(a, b):
    return a != b


def lt(a, b):
    return a < b


def le(a, b):
    return a <= b


def gt(a, b):
    return a > b


def ge(a, b):
    return a >= b


def and_(a, b):
    return a & b


def or_(a, b):
    return a | b


def xor(a, b):
    return a ^ b


def not_(a):
    return not a


def truth(a):
    return bool(a)


def is_(a, b):
    return a is b


def is_not(a, b):
    return a is not b


def concat(a, b):
    return a + b


def contains(a, b):
    return b in a


def getitem(a, b):
    return a[b]


def countOf(a, b):
    return sum(1 for x in a if x is b or x == b)


def indexOf(a, b):
    for i, x in enumerate(a):
        if x is b or x == b:
            return i
    raise ValueError("sequence.index(x): x not in sequence")


def index(a):
    return a.__index__() if hasattr(a, "__index__") else int(a)


def iadd(a, b):
    a += b
    return a


def imul(a, b):
    a *= b
    return a
