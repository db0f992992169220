//! What PyTorch programs reach for beyond the everyday (`python_everyday.rs`):
//! containers of parameters and the tensor functions of model code, each
//! printing what PyTorch 2.15 printed for the same program (tensors shown
//! through `tolist()`, since cudash's own display adds the device tag).

mod common;

use common::script_lines_on as printed_on;

fn printed(name: &str, src: &str) -> Vec<String> {
    printed_on(0, name, src)
}

/// `nn.ParameterList` and `nn.ParameterDict` in a model: registered under
/// the owner's name, shown as PyTorch's `extra_repr` shows them, trained
/// by an optimizer, indexed, iterated, extended and updated; a plain
/// dict's entries go in sorted by key, as PyTorch's `update` puts them.
#[test]
fn parameter_list_and_dict_are_pytorchs() {
    let out = printed(
        "parameter_containers",
        r#"import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([nn.Parameter(torch.ones(2, 2) * i) for i in range(3)])
        self.pd = nn.ParameterDict({"b": torch.zeros(2), "a": nn.Parameter(torch.ones(2))})
    def forward(self, x):
        for w in self.ws:
            x = x @ w
        return x + self.pd["a"] + self.pd.b
net = Net()
print(net)
print([n for n, _ in net.named_parameters()], list(net.state_dict().keys()))
net(torch.ones(1, 2)).sum().backward()
print(net.ws[1].grad.tolist(), net.pd["a"].grad.tolist(), type(net.pd["b"]).__name__)
pl = nn.ParameterList([torch.ones(1)])
pl.append(torch.zeros(2)).extend([nn.Parameter(torch.ones(3))])
print(len(pl), [p.shape[0] for p in pl], [n for n, _ in pl.named_parameters()], pl[-1].is_leaf)
print(pl[1:])
pl[0] = torch.full((2,), 5.)
print(pl[0].tolist(), pl[0].requires_grad)
pd = nn.ParameterDict()
pd["y"] = torch.ones(1)
pd.update([("x", torch.zeros(1))])
print(list(pd.keys()), len(pd), "x" in pd, [k for k in pd], pd.get("z", 3))
for k, v in pd.items():
    print(k, v.tolist())
print(pd.pop("y").tolist(), list(pd))
opt = torch.optim.SGD(pl.parameters(), lr=0.5)
(pl[0] * 2).sum().backward()
opt.step()
print(pl[0].tolist(), list(pl.state_dict().keys()))
print(nn.ParameterList([torch.ones(2)]), nn.ParameterList())
print(isinstance(pd, nn.ParameterDict), isinstance(pl, nn.Module))
"#,
    );
    assert_eq!(
        out,
        [
            "Net(",
            "  (ws): ParameterList(",
            "      (0): Parameter containing: [torch.float32 of size 2x2]",
            "      (1): Parameter containing: [torch.float32 of size 2x2]",
            "      (2): Parameter containing: [torch.float32 of size 2x2]",
            "  )",
            "  (pd): ParameterDict(",
            "      (a): Parameter containing: [torch.FloatTensor of size 2]",
            "      (b): Parameter containing: [torch.FloatTensor of size 2]",
            "  )",
            ")",
            "['ws.0', 'ws.1', 'ws.2', 'pd.a', 'pd.b'] ['ws.0', 'ws.1', 'ws.2', 'pd.a', 'pd.b']",
            "[[0.0, 0.0], [0.0, 0.0]] [1.0, 1.0] Parameter",
            "3 [1, 2, 3] ['0', '1', '2'] True",
            "ParameterList(",
            "    (0): Parameter containing: [torch.float32 of size 2]",
            "    (1): Parameter containing: [torch.float32 of size 3]",
            ")",
            "[5.0, 5.0] True",
            "['y', 'x'] 2 True ['y', 'x'] 3",
            "y [1.0]",
            "x [0.0]",
            "[1.0] ['x']",
            "[4.0, 4.0] ['0', '1', '2']",
            "ParameterList(  (0): Parameter containing: [torch.float32 of size 2]) ParameterList()",
            "True True",
        ]
    );
}

/// What PyTorch says when a parameter container is misused, and the
/// container methods of ModuleDict and ModuleList (`keys`, `pop`,
/// `update`, `extend`, `in`).
#[test]
fn container_errors_and_module_container_methods_are_pytorchs() {
    let out = printed(
        "container_errors",
        r#"import torch
import torch.nn as nn
pl = nn.ParameterList([torch.ones(2)])
for f in [lambda: pl(torch.ones(1)), lambda: pl[5], lambda: nn.ParameterDict({"a": torch.ones(1)})["zz"],
          lambda: nn.ParameterList([torch.arange(3)]), lambda: pl.extend(torch.ones(2)),
          lambda: nn.ParameterDict([("a", torch.ones(1), 3)]), lambda: nn.ParameterDict().pop("q"),
          lambda: nn.Linear(1, 1).keys(), lambda: nn.ModuleList().get("a"), lambda: nn.ModuleList()[0]]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
print(list(md.keys()), len(md), "a" in md, "z" in md)
print(md.pop("b"), list(md.keys()))
md.update([("c", nn.Sigmoid())])
print(md)
ml = nn.ModuleList([nn.ReLU()])
ml.extend([nn.Tanh(), nn.Tanh()])
print(ml, ml[1] in ml)
print(ml[1:])
"#,
    );
    assert_eq!(
        out,
        [
            "RuntimeError ParameterList should not be called.",
            "IndexError index 5 is out of range",
            "AttributeError 'ParameterDict' object has no attribute 'zz'",
            "RuntimeError Only Tensors of floating point and complex dtype can require gradients",
            "TypeError ParameterList.extend should be called with an iterable, but got Tensor",
            "ValueError ParameterDict update sequence element #0 has length 3; 2 is required",
            "AttributeError 'ParameterDict' object has no attribute 'q'",
            "AttributeError 'Linear' object has no attribute 'keys'",
            "AttributeError 'ModuleList' object has no attribute 'get'",
            "IndexError index 0 is out of range",
            "['b', 'a'] 2 True False",
            "ReLU() ['a']",
            "ModuleDict(",
            "  (a): Tanh()",
            "  (c): Sigmoid()",
            ")",
            "ModuleList(",
            "  (0): ReLU()",
            "  (1-2): 2 x Tanh()",
            ") True",
            "ModuleList(",
            "  (0-1): 2 x Tanh()",
            ")",
        ]
    );
}

