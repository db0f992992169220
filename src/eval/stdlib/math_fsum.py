# math.fsum: the sum of floats with one rounding, as CPython's (Shewchuk's
# exact partials, then the round-half-even correction).


def fsum(iterable):
    """The float nearest the exact sum of the values."""
    partials = []
    special = 0.0
    inf_sum = 0.0
    for x in iterable:
        x = float(x)
        if x != x or x in (float("inf"), float("-inf")):
            if x != x:
                special = x
            else:
                inf_sum += x
            continue
        i = 0
        for y in list(partials):
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        partials[i:] = [x]
    if special != 0.0 or inf_sum != 0.0:
        if inf_sum != inf_sum:
            raise ValueError("-inf + inf in fsum")
        return special if special != 0.0 else inf_sum
    n = len(partials)
    if n == 0:
        return 0.0
    n -= 1
    hi = partials[n]
    lo = 0.0
    while n > 0:
        x = hi
        n -= 1
        y = partials[n]
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        if y == x - hi:
            hi = x
    return hi
