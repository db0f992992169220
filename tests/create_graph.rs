//! Gradients of gradients (`create_graph=True`): the backward's own ops
//! recorded, so a gradient can be differentiated again. Each program
//! prints what PyTorch 2.15 printed for it (tensors through `tolist()`,
//! rounded to 4 places: a second derivative composes its ops in another
//! order than PyTorch's fused kernels, a few ulps apart).

mod common;

use common::script_lines_on;

/// Second and third derivatives through the elementwise functions and
/// activations, powers, products, quotients, matmul, softmax and
/// log_softmax: each as PyTorch 2.15 printed it. A gradient made with
/// `create_graph=True` requires grad; a gradient flat in its input
/// (`relu`'s, `leaky_relu`'s) still does, and gives that input zeros, as
/// PyTorch's `ThresholdBackwardBackward0` does.
#[test]
fn second_and_third_derivatives_are_pytorchs() {
    let out = script_lines_on(
        0,
        "derivatives",
        r#"import torch
import torch.nn.functional as F
def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
h, = torch.autograd.grad(g.sum(), x)
print(r(g), g.requires_grad, g.grad_fn.name(), r(h), h.requires_grad)
for f in [torch.exp, torch.log, torch.sigmoid, torch.tanh, torch.sin, torch.cos, torch.sqrt, torch.reciprocal, F.softplus, F.elu, F.silu]:
    u = torch.tensor([0.3, 1.7], requires_grad=True)
    d1, = torch.autograd.grad(f(u).sum(), u, create_graph=True)
    d2, = torch.autograd.grad(d1.sum(), u)
    print(f.__name__, r(d1), r(d2))
for f in [torch.relu, F.leaky_relu, torch.abs]:
    u = torch.tensor([-0.5, 2.0], requires_grad=True)
    d1, = torch.autograd.grad(f(u).sum(), u, create_graph=True)
    d2, = torch.autograd.grad(d1.sum(), u)
    print(f.__name__, r(d1), d1.requires_grad, r(d2 + 0))
u = torch.tensor([-0.5, 2.0], requires_grad=True)
d1, = torch.autograd.grad(torch.relu(u).sum(), u, create_graph=True)
d1b, = torch.autograd.grad(F.leaky_relu(u, 0.1).sum(), u, create_graph=True)
print(d1.grad_fn.name(), d1b.grad_fn.name())
z = torch.tensor([0.3, -0.7], requires_grad=True)
f = torch.sin(z) * z ** 2 / (1 + z * z)
d1, = torch.autograd.grad(f.sum(), z, create_graph=True)
d2, = torch.autograd.grad(d1.sum(), z, create_graph=True)
d3, = torch.autograd.grad(d2.sum(), z)
print(r(d1), r(d2), r(d3))
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
v = torch.tensor([1.0, 3.0], requires_grad=True)
y = torch.softmax(w @ v, dim=0)[0] + torch.log_softmax(v * w.sum(0), dim=0).mean()
gw, gv = torch.autograd.grad(y, [w, v], create_graph=True)
hw, = torch.autograd.grad((gw * gw).sum() + gv.sum(), w)
print(r(gw), r(gv), r(hw))
"#,
    );
    assert_eq!(
        out,
        vec![
            "[3.0, 12.0, 27.0] True MulBackward0 [6.0, 12.0, 18.0] False",
            "exp [1.3499, 5.4739] [1.3499, 5.4739]",
            "log [3.3333, 0.5882] [-11.1111, -0.346]",
            "sigmoid [0.2445, 0.1306] [-0.0364, -0.0903]",
            "tanh [0.9151, 0.125] [-0.5332, -0.2339]",
            "sin [0.9553, -0.1288] [-0.2955, -0.9917]",
            "cos [-0.2955, -0.9917] [-0.9553, 0.1288]",
            "sqrt [0.9129, 0.3835] [-1.5215, -0.1128]",
            "reciprocal [-11.1111, -0.346] [74.0741, 0.4071]",
            "softplus [0.5744, 0.8455] [0.2445, 0.1306]",
            "elu [1.0, 1.0] [0.0, 0.0]",
            "silu [0.6478, 1.0676] [0.478, 0.1078]",
            "relu [0.0, 1.0] True [0.0, 0.0]",
            "leaky_relu [0.01, 1.0] True [0.0, 0.0]",
            "abs [-1.0, 1.0] True [0.0, 0.0]",
            "ThresholdBackwardBackward0 LeakyReluBackwardBackward0",
            "[0.2281, 0.6578] [1.2737, -0.5697] [1.3328, -3.2422]",
            "[-0.4862, 1.4898, -0.4966, 1.4587] [-1.2363, -0.3751] [-0.3598, 0.0389, -0.344, 0.1069]",
        ]
    );
}

