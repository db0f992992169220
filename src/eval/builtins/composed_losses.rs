//! The losses PyTorch composes of other ops (`aten/src/ATen/native/Loss.cpp`
//! and `torch/nn/functional.py`), composed here of the same ops in the same
//! order, so autograd records PyTorch's nodes: `kl_div`,
//! `margin_ranking_loss`, `hinge_embedding_loss`, `cosine_embedding_loss`,
//! `triplet_margin_loss`, `pairwise_distance`, `multilabel_soft_margin_loss`,
//! `poisson_nll_loss`, `gaussian_nll_loss`; as functions and as modules
//! (`nn.KLDivLoss`...), whose forward runs the function with its settings.

use std::sync::Arc;

use super::super::args::{ArgVal, Bound};
use super::super::{Interp, Value};
use crate::autograd::losses::Reduction;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{BinOp, Name};
use crate::lang::Span;
use crate::nn::layer::ComposedLoss;
use crate::nn::layers::Layer;
use crate::nn::Module;
use crate::runtime::Tensor;
use crate::vocab::BinaryOp;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes, with their functions.
pub const CLASSES: &[(&str, &str)] = &[
    ("KLDivLoss", "kl_div"),
    ("MarginRankingLoss", "margin_ranking_loss"),
    ("HingeEmbeddingLoss", "hinge_embedding_loss"),
    ("CosineEmbeddingLoss", "cosine_embedding_loss"),
    ("TripletMarginLoss", "triplet_margin_loss"),
    ("MultiLabelSoftMarginLoss", "multilabel_soft_margin_loss"),
    ("PoissonNLLLoss", "poisson_nll_loss"),
    ("GaussianNLLLoss", "gaussian_nll_loss"),
    ("PairwiseDistance", "pairwise_distance"),
    ("CosineSimilarity", "cosine_similarity"),
];

/// How many tensors each function's forward takes.
fn arity(function: &str) -> usize {
    match function {
        "margin_ranking_loss"
        | "cosine_embedding_loss"
        | "triplet_margin_loss"
        | "gaussian_nll_loss" => 3,
        _ => 2,
    }
}

/// The tensors' parameter names, in order.
fn tensor_names(function: &str) -> &'static [&'static str] {
    match function {
        "margin_ranking_loss" | "cosine_embedding_loss" => &["input1", "input2", "target"],
        "triplet_margin_loss" => &["anchor", "positive", "negative"],
        "gaussian_nll_loss" => &["input", "target", "var"],
        "pairwise_distance" | "cosine_similarity" => &["x1", "x2"],
        _ => &["input", "target"],
    }
}

/// The settings of `function` as given (PyTorch's defaults otherwise).
fn settings(
    me: &mut Interp,
    function: &'static str,
    b: &Bound,
) -> Result<ComposedLoss, Diagnostic> {
    let num = |name: &str, default: f64| -> Result<f64, Diagnostic> {
        Ok(b.float(name)?.unwrap_or(default))
    };
    let (reduction, batchmean) = match (function, b.given("reduction")) {
        ("kl_div", Some((Value::Str(s), _))) if s.as_str() == "batchmean" => (Reduction::Sum, true),
        ("pairwise_distance" | "cosine_similarity", _) => (Reduction::None, false),
        _ => (super::losses::loss_reduction(me, b)?, false),
    };
    let (eps_default, p_default) = match function {
        "poisson_nll_loss" | "cosine_similarity" => (1e-8, 2.0),
        _ => (1e-6, 2.0),
    };
    let margin_default = match function {
        "hinge_embedding_loss" | "triplet_margin_loss" => 1.0,
        _ => 0.0,
    };
    Ok(ComposedLoss {
        function,
        reduction,
        batchmean,
        margin: num("margin", margin_default)?,
        p: num("p", p_default)?,
        eps: num("eps", eps_default)?,
        log_target: b.bool("log_target", false)?,
        swap: b.bool("swap", false)?,
        log_input: b.bool("log_input", true)?,
        full: b.bool("full", false)?,
        keepdim: b.bool("keepdim", false)?,
        dim: b.int("dim")?.unwrap_or(1),
    })
}

/// `F.kl_div(input, target, ...)` and the others, by name.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let loss = settings(me, name, b)?;
    let mut inputs = Vec::new();
    for n in tensor_names(name) {
        inputs.push(b.tensor(n)?);
    }
    let weight = b.optional_tensor("weight")?;
    compute(me, &loss, &inputs, weight, b.span)
}

