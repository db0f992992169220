"""Python's `bisect`: where an item goes in a sorted list (`bisect_left`,
`bisect_right`, `bisect`) and putting it there (`insort_left`,
`insort_right`, `insort`), with `lo`, `hi` and `key` as Python 3.10's.
Written for cudash in Python."""


def _bounds(a, lo, hi):
    if lo < 0:
        raise ValueError("lo must be non-negative")
    if hi is None:
        hi = len(a)
    return lo, hi


def bisect_left(a, x, lo=0, hi=None, *, key=None):
    """The first place `x` can go keeping `a` sorted (before equal items)."""
    lo, hi = _bounds(a, lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        item = a[mid] if key is None else key(a[mid])
        if item < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def bisect_right(a, x, lo=0, hi=None, *, key=None):
    """The last place `x` can go keeping `a` sorted (after equal items)."""
    lo, hi = _bounds(a, lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        item = a[mid] if key is None else key(a[mid])
        if x < item:
            hi = mid
        else:
            lo = mid + 1
    return lo


bisect = bisect_right


def insort_left(a, x, lo=0, hi=None, *, key=None):
    k = x if key is None else key(x)
    a.insert(bisect_left(a, k, lo, hi, key=key), x)


def insort_right(a, x, lo=0, hi=None, *, key=None):
    k = x if key is None else key(x)
    a.insert(bisect_right(a, k, lo, hi, key=key), x)


insort = insort_right