/// WGAN-GP's gradient penalty through three critics (Linear with
/// LeakyReLU and Tanh; strided convolutions; LayerNorm with GELU): the
/// penalty and every parameter's gradient as PyTorch 2.15 gives them (the
/// last layer's bias none: the input's gradient does not depend on it).
#[test]
fn gradient_penalties_are_pytorchs() {
    let out = script_lines_on(
        0,
        "penalties",
        r#"import torch
import torch.nn as nn
def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]
def penalty(D, real, fake, alpha):
    x = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = D(x)
    g = torch.autograd.grad(outputs=out, inputs=x, grad_outputs=torch.ones_like(out), create_graph=True, retain_graph=True)[0]
    return ((g.view(g.shape[0], -1).norm(2, dim=1) - 1) ** 2).mean()
torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
gp = penalty(mlp, torch.randn(5, 4), torch.randn(5, 4), torch.rand(5, 1))
gp.backward()
print(round(gp.item(), 5))
for n, p in mlp.named_parameters():
    print(n, None if p.grad is None else r(p.grad)[:4])
torch.manual_seed(1)
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(32, 1))
gp = penalty(cnn, torch.randn(3, 1, 7, 7), torch.randn(3, 1, 7, 7), torch.rand(3, 1, 1, 1))
gp.backward()
print(round(gp.item(), 5))
for n, p in cnn.named_parameters():
    print(n, None if p.grad is None else r(p.grad)[:4])
torch.manual_seed(2)
ln = nn.Sequential(nn.Linear(4, 6), nn.LayerNorm(6), nn.GELU(), nn.Linear(6, 1))
gp = penalty(ln, torch.randn(3, 4), torch.randn(3, 4), torch.rand(3, 1))
gp.backward()
print(round(gp.item(), 5))
for n, p in ln.named_parameters():
    print(n, None if p.grad is None else r(p.grad)[:4])
"#,
    );
    assert_eq!(
        out,
        vec![
            "0.92097",
            "0.weight [0.0134, 0.0056, 0.0091, -0.0222]",
            "0.bias [0.0006, -0.0018, -0.0007, -0.0027]",
            "2.weight [0.0125, -0.0825, 0.0018, -0.0076]",
            "2.bias [0.0071, -0.0103, 0.0113, 0.0002]",
            "4.weight [-0.0315, -0.3275, 0.0946, 0.0351]",
            "4.bias None",
            "0.88442",
            "0.weight [-0.0121, 0.0102, -0.0025, -0.0338]",
            "0.bias [0.0, 0.0, 0.0, 0.0]",
            "2.weight [-0.0018, -0.003, -0.0029, -0.0076]",
            "2.bias [0.0, 0.0, 0.0, 0.0]",
            "5.weight [0.0004, -0.0095, -0.0125, 0.0134]",
            "5.bias None",
            "0.78131",
            "0.weight [-0.0038, -0.3438, -0.1184, -0.172]",
            "0.bias [0.1004, 0.0121, -0.4445, 0.5914]",
            "1.weight [0.0239, -0.0407, -0.0989, -0.137]",
            "1.bias [0.0899, 0.0666, -0.0587, 0.1954]",
            "3.weight [-0.1107, -0.0011, -0.7727, -0.1028]",
            "3.bias None",
        ]
    );
}

