"""PyTorch's rejection samplers, as cudash gives them: `torch._standard_gamma`
(with its reparameterized gradient, `torch._standard_gamma_grad`),
`torch._sample_dirichlet` (and `torch._dirichlet_grad`, the gradient
`Dirichlet.rsample` and `Beta.rsample` use), `torch.poisson` and
`torch.binomial`.

A CPU tensor's draws are PyTorch's: its kernels' algorithms on its CPU
generator, element after element (`_cudash.cpu_sample`). A GPU tensor's
are drawn with device ops from cudash's Philox generator, without a host
read, as PyTorch's GPU kernels draw without one (their numbers come from
curand and differ): each element gets a fixed number of proposals at once
and keeps the first one accepted (Marsaglia and Tsang's gamma accepts
more than 95% of its proposals, so all 16 fail with a chance below
1e-20; the Poisson and binomial samplers draw their 64 waiting times or
proposals likewise).

The gradients are PyTorch's approximations (Jankowiak and Obermeyer,
"Pathwise derivatives beyond the reparameterization trick", 2018): a
Taylor series for small draws, Rice's saddle-point expansion for large
shapes, a fitted rational function between, computed in float64 with
tensor ops and rounded once."""
import math
import _cudash
import torch


def _refuse_half(t, op):
    if t.dtype in (torch.float16, torch.bfloat16):
        name = "Half" if t.dtype == torch.float16 else "BFloat16"
        raise RuntimeError(f'"{op}" not implemented for \'{name}\'')


def _first_accepted(ok, values):
    # The value of the first accepted proposal along dim 0 (the first
    # one where none was).
    first = ok.to(values.dtype).argmax(0, keepdim=True)
    return values.gather(0, first).squeeze(0)


def _gamma_on_device(alpha, rounds=16):
    a = alpha
    small = a < 1
    boosted = torch.where(small, a + 1, a)
    scale = torch.where(small, (1 - torch.rand_like(a)).pow(1 / a), torch.ones_like(a))
    d = boosted - 1.0 / 3.0
    c = 1 / (9 * d).sqrt()
    shape = (rounds,) + tuple(a.shape)
    x = torch.randn(shape, dtype=a.dtype, device=a.device)
    u = 1 - torch.rand(shape, dtype=a.dtype, device=a.device)
    y = 1 + c * x
    v = y * y * y
    xx = x * x
    ok = (y > 0) & ((u < 1 - 0.0331 * xx * xx) | (u.log() < 0.5 * xx + d * (1 - v + v.log())))
    drawn = scale * d * _first_accepted(ok, v)
    drawn = torch.where(a == 0, torch.zeros_like(a), drawn)
    return drawn.clamp(min=torch.finfo(a.dtype).tiny)


def _cpu_draw(kind, *tensors):
    return _cudash.cpu_sample(kind, *[t.contiguous() for t in tensors])


def _sample_gamma(alpha):
    if alpha.device.type == "cpu":
        return _cpu_draw("gamma", alpha)
    return _gamma_on_device(alpha)


# ---- the gamma's reparameterized gradient ----------------------------------

_GAMMA_UV = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07),
)


def _gamma_grad64(alpha, x):
    # -(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for a Gamma(alpha) draw x.
    # Small x: the cdf's Taylor series and its derivative in alpha.
    numer = torch.ones_like(x)
    denom = alpha.clone()
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = x.pow(alpha)
    pdf = x.pow(alpha - 1) * (-x).exp()
    cdf = pow_x_alpha * series1
    cdf_alpha = (x.log() - torch.digamma(alpha)) * cdf - pow_x_alpha * series2
    taylor = -cdf_alpha / pdf
    taylor = torch.where(taylor == taylor, taylor, torch.zeros_like(taylor))
    # Large alpha: Rice's saddle-point expansion (near the mean, its
    # polynomial form).
    near = 1 + 24 * alpha * (1 + 12 * alpha)
    near = near * (1440 * alpha * alpha + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x))
    near = near / (1244160 * alpha * alpha * alpha * alpha)
    root = (8 * alpha).sqrt()
    term2 = root / (alpha - x)
    term3 = (x - alpha - alpha * (x / alpha).log()).pow(-1.5)
    term23 = torch.where(x < alpha, term2 - term3, term2 + term3)
    term1 = (x / alpha).log() * term23 - (2 / alpha).sqrt() * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * (x * term1) / root
    saddle = torch.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)
    # Between: the fitted rational function of log(x / alpha) and log(alpha).
    u = (x / alpha).log()
    v = alpha.log()
    c = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    rational = (p / q).exp()
    return torch.where(x < 0.8, taylor, torch.where(alpha > 8, saddle, rational))