/// On a GPU the lines name the device, as PyTorch's `extra_repr` does
/// (a dict its legacy `torch.cuda.FloatTensor` type).
#[test]
fn parameter_containers_on_a_device_name_it() {
    let out = printed_on(
        1,
        "parameter_containers_cuda",
        "import torch\nimport torch.nn as nn\nprint(nn.ParameterList([torch.ones(2), torch.ones(1)]).to(\"cuda\"))\nprint(nn.ParameterDict({\"a\": torch.ones(2, 3)}).cuda())\n",
    );
    assert_eq!(
        out,
        [
            "ParameterList(",
            "    (0): Parameter containing: [torch.float32 of size 2 (cuda:0)]",
            "    (1): Parameter containing: [torch.float32 of size 1 (cuda:0)]",
            ")",
            "ParameterDict(  (a): Parameter containing: [torch.cuda.FloatTensor of size 2x3 (cuda:0)])",
        ]
    );
}

/// `parameters_to_vector` (a `cat` of views: gradients reach each
/// parameter) and `vector_to_parameters`, as torch.nn.utils gives them.
#[test]
fn parameters_to_vector_and_back_are_pytorchs() {
    let out = printed(
        "parameters_to_vector",
        r#"import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters
torch.manual_seed(0)
m = nn.Linear(2, 2)
v = parameters_to_vector(m.parameters())
print(v.shape, v.grad_fn.name(), v.grad_fn.next_functions[0][0].name())
(v * torch.arange(6.)).sum().backward()
print(m.weight.grad.tolist(), m.bias.grad.tolist())
vector_to_parameters(torch.arange(6.), m.parameters())
print(m.weight.tolist(), m.bias.tolist(), m.weight.requires_grad, m.weight.grad_fn)
for f in [lambda: vector_to_parameters([1.0], m.parameters()), lambda: vector_to_parameters(torch.ones(5), m.parameters())]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "torch.Size([6]) CatBackward0 ViewBackward0",
            "[[0.0, 1.0], [2.0, 3.0]] [4.0, 5.0]",
            "[[0.0, 1.0], [2.0, 3.0]] [4.0, 5.0] True None",
            "TypeError expected torch.Tensor, but got: list",
            "RuntimeError shape '[2]' is invalid for input of size 1",
        ]
    );
}

/// `diag` (a vector's matrix, a matrix's diagonal copied), `diagonal` (a
/// view: writing through it is `CopySlices`), `diag_embed` and `trace`:
/// values, nodes and gradients as PyTorch's.
#[test]
fn diagonals_are_pytorchs() {
    let out = printed(
        "diagonals",
        r#"import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
A = torch.arange(12.).reshape(3, 4).requires_grad_()
d = torch.diag(x, -1)
print(d.tolist(), d.grad_fn.name())
(d * torch.arange(16.).reshape(4, 4)).sum().backward()
print(x.grad.tolist())
m = A.diag(1)
print(m.tolist(), m.grad_fn.name())
m.sum().backward()
print(A.grad.tolist())
B = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
v = B.diagonal(offset=-1, dim1=1, dim2=2)
print(v.shape, v.tolist(), v.grad_fn.name(), torch.diagonal(A.detach(), 2).tolist())
(v * v).sum().backward()
print(B.grad[1].tolist())
e = torch.diag_embed(torch.tensor([[1., 2.], [3., 4.]], requires_grad=True), offset=1)
print(e.shape, e[1].tolist(), e.grad_fn.name())
print(torch.tensor([5., 6.]).diag_embed(dim1=0, dim2=1).tolist())
t = A.trace()
print(t.item(), t.grad_fn.name())
A.grad = None
t.backward()
print(A.grad.tolist())
z = torch.zeros(3, 3, requires_grad=True).clone()
z.diagonal().fill_(2.)
print(z.grad_fn.name(), z.tolist())
for f in [lambda: torch.diag(torch.ones(2, 2, 2)), lambda: A.diagonal(dim1=1, dim2=1)]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "[[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]] DiagEmbedBackward0",
            "[4.0, 9.0, 14.0]",
            "[1.0, 6.0, 11.0] DiagonalBackward0_copy",
            "[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]",
            "torch.Size([2, 2]) [[4.0, 9.0], [16.0, 21.0]] DiagonalBackward0 [2.0, 7.0]",
            "[[0.0, 0.0, 0.0, 0.0], [32.0, 0.0, 0.0, 0.0], [0.0, 42.0, 0.0, 0.0]]",
            "torch.Size([2, 3, 3]) [[0.0, 3.0, 0.0], [0.0, 0.0, 4.0], [0.0, 0.0, 0.0]] DiagEmbedBackward0",
            "[[5.0, 0.0], [0.0, 6.0]]",
            "15.0 TraceBackward0",
            "[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]",
            "torch::autograd::CopySlices [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]",
            "RuntimeError diag(): Supports 1D or 2D tensors. Got 3D",
            "RuntimeError diagonal dimensions cannot be identical 1, 1",
        ]
    );
}