/// A Hessian-vector product, MAML's inner step, a penalty on
/// cross-entropy's input gradient, a physics-informed network's `u_xx`
/// through `cat` and slices, `stack`, `backward(create_graph=True)`
/// (`.grad` with a history, `CopyBackwards`), and the graph kept by
/// default when one is created: as PyTorch 2.15 printed them.
#[test]
fn hessian_products_maml_and_pinns_are_pytorchs() {
    let (out, err, ok) = common::script_streams(
        "second_order",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
A = torch.randn(3, 3)
loss = (torch.sigmoid(A @ w) ** 2).sum() + (w * w).mean()
gw, = torch.autograd.grad(loss, w, create_graph=True)
hv, = torch.autograd.grad(gw @ torch.tensor([1.0, 0.5, -1.0]), w)
print(r(gw), r(hv))
torch.manual_seed(1)
net = nn.Linear(3, 2)
xs = torch.randn(4, 3)
ys = torch.randn(4, 2)
gw, gb = torch.autograd.grad(F.mse_loss(net(xs), ys), [net.weight, net.bias], create_graph=True)
outer = F.mse_loss(F.linear(xs, net.weight - 0.1 * gw, net.bias - 0.1 * gb), ys)
outer.backward()
print(round(outer.item(), 5), r(net.weight.grad), r(net.bias.grad))
torch.manual_seed(2)
lin = nn.Linear(3, 4)
x = torch.randn(5, 3, requires_grad=True)
gx, = torch.autograd.grad(F.cross_entropy(lin(x), torch.tensor([0, 1, 2, 3, 1])), x, create_graph=True)
(gx ** 2).sum().backward()
print(r(x.grad)[:6], r(lin.weight.grad)[:6])
torch.manual_seed(3)
net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
x = torch.rand(6, 1, requires_grad=True)
t = torch.rand(6, 1, requires_grad=True)
u = net(torch.cat([x, t], dim=1))
u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
u_t = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
loss = ((u_t - 0.01 * u_xx) ** 2).mean() + (u[:2] ** 2).mean()
loss.backward()
print(r(u_xx), round(loss.item(), 6), r(net[0].weight.grad)[:6], r(net[2].bias.grad))
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = torch.stack([a[0] * a[1], a[2] ** 3, a[1:].sum() ** 2])
g, = torch.autograd.grad(s.sum(), a, create_graph=True)
h, = torch.autograd.grad(g[2], a)
print(r(g), r(h))
x = torch.tensor([1.5, -0.5], requires_grad=True)
(x.exp() * x).sum().backward(create_graph=True)
print(r(x.grad), x.grad.grad_fn.name())
g1 = x.grad
x.grad = None
g1.sum().backward()
print(r(x.grad))
y = (x * x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(y, x)
print(r(g), r(g2))
"#,
    );
    // PyTorch's warning for `backward(create_graph=True)`, once.
    assert!(ok, "{err}");
    assert_eq!(
        err.matches("UserWarning: Using backward() with create_graph=True")
            .count(),
        1,
        "{err}"
    );
    let out: Vec<&str> = out.lines().collect();
    assert_eq!(
        out,
        vec![
            "[1.0693, -0.1403, -1.606] [0.6204, 0.2928, -0.5037]",
            "3.16784 [1.2803, -0.599, -0.3972, -0.4842, -0.1032, -0.0887] [-0.6978, 0.7624]",
            "[-0.0012, 0.0006, -0.0002, 0.0002, -0.0024, 0.0] [0.0182, -0.0084, 0.0006, 0.01, 0.0601, 0.006]",
            "[-0.0324, -0.0443, -0.0541, -0.0058, -0.0157, -0.0282] 0.192987 [0.0026, 0.0079, -0.0163, -0.0424, -0.0118, -0.0297] [-0.8545]",
            "[2.0, 11.0, 37.0] [0.0, 2.0, 20.0]",
            "[11.2042, 0.3033] torch::autograd::CopyBackwards",
            "[15.6859, 0.9098]",
            "[3.0, -1.0] [3.0, -1.0]",
        ]
    );
}

/// The same critic and penalty on the cpu and on a (simulated) GPU give
/// PyTorch's numbers on both: the recorded formulas are the op layer's
/// ops, shared by every backend.
#[test]
fn a_penalty_on_a_gpu_agrees_with_the_cpu() {
    let src = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t):
    return [round(v, 4) for v in t.flatten().tolist()]
torch.manual_seed(0)
dev = "cuda" if torch.cuda.is_available() else "cpu"
net = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(48, 8), nn.LayerNorm(8), nn.Tanh(), nn.Linear(8, 1)).to(dev)
x = torch.randn(2, 1, 4, 4).to(dev).requires_grad_(True)
out = net(x)
g, = torch.autograd.grad(out.sum(), x, create_graph=True)
gp = ((g.view(2, -1).norm(2, dim=1) - 1) ** 2).mean()
gp.backward()
print(g.device.type, round(gp.item(), 5), r(g)[:4])
print([None if p.grad is None else r(p.grad)[:3] for p in net.parameters()])
"#;
    let want = vec![
            "cpu 0.58613 [0.0032, 0.0515, -0.0668, 0.0145]",
            "[[-0.34, 0.0406, 0.1503], [0.0133, -0.455, 0.0448], [-0.0254, 0.1118, 0.0579], [-0.1126, 0.2062, 0.1897], [0.002, -0.0217, 0.0511], [-0.0019, 0.0243, 0.0132], [-0.0539, -0.8885, 0.2355], None]",
        ];
    assert_eq!(script_lines_on(0, "penalty_cpu", src), want);
    let on_gpu = script_lines_on(1, "penalty_gpu", src);
    assert_eq!(on_gpu[0], want[0].replacen("cpu", "cuda", 1));
    assert_eq!(on_gpu[1], want[1]);
}