/// The classes' constructors (`nn.KLDivLoss(reduction="batchmean")`...):
/// the settings kept, and a `MultiLabelSoftMarginLoss`'s weight as a buffer.
pub(super) fn layer(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let function = CLASSES
        .iter()
        .find(|(c, _)| *c == name)
        .map(|(_, f)| *f)
        .ok_or_else(|| Error::value(format!("internal error: no loss `{name}`")).at(b.span))?;
    let loss = settings(me, function, b)?;
    let mut m = Module::new(name, Layer::ComposedLoss(loss));
    if name == "MultiLabelSoftMarginLoss" {
        m.set_buffer("weight", b.optional_tensor("weight")?, None)
            .map_err(|e| e.at(b.span))?;
    }
    Ok(Value::Module(m.into_ref()))
}

impl Interp {
    /// A composed loss module's forward: its function on the inputs.
    pub(crate) fn composed_loss_forward(
        &mut self,
        loss: &ComposedLoss,
        weight: Option<Arc<Tensor>>,
        inputs: &[Arc<Tensor>],
        span: Span,
    ) -> Out {
        let want = arity(loss.function);
        if inputs.len() != want {
            return Err(Error::Module {
                class: "TypeError",
                message: format!("forward() takes {want} tensors ({} given)", inputs.len()),
                help: None,
            }
            .at(span));
        }
        compute(self, loss, inputs, weight, span)
    }
}

/// A few of the interpreter's ops on values, at one span: what a program
/// writing the loss would run.
struct Ops<'a> {
    me: &'a mut Interp,
    span: Span,
}

impl Ops<'_> {
    fn call(&mut self, t: &Value, name: &str, args: Vec<Value>) -> Out {
        let args = args
            .into_iter()
            .map(|v| ArgVal::positional(v, self.span))
            .collect();
        let n = Name::new(name.into(), self.span);
        self.me.call_method(t.clone(), &n, args, self.span)
    }

    fn op(&mut self, op: BinaryOp, a: &Value, b: &Value) -> Out {
        self.me
            .binary(BinOp::Elementwise(op), a.clone(), b.clone())
            .map_err(|e| e.at(self.span))
    }

    /// `x op s` as PyTorch's C++ writes it with a number (`AddBackward1`,
    /// `SubBackward1`; `Maximum` is `clamp_min`: `ClampMinBackward0`).
    fn scalar(&mut self, op: BinaryOp, x: &Value, s: f64) -> Out {
        let t = tensor(x, self.span)?;
        crate::autograd::record::binary_scalar(&mut self.me.rt, self.me.grad, op, &t, s)
            .map(Value::Tensor)
            .map_err(|e| e.at(self.span))
    }

    /// A 0-d tensor of `v` in x's dtype on its device (a C++ scalar that
    /// PyTorch's composite subtracts from: `SubBackward0`).
    fn number_like(&mut self, x: &Value, v: f64) -> Out {
        let t = tensor(x, self.span)?;
        self.me
            .rt
            .tensor(&Tensor::scalar(v), t.dtype(), t.device())
            .map(Value::Tensor)
            .map_err(|e| e.at(self.span))
    }

    /// `torch.where(cond, a, b)` as `a.where(cond, b)`.
    fn pick(&mut self, cond: &Value, a: &Value, b: &Value) -> Out {
        self.call(a, "where", vec![cond.clone(), b.clone()])
    }

    /// The loss reduced as `reduction` says.
    fn reduce(&mut self, out: &Value, reduction: Reduction) -> Out {
        match reduction {
            Reduction::Mean => self.call(out, "mean", vec![]),
            Reduction::Sum => self.call(out, "sum", vec![]),
            Reduction::None => Ok(out.clone()),
        }
    }

    /// `norm(x1 - x2 + eps, p, last dim, keepdim)`: PyTorch's `pairwise_distance`.
    fn distance(&mut self, x1: &Value, x2: &Value, loss: &ComposedLoss) -> Out {
        let d = self.op(BinaryOp::Sub, x1, x2)?;
        let shifted = self.scalar(BinaryOp::Add, &d, loss.eps)?;
        let t = tensor(&shifted, self.span)?;
        let last = t.ndim().max(1) as i64 - 1;
        let (rt, mode) = (&mut self.me.rt, self.me.grad);
        crate::autograd::record::cpp_norm(rt, mode, &t, loss.p, last, loss.keepdim)
            .map(Value::Tensor)
            .map_err(|e| e.at(self.span))
    }
}

fn tensor(v: &Value, span: Span) -> Result<Arc<Tensor>, Diagnostic> {
    match v {
        Value::Tensor(t) => Ok(Arc::clone(t)),
        other => Err(Error::wrong_type("a loss's operand", "a tensor", other.type_name()).at(span)),
    }
}

