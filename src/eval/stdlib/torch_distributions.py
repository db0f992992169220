"""PyTorch's `torch.distributions`, as cudash gives it (written for cudash,
computing as PyTorch 2.15's `distributions/` does, op for op, so the graph
and the numbers are PyTorch's): `Categorical` (a policy's actions in
REINFORCE and actor-critic: `sample`, `log_prob`, `entropy`), `Normal`
(`sample`, `rsample`, `log_prob`, `entropy`) and `Bernoulli`. Arguments are
checked as PyTorch checks them by default (`validate_args`).

`from torch.distributions import Categorical` reads this module."""
import math
import torch
import torch.nn.functional as F


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

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)


class Bernoulli(_ProbsOrLogits):
    """1 with probability `probs` (or `sigmoid(logits)`), else 0."""

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
