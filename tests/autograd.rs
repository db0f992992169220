//! Autograd: each op's gradient against central finite differences in f64
//! (on the cpu, a simulated GPU and emu's kernels), and PyTorch's rules:
//! accumulation, `retain_graph`, `no_grad`, saved tensors freed by
//! backward, version counters, what is refused, and the optimizers'
//! updates. `scripts/torch_check.py` compares the same gradients with
//! PyTorch's own bit by bit.

mod common;

use common::{err, ok, ok_in};
use cudash::runtime::backend::BackendChoice;
use cudash::session::{Config, Session};

fn session(backend: BackendChoice) -> Session {
    Session::new(Config {
        backend,
        ..Config::default()
    })
    .unwrap()
}

/// Numbers printed as a list (`print(x.flatten().tolist())`) or alone.
fn numbers(text: &str) -> Vec<f64> {
    text.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim()
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("not a number: {s:?} in {text}"))
        })
        .collect()
}

fn literal(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[{}]", items.join(", "))
}

/// The loss `sum(f(a, b) * g)` for the inputs given, and the gradient
/// autograd gives for input `wrt`.
struct Check<'a> {
    /// The op, in terms of `a` and `b` (`"a * b"`, `"a.exp()"`).
    expr: &'a str,
    a: (Vec<f64>, &'a str),
    b: Option<(Vec<f64>, &'a str)>,
    /// The shape of the op's result (the gradient `g` of it is fixed, non-uniform).
    out: &'a str,
    device: &'a str,
}

impl Check<'_> {
    fn script(&self, a: &[f64], b: Option<&[f64]>, grad_of: Option<&str>) -> String {
        let req = |n: &str| {
            if grad_of == Some(n) {
                ".requires_grad_()"
            } else {
                ""
            }
        };
        let mut s = format!(
            "a = tensor({}, dtype=f64, device={}).reshape({}){}\n",
            literal(a),
            self.device,
            self.a.1,
            req("a")
        );
        if let (Some(b), Some((_, shape))) = (b, &self.b) {
            s += &format!(
                "b = tensor({}, dtype=f64, device={}).reshape({shape}){}\n",
                literal(b),
                self.device,
                req("b")
            );
        }
        s += &format!(
            "seed(3)\ng = randn({}, dtype=f64, device={})\n",
            self.out, self.device
        );
        // Statements first (in-place ops), then the expression the loss is of.
        let (stmts, expr) = self.expr.rsplit_once('\n').unwrap_or(("", self.expr));
        s += stmts;
        s += &format!("\nloss = (({expr}) * g).sum()\n");
        match grad_of {
            Some(n) => s + &format!("loss.backward()\nprint({n}.grad.flatten().tolist())"),
            None => s + "print(loss.item())",
        }
    }

    /// The largest difference between autograd's gradient of `wrt` and
    /// the finite differences, relative to the gradient's size.
    fn error(&self, s: &mut Session, wrt: &str) -> f64 {
        let b = self.b.as_ref().map(|(v, _)| v.as_slice());
        let analytic = numbers(&ok_in(s, &self.script(&self.a.0, b, Some(wrt))));
        let eps = 1e-6;
        let base: Vec<f64> = if wrt == "a" {
            self.a.0.clone()
        } else {
            b.unwrap().to_vec()
        };
        let mut worst: f64 = 0.0;
        let scale = analytic.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for i in 0..base.len() {
            let mut loss_at = |d: f64| {
                let mut v = base.clone();
                v[i] += d;
                let src = match wrt {
                    "a" => self.script(&v, b, None),
                    _ => self.script(&self.a.0, Some(&v), None),
                };
                numbers(&ok_in(s, &src))[0]
            };
            let numeric = (loss_at(eps) - loss_at(-eps)) / (2.0 * eps);
            worst = worst.max((numeric - analytic[i]).abs() / scale);
        }
        worst
    }
}

fn values(n: usize, seed: u64, positive: bool) -> Vec<f64> {
    // A fixed spread of values away from the kinks (0 for relu and abs).
    (0..n)
        .map(|i| {
            let x = (((i as u64 * 7919 + seed * 104_729) % 1000) as f64 / 1000.0) * 3.0 - 1.5;
            let x = if x.abs() < 0.1 { x + 0.3 } else { x };
            if positive {
                x.abs() + 0.3
            } else {
                x
            }
        })
        .collect()
}