/// `addmm`, `addmv`, `baddbmm`, `addbmm` with `beta` and `alpha` (one node
/// each; `beta=0` leaves a NaN input out) and `kron` (PyTorch's composite).
#[test]
fn add_products_and_kron_are_pytorchs() {
    let out = printed(
        "products",
        r#"import torch
torch.manual_seed(0)
c = torch.randn(3, 1, requires_grad=True)
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(4, 2, requires_grad=True)
y = torch.addmm(c, a, b, beta=0.5, alpha=-2)
print(y.shape, y.grad_fn.name(), [round(v, 4) for v in y.flatten().tolist()])
(y * torch.arange(6.).reshape(3, 2)).sum().backward()
print([round(v, 4) for v in c.grad.flatten().tolist()], [round(v, 4) for v in b.grad.flatten().tolist()])
print(torch.addmm(torch.full((2, 2), float("nan")), torch.eye(2), torch.eye(2), beta=0).tolist())
v = torch.randn(4, requires_grad=True)
w = torch.ones(3).addmv(a, v, alpha=3)
print(w.grad_fn.name(), [round(t, 4) for t in w.tolist()])
w.sum().backward()
print([round(t, 4) for t in v.grad.tolist()])
p = torch.randn(2, 3, 4, requires_grad=True)
q = torch.randn(2, 4, 5, requires_grad=True)
r = torch.baddbmm(torch.ones(1, 3, 5), p, q, beta=2)
s = torch.addbmm(torch.ones(3, 5), p, q)
print(r.shape, r.grad_fn.name(), s.shape, s.grad_fn.name(), torch.allclose(s, r.sum(0) - 3))
(s * s).sum().backward()
print([round(t, 4) for t in q.grad[1, 0].tolist()])
k = torch.kron(torch.tensor([1., 2.], requires_grad=True), torch.tensor([[1., 10.], [100., 1000.]]))
print(k.tolist(), k.grad_fn.name(), k.grad_fn.next_functions[0][0].name())
"#,
    );
    assert_eq!(
        out,
        [
            "torch.Size([3, 2]) AddmmBackward0 [-3.9559, -0.2425, 0.705, 0.9396, 5.9474, -1.2134]",
            "[0.5, 2.5, 4.5] [-4.8084, -7.9854, 9.7304, 15.0513, -7.1915, -5.7888, 10.956, 13.485]",
            "[[1.0, 0.0], [0.0, 1.0]]",
            "AddmvBackward0 [-5.167, 3.3145, 9.2498]",
            "[4.7655, -7.9814, -2.104, -3.7934]",
            "torch.Size([2, 3, 5]) BaddbmmBackward0 torch.Size([3, 5]) AddbmmBackward0 True",
            "[15.7587, 1.5212, -3.6812, 0.2748, -0.2527]",
            "[[1.0, 10.0, 2.0, 20.0], [100.0, 1000.0, 200.0, 2000.0]] UnsafeViewBackward0 MulBackward0",
        ]
    );
}

/// `dist` and `cdist`: the direct path (`CdistBackward0`), and past 25 rows
/// with `p=2` PyTorch's matrix-product path (`EuclideanDistBackward0` under
/// a view); values and gradients to 4-5 places.
#[test]
fn dist_and_cdist_are_pytorchs() {
    let out = printed(
        "distances",
        r#"import torch
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
y = torch.randn(4, requires_grad=True)
d = torch.dist(x, y, 3)
print(d.grad_fn.name(), round(d.item(), 5))
d.backward()
print([round(v, 5) for v in y.grad.tolist()])
print(torch.dist(torch.zeros(2), torch.tensor([3., 4.])).item(), torch.tensor([1., 1.]).dist(torch.zeros(2), p=1).item())
a = torch.randn(5, 3, requires_grad=True)
b = torch.randn(2, 3, requires_grad=True)
c = torch.cdist(a, b)
print(c.shape, c.grad_fn.name(), [round(v, 5) for v in c[0].tolist()])
c.sum().backward()
print([round(v, 5) for v in b.grad.flatten().tolist()])
print([round(v, 5) for v in torch.cdist(a, b, p=1)[1].tolist()], torch.cdist(a, b, p=0).grad_fn.name())
big = torch.randn(30, 3, requires_grad=True)
e = torch.cdist(big, b)
print(e.shape, e.grad_fn.name(), e.grad_fn.next_functions[0][0].name(), [round(v, 4) for v in e[0].tolist()])
e.sum().backward()
print([round(v, 4) for v in b.grad.flatten().tolist()])
f = torch.cdist(torch.randn(2, 27, 3), torch.randn(1, 4, 3))
print(f.shape, f.grad_fn)
"#,
    );
    assert_eq!(
        out,
        [
            "DistBackward0 3.43825",
            "[-0.48351, 0.88408, -0.0992, -0.06039]",
            "5.0 2.0",
            "torch.Size([5, 2]) CdistBackward0 [1.62732, 1.66211]",
            "[-2.81726, 0.48459, 0.49521, -3.87064, 0.48508, -2.00387]",
            "[1.28872, 3.30729] CdistBackward0",
            "torch.Size([30, 2]) ViewBackward0 EuclideanDistBackward0 [1.7228, 1.2372]",
            "[-20.3344, 1.6446, 9.3059, -27.5786, 2.8212, -11.2744]",
            "torch.Size([2, 27, 4]) None",
        ]
    );
}

/// `median`/`nanmedian` (PyTorch's pick among ties and NaNs, both nodes),
/// `var_mean`/`std_mean` (one node, two outputs), `logspace` and
/// `nan_to_num`.
#[test]
fn median_var_mean_logspace_and_nan_to_num_are_pytorchs() {
    let out = printed(
        "stats",
        r#"import torch
nan = float("nan")
x = torch.tensor([[3., 1., 2., 1.], [5., nan, 0., 2.], [2., 2., 2., 7.]], requires_grad=True)
print(x.median().item(), x.nanmedian().item(), x[0].median().item(), x[2].median().grad_fn.name())
r = x.median(dim=1)
print(r.values.tolist(), r.indices.tolist(), type(r).__name__, r.values.grad_fn.name())
r2 = x.nanmedian(dim=0, keepdim=True)
print(r2.values.tolist(), r2.indices.tolist(), r2.values.grad_fn.name())
(torch.where(r.values.isnan(), 0., r.values) * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad.tolist())
x.grad = None
x[2].median().backward()
print(x.grad[2].tolist())
print(torch.tensor([4, 1, 3, 2]).median().item(), torch.tensor([]).median().item())
values, indices = torch.tensor([[9., 8., 7.]]).median(1, keepdim=True)
print(values.tolist(), indices.tolist())
B = torch.tensor([[1., 2., 4.], [3., 5., 9.]], requires_grad=True)
vm = torch.var_mean(B, dim=1)
print([t.tolist() for t in vm], vm[0].grad_fn.name(), vm[1].grad_fn.name(), type(vm).__name__)
(vm[0] * 2 + vm[1] * 3).sum().backward()
print([[round(v, 4) for v in row] for row in B.grad.tolist()])
B.grad = None
s, m = torch.std_mean(B, correction=0)
print(round(s.item(), 5), m.item(), s.grad_fn.name())
s.backward()
print([[round(v, 5) for v in row] for row in B.grad.tolist()])
print(torch.logspace(0, 2, 3).tolist(), torch.logspace(0, 1, 4, base=2).tolist(), torch.logspace(0, 3, 4, dtype=torch.int64).tolist())
print(torch.logspace(-3, 0, 7).tolist())
n = torch.tensor([nan, float("inf"), -float("inf"), 1.5], requires_grad=True)
o = n.nan_to_num()
print(o.tolist(), o.grad_fn.name())
(o * torch.arange(4.)).sum().backward()
print(n.grad.tolist(), torch.nan_to_num(n.detach(), nan=2.0, posinf=1.0).tolist(), n.detach().half().nan_to_num().tolist())
"#,
    );
    assert_eq!(
        out,
        [
            "nan 2.0 1.0 MedianBackward0",
            "[1.0, nan, 2.0] [3, 1, 1] median MedianBackward1",
            "[[3.0, 1.0, 2.0, 2.0]] [[0, 0, 0, 1]] NanmedianBackward1",
            "[[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0]]",
            "[0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.0]",
            "2 nan",
            "[[8.0]] [[1]]",
            "[[2.3333332538604736, 9.333333015441895], [2.3333332538604736, 5.666666507720947]] VarMeanBackward0 VarMeanBackward0 tuple",
            "[[-1.6667, 0.3333, 4.3333], [-4.3333, -0.3333, 7.6667]]",
            "2.58199 4.0 StdMeanBackward0",
            "[[-0.19365, -0.1291, 0.0], [-0.06455, 0.06455, 0.32275]]",
            "[1.0, 10.0, 100.0] [1.0, 1.2599210739135742, 1.587401032447815, 2.0] [1, 10, 100, 1000]",
            "[0.0010000000474974513, 0.003162277629598975, 0.009999999776482582, 0.03162277489900589, 0.10000000149011612, 0.3162277638912201, 1.0]",
            "[0.0, 3.4028234663852886e+38, -3.4028234663852886e+38, 1.5] NanToNumBackward0",
            "[0.0, 0.0, 0.0, 3.0] [2.0, 1.0, -3.4028234663852886e+38, 1.5] [0.0, 65504.0, -65504.0, 1.5]",
        ]
    );
}

