"""`torch.special` (and `torch.lgamma`, `torch.digamma`, `torch.polygamma`,
`torch.mvlgamma`, `torch.erfc`, `torch.sinc`, `torch.xlog1py`): written for
cudash with tensor ops. The functions of the gamma family and `erfc` are
computed in float64 and rounded once to the input's dtype (`lgamma` by
Lanczos's series with the reflection formula below 1/2, `digamma` and
`polygamma` by the recurrence up to large arguments and their asymptotic
series, `erfc` beyond 1 by its continued fraction), so their values agree
with PyTorch's to an ulp or two; each differentiable one is a custom
Function with PyTorch's derivative (`LgammaBackward` where PyTorch's node
is `LgammaBackward0`). The others are their compositions of cudash's ops:
`expit` is `sigmoid`, `ndtr` is from `erfc`, `entr`, `sinc`, `xlogy`,
`xlog1py`, `logit`, `erf`, `erfinv`, `log1p`, `expm1`, `exp2`, `round`,
`softmax`, `log_softmax`, `logsumexp`."""
import math
import torch

_LANCZOS = (
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
)


def _primal(x):
    # x without its forward-mode tangent (a jvp's coefficient is the
    # primal's function, not another dual computation).
    import torch.autograd.forward_ad as fwAD

    return fwAD.unpack_dual(x).primal


def _float(x):
    if not isinstance(x, torch.Tensor):
        x = torch.tensor(x)
    return x if x.is_floating_point() else x.to(torch.get_default_dtype())


def _in64(fn, x):
    # fn over x in float64, rounded once to x's dtype, without the graph.
    with torch.no_grad():
        return fn(x.detach().double()).to(x.dtype)


def _lgamma64(x):
    pole = (x <= 0) & (x == x.floor())
    small = x < 0.5
    z = torch.where(small, 1 - x, x) - 1
    a = torch.full_like(z, _LANCZOS[0])
    for i in range(1, 9):
        a = a + _LANCZOS[i] / (z + i)
    t = z + 7.5
    big = 0.5 * math.log(2 * math.pi) + (z + 0.5) * t.log() - t + a.log()
    reflected = math.log(math.pi) - (math.pi * x).sin().abs().log() - big
    result = torch.where(small, reflected, big)
    # Gamma(1) = Gamma(2) = 1: exactly 0, as C's lgamma gives.
    result = torch.where((x == 1) | (x == 2), torch.zeros_like(x), result)
    return torch.where(pole, torch.full_like(x, math.inf), result)


def _digamma64(x):
    zero = x == 0
    pole = (x < 0) & (x == x.floor())
    small = x < 0.5
    y = torch.where(small, 1 - x, x)
    result = torch.zeros_like(y)
    for _ in range(10):
        low = y < 10
        result = result - torch.where(low, 1 / y, torch.zeros_like(y))
        y = torch.where(low, y + 1, y)
    y2 = 1 / (y * y)
    series = y2 * (1 / 12 - y2 * (1 / 120 - y2 * (1 / 252 - y2 * (1 / 240 - y2 * (1 / 132)))))
    result = result + y.log() - 0.5 / y - series
    result = torch.where(small, result - math.pi / (math.pi * x).tan(), result)
    result = torch.where(zero, torch.full_like(x, -math.inf), result)
    return torch.where(pole, torch.full_like(x, math.nan), result)


# B_2j / (2j)!, for the Euler-Maclaurin tail of the Hurwitz zeta function.
_BERNOULLI = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000)


def _zeta64(s, x):
    # The Hurwitz zeta function sum_k (x + k)^-s, for x not a pole: the
    # first terms summed (more where x is negative), then the tail.
    shift = (-x).clamp(min=0).ceil()
    n_max = int(shift.max()) + 10 if shift.numel() else 10
    total = torch.zeros_like(x)
    for k in range(n_max):
        take = k < shift + 10
        term = (x + k).pow(-s)
        total = total + torch.where(take, term, torch.zeros_like(x))
    a = x + shift + 10
    total = total + a.pow(1 - s) / (s - 1) + 0.5 * a.pow(-s)
    factor = s * a.pow(-s - 1)
    for j, b in enumerate(_BERNOULLI):
        total = total + b * factor
        factor = factor * (s + 2 * j + 1) * (s + 2 * j + 2) / (a * a)
    return total


