"""PyTorch's `torch.distributions`, as cudash gives it (written for cudash,
computing as PyTorch 2.15's `distributions/` does, op for op, so the graph
and the numbers are PyTorch's): `Categorical` (a policy's actions in
REINFORCE and actor-critic: `sample`, `log_prob`, `entropy`), `Normal`
(`sample`, `rsample`, `log_prob`, `entropy`), `Bernoulli`, `Uniform`,
`Exponential`, `Laplace`, `LogNormal`, `Geometric`, `OneHotCategorical`,
`Independent` (a continuous policy's diagonal Gaussian),
`MultivariateNormal`, and `kl_divergence` with `register_kl` (a VAE's KL
term). Each draws its samples with the same calls on the same generator
as PyTorch's, so a seeded program samples PyTorch's numbers. Arguments are
checked as PyTorch checks them by default (`validate_args`).

`from torch.distributions import Categorical` reads this module."""
import math
import torch
import torch.nn.functional as F
from torch.distributions.constraints import _positive_definite


def _clamp_probs(probs):
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = _clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def _size(dims):
    return "torch.Size([" + ", ".join(str(d) for d in dims) + "])"


def _numel(dims):
    n = 1
    for d in dims:
        n = n * d
    return n


def broadcast_all(*values):
    """Numbers made tensors (of the first tensor's dtype and device, else
    float32), then all broadcast together."""
    first = None
    for v in values:
        if isinstance(v, torch.Tensor):
            first = v
            break
    tensors = []
    for v in values:
        if isinstance(v, torch.Tensor):
            tensors.append(v)
        elif isinstance(v, (int, float)):
            if first is None:
                tensors.append(torch.tensor(float(v)))
            else:
                tensors.append(torch.tensor(v, dtype=first.dtype, device=first.device))
        else:
            raise ValueError(
                "Input arguments must all be instances of Number, torch.Tensor or objects implementing __torch_function__."
            )
    return torch.broadcast_tensors(*tensors)


class Distribution:
    """What every distribution shares: its batch and event shapes, and the
    checks of its arguments and of the values it scores."""

    _params = ()

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        self._validate_args = True if validate_args is None else validate_args
        if self._validate_args:
            for name, constraint in self._params:
                value = getattr(self, name)
                valid = self._check(constraint, value)
                if not bool(valid.all()):
                    if constraint == "LessThan(upper_bound)":
                        constraint = f"LessThan(upper_bound={_plain(self.high)})"
                    raise ValueError(
                        f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of distribution "
                        f"{repr(self)} to satisfy the constraint {constraint}, but found invalid values:\n{value}"
                    )

    @property
    def batch_shape(self):
        return torch.Size(self._batch_shape)

    @property
    def event_shape(self):
        return torch.Size(self._event_shape)

    def _extended_shape(self, sample_shape=()):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _check(self, constraint, value):
        if not isinstance(constraint, str):
            return constraint.check(value)
        if constraint == "Simplex()":
            return torch.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)
        if constraint == "IndependentConstraint(Real(), 1)":
            return torch.all(value == value, dim=-1)
        if constraint == "Real()":
            return value == value
        if constraint == "GreaterThan(lower_bound=0.0)":
            return value > 0
        if constraint == "Interval(lower_bound=0.0, upper_bound=1.0)":
            return (value >= 0) & (value <= 1)
        if constraint == "LessThan(upper_bound)":
            return value < self.high
        if constraint == "PositiveDefinite()":
            return _positive_definite(value)
        if constraint == "LowerCholesky()":
            lower = (value.tril() == value).reshape(value.shape[:-2] + (-1,)).min(-1).values
            diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1).values
            return lower & diagonal
        return value == value

    def _validate_sample(self, value):
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        actual = tuple(value.shape)
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {_size(actual)} vs {_size(expected)}."
                )
        valid, support = self._in_support(value)
        if not bool(valid.all()):
            raise ValueError(
                f"Expected value argument (Tensor of shape {actual}) to be within the support ({support}) "
                f"of the distribution {repr(self)}, but found invalid values:\n{value}"
            )

    def _shown(self):
        """The parameters made so far, in PyTorch's order."""
        return [(name, getattr(self, name)) for name, _ in self._params]

    def __repr__(self):
        parts = []
        for name, value in self._shown():
            shown = value if value.numel() == 1 else value.size()
            parts.append(f"{name}: {shown}")
        return type(self).__name__ + "(" + ", ".join(parts) + ")"


