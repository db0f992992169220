//! The losses of `torch.nn.functional` with their own nodes, as PyTorch
//! records them: `mse_loss` (`MseLossBackward0`) and `nll_loss`
//! (`NllLossBackward0`); `cross_entropy` is `nll_loss` of `log_softmax`,
//! as PyTorch computes it. Each forward is the op layer's ops; the node
//! saves what PyTorch's saves.

use std::sync::Arc;

pub use super::node::Reduction;
use super::node::{Backward, Saved};
use super::ops::bin;
use super::record::attach_node;
use super::{forward_ad, jvp, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::view;
use crate::runtime::shape::{broadcast_shapes, fmt_shape};
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// `mse_loss(input, target, reduction="mean")`: the mean (or sum) of the
/// squared differences.
pub fn mse_loss(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    y: &Tensor,
    reduction: Reduction,
) -> R<Arc<Tensor>> {
    let cast = super::autocast::inputs(rt, mode, "mse_loss", &[x, y])?;
    let (x, y) = (cast.get(0, x), cast.get(1, y));
    if x.shape() != y.shape() {
        let (xe, ye) = broadcast_pair(rt, mode, "mse_loss", x, y)?;
        return mse_loss(rt, mode, &xe, &ye, reduction);
    }
    let d = bin(rt, BinaryOp::Sub, x, y)?;
    let sq = bin(rt, BinaryOp::Mul, &d, &d)?;
    let out = match reduction {
        Reduction::Mean => rt.reduce(ReduceOp::Mean, &sq, None, false)?,
        Reduction::Sum => rt.reduce(ReduceOp::Sum, &sq, None, false)?,
        Reduction::None => sq,
    };
    let backward = Backward::MseLoss {
        x: Saved::new(x),
        y: Saved::new(y),
        reduction,
    };
    let out = attach_node(rt, mode, out, "MseLossBackward0", backward, &[x, y]);
    // Forward-mode AD: `2 * (x - y) * (tx - ty)`, reduced alike.
    let reduce = match reduction {
        Reduction::Mean => Some(ReduceOp::Mean),
        Reduction::Sum => Some(ReduceOp::Sum),
        Reduction::None => None,
    };
    forward_ad::carry(rt, Arc::clone(&out), &[x, y], true, |rt, ts| {
        let mut o = super::record::Recording { rt, mode };
        jvp::mse(&mut o, (x, y), (&ts[0], &ts[1]), reduce, &out)
    })
}

/// `l1_loss(x, y)`: PyTorch composes it, `(x - y).abs()` then the
/// reduction (`MeanBackward0`, `SumBackward0`, or `AbsBackward0` for none).
pub fn l1_loss(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    y: &Tensor,
    reduction: Reduction,
) -> R<Arc<Tensor>> {
    let cast = super::autocast::inputs(rt, mode, "l1_loss", &[x, y])?;
    let (x, y) = (cast.get(0, x), cast.get(1, y));
    if x.shape() != y.shape() {
        let (xe, ye) = broadcast_pair(rt, mode, "l1_loss", x, y)?;
        return l1_loss(rt, mode, &xe, &ye, reduction);
    }
    let d = super::record::binary(
        rt,
        mode,
        BinaryOp::Sub,
        Operand::strong(x),
        Operand::strong(y),
    )?;
    let a = super::record::unary(rt, mode, UnaryOp::Abs, &d)?;
    match reduction {
        Reduction::Mean => super::record::reduce(rt, mode, ReduceOp::Mean, &a, None, false),
        Reduction::Sum => super::record::reduce(rt, mode, ReduceOp::Sum, &a, None, false),
        Reduction::None => Ok(a),
    }
}

/// A loss's input and target of different shapes, as PyTorch's regression
/// losses take them: a warning, then both broadcast
/// (`torch.broadcast_tensors`: ExpandBackward0 each).
pub fn broadcast_pair(
    rt: &mut Runtime,
    mode: Mode,
    name: &str,
    x: &Tensor,
    y: &Tensor,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let shape = broadcast_shapes(x.shape(), y.shape()).ok_or_else(|| {
        Error::shape(format!(
            "{name}: the input has shape {} and the target {}, which do not broadcast",
            fmt_shape(x.shape()),
            fmt_shape(y.shape())
        ))
    })?;
    rt.note(format!(
        "{name}: using a target size ({}) that is different to the input size ({}). This \
         will likely lead to incorrect results due to broadcasting. Please ensure they have \
         the same size.",
        fmt_shape(y.shape()),
        fmt_shape(x.shape())
    ));
    let sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let expanded = |t: &Tensor| -> R<Arc<Tensor>> {
        let v = Arc::new(view::expand(t, &sizes)?);
        Ok(attach_node(
            rt,
            mode,
            v,
            "ExpandBackward0",
            Backward::Expand,
            &[t],
        ))
    };
    Ok((expanded(x)?, expanded(y)?))
}

/// `nll_loss(input, target, ignore_index=-100, reduction="mean")`: minus
/// the input at each row's target class (class indices), averaged over the
/// rows whose target is not `ignore_index`.
pub fn nll_loss(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    target: &Tensor,
    ignore_index: i64,
    reduction: Reduction,
    class_weight: Option<&Tensor>,
) -> R<Arc<Tensor>> {
    let cast = super::autocast::inputs(rt, mode, "nll_loss", &[x])?;
    let x = cast.get(0, x);
    let [n, _] = *x.shape() else {
        return Err(Error::shape(format!(
            "nll_loss takes an input of shape [N, C] (a row of class scores per sample), not {}",
            fmt_shape(x.shape())
        )));
    };
    if !target.dtype().is_int() || target.shape() != [n] {
        return Err(Error::value_help(
            format!(
                "nll_loss takes a target of N class indices (an integer tensor of shape [{n}]), not {}{}",
                target.dtype(),
                fmt_shape(target.shape())
            ),
            "class indices: e.g. `tensor([0, 2, 1])`, one per row of the input",
        ));
    }
    // The rows that count, and each row's target with ignored ones at 0.
    let ignore = Tensor::scalar(ignore_index);
    let valid = rt.binary(
        BinaryOp::Ne,
        Operand::strong(target),
        Operand::weak(&ignore),
    )?;
    let zero = Tensor::scalar(0i64);
    let safe = rt.ternary(
        crate::runtime::op::ternary::TernaryOp::Where,
        Operand::strong(&valid),
        Operand::strong(target),
        Operand::weak(&zero),
    )?;
    // Each row's target score, read through one flat index (row * C +
    // target), as PyTorch's nll_loss kernel reads it: the host never waits
    // for the targets (two index tensors would be combined on the host).
    let classes = x.shape()[1];
    let starts = rt.arange(
        0.0,
        (n * classes) as f64,
        classes.max(1) as f64,
        DType::I64,
        x.device(),
    )?;
    let at = rt.binary(
        BinaryOp::Add,
        Operand::strong(&starts),
        Operand::strong(&safe),
    )?;
    let dense = match x.is_contiguous() {
        true => Arc::new(x.alias()),
        false => rt.copy(x)?,
    };
    let flat = Arc::new(crate::runtime::op::view::view(&dense, &[-1])?);
    let picked = rt.index(&flat, &[Index::Tensor(at)])?;
    let valid_f = rt.cast(&valid, x.dtype())?;
    // `weight=`: each row counts its target class's weight (0 if ignored).
    let row_weights = match class_weight {
        None => None,
        Some(w) => {
            check_class_weight(w, x)?;
            let w = rt.index(&Arc::new(w.alias()), &[Index::Tensor(Arc::clone(&safe))])?;
            Some(bin(rt, BinaryOp::Mul, &w, &valid_f)?)
        }
    };
    let picked = match &row_weights {
        None => picked,
        Some(w) => bin(rt, BinaryOp::Mul, &picked, w)?,
    };
    let valid_f = row_weights.clone().unwrap_or(valid_f);
    let zero_f = Tensor::scalar(0.0f64);
    let kept = rt.ternary(
        crate::runtime::op::ternary::TernaryOp::Where,
        Operand::strong(&valid),
        Operand::strong(&picked),
        Operand::weak(&zero_f),
    )?;
    let total = rt.reduce(ReduceOp::Sum, &kept, None, false)?;
    // `0 - total`, as PyTorch's kernel takes each row's loss away from 0:
    // a loss of zero is +0, where negating the sum gave -0.
    let zero = Tensor::scalar(0.0f64);
    let neg = rt.binary(BinaryOp::Sub, Operand::weak(&zero), Operand::strong(&total))?;
    let weight = rt.reduce(ReduceOp::Sum, &valid_f, None, false)?;
    let out = match reduction {
        Reduction::Mean => bin(rt, BinaryOp::Div, &neg, &weight)?,
        Reduction::Sum => neg,
        // Each row's loss (-0 for an ignored row).
        Reduction::None => rt.unary(UnaryOp::Neg, &kept)?,
    };
    let backward = Backward::NllLoss {
        target: Saved::new(&safe),
        valid: Saved::new(&valid_f),
        weight: Saved::new(&weight),
        weighted: row_weights.is_some(),
        reduction,
    };
    let out = attach_node(rt, mode, out, "NllLossBackward0", backward, &[x]);
    // Forward-mode AD: linear in the input, so the same loss of its tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        nll_loss(rt, mode, t, target, ignore_index, reduction, class_weight)
    })
}

