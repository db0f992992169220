//! The losses of `torch.nn.functional` of one value per element, and their
//! modules (`nn.BCELoss`, `nn.BCEWithLogitsLoss`, `nn.L1Loss`,
//! `nn.SmoothL1Loss`, `nn.HuberLoss`): arguments read as PyTorch reads
//! them, the old `size_average=` / `reduce=` too (with PyTorch's warning).

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::node::Reduction;
use crate::autograd::pointwise_losses::{pointwise_loss, PointwiseLoss, Weights};
use crate::error::{Diagnostic, Error};
use crate::nn::layers::Layer;
use crate::nn::Module;

type Out = Result<Value, Diagnostic>;

/// `reduction=`, or what the deprecated `size_average=` and `reduce=` say
/// (PyTorch's `legacy_get_string`, with its warning).
pub(crate) fn loss_reduction(me: &mut Interp, b: &Bound) -> Result<Reduction, Diagnostic> {
    let flag = |name: &str| -> Result<Option<bool>, Diagnostic> {
        match b.given(name) {
            None | Some((Value::None, _)) => Ok(None),
            Some(_) => Ok(Some(b.bool(name, true)?)),
        }
    };
    let (size_average, reduce) = (flag("size_average")?, flag("reduce")?);
    if size_average.is_none() && reduce.is_none() {
        return reduction(b);
    }
    let r = match (size_average.unwrap_or(true), reduce.unwrap_or(true)) {
        (true, true) => Reduction::Mean,
        (false, true) => Reduction::Sum,
        (_, false) => Reduction::None,
    };
    let name = r.name();
    me.rt.note(format!(
        "UserWarning: size_average and reduce args will be deprecated, please use \
         reduction='{name}' instead."
    ));
    Ok(r)
}

/// `reduction=` of a loss.
pub(crate) fn reduction(b: &Bound) -> Result<Reduction, Diagnostic> {
    match b.given("reduction") {
        None => Ok(Reduction::Mean),
        Some((Value::Str(s), span)) => Reduction::from_name(s).ok_or_else(|| {
            Error::value_help(
                format!("{s} is not a valid value for reduction"),
                "reduction is \"mean\", \"sum\" or \"none\"",
            )
            .at(*span)
        }),
        Some((v, span)) => {
            Err(
                Error::wrong_type("reduction", "\"mean\", \"sum\" or \"none\"", v.type_name())
                    .at(*span),
            )
        }
    }
}

/// Which loss a function or module name is, with its `beta` / `delta`.
fn kind_of(name: &str, b: &Bound) -> Result<Option<PointwiseLoss>, Diagnostic> {
    let positive = |what: &str, v: f64| -> Result<f64, Diagnostic> {
        match v < 0.0 {
            true => Err(
                Error::value(format!("{what} must be non-negative, got {v}")).at(b.span_of(what)),
            ),
            false => Ok(v),
        }
    };
    Ok(Some(match name {
        "binary_cross_entropy" | "BCELoss" => PointwiseLoss::BinaryCrossEntropy,
        "binary_cross_entropy_with_logits" | "BCEWithLogitsLoss" => {
            PointwiseLoss::BinaryCrossEntropyWithLogits
        }
        "smooth_l1_loss" | "SmoothL1Loss" => PointwiseLoss::SmoothL1 {
            beta: positive("beta", b.float("beta")?.unwrap_or(1.0))?,
        },
        "huber_loss" | "HuberLoss" => PointwiseLoss::Huber {
            delta: positive("delta", b.float("delta")?.unwrap_or(1.0))?,
        },
        "soft_margin_loss" | "SoftMarginLoss" => PointwiseLoss::SoftMargin,
        _ => return Ok(None),
    }))
}

/// `F.binary_cross_entropy`, `F.binary_cross_entropy_with_logits`,
/// `F.smooth_l1_loss`, `F.huber_loss` and `F.l1_loss`.
pub(super) fn functional_loss(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let (x, y) = (b.tensor("input")?, b.tensor("target")?);
    let reduction = loss_reduction(me, b)?;
    let (weight, pos_weight) = (
        b.optional_tensor("weight")?,
        b.optional_tensor("pos_weight")?,
    );
    let Some(kind) = kind_of(name, b)? else {
        return b.result(crate::autograd::losses::l1_loss(
            &mut me.rt, me.grad, &x, &y, reduction,
        ));
    };
    let weights = Weights {
        weight: weight.as_deref(),
        pos_weight: pos_weight.as_deref(),
    };
    b.result(pointwise_loss(
        &mut me.rt,
        me.grad,
        kind,
        (&x, &y),
        weights,
        reduction,
    ))
}

/// The loss modules: `BCELoss(weight=None, reduction="mean")` (its weights
/// as buffers, as PyTorch registers them), `BCEWithLogitsLoss`, `L1Loss`,
/// `SmoothL1Loss(beta=1.0)`, `HuberLoss(delta=1.0)`.
pub(super) fn loss_module(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let reduction = loss_reduction(me, b)?;
    let layer = match kind_of(name, b)? {
        Some(kind) => Layer::PointwiseLoss { kind, reduction },
        None => Layer::L1Loss(reduction),
    };
    let mut m = Module::new(name, layer);
    let at = |e: Error| e.at(b.span);
    if matches!(name, "BCELoss" | "BCEWithLogitsLoss") {
        m.set_buffer("weight", b.optional_tensor("weight")?, None)
            .map_err(at)?;
    }
    if name == "BCEWithLogitsLoss" {
        m.set_buffer("pos_weight", b.optional_tensor("pos_weight")?, None)
            .map_err(at)?;
    }
    Ok(Value::Module(m.into_ref()))
}