/// The same program on a GPU prints what it prints on the cpu: the ops
/// above are composed of the op layer's ops, each on the tensor's device.
#[test]
fn the_new_tensor_ops_on_a_device_agree_with_the_cpu() {
    let program = |device: &str| {
        format!(
            r#"import torch
dev = "{device}"
torch.manual_seed(0)
x = torch.tensor([[3., 1., 2., 1.], [5., float("nan"), 0., 2.], [2., 2., 2., 7.]], device=dev, requires_grad=True)
r = x.nanmedian(dim=1)
print(r.values.tolist(), r.indices.tolist(), x.median().item())
r.values.sum().backward()
print(x.grad.tolist())
a = torch.arange(12., device=dev).reshape(3, 4).requires_grad_()
y = torch.addmm(torch.ones(3, 3, device=dev), a, a.T, alpha=0.5) + torch.diag_embed(a.diagonal()[:3])
y.sum().backward()
print(y.tolist(), a.grad.tolist())
p = torch.arange(6., device=dev).reshape(3, 2)
print(torch.cdist(p, p + 1).tolist(), torch.dist(p, p * 2).item(), torch.kron(p[0], p[1]).tolist())
v, m = torch.var_mean(p, dim=0)
print(v.tolist(), m.tolist(), p.nan_to_num().tolist(), torch.logspace(0, 2, 3, device=dev).tolist())
"#
        )
    };
    let cpu = printed_on(0, "ops_cpu", &program("cpu"));
    let gpu = printed_on(1, "ops_cuda", &program("cuda"));
    assert_eq!(cpu.len(), 5);
    assert_eq!(cpu, gpu);
}

/// `ConcatDataset` (cudash's module in Python, as PyTorch's is) of
/// TensorDatasets and a program's class, read by a DataLoader with and
/// without workers (a worker runs the class's `__getitem__` from the
/// module's), shuffled from the session's generator, and `a + b`.
#[test]
fn concat_dataset_is_pytorchs() {
    let out = printed(
        "concat_dataset",
        r#"import torch
from torch.utils.data import TensorDataset, DataLoader, ConcatDataset, Dataset
import torch.utils.data as tud
class Sq(Dataset):
    def __init__(self, n): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i): return torch.tensor([float(i * i)]), i
a = TensorDataset(torch.arange(6.).reshape(3, 2), torch.tensor([0, 1, 2]))
b = TensorDataset(torch.arange(100., 104.).reshape(2, 2), torch.tensor([7, 8]))
c = ConcatDataset([a, b])
print(len(c), c.cumulative_sizes, c[3][0].tolist(), c[-1][1].item(), isinstance(c, Dataset), tud.ConcatDataset is ConcatDataset)
for xb, yb in DataLoader(c, batch_size=2):
    print(xb.tolist(), yb.tolist())
torch.manual_seed(0)
print([y.tolist() for _, y in DataLoader(c, batch_size=5, shuffle=True)])
d = ConcatDataset([Sq(3), Sq(2)])
print([x.tolist() for x, _ in DataLoader(d, batch_size=5)])
print([y.tolist() for _, y in DataLoader(d, batch_size=2, num_workers=2)])
e = a + b
print(type(e).__name__, len(e))
for f in [lambda: ConcatDataset([]), lambda: c[-9]]:
    try: f()
    except Exception as ex: print(type(ex).__name__, ex)
"#,
    );
    assert_eq!(
        out,
        [
            "5 [3, 5] [100.0, 101.0] 8 True True",
            "[[0.0, 1.0], [2.0, 3.0]] [0, 1]",
            "[[4.0, 5.0], [100.0, 101.0]] [2, 7]",
            "[[102.0, 103.0]] [8]",
            "[[1, 8, 2, 7, 0]]",
            "[[[0.0], [1.0], [4.0], [0.0], [1.0]]]",
            "[[0, 1], [2, 0], [1]]",
            "ConcatDataset 5",
            "AssertionError datasets should not be an empty iterable",
            "ValueError absolute value of index should not exceed dataset length",
        ]
    );
}