fn check_all(backend: BackendChoice, device: &str) {
    let mut s = session(backend);
    let unary = [
        "a.exp()",
        "a.log()",
        "a.sqrt()",
        "a.abs()",
        "a.relu()",
        "a.sigmoid()",
        "a.tanh()",
        "a.sin()",
        "a.cos()",
        "-a",
        "a ** 3",
        "a ** 0.5",
        "2 ** a",
        "3 / a",
        "2 - a",
        "a / 4",
        "softmax(a, dim=1)",
        "log_softmax(a, dim=0)",
        "a.T",
        "a.transpose(0, 1)",
        "a.permute(1, 0)",
        "a.reshape(6)",
        "a.unsqueeze(0)",
        "a.flatten()",
        "a.clone()",
        "a[1]",
        "a[:, 1:]",
        "clamp(a, -0.5, 0.5)",
        "clamp(a, min=0.2)",
        "a.clamp(max=0.2)",
        "a.flip(0, 1)",
        "a.repeat(2, 1)",
        "a.repeat(2, 1, 2)",
        "a.chunk(2, 1)[1]",
        "a.split([1, 2], 1)[1]",
        "a.tril()",
        "a.triu(1)",
        "a.cumsum(1)",
        "cumsum(a, 0)",
        "a.cumprod(1)",
        "cumprod(a, 0)",
        "a.sort(1).values",
        "a.sort(0, descending=true).values",
        "a.topk(2, dim=1).values",
        "a[tensor([1, 0, 1])]",
        "a[:, tensor([2, 2, 0])]",
        "a[tensor([[true, false, true], [false, true, true]])]",
        "a.masked_fill(tensor([[true, false, true], [false, true, true]]).to(a.device), 0.5)",
        "a.masked_fill(tensor([false, true, false]).to(a.device), -2)",
        "(a * 1).masked_fill_(tensor([true, false, false]).to(a.device), 0)",
        "a.roll(1, 1)",
        "roll(a, (1, -1), (0, 1))",
        "roll(a, 4)",
    ];
    for expr in unary {
        let positive = ["a.log()", "a.sqrt()", "a ** 0.5", "3 / a"].contains(&expr);
        let out = match expr {
            "a.T" | "a.transpose(0, 1)" | "a.permute(1, 0)" => "3, 2",
            "a.reshape(6)" | "a.flatten()" => "6",
            "a.unsqueeze(0)" => "1, 2, 3",
            "a[1]" => "3",
            "a[:, 1:]" => "2, 2",
            "a.repeat(2, 1)" => "4, 3",
            "a.repeat(2, 1, 2)" => "2, 2, 6",
            "a.chunk(2, 1)[1]" => "2, 1",
            "a.topk(2, dim=1).values" => "2, 2",
            "a.split([1, 2], 1)[1]" => "2, 2",
            "a[tensor([1, 0, 1])]" => "3, 3",
            "a[tensor([[true, false, true], [false, true, true]])]" => "4",
            _ => "2, 3",
        };
        let c = Check {
            expr,
            a: (values(6, 1, positive), "2, 3"),
            b: None,
            out,
            device,
        };
        let e = c.error(&mut s, "a");
        assert!(e < 1e-6, "{device}: d/da of `{expr}` is off by {e:e}");
    }
    for (expr, out) in [
        ("a.sum()", "1"),
        ("a.mean()", "1"),
        ("a.sum(1)", "2"),
        ("a.mean(0, keepdim=true)", "1, 3"),
        ("a.sum((0, 1))", "1"),
        ("a.max()", "1"),
        ("a.min()", "1"),
        ("a.max(1).values", "2"),
        ("a.min(0, keepdim=true).values", "1, 3"),
        ("a.prod()", "1"),
        ("a.prod(1)", "2"),
        ("a.prod(0, keepdim=true)", "1, 3"),
        ("a.var()", "1"),
        ("a.var(1)", "2"),
        ("a.var((0, 1), correction=0)", "1"),
        ("a.std()", "1"),
        ("a.std(0, keepdim=true)", "1, 3"),
        ("a.norm()", "1"),
        ("a.norm(1)", "1"),
        ("a.norm(3, dim=1)", "2"),
        ("a.norm(0.5)", "1"),
        ("a.norm(inf, dim=0)", "3"),
        ("cross_entropy(a, tensor([0, 2]).to(a.device))", "1"),
        ("nll_loss(a, tensor([1, -100]).to(a.device))", "1"),
        (
            "cross_entropy(a, tensor([2, 1]).to(a.device), reduction=\"sum\")",
            "1",
        ),
    ] {
        let c = Check {
            expr,
            a: (values(6, 2, false), "2, 3"),
            b: None,
            out,
            device,
        };
        let e = c.error(&mut s, "a");
        assert!(e < 1e-6, "{device}: d/da of `{expr}` is off by {e:e}");
    }
    let binary = [
        ("a + b", "2, 3", "2, 3", "2, 3"),
        ("a - b", "2, 1", "1, 3", "2, 3"),
        ("a * b", "2, 3", "3", "2, 3"),
        ("a / b", "2, 3", "2, 3", "2, 3"),
        ("a % b", "2, 3", "2, 3", "2, 3"),
        ("(a % 0.7) * b", "2, 3", "2, 3", "2, 3"),
        ("a ** b", "2, 3", "2, 3", "2, 3"),
        ("a @ b", "2, 3", "3, 4", "2, 4"),
        ("a @ b", "3", "3", "1"),
        ("a @ b", "2, 3", "3", "2"),
        ("a @ b", "3", "3, 2", "2"),
        ("a @ b", "2, 2, 3", "3, 2", "2, 2, 2"),
        ("(a @ b).relu().tanh()", "2, 3", "3, 4", "2, 4"),
        ("mse_loss(a, b)", "2, 3", "2, 3", "1"),
        ("maximum(a, b)", "2, 3", "2, 3", "2, 3"),
        ("minimum(a, b)", "2, 3", "3", "2, 3"),
        ("where(a > 0, a, b)", "2, 3", "2, 3", "2, 3"),
        ("clamp(a, b, b + 1)", "2, 3", "2, 3", "2, 3"),
        ("cat([a, b], 0)", "2, 3", "2, 3", "4, 3"),
        ("linear(a, b)", "2, 3", "4, 3", "2, 4"),
        ("linear(a, b, b[:, 1] * 2)", "2, 3", "4, 3", "2, 4"),
        ("linear(a, b, b[:, 1])", "2, 2, 3", "4, 3", "2, 2, 4"),
        ("cat([a, b.T], 1)", "3, 2", "2, 3", "3, 4"),
        ("stack([a, b], 1)", "2, 3", "2, 3", "2, 2, 3"),
        // In place, on views too (CopySlices, AsStridedBackward0, IndexPutBackward0).
        ("y = a * 1\ny[0] = b[1]\ny", "2, 3", "2, 3", "2, 3"),
        (
            "y = a * 1\ny[:, 1:] += b[:, :2] * 2\ny",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
        ("y = a * b\nv = y[1]\nv *= b[0]\ny", "2, 3", "2, 3", "2, 3"),
        (
            "y = a * 1\nv = y[:, 1]\ny[0] = b[1]\nv * v",
            "2, 3",
            "2, 3",
            "2",
        ),
        ("y = a * b\nt = y.T.mul_(b.T)\ny", "2, 3", "2, 3", "2, 3"),
        (
            "y = (a * b).T\ny[0] = b[:, 0] * b[:, 1]\ny",
            "2, 3",
            "2, 3",
            "3, 2",
        ),
        (
            "y = zeros(2, 3, dtype=f64, device=a.device)\ny[1] = a[0] * b[1]\ny",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
        (
            "y = a * 1\ny[tensor([1, 0])] = b * 3\ny",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
        ("y = a * 1\ny[a > 0] = b[a > 0]\ny", "2, 3", "2, 3", "2, 3"),
        (
            "y = a * 1\ny[:, tensor([2, 0])] += b[:, :2]\ny * y",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
        (
            "y = a * 1\nt = y.copy_(b * 2)\ny * a",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
        (
            "y = a * b\nt = y[0].fill_(2)\ny * a",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
        (
            "y = a * b\nt = y[1].zero_()\ny[0] -= a[1]\ny",
            "2, 3",
            "2, 3",
            "2, 3",
        ),
    ];
    for (expr, sa, sb, out) in binary {
        let n = |s: &str| {
            s.split(", ")
                .map(|d| d.parse::<usize>().unwrap())
                .product::<usize>()
        };
        let positive = expr == "a ** b";
        let c = Check {
            expr,
            a: (values(n(sa), 3, positive), sa),
            b: Some((values(n(sb), 4, expr.contains('/')), sb)),
            out,
            device,
        };
        for wrt in ["a", "b"] {
            let e = c.error(&mut s, wrt);
            assert!(
                e < 1e-6,
                "{device}: d/d{wrt} of `{expr}` ({sa} and {sb}) is off by {e:e}"
            );
        }
    }
    // prod and cumprod through zeros: a slice with one zero, one with two, one with none.
    for (expr, out) in [
        ("a.prod(1)", "2"),
        ("a.prod(0)", "3"),
        ("a.prod()", "1"),
        ("a.cumprod(1)", "2, 3"),
        ("a.cumprod(0)", "2, 3"),
        ("a.flip(1).cumprod(1)", "2, 3"),
    ] {
        let c = Check {
            expr,
            a: (vec![0.0, 2.0, 3.0, 0.0, 0.0, 1.5], "2, 3"),
            b: None,
            out,
            device,
        };
        let e = c.error(&mut s, "a");
        assert!(
            e < 1e-6,
            "{device}: d/da of `{expr}` with zeros is off by {e:e}"
        );
    }
}

#[test]
fn gradients_match_finite_differences_on_the_cpu() {
    check_all(BackendChoice::Sim, "cpu");
}

#[test]
fn gradients_match_finite_differences_on_a_simulated_gpu() {
    check_all(BackendChoice::Sim, "cuda");
}

#[test]
fn gradients_match_finite_differences_on_emu() {
    check_all(BackendChoice::Emu, "cuda");
}

#[test]
fn gradients_accumulate_and_retain_graph_allows_a_second_backward() {
    let src = "w = tensor([1., 2.], requires_grad=true)\ny = (w * w).sum()\ny.backward(retain_graph=true)\ny.backward()\nprint(w.grad.tolist())";
    assert_eq!(ok(src).trim(), "[4.0, 8.0]");
}

#[test]
fn a_second_backward_without_retain_graph_is_refused() {
    let (class, message) = err(
        "w = tensor([1., 2.], requires_grad=true)\ny = (w * w).sum()\ny.backward()\ny.backward()",
    );
    assert_eq!(class, "RuntimeError");
    assert!(
        message.contains("backward through the graph a second time"),
        "{message}"
    );
    // A graph that saved nothing can be run again, as in PyTorch.
    let src = "w = tensor([1., 2.], requires_grad=true)\ny = (w + 1).sum()\ny.backward()\ny.backward()\nprint(w.grad.tolist())";
    assert_eq!(ok(src).trim(), "[2.0, 2.0]");
}

#[test]
fn backward_frees_what_the_graph_saved() {
    // exp saves its result: the graph holds it until backward has used it.
    let mut s = session(BackendChoice::Sim);
    ok_in(
        &mut s,
        "w = randn(1024, device=cuda, requires_grad=true)\nloss = w.exp().sum()",
    );
    let held = numbers(&ok_in(&mut s, "print(memory_allocated())"))[0];
    ok_in(&mut s, "loss.backward()");
    let after = numbers(&ok_in(&mut s, "print(memory_allocated())"))[0];
    // The saved result (4 KiB) is freed; the gradient (4 KiB) is new.
    assert_eq!(after, held, "before {held}, after {after}");
    ok_in(&mut s, "del loss");
    let left = numbers(&ok_in(&mut s, "print(memory_allocated())"))[0];
    assert_eq!(left, 8192.0, "w and w.grad are left");
}

/// In-place ops on views keep what they need (a `CopySlices` holds its
/// op's saved tensors, a clamp_ saves the tensor it changed) and give it
/// all back: the storage never holds the graph that holds the storage.
#[test]
fn in_place_graphs_on_views_are_freed() {
    let mut s = session(BackendChoice::Sim);
    ok_in(&mut s, "w = randn(256, device=cuda, requires_grad=true)");
    let start = numbers(&ok_in(&mut s, "print(memory_allocated())"))[0];
    ok_in(
        &mut s,
        "for i in 0..20 {
  y = w * 2
  v = y[:128]
  y[128:] *= w[:128]
  y.clamp_(min=0.1)
  y[0] = w[5]
  loss = (v * v).sum() + y.sum()
}
del y, v, loss",
    );
    let left = numbers(&ok_in(&mut s, "print(memory_allocated())"))[0];
    assert_eq!(left, start, "graphs with in-place ops on views leaked");
}

#[test]
fn no_grad_records_nothing_and_changing_a_saved_tensor_is_caught() {
    let src = "w = ones(2, requires_grad=true)\nno_grad { y = w * 2 }\nprint(y.requires_grad, y.grad_fn is none)";
    assert_eq!(ok(src).trim(), "False True");
    let (class, message) = err(
        "a = randn(3, requires_grad=true)\ne = a.exp()\nno_grad { e.mul_(2) }\ne.sum().backward()",
    );
    assert_eq!(class, "RuntimeError");
    assert!(
        message.contains("modified by an inplace operation") && message.contains("version 1"),
        "{message}"
    );
}

/// `w.grad = none` and `w.grad = g` as PyTorch's setter (the shape,
/// dtype and device checked), `w.requires_grad = flag` as `requires_grad_`.
#[test]
fn grad_and_requires_grad_can_be_set() {
    let src = "w = ones(3, requires_grad=true)
(w * 2).sum().backward()
w.grad = none
print(w.grad is none)
w.grad = full((3,), 10.)
(w * 3).sum().backward()
print(w.grad.tolist())
w.requires_grad = false
print(w.requires_grad)";
    assert_eq!(ok(src).trim(), "True\n[13.0, 13.0, 13.0]\nFalse");
    for (src, class, says) in [
        (
            "w = ones(3, requires_grad=true)\nw.grad = zeros(2)",
            "RuntimeError",
            "assigned grad has data of a different size",
        ),
        (
            "w = ones(3, requires_grad=true)\nw.grad = zeros(3, device=cuda)",
            "RuntimeError",
            "located on a different device",
        ),
        (
            "w = ones(3)\nw.shape = 3",
            "AttributeError",
            "cannot be set",
        ),
        (
            "w = ones(3, requires_grad=true)\ny = w * 2\ny.requires_grad = false",
            "RuntimeError",
            "only change requires_grad flags of leaf variables",
        ),
    ] {
        let (c, message) = err(src);
        assert_eq!(c, class, "{src}");
        assert!(message.contains(says), "{src}: {message}");
    }
}

/// `y.grad` of a non-leaf is none, with PyTorch's warning, once a statement.
#[test]
fn a_non_leafs_grad_warns_as_pytorch_does() {
    let out = ok("w = ones(3, requires_grad=true)\ny = w * 2\nfor i in 0..3 { g = y.grad }\nprint(g is none)");
    assert_eq!(
        out.matches("not a leaf Tensor is being accessed").count(),
        1,
        "{out}"
    );
    assert!(
        out.contains("2 more times") && out.trim_end().ends_with("True"),
        "{out}"
    );
    let quiet =
        ok("w = ones(3, requires_grad=true)\ny = w * 2\ny.retain_grad()\ng = y.grad\ng = w.grad");
    assert!(!quiet.contains("not a leaf"), "{quiet}");
}

#[test]
fn refusals_name_what_pytorch_names() {
    for (src, says) in [
        (
            "w = ones(2, requires_grad=true)\nw += 1",
            "leaf Variable that requires grad",
        ),
        ("tensor([1, 2], requires_grad=true)", "floating point"),
        (
            "(ones(2, requires_grad=true) * 2).backward()",
            "only for scalar outputs",
        ),
        ("ones(2).sum().backward()", "does not require grad"),
        (
            "w = ones(3, requires_grad=true)\nw.floor_divide(2)",
            "cannot differentiate `floor_divide`",
        ),
    ] {
        let (class, message) = err(src);
        assert_eq!(class, "RuntimeError", "{src}");
        assert!(message.contains(says), "{src}: {message}");
    }
}

#[test]
fn names_and_leaves_are_pytorchs() {
    let src = "w = ones(2, 2, requires_grad=true)\nprint((w * 2).grad_fn, (w @ w).grad_fn, w.sum().grad_fn, w.T.grad_fn, w.exp().grad_fn, w.is_leaf, (w + 1).is_leaf, w.grad_fn)";
    assert_eq!(
        ok(src).trim(),
        "<MulBackward0> <MmBackward0> <SumBackward0> <PermuteBackward0> <ExpBackward0> True False None"
    );
}

#[test]
fn more_names_are_pytorchs() {
    let src = "w = ones(2, 3, requires_grad=true)\nb = ones(2, requires_grad=true)\nx = ones(4, 3)\nprint(linear(x, w, b).grad_fn, linear(x, w).grad_fn, w[tensor([1, 1])].grad_fn, w.max(1).values.grad_fn, w.min(0).values.grad_fn, w.prod().grad_fn, w.prod(1).grad_fn, w.var().grad_fn, w.std(1).grad_fn, w.norm().grad_fn, w.cumsum(1).grad_fn, w.flip(0).grad_fn, w.repeat(2, 1).grad_fn, w.chunk(2)[0].grad_fn, w.split([1, 2], 1)[0].grad_fn, w.tril().grad_fn, dropout(w, 0.5).grad_fn, dropout(w.cuda(), 0.5).grad_fn)";
    assert_eq!(
        ok(src).trim(),
        "<AddmmBackward0> <MmBackward0> <IndexBackward0> <MaxBackward0> <MinBackward0> <ProdBackward0> <ProdBackward1> <VarBackward0> <StdBackward0> <LinalgVectorNormBackward0> <CumsumBackward0> <FlipBackward0> <RepeatBackward0> <SplitBackward0> <SplitWithSizesBackward0> <TrilBackward0> <MulBackward0> <NativeDropoutBackward0>"
    );
}

/// dropout's gradient is its mask times 1 / (1 - p), on the cpu and a GPU;
/// on a GPU the graph keeps a one-byte mask, on the cpu a noise tensor of
/// the input's dtype; `training=false` and `p=0` give the input itself.
#[test]
fn dropout_keeps_what_pytorch_keeps_and_scales_the_rest() {
    for device in ["cpu", "cuda"] {
        let src = format!(
            "seed(1)\nx = randn(1000, device={device}, requires_grad=true)\nd = dropout(x, 0.25)\nd.sum().backward()\nkept = (d != 0).to(f32)\nprint((x.grad - kept / 0.75).abs().max().item(), (d - x * kept / 0.75).abs().max().item() < 1e-6, 0.6 < kept.mean().item() and kept.mean().item() < 0.9)"
        );
        assert_eq!(ok(&src).trim(), "0.0 True True", "{device}");
    }
    let src = "x = ones(4, requires_grad=true)\nprint(dropout(x, 0.5, training=false) is x, dropout(x, 0.0) is x)";
    assert_eq!(ok(src).trim(), "True True");
    let (name, e) = err("dropout(ones(3), 1.5)");
    assert_eq!(name, "ValueError");
    assert!(
        e.contains("dropout probability has to be between 0 and 1, but got 1.5"),
        "{e}"
    );
    // What the graph keeps: 1 MiB of f32 input, a 256 KiB bool mask on the GPU.
    let src = "x = randn(256, 1024, device=cuda, requires_grad=true)\nbefore = memory_allocated()\nd = dropout(x, 0.5)\nprint(memory_allocated() - before)";
    assert_eq!(ok(src).trim(), (1024 * 1024 + 256 * 1024).to_string());
}

/// DataParallel's functions as PyTorch differentiates them: gather's
/// backward scatters, scatter's gathers, replicate's reduce-adds onto the
/// source device; the gradients equal one device's (up to the order the
/// halves are summed in).
#[test]
fn data_parallel_gradients_are_one_devices() {
    let src = "seed(1)
x = randn(8, 4, device=cuda:0, requires_grad=true)
W = randn(4, 3, device=cuda:0, requires_grad=true)
parts = scatter(x, [cuda:0, cuda:1])
Ws = replicate(W, [cuda:0, cuda:1])
y = gather([parts[0] @ Ws[0], parts[1] @ Ws[1]], cuda:0)
(y * y).sum().backward()
x2 = x.detach().clone().requires_grad_()
W2 = W.detach().clone().requires_grad_()
((x2 @ W2) * (x2 @ W2)).sum().backward()
print(parts[1].grad_fn, Ws[1].grad_fn, y.grad_fn, x.grad.device, W.grad.device)
print((x.grad - x2.grad).abs().max().item() < 1e-5, (W.grad - W2.grad).abs().max().item() < 1e-5)
print(parts[0].grad_fn is parts[1].grad_fn, Ws[0].grad_fn is Ws[1].grad_fn)";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = session(backend);
        assert_eq!(
            ok_in(&mut s, src).trim(),
            "<ScatterBackward> <BroadcastBackward> <GatherBackward> cuda:0 cuda:0\nTrue True\n\
             True True"
        );
    }
    // One node each, as PyTorch's Functions: replicate's backward is one
    // sum on the source device (a copy from cuda:1 and one add);
    // scatter's is one gather onto x's device (zeros for a part that got
    // no gradient).
    let mut s = session(BackendChoice::Sim);
    let out = ok_in(
        &mut s,
        "W = randn(256, 256, device=cuda:0, requires_grad=true)\nWs = replicate(W, [cuda:0, cuda:1])\n\
         loss = (Ws[0] * 2).sum() + (Ws[1] * 3).sum().to(cuda:0)\n\
         profile { loss.backward() }\nprint(W.grad[0, 0].item())\n\
         Z = ones(8, 4, device=cuda:0, requires_grad=true)\nzs = scatter(Z, [cuda:0, cuda:1])\n\
         (zs[1] * 2).sum().backward()\nprint(Z.grad[::2, 0].tolist())",
    );
    let counted = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {out}"))
            .split_whitespace()
            .nth(if name == "copies" { 2 } else { 1 })
            .unwrap()
            .to_string()
    };
    // Kernels: the root's ones, the two products' gradients (one per
    // device: the sum's backward expands), one add.
    assert_eq!(counted("kernels"), "4", "{out}");
    assert!(out.contains("5.0\n[0.0, 0.0, 2.0, 2.0]"), "{out}");
}

#[test]
fn sgd_and_adam_update_parameters_as_pytorchs_formulas_do() {
    // One SGD step with momentum: p - lr * g; Adam's first step moves each
    // element by lr (the bias-corrected m / sqrt(v) is the sign of g).
    let src = "p = tensor([1., -2.], requires_grad=true)\nopt = SGD([p], lr=0.5, momentum=0.9)\n(p * p).sum().backward()\nopt.step()\nprint(p.tolist())";
    assert_eq!(ok(src).trim(), "[0.0, 0.0]");
    let src = "p = tensor([1., -2.], dtype=f64, requires_grad=true)\nopt = Adam([p], lr=0.1)\n(p * p).sum().backward()\nopt.step()\nprint(p.tolist())";
    let p = numbers(&ok(src));
    assert!(
        (p[0] - 0.9).abs() < 1e-6 && (p[1] + 1.9).abs() < 1e-6,
        "{p:?}"
    );
    // zero_grad sets grads to none; Adam's state is two tensors per parameter.
    let src = "p = randn(256, device=cuda, requires_grad=true)\nopt = Adam([p])\np.sum().backward()\nopt.step()\nopt.zero_grad()\nprint(p.grad is none, memory_allocated())";
    assert_eq!(ok(src).trim(), "True 3072");
}

#[test]
fn out_of_memory_during_backward_leaves_the_session_usable_as_pytorchs() {
    // As in PyTorch, the nodes that ran before the OOM freed what they
    // saved: the same backward again is the second-time error; free some
    // memory and compute the forward again.
    let mut s = common::sim_session(1, 24 << 20);
    let src = "W = randn(1024, 1024, device=cuda, requires_grad=true)\nx = randn(256, 1024, device=cuda)\nloss = (x @ W).exp().sum()\nhog = zeros(3 * 2**20 + 2**19, device=cuda)";
    ok_in(&mut s, src);
    let o = s.execute("loss.backward()");
    let e = o.error.expect("backward needs more memory than is left");
    assert_eq!(e.ename, "OutOfMemoryError", "{}", e.evalue);
    assert!(ok_in(&mut s, "print(W.grad is none)").contains("True"));
    let (class, message) = common::err_in(&mut s, "del hog\nloss.backward()");
    assert_eq!(class, "RuntimeError");
    assert!(message.starts_with("Trying to backward through the graph a second time"));
    ok_in(&mut s, "loss = (x @ W).exp().sum()\nloss.backward()");
    assert_eq!(
        ok_in(&mut s, "print(W.grad.shape)").trim(),
        "torch.Size([1024, 1024])"
    );
}

#[test]
fn a_gradient_goes_back_to_the_device_its_leaf_lives_on() {
    // `.to(device)` is ToCopyBackward0: the gradient crosses back, as in
    // PyTorch (cpu -> cuda:1 -> cpu, and cuda:0 -> cuda:1).
    let src = "a = randn(3, requires_grad=true)\ny = a.to(cuda:1).exp().cpu()\ny.sum().backward()\nb = randn(3, device=cuda:0, requires_grad=true)\n(b.to(cuda:1) * 2).sum().backward()\nprint(y.grad_fn, a.grad.device, (a.grad - a.exp()).abs().max().item(), b.grad.device, b.grad.tolist())";
    assert_eq!(
        ok(src).trim(),
        "<ToCopyBackward0> cpu 0.0 cuda:0 [2.0, 2.0, 2.0]"
    );
}

/// Ctrl-C stops a backward between nodes: the nodes that ran freed what
/// they saved, and a product by a number saves nothing, so this backward
/// can run again.
#[test]
fn an_interrupted_backward_can_run_again() {
    use std::sync::atomic::Ordering;
    let mut s = session(BackendChoice::Sim);
    ok_in(
        &mut s,
        "x = ones(4, requires_grad=true)\ny = x\nfor i in 0..300000 { y = y * 1.0 }\nloss = y.sum()",
    );
    let flag = s.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        flag.store(true, Ordering::Relaxed);
    });
    let o = s.execute("loss.backward()");
    t.join().unwrap();
    let e = o.error.expect("the backward must be interrupted");
    assert_eq!(e.ename, "Interrupted");
    assert_eq!(ok_in(&mut s, "print(x.grad is none)").trim(), "True");
    ok_in(&mut s, "loss.backward()");
    assert_eq!(
        ok_in(&mut s, "print(x.grad.tolist())").trim(),
        "[1.0, 1.0, 1.0, 1.0]"
    );
}

/// A view made while nothing required grad still knows its base, as every
/// PyTorch view does: an in-place op on it with a tensor that requires
/// grad makes the base's history `CopySlices` and the view's
/// `AsStridedBackward0`, also once the base's name is gone (the view keeps
/// what autograd knows of it), and through views of views.
#[test]
fn an_in_place_op_on_a_plain_view_puts_its_base_in_the_graph() {
    let src = "x = tensor([1., 2.], requires_grad=true)
a = zeros(3)
v = a[1:]
v += x * 3
print(a.grad_fn, v.grad_fn, a.tolist())
a.sum().backward()
print(x.grad.tolist())
b = zeros(2, 2)
u = b.T[1]
del b
u *= 2
print(u.grad_fn)
u += x
print(u.grad_fn)
(u * u).sum().backward()
print(x.grad.tolist())
c = zeros(4).reshape(2, 2)
c[0] += x
print(c.grad_fn, c.is_leaf, c.requires_grad)";
    // x.grad: 3 from a.sum(), then 2u = 2x from (u * u).sum().
    assert_eq!(
        ok(src).trim(),
        "<CopySlices> <AsStridedBackward0> [0.0, 3.0, 6.0]\n[3.0, 3.0]\nNone\n<AsStridedBackward0>\n[5.0, 7.0]\n<AsStridedBackward0> False True"
    );
    // A view of a leaf that requires grad is still refused, made before or
    // after; a view made under no_grad is not tracked (PyTorch forbids it).
    let (class, message) = err(
        "x = tensor([1., 2.], requires_grad=true)\na = zeros(2)\nno_grad { v = a[1:] }\nv += x[1:]",
    );
    assert_eq!(class, "RuntimeError");
    assert!(message.contains("made under `no_grad { }`"), "{message}");
    for src in [
        "x = zeros(2)\nv = x[1:]\nx.requires_grad_()\nv += 1",
        "x = zeros(2)\nv = x[1:]\nv.requires_grad_()\nv += 1",
    ] {
        let (class, message) = err(src);
        assert_eq!(class, "RuntimeError", "{src}");
        assert!(
            message.contains("a view of a leaf Variable that requires grad"),
            "{src}: {message}"
        );
    }
}

/// PyTorch's classic slip, `total = total + loss` in a loop, builds a graph
/// as long as the loop; freeing it must not overflow the stack.
#[test]
fn a_graph_as_long_as_a_training_loop_is_freed() {
    let src = "w = ones(2, requires_grad=true)\ntotal = 0\nfor i in 0..300000 { total = total + (w * 2).sum() }\nprint(total.grad_fn)\ndel total\nprint(\"freed\")";
    assert_eq!(ok(src).trim(), "<AddBackward0>\nfreed");
}

/// An in-place op on a tensor in a graph rebases its history, as PyTorch's
/// (`y += 1` makes `y.grad_fn` `<AddBackward0>`, for every holder of `y`);
/// a tensor that required no grad joins the graph when its operand does;
/// a saved tensor changed in place is still caught; a leaf's view is
/// refused.
#[test]
fn in_place_ops_rebase_the_history() {
    let src = "x = tensor([1., 2., 3.], requires_grad=true)
y = x * 2
z = y
y += 1
y *= x
print(y.grad_fn, z.grad_fn, y.is_leaf)
y.sum().backward()
print(x.grad.tolist())
a = zeros(3)
w = tensor([1., 2., 3.], requires_grad=true)
a += w * 2
a = a.div_(w + 1)
print(a.grad_fn, a.is_leaf)
a.sum().backward()
print(w.grad.tolist())
h = x * 1
h = h.clamp_(min=1.5)
print(h.grad_fn)";
    // d/dx of (2x + 1) * x = 4x + 1; d/dw of 2w / (w + 1) = 2 / (w + 1)^2.
    assert_eq!(
        ok(src).trim(),
        "<MulBackward0> <MulBackward0> False\n[5.0, 9.0, 13.0]\n<DivBackward0> False\n[0.5, 0.222222238779068, 0.125]\n<ClampBackward1>"
    );
    for (src, says) in [
        (
            "x = tensor([1., 2.], requires_grad=true)\ne = x.exp()\ne *= 2\ne.sum().backward()",
            "modified by an inplace operation",
        ),
        (
            "x = tensor([1., 2.], requires_grad=true)\nt = x[1:]\nt += 1",
            "a view of a leaf Variable that requires grad",
        ),
    ] {
        let (class, message) = err(src);
        assert_eq!(class, "RuntimeError", "{src}");
        assert!(message.contains(says), "{src}: {message}");
    }
}

/// PyTorch's engine frees a node's saved tensors as soon as the node has
/// run (`release_variables`, unless `retain_graph`), before its gradients
/// go on: with `W` a 4 MiB leaf and ten 1 MiB `exp`s after `x @ W`, the
/// peak during backward is what is held (x, W, the ten saved results: 15
/// MiB) plus two gradients in flight, 17 MiB; `W.grad` comes at the end,
/// when the saved results are gone. Keeping the graph, all of them stay.
#[test]
fn memory_falls_during_backward_node_by_node_as_pytorchs() {
    let chain = "x = randn(256, 1024, device=cuda)\n\
        W = randn(1024, 1024, device=cuda, requires_grad=true)\n\
        h = x @ W\nfor i in 0..10 { h = h.exp() }\nloss = h.sum()\n";
    let mib = |s: &mut Session, expr: &str| -> f64 {
        ok_in(s, &format!("{expr} / 2**20")).trim().parse().unwrap()
    };
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        for (retain, peak, after) in [(false, 17.0, 10.0), (true, 20.0, 19.0)] {
            let mut s = session(backend);
            ok_in(&mut s, chain);
            let loss = 512.0 / (1 << 20) as f64;
            assert_eq!(mib(&mut s, "memory_allocated(cuda)"), 15.0 + loss);
            ok_in(
                &mut s,
                &format!("reset_peak_memory_stats(cuda)\nloss.backward(retain_graph={retain})"),
            );
            let what = format!("{backend:?}, retain_graph={retain}");
            assert_eq!(
                mib(&mut s, "max_memory_allocated(cuda)"),
                peak + loss,
                "{what}"
            );
            assert_eq!(
                mib(&mut s, "memory_allocated(cuda)"),
                after + loss,
                "{what}"
            );
        }
    }
    // A second backward through the freed graph: PyTorch's words.
    let mut s = session(BackendChoice::Sim);
    ok_in(&mut s, chain);
    ok_in(&mut s, "loss.backward()");
    let o = s.execute("loss.backward()");
    let e = o.error.expect("refused");
    assert_eq!(
        e.evalue,
        "Trying to backward through the graph a second time (or directly access saved tensors \
         after they have already been freed). Saved intermediate values of the graph are freed \
         when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to \
         backward through the graph a second time or if you need to access saved tensors after \
         calling backward."
    );
    assert!(
        e.report.contains("ExpBackward0 freed what it saved"),
        "{}",
        e.report
    );
}

