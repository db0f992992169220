"""`torch.distributions.TransformedDistribution` and the distributions
PyTorch 2.15 builds from it (`HalfNormal`, `HalfCauchy`, `Gumbel`,
`RelaxedBernoulli`), with `Cauchy` and `LogitRelaxedBernoulli`, written
for cudash op for op as PyTorch's."""
import math
import torch
import torch.distributions.constraints as constraints
from torch.distributions import (
    Distribution,
    Independent,
    Normal,
    Uniform,
    broadcast_all,
    _ProbsOrLogits,
    _clamp_probs,
)
from torch.distributions.transforms import (
    Transform,
    ComposeTransform,
    ExpTransform,
    AffineTransform,
    AbsTransform,
    SigmoidTransform,
    _sum_rightmost,
)

_EULER = 0.57721566490153286060


class TransformedDistribution(Distribution):
    """`base_distribution` pushed through `transforms` in order: samples
    are transformed draws, `log_prob` the base's at the inverse minus the
    log-determinant Jacobians."""

    _params = ()

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {transform.domain.event_dim}, "
                f"but got {torch.Size(base_shape)}.")
        forward_shape = tuple(transform.forward_shape(base_shape))
        expanded = tuple(transform.inverse_shape(forward_shape))
        if base_shape != expanded:
            raise NotImplementedError(
                "cudash's TransformedDistribution does not expand its base distribution "
                f"(from {torch.Size(base_shape)} to {torch.Size(expanded)}): give the base distribution that batch shape")
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    @property
    def arg_constraints(self):
        return dict(self._params)

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    def _in_support(self, value):
        support = self.support
        return support.check(value), repr(support)

    def _shown(self):
        return []

    @property
    def has_rsample(self):
        return getattr(self.base_dist, "has_rsample", True)

    def sample(self, sample_shape=()):
        with torch.no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(
                transform.log_abs_det_jacobian(x, y), event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value


class _Half(TransformedDistribution):
    """|X| of a distribution symmetric about 0 (`base_dist`): twice its
    density on the positive half."""

    _params = (("scale", constraints.positive),)
    support = constraints.nonnegative
    has_rsample = True

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return torch.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = torch.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Half):
    """|X| for X ~ Normal(0, scale)."""

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    @property
    def stddev(self):
        return self.variance.sqrt()


class Cauchy(Distribution):
    """The Cauchy (Lorentz) distribution of median `loc`, half width
    `scale`."""

    _params = (("loc", constraints.real), ("scale", constraints.positive))
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = isinstance(loc, (int, float)) and isinstance(scale, (int, float))
        super().__init__(() if numbers else tuple(self.loc.size()), validate_args=validate_args)

    @property
    def arg_constraints(self):
        return dict(self._params)

    def _in_support(self, value):
        return value == value, "Real()"

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class HalfCauchy(_Half):
    """|X| for X ~ Cauchy(0, scale)."""

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance


class Gumbel(TransformedDistribution):
    """The Gumbel distribution of location `loc` and scale `scale`: a
    uniform draw through -log(-log(u))."""

    def _shown(self):
        return [("loc", self.loc), ("scale", self.scale)]

    _params = (("loc", constraints.real), ("scale", constraints.positive))
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = torch.finfo(self.loc.dtype)
        if isinstance(loc, (int, float)) and isinstance(scale, (int, float)):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(torch.full_like(self.loc, finfo.tiny),
                                torch.full_like(self.loc, 1 - finfo.eps), validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-torch.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return y - y.exp() - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER)


class LogitRelaxedBernoulli(_ProbsOrLogits):
    """The logit of a relaxed Bernoulli draw at `temperature`."""

    support = constraints.real
    _binary = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._neither_made(probs, logits)
        if probs is not None:
            is_scalar = isinstance(probs, (int, float))
            (self._probs,) = broadcast_all(probs)
            self._param = self._probs
            self._params = (("probs", constraints.unit_interval),)
        else:
            is_scalar = isinstance(logits, (int, float))
            (self._logits,) = broadcast_all(logits)
            self._param = self._logits
            self._params = (("logits", constraints.real),)
        super().__init__(() if is_scalar else tuple(self._param.size()), validate_args=validate_args)

    @property
    def arg_constraints(self):
        return dict(self._params)

    def _in_support(self, value):
        return value == value, "Real()"

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = _clamp_probs(self.probs.expand(shape))
        uniforms = _clamp_probs(torch.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A Bernoulli relaxed to (0, 1) at `temperature` (the binary
    Concrete / Gumbel-softmax distribution)."""

    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        self._params = base_dist._params
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