def _polygamma64(n, x):
    if n == 0:
        return _digamma64(x)
    pole = (x <= 0) & (x == x.floor())
    value = ((-1) ** (n + 1)) * math.factorial(n) * _zeta64(n + 1.0, x)
    return torch.where(pole, torch.full_like(x, math.inf if n % 2 == 1 else math.nan), value)


def _erfc_fraction(a):
    # 1 / (a + 1/2 / (a + 1 / (a + 3/2 / ...))), for a >= 2.
    frac = torch.zeros_like(a)
    for k in range(60, 0, -1):
        frac = (k / 2) / (a + frac)
    return 1 / (a + frac)


def _erfc64(x):
    # erfc: 1 - erf where that keeps its digits (|x| < 2); beyond, the
    # continued fraction exp(-x^2) / sqrt(pi) / (x + 1/2 / (x + ...)).
    a = x.abs().clamp(min=2)
    tail = (-a * a).exp() / math.sqrt(math.pi) * _erfc_fraction(a)
    tail = torch.where(x < 0, 2 - tail, tail)
    return torch.where(x.abs() < 2, 1 - torch.erf(x), tail)


def _erfcx64(x):
    # exp(x^2) erfc(x): the continued fraction alone for x >= 2 (no
    # overflow), else from erfc.
    a = x.clamp(min=2)
    tail = _erfc_fraction(a) / math.sqrt(math.pi)
    return torch.where(x >= 2, tail, (x * x).exp() * _erfc64(x))


class Lgamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.x = x
        return _in64(_lgamma64, x)

    @staticmethod
    def jvp(ctx, t):
        return t * digamma(_primal(ctx.x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * digamma(x)


class Digamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.x = x
        return _in64(_digamma64, x)

    @staticmethod
    def jvp(ctx, t):
        return t * polygamma(1, _primal(ctx.x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * polygamma(1, x)


class Polygamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, n, x):
        ctx.save_for_backward(x)
        ctx.n = n
        ctx.x = x
        return _in64(lambda t: _polygamma64(n, t), x)

    @staticmethod
    def jvp(ctx, _n, t):
        return t * polygamma(ctx.n + 1, _primal(ctx.x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return None, grad * polygamma(ctx.n + 1, x)


class Erfc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.x = x
        return _in64(_erfc64, x)

    @staticmethod
    def jvp(ctx, t):
        x = _primal(ctx.x)
        return t * (-2 / math.sqrt(math.pi)) * (-x * x).exp()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (-2 / math.sqrt(math.pi)) * (-x * x).exp()


def _apply(fn, x):
    # Through the Function always: it records a node only when x requires
    # grad, and carries a tangent (its `jvp`) when x has one.
    return fn.apply(_float(x))


def lgamma(input, *, out=None):
    """log |Gamma(x)|."""
    result = _apply(Lgamma, input)
    return result if out is None else out.copy_(result)


def digamma(input, *, out=None):
    """The logarithmic derivative of Gamma, psi(x) (-inf at 0, NaN at the
    negative integers)."""
    result = _apply(Digamma, input)
    return result if out is None else out.copy_(result)


def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _float(input)
    result = Polygamma.apply(n, x)
    return result if out is None else out.copy_(result)


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma of dimension p."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _float(input)
    if bool((x <= (p - 1) / 2).any()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2")
    args = torch.arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device)
    result = lgamma(x.unsqueeze(-1) + args).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)
    return result if out is None else out.copy_(result)


def erfc(input, *, out=None):
    """1 - erf(x), keeping its digits where erf(x) is near 1."""
    result = _apply(Erfc, input)
    return result if out is None else out.copy_(result)


def erfcx(input, *, out=None):
    """exp(x^2) * erfc(x), without overflow for large x (no gradient)."""
    x = _float(input)
    result = _in64(_erfcx64, x)
    return result if out is None else out.copy_(result)


def ndtr(input, *, out=None):
    """The standard normal's cumulative distribution function."""
    x = _float(input)
    result = 0.5 * erfc(-x / math.sqrt(2))
    return result if out is None else out.copy_(result)


def log_ndtr(input, *, out=None):
    """log of `ndtr`."""
    return ndtr(input).log() if out is None else out.copy_(ndtr(input).log())


def ndtri(input, *, out=None):
    """The inverse of `ndtr`."""
    x = _float(input)
    result = math.sqrt(2) * torch.erfinv(2 * x - 1)
    return result if out is None else out.copy_(result)


def entr(input, *, out=None):
    """-x log x (0 at 0, -inf below 0)."""
    x = _float(input)
    result = torch.where(x > 0, -x * x.log(), torch.where(x == 0, torch.zeros_like(x), torch.full_like(x, -math.inf)))
    result = torch.where(x.isnan(), x, result)
    return result if out is None else out.copy_(result)


def sinc(input, *, out=None):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _float(input)
    px = math.pi * x
    safe = torch.where(x == 0, torch.ones_like(x), px)
    result = torch.where(x == 0, torch.ones_like(x), safe.sin() / safe)
    return result if out is None else out.copy_(result)


def xlog1py(input, other, *, out=None):
    """x * log1p(y), 0 where x is 0 (NaN where y is NaN)."""
    x, y = _float(input), _float(other)
    product = x * y.log1p()
    result = torch.where((x == 0) & y.isnan().logical_not(), torch.zeros_like(product), product)
    return result if out is None else out.copy_(result)


def expit(input, *, out=None):
    """The logistic sigmoid."""
    result = torch.sigmoid(input)
    return result if out is None else out.copy_(result)


def gammaln(input, *, out=None):
    """`lgamma`'s SciPy name."""
    return lgamma(input, out=out)


def psi(input, *, out=None):
    """`digamma`'s other name."""
    return digamma(input, out=out)


def multigammaln(input, p, *, out=None):
    """`mvlgamma`'s SciPy name."""
    return mvlgamma(input, p, out=out)


def erf(input, *, out=None):
    return torch.erf(input) if out is None else out.copy_(torch.erf(input))


def erfinv(input, *, out=None):
    return torch.erfinv(input) if out is None else out.copy_(torch.erfinv(input))


def log1p(input, *, out=None):
    return torch.log1p(input) if out is None else out.copy_(torch.log1p(input))


def expm1(input, *, out=None):
    return torch.expm1(input) if out is None else out.copy_(torch.expm1(input))


def exp2(input, *, out=None):
    return torch.exp2(input) if out is None else out.copy_(torch.exp2(input))


def round(input, *, decimals=0, out=None):
    result = torch.round(input, decimals=decimals)
    return result if out is None else out.copy_(result)


def logit(input, eps=None, *, out=None):
    result = torch.logit(input, eps)
    return result if out is None else out.copy_(result)


def xlogy(input, other, *, out=None):
    result = torch.xlogy(input, other)
    return result if out is None else out.copy_(result)


def softmax(input, dim, *, dtype=None):
    return torch.softmax(input, dim, dtype=dtype) if dtype is not None else torch.softmax(input, dim)


def log_softmax(input, dim, *, dtype=None):
    return torch.log_softmax(input, dim, dtype=dtype) if dtype is not None else torch.log_softmax(input, dim)


def logsumexp(input, dim, keepdim=False, *, out=None):
    result = torch.logsumexp(input, dim, keepdim=keepdim)
    return result if out is None else out.copy_(result)
