"""Python's `statistics`, as cudash gives it: `mean`, `fmean`, `median`
(`_low`, `_high`), `mode`, `multimode`, `variance`, `stdev`, `pvariance`,
`pstdev`, `geometric_mean`, `harmonic_mean` and `quantiles`, with Python's
results and errors. Integers are summed exactly, as Python's (`mean([1, 2,
3])` is the int 2); floats are summed with `math.fsum` where Python sums
exact fractions, so a float result can differ from Python's in its last
bit."""
import math


class StatisticsError(ValueError):
    pass


def _data(data):
    return list(data)


def _all_ints(xs):
    return all(isinstance(x, int) and not isinstance(x, bool) for x in xs)


def mean(data):
    """The arithmetic mean: an int when the data are ints whose mean is one."""
    xs = _data(data)
    n = len(xs)
    if n < 1:
        raise StatisticsError("mean requires at least one data point")
    if _all_ints(xs):
        total = sum(xs)
        return total // n if total % n == 0 else total / n
    return _exact_mean(xs)


def _two_product(a, b):
    # a * b as p + err exactly (Dekker's product, no fused multiply-add).
    p = a * b
    ca = 134217729.0 * a
    ah = ca - (ca - a)
    al = a - ah
    cb = 134217729.0 * b
    bh = cb - (cb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _exact_mean(xs):
    # The exact sum over n rounded once, as Python's fractions give it: the
    # quotient of the correctly rounded sum, corrected by what is left of
    # the exact sum after n times it.
    n = float(len(xs))
    q = math.fsum(xs) / n
    if q != q or q in (float("inf"), float("-inf")):
        return q
    hi, lo = _two_product(q, n)
    return q + math.fsum(list(xs) + [-hi, -lo]) / n


def fmean(data, weights=None):
    """The mean as a float."""
    xs = _data(data)
    if weights is None:
        if not xs:
            raise StatisticsError("fmean requires at least one data point")
        return math.fsum(xs) / len(xs)
    ws = _data(weights)
    if len(ws) != len(xs):
        raise StatisticsError("data and weights must be the same length")
    total = math.fsum(ws)
    if not total:
        raise StatisticsError("sum of weights must be non-zero")
    return math.fsum(x * w for x, w in zip(xs, ws)) / total


def geometric_mean(data):
    xs = _data(data)
    if not xs:
        raise StatisticsError("geometric_mean requires at least one data point")
    if any(x <= 0 for x in xs):
        raise StatisticsError("geometric mean requires a non-empty dataset containing positive numbers")
    return math.exp(fmean(math.log(x) for x in xs))


def harmonic_mean(data):
    xs = _data(data)
    if not xs:
        raise StatisticsError("harmonic_mean requires at least one data point")
    if any(x < 0 for x in xs):
        raise StatisticsError("harmonic mean does not support negative values")
    if any(x == 0 for x in xs):
        return 0
    return len(xs) / math.fsum(1 / x for x in xs)


def median(data):
    xs = sorted(data)
    n = len(xs)
    if n == 0:
        raise StatisticsError("no median for empty data")
    if n % 2 == 1:
        return xs[n // 2]
    i = n // 2
    return (xs[i - 1] + xs[i]) / 2


def median_low(data):
    xs = sorted(data)
    n = len(xs)
    if n == 0:
        raise StatisticsError("no median for empty data")
    return xs[n // 2] if n % 2 == 1 else xs[n // 2 - 1]


def median_high(data):
    xs = sorted(data)
    if not xs:
        raise StatisticsError("no median for empty data")
    return xs[len(xs) // 2]


def multimode(data):
    counts = {}
    for x in data:
        counts[x] = counts.get(x, 0) + 1
    if not counts:
        return []
    top = max(counts.values())
    return [x for x, c in counts.items() if c == top]


def mode(data):
    modes = multimode(data)
    if not modes:
        raise StatisticsError("no mode for empty data")
    return modes[0]


def _ss(xs, c):
    # The sum of squared deviations from c, exactly for ints; for floats
    # with the rounding of c's mean corrected, as Python's.
    if _all_ints(xs) and isinstance(c, int):
        return sum((x - c) ** 2 for x in xs), True
    if _all_ints(xs):
        n = len(xs)
        total = sum(xs)
        # sum((x - total/n)^2) * n = sum((n x - total)^2) / n, in ints.
        num = sum((n * x - total) ** 2 for x in xs)
        return (num, n * n), True
    d = [x - c for x in xs]
    ss = math.fsum(v * v for v in d)
    ss -= math.fsum(d) ** 2 / len(xs)
    return ss, False


def _var(xs, xbar, ddof, name, at_least):
    n = len(xs)
    if n < at_least:
        raise StatisticsError(
            f"{name} requires at least {'two data points' if at_least == 2 else 'one data point'}"
        )
    c = mean(xs) if xbar is None else xbar
    ss, exact = _ss(xs, c)
    if exact:
        num, den = ss if isinstance(ss, tuple) else (ss, 1)
        den *= n - ddof
        return num // den if num % den == 0 else num / den
    return ss / (n - ddof)


def variance(data, xbar=None):
    return _var(_data(data), xbar, 1, "variance", 2)


def pvariance(data, mu=None):
    return _var(_data(data), mu, 0, "pvariance", 1)


def stdev(data, xbar=None):
    return math.sqrt(variance(data, xbar))


def pstdev(data, mu=None):
    return math.sqrt(pvariance(data, mu))


def quantiles(data, *, n=4, method="exclusive"):
    """Cut points dividing the data into n intervals of equal probability."""
    if n < 1:
        raise StatisticsError("n must be at least 1")
    xs = sorted(data)
    ld = len(xs)
    if ld < 2:
        if ld == 1:
            return xs * (n - 1)
        raise StatisticsError("must have at least one data point")
    if method == "inclusive":
        m = ld - 1
        result = []
        for i in range(1, n):
            j, delta = divmod(i * m, n)
            interpolated = (xs[j] * (n - delta) + xs[j + 1] * delta) / n
            result.append(interpolated)
        return result
    if method == "exclusive":
        m = ld + 1
        result = []
        for i in range(1, n):
            j = i * m // n
            j = 1 if j < 1 else ld - 1 if j > ld - 1 else j
            delta = i * m - j * n
            interpolated = (xs[j - 1] * (n - delta) + xs[j] * delta) / n
            result.append(interpolated)
        return result
    raise ValueError(f"Unknown method: {method!r}")
