"""torch.linalg's determinant, cross product and singular value
decomposition, and `torch.det`, `torch.svd` (written for cudash with
tensor ops, so they run on every backend and autograd differentiates them
through those ops: the graph holds `GatherBackward0`, `SubBackward0`, ...
where PyTorch's has one `LinalgDetBackward0` or `LinalgSvdBackward0`).

`det` is the LU factorisation with partial pivoting that PyTorch's
`linalg.det` takes from LAPACK (`getrf`), one column at a time: the
largest remaining element of the column is the pivot, a row swap flips
the sign, and the determinant is the product of U's diagonal. Its
numbers agree with PyTorch's to rounding (LAPACK's blocked kernels add
in another order)."""
import torch
import _cudash


def _dtype_name(t):
    return {
        torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
        torch.uint8: "Byte", torch.bool: "Bool",
    }.get(t.dtype, str(t.dtype))


def det(A, *, out=None):
    """The determinant of each square matrix of `A` (`..., n, n`)."""
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.det: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.det: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.is_floating_point():
        raise RuntimeError(
            f"linalg.det: Expected a floating point or complex tensor as input. Got {_dtype_name(A)}")
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    U = A
    sign = torch.ones(batch, dtype=A.dtype, device=A.device)
    rows = torch.arange(n, device=A.device)
    for k in range(n - 1):
        # The pivot: the largest |element| of column k on or below row k.
        p = U[..., k:, k].abs().argmax(-1) + k
        pk = p.unsqueeze(-1)
        perm = torch.where(rows == k, pk, torch.where(rows == pk, k, rows))
        U = U.gather(-2, perm.unsqueeze(-1).expand(*batch, n, n))
        sign = torch.where(p != k, -sign, sign)
        pivot = U[..., k:k + 1, k:k + 1]
        below = U[..., k + 1:, k:k + 1]
        # A zero pivot leaves a zero on the diagonal: the column is done.
        factors = torch.where(pivot == 0, torch.zeros_like(below), below / pivot)
        U = torch.cat([U[..., :k + 1, :], U[..., k + 1:, :] - factors * U[..., k:k + 1, :]], dim=-2)
    result = sign * U.diagonal(dim1=-2, dim2=-1).prod(-1)
    if out is not None:
        out.copy_(result)
        return out
    return result


def cross(input, other, *, dim=-1, out=None):
    """The cross product of the 3-vectors along `dim` (broadcast)."""
    a, b = torch.broadcast_tensors(input, other)
    if a.shape[dim] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and {other.shape[dim]}")
    dev = a.device
    first = torch.tensor([1, 2, 0], device=dev)
    second = torch.tensor([2, 0, 1], device=dev)
    result = (a.index_select(dim, first) * b.index_select(dim, second)
              - a.index_select(dim, second) * b.index_select(dim, first))
    if out is not None:
        out.copy_(result)
        return out
    return result



# ---- the singular value decomposition --------------------------------------
#
# One-sided Jacobi (Hestenes): plane rotations of the columns of A, made
# pairwise orthogonal, accumulate into V; then A V = U diag(S), the column
# norms are S. Each round rotates disjoint pairs of columns at once (the
# round-robin order), so a sweep over every pair is n - 1 rounds of a few
# tensor ops, batched over the matrices. PyTorch calls LAPACK's `gesdd` on
# the CPU and cuSOLVER on a GPU: the singular values agree to rounding; the
# singular vectors are unique only up to sign (PyTorch's documentation says
# so), and cudash's signs are Jacobi's, not LAPACK's.