def _standard_gamma_grad(self, output):
    """The gradient of a Gamma(self) draw `output` with respect to `self`."""
    with torch.no_grad():
        return _gamma_grad64(self.double(), output.double()).to(self.dtype)


class StandardGamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _sample_gamma(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, x)


def _standard_gamma(alpha, generator=None):
    """Gamma(alpha, 1) draws, one per element of alpha."""
    _refuse_half(alpha, "gamma_cpu" if alpha.device.type == "cpu" else "gamma_cuda")
    if alpha.requires_grad and torch.is_grad_enabled():
        return StandardGamma.apply(alpha)
    return _sample_gamma(alpha)


# ---- Dirichlet -------------------------------------------------------------


def _sample_dirichlet(alpha, generator=None):
    """Dirichlet(alpha) draws along the last dim: normalised gamma draws
    (in float64 on the CPU, as PyTorch's kernel), kept inside (0, 1)."""
    _refuse_half(alpha, "dirichlet")
    with torch.no_grad():
        if alpha.device.type == "cpu":
            return _cpu_draw("dirichlet", alpha)
        g = _gamma_on_device(alpha.double())
        out = (g / g.sum(-1, keepdim=True)).to(alpha.dtype)
        below_one = 1 - torch.finfo(alpha.dtype).eps / 2
        return out.clamp(min=torch.finfo(alpha.dtype).tiny, max=below_one)


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _nan_to_zero(t):
    return torch.where(t == t, t, torch.zeros_like(t))


def _beta_grad_alpha_small(x, alpha, beta):
    # Near x = 0: a Taylor series in x.
    factor = torch.digamma(alpha) - torch.digamma(alpha + beta) - x.log()
    numer = torch.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    return _nan_to_zero(x * (1 - x).pow(-beta) * series)


def _beta_grad_beta_small(x, alpha, beta):
    factor = torch.digamma(alpha + beta) - torch.digamma(beta)
    numer = torch.ones_like(x)
    betas = torch.ones_like(x)
    dbetas = torch.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    return _nan_to_zero(-(1 - x).pow(1 - beta) * series)


def _beta_grad_alpha_mid(x, alpha, beta):
    # Both shapes large: Rice's saddle-point expansion.
    total = alpha + beta
    mean = alpha / total
    std = (alpha * beta / (total + 1)).sqrt() / total
    bb = beta * beta
    poly = 47 * x * bb * bb + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * bb * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * bb + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / (2 * alpha * beta / total).sqrt()
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * bb
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / ((2 * alpha / beta).sqrt() * total.pow(1.5) * axbx * axbx)
    term2 = 0.5 * (alpha / (total * x)).log()
    term3 = (8 * alpha * beta / total).sqrt() / (beta * x + alpha * (x - 1))
    term4 = (beta * (beta / (total * (1 - x))).log() + alpha * (alpha / (total * x)).log()).pow(-1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + torch.where(x < mean, term4, -term4)))
    return torch.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


def _dirichlet_grad64(x, alpha, total):
    beta = total - alpha
    boundary = total * x * (1 - x)
    small = _beta_grad_alpha_small(x, alpha, beta)
    large = -_beta_grad_beta_small(1 - x, beta, alpha)
    mid = _beta_grad_alpha_mid(x, alpha, beta)
    # Else: a rational correction to an analytic approximation.
    u = x.log()
    a = alpha.log() - u
    b = total.log() - a
    pow_u = (torch.ones_like(u), u, u * u)
    pow_a = (torch.ones_like(a), a, a * a)
    p = torch.zeros_like(x)
    q = torch.zeros_like(x)
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp = _DIRICHLET_C[0][i][j]
            cq = _DIRICHLET_C[1][i][j]
            p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (torch.digamma(total) - torch.digamma(alpha)) / beta
    rational = p / q * approx
    out = torch.where((alpha > 6) & (beta > 6), mid, rational)
    out = torch.where((x >= 0.5) & (boundary < 0.75), large, out)
    return torch.where((x <= 0.5) & (boundary < 2.5), small, out)


def _dirichlet_grad(x, alpha, total):
    """The gradient of a Beta(alpha, total - alpha) draw x with respect to
    alpha, over 1 - x (Dirichlet's gradient through its Beta marginals)."""
    with torch.no_grad():
        return _dirichlet_grad64(x.double(), alpha.double(), total.double()).to(x.dtype)


# ---- Poisson and binomial --------------------------------------------------


