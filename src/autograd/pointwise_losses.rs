//! The losses of `torch.nn.functional` that are one value per element,
//! then reduced, each with its own node as PyTorch records it:
//! `binary_cross_entropy` (`BinaryCrossEntropyBackward0`),
//! `binary_cross_entropy_with_logits`
//! (`BinaryCrossEntropyWithLogitsBackward0`), `smooth_l1_loss`
//! (`SmoothL1LossBackward0`), `huber_loss` (`HuberLossBackward0`) and
//! `soft_margin_loss` (`SoftMarginLossBackward0`).
//! Each element's loss is computed as PyTorch's CPU kernel computes it;
//! the node saves the input and the target (and the weights).

use std::sync::Arc;

use super::jvp::Ops;
pub use super::node::PointwiseLoss;
use super::node::{Backward, Reduction, Saved};
use super::ops::{bin, bin_s, s_bin};
use super::pointwise_grad::Arith;
use super::record::attach_node;
use super::record::Recording;
use super::{forward_ad, jvp, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::Operand;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;
use crate::vocab::BinaryOp;

type R<T> = Result<T, Error>;

/// The optional weights: `weight` scales each element's loss,
/// `pos_weight` (with logits only) the positive examples'.
#[derive(Clone, Copy, Default)]
pub struct Weights<'a> {
    pub weight: Option<&'a Tensor>,
    pub pos_weight: Option<&'a Tensor>,
}

/// `kind(x, y)`, reduced, recorded as PyTorch's node.
pub fn pointwise_loss(
    rt: &mut Runtime,
    mode: Mode,
    kind: PointwiseLoss,
    (x, y): (&Tensor, &Tensor),
    weights: Weights<'_>,
    reduction: Reduction,
) -> R<Arc<Tensor>> {
    let name = kind.op_name();
    // The regression losses broadcast a target of another shape, after
    // PyTorch's warning (as `mse_loss`); the cross entropies refuse it.
    let regression = matches!(
        kind,
        PointwiseLoss::SmoothL1 { .. } | PointwiseLoss::Huber { .. }
    );
    if kind == PointwiseLoss::SoftMargin && mode.enabled && super::meta::requires_grad(y) {
        return Err(Error::runtime(
            "The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. This input cannot have requires_grad True.",
        ));
    }
    // soft_margin_loss broadcasts a target of another shape silently.
    let regression = regression
        || (kind == PointwiseLoss::SoftMargin && x.shape() != y.shape() && !x.shape().is_empty());
    let broadcast = match regression && x.shape() != y.shape() {
        true => Some(super::losses::broadcast_pair(rt, mode, name, x, y)?),
        false => None,
    };
    let (x, y) = match &broadcast {
        Some((x, y)) => (&**x, &**y),
        None => (x, y),
    };
    if kind == PointwiseLoss::BinaryCrossEntropy {
        super::autocast::refuse_unsafe(mode, x.device(), name)?;
    }
    let cast = super::autocast::inputs(rt, mode, name, &[x, y])?;
    let (x, y) = (cast.get(0, x), cast.get(1, y));
    check(kind, x, y)?;
    let each = elements(rt, kind, x, y, weights)?;
    let out = match reduction {
        Reduction::Mean => rt.reduce(ReduceOp::Mean, &each, None, false)?,
        Reduction::Sum => rt.reduce(ReduceOp::Sum, &each, None, false)?,
        Reduction::None => each,
    };
    let backward = Backward::PointwiseLoss {
        kind,
        x: Saved::new(x),
        y: Saved::new(y),
        weight: weights.weight.map(Saved::new),
        pos_weight: weights.pos_weight.map(Saved::new),
        reduction,
    };
    let out = attach_node(rt, mode, out, kind.node_name(), backward, &[x, y]);
    // Forward-mode AD: each element's derivatives (the backward's, given
    // ones) times the tangents, reduced as the loss is.
    forward_ad::carry(rt, Arc::clone(&out), &[x, y], true, |rt, ts| {
        let (xa, ya) = (Arc::new(x.alias()), Arc::new(y.alias()));
        let ones = super::ops::full_like(rt, x, 1)?;
        let [dx, dy] = self::backward(
            rt,
            mode,
            (kind, Reduction::None),
            (&xa, &ya),
            weights,
            (&ones, ts[1].is_some()),
        )?;
        let mut o = Recording { rt, mode };
        let terms = [(dx, &ts[0]), (dy, &ts[1])];
        let mut parts = Vec::new();
        for (d, t) in terms {
            if let (Some(d), Some(t)) = (d, t) {
                parts.push(Some(o.bin(BinaryOp::Mul, &d, t)?));
            }
        }
        let each = jvp::total(&mut o, parts, x)?;
        match reduction {
            Reduction::Mean => o.reduce(ReduceOp::Mean, &each, None, false),
            Reduction::Sum => o.reduce(ReduceOp::Sum, &each, None, false),
            Reduction::None => Ok(each),
        }
    })
}