/// `CyclicLR` in its three modes, with SGD's momentum and Adam's beta1
/// cycled the other way: every rate and momentum PyTorch set, to the bit.
#[test]
fn cyclic_lr_is_pytorchs() {
    let out = printed(
        "cyclic_lr",
        r#"import torch
from torch.optim.lr_scheduler import CyclicLR
w = torch.zeros(2, requires_grad=True)
for kw, opt_kind in [(dict(base_lr=0.01, max_lr=0.1, step_size_up=3), "sgd"),
                     (dict(base_lr=0.001, max_lr=0.006, step_size_up=2, step_size_down=4, mode="triangular2"), "adam"),
                     (dict(base_lr=0.1, max_lr=1.0, step_size_up=2, mode="exp_range", gamma=0.9, cycle_momentum=False), "sgd0")]:
    if opt_kind == "sgd":
        opt = torch.optim.SGD([w], lr=0.5, momentum=0.5)
    elif opt_kind == "adam":
        opt = torch.optim.Adam([w], lr=0.5)
    else:
        opt = torch.optim.SGD([w], lr=0.5, momentum=0.0)
    s = CyclicLR(opt, **kw)
    lrs, ms = [], []
    for i in range(14):
        g = opt.param_groups[0]
        lrs.append(g["lr"])
        ms.append(g["betas"][0] if "betas" in g else g["momentum"])
        opt.step()
        s.step()
    print(lrs)
    print(ms, s.get_last_lr(), s.last_epoch)
try:
    CyclicLR(torch.optim.Adagrad([w]), 0.1, 1.0)
except Exception as e:
    print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "[0.01, 0.040000000000000015, 0.06999999999999999, 0.1, 0.07000000000000003, 0.03999999999999998, 0.01, 0.040000000000000056, 0.06999999999999995, 0.1, 0.06999999999999995, 0.040000000000000056, 0.01, 0.03999999999999998]",
            "[0.9, 0.8666666666666667, 0.8333333333333334, 0.8, 0.8333333333333334, 0.8666666666666667, 0.9, 0.8666666666666666, 0.8333333333333335, 0.8, 0.8333333333333335, 0.8666666666666666, 0.9, 0.8666666666666667] [0.07000000000000003] 14",
            "[0.001, 0.0035000000000000014, 0.005999999999999999, 0.004749999999999999, 0.0035000000000000005, 0.0022499999999999985, 0.001, 0.002250000000000002, 0.003499999999999998, 0.002875, 0.0022499999999999985, 0.001625000000000001, 0.001, 0.0016249999999999995]",
            "[0.9, 0.85, 0.8, 0.8250000000000001, 0.85, 0.875, 0.9, 0.875, 0.8500000000000001, 0.8625, 0.875, 0.8875, 0.9, 0.8875000000000001] [0.0022499999999999994] 14",
            "[0.1, 0.505, 0.8290000000000001, 0.42805000000000004, 0.1, 0.3657205, 0.5782969000000001, 0.3152336050000001, 0.1, 0.27433922005000005, 0.41381059609000015, 0.24121476824050003, 0.1, 0.21438396227480505]",
            "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] [0.30589113209464913] 14",
            "ValueError optimizer must support momentum or beta1 with `cycle_momentum` option enabled",
        ]
    );
}

/// Python's `json` as training scripts use it for configs and metrics:
/// `dumps` (plain, `indent`, `sort_keys`, `separators`, `ensure_ascii`,
/// NaN and Infinity), `loads`, `dump`/`load` through a file, and Python's
/// `JSONDecodeError` and `TypeError` messages.
#[test]
fn json_is_pythons() {
    let out = printed(
        "json_module",
        r#"import json
import torch
d = {"lr": 0.001, "epochs": 10, "name": "run é", "tags": ["a", "b"], "nested": {"x": None, "ok": True, "t": (1, 2.5)}, 3: float("nan"), "inf": float("inf"), "empty": [], "e2": {}}
s = json.dumps(d)
print(s)
print(json.dumps(d, indent=2, sort_keys=False))
print(json.dumps([1, {"a": [1, 2]}], indent="\t"))
print(json.dumps({"b": 1, "a": 2}, sort_keys=True, separators=(",", ":")), json.dumps("é", ensure_ascii=False), json.dumps(1e-7), json.dumps(2.0), json.dumps(10**15))
back = json.loads(s)
print(back, type(back["tags"]).__name__, back["3"])
print(json.loads('  {"a": [1, 2.5e3, -0.5, "x\\ny\\u00e9\\ud83d\\ude00"], "b": {"c": null}, "a2": 1E2} '))
with open("out.json", "w") as f:
    json.dump({"loss": [0.5, 0.25]}, f, indent=4)
with open("out.json") as f:
    print(json.load(f))
for bad in ['', '{"a" 1}', '[1, 2', '{"a": 1} x', "{'a': 1}", '"abc']:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print(type(e).__name__, e)
for o in [torch.ones(2), {"k": [torch.ones(1)]}]:
    try:
        json.dumps(o)
    except TypeError as e:
        print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "{\"lr\": 0.001, \"epochs\": 10, \"name\": \"run \\u00e9\", \"tags\": [\"a\", \"b\"], \"nested\": {\"x\": null, \"ok\": true, \"t\": [1, 2.5]}, \"3\": NaN, \"inf\": Infinity, \"empty\": [], \"e2\": {}}",
            "{",
            "  \"lr\": 0.001,",
            "  \"epochs\": 10,",
            "  \"name\": \"run \\u00e9\",",
            "  \"tags\": [",
            "    \"a\",",
            "    \"b\"",
            "  ],",
            "  \"nested\": {",
            "    \"x\": null,",
            "    \"ok\": true,",
            "    \"t\": [",
            "      1,",
            "      2.5",
            "    ]",
            "  },",
            "  \"3\": NaN,",
            "  \"inf\": Infinity,",
            "  \"empty\": [],",
            "  \"e2\": {}",
            "}",
            "[",
            "\t1,",
            "\t{",
            "\t\t\"a\": [",
            "\t\t\t1,",
            "\t\t\t2",
            "\t\t]",
            "\t}",
            "]",
            "{\"a\":2,\"b\":1} \"é\" 1e-07 2.0 1000000000000000",
            "{'lr': 0.001, 'epochs': 10, 'name': 'run é', 'tags': ['a', 'b'], 'nested': {'x': None, 'ok': True, 't': [1, 2.5]}, '3': nan, 'inf': inf, 'empty': [], 'e2': {}} list nan",
            "{'a': [1, 2500.0, -0.5, 'x\\nyé😀'], 'b': {'c': None}, 'a2': 100.0}",
            "{'loss': [0.5, 0.25]}",
            "JSONDecodeError Expecting value: line 1 column 1 (char 0)",
            "JSONDecodeError Expecting ':' delimiter: line 1 column 6 (char 5)",
            "JSONDecodeError Expecting ',' delimiter: line 1 column 6 (char 5)",
            "JSONDecodeError Extra data: line 1 column 10 (char 9)",
            "JSONDecodeError Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            "JSONDecodeError Unterminated string starting at: line 1 column 1 (char 0)",
            "TypeError Object of type Tensor is not JSON serializable",
            "TypeError Object of type Tensor is not JSON serializable",
        ]
    );
}

