"""`torch.distributions.MixtureSameFamily` (a mixture density network's
output: a `Categorical` over k components of one family) and the relaxed
one-hot categorical of Gumbel-softmax VAEs (`ExpRelaxedCategorical`,
`RelaxedOneHotCategorical`), written for cudash op for op as PyTorch
2.15's."""
import torch
import torch.distributions.constraints as constraints
from torch.distributions import Distribution, Categorical, broadcast_all, _clamp_probs
from torch.distributions.transforms import ExpTransform
from torch.distributions._transformed import TransformedDistribution


class MixtureSameFamily(Distribution):
    """A mixture of the components along `component_distribution`'s last
    batch dim, weighted by `mixture_distribution` (a Categorical)."""

    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of torch.distributions.Distribution")
        mdbs = tuple(mixture_distribution.batch_shape)
        cdbs = tuple(component_distribution.batch_shape)[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({torch.Size(mdbs)}) is not compatible with "
                    f"`component_distribution.batch_shape`({torch.Size(cdbs)})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = tuple(component_distribution.event_shape)
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args=validate_args)

    @property
    def arg_constraints(self):
        return {}

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _in_support(self, value):
        valid, support = self.component_distribution._in_support(self._pad(value))
        return valid, f"MixtureSameFamilyConstraint({support})"

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return torch.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = torch.sum(probs * self.component_distribution.variance, dim=-1 - self._event_ndims)
        var_cond_mean = torch.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0),
            dim=-1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    @property
    def stddev(self):
        return self.variance.sqrt()

    def cdf(self, x):
        x = self._pad(x)
        cdf_x = self.component_distribution.cdf(x)
        mix_prob = self.mixture_distribution.probs
        return torch.sum(cdf_x * mix_prob, dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self.component_distribution.log_prob(x)
        log_mix_prob = torch.log_softmax(self.mixture_distribution.logits, dim=-1)
        return torch.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        with torch.no_grad():
            gather_dim = len(sample_shape) + len(self._batch_shape)
            es = self._event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            mix_sample_r = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            mix_sample_r = mix_sample_r.repeat((1,) * len(mix_shape) + (1,) + es)
            samples = torch.gather(comp_samples, gather_dim, mix_sample_r)
            return samples.squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self._batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot categorical draw at `temperature`."""

    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = tuple(self._categorical.batch_shape)
        event_shape = tuple(self._categorical.param_shape)[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def _shown(self):
        return self._categorical._shown()

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def _in_support(self, value):
        return torch.all(value == value, dim=-1), "IndependentConstraint(Real(), 1)"

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        uniforms = _clamp_probs(torch.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = torch.full_like(self.temperature, float(K)).lgamma() - self.temperature.log().mul(-(K - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A one-hot categorical relaxed to the simplex at `temperature` (the
    Concrete / Gumbel-softmax distribution)."""

    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