/// A cross entropy's settings (`CrossEntropyLoss`'s arguments).
#[derive(Debug, Clone, Copy)]
pub struct CrossEntropy<'a> {
    pub ignore_index: i64,
    pub reduction: Reduction,
    pub label_smoothing: f64,
    /// `weight=`: one per class.
    pub weight: Option<&'a Tensor>,
}

/// PyTorch's checks of `weight=`: one float per class, on the input's device.
fn check_class_weight(w: &Tensor, x: &Tensor) -> R<()> {
    let classes = x.shape()[1];
    if w.shape() != [classes] {
        return Err(Error::runtime(format!(
            "weight tensor should be defined either for all {classes} classes or no classes but got weight tensor of shape: {}",
            crate::runtime::shape::spaced_shape(w.shape())
        )));
    }
    if w.device() != x.device() {
        return Err(Error::runtime(format!(
            "Expected all tensors to be on the same device, but got weight is on {}, different from other tensors on {}",
            w.device(),
            x.device()
        )));
    }
    if w.dtype() != x.dtype() {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            x.dtype().scalar_name(),
            w.dtype().scalar_name()
        )));
    }
    Ok(())
}

/// `cross_entropy(x, target, label_smoothing=ls)`: class indices (with
/// smoothing: PyTorch's `cross_entropy_loss_label_smoothing`) or class
/// probabilities of `x`'s shape (`cross_entropy_loss_prob_target`), each
/// composed of the ops PyTorch composes it of.
pub fn cross_entropy_smoothed(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    target: &Tensor,
    how: CrossEntropy,
) -> R<Arc<Tensor>> {
    let CrossEntropy {
        ignore_index,
        reduction,
        label_smoothing,
        weight: class_weight,
    } = how;
    // On a CPU autocast casts the whole loss's input to float32 (on CUDA
    // its parts are listed: `log_softmax` and `nll_loss`).
    let cast = super::autocast::inputs(rt, mode, "cross_entropy_loss", &[x])?;
    let x = cast.get(0, x);
    if !(0.0..=1.0).contains(&label_smoothing) {
        return Err(Error::value(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )));
    }
    let probabilities = target.dtype().is_float();
    if !probabilities && label_smoothing == 0.0 {
        let lp = class_log_probabilities(rt, mode, x)?;
        return nll_loss(rt, mode, &lp, target, ignore_index, reduction, class_weight);
    }
    if class_weight.is_some() {
        return Err(Error::value_help(
            "cudash's cross_entropy takes `weight=` with class indices and no label smoothing",
            "leave out `weight` (or `label_smoothing`, or use class indices as the target)",
        ));
    }
    let lp = class_log_probabilities(rt, mode, x)?;
    let classes = x.shape()[1];
    let num = |v: f64| Tensor::scalar(v);
    // C++'s `tensor op scalar` (PyTorch composes these losses in C++).
    let bin_w = |rt: &mut Runtime, op: BinaryOp, a: &Tensor, v: f64| {
        super::record::binary_scalar(rt, mode, op, a, v)
    };
    if probabilities {
        if target.shape() != x.shape() {
            return Err(Error::shape(format!(
                "cross_entropy's class probabilities take the input's shape {}, not {}",
                fmt_shape(x.shape()),
                fmt_shape(target.shape())
            )));
        }
        // target * (1 - ls) + ls / C
        let mut t = Arc::new(target.alias());
        if label_smoothing > 0.0 {
            let scaled = bin_w(rt, BinaryOp::Mul, &t, 1.0 - label_smoothing)?;
            t = bin_w(rt, BinaryOp::Add, &scaled, label_smoothing / classes as f64)?;
        }
        let prod = super::record::binary(
            rt,
            mode,
            BinaryOp::Mul,
            Operand::strong(&lp),
            Operand::strong(&t),
        )?;
        return match reduction {
            Reduction::Sum => {
                let sum = super::record::reduce(rt, mode, ReduceOp::Sum, &prod, None, false)?;
                super::record::unary(rt, mode, UnaryOp::Neg, &sum)
            }
            Reduction::None => {
                let sum = super::record::reduce(rt, mode, ReduceOp::Sum, &prod, Some(1), false)?;
                super::record::unary(rt, mode, UnaryOp::Neg, &sum)
            }
            Reduction::Mean => {
                let sum = super::record::reduce(rt, mode, ReduceOp::Sum, &prod, None, false)?;
                let neg = super::record::unary(rt, mode, UnaryOp::Neg, &sum)?;
                let rows = (x.numel() / classes.max(1)) as f64;
                bin_w(rt, BinaryOp::Div, &neg, rows)
            }
        };
    }
    // Class indices with smoothing: (1 - ls) * nll + smooth * (ls / C).
    let nll = nll_loss(rt, mode, &lp, target, ignore_index, reduction, None)?;
    let sum = super::record::reduce(rt, mode, ReduceOp::Sum, &lp, Some(1), false)?;
    let smooth = super::record::unary(rt, mode, UnaryOp::Neg, &sum)?;
    let ignore = num(ignore_index as f64);
    let kept = rt.binary(
        BinaryOp::Ne,
        Operand::strong(target),
        Operand::weak(&ignore),
    )?;
    let zero = num(0.0);
    let smooth = super::record::ternary(
        rt,
        mode,
        crate::runtime::op::ternary::TernaryOp::Where,
        Operand::strong(&kept),
        Operand::strong(&smooth),
        Operand::weak(&zero),
    )?;
    let ret = match reduction {
        Reduction::Sum => super::record::reduce(rt, mode, ReduceOp::Sum, &smooth, None, false)?,
        Reduction::None => smooth,
        Reduction::Mean => {
            let total = super::record::reduce(rt, mode, ReduceOp::Sum, &smooth, None, false)?;
            let count = rt.cast(&kept, DType::I64)?;
            let count = rt.reduce(ReduceOp::Sum, &count, None, false)?;
            super::record::binary(
                rt,
                mode,
                BinaryOp::Div,
                Operand::strong(&total),
                Operand::strong(&count),
            )?
        }
    };
    let left = bin_w(rt, BinaryOp::Mul, &nll, 1.0 - label_smoothing)?;
    let right = bin_w(rt, BinaryOp::Mul, &ret, label_smoothing / classes as f64)?;
    super::record::binary(
        rt,
        mode,
        BinaryOp::Add,
        Operand::strong(&left),
        Operand::strong(&right),
    )
}

/// `cross_entropy(x, target)` for scores `x` [N, C] and N class indices:
/// `nll_loss(log_softmax(x, dim=1), target)`, as PyTorch computes it.
pub fn cross_entropy(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    target: &Tensor,
    ignore_index: i64,
    reduction: Reduction,
) -> R<Arc<Tensor>> {
    let lp = class_log_probabilities(rt, mode, x)?;
    nll_loss(rt, mode, &lp, target, ignore_index, reduction, None)
}

/// `log_softmax(x, dim=1)` of scores `x` [N, C], recorded: where the cross
/// entropies start.
fn class_log_probabilities(rt: &mut Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    let cast = super::autocast::inputs(rt, mode, "log_softmax", &[x])?;
    let x = cast.get(0, x);
    if x.ndim() != 2 {
        return Err(Error::shape(format!(
            "cross_entropy takes an input of shape [N, C] (a row of class scores per sample), not {}",
            fmt_shape(x.shape())
        )));
    }
    let lp = rt.along(
        crate::runtime::op::along::AlongOp::LogSoftmax,
        0.0,
        x,
        Some(1),
        false,
    )?;
    super::record::softmax(rt, mode, x, lp, 1, true)
}