/// A parameter used on two streams: its `AccumulateGrad` waits for both
/// gradients (PyTorch's input buffer), adds them on the stream of the last
/// one after waiting for the other, and sets `.grad` once. Before, the
/// second was added into `.grad` without waiting for the first's stream: a
/// race the simulator showed as a wrong 2.0.
#[test]
fn a_parameter_used_on_two_streams_gets_both_gradients_without_a_race() {
    let src = "W = randn(1000, device=cuda, requires_grad=true)\nsync\n\
        stream s1 { a = (W * 2).sum() }\nstream s2 { b = (W * 3).sum() }\n\
        wait s1\nwait s2\nloss = a + b\nloss.backward()\nW.grad[0].item()";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = session(backend);
        let out = ok_in(&mut s, src);
        assert!(!out.contains("warning"), "{backend:?}: {out}");
        assert_eq!(out.trim(), "5.0", "{backend:?}");
    }
}

/// Hooks as PyTorch's: a non-leaf's run on its gradient before its node
/// runs, a leaf's before `AccumulateGrad` adds the gradient, each on what
/// the one before returned; post-accumulate hooks once `.grad` is final.
/// Printing `memory_allocated()` from them shows memory falling node by
/// node, byte for byte as PyTorch's rules give it (the figures below are
/// worked out from those rules: x 1 MiB, W 4 MiB, each `exp` result 1 MiB,
/// `loss` and its ones 512 B blocks).
#[test]
fn hooks_see_each_gradient_when_it_is_computed_and_memory_falls_between_them() {
    let src = "x = randn(256, 1024, device=cuda)\n\
        W = randn(1024, 1024, device=cuda, requires_grad=true)\n\
        fn show(g) { print(memory_allocated(cuda) / 2**20) }\n\
        h = x @ W\nk = h.register_hook(show)\n\
        for i in 0..3 { h = h.exp()\nh.register_hook(show) }\n\
        fn done(p) { print(\"final\", memory_allocated(cuda) / 2**20) }\n\
        k = W.register_post_accumulate_grad_hook(done)\n\
        h.sum().backward()";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = session(backend);
        let out = ok_in(&mut s, src);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "8.0009765625",
                "9.00048828125",
                "8.00048828125",
                "7.00048828125",
                "final 10.00048828125"
            ],
            "{backend:?}"
        );
    }
    // Replacements chain in order; `remove` takes a hook off.
    let src = "w = tensor([1., 2.], requires_grad=true)\n\
        fn double(g) { return g * 2 }\nfn plus1(g) { return g + 1 }\nfn tens(g) { return g * 10 }\n\
        fn final(p) { print(\"final\", p.grad.tolist()) }\n\
        y = w * 3\nk = y.register_hook(double)\n\
        h = w.register_hook(plus1)\nk = w.register_hook(tens)\nk = w.register_post_accumulate_grad_hook(final)\n\
        y.sum().backward()\nh.remove()\n(w * 3).sum().backward()\nprint(w.grad.tolist())";
    let out = ok(src);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "final [70.0, 70.0]",
            "final [100.0, 100.0]",
            "[100.0, 100.0]"
        ]
    );
}