/// A node whose formula is not recorded yet is refused by name, not
/// handed on as a gradient without history; `retain_graph=False` given
/// with `create_graph=True` frees the graph as PyTorch's does.
#[test]
fn what_cannot_be_differentiated_twice_says_so() {
    let (out, err, ok) = common::script_streams(
        "refused",
        r#"import torch
import torch.nn.functional as F
x = torch.randn(1, 1, 4, 4, requires_grad=True)
try:
    torch.autograd.grad((x.cumprod(2) ** 2).sum(), x, create_graph=True)
except RuntimeError as e:
    print(str(e).split(" (")[0])
y = (x * x).sum()
g, = torch.autograd.grad(y, x, create_graph=True, retain_graph=False)
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print(str(e)[:48])
print(g.requires_grad, x.shape)
"#,
    );
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "create_graph=True: cudash cannot differentiate CumprodBackward0's gradient yet",
            "Trying to backward through the graph a second ti",
            "True torch.Size([1, 1, 4, 4])",
        ]
    );
}

/// Batch norm (training: its statistics computed again from the input, so
/// the gradient depends on it through them; evaluation: the running
/// ones), max and average pooling and adaptive pooling, twice
/// differentiated as PyTorch 2.15 does (rounded to 3 places: a second
/// derivative through a batch's statistics cancels much).
#[test]
fn batch_norm_and_pooling_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "norm_pool",
        r#"import torch
import torch.nn as nn
def r(t):
    return [round(v, 3) for v in t.flatten().tolist()]
torch.manual_seed(0)
D = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                  nn.Conv2d(4, 4, 3, padding=1), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(8, 6),
                  nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 1))
x = torch.randn(3, 1, 8, 4, requires_grad=True)
g, = torch.autograd.grad(D(x).sum(), x, create_graph=True)
gp = (g.pow(2).sum(dim=(1, 2, 3)) - 1).pow(2).mean()
gp.backward()
print(round(gp.item(), 4), r(g[0, 0, 0]))
print([r(p.grad)[:3] for n, p in D.named_parameters() if "weight" in n])
print(r(x.grad[0, 0, :2]))
D.eval()
x.grad = None
g, = torch.autograd.grad(D(x).sum(), x, create_graph=True)
(g ** 2).sum().backward()
print(r(x.grad[0, 0, 0] * 1e5), r(D[0].weight.grad)[:3])
y = torch.randn(2, 3, 4, 4, requires_grad=True)
gy, = torch.autograd.grad(torch.sigmoid(nn.AdaptiveAvgPool2d(1)(y * y)).sum(), y, create_graph=True)
gy.sum().backward()
print(r(y.grad[0, 0, 0]))
"#,
    );
    assert_eq!(
        out,
        vec![
            "0.5108 [0.092, 0.054, -0.03, -0.056]",
            "[[-0.69, -0.815, -4.841], [0.381, 0.003, -0.848], [1.053, 1.94, 0.887], [0.025, 0.08, 0.129], [0.023, 0.0, -0.517], [-0.102, 0.068, -1.377]]",
            "[-0.128, -0.152, 0.173, 0.114, 0.289, 0.035, 0.091, 0.181]",
            "[-0.692, -0.434, 0.474, 1.145] [-0.69, -0.812, -4.843]",
            "[0.01, 0.002, 0.016, 0.017]",
        ]
    );
}

/// PyTorch's "double backward with custom functions" tutorial: a
/// program's `torch.autograd.Function` whose backward is written with
/// differentiable ops runs it recording when the backward creates a graph,
/// and reads `ctx.saved_tensors` with their history (an input's, or the
/// node's own output's), as PyTorch's saved variables.
#[test]
fn custom_functions_differentiate_twice_as_pytorchs() {
    let out = script_lines_on(
        0,
        "custom_twice",
        r#"import torch
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return grad_out * result
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
for F in [Square, Exp]:
    y = F.apply(x).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    print(g.tolist(), g.grad_fn.name(), h.tolist())
"#,
    );
    assert_eq!(
        out,
        vec![
            "[1.0, -2.0, 4.0] MulBackward0 [2.0, 2.0, 2.0]",
            "[1.6487212181091309, 0.3678794503211975, 7.389056205749512] MulBackward0 [1.6487212181091309, 0.3678794503211975, 7.389056205749512]",
        ]
    );
}