def _rounds(n):
    """Round-robin pairings of n columns: each round pairs disjoint
    columns, and the rounds together meet every pair once."""
    cols = list(range(n)) + ([None] if n % 2 else [])
    m = len(cols)
    out = []
    for _ in range(m - 1):
        pairs = [(cols[i], cols[m - 1 - i]) for i in range(m // 2)]
        pairs = [(p, q) for p, q in pairs if p is not None and q is not None]
        paired = [p for p, _ in pairs] + [q for _, q in pairs]
        rest = [c for c in range(n) if c not in paired]
        out.append(([p for p, _ in pairs], [q for _, q in pairs], rest))
        cols = [cols[0], cols[-1]] + cols[1:-1]
    return out


def _orthogonalise(W, V, tol):
    """W's columns rotated until pairwise orthogonal (to `tol`, relative),
    the same rotations applied to V's."""
    n = W.shape[-1]
    dev = W.device
    rounds = []
    for P, Q, R in _rounds(n):
        inverse = [0] * n
        for i, c in enumerate(P + Q + R):
            inverse[c] = i
        rounds.append((torch.tensor(P, device=dev), torch.tensor(Q, device=dev),
                       torch.tensor(R, dtype=torch.int64, device=dev), torch.tensor(inverse, device=dev)))
    zero = torch.zeros((), dtype=W.dtype, device=dev)
    for _ in range(60):
        worst = zero
        for P, Q, R, inverse in rounds:
            ap, aq = W.index_select(-1, P), W.index_select(-1, Q)
            alpha = (ap * ap).sum(-2, keepdim=True)
            beta = (aq * aq).sum(-2, keepdim=True)
            gamma = (ap * aq).sum(-2, keepdim=True)
            scale = (alpha * beta).sqrt()
            off = torch.where(scale > 0, gamma.abs() / scale, torch.zeros_like(scale))
            worst = torch.maximum(worst, off.max())
            # The rotation's tangent (Rutishauser's formula); none where the
            # pair is orthogonal already.
            zeta = (beta - alpha) / (2 * gamma)
            t = torch.where(zeta >= 0, 1.0, -1.0) / (zeta.abs() + (1 + zeta * zeta).sqrt())
            t = torch.where(off > tol, t, torch.zeros_like(t))
            c = 1 / (1 + t * t).sqrt()
            s = c * t
            vp, vq = V.index_select(-1, P), V.index_select(-1, Q)
            rest = W.index_select(-1, R)
            W = torch.cat([c * ap - s * aq, s * ap + c * aq, rest], -1).index_select(-1, inverse)
            V = torch.cat([c * vp - s * vq, s * vp + c * vq, V.index_select(-1, R)], -1).index_select(-1, inverse)
        if worst.item() <= tol:
            break
    return W, V


def _complete(U, first):
    """U's columns from `first` on that are zero replaced by unit vectors
    orthogonal to every other column (Gram-Schmidt of the identity's
    columns: the one that keeps most of its length)."""
    m = U.shape[-2]
    eye = torch.eye(m, dtype=U.dtype, device=U.device)
    for j in range(first, U.shape[-1]):
        norms = U[..., :, j].norm(dim=-1, keepdim=True)
        R = eye - U @ U.mT
        lengths = R.norm(dim=-2)
        best = lengths.argmax(-1, keepdim=True)
        v = R.gather(-1, best.unsqueeze(-2).expand(*R.shape[:-1], 1)).squeeze(-1)
        v = v / v.norm(dim=-1, keepdim=True)
        col = torch.where(norms > 0, U[..., :, j], v)
        U = torch.cat([U[..., :, :j], col.unsqueeze(-1), U[..., :, j + 1:]], -1)
    return U


def _svd(A, full):
    """(U, S, V) of each matrix of A: U m x k (m x m when `full`), S k, V n x k
    (n x n when `full`), k = min(m, n)."""
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.svd: The input tensor A must have at least 2 dimensions.")
    if not A.is_floating_point():
        raise RuntimeError(
            f"linalg.svd: Expected a floating point or complex tensor as input. Got {_dtype_name(A)}")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        V, S, U = _svd(A.mT, full)
        return U, S, V
    batch = tuple(A.shape[:-2])
    eps = torch.finfo(A.dtype).eps
    V = torch.eye(n, dtype=A.dtype, device=A.device).expand(*batch, n, n)
    W, V = _orthogonalise(A, V, eps * n)
    s = W.norm(dim=-2)
    order = s.argsort(-1, descending=True)
    S = s.gather(-1, order)
    W = W.gather(-1, order.unsqueeze(-2).expand(W.shape))
    V = V.gather(-1, order.unsqueeze(-2).expand(V.shape))
    # Columns of singular values at rounding's level carry no direction.
    tiny = S[..., :1] * (eps * max(m, n))
    kept = S > tiny
    U = torch.where(kept.unsqueeze(-2), W / torch.where(kept, S, torch.ones_like(S)).unsqueeze(-2),
                    torch.zeros_like(W))
    if full and m > n:
        U = torch.cat([U, torch.zeros(*batch, m, m - n, dtype=A.dtype, device=A.device)], -1)
    rank = int(kept.sum(-1).min().item()) if S.numel() else n
    if rank < U.shape[-1]:
        U = _complete(U, rank)
    return U, S, V


def svd(A, full_matrices=True, *, driver=None, out=None):
    """`torch.linalg.svd`: (U, S, Vh) with A = U diag(S) Vh, S descending."""
    U, S, V = _svd(A, full_matrices)
    return _cudash.return_type("linalg_svd", U=U, S=S, Vh=V.mT)


def svdvals(A, *, driver=None, out=None):
    """The singular values of each matrix of A, descending."""
    return _svd(A, False)[1]


# The largest 1-norm for which each Taylor degree is as exact as the
# dtype (Bader, Blanes and Casas, the table PyTorch's `matrix_exp` uses).
_EXP_THETAS = {
    torch.float32: [(1, 1.192092800768788e-07), (2, 5.978858893805233e-04),
                    (4, 5.116619363445086e-02), (8, 5.800524627688768e-01),
                    (12, 1.461661507209034e+00), (18, 3.010066362817634e+00)],
    torch.float64: [(1, 2.220446049250313e-16), (2, 2.580956802971767e-08),
                    (4, 3.397168839976962e-04), (8, 4.991228871115323e-02),
                    (12, 2.996158913811580e-01), (18, 1.090863719290036e+00)],
}


def matrix_exp(A):
    """The matrix exponential of each square matrix of `A` (`..., n, n`):
    a Taylor polynomial of the degree the largest 1-norm needs, scaled by
    a power of two and squared back where the norm is larger (PyTorch
    evaluates the same degrees with fewer products)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_exp: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.is_floating_point():
        raise NotImplementedError(
            f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got {_dtype_name(A)}")
    n = A.shape[-1]
    if n == 1:
        return A.exp()
    if A.numel() == 0:
        return A.clone()
    thetas = _EXP_THETAS.get(A.dtype, _EXP_THETAS[torch.float32])
    norm = A.detach().abs().sum(-2).amax(-1).max().item()
    degree, squarings = thetas[-1][0], 0
    for d, theta in thetas:
        if norm <= theta:
            degree = d
            break
    else:
        while norm / (2 ** squarings) > thetas[-1][1]:
            squarings += 1
    X = A / (2 ** squarings) if squarings else A
    eye = torch.eye(n, dtype=A.dtype, device=A.device)
    P = eye + X / degree
    for k in range(degree - 1, 0, -1):
        P = eye + (X @ P) / k
    for _ in range(squarings):
        P = P @ P
    return P


def _eigh(A, UPLO, vectors):
    """The eigenvalues (ascending) and, with `vectors`, eigenvectors of each
    symmetric matrix of `A`, read from its lower (or upper) triangle: cyclic
    Jacobi rotations until the off-diagonal part is below rounding (PyTorch
    calls LAPACK's `syevd`; the values agree to rounding, an eigenvector may
    have the other sign)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.eigh: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not A.is_floating_point():
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_dtype_name(A)}\'')
    n = A.shape[-1]
    if UPLO == "L":
        A = A.tril() + A.tril(-1).mT
    else:
        A = A.triu() + A.triu(1).mT
    eye = torch.eye(n, dtype=A.dtype, device=A.device)
    V = eye.expand(A.shape).clone() if vectors else None
    eps = 1e-15 if A.dtype == torch.float64 else 1e-7
    scale = A.detach().pow(2).sum().item()
    # units[i][j]: the matrix with a one at (i, j).
    units = [[eye[:, i:i + 1] @ eye[j:j + 1, :] for j in range(n)] for i in range(n)]
    for sweep in range(30):
        off = (A.detach() - A.detach().diagonal(dim1=-2, dim2=-1).diag_embed()).pow(2).sum().item()
        if off <= (eps * eps) * scale or off == 0.0:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = A[..., p, q]
                app = A[..., p, p]
                aqq = A[..., q, q]
                small = apq.detach().abs() <= 1e-30
                theta = (aqq - app) / torch.where(small, torch.ones_like(apq), 2 * apq)
                t = torch.where(theta >= 0, torch.ones_like(theta), -torch.ones_like(theta)) / (
                    theta.abs() + (theta * theta + 1).sqrt())
                t = torch.where(small, torch.zeros_like(t), t)
                c = 1 / (t * t + 1).sqrt()
                s_ = t * c
                cm = (c - 1)[..., None, None]
                sm = s_[..., None, None]
                G = eye + cm * (units[p][p] + units[q][q]) + sm * (units[p][q] - units[q][p])
                A = G.mT @ A @ G
                if vectors:
                    V = V @ G
    w = A.diagonal(dim1=-2, dim2=-1)
    order = w.detach().argsort(-1)
    w = w.gather(-1, order)
    if not vectors:
        return w, None
    V = V.gather(-1, order.unsqueeze(-2).expand(V.shape))
    return w, V