#[test]
fn a_bad_hook_is_pytorchs_error_and_the_session_goes_on() {
    let mut s = session(BackendChoice::Sim);
    ok_in(
        &mut s,
        "w = ones(2, requires_grad=true)\nfn boom(g) {\n  return g + nope\n}\n\
         fn bad(g) { return g.sum() }\nfn other(g) { return g.to(f64) }\nfn num(g) { return 3 }",
    );
    // Raised in the hook: shown at the hook's line; nothing accumulated.
    let o = s.execute("h = w * 2\nh.register_hook(boom)\nh.sum().backward()");
    let e = o.error.expect("the hook raised");
    assert_eq!(e.ename, "NameError");
    assert!(e.report.contains(":3:"), "{}", e.report);
    assert_eq!(ok_in(&mut s, "w.grad is none").trim(), "true");
    for (hook, message) in [
        ("bad", "hook 'bad' has changed the size of value"),
        (
            "other",
            "hook 'other' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)",
        ),
    ] {
        let (class, m) = common::err_in(
            &mut s,
            &format!("v = ones(2, requires_grad=true)\nv.register_hook({hook})\n(v * 2).sum().backward()"),
        );
        assert_eq!((class.as_str(), m.as_str()), ("RuntimeError", message));
    }
    let (class, m) = common::err_in(
        &mut s,
        "v = ones(2, requires_grad=true)\nv.register_hook(num)\n(v * 2).sum().backward()",
    );
    assert_eq!(
        (class.as_str(), m.as_str()),
        ("TypeError", "expected Variable, but hook returned 'int'")
    );
    let (_, m) = common::err_in(&mut s, "ones(2).register_hook(bad)");
    assert_eq!(
        m,
        "cannot register a hook on a tensor that doesn't require gradient"
    );
    let (_, m) = common::err_in(&mut s, "(w * 2).register_post_accumulate_grad_hook(bad)");
    assert_eq!(
        m,
        "post accumulate grad hooks cannot be registered on non-leaf tensors"
    );
    assert_eq!(
        ok_in(&mut s, "(w * 2).sum().backward()\nw.grad.tolist()").trim(),
        "[2.0, 2.0]"
    );
}