def _poisson_on_device(rates, rounds=64):
    shape = (rounds,) + tuple(rates.shape)
    # Below 10: the number of uniforms whose running product stays above
    # exp(-rate).
    u = torch.rand(shape, dtype=rates.dtype, device=rates.device)
    product = u.cumprod(0)
    small = (product > (-rates).exp()).sum(0).to(rates.dtype)
    # From 10: Hoermann's transformed rejection.
    lam = rates.clamp(min=10)
    root = lam.sqrt()
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    uu = torch.rand(shape, dtype=rates.dtype, device=rates.device) - 0.5
    v = torch.rand(shape, dtype=rates.dtype, device=rates.device)
    us = 0.5 - uu.abs()
    k = ((2 * a / us + b) * uu + lam + 0.43).floor()
    squeeze = (us >= 0.07) & (v <= v_r)
    kept = (k >= 0) & ~((us < 0.013) & (v > us))
    log_ok = v.log() + inv_alpha.log() - (a / (us * us) + b).log() <= -lam + k * lam.log() - torch.lgamma(k.clamp(min=0) + 1)
    large = _first_accepted(squeeze | (kept & log_ok), k)
    out = torch.where(rates < 10, small, large)
    return torch.where(rates == 0, torch.zeros_like(rates), out)


class Poisson(torch.autograd.Function):
    @staticmethod
    def forward(ctx, rates):
        return _draw_poisson(rates)

    @staticmethod
    def backward(ctx, grad):
        return torch.zeros_like(grad)


def _draw_poisson(rates):
    with torch.no_grad():
        if rates.device.type == "cpu":
            if not bool((rates >= 0).all()):
                raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
            return _cpu_draw("poisson", rates)
        return _poisson_on_device(rates)


def poisson(input, generator=None):
    """A Poisson(rate) draw for each element of `input` (its rates)."""
    if not input.is_floating_point():
        raise RuntimeError(f"\"poisson_cpu\" not implemented for '{_scalar_name(input.dtype)}'")
    if input.requires_grad and torch.is_grad_enabled():
        return Poisson.apply(input)
    return _draw_poisson(input)


def _scalar_name(dtype):
    names = {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
             torch.uint8: "Byte", torch.bool: "Bool"}
    return names.get(dtype, str(dtype))


def _stirling_tail(k):
    table = torch.tensor([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                          0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                          0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                          0.00833056343336287], dtype=k.dtype, device=k.device)
    kp1 = k + 1
    sq = kp1 * kp1
    tail = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / sq) / sq) / kp1
    return torch.where(k < 10, table[k.clamp(0, 9).long()], tail)


def _binomial_on_device(count, prob, rounds=64):
    shape = (rounds,) + tuple(count.shape)
    flip = prob > 0.5
    p = torch.where(flip, 1 - prob, prob).clamp(min=1e-300 if prob.dtype == torch.float64 else 1e-38)
    # Small count * p: how many geometric waiting times fit in count.
    u = torch.rand(shape, dtype=count.dtype, device=count.device)
    waits = (u.log() / torch.log1p(-p)).ceil().cumsum(0)
    inverted = (waits <= count).sum(0).to(count.dtype)
    # Else BTRS.
    spq = (count * p * (1 - p)).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = count * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * spq
    m = ((count + 1) * p).floor()
    uu = torch.rand(shape, dtype=count.dtype, device=count.device) - 0.5
    v = torch.rand(shape, dtype=count.dtype, device=count.device)
    us = 0.5 - uu.abs()
    k = ((2 * a / us + b) * uu + c).floor()
    inside = (k >= 0) & (k <= count)
    squeeze = (us >= 0.07) & (v <= v_r)
    kk = k.clamp(min=0)
    kk = torch.minimum(kk, count)
    bound = ((m + 0.5) * ((m + 1) / (r * (count - m + 1))).log()
             + (count + 1) * ((count - m + 1) / (count - kk + 1)).log()
             + (kk + 0.5) * (r * (count - kk + 1) / (kk + 1)).log()
             + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(kk) - _stirling_tail(count - kk))
    ok = inside & (squeeze | ((v * alpha / (a / (us * us) + b)).log() <= bound))
    btrs = _first_accepted(ok, k)
    drawn = torch.where(count * p >= 10, btrs, inverted)
    drawn = torch.where(flip, count - drawn, drawn)
    drawn = torch.where((count <= 0) | (prob <= 0), torch.zeros_like(drawn), drawn)
    drawn = torch.where(prob >= 1, count, drawn)
    return torch.where(prob == prob, drawn, prob)


def binomial(count, prob, generator=None):
    """A Binomial(count, prob) draw for each pair of elements."""
    _refuse_half(count, "binomial_cpu" if count.device.type == "cpu" else "binomial_cuda")
    count, prob = torch.broadcast_tensors(count, prob)
    with torch.no_grad():
        if count.device.type == "cpu":
            return _cpu_draw("binomial", count, prob.to(count.dtype))
        return _binomial_on_device(count, prob.to(count.dtype))
