# torch.distributions' Gamma family, counts and transformed distributions,
# as Bayesian programs, PPO with Beta policies, SAC's tanh-squashed
# Gaussian and Gumbel-softmax VAEs use them: seeded samples (PyTorch's CPU
# rejection samplers), log_prob, entropy, moments, reparameterized
# gradients, KL divergences, transforms and their Jacobians, constraints
# and PyTorch's argument checks.
import math
import torch
from torch.distributions import Gamma, Chi2, Beta, Dirichlet, StudentT, Poisson, Binomial, kl_divergence
from torch.distributions import constraints
import torch.nn.functional as F
from torch.distributions import Normal, Uniform, TransformedDistribution, HalfNormal, HalfCauchy, Cauchy, Gumbel, RelaxedBernoulli, Independent
from torch.distributions.transforms import TanhTransform, AffineTransform, ExpTransform, SigmoidTransform, ComposeTransform, PowerTransform, SoftmaxTransform, AbsTransform
torch.manual_seed(0)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()] if isinstance(t, torch.Tensor) else round(t, 4)
g = Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 3.0]))
print(g, g.batch_shape, g.event_shape, g.support, g.arg_constraints)
print(r(g.sample((3,))), r(g.log_prob(torch.tensor([1.0, 0.2]))), r(g.entropy()), r(g.mean), r(g.mode), r(g.variance))
print(Gamma(2.0, 1.0), Gamma(2.0, 1.0).batch_shape, r(Gamma(2.0, 1.0).sample()))
c = Chi2(torch.tensor([3.0]))
print(c, r(c.df), r(c.sample((2,))), r(c.log_prob(torch.tensor([1.5]))))
b = Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 0.5]))
print(b, b.batch_shape, r(b.sample((3,))), r(b.log_prob(torch.tensor([0.3, 0.9]))), r(b.entropy()), r(b.mean), r(b.variance), r(b.mode))
print(r(Beta(2.0, 5.0).sample((4,))), Beta(2.0, 5.0).batch_shape)
d = Dirichlet(torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]))
print(d, d.batch_shape, d.event_shape, r(d.sample()), r(d.log_prob(torch.tensor([0.2, 0.3, 0.5]))), r(d.entropy()), r(d.mean), r(d.mode), r(d.variance))
t = StudentT(torch.tensor([1.0, 3.0, 5.0]))
print(t, r(t.sample((2,))), r(t.log_prob(torch.tensor([0.0, 1.0, -2.0]))), r(t.entropy()), r(t.mean), r(t.variance))
p = Poisson(torch.tensor([0.5, 4.0, 30.0]))
print(p, r(p.sample((3,))), r(p.log_prob(torch.tensor([0.0, 3.0, 28.0]))), r(p.mean), r(p.mode))
bi = Binomial(10, torch.tensor([0.2, 0.7]))
print(bi, r(bi.sample((3,))), r(bi.log_prob(torch.tensor([2.0, 7.0]))), r(bi.entropy()), r(bi.mean), r(bi.variance), r(bi.mode))
print(bi, bi.support)
bl = Binomial(total_count=torch.tensor([5.0, 20.0]), logits=torch.tensor([0.0, -1.0]))
print(bl, r(bl.probs), r(bl.sample()))
print(r(kl_divergence(g, Gamma(torch.tensor([1.0, 1.0]), torch.tensor([2.0, 2.0])))))
print(r(kl_divergence(b, Beta(torch.tensor([1.0, 1.0]), torch.tensor([1.0, 1.0])))))
print(r(kl_divergence(d, Dirichlet(torch.ones(3)))))
print(r(kl_divergence(p, Poisson(torch.tensor([1.0, 1.0, 1.0])))))
print(r(kl_divergence(bi, Binomial(10, torch.tensor([0.5, 0.5])))))
# rsample gradients
conc = torch.tensor([2.0, 0.7], requires_grad=True)
rate = torch.tensor([1.5, 2.0], requires_grad=True)
x = Gamma(conc, rate).rsample((4,))
print(r(x))
x.sum().backward()
print(r(conc.grad), r(rate.grad))
a = torch.tensor([2.0, 3.0], requires_grad=True)
bb = torch.tensor([4.0, 1.5], requires_grad=True)
y = Beta(a, bb).rsample((3,))
print(r(y), y.grad_fn.name() if hasattr(y.grad_fn, "name") else "")
(y * torch.arange(6.0).reshape(3, 2)).sum().backward()
print(r(a.grad), r(bb.grad))
cc = torch.tensor([1.0, 2.0, 7.0, 9.0], requires_grad=True)
z = Dirichlet(cc).rsample((2,))
print(r(z))
(z[:, 0] * 3 + z[:, 2]).sum().backward()
print(r(cc.grad))
df = torch.tensor([4.0], requires_grad=True)
s = StudentT(df, 1.0, 2.0).rsample((3,))
s.sum().backward()
print(r(s), r(df.grad))
for bad in [lambda: Gamma(torch.tensor([-1.0]), 1.0), lambda: Beta(0.0, 1.0), lambda: g.log_prob(torch.tensor([-1.0, 1.0])), lambda: Poisson(torch.tensor([-1.0])), lambda: bi.log_prob(torch.tensor([11.0, 1.0])), lambda: Dirichlet(torch.tensor(1.0))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", str(e).split("\n")[0])
print(constraints.positive, constraints.unit_interval, constraints.simplex, constraints.real_vector, constraints.integer_interval(0, 5), constraints.nonnegative_integer)
print(constraints.positive.check(torch.tensor([1.0, -1.0, 0.0])).tolist(), constraints.simplex.check(torch.tensor([[0.5, 0.5], [0.2, 0.2]])).tolist())
# SAC's squashed Gaussian policy
mu = torch.tensor([[0.1, -0.3], [0.5, 2.0]], requires_grad=True)
log_std = torch.tensor([[-0.5, 0.0], [0.2, -1.0]], requires_grad=True)
base = Normal(mu, log_std.exp())
pi = TransformedDistribution(base, [TanhTransform(cache_size=1)])
print(pi.batch_shape, pi.event_shape, pi.support, pi.has_rsample)
a = pi.rsample()
lp = pi.log_prob(a)
print(r(a), r(lp))
(lp.sum() + a.sum()).backward()
print(r(mu.grad), r(log_std.grad))
pi2 = TransformedDistribution(Independent(Normal(mu.detach(), 1.0), 1), [TanhTransform(cache_size=1), AffineTransform(loc=1.0, scale=2.0)])
x = pi2.sample((3,))
print(pi2.batch_shape, pi2.event_shape, r(x), r(pi2.log_prob(x)))
# LogNormal by hand and its cdf
ln = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
print(r(ln.sample((3,))), r(ln.log_prob(torch.tensor([0.5, 1.0, 2.0]))), r(ln.cdf(torch.tensor([0.5, 1.0, 2.0]))), r(ln.icdf(torch.tensor([0.1, 0.5]))))
t = ComposeTransform([AffineTransform(0.0, 2.0), SigmoidTransform()])
print(t)
y = t(torch.tensor([0.3, -1.0]))
print(r(y), r(t.inv(y)), r(t.log_abs_det_jacobian(torch.tensor([0.3, -1.0]), y)), t.inv, t.sign, t.bijective)
print(ExpTransform().inv, ExpTransform().inv.inv, TanhTransform().domain, TanhTransform().codomain, SoftmaxTransform().codomain)
p = PowerTransform(2.0)
print(r(p(torch.tensor([1.5]))), r(p.inv(torch.tensor([4.0]))), r(p.log_abs_det_jacobian(torch.tensor([1.5]), torch.tensor([2.25]))))
print(r(SoftmaxTransform()(torch.tensor([1.0, 2.0, 3.0]))))
hn = HalfNormal(torch.tensor([1.0, 2.0]))
print(hn, r(hn.sample((2,))), r(hn.log_prob(torch.tensor([0.5, 1.0]))), r(hn.mean), r(hn.variance), r(hn.entropy()), r(hn.cdf(torch.tensor([0.5, 1.0]))), r(hn.icdf(torch.tensor([0.5, 0.9]))))
hc = HalfCauchy(torch.tensor([1.0]))
print(hc, r(hc.sample((3,))), r(hc.log_prob(torch.tensor([0.5]))), r(hc.entropy()), r(hc.cdf(torch.tensor([1.0]))))
c = Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(c, r(c.sample((2,))), r(c.log_prob(torch.tensor([0.5, 1.0]))), r(c.entropy()), r(c.cdf(torch.tensor([0.0, 2.0]))), r(c.icdf(torch.tensor([0.75, 0.25]))), r(c.mean), r(c.variance))
g = Gumbel(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(g, r(g.sample((3,))), r(g.log_prob(torch.tensor([0.5, 1.0]))), r(g.mean), r(g.stddev), r(g.entropy()))
print(r(Gumbel(0.0, 1.0).sample((4,))), Gumbel(0.0, 1.0).batch_shape)
temp = torch.tensor(0.5)
rb = RelaxedBernoulli(temp, probs=torch.tensor([0.1, 0.5, 0.9]))
s = rb.rsample((2,))
print(rb, r(s), r(rb.log_prob(torch.tensor([0.2, 0.5, 0.7]))), r(rb.logits))
rl = RelaxedBernoulli(temp, logits=torch.tensor([0.0, 2.0]))
print(r(rl.sample()), r(rl.probs))
try:
    HalfNormal(torch.tensor([-1.0]))
except ValueError as e:
    print("ValueError", str(e).split("\n")[0])
try:
    hn.log_prob(torch.tensor([-0.5, 0.5]))
except ValueError as e:
    print("ValueError", str(e).split("\n")[0])
try:
    TransformedDistribution(Normal(0.0, 1.0), "tanh")
except ValueError as e:
    print("ValueError", e)
print(r(torch.rand(2)))
x = torch.tensor([-0.9, -0.3, 0.0, 0.5, 0.99])
r6 = lambda t: [round(v, 6) for v in t.tolist()]
print(r6(torch.atanh(x)), r6(torch.asinh(torch.tensor([-3.0, -1e-4, 0.0, 0.5, 20.0]))), r6(torch.acosh(torch.tensor([1.0, 1.5, 10.0]))), r6(x.atanh()))
print(r6(torch.atanh(x.double())))