/// The in-place error word for word as PyTorch 2.15 prints it (run there).
#[test]
fn the_version_error_is_pytorchs_word_for_word() {
    let (class, m) = err(
        "x = tensor([1., 2., 3.], requires_grad=true)\na = x.exp()\nb = a * a\na.mul_(2)\nb.sum().backward()",
    );
    assert_eq!(class, "RuntimeError");
    assert_eq!(
        m,
        "one of the variables needed for gradient computation has been modified by an inplace \
         operation: [torch.FloatTensor [3]], which is output 0 of Mul, is at version 1; expected \
         version 0 instead. Hint: enable anomaly detection to find the operation that failed to \
         compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    );
    let (_, m) = err(
        "x = ones(2, 3, device=cuda, requires_grad=true)\na = x.exp()\nb = a * a\na.mul_(2)\nb.sum().backward()",
    );
    assert!(m.contains("[torch.cuda.FloatTensor [2, 3]]"), "{m}");
}

/// `grad` and `backward` of several tensors as torch.autograd's (values
/// checked against PyTorch 2.15): `grad` touches no `.grad` and runs only
/// the graph between outputs and inputs, so what lies below an input keeps
/// what it saved for a later backward.
#[test]
fn autograd_grad_and_backward_of_several_roots_as_pytorchs() {
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = session(backend);
        let d = if backend == BackendChoice::Sim {
            "cpu"
        } else {
            "cuda"
        };
        let out = ok_in(
            &mut s,
            &format!(
                "w = tensor([1., 2.], requires_grad=true, device={d})\n\
                 v = tensor([3., 4.], requires_grad=true, device={d})\n\
                 print(grad((w * w * v).sum(), [w])[0].tolist(), w.grad is none)\n\
                 h = w.exp()\nz = (h * h).sum()\nprint(grad(z, h)[0].tolist())\n\
                 h.sum().backward()\nprint(w.grad.tolist())\n\
                 u = ones(2, requires_grad=true)\n\
                 r = grad((w * 2).sum(), [w, u], allow_unused=true)\nprint(r[0].tolist(), r[1])\n\
                 w.grad = none\nbackward([w * 2, (v * 3).sum()], [ones(2, device={d}), none])\n\
                 print(w.grad.tolist(), v.grad.tolist())"
            ),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "[6.0, 16.0] True", "{backend:?}");
        let close = |line: &str, want: &[f64]| {
            let got: Vec<f64> = line
                .trim_matches(|c| c == '[' || c == ']')
                .split(", ")
                .map(|x| x.parse().unwrap())
                .collect();
            assert!(
                got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-4),
                "{line}"
            );
        };
        close(lines[1], &[5.4366, 14.7781]);
        close(lines[2], &[std::f64::consts::E, 7.3891]);
        assert_eq!(lines[3], "[2.0, 2.0] None");
        assert_eq!(lines[4], "[2.0, 2.0] [3.0, 3.0]");
    }
    let (_, m) = err(
        "w = ones(2, requires_grad=true)\ngrad((w * 2).sum(), [w, ones(2, requires_grad=true)])",
    );
    assert_eq!(
        m,
        "One of the differentiated Tensors appears to not have been used in the graph. Set \
         allow_unused=True if this is the desired behavior."
    );
    let (_, m) = err("w = ones(2, requires_grad=true)\ngrad((w * 2).sum(), [ones(2)])");
    assert_eq!(m, "One of the differentiated Tensors does not require grad");
    let (_, m) = err("w = ones(2, requires_grad=true)\nbackward([(w * 2).sum(), ones(2)])");
    assert_eq!(
        m,
        "element 1 of tensors does not require grad and does not have a grad_fn"
    );
}

