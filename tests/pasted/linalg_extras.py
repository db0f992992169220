# torch.linalg's solve, inv, eigh and eigvalsh, torch.matrix_exp and
# torch.kthvalue (written in Python for cudash over tensor ops), their
# gradients and PyTorch's errors.
import torch


def show(name, t, digits=4):
    print(name, tuple(t.shape), [round(v, digits) for v in t.detach().flatten().tolist()[:9]])


torch.manual_seed(0)
A = torch.randn(4, 4)
B = torch.randn(4, 2)
show("solve", torch.linalg.solve(A, B))
show("solve vector", torch.linalg.solve(A, B[:, 0]))
show("solve batch", torch.linalg.solve(torch.randn(2, 3, 3), torch.randn(3)))
show("solve left=False", torch.linalg.solve(A, torch.randn(2, 4), left=False))
show("inv", torch.linalg.inv(A))
show("inverse f64", torch.inverse(A.double()))
a = A.clone().requires_grad_()
torch.linalg.solve(a, B).sum().backward()
show("solve grad", a.grad)

S = torch.randn(4, 4)
S = S + S.T
w, v = torch.linalg.eigh(S)
show("eigh values", w)
print("reconstructs", torch.allclose(v @ torch.diag(w) @ v.T, S, atol=1e-5))
show("eigvalsh U", torch.linalg.eigvalsh(S, UPLO="U"))
b = torch.randn(2, 3, 3)
show("eigvalsh batch", torch.linalg.eigvalsh(b + b.mT))
g = torch.randn(3, 3, requires_grad=True)
torch.linalg.eigvalsh(g @ g.T).sum().backward()
show("eigvalsh grad", g.grad)

m = torch.randn(3, 3, requires_grad=True)
e = torch.matrix_exp(m)
show("matrix_exp", e)
e.sum().backward()
show("matrix_exp grad", m.grad)
show("rotation", torch.linalg.matrix_exp(torch.tensor([[0.0, 1.0], [-1.0, 0.0]])))
show("scaled", torch.matrix_exp(torch.randn(2, 4, 4) * 3), 2)
show("f64", torch.matrix_exp(torch.randn(3, 3, dtype=torch.float64) * 5), 3)
show("method", torch.eye(2).matrix_exp())

x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
r = torch.kthvalue(x, 2)
show("kthvalue", r.values)
print(r.indices.tolist())
k = x.kthvalue(1, dim=0, keepdim=True)
print(k.values.tolist(), k.indices.tolist())
r.values.sum().backward()
show("kthvalue grad", x.grad)

for f in [
    lambda: torch.linalg.solve(torch.ones(2, 3), torch.ones(2)),
    lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)),
    lambda: torch.linalg.solve(torch.eye(2), torch.ones(3)),
    lambda: torch.matrix_exp(torch.ones(2, 3)),
    lambda: torch.linalg.eigh(torch.ones(3)),
    lambda: torch.kthvalue(x, 4),
]:
    try:
        f()
    except Exception as e:
        print(str(e).splitlines()[0])