/// `t * log(t)`, 0 where `t` is 0 (PyTorch's `xlogy(t, t)`): the target's
/// entropy term of `kl_div`.
fn xlogy(ops: &mut Ops, t: &Value) -> Out {
    let log = ops.call(t, "log", vec![])?;
    let prod = ops.op(BinaryOp::Mul, t, &log)?;
    let zero = ops.op(BinaryOp::Eq, t, &Value::float(0.0))?;
    let nan = ops.call(t, "isnan", vec![])?;
    let keep = ops.op(BinaryOp::LogicalOr, &zero, &nan)?;
    let kept = ops.pick(&nan, t, &Value::float(0.0))?;
    ops.pick(&keep, &kept, &prod)
}

/// The loss `loss.function` of `inputs`, composed as PyTorch composes it.
fn compute(
    me: &mut Interp,
    loss: &ComposedLoss,
    inputs: &[Arc<Tensor>],
    weight: Option<Arc<Tensor>>,
    span: Span,
) -> Out {
    let v: Vec<Value> = inputs
        .iter()
        .map(|t| Value::Tensor(Arc::clone(t)))
        .collect();
    let mut ops = Ops { me, span };
    let ops = &mut ops;
    let f = |x: f64| Value::float(x);
    match loss.function {
        "kl_div" => {
            let (x, t) = (&v[0], &v[1]);
            let out = match loss.log_target {
                // exp(target) * (target - input)
                true => {
                    let e = ops.call(t, "exp", vec![])?;
                    let d = ops.op(BinaryOp::Sub, t, x)?;
                    ops.op(BinaryOp::Mul, &e, &d)?
                }
                // xlogy(target, target) - target * input
                false => {
                    // A target in a graph gets `xlogy`'s gradient, `log(t) + 1`
                    // (recorded as its parts, not PyTorch's `XlogyBackward0`).
                    let ent = xlogy(ops, t)?;
                    let tx = ops.op(BinaryOp::Mul, t, x)?;
                    ops.op(BinaryOp::Sub, &ent, &tx)?
                }
            };
            let reduced = ops.reduce(&out, loss.reduction)?;
            match (loss.batchmean, &v[0]) {
                (true, Value::Tensor(x)) if x.ndim() > 0 => {
                    let n = x.shape()[0] as i64;
                    ops.op(BinaryOp::Div, &reduced, &Value::Int(n))
                }
                _ => Ok(reduced),
            }
        }
        "margin_ranking_loss" => {
            // (-target * (input1 - input2) + margin).clamp_min(0)
            let d = ops.op(BinaryOp::Sub, &v[0], &v[1])?;
            let nt = ops.call(&v[2], "neg", vec![])?;
            let m = ops.op(BinaryOp::Mul, &nt, &d)?;
            let s = ops.scalar(BinaryOp::Add, &m, loss.margin)?;
            let out = ops.scalar(BinaryOp::Maximum, &s, 0.0)?;
            ops.reduce(&out, loss.reduction)
        }
        "hinge_embedding_loss" => {
            // where(target != 1, (margin - x).clamp_min(0), 0) + where(target != -1, x, 0)
            let (x, t) = (&v[0], &v[1]);
            let margin = ops.number_like(x, loss.margin)?;
            let d = ops.op(BinaryOp::Sub, &margin, x)?;
            let clamped = ops.scalar(BinaryOp::Maximum, &d, 0.0)?;
            let not_pos = ops.op(BinaryOp::Ne, t, &Value::Int(1))?;
            let not_neg = ops.op(BinaryOp::Ne, t, &Value::Int(-1))?;
            let a = ops.pick(&not_pos, &clamped, &f(0.0))?;
            let b = ops.pick(&not_neg, x, &f(0.0))?;
            let out = ops.op(BinaryOp::Add, &a, &b)?;
            ops.reduce(&out, loss.reduction)
        }
        "cosine_embedding_loss" => {
            let (x1, x2, t) = (&v[0], &v[1], &v[2]);
            let dim = match t {
                Value::Tensor(t) => Value::Int(t.ndim() as i64),
                _ => Value::Int(0),
            };
            const EPSILON: f64 = 1e-12;
            let p = ops.op(BinaryOp::Mul, x1, x2)?;
            let prod_sum = ops.call(&p, "sum", vec![dim.clone()])?;
            let s1 = ops.op(BinaryOp::Mul, x1, x1)?;
            let s1 = ops.call(&s1, "sum", vec![dim.clone()])?;
            let mag1 = ops.scalar(BinaryOp::Add, &s1, EPSILON)?;
            let s2 = ops.op(BinaryOp::Mul, x2, x2)?;
            let s2 = ops.call(&s2, "sum", vec![dim])?;
            let mag2 = ops.scalar(BinaryOp::Add, &s2, EPSILON)?;
            let m = ops.op(BinaryOp::Mul, &mag1, &mag2)?;
            let denom = ops.call(&m, "sqrt", vec![])?;
            let cos = ops.op(BinaryOp::Div, &prod_sum, &denom)?;
            let one = ops.number_like(&cos, 1.0)?;
            let pos = ops.op(BinaryOp::Sub, &one, &cos)?;
            let shifted = ops.scalar(BinaryOp::Sub, &cos, loss.margin)?;
            let neg = ops.scalar(BinaryOp::Maximum, &shifted, 0.0)?;
            let is_pos = ops.op(BinaryOp::Eq, t, &Value::Int(1))?;
            let is_neg = ops.op(BinaryOp::Eq, t, &Value::Int(-1))?;
            let a = ops.pick(&is_pos, &pos, &f(0.0))?;
            let b = ops.pick(&is_neg, &neg, &f(0.0))?;
            let out = ops.op(BinaryOp::Add, &a, &b)?;
            ops.reduce(&out, loss.reduction)
        }
        "pairwise_distance" => ops.distance(&v[0], &v[1], loss),
        // `nn.CosineSimilarity(dim, eps)`: `F.cosine_similarity` itself.
        "cosine_similarity" => {
            let doc = crate::eval::docs::function("cosine_similarity")
                .ok_or_else(|| Error::value("internal error: no cosine_similarity").at(ops.span))?;
            let span = ops.span;
            let args = vec![
                ArgVal::positional(v[0].clone(), span),
                ArgVal::positional(v[1].clone(), span),
                ArgVal::positional(Value::Int(loss.dim), span),
                ArgVal::positional(Value::float(loss.eps), span),
            ];
            ops.me.call_builtin(doc, args, span)
        }
        "triplet_margin_loss" => {
            let (a, p, n) = (&v[0], &v[1], &v[2]);
            let dist_pos = ops.distance(a, p, loss)?;
            let mut dist_neg = ops.distance(a, n, loss)?;
            if loss.swap {
                let dist_swap = ops.distance(p, n, loss)?;
                dist_neg = ops.call(&dist_neg, "minimum", vec![dist_swap])?;
            }
            let s = ops.scalar(BinaryOp::Add, &dist_pos, loss.margin)?;
            let d = ops.op(BinaryOp::Sub, &s, &dist_neg)?;
            let out = ops.scalar(BinaryOp::Maximum, &d, 0.0)?;
            ops.reduce(&out, loss.reduction)
        }
        "multilabel_soft_margin_loss" => {
            // -(t * logsigmoid(x) + (1 - t) * logsigmoid(-x)), * weight,
            // summed over the classes / C
            let (x, t) = (&v[0], &v[1]);
            let ls = logsigmoid(ops, x)?;
            let a = ops.op(BinaryOp::Mul, t, &ls)?;
            let one_minus = ops.op(BinaryOp::Sub, &f(1.0), t)?;
            let nx = ops.call(x, "neg", vec![])?;
            let lsn = logsigmoid(ops, &nx)?;
            let b = ops.op(BinaryOp::Mul, &one_minus, &lsn)?;
            let s = ops.op(BinaryOp::Add, &a, &b)?;
            let mut out = ops.call(&s, "neg", vec![])?;
            if let Some(w) = weight {
                out = ops.op(BinaryOp::Mul, &out, &Value::Tensor(w))?;
            }
            let class_dim = inputs[0].ndim().max(1) as i64 - 1;
            let c = inputs[0].shape().last().copied().unwrap_or(1) as i64;
            let summed = ops.call(&out, "sum", vec![Value::Int(class_dim)])?;
            let per = ops.op(BinaryOp::Div, &summed, &Value::Int(c))?;
            ops.reduce(&per, loss.reduction)
        }
        "poisson_nll_loss" => {
            let (x, t) = (&v[0], &v[1]);
            let mut out = match loss.log_input {
                // exp(input) - target * input
                true => {
                    let e = ops.call(x, "exp", vec![])?;
                    let tx = ops.op(BinaryOp::Mul, t, x)?;
                    ops.op(BinaryOp::Sub, &e, &tx)?
                }
                // input - target * log(input + eps)
                false => {
                    let shifted = ops.op(BinaryOp::Add, x, &f(loss.eps))?;
                    let l = ops.call(&shifted, "log", vec![])?;
                    let tl = ops.op(BinaryOp::Mul, t, &l)?;
                    ops.op(BinaryOp::Sub, x, &tl)?
                }
            };
            if loss.full {
                // + Stirling's approximation of log(target!) where target > 1
                let tl = ops.call(t, "log", vec![])?;
                let a = ops.op(BinaryOp::Mul, t, &tl)?;
                let a = ops.op(BinaryOp::Sub, &a, t)?;
                let two_pi_t = ops.op(BinaryOp::Mul, &f(2.0 * std::f64::consts::PI), t)?;
                let l2 = ops.call(&two_pi_t, "log", vec![])?;
                let half = ops.op(BinaryOp::Mul, &f(0.5), &l2)?;
                let stirling = ops.op(BinaryOp::Add, &a, &half)?;
                let small = ops.op(BinaryOp::Le, t, &Value::Int(1))?;
                let term = ops.call(&stirling, "masked_fill", vec![small, f(0.0)])?;
                out = ops.op(BinaryOp::Add, &out, &term)?;
            }
            ops.reduce(&out, loss.reduction)
        }
        "gaussian_nll_loss" => gaussian_nll(ops, &v, inputs, loss),
        other => Err(Error::value(format!("internal error: no loss `{other}`")).at(span)),
    }
}