/// `nn.Bilinear` and `F.bilinear`: PyTorch's initial weights from the seed,
/// its graph (`AddBackward0` over a view of `TrilinearBackward0`), values
/// and gradients (to 4 places), batched inputs, and `Softmax2d`.
#[test]
fn bilinear_is_pytorchs() {
    let out = printed(
        "bil",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
m = nn.Bilinear(3, 2, 4)
print(m, [round(v, 6) for v in m.weight[0].flatten().tolist()], [round(v, 6) for v in m.bias.tolist()])
x1 = torch.randn(5, 3, requires_grad=True)
x2 = torch.randn(5, 2, requires_grad=True)
y = m(x1, x2)
print(y.shape, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), y.grad_fn.next_functions[0][0].next_functions[0][0].name())
print([round(v, 4) for v in y[0].tolist()])
(y * torch.arange(20.).reshape(5, 4)).sum().backward()
print([round(v, 4) for v in x1.grad[1].tolist()], [round(v, 4) for v in x2.grad[2].tolist()], [round(v, 4) for v in m.weight.grad[3].flatten().tolist()], [round(v, 4) for v in m.bias.grad.tolist()])
z = F.bilinear(torch.ones(2, 3, 3), torch.ones(2, 3, 2), torch.ones(4, 3, 2))
print(z.shape, z[0, 0].tolist(), nn.Bilinear(2, 2, 1, bias=False))
try:
    m(torch.ones(5, 2), torch.ones(5, 2))
except Exception as e:
    print(type(e).__name__)

import torch
import torch.nn as nn
s = nn.Softmax2d()
x = torch.arange(8.).reshape(1, 2, 2, 2).requires_grad_()
y = s(x)
print(s, y.grad_fn.name(), [round(v, 4) for v in y.flatten().tolist()])
try:
    s(torch.ones(2))
except ValueError as e:
    print(e)
"#,
    );
    assert_eq!(
        out,
        [
            "Bilinear(in1_features=3, in2_features=2, out_features=4, bias=True) [-0.004323, 0.309716, -0.475185, -0.424895, -0.222369, 0.154821] [-0.093059, 0.061092, 0.522777, -0.535591]",
            "torch.Size([5, 4]) AddBackward0 ViewBackward0 TrilinearBackward0",
            "[-0.3896, -0.2255, 0.3242, -0.8604]",
            "[7.9365, 3.2679, 2.5964] [-12.2348, 12.9737] [16.3801, -28.8757, 24.8991, -43.6286, 25.8051, -45.4753] [40.0, 45.0, 50.0, 55.0]",
            "torch.Size([2, 3, 4]) [6.0, 6.0, 6.0, 6.0] Bilinear(in1_features=2, in2_features=2, out_features=1, bias=False)",
            "RuntimeError",
            "Softmax2d() SoftmaxBackward0 [0.018, 0.018, 0.018, 0.018, 0.982, 0.982, 0.982, 0.982]",
            "Softmax2d: expected input to be 3D or 4D, got 1D instead",
        ]
    );
}

/// `nn.EmbeddingBag` and `F.embedding_bag` in modes `mean` and `sum`:
/// offsets (an empty bag is zeros), 2-d bags, `include_last_offset`, the
/// node and gradients, and the model of PyTorch's text classification
/// tutorial trained three steps: PyTorch's losses.
#[test]
fn embedding_bag_is_pytorchs() {
    let out = printed(
        "embedding_bag",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
bag = nn.EmbeddingBag(10, 3, mode="mean")
print(bag, nn.EmbeddingBag(5, 2, mode="sum"), [round(v, 5) for v in bag.weight[1].tolist()])
text = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4, 4])
y = bag(text, offsets)
print(y.shape, y.grad_fn.name(), [[round(v, 5) for v in r] for r in y.tolist()])
(y * torch.tensor([[1.], [2.], [3.]])).sum().backward()
print([[round(v, 5) for v in r] for r in bag.weight.grad.tolist()])
s = nn.EmbeddingBag(10, 3, mode="sum")
z = s(torch.tensor([[1, 2], [3, 3]]))
print([[round(v, 5) for v in r] for r in z.tolist()])
z.sum().backward(); print(s.weight.grad.sum(1).tolist())
w = torch.arange(12.).reshape(4, 3)
print(F.embedding_bag(torch.tensor([0, 1, 3]), w, torch.tensor([0, 1, 3]), mode="sum", include_last_offset=True).tolist())
print(F.embedding_bag(torch.tensor([0, 1, 3]), w, torch.tensor([0, 2])).tolist())
class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()
    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()
    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)
model = TextClassificationModel(20, 4, 2)
print(model)
opt = torch.optim.SGD(model.parameters(), lr=5)
for step in range(3):
    opt.zero_grad()
    out = model(torch.tensor([1, 5, 7, 2, 19, 3]), torch.tensor([0, 3]))
    loss = F.cross_entropy(out, torch.tensor([0, 1]))
    loss.backward()
    opt.step()
    print(round(loss.item(), 5))
for f in [lambda: bag(text), lambda: bag(text.reshape(2, 4), offsets)]:
    try:
        print(f().tolist())
    except Exception as e:
        print(type(e).__name__, str(e)[:60])
"#,
    );
    assert_eq!(
        out,
        [
            "EmbeddingBag(10, 3, mode='mean') EmbeddingBag(5, 2, mode='sum') [-0.43388, 0.84871, 0.69201]",
            "torch.Size([3, 3]) EmbeddingBagBackward0 [[-0.18541, -0.16061, 0.2256], [0.0, 0.0, 0.0], [-0.35175, -0.00118, 0.69729]]",
            "[[0.0, 0.0, 0.0], [0.25, 0.25, 0.25], [1.0, 1.0, 1.0], [0.75, 0.75, 0.75], [1.0, 1.0, 1.0], [0.25, 0.25, 0.25], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.75, 0.75, 0.75]]",
            "[[4.07635, 1.60884, -0.14428], [-0.99936, -2.13396, 2.22988]]",
            "[0.0, 3.0, 3.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]",
            "[[0.0, 1.0, 2.0], [12.0, 14.0, 16.0]]",
            "[[1.5, 2.5, 3.5], [9.0, 10.0, 11.0]]",
            "TextClassificationModel(",
            "  (embedding): EmbeddingBag(20, 4, mode='mean')",
            "  (fc): Linear(in_features=4, out_features=2, bias=True)",
            ")",
            "0.62598",
            "0.34808",
            "0.04863",
            "ValueError offsets has to be a 1D Tensor but got None",
            "ValueError if input is 2D, then offsets has to be None, as input is tre",
        ]
    );
}