/// PyTorch's checks before computing: the shapes (the cross entropies
/// take none but their own; the rest broadcast, after the caller's warning)
/// and the dtypes.
fn check(kind: PointwiseLoss, x: &Tensor, y: &Tensor) -> R<()> {
    if !x.dtype().is_float() {
        return Err(Error::dtype(
            format!(
                "{} takes a floating point input, not {}",
                kind.op_name(),
                x.dtype()
            ),
            None,
        ));
    }
    match kind {
        PointwiseLoss::BinaryCrossEntropy if x.shape() != y.shape() => Err(Error::value(format!(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. \
             Please ensure they have the same size.",
            torch_size(y),
            torch_size(x)
        ))),
        PointwiseLoss::BinaryCrossEntropyWithLogits if x.shape() != y.shape() => {
            Err(Error::value(format!(
                "Target size ({}) must be the same as input size ({})",
                torch_size(y),
                torch_size(x)
            )))
        }
        PointwiseLoss::BinaryCrossEntropy | PointwiseLoss::BinaryCrossEntropyWithLogits
            if y.dtype() != x.dtype() =>
        {
            Err(Error::dtype(
                format!(
                    "Found dtype {} but expected {}",
                    y.dtype().scalar_name(),
                    x.dtype().scalar_name()
                ),
                Some("make the target the input's dtype: `target.float()`".into()),
            ))
        }
        _ => Ok(()),
    }
}

fn torch_size(t: &Tensor) -> String {
    let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

/// Each element's loss, unreduced.
fn elements(
    rt: &mut Runtime,
    kind: PointwiseLoss,
    x: &Tensor,
    y: &Tensor,
    weights: Weights<'_>,
) -> R<Arc<Tensor>> {
    use BinaryOp::*;
    let each = match kind {
        PointwiseLoss::BinaryCrossEntropy => {
            // (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100)
            let (log_x, log_1mx) = clamped_logs(rt, x)?;
            let y1 = bin_s(rt, Sub, y, 1.0)?;
            let a = bin(rt, Mul, &y1, &log_1mx)?;
            let b = bin(rt, Mul, y, &log_x)?;
            bin(rt, Sub, &a, &b)?
        }
        PointwiseLoss::BinaryCrossEntropyWithLogits => {
            // (1 - y) * x - log_weight * log_sigmoid(x)
            let mut ls = log_sigmoid(rt, x)?;
            if let Some(p) = weights.pos_weight {
                let lw = log_weight(rt, p, y)?;
                ls = bin(rt, Mul, &ls, &lw)?;
            }
            let one_minus = s_bin(rt, Sub, 1.0, y)?;
            let a = bin(rt, Mul, &one_minus, x)?;
            bin(rt, Sub, &a, &ls)?
        }
        PointwiseLoss::SmoothL1 { beta } => {
            let d = bin(rt, Sub, x, y)?;
            let ad = rt.unary(UnaryOp::Abs, &d)?;
            if beta == 0.0 {
                ad
            } else {
                let sq = bin(rt, Mul, &ad, &ad)?;
                let half = bin_s(rt, Mul, &sq, 0.5)?;
                let quad = bin_s(rt, Div, &half, beta)?;
                let lin = bin_s(rt, Sub, &ad, 0.5 * beta)?;
                let near = bin_s(rt, Lt, &ad, beta)?;
                select(rt, &near, &quad, &lin)?
            }
        }
        PointwiseLoss::Huber { delta } => {
            let d = bin(rt, Sub, x, y)?;
            let ad = rt.unary(UnaryOp::Abs, &d)?;
            let sq = bin(rt, Mul, &ad, &ad)?;
            let quad = bin_s(rt, Mul, &sq, 0.5)?;
            let lin = bin_s(rt, Sub, &ad, 0.5 * delta)?;
            let lin = bin_s(rt, Mul, &lin, delta)?;
            let near = bin_s(rt, Le, &ad, delta)?;
            select(rt, &near, &quad, &lin)?
        }
        PointwiseLoss::SoftMargin => {
            // log1p(exp(-x * y))
            let nx = rt.unary(UnaryOp::Neg, x)?;
            let t = bin(rt, Mul, &nx, y)?;
            let e = rt.unary(UnaryOp::Exp, &t)?;
            rt.unary(UnaryOp::Log1p, &e)?
        }
    };
    match weights.weight {
        Some(w) => bin(rt, Mul, &each, w),
        None => Ok(each),
    }
}

/// `max(log(x), -100)` and `max(log1p(-x), -100)`, as PyTorch's binary
/// cross entropy clamps them (so a probability of 0 or 1 costs 100).
fn clamped_logs(rt: &mut Runtime, x: &Tensor) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let log_x = rt.unary(UnaryOp::Log, x)?;
    let log_x = bin_s(rt, BinaryOp::Maximum, &log_x, -100.0)?;
    let neg = rt.unary(UnaryOp::Neg, x)?;
    let log_1mx = rt.unary(UnaryOp::Log1p, &neg)?;
    let log_1mx = bin_s(rt, BinaryOp::Maximum, &log_1mx, -100.0)?;
    Ok((log_x, log_1mx))
}