/// A hook runs on the stream of the node it precedes, as PyTorch's do (the
/// engine's stream guard is set before a node's pre-hooks).
#[test]
fn a_hook_runs_on_its_nodes_stream() {
    let out = ok("W = randn(4, device=cuda, requires_grad=true)\nsync\n\
        fn show(g) { print(current_stream()) }\nstream s { y = W * 2 }\n\
        k = y.register_hook(show)\nwait s\ny.sum().backward()");
    assert!(out.trim_end().starts_with("<stream s @cuda:0"), "{out}");
}

/// `chunk`, `split` and `unbind` as PyTorch records them: one node with an
/// output per part (`SplitBackward0`, `UnbindBackward0`), walked by
/// `next_functions` down to `AccumulateGrad`; a part whose gradient is
/// undefined gives zeros in the one joined gradient; in-place on a part is
/// PyTorch's error. Figures checked with PyTorch 2.15.
#[test]
fn the_parts_of_chunk_split_and_unbind_are_outputs_of_one_node() {
    let out = ok("x = ones(6, requires_grad=true)\na, b = x.split(3)\n\
         print(a.grad_fn, a.grad_fn.next_functions, b.grad_fn is a.grad_fn)\n\
         c, d = (x * 2).chunk(2)\nprint(c.grad_fn.name(), c.grad_fn.next_functions)\n\
         print(c.grad_fn.next_functions[0][0].next_functions)\n\
         print(x.sum().grad_fn.next_functions[0][0].next_functions)\n\
         (c.sum() * 3).backward()\nprint(x.grad.tolist())\n\
         u = x.unbind(0)\nprint(u[0].grad_fn)\n(u[1] * 5 + u[4]).backward()\nprint(x.grad.tolist())");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "<SplitBackward0> ((<AccumulateGrad>, 0),) True",
            "SplitBackward0 ((<MulBackward0>, 0),)",
            "((<AccumulateGrad>, 0), (None, 0))",
            "()",
            "[6.0, 6.0, 6.0, 0.0, 0.0, 0.0]",
            "<UnbindBackward0>",
            "[6.0, 11.0, 6.0, 0.0, 1.0, 0.0]",
        ]
    );
    let (_, msg) = err("x = ones(6, requires_grad=true)\np, q = (x * 1).chunk(2)\np.mul_(2)");
    assert!(
        msg.starts_with(
            "Output 0 of Split is a view and is being modified inplace. This view is the output \
             of a function that returns multiple views."
        ),
        "{msg}"
    );
    // A view of a part too, named by its own op as PyTorch names it.
    let (_, msg) =
        err("x = ones(6, requires_grad=true)\np, q = (x * 1).chunk(2)\nr = p[1:]\nr.mul_(2)");
    assert!(
        msg.starts_with("Output 0 of Slice is a view and is being modified inplace."),
        "{msg}"
    );
    // A hook and retain_grad on one part see that part's gradient.
    let out = ok("z = ones(4, 3, requires_grad=true)\nr = z.split([1, 3])\n\
         fn show(g) { print(\"hook\", g.shape) }\nh = r[1].register_hook(show)\nr[1].retain_grad()\n\
         (r[1] * 2).sum().backward()\nprint(r[1].grad_fn, r[1].grad.shape, z.grad[:, 0].tolist())");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "hook torch.Size([3, 3])",
            "<SplitWithSizesBackward0> torch.Size([3, 3]) [0.0, 2.0, 2.0, 2.0]"
        ]
    );
}

