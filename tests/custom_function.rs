//! `torch.autograd.Function` of the program's (PyTorch's "Defining new
//! autograd functions", its Legendre polynomial example): `apply` records
//! one node named after the class whose backward is the program's, with
//! the `ctx` forward filled. Expected values are what PyTorch 2.15 printed
//! for the same program on the CPU.

mod common;

const LEGENDRE: &str = "\
import torch
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)

";

#[test]
fn apply_records_one_node_whose_backward_is_the_programs() {
    let out = common::ok(&format!(
        "{LEGENDRE}x = torch.tensor([0.5, -1.0, 2.0])
c = torch.tensor(0.25, requires_grad=True)
d = torch.tensor(-0.75, requires_grad=True)
P3 = LegendrePolynomial3.apply
y = P3(c + d * x)
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.sum().backward()
print(y.tolist(), c.grad.item(), d.grad.item())
print(LegendrePolynomial3.apply(torch.tensor(2.0)).requires_grad)
"
    ));
    assert_eq!(
        out,
        "LegendrePolynomial3Backward AddBackward0\n\
         [0.1826171875, 1.0, -3.0078125] 14.8359375 13.74609375\n\
         False"
    );
}

/// Several outputs, an argument that is no tensor (its gradient None),
/// state kept on `ctx` as attributes, `needs_input_grad`.
#[test]
fn several_outputs_and_arguments_that_are_not_tensors() {
    let out = common::ok(
        "import torch
class MulConst(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        print(ctx.needs_input_grad)
        return x * k, x + 1

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * ctx.k + g2, None

w = torch.ones(3, requires_grad=True)
p, q = MulConst.apply(w, 4.0)
(p.sum() + 2 * q.sum()).backward()
print(w.grad.tolist(), p.requires_grad, q.grad_fn.name())
",
    );
    assert_eq!(out, "(True, False)\n[6.0, 6.0, 6.0] True MulConstBackward");
}

/// PyTorch's errors: a backward giving the wrong number of gradients, a
/// second backward through a freed node, `Function` called itself.
#[test]
fn misuse_is_pytorchs_error() {
    let (class, message) = common::err(
        "import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, k):
        return a * k

    @staticmethod
    def backward(ctx, g):
        return g

Bad.apply(torch.ones((), requires_grad=True), 2.0).backward()
",
    );
    assert_eq!(class, "RuntimeError");
    assert_eq!(
        message,
        "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"
    );
    let (class, message) = common::err(&format!(
        "{LEGENDRE}z = LegendrePolynomial3.apply(torch.ones((), requires_grad=True) * 2)
z.backward()
z.backward()
"
    ));
    assert_eq!(class, "RuntimeError");
    assert!(
        message.starts_with("Trying to backward through the graph a second time"),
        "{message}"
    );
    let (_, message) = common::err("import torch\ntorch.autograd.Function()");
    assert!(message.contains("is a base class"), "{message}");
}

/// What `save_for_backward` kept goes with the node, freed once backward
/// ran it (PyTorch frees a node's saved tensors node by node).
#[test]
fn what_ctx_kept_is_freed_when_backward_has_run() {
    let out = common::ok(&format!(
        "{LEGENDRE}x = torch.ones(1024, 1024, device=\"cuda\", requires_grad=True)
y = LegendrePolynomial3.apply(x * 2)
print(torch.cuda.memory_allocated() // 2**20)
y.sum().backward()
del y
print(torch.cuda.memory_allocated() // 2**20)
"
    ));
    // x, the x * 2 that ctx keeps, y; then x and x.grad: ctx is gone.
    assert_eq!(out, "12\n8");
}

/// `ctx.saved_tensors` in backward are the tensors forward saved as
/// PyTorch unpacks them, history included: an input that requires grad
/// still does (a reentrant checkpoint recomputes from it under
/// `enable_grad`), even in a backward that creates no graph. What
/// PyTorch 2.15 printed for the same program.
#[test]
fn saved_tensors_keep_requires_grad_in_backward() {
    let out = common::ok(
        "import torch
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * 2

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        d = t.detach()
        d.requires_grad = t.requires_grad
        with torch.enable_grad():
            o = d.exp()
        print(t.requires_grad, t.is_leaf, o.requires_grad, torch.is_grad_enabled())
        return g * 2

x = torch.tensor([1.0, 2.0], requires_grad=True)
Twice.apply(Twice.apply(x)).sum().backward()
print(x.grad.tolist())
",
    );
    assert_eq!(
        out,
        "True False True False\nTrue True True False\n[4.0, 4.0]"
    );
}

/// A Function's `ctx.save_for_backward` under saved-tensor hooks: each
/// tensor goes to `pack` and backward's `ctx.saved_tensors` are what
/// `unpack` gives, as PyTorch packs a Function's saved variables; so a
/// custom Function inside a checkpoint is recomputed like any op, and an
/// unpack hook that returns no tensor is PyTorch's TypeError. What
/// PyTorch 2.15 printed for the same program.
#[test]
fn a_functions_saved_tensors_go_through_the_hooks() {
    let out = common::ok(
        "import torch
from torch.utils.checkpoint import checkpoint

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2

seen = []
def pack(t):
    seen.append(tuple(t.shape))
    return (\"packed\", t.clone())
def unpack(p):
    seen.append(p[0])
    return p[1]

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = Cube.apply(x) * 2
print(seen)
y.sum().backward()
print(seen, x.grad.tolist())

def f(t):
    return Cube.apply(t).sin()
x.grad = None
calls = []
out = checkpoint(lambda t: (calls.append(1), f(t))[1], x, use_reentrant=False)
out.sum().backward()
print(len(calls), torch.allclose(x.grad, torch.cos(x ** 3) * 3 * x ** 2))

def bad_pack(t):
    return 5
with torch.autograd.graph.saved_tensors_hooks(bad_pack, lambda p: p):
    z = Cube.apply(x)
try:
    z.sum().backward()
except TypeError as e:
    print(\"TypeError:\", e)
",
    );
    assert_eq!(
        out,
        "[(3,)]\n[(3,), 'packed'] [6.0, 24.0, 54.0]\n2 True\nTypeError: Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"
    );
}