/// `log σ(x) = min(x, 0) - log1p(exp(-|x|))`, as PyTorch's CPU kernel.
fn log_sigmoid(rt: &mut Runtime, x: &Tensor) -> R<Arc<Tensor>> {
    super::activation_ops::values(rt, &super::activation::Activation::LogSigmoid, x)
}

/// `(p - 1) * y + 1`: how much a positive example's log σ counts.
fn log_weight(rt: &mut Runtime, p: &Tensor, y: &Tensor) -> R<Arc<Tensor>> {
    let p1 = bin_s(rt, BinaryOp::Sub, p, 1.0)?;
    let py = bin(rt, BinaryOp::Mul, &p1, y)?;
    bin_s(rt, BinaryOp::Add, &py, 1.0)
}

/// `where(c, a, b)`.
fn select(rt: &mut Runtime, c: &Tensor, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    rt.ternary(
        TernaryOp::Where,
        Operand::strong(c),
        Operand::strong(a),
        Operand::strong(b),
    )
}

/// The gradients of the input and the target from `g`, as PyTorch's
/// backward formulas give them (`wants_y`: the target's only when it
/// requires one).
pub fn backward(
    rt: &mut Runtime,
    mode: Mode,
    (kind, reduction): (PointwiseLoss, Reduction),
    (x, y): (&Arc<Tensor>, &Arc<Tensor>),
    weights: Weights<'_>,
    (g, wants_y): (&Arc<Tensor>, bool),
) -> R<[Option<Arc<Tensor>>; 2]> {
    use super::create_graph as cg;
    use BinaryOp::*;
    // The gradient each element's loss gets: g over the count for a mean.
    let g = match reduction {
        Reduction::Mean => cg::bin_s(rt, mode, Div, g, x.numel().max(1) as f64)?,
        Reduction::Sum | Reduction::None => Arc::clone(g),
    };
    let g = match weights.weight {
        Some(w) => cg::bin(rt, mode, Mul, &g, w)?,
        None => g,
    };
    let (dx, dy) = match kind {
        PointwiseLoss::BinaryCrossEntropy => {
            // (x - y) / max(x (1 - x), 1e-12); target: -logit(x), unclamped
            let d = cg::bin(rt, mode, Sub, x, y)?;
            let one_minus = cg::s_bin(rt, mode, Sub, 1.0, x)?;
            let denom = cg::bin(rt, mode, Mul, x, &one_minus)?;
            let denom = cg::bin_s(rt, mode, Maximum, &denom, 1e-12)?;
            let dx = cg::bin(rt, mode, Div, &d, &denom)?;
            let dy = match wants_y {
                true => {
                    let odds = cg::bin(rt, mode, Div, x, &one_minus)?;
                    let logit = cg::unary(rt, mode, UnaryOp::Log, &odds)?;
                    Some(cg::unary(rt, mode, UnaryOp::Neg, &logit)?)
                }
                false => None,
            };
            (dx, dy)
        }
        PointwiseLoss::BinaryCrossEntropyWithLogits => {
            // (p y + 1 - y) σ(x) - p y, or σ(x) - y; target: -x - (p - 1) log σ(x)
            let s = cg::unary(rt, mode, UnaryOp::Sigmoid, x)?;
            let dx = match weights.pos_weight {
                Some(p) => {
                    let t = cg::bin(rt, mode, Mul, p, y)?;
                    let t1 = cg::bin_s(rt, mode, Add, &t, 1.0)?;
                    let lw = cg::bin(rt, mode, Sub, &t1, y)?;
                    let a = cg::bin(rt, mode, Mul, &lw, &s)?;
                    cg::bin(rt, mode, Sub, &a, &t)?
                }
                None => cg::bin(rt, mode, Sub, &s, y)?,
            };
            let dy = match (wants_y, weights.pos_weight) {
                (false, _) => None,
                (true, None) => Some(cg::unary(rt, mode, UnaryOp::Neg, x)?),
                (true, Some(p)) => {
                    let kind = super::activation::Activation::LogSigmoid;
                    let ls = super::activation_ops::activation(rt, mode, kind, x)?;
                    let p1 = cg::bin_s(rt, mode, Sub, p, 1.0)?;
                    let a = cg::bin(rt, mode, Mul, &p1, &ls)?;
                    let nx = cg::unary(rt, mode, UnaryOp::Neg, x)?;
                    Some(cg::bin(rt, mode, Sub, &nx, &a)?)
                }
            };
            (dx, dy)
        }
        PointwiseLoss::SmoothL1 { beta } => {
            // d / beta where |d| < beta, else sign(d); the target's is minus that.
            let d = cg::bin(rt, mode, Sub, x, y)?;
            let sign = super::ops::sign(rt, &d)?;
            let sign = cg::flat(rt, mode, sign, &d, "SgnBackward0");
            let dx = match beta == 0.0 {
                true => sign,
                false => {
                    let ad = cg::unary(rt, mode, UnaryOp::Abs, &d)?;
                    let near = cg::bin_s(rt, mode, Lt, &ad, beta)?;
                    let scaled = cg::bin_s(rt, mode, Div, &d, beta)?;
                    cg::pick(rt, mode, &near, &scaled, &sign)?
                }
            };
            (dx, None)
        }
        PointwiseLoss::Huber { delta } => {
            // d clamped to [-delta, delta]; the target's is minus that.
            let d = cg::bin(rt, mode, Sub, x, y)?;
            let lo = cg::bin_s(rt, mode, Maximum, &d, -delta)?;
            (cg::bin_s(rt, mode, Minimum, &lo, delta)?, None)
        }
        PointwiseLoss::SoftMargin => {
            // -y * z / (z + 1), z = exp(-y * x) (no target gradient)
            let ny = cg::unary(rt, mode, UnaryOp::Neg, y)?;
            let t = cg::bin(rt, mode, Mul, &ny, x)?;
            let z = cg::unary(rt, mode, UnaryOp::Exp, &t)?;
            let num = cg::bin(rt, mode, Mul, &ny, &z)?;
            let den = cg::bin_s(rt, mode, Add, &z, 1.0)?;
            (cg::bin(rt, mode, Div, &num, &den)?, None)
        }
    };
    let gx = cg::bin(rt, mode, Mul, &g, &dx)?;
    let gy = match (wants_y, dy) {
        (false, _) => None,
        (true, Some(dy)) => Some(cg::bin(rt, mode, Mul, &g, &dy)?),
        // The regression losses: the target's gradient is the input's negated.
        (true, None) => Some(cg::unary(rt, mode, UnaryOp::Neg, &gx)?),
    };
    Ok([Some(gx), gy])
}
