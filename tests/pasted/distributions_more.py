# torch.distributions beyond Normal, Categorical and Bernoulli, as
# reinforcement-learning programs (continuous actions: Independent
# Normals, MultivariateNormal) and VAEs (kl_divergence) use them:
# samples from a seeded generator, log_prob, entropy, moments, KL
# divergences, and PyTorch's argument checks.
import math
import torch
import torch.distributions as D
from torch.distributions import Uniform, Exponential, Laplace, LogNormal, Geometric, OneHotCategorical, Independent, MultivariateNormal, Normal, Categorical, Bernoulli
from torch.distributions.kl import kl_divergence, register_kl

torch.manual_seed(0)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()] if isinstance(t, torch.Tensor) else round(t, 4)

u = Uniform(torch.tensor([0.0, -1.0]), torch.tensor([1.0, 3.0]))
print(u, u.batch_shape, u.event_shape)
s = u.sample((3,))
print(r(s), s.shape)
print(r(u.log_prob(torch.tensor([0.5, 2.0]))), r(u.entropy()), r(u.mean), r(u.variance), r(u.stddev))
print(r(u.cdf(torch.tensor([0.25, 0.0]))), r(u.icdf(torch.tensor([0.5, 0.5]))))
print(Uniform(0.0, 2.0).rsample((2,)).shape, Uniform(0.0, 2.0))
try:
    Uniform(1.0, 0.0)
except ValueError as e:
    print("ValueError", e)
try:
    u.log_prob(torch.tensor([2.0, 0.0]))
except ValueError as e:
    print("ValueError", str(e).split(":")[0])

ex = Exponential(torch.tensor([0.5, 2.0]))
print(ex, r(ex.sample((2,))), r(ex.log_prob(torch.tensor([1.0, 1.0]))), r(ex.entropy()), r(ex.mean), r(ex.variance), r(ex.cdf(torch.tensor([1.0, 1.0]))))
l = Laplace(torch.tensor(0.5), torch.tensor(2.0))
print(l, r(l.sample((3,))), r(l.log_prob(torch.tensor(1.0))), r(l.entropy()), r(l.variance), r(l.stddev))
ln = LogNormal(torch.tensor(0.0), torch.tensor(0.5))
print(r(ln.sample((3,))), r(ln.log_prob(torch.tensor(1.5))), r(ln.entropy()), r(ln.mean), r(ln.variance))
g = Geometric(torch.tensor([0.3, 0.9]))
print(g, r(g.sample((4,))), r(g.log_prob(torch.tensor([2.0, 0.0]))), r(g.entropy()), r(g.mean), r(g.variance))
print(r(Geometric(logits=torch.tensor(0.2)).probs))

oh = OneHotCategorical(probs=torch.tensor([0.2, 0.5, 0.3]))
print(oh.batch_shape, oh.event_shape)
x = oh.sample((4,))
print(x.tolist(), r(oh.log_prob(x)), r(oh.entropy()), r(oh.mean))

# A continuous policy: a diagonal Gaussian over 3 action dims.
mu = torch.zeros(2, 3, requires_grad=True)
log_std = torch.full((3,), -0.5, requires_grad=True)
pi = Independent(Normal(mu, log_std.exp()), 1)
print(pi, pi.batch_shape, pi.event_shape)
a = pi.sample()
logp = pi.log_prob(a)
print(r(a), r(logp), logp.shape, r(pi.entropy()))
(-logp.sum()).backward()
print(r(mu.grad), r(log_std.grad))