/// A tensor hook runs recording when the backward creates a graph (as
/// PyTorch's engine runs hooks in grad mode then): what it does to the
/// gradient is differentiated too, and it runs again in the second
/// backward through it (PyTorch 2.15: `[2.0, 16.0] [6.0, 72.0]`).
#[test]
fn hooks_record_when_a_graph_is_created() {
    let out = script_lines_on(
        0,
        "hooks_twice",
        r#"import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: g * y)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
h, = torch.autograd.grad(g.sum(), x)
print(g.tolist(), h.tolist())
"#,
    );
    assert_eq!(out, ["[2.0, 16.0] [6.0, 72.0]"]);
}

/// Norms (`F.normalize`, p = 1, 2, 3), variance and standard deviation
/// (a minibatch-std feature, `std_mean`) twice differentiated as PyTorch
/// 2.15 does (rounded to 2 places: the values are in the hundreds).
#[test]
fn norms_and_variances_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "norms_twice",
        r#"import torch
import torch.nn.functional as F
def r(t):
    return [round(v, 2) for v in t.flatten().tolist()]
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
W = torch.randn(3, 3, requires_grad=True)
h = x @ W
mstd = h.std(dim=0).mean()
feat = F.normalize(h, dim=1)
out = (feat.sum(1) * mstd).sum() + h.norm() + h.var() + torch.std_mean(h, dim=1)[0].sum() + h.norm(p=1) + h.norm(p=3, dim=0).sum()
g, = torch.autograd.grad(out, x, create_graph=True)
(g ** 2).sum().backward()
print(r(g), r(W.grad))
"#,
    );
    assert_eq!(
        out,
        vec![
            "[6.62, -3.44, -9.48, 3.73, -2.25, -7.39, 0.54, -0.89, -4.73, -6.89, 1.66, -2.57] [35.98, 96.15, -84.56, 36.18, -55.93, 136.59, -125.64, -184.84, 87.46]",
        ]
    );
}

/// GroupNorm (its groups' statistics computed again from x) and
/// InstanceNorm (a batch norm of each sample's channels) in a critic with
/// SiLU and LeakyReLU, its gradient penalty as PyTorch 2.15 gives it
/// (rounded to 3 places; a zero's sign dropped).
#[test]
fn group_and_instance_norm_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "group_norm_twice",
        r#"import torch
import torch.nn as nn
def r(t):
    return [round(v, 3) + 0.0 for v in t.flatten().tolist()]
torch.manual_seed(0)
D = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.SiLU(), nn.Conv2d(4, 4, 3), nn.InstanceNorm2d(4, affine=True), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(16, 1))
x = torch.randn(2, 2, 4, 4, requires_grad=True)
g, = torch.autograd.grad(D(x).sum(), x, create_graph=True)
gp = (g.pow(2).sum(dim=(1, 2, 3)) - 1).pow(2).mean()
gp.backward()
print(round(gp.item(), 4), r(g[0, 0, 0]))
print([None if p.grad is None else r(p.grad)[:3] for n, p in D.named_parameters()])
print(r(x.grad[0, 0, :2]))
"#,
    );
    assert_eq!(
        out,
        vec![
            "0.4422 [-0.027, 0.09, 0.021, -0.1]",
            "[[0.907, 2.665, -2.8], [0.963, -0.963, -0.481], [1.683, -1.103, 0.0], [0.793, -0.094, -0.419], [0.065, 0.076, -0.269], [0.0, 0.0, 0.0], [-0.122, 0.041, -0.037], [0.0, 0.0, 0.0], [0.023, -0.55, 0.254], None]",
            "[-0.005, -0.023, 0.013, 0.019, -0.004, 0.024, 0.0, -0.016]",
        ]
    );
}

/// Powers of tensors and of numbers, `maximum`, `clamp` by numbers and by
/// tensors, `max()` of all, `remainder`: their gradients differentiated
/// again as PyTorch 2.15 does (rounded to 2 places).
#[test]
fn powers_extrema_and_clamps_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "powers_twice",
        r#"import torch
def r(t):
    return [round(v, 2) + 0.0 for v in t.flatten().tolist()]
x = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
y = torch.tensor([2.0, 0.5, 1.5], requires_grad=True)
out = (x ** y).sum() + (2.0 ** x).sum() + torch.maximum(x * x, y).sum() + torch.clamp(x * y, 0.8, 3.0).sum() + torch.clamp(x, min=y * 0.5, max=y * 2).pow(2).sum() + (x * y).max() + torch.remainder(x * 3, y).sum()
gx, gy = torch.autograd.grad(out, [x, y], create_graph=True)
hx, hy = torch.autograd.grad((gx * gx).sum() + (gy ** 3).sum(), [x, y])
print(r(gx), r(gy), r(hx), r(hy))
"#,
    );
    assert_eq!(
        out,
        vec![
            "[6.98, 8.37, 20.79] [2.33, -4.5, 1.12] [50.51, 113.69, 317.04] [21.34, 515.42, 210.24]",
        ]
    );
}

/// Advanced indexing (repeated indices add up), an embedding with a
/// padding row, `split` and `unbind` parts: twice differentiated as
/// PyTorch 2.15 does, the gradients' nodes named as PyTorch's
/// (`EmbeddingDenseBackwardBackward0`).
#[test]
fn indexing_embeddings_and_parts_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "indexing_twice",
        r#"import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t):
    return [round(v, 3) + 0.0 for v in t.flatten().tolist()]
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
idx = torch.tensor([0, 2, 2, 3])
y = torch.tanh(x[idx] * x[:, 0:1][idx]).sum() + (x[torch.tensor([1, 1]), torch.tensor([0, 2])] ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
h, = torch.autograd.grad((g ** 2).sum(), x)
print(r(g), g.grad_fn.name(), r(h))
emb = nn.Embedding(6, 3, padding_idx=0)
tok = torch.tensor([[1, 0, 4], [4, 5, 1]])
e = emb(tok)
a, b = e.chunk(2, dim=2) if False else e.split([1, 2], dim=2)
loss = (torch.sigmoid(a) * b).sum() + torch.stack(list(e.unbind(1)), 0).pow(2).mean()
gw, = torch.autograd.grad(loss, emb.weight, create_graph=True)
gw.pow(2).sum().backward()
print(r(gw)[:9], gw.grad_fn.name(), r(emb.weight.grad)[:9])
"#,
    );
    assert_eq!(
        out,
        vec![
            "[-0.146, 1.264, 0.007, 0.969, 0.0, 5.868, 1.746, 0.721, 0.742, -1.168, -0.381, -0.401] AddBackward0 [1.415, 4.027, 0.008, 6.612, 0.0, -98.487, 15.493, 4.595, 5.625, -5.141, -1.9, -2.318]",
            "[0.0, 0.0, 0.0, -0.362, 1.09, 0.978, 0.0, 0.0, 0.0] EmbeddingDenseBackwardBackward0 [0.0, 0.0, 0.0, 1.834, 0.129, 0.079, 0.0, 0.0, 0.0]",
        ]
    );
}

/// `max(dim)`, `amax`, `logsumexp`, `F.pad`, `cumsum`, `flip`, `roll`:
/// twice differentiated as PyTorch 2.15 does (rounded to 2 places).
#[test]
fn reductions_pads_and_shifts_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "shifts_twice",
        r#"import torch
import torch.nn.functional as F
def r(t):
    return [round(v, 2) + 0.0 for v in t.flatten().tolist()]
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
h = torch.tanh(x)
y = h.max(dim=1)[0].sum() + F.pad(h * x, (1, 2)).pow(2).sum() + h.cumsum(1).pow(2).sum() + (h.flip(0) * x).sum() + (h.roll(1, 1) * x).pow(2).sum() + (h.amax(0) * x[0]).sum() + torch.logsumexp(h * x, dim=1).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
h2, = torch.autograd.grad((g ** 2).sum(), x)
print(r(g), r(h2))
"#,
    );
    assert_eq!(
        out,
        vec![
            "[5.51, -3.6, -5.8, 4.75, -8.97, -7.98, -2.98, 3.94, -5.15, -8.1, -7.73, -0.21] [32.82, -153.14, -56.36, 77.03, -30.56, -58.69, -98.12, 38.72, -85.7, -135.42, -65.39, -37.43]",
        ]
    );
}

