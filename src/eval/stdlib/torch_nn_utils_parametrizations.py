# torch.nn.utils.parametrizations, written for cudash on
# torch.nn.utils.parametrize: weight normalisation and spectral
# normalisation as parametrizations of a module's weight.
import torch
import torch.nn.functional as F
from torch.nn import Module
import torch.nn.utils.parametrize as parametrize

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


def _norm_except_dim(v, p, dim):
    # PyTorch's `torch.norm_except_dim`: the norm over every dimension but
    # `dim`, kept as size one (the whole tensor's norm for dim -1).
    if dim == -1:
        return v.norm(p)
    dim = dim % v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    if not others:
        return v.abs()
    return v.norm(p, dim=others, keepdim=True)


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight):
        weight_g = _norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """`module.<name>` as its direction (`original1`, PyTorch's `weight_v`)
    scaled to a learned norm (`original0`, `weight_g`) along `dim`."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with torch.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps)
                self._v = F.normalize(torch.mv(weight_mat.T, self._u), dim=0, eps=self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = torch.dot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """`module.<name>` divided by its largest singular value, estimated by
    power iteration (one step per forward in training)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, torch.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        # cudash has no ConvTranspose3d.
        transposed = isinstance(module, (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d))
        dim = 1 if transposed else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


# ---- orthogonal ----------------------------------------------------------------


def _householder_product(A, tau):
    # The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with
    # v_i = (0, ..., 0, 1, A[i+1:, i]) (LAPACK's `orgqr`).
    n, k = A.shape[-2], A.shape[-1]
    Q = torch.eye(n, k, dtype=A.dtype, device=A.device).expand(A.shape[:-2] + (n, k))
    for i in range(k - 1, -1, -1):
        v = torch.cat([torch.ones_like(A[..., i:i + 1, i]), A[..., i + 1:, i]], -1)
        block = Q[..., i:, :]
        w = (v.unsqueeze(-1) * block).sum(-2)
        block = block - tau[..., i].unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w.unsqueeze(-2)
        Q = torch.cat([Q[..., :i, :], block], -2)
    return Q


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    eye = torch.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * torch.finfo(Q.dtype).eps
    return torch.allclose(Q.mT @ Q, eye, atol=eps)


def _make_orthogonal(A):
    # The Q of A = QR with R's diagonal made non-negative.
    Q, R = torch.linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = torch.matrix_exp(A)
            else:
                eye = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(eye, A, alpha=-0.5), torch.add(eye, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with torch.no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. "
                    f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not self._trivial():
                if self.orthogonal_map in ("matrix_exp", "cayley"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                raise NotImplementedError(
                    "cudash's orthogonal(use_trivialization=False) with the householder map "
                    "cannot be assigned yet (it needs torch.geqrf)")
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = torch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(torch.cat([Q, N], dim=-1))
            self.base = Q
            neg_eye = torch.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye

    def _trivial(self):
        return "base" in self._buffers


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """An orthogonal (for complex tensors, unitary) parametrization of
    `module`'s `name`: the matrix is `base @ map(X)`, `map` the matrix
    exponential or the Cayley map of X's skew-symmetric part, or a product
    of Householder reflections (the default for a square matrix:
    `matrix_exp`; else `householder`), as PyTorch's."""
    weight = getattr(module, name, None)
    if not isinstance(weight, torch.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            "Expected a matrix or batch of matrices. "
            f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