/// Four parts of a 4 MiB parameter: their gradients are joined by one
/// `cat` (4 MiB), not four full-size zeros each written and added.
#[test]
fn the_gradient_of_four_parts_is_one_cat() {
    let src = "W = randn(1024, 1024, device=cuda, requires_grad=true)\nps = W.chunk(4)\n\
        loss = (ps[0] * 1).sum() + (ps[1] * 2).sum() + (ps[2] * 3).sum() + (ps[3] * 4).sum()\n\
        profile { loss.backward() }\nprint(W.grad[::256, 0].tolist())";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = session(backend);
        let out = ok_in(&mut s, src);
        // The root's ones, four products by a number (1 MiB each), one cat.
        assert!(
            out.lines().any(|l| l.trim() == "allocations  6 (8.0 MiB)"),
            "{backend:?}: {out}"
        );
        assert!(
            out.trim_end().ends_with("[1.0, 2.0, 3.0, 4.0]"),
            "{backend:?}: {out}"
        );
    }
}

/// A gradient copied back to its input's device is ready on that device's
/// current stream, where the copy was queued: a consumer on a side stream
/// waits for that stream (PyTorch's `InputBuffer::add`, case 3), not only
/// for the producer's stream on the other device. Before, `MulBackward0`
/// on `s1` read the copy before it was made (a race; 0.0 on emu). A
/// parameter used on two devices gets both gradients without a warning.
#[test]
fn a_gradient_from_another_device_is_waited_for_on_its_own_devices_stream() {
    let copied_back = "W = randn(1000000, device=cuda:0, requires_grad=true)\nsync\n\
        stream s1 { a = W * 2 }\nwait s1\nb = a.to(cuda:1)\nloss = b.sum()\n\
        loss.backward()\nW.grad[0].item()";
    let two_devices = "W = randn(1000000, device=cuda:0, requires_grad=true)\nsync\n\
        stream s1 { a = (W.to(cuda:1) * 2).sum() }\nwait s1\nb = (W * 3).sum()\n\
        loss = a.to(cuda:0) + b\nloss.backward()\nW.grad[0].item()";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        for (src, want) in [(copied_back, "2.0"), (two_devices, "5.0")] {
            let mut s = session(backend);
            let out = ok_in(&mut s, src);
            assert!(!out.contains("warning"), "{backend:?}: {out}");
            assert_eq!(out.trim(), want, "{backend:?}: {src}");
        }
    }
}