m = MultivariateNormal(torch.tensor([1.0, -1.0]), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print(m, m.batch_shape, m.event_shape)
print(r(m.scale_tril), r(m.covariance_matrix), r(m.precision_matrix))
z = m.sample((3,))
print(r(z), r(m.log_prob(z)), r(m.entropy()), r(m.mean), r(m.variance))
m2 = MultivariateNormal(torch.zeros(2, 2), scale_tril=torch.tensor([[1.0, 0.0], [0.3, 0.8]]))
print(m2.batch_shape, r(m2.rsample()), r(m2.log_prob(torch.tensor([0.5, -0.5]))))
m3 = MultivariateNormal(torch.zeros(2), precision_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print(r(m3.covariance_matrix), r(m3.log_prob(torch.tensor([0.2, 0.1]))))
try:
    MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
except ValueError as e:
    print("ValueError", str(e).split(" of distribution")[0])
print(r(torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 3.0]]))))
print(r(torch.linalg.solve_triangular(torch.tensor([[2.0, 0.0], [1.0, 4.0]]), torch.tensor([[2.0], [9.0]]), upper=False)))

# KL divergences.
p, q = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), Normal(torch.tensor(1.0), torch.tensor(1.5))
print(r(kl_divergence(p, q)), r(D.kl_divergence(q, p)), r(D.kl.kl_divergence(p, p)))
c1, c2 = Categorical(logits=torch.tensor([1.0, 0.0, -1.0])), Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
print(r(kl_divergence(c1, c2)), r(kl_divergence(Bernoulli(0.3), Bernoulli(0.6))), r(kl_divergence(Exponential(2.0), Exponential(0.5))))
print(r(kl_divergence(Independent(p, 1), Independent(Normal(torch.zeros(2), torch.ones(2)), 1))))
print(r(kl_divergence(m, MultivariateNormal(torch.zeros(2), torch.eye(2)))), r(kl_divergence(Uniform(0.0, 1.0), Uniform(-1.0, 2.0))))
print(r(kl_divergence(OneHotCategorical(probs=torch.tensor([0.2, 0.8])), OneHotCategorical(probs=torch.tensor([0.5, 0.5])))))
try:
    kl_divergence(c1, p)
except NotImplementedError as err:
    print("NotImplementedError", err)

class Half(D.Distribution):
    pass

@register_kl(Half, Half)
def _kl_half(p, q):
    return torch.tensor(42.0)

print(kl_divergence(Half(validate_args=False), Half(validate_args=False)))

# A VAE's KL term, against its closed form.
mu, logvar = torch.randn(4, 2), torch.randn(4, 2)
post = Normal(mu, (0.5 * logvar).exp())
kl = kl_divergence(post, Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum(1)
closed = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1)
print(r(kl), torch.allclose(kl, closed, atol=1e-6))

# The factorizations MultivariateNormal uses: values, errors, gradients.
A = torch.tensor([[4.0, 2.0, 0.4], [2.0, 3.0, 0.5], [0.4, 0.5, 2.0]])
L = torch.linalg.cholesky(A)
print(r(L), torch.allclose(L @ L.mT, A), r(torch.linalg.cholesky(A, upper=True)))
for bad in [torch.tensor([[1.0, 2.0], [2.0, 1.0]]), torch.stack([torch.eye(2), -torch.eye(2)])]:
    try:
        torch.linalg.cholesky(bad)
    except RuntimeError as err:
        print("RuntimeError", err)
b = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
print(r(torch.linalg.solve_triangular(L, b, upper=False)), r(torch.linalg.solve_triangular(L.mT, b, upper=True)))
print(r(torch.linalg.solve_triangular(L, b.mT, upper=False, left=False)), r(torch.linalg.solve_triangular(L, b, upper=False, unitriangular=True)))
d64 = lambda *s: torch.randn(*s, dtype=torch.float64, requires_grad=True)
spd = lambda x: x @ x.mT + 3 * torch.eye(3, dtype=torch.float64)
print(torch.autograd.gradcheck(lambda x: torch.linalg.cholesky(spd(x)), (d64(3, 3),)))
print(torch.autograd.gradcheck(lambda a, y: torch.linalg.solve_triangular(a.tril() + 3 * torch.eye(3, dtype=torch.float64), y, upper=False), (d64(3, 3), d64(3, 2))))
print(torch.autograd.gradcheck(lambda x: MultivariateNormal(torch.zeros(3, dtype=torch.float64), covariance_matrix=spd(x)).log_prob(torch.ones(3, dtype=torch.float64)), (d64(3, 3),)))