class _ProbsOrLogits(Distribution):
    """A distribution given by `probs` or by `logits`: the other made from
    it when first read, and kept (PyTorch's `lazy_property`)."""

    _binary = False

    def _neither_made(self, probs, logits):
        """PyTorch's check that exactly one of the two is given."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self._probs = None
        self._logits = None

    @property
    def probs(self):
        if self._probs is None:
            self._probs = logits_to_probs(self._logits, is_binary=self._binary)
        return self._probs

    @property
    def logits(self):
        if self._logits is None:
            self._logits = probs_to_logits(self._probs, is_binary=self._binary)
        return self._logits

    def _shown(self):
        made = [("probs", self._probs), ("logits", self._logits)]
        return [(name, value) for name, value in made if value is not None]


class Categorical(_ProbsOrLogits):
    """Categories 0..K-1 with the odds `probs` (normalized to sum to 1
    along the last dim) or the log-odds `logits` (normalized by their
    logsumexp); the first dims a batch of such rows."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._neither_made(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self._probs = probs / probs.sum(-1, keepdim=True)
            self._params = (("probs", "Simplex()"),)
            self._param = self._probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self._logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._params = (("logits", "IndependentConstraint(Real(), 1)"),)
            self._param = self._logits
        self._num_events = self._param.size()[-1]
        batch_shape = tuple(self._param.size()[:-1]) if self._param.ndimension() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def _in_support(self, value):
        upper = self._num_events - 1
        valid = (value % 1 == 0) & (0 <= value) & (value <= upper)
        return valid, f"IntegerInterval(lower_bound=0, upper_bound={upper})"

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = torch.multinomial(probs_2d, _numel(sample_shape), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = torch.finfo(self.logits.dtype).min
        logits = torch.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        values = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values


class Normal(Distribution):
    """The normal distribution of mean `loc` and standard deviation
    `scale` (numbers or tensors, broadcast together)."""

    _params = (("loc", "Real()"), ("scale", "GreaterThan(lower_bound=0.0)"))

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = tuple(self.loc.size())
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def _in_support(self, value):
        return value == value, "Real()"

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)


class _Binary(_ProbsOrLogits):
    """A distribution of one probability `probs` (or `sigmoid(logits)`) per
    element: Bernoulli's and Geometric's parameters and their checks."""

    _binary = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._neither_made(probs, logits)
        if probs is not None:
            (self._probs,) = broadcast_all(probs)
            self._params = (("probs", "Interval(lower_bound=0.0, upper_bound=1.0)"),)
            self._param = self._probs
        else:
            (self._logits,) = broadcast_all(logits)
            self._params = (("logits", "Real()"),)
            self._param = self._logits
        super().__init__(tuple(self._param.size()), validate_args=validate_args)


class Bernoulli(_Binary):
    """1 with probability `probs` (or `sigmoid(logits)`), else 0."""

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def _in_support(self, value):
        return (value == 0) | (value == 1), "Boolean()"

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


# ---- more distributions ----------------------------------------------------


def _plain(t):
    # A tensor as PyTorch's constraint reprs show a bound: a number when it
    # holds one, else the tensor.
    return t.item() if t.numel() == 1 else t


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