def eigh(A, UPLO="L", *, out=None):
    """`torch.linalg.eigh`: (eigenvalues ascending, eigenvectors as columns)."""
    w, V = _eigh(A, UPLO, True)
    return _cudash.return_type("linalg_eigh", eigenvalues=w, eigenvectors=V)


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues of each symmetric matrix of `A`, ascending."""
    return _eigh(A, UPLO, False)[0]


def _lu_solve(A, B, who):
    """X with A X = B for each square matrix of A and matrix of B (`..., n,
    k`): Gaussian elimination with partial pivoting on [A | B], then back
    substitution, in tensor ops (so autograd differentiates it). A zero
    pivot is a singular matrix: LAPACK's `getrf` reports it and so does
    this."""
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    k = B.shape[-1]
    M = torch.cat([A, B], dim=-1)
    rows = torch.arange(n, device=A.device)
    for c in range(n):
        p = M[..., c:, c].abs().argmax(-1) + c
        pk = p.unsqueeze(-1)
        perm = torch.where(rows == c, pk, torch.where(rows == pk, c, rows))
        M = M.gather(-2, perm.unsqueeze(-1).expand(*batch, n, n + k))
        pivot = M[..., c:c + 1, c:c + 1]
        if bool((pivot.detach() == 0).any()):
            raise RuntimeError(f"{who}: The solver failed because the input matrix is singular.")
        below = M[..., c + 1:, c:c + 1]
        M = torch.cat([M[..., :c + 1, :], M[..., c + 1:, :] - (below / pivot) * M[..., c:c + 1, :]], dim=-2)
    U = M[..., :, :n]
    Y = M[..., :, n:]
    xs = [None] * n
    for i in range(n - 1, -1, -1):
        acc = Y[..., i:i + 1, :]
        for j in range(i + 1, n):
            acc = acc - U[..., i:i + 1, j:j + 1] * xs[j]
        xs[i] = acc / U[..., i:i + 1, i:i + 1]
    return torch.cat(xs, dim=-2)


def _square(A, who):
    if A.dim() < 2:
        raise RuntimeError(f"{who}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{who}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.is_floating_point():
        raise NotImplementedError(
            f"{who}: Expected a floating point or complex tensor as input. Got {_dtype_name(A)}")


def solve(A, B, *, left=True, out=None):
    """`torch.linalg.solve`: X with A X = B (X A = B with `left=False`); B
    a vector (or a batch of them) or matrices, broadcast over A's batch."""
    _square(A, "linalg.solve")
    if not left:
        return solve(A.mT, B.mT).mT
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vector else B
    n = A.shape[-1]
    if Bm.shape[-2] != n:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({A.shape[-2]}x{A.shape[-1]} and {Bm.shape[-2]}x{Bm.shape[-1]})")
    batch = torch.broadcast_shapes(tuple(A.shape[:-2]), tuple(Bm.shape[:-2]))
    A2 = A.expand(*batch, n, n)
    B2 = Bm.expand(*batch, n, Bm.shape[-1]).to(A.dtype)
    X = _lu_solve(A2, B2, "torch.linalg.solve")
    result = X.squeeze(-1) if vector else X
    if out is not None:
        out.copy_(result)
        return out
    return result


def inv(A, *, out=None):
    """`torch.linalg.inv`, `torch.inverse`: the inverse of each square
    matrix of A."""
    _square(A, "linalg.inv")
    n = A.shape[-1]
    eye = torch.eye(n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], n, n)
    result = _lu_solve(A, eye, "linalg.inv")
    if out is not None:
        out.copy_(result)
        return out
    return result


inverse = inv