/// Bad and empty input to the new functions: PyTorch's errors (its CPU
/// embedding_bag reads the first and last offsets) and its empty results.
/// (PyTorch 2.15 also wrote `[ torch.LongTensor{} ]` to stdout from its
/// C++ on one of these, a stray print of its own, left out here.)
#[test]
fn edge_cases_of_the_new_functions_are_pytorchs() {
    let out = printed(
        "edge_cases",
        r#"import torch
import torch.nn.functional as F
for f in [lambda: F.bilinear(torch.ones(3), torch.tensor(1.), torch.ones(2, 3, 1)),
          lambda: F.embedding_bag(torch.tensor([0, 1]), torch.ones(3, 2), torch.tensor([0, 5])).tolist(),
          lambda: F.embedding_bag(torch.tensor([0, 1]), torch.ones(3, 2), torch.tensor([1, 2])).tolist(),
          lambda: torch.cdist(torch.ones(3), torch.ones(3)),
          lambda: torch.diag(torch.tensor(3.)),
          lambda: torch.addbmm(torch.ones(2, 2), torch.ones(0, 2, 3), torch.ones(0, 3, 2)).tolist(),
          lambda: torch.kron(torch.tensor(2.), torch.ones(2)).tolist(),
          lambda: torch.logspace(0, 1, 0).tolist(),
          lambda: torch.tensor([[1., 2.], [3., 4.]]).diagonal(dim1=1, dim2=1)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"#,
    );
    assert_eq!(
        out,
        [
            "RuntimeError bilinear(): input dimensions do not match: got 1 and 0",
            "RuntimeError offsets[-1] can not be greater than input's length 2 but got offsets[-1] of 5",
            "RuntimeError offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got 1",
            "RuntimeError cdist only supports at least 2D tensors, X1 got: 1D",
            "RuntimeError diag(): Supports 1D or 2D tensors. Got 0D",
            "[[1.0, 1.0], [1.0, 1.0]]",
            "[2.0, 2.0]",
            "[]",
            "RuntimeError diagonal dimensions cannot be identical 1, 1",
        ]
    );
}

/// Lines the MNIST examples reach (`examples/mnist_rnn`,
/// `mnist_forward_forward`): `Dropout2d` on a 2-D input drops single
/// elements with PyTorch's deprecation warning (a 3-D one warns that it is
/// read as (N, C, L)); `x[range(n), y]` indexes with a range;
/// `torch.randint(high, size=...)`; `x.to(device, dtype)`. PyTorch 2.15's
/// lines.
#[test]
fn mnist_examples_lines_run_as_pytorchs() {
    let (out, err, ok) = common::script_streams(
        "mnist_lines",
        r#"import torch
import torch.nn as nn
torch.manual_seed(0)
d = nn.Dropout2d(0.5)
print(d(torch.ones(4, 6)).tolist())
print(nn.functional.dropout2d(torch.ones(2, 3, 2)).tolist())
try:
    nn.functional.dropout2d(torch.ones(5))
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.arange(12.).view(3, 4)
print(x[range(3), torch.tensor([1, 3, 0])].tolist(), x[range(0, 3, 2)].tolist())
x[range(3), torch.tensor([1, 3, 0])] = -1.
print(x.tolist())
print(torch.randint(9, size=(5,)).tolist(), torch.randint(3, 9, size=(5,)).tolist())
print(torch.arange(6).to("cpu", torch.float64).dtype)
"#,
    );
    assert!(ok, "{err}");
    assert_eq!(
        out,
        r#"[[0.0, 0.0, 2.0, 0.0, 0.0, 0.0], [2.0, 2.0, 0.0, 2.0, 2.0, 2.0], [2.0, 0.0, 2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 2.0, 0.0, 2.0, 0.0]]
[[[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [2.0, 2.0]]]
RuntimeError: Feature dropout requires at least 2 dimensions in the input
[1.0, 7.0, 8.0] [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
[[0.0, -1.0, 2.0, 3.0], [4.0, 5.0, 6.0, -1.0], [-1.0, 9.0, 10.0, 11.0]]
[4, 4, 0, 6, 4] [5, 7, 7, 5, 7]
torch.float64
"#
    );
    assert!(
        err.contains("Received a 2-D input to dropout2d, which is deprecated"),
        "{err}"
    );
    assert!(
        err.contains("Received a 3D input to dropout2d and assuming that channel-wise 1D"),
        "{err}"
    );
}

/// `torch.testing.assert_close` (cudash's own module): PyTorch's
/// tolerances per dtype, exact integers, shape/dtype checks, nested
/// lists and dicts, `equal_nan`, `msg`, and PyTorch's report; each line is
/// what PyTorch 2.15 printed for the same program.
#[test]
fn assert_close_reports_as_pytorchs() {
    let got = common::script_lines_on(
        0,
        "assert_close",
        r#"import torch
from torch.testing import assert_close
cases = [
 lambda: assert_close(torch.tensor([1., 2., 3.]), torch.tensor([1., 2.1, 3.])),
 lambda: assert_close(torch.tensor(2.), torch.tensor(2.5)),
 lambda: assert_close(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1., 2.], [3.5, 4.2]])),
 lambda: assert_close(torch.ones(2), torch.ones(3)),
 lambda: assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64)),
 lambda: assert_close(torch.ones(2, dtype=torch.int64), torch.tensor([1, 2])),
 lambda: assert_close(1.0, 1.1),
 lambda: assert_close([torch.ones(2), torch.zeros(2)], [torch.ones(2), torch.ones(2)]),
 lambda: assert_close(torch.ones(2), torch.ones(2) + 1e-6),
 lambda: assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')])),
 lambda: assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')]), equal_nan=True),
 lambda: assert_close(torch.ones(2), torch.ones(2) * 1.01, rtol=0.1, atol=0.0),
 lambda: assert_close(torch.ones(2), torch.ones(2), rtol=0.1),
 lambda: assert_close({"a": torch.ones(1)}, {"a": torch.zeros(1)}),
 lambda: assert_close(torch.ones(2), torch.ones(2) * 2, msg="custom"),
 lambda: assert_close(3, 3),
 lambda: assert_close(torch.ones(2), [1., 1.]),
]
for i, c in enumerate(cases):
    try:
        c()
        print(i, "ok")
    except Exception as e:
        print(i, type(e).__name__, repr(str(e)))