class Uniform(Distribution):
    """Uniform on [low, high)."""

    _params = (("low", "LessThan(upper_bound)"),)

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(tuple(self.low.size()), validate_args=validate_args)

    def _shown(self):
        return [("low", self.low), ("high", self.high)]

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def _in_support(self, value):
        valid = (self.low <= value) & (value < self.high)
        return valid, f"Interval(lower_bound={_plain(self.low)}, upper_bound={_plain(self.high)})"

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rand = torch.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return torch.log(lb.mul(ub)) - torch.log(self.high - self.low)

    def cdf(self, value):
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return torch.log(self.high - self.low)


class Exponential(Distribution):
    """The exponential distribution of rate `rate` (mean 1 / rate)."""

    _params = (("rate", "GreaterThan(lower_bound=0.0)"),)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.size()), validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def _in_support(self, value):
        return value >= 0, "GreaterThanEq(lower_bound=0.0)"

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return torch.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value):
        return -torch.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - torch.log(self.rate)


class Laplace(Distribution):
    """The Laplace distribution of location `loc` and scale `scale`."""

    _params = (("loc", "Real()"), ("scale", "GreaterThan(lower_bound=0.0)"))

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(tuple(self.loc.size()), validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def _in_support(self, value):
        return value == value, "Real()"

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        finfo = torch.finfo(self.loc.dtype)
        u = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(finfo.eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * torch.expm1(-(value - self.loc).abs() / self.scale)

    def entropy(self):
        return 1 + torch.log(2 * self.scale)


class LogNormal(Distribution):
    """exp of a normal variable of mean `loc` and standard deviation
    `scale` (PyTorch's `TransformedDistribution` of a `Normal` by exp)."""

    _params = (("loc", "Real()"), ("scale", "GreaterThan(lower_bound=0.0)"))

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(tuple(self.base_dist.batch_shape), validate_args=validate_args)

    def _shown(self):
        return []

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def _in_support(self, value):
        return value > 0, "GreaterThan(lower_bound=0.0)"

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.base_dist.sample(sample_shape).exp()

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        x = value.log()
        return 0.0 - x + self.base_dist.log_prob(x)

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class Geometric(_Binary):
    """The number of failures before the first success of trials that
    succeed with probability `probs` (or `sigmoid(logits)`)."""

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def _in_support(self, value):
        return (value % 1 == 0) & (value >= 0), "IntegerGreaterThan(lower_bound=0)"

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = torch.empty(shape, dtype=self.probs.dtype, device=self.probs.device).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class OneHotCategorical(Distribution):
    """A `Categorical`'s draws as one-hot vectors (the event: the last dim)."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        batch_shape = tuple(self._categorical.batch_shape)
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def _shown(self):
        return []

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        m = probs.argmax(dim=-1)
        return F.one_hot(m, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def _in_support(self, value):
        ok = ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)
        return ok, "OneHot()"

    def sample(self, sample_shape=()):
        probs = self._categorical.probs
        num_events = self._categorical._num_events
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, num_events).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        return self._categorical.entropy()


class Independent(Distribution):
    """`base_distribution` with its last `reinterpreted_batch_ndims` batch
    dims read as event dims: `log_prob` sums over them (a diagonal
    Gaussian over an action vector)."""

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        cut = len(shape) - event_dim
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:cut], shape[cut:], validate_args=False)
        self._validate_args = base_distribution._validate_args if validate_args is None else validate_args

    def _shown(self):
        return []

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"

    def _in_support(self, value):
        valid, support = self.base_dist._in_support(value)
        n = self.reinterpreted_batch_ndims
        return valid, (f"IndependentConstraint({support}, {n})" if n else support)

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    @property
    def stddev(self):
        return self.base_dist.stddev

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)


def _batch_mv(bmat, bvec):
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    # x^T (L L^T)^-1 x for each x: the squared norm of L^-1 x.
    n = bx.shape[-1]
    batch = tuple(torch.broadcast_shapes(bL.shape[:-2], bx.shape[:-1]))
    L = bL.expand(batch + (n, n))
    x = bx.expand(batch + (n,))
    sol = torch.linalg.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return sol.pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """The normal distribution over vectors of mean `loc` and covariance
    `covariance_matrix` (or `precision_matrix`, or the covariance's lower
    Cholesky factor `scale_tril`)."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        matrix = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None][0]
        name = ["covariance_matrix", "precision_matrix", "scale_tril"][given.index(True)]
        if matrix.dim() < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = tuple(torch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        self._given = name
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = tuple(self.loc.shape[-1:])
        self._params = (("loc", "IndependentConstraint(Real(), 1)"),
                        (name, "LowerCholesky()" if name == "scale_tril" else "PositiveDefinite()"))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = scale_tril
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            flipped = torch.flip(precision_matrix, (-2, -1))
            Lf = torch.linalg.cholesky(flipped)
            L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
            eye = torch.eye(L_inv.shape[-1], dtype=L_inv.dtype, device=L_inv.device)
            self._unbroadcasted_scale_tril = torch.linalg.solve_triangular(L_inv, eye, upper=False)

    def _shown(self):
        return [("loc", self.loc), (self._given, getattr(self, self._given))]

    def __getattr__(self, name):
        shape = self._batch_shape + self._event_shape + self._event_shape
        L = self.__dict__["_unbroadcasted_scale_tril"]
        if name == "scale_tril":
            return L.expand(shape)
        if name == "covariance_matrix":
            return torch.matmul(L, L.mT).expand(shape)
        if name == "precision_matrix":
            return torch.linalg.inv(torch.matmul(L, L.mT)).expand(shape)
        raise AttributeError(f"'MultivariateNormal' object has no attribute '{name}'")

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def _in_support(self, value):
        return torch.all(value == value, dim=-1), "IndependentConstraint(Real(), 1)"

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)


# ---- KL divergence ---------------------------------------------------------

_KL_REGISTRY = []


def register_kl(type_p, type_q):
    """A decorator: `fn(p, q)` computes KL(p || q) for these two types."""

    def decorator(fn):
        _KL_REGISTRY.append((type_p, type_q, fn))
        return fn

    return decorator


def _kl_rule(p, q):
    # The rule for the most derived pair of types that p and q are, as
    # PyTorch's dispatch picks it.
    found = [(tp, tq, fn) for tp, tq, fn in _KL_REGISTRY if isinstance(p, tp) and isinstance(q, tq)]
    for tp, tq, fn in found:
        if all(issubclass(tp, op) and issubclass(tq, oq) for op, oq, _ in found):
            return fn
    return found[0][2] if found else None


def kl_divergence(p, q):
    """KL(p || q), by the rule registered for their types."""
    fn = _kl_rule(p, q)
    if fn is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}")
    return fn(p, q)


def _infinite_like(t):
    return torch.full_like(t, math.inf)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * torch.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed")
    half_term1 = (q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    combined = tuple(torch.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                            p._unbroadcasted_scale_tril.shape[:-2]))
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(combined + (n, n))
    p_scale_tril = p._unbroadcasted_scale_tril.expand(combined + (n, n))
    term2 = torch.linalg.solve_triangular(q_scale_tril, p_scale_tril, upper=False).pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    return half_term1 + 0.5 * (term2 + term3 - n)


from torch.distributions._gamma_family import (
    Gamma, Chi2, Beta, Dirichlet, StudentT, Poisson, Binomial,
)
from torch.distributions._transformed import (
    TransformedDistribution, HalfNormal, HalfCauchy, Cauchy, Gumbel,
    LogitRelaxedBernoulli, RelaxedBernoulli,
)
from torch.distributions._mixture import (
    MixtureSameFamily, ExpRelaxedCategorical, RelaxedOneHotCategorical,
)
import torch.distributions.transforms as transforms
import torch.distributions.constraints as constraints
