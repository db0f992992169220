# A mixture density network's Gaussian mixture (MixtureSameFamily over
# Independent Normals and MultivariateNormals) and the Gumbel-softmax
# relaxation (RelaxedOneHotCategorical), as PyTorch 2.15 prints them.
import torch
import torch.nn as nn
from torch.distributions import Categorical, Normal, Independent, MixtureSameFamily, RelaxedOneHotCategorical, MultivariateNormal
torch.manual_seed(0)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()] if isinstance(t, torch.Tensor) else round(t, 4)
# A mixture density network's head: 3 components over 2-D targets, batch of 4.
head = nn.Linear(5, 3 + 3 * 2 * 2)
x = torch.randn(4, 5)
out = head(x)
logits, mu, log_sigma = out[:, :3], out[:, 3:9].reshape(4, 3, 2), out[:, 9:].reshape(4, 3, 2)
mix = Categorical(logits=logits)
comp = Independent(Normal(mu, log_sigma.exp()), 1)
gmm = MixtureSameFamily(mix, comp)
print(gmm)
print(gmm.batch_shape, gmm.event_shape)
y = torch.randn(4, 2)
nll = -gmm.log_prob(y).mean()
print(r(nll))
nll.backward()
print(r(head.weight.grad[:2]), r(head.bias.grad))
s = gmm.sample((3,))
print(s.shape, r(s))
print(r(gmm.mean), r(gmm.variance))
# 1-D mixture of numbers
m1 = MixtureSameFamily(Categorical(torch.tensor([0.3, 0.7])), Normal(torch.tensor([-1.0, 2.0]), torch.tensor([0.5, 1.0])))
print(m1, m1.batch_shape, r(m1.sample((5,))), r(m1.log_prob(torch.tensor([0.0, 2.0]))), r(m1.cdf(torch.tensor([0.0]))), r(m1.mean), r(m1.stddev))
mv = MixtureSameFamily(Categorical(torch.ones(2)), MultivariateNormal(torch.zeros(2, 3), torch.eye(3)))
print(mv.event_shape, r(mv.log_prob(torch.ones(3))))
try:
    MixtureSameFamily(Categorical(torch.ones(3)), Normal(torch.zeros(2), torch.ones(2)))
except ValueError as e:
    print("ValueError", e)
try:
    MixtureSameFamily(Normal(0.0, 1.0), Normal(torch.zeros(2), torch.ones(2)))
except ValueError as e:
    print("ValueError", e)
# Gumbel-softmax
t = torch.tensor(0.5)
logits = torch.tensor([[1.0, 0.0, -1.0], [0.2, 0.2, 0.2]], requires_grad=True)
rc = RelaxedOneHotCategorical(t, logits=logits)
z = rc.rsample()
print(rc, rc.batch_shape, rc.event_shape, r(z), r(z.sum(-1)))
lp = rc.log_prob(z)
print(r(lp))
(z[:, 0].sum() + lp.sum()).backward()
print(r(logits.grad))
rp = RelaxedOneHotCategorical(torch.tensor(2.0), probs=torch.tensor([0.1, 0.6, 0.3]))
print(r(rp.sample((2,))), r(rp.probs), r(rp.logits))
print(r(torch.rand(2)))
