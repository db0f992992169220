"""`torch.distributions.kl`: `kl_divergence` and `register_kl`, which
`torch.distributions` itself gives too."""
from torch.distributions import kl_divergence, register_kl