/// `torch.autograd.functional` (a module of cudash's written in Python on
/// `grad`): `jacobian` of one and of several inputs and outputs,
/// `hessian` (its blocks for a tuple of inputs), `vjp`, `jvp` and `hvp`
/// by the double-backward trick, `vhp`, `create_graph=True`, and
/// PyTorch's errors: as PyTorch 2.15 printed them.
#[test]
fn autograd_functional_is_pytorchs() {
    let out = script_lines_on(
        0,
        "functional",
        r#"import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, vhp, hvp
def r(t):
    return [round(v, 4) + 0.0 for v in t.flatten().tolist()]
def f(x):
    return torch.tanh(x) * x.sum()
x = torch.tensor([0.5, -1.0, 2.0])
J = jacobian(f, x)
print(J.shape, r(J), J.requires_grad)
def g(a, b):
    return (a * b.exp()).sum() + (a ** 3).sum() * b[0]
a = torch.tensor([1.0, 2.0])
b = torch.tensor([0.5, -0.5])
H = hessian(g, (a, b))
print(len(H), len(H[0]), [tuple(h.shape) for row in H for h in row])
print([r(h) for row in H for h in row])
Hx = hessian(lambda t: (t ** 3).sum() + t[0] * t[1] * t[2], x)
print(r(Hx))
out, p = vjp(f, x, torch.ones(3))
print(r(out), r(p))
out, p = jvp(f, x, torch.tensor([1.0, 0.0, 0.5]))
print(r(p))
out, p = vhp(lambda t: (torch.sin(t) * t).sum(), x, torch.ones(3))
print(round(out.item(), 4), r(p))
out, p = hvp(lambda t: (torch.sin(t) * t).sum(), x, torch.ones(3))
print(r(p))
J2 = jacobian(lambda a, b: (a * b, a.sum() * b), (a, b))
print([tuple(j.shape) for row in J2 for j in row], [r(j) for row in J2 for j in row])
w = torch.tensor([1.0, 2.0], requires_grad=True)
Jc = jacobian(lambda t: t * w, x[:2], create_graph=True)
print(Jc.requires_grad)
try:
    hessian(lambda t: t * 2, x)
except RuntimeError as e:
    print(e)
try:
    vjp(f, x)
except RuntimeError as e:
    print(e)
"#,
    );
    assert_eq!(
        out,
        vec![
            "torch.Size([3, 3]) [1.6418, 0.4621, 0.4621, -0.7616, -0.1316, -0.7616, 0.964, 0.964, 1.07] False",
            "2 2 [(2, 2), (2, 2), (2, 2), (2, 2)]",
            "[[3.0, 0.0, 0.0, 6.0], [4.6487, 0.0, 12.0, 0.6065], [4.6487, 12.0, 0.0, 0.6065], [1.6487, 0.0, 0.0, 1.2131]]",
            "[3.0, 2.0, -1.0, 2.0, -6.0, 0.5, -1.0, 0.5, 12.0]",
            "[0.6932, -1.1424, 1.446] [1.8442, 1.2945, 0.7705]",
            "[1.8728, -1.1424, 1.499]",
            "2.8998 [1.5155, 0.2391, -2.6509]",
            "[1.5155, 0.2391, -2.6509]",
            "[(2, 2), (2, 2), (2, 2), (2, 2)] [[0.5, 0.0, 0.0, -0.5], [1.0, 0.0, 0.0, 2.0], [0.5, 0.5, -0.5, -0.5], [3.0, 0.0, 0.0, 3.0]]",
            "True",
            "The Tensor returned by the function given to hessian should contain a single element",
            "The vector v can only be None if the user-provided function returns a single Tensor with a single element.",
        ]
    );
}

/// `torch.autograd.functional`'s checks, in PyTorch 2.15's words: strict
/// mode's outputs that need no gradient, an output independent of an
/// input, a Hessian of a linear function; a `v` of the wrong size; a list
/// where a tuple is needed.
#[test]
fn autograd_functional_refuses_as_pytorch() {
    let out = script_lines_on(
        0,
        "functional_checks",
        r#"import torch
from torch.autograd.functional import jacobian, vjp, hvp
x = torch.tensor([0.5, -1.0])
for f in [lambda: jacobian(lambda t: torch.ones(2), x, strict=True),
          lambda: jacobian(lambda t, u: t * 2, (x, x), strict=True),
          lambda: vjp(lambda t: t * 2, x, torch.ones(3)),
          lambda: hvp(lambda t: (t * 2).sum(), x, torch.ones(2), strict=True),
          lambda: jacobian(lambda t: t, [x])]:
    try:
        print(f())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
print([j.tolist() for j in jacobian(lambda t, u: t * 2, (x, x))])
print([t.tolist() for t in hvp(lambda t: (t * 2).sum(), x, torch.ones(2))])
"#,
    );
    assert_eq!(
        out,
        vec![
            "RuntimeError Output 0 of the user-provided function does not require gradients. The outputs must be computed in a differentiable manner from the input when running in strict mode.",
            "RuntimeError Output 0 of the user-provided function is independent of input 1. This is not allowed in strict mode.",
            "RuntimeError v has invalid size: should be torch.Size([2]) but got torch.Size([3]).",
            "RuntimeError While computing the hessian, found that the jacobian of the user-provided function with respect to input 0 is independent of the input. This is not allowed in strict mode. You should ensure that your function is twice differentiable and that the jacobian depends on the inputs (this would be violated by a linear function for example).",
            "TypeError The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given inputs has type <class 'list'>.",
            "[[[2.0, 0.0], [0.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]]]",
            "[-1.0, [0.0, 0.0]]",
        ]
    );
}