/// `queue_callback` from a hook: the callbacks run once backward's last
/// node has run (`.grad` final), in order, also one queued by a callback;
/// outside a backward it is PyTorch's error; a callback that fails ends
/// the backward with its error, at its line. Output as PyTorch 2.15's
/// `Variable._execution_engine.queue_callback` prints it.
#[test]
fn final_callbacks_run_when_backward_is_done() {
    let mut s = session(BackendChoice::Sim);
    let out = ok_in(
        &mut s,
        "w = ones(2, requires_grad=true)\n\
         fn done() { print(\"backward done\", w.grad.tolist()) }\n\
         fn more() { print(\"queued by a callback\") }\n\
         fn done2() { print(\"second\"); queue_callback(more) }\n\
         fn hook(g) { print(\"hook\"); queue_callback(done); queue_callback(done2) }\n\
         h = w.register_hook(hook)\n(w * 2).sum().backward()",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "hook",
            "backward done [2.0, 2.0]",
            "second",
            "queued by a callback"
        ]
    );
    let o = s.execute("queue_callback(done)");
    let e = o.error.expect("refused");
    assert_eq!(
        e.evalue,
        "Final callbacks can only be installed during backward pass."
    );
    let o = s.execute(
        "h.remove()\nfn bad() { return zeros(1)[5] }\nfn hook2(g) { queue_callback(bad) }\n\
         k = w.register_hook(hook2)\n(w * 2).sum().backward()",
    );
    let e = o.error.expect("the callback's error");
    assert!(
        e.report.contains("fn bad() { return zeros(1)[5] }"),
        "{}",
        e.report
    );
    // The session goes on; the next backward has a queue of its own.
    assert_eq!(
        ok_in(&mut s, "k.remove()\nw.grad.tolist()").trim(),
        "[4.0, 4.0]"
    );
}

/// `mem map` names what holds each block: tensors inside lists
/// (`losses[0]`), an optimizer's state by PyTorch's `opt.state[p]` names
/// (`exp_avg of W (Adam)`), `.grad`s, what a graph behind a list item
/// saved, and an index tensor `IndexBackward0` keeps; `mem` counts the
/// graphs behind list items too.
#[test]
fn mem_map_names_list_items_optimizer_state_and_saved_indices() {
    let mut s = session(BackendChoice::Sim);
    let out = ok_in(
        &mut s,
        "W = randn(256, 256, device=cuda, requires_grad=true)\n\
         opt = Adam([W], lr=0.01)\nx = randn(64, 256, device=cuda)\n\
         losses = list()\nlosses.append(((x @ W).exp()[tensor([0, 3], device=cuda)]).sum())\n\
         losses[0].backward(retain_graph=true)\nopt.step()\n\
         m = SGD([W], lr=0.1, momentum=0.9)\nm.step()\nmem map",
    );
    for name in [
        "allocated losses[0] ",
        "allocated W.grad ",
        "allocated exp_avg of W (Adam) ",
        "allocated exp_avg_sq of W (Adam) ",
        "allocated momentum_buffer of W (SGD) ",
        "allocated saved by ExpBackward0 (for `losses[0]`) ",
        "allocated saved by IndexBackward0 (for `losses[0]`) ",
    ] {
        assert!(out.contains(name), "{name}: {out}");
    }
    assert!(
        out.contains("autograd: graphs hold 128.5 KiB saved for backward"),
        "{out}"
    );
}

/// Iterating a tensor is `unbind(0)`, as PyTorch's `Tensor.__iter__`: the
/// rows a `for` loop, `enumerate`, `zip`, `list`, unpacking and `*args`
/// take are the outputs of one `UnbindBackward0`, so a loss built from
/// them reaches the tensor's gradient (the rows had no history, and a
/// model that walked its features row by row, as PyTorch's Bi-LSTM CRF
/// tutorial does, trained without its LSTM: its gradients stayed None).
/// Each value as PyTorch 2.15 printed it.
#[test]
fn iterating_a_tensor_keeps_its_graph() {
    let out = common::script_lines_on(
        0,
        "iterate_rows",
        "import torch
w = torch.ones(3, 2, requires_grad=True)
y = w * 2
print([r.grad_fn.name() for r in y], len({id(r.grad_fn) for r in y}))
print([a.grad_fn.name() for a, b in zip(y, y)], list(y)[2].grad_fn.name())
first, *rest = y
print(first.grad_fn.name(), rest[1].grad_fn.name(), next(iter(y)).grad_fn.name())
s = 0
for i, r in enumerate(y):
    s = s + r.sum() * i
for r in y:
    s = s + r[0] * 10
s.backward()
print(w.grad.tolist())
with torch.no_grad():
    print([r.grad_fn for r in y])
",
    );
    assert_eq!(
        out,
        [
            "['UnbindBackward0', 'UnbindBackward0', 'UnbindBackward0'] 1",
            "['UnbindBackward0', 'UnbindBackward0', 'UnbindBackward0'] UnbindBackward0",
            "UnbindBackward0 UnbindBackward0 UnbindBackward0",
            "[[20.0, 0.0], [22.0, 2.0], [24.0, 4.0]]",
            "[None, None, None]",
        ]
    );
}