"#,
    );
    assert_eq!(
        got,
        [
            "0 AssertionError 'Tensor-likes are not close!\\n\\nMismatched elements: 1 / 3 (33.3%)\\nGreatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\\nGreatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)'",
            "1 AssertionError 'Scalars are not close!\\n\\nExpected 2.5 but got 2.0.\\nAbsolute difference: 0.5 (up to 1e-05 allowed)\\nRelative difference: 0.2 (up to 1.3e-06 allowed)'",
            "2 AssertionError 'Tensor-likes are not close!\\n\\nMismatched elements: 2 / 4 (50.0%)\\nGreatest absolute difference: 0.5 at index (1, 0) (up to 1e-05 allowed)\\nGreatest relative difference: 0.1428571492433548 at index (1, 0) (up to 1.3e-06 allowed)'",
            "3 AssertionError \"The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).\"",
            "4 AssertionError \"The values for attribute 'dtype' do not match: torch.float32 != torch.float64.\"",
            "5 AssertionError 'Tensor-likes are not equal!\\n\\nMismatched elements: 1 / 2 (50.0%)\\nGreatest absolute difference: 1 at index (1,)\\nGreatest relative difference: 0.5 at index (1,)'",
            "6 AssertionError 'Scalars are not close!\\n\\nExpected 1.1 but got 1.0.\\nAbsolute difference: 0.10000000000000009 (up to 1e-07 allowed)\\nRelative difference: 0.09090909090909098 (up to 1e-07 allowed)'",
            "7 AssertionError 'Tensor-likes are not close!\\n\\nMismatched elements: 2 / 2 (100.0%)\\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\\nGreatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)\\n\\nThe failure occurred for item [1]'",
            "8 ok",
            "9 AssertionError 'Tensor-likes are not close!\\n\\nMismatched elements: 1 / 2 (50.0%)\\nGreatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)'",
            "10 ok",
            "11 ok",
            "12 ValueError \"Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.\"",
            "13 AssertionError \"Tensor-likes are not close!\\n\\nMismatched elements: 1 / 1 (100.0%)\\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\\nGreatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)\\n\\nThe failure occurred for item ['a']\"",
            "14 AssertionError 'custom'",
            "15 ok",
            "16 TypeError \"No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'list'>.\"",
        ]
    );
}

/// `torch.seed()` reseeds from the clock and gives the seed back, which
/// `torch.initial_seed()` then reports (as PyTorch printed for this program).
#[test]
fn torch_seed_gives_its_seed_back() {
    let got = common::script_lines_on(
        0,
        "seed",
        "import torch\ns = torch.seed()\nprint(type(s).__name__, s > 0, torch.initial_seed() == s)\ntorch.manual_seed(7)\nprint(torch.initial_seed())\n",
    );
    assert_eq!(got, ["int True True", "7"]);
    let got = common::script_lines_on(
        0,
        "dist_available",
        "import os, torch\nimport torch.distributed as dist\nimport torch.multiprocessing as mp\nprint(dist.is_available(), dist.is_initialized(), mp.cpu_count() == os.cpu_count())\n",
    );
    assert_eq!(got, ["True False True"]);
}

/// Older programs' legacy tensor types: `torch.cuda.FloatTensor(2, 3)` and
/// `torch.cuda.LongTensor([1, 2])` make CUDA tensors on the current device,
/// `x.type(torch.cuda.FloatTensor)` moves `x` there (`dtype =
/// torch.cuda.FloatTensor` of the old "PyTorch with examples"), and
/// `isinstance` asks of the type as PyTorch's does: a tensor of its dtype
/// on its kind of device (`torch.FloatTensor` on the CPU).
#[test]
fn legacy_cuda_tensor_types_make_and_name_cuda_tensors() {
    let got = printed_on(
        2,
        "legacy_cuda_types",
        "import torch
torch.cuda.set_device(1)
a = torch.cuda.FloatTensor(2, 3).zero_()
b = torch.cuda.LongTensor([1, 2, 3])
print(a.device, a.dtype, tuple(a.shape), b.device, b.dtype, b.tolist())
dtype = torch.cuda.FloatTensor
x = torch.ones(2)
y = x.type(dtype)
print(y.device, y.type(), x.type(), torch.cuda.DoubleTensor([[1, 2]]).dtype)
print(isinstance(y, torch.cuda.FloatTensor), isinstance(x, torch.cuda.FloatTensor),
      isinstance(x, torch.FloatTensor), isinstance(y, torch.FloatTensor), isinstance(b, torch.cuda.FloatTensor))
print(torch.cuda.FloatTensor, type(y))",
    );
    assert_eq!(
        got,
        [
            "cuda:1 torch.float32 (2, 3) cuda:1 torch.int64 [1, 2, 3]",
            "cuda:1 torch.cuda.FloatTensor torch.FloatTensor torch.float64",
            "True False True False False",
            "<class 'torch.cuda.FloatTensor'> <class 'torch.Tensor'>",
        ]
    );
}

/// `p.data = p.data - lr * p.grad` in a loop on a device holds no more
/// memory than PyTorch's (which frees the old memory at each step: cudash
/// copies into it instead, the one case where that cannot be told apart
/// but by the address), keeps the version count, and a tensor given
/// another's data views that memory.
#[test]
fn data_assignment_on_a_device_keeps_memory_flat() {
    let out = printed_on(
        1,
        "data_assignment_cuda",
        "import torch\n\
         p = torch.zeros(1024, device='cuda', requires_grad=True)\n\
         p.grad = torch.ones(1024, device='cuda')\n\
         before = torch.cuda.memory_allocated()\n\
         for _ in range(100):\n    p.data = p.data - 0.5 * p.grad\n\
         print(torch.cuda.memory_allocated() - before, p[0].item(), p._version, p.is_leaf)\n\
         q = torch.zeros(256, device='cuda')\n\
         r = torch.ones(256, device='cuda')\n\
         q.data = r\n\
         r.add_(1)\n\
         print(q.data_ptr() == r.data_ptr(), q.sum().item())\n\
         q.data = q.data.cpu()\n\
         print(q.device, q.sum().item(), r.device)\n",
    );
    assert_eq!(out, ["0 -50.0 0 True", "True 512.0", "cpu 512.0 cuda:0"]);
}