/// The elementwise losses (binary cross-entropy, with logits and a
/// `pos_weight`, smooth L1, Huber, soft margin, L1) twice differentiated,
/// as MAML's inner step with such a loss needs: PyTorch 2.15's numbers.
#[test]
fn elementwise_losses_twice_are_pytorchs() {
    let out = script_lines_on(
        0,
        "losses_twice",
        r#"import torch
import torch.nn.functional as F
def r(t):
    return [round(v, 4) + 0.0 for v in t.flatten().tolist()]
torch.manual_seed(0)
w = torch.randn(3, 2, requires_grad=True)
x = torch.randn(4, 3)
t = torch.rand(4, 2)
losses = [lambda z: F.binary_cross_entropy(torch.sigmoid(z), t),
          lambda z: F.binary_cross_entropy_with_logits(z, t, pos_weight=torch.tensor([2.0, 0.5])),
          lambda z: F.binary_cross_entropy_with_logits(z, t),
          lambda z: F.smooth_l1_loss(z, t, beta=0.5), lambda z: F.huber_loss(z, t, delta=0.7),
          lambda z: F.soft_margin_loss(z, t * 2 - 1), lambda z: F.l1_loss(z, t)]
for loss in losses:
    g, = torch.autograd.grad(loss(x @ w), w, create_graph=True)
    h, = torch.autograd.grad((g ** 2).sum() + g.sum(), w)
    print(r(g), r(h))
"#,
    );
    assert_eq!(
        out,
        vec![
            "[0.0657, -0.0565, -0.0457, 0.0867, 0.0486, -0.0739] [0.023, 0.0191, 0.0138, 0.0277, -0.003, -0.0138]",
            "[0.1232, -0.0642, -0.0944, 0.0802, 0.1118, -0.0781] [0.037, 0.0118, 0.0082, 0.0163, 0.0075, -0.0074]",
            "[0.0657, -0.0565, -0.0457, 0.0867, 0.0486, -0.0739] [0.023, 0.0191, 0.0138, 0.0277, -0.003, -0.0138]",
            "[0.0944, -0.0282, -0.2676, 0.3739, 0.2532, -0.2814] [0.0623, 0.1544, 0.009, 0.3207, 0.0195, -0.2753]",
            "[0.0619, -0.0285, -0.1752, 0.2435, 0.1653, -0.1813] [0.0363, 0.0589, 0.03, 0.1224, -0.0048, -0.105]",
            "[0.0248, -0.0346, 0.0433, 0.0331, -0.0274, -0.0275] [0.005, 0.0092, 0.009, 0.0096, -0.0059, -0.0054]",
            "[0.1224, -0.0216, -0.2385, 0.3877, 0.2477, -0.2932] [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]",
        ]
    );
}

/// `repeat` (tiles summed back, new leading dims too) twice
/// differentiated as PyTorch 2.15 does (rounded to 1 place: values in the
/// thousands).
#[test]
fn repeat_twice_is_pytorchs() {
    let out = script_lines_on(
        0,
        "repeat_twice",
        r#"import torch
def r(t):
    return [round(v, 1) + 0.0 for v in t.flatten().tolist()]
x = torch.tensor([[0.5, -1.0], [2.0, 0.3]], requires_grad=True)
y = (torch.tanh(x.repeat(2, 3)) * torch.arange(24.0).view(4, 6)).sum() + (x.repeat(3, 1, 1) ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
h, = torch.autograd.grad((g ** 2).sum(), x)
print(r(g), r(h))
"#,
    );
    assert_eq!(
        out,
        vec!["[40.0, 31.7, 41.9, 83.2] [-2071.1, 1048.2, 2059.6, -7084.0]",]
    );
}
