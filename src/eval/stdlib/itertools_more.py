"""Python's itertools `accumulate`, `cycle`, `groupby`, `takewhile`,
`dropwhile`, `starmap` and `compress`, written for cudash in Python as
generators (the rest of itertools is cudash's own, `eval/itertools.rs`).
`groupby` reads its items whole before the first group."""


def accumulate(iterable, func=None, initial=None):
    it = iter(iterable)
    total = initial
    if initial is None:
        try:
            total = next(it)
        except StopIteration:
            return
    yield total
    for x in it:
        total = total + x if func is None else func(total, x)
        yield total


def cycle(iterable):
    saved = list(iterable)
    while saved:
        for x in saved:
            yield x


def groupby(iterable, key=None):
    items = list(iterable)
    i = 0
    while i < len(items):
        k = items[i] if key is None else key(items[i])
        group = []
        while i < len(items) and (items[i] if key is None else key(items[i])) == k:
            group.append(items[i])
            i += 1
        yield k, iter(group)


def takewhile(predicate, iterable):
    for x in iterable:
        if not predicate(x):
            return
        yield x


def dropwhile(predicate, iterable):
    dropping = True
    for x in iterable:
        if dropping and predicate(x):
            continue
        dropping = False
        yield x


def starmap(function, iterable):
    for args in iterable:
        yield function(*args)


def compress(data, selectors):
    for d, s in zip(data, selectors):
        if s:
            yield d


def combinations_with_replacement(iterable, r):
    """r-length tuples of the items in sorted order, repeats allowed."""
    pool = tuple(iterable)
    n = len(pool)
    if not n and r:
        return
    indices = [0] * r
    yield tuple(pool[i] for i in indices)
    while True:
        for i in reversed(range(r)):
            if indices[i] != n - 1:
                break
        else:
            return
        indices[i:] = [indices[i] + 1] * (r - i)
        yield tuple(pool[i] for i in indices)
