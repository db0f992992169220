# torch.nn.utils.parametrize as PyTorch's parametrizations tutorial uses
# it: a parametrization registered on a layer's weight, the module's new
# attributes, caching, chained parametrizations, right_inverse, removal,
# training through one, and the errors.
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize


def show(name, t):
    vals = [round(v, 4) for v in t.detach().flatten().tolist()[:12]]
    print(name, tuple(t.shape), t.dtype, t.requires_grad, t.grad_fn is not None, vals)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


torch.manual_seed(0)
layer = nn.Linear(3, 3)
print(f"Unparametrized:\n{layer}")
parametrize.register_parametrization(layer, "weight", Symmetric())
print(f"\nParametrized:\n{layer}")
A = layer.weight
print("symmetric", torch.allclose(A, A.T))
show("weight", A)
print(layer.parametrizations)
print(layer.parametrizations.weight)
print(layer.parametrizations.weight[0])
print(list(dict(layer.named_parameters()).keys()))
print(list(layer.state_dict().keys()))
show("original", layer.parametrizations.weight.original)
print("dist", torch.dist(layer.weight, Symmetric()(layer.parametrizations.weight.original)).item())
print("is_parametrized", parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "weight"),
      parametrize.is_parametrized(layer, "bias"))
print("isinstance", isinstance(layer, nn.Linear))
print("type before", parametrize.type_before_parametrizations(layer).__name__)
print("hasattr", hasattr(layer, "weight"), hasattr(layer, "parametrizations"))

# The layer computes with the parametrized weight; the gradient reaches
# the original.
x = torch.arange(6.0).reshape(2, 3) / 6
out = layer(x)
show("out", out)
out.sum().backward()
show("original.grad", layer.parametrizations.weight.original.grad)

# A convolution's weight.
cnn = nn.Conv2d(in_channels=2, out_channels=3, kernel_size=3)
parametrize.register_parametrization(cnn, "weight", Skew())
show("kernel", cnn.weight[0, 1])
show("conv", cnn(torch.ones(1, 2, 4, 4)))

# Caching: computed once inside `cached()`.
class NoisyParametrization(nn.Module):
    def forward(self, X):
        print("Computing the Parametrization")
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
print("Here, layer.weight is recomputed every time we call it")
foo = layer.weight + layer.weight.T
bar = layer.weight.sum()
with parametrize.cached():
    print("Here, it is computed just the first time layer.weight is called")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()
    y = layer(torch.ones(1, 4))
print("after")
y = layer(torch.ones(1, 4))

# Chained parametrizations: orthogonal and positive definite weights.
layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print("orthogonal", torch.dist(X.T @ X, torch.eye(3)).item() < 1e-5)
print(layer_orthogonal)

layer_spd = nn.Linear(3, 3)
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print("symmetric", torch.dist(X, X.T).item() < 1e-5)
print("positive definite", (torch.linalg.eigvalsh(X) > 0.0).all().item())

# Initialising through right_inverse.
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
X = torch.rand(3, 3)
X = X - X.T
before = layer.parametrizations.weight.original
layer.weight = X
print("same original", layer.parametrizations.weight.original is before)
print("dist", torch.dist(layer.weight, X).item())


# The Cayley map (a solve), initialised from an orthogonal matrix.
class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        return torch.linalg.solve(self.Id - X, self.Id + X)

    def right_inverse(self, A):
        return torch.linalg.solve(A + self.Id, self.Id - A)


layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", CayleyMap(3))
X = layer_orthogonal.weight
print("cayley orthogonal", torch.dist(X.T @ X, torch.eye(3)).item() < 1e-5)
X = torch.empty(3, 3)
nn.init.orthogonal_(X)
if X.det() < 0.0:
    X[0].neg_()
layer_orthogonal.weight = X
print("dist", torch.dist(layer_orthogonal.weight, X).item() < 1e-5)
layer_orthogonal.weight = nn.init.orthogonal_(layer_orthogonal.weight)
W = layer_orthogonal.weight
print("orthogonal again", torch.dist(W.T @ W, torch.eye(3)).item() < 1e-5)
show("cayley", W)


class PruningParametrization(nn.Module):
    def __init__(self, X, p_drop=0.2):
        super().__init__()
        mask = torch.full_like(X, 1.0 - p_drop)
        self.mask = torch.bernoulli(mask)

    def forward(self, X):
        return X * self.mask

    def right_inverse(self, A):
        return A


layer = nn.Linear(3, 4)
X = torch.rand_like(layer.weight)
show("Initialization matrix", X)
parametrize.register_parametrization(layer, "weight", PruningParametrization(layer.weight))
layer.weight = X
show("Initialized weight", layer.weight)

# Removing: the parametrized value kept, or the original.
layer = nn.Linear(3, 3)
print("Before:")
print(layer)
show("weight", layer.weight)
parametrize.register_parametrization(layer, "weight", Skew())
print("\nParametrized:")
print(layer)
show("weight", layer.weight)
parametrize.remove_parametrizations(layer, "weight")
print("\nAfter. Weight has skew-symmetric values but it is unconstrained:")
print(layer)
show("weight", layer.weight)
print(list(dict(layer.named_parameters()).keys()))

layer = nn.Linear(3, 3)
original = layer.weight.detach().clone()
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print("left unparametrized", torch.equal(layer.weight, original), layer)

# Training through a parametrization: the optimizer steps the original.
# Registered on the host, then moved: the original moves with the model.
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(1)
model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
parametrize.register_parametrization(model[0], "weight", Symmetric())
model = model.to(device)
print(model)
print("on the device", model[0].weight.device.type == device, model[0].parametrizations.weight.original.device.type == device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.linspace(-1, 1, 12).reshape(4, 3).to(device)
target = data.sum(1, keepdim=True)
for step in range(3):
    opt.zero_grad()
    loss = ((model(data) - target) ** 2).mean()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 5))
W = model[0].weight
print("still symmetric", torch.allclose(W, W.T))
sd = model.state_dict()
print(list(sd.keys()))
fresh = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
parametrize.register_parametrization(fresh[0], "weight", Symmetric())
print(fresh.load_state_dict(sd))
print("loaded", torch.equal(fresh[0].weight, model[0].weight.cpu()))

# A user's class: its forward reads the property.
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2, 2))

    def forward(self, x):
        return x @ self.w


net = Net()
parametrize.register_parametrization(net, "w", Skew())
print(net)
show("net", net(torch.ones(1, 2)))
print(isinstance(net, Net))

# Errors.
def error(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", str(e).splitlines()[0])


class Sum(nn.Module):
    def forward(self, X):
        return X.sum(0)


class Double(nn.Module):
    def forward(self, X):
        return X.double()


error(lambda: parametrize.register_parametrization(nn.Linear(2, 2), "weight", Sum()))
error(lambda: parametrize.register_parametrization(nn.Linear(2, 2), "weight", Double()))
error(lambda: parametrize.register_parametrization(nn.Linear(2, 2), "kernel", Skew()))
error(lambda: parametrize.remove_parametrizations(nn.Linear(2, 2), "weight"))
layer = nn.Linear(2, 2)
parametrize.register_parametrization(layer, "weight", Symmetric())
def assign():
    layer.weight = torch.zeros(2, 2)
error(assign)
parametrize.register_parametrization(layer, "bias", Sum(), unsafe=True)
show("unsafe bias", layer.bias)
print(sorted(layer.parametrizations.keys()))