/// `logsigmoid(x)` (`LogSigmoidBackward0`).
fn logsigmoid(ops: &mut Ops, x: &Value) -> Out {
    let Value::Tensor(t) = x else {
        return Err(
            Error::wrong_type("logsigmoid's input", "a tensor", x.type_name()).at(ops.span),
        );
    };
    let kind = crate::autograd::activation::Activation::LogSigmoid;
    crate::autograd::activation_ops::activation(&mut ops.me.rt, ops.me.grad, kind, t)
        .map(Value::Tensor)
        .map_err(|e| e.at(ops.span))
}

/// `gaussian_nll_loss(input, target, var, full, eps)` as functional.py:
/// a `var` with one dim fewer (or a last dim of 1) broadcast, a copy of it
/// raised to `eps` without recording, `0.5 * (log(var) + (input -
/// target)**2 / var)` (+ `0.5 * log(2 pi)` when `full`).
fn gaussian_nll(ops: &mut Ops, v: &[Value], inputs: &[Arc<Tensor>], loss: &ComposedLoss) -> Out {
    let (x, t) = (&v[0], &v[1]);
    let (input, var_t) = (&inputs[0], &inputs[2]);
    let mut var = v[2].clone();
    if var_t.shape() != input.shape() {
        let fewer =
            var_t.ndim() + 1 == input.ndim() && var_t.shape() == &input.shape()[..input.ndim() - 1];
        let last_one = var_t.ndim() == input.ndim()
            && var_t.shape().last() == Some(&1)
            && var_t.shape()[..var_t.ndim() - 1] == input.shape()[..input.ndim() - 1];
        if fewer {
            var = ops.call(&var, "unsqueeze", vec![Value::Int(-1)])?;
        } else if !last_one {
            return Err(Error::value("var is of incorrect size").at(ops.span));
        }
    }
    let negative = ops.op(BinaryOp::Lt, &var, &Value::float(0.0))?;
    let any = ops.call(&negative, "any", vec![])?;
    if matches!(ops.call(&any, "item", vec![])?, Value::Bool(b) if b.get()) {
        return Err(Error::value("var has negative entry/entries").at(ops.span));
    }
    let var = ops.call(&var, "clone", vec![])?;
    {
        let saved = ops.me.grad;
        ops.me.grad.enabled = false;
        let r = ops.call(&var, "clamp_", vec![Value::float(loss.eps)]);
        ops.me.grad = saved;
        r?;
    }
    let lv = ops.call(&var, "log", vec![])?;
    let d = ops.op(BinaryOp::Sub, x, t)?;
    let sq = ops.op(BinaryOp::Pow, &d, &Value::Int(2))?;
    let q = ops.op(BinaryOp::Div, &sq, &var)?;
    let s = ops.op(BinaryOp::Add, &lv, &q)?;
    let mut out = ops.op(BinaryOp::Mul, &Value::float(0.5), &s)?;
    if loss.full {
        let c = 0.5 * (2.0 * std::f64::consts::PI).ln();
        out = ops.op(BinaryOp::Add, &out, &Value::float(c))?;
    }
    ops.reduce(&out, loss.reduction)
}
