//! Adam's and AdamW's step with `capturable=True`, as PyTorch's
//! `_single_tensor_adam` computes it when the step may be captured into a
//! CUDA graph: the step count is a float32 scalar on the parameter's device,
//! and the bias corrections are computed from it there, op by op, so that
//! no number is read on the host. A graph that captured the step replays it
//! with the count going up on the device (a host count would be frozen into
//! the graph: why PyTorch refuses to capture a step with `capturable=False`).
//! The arithmetic is PyTorch's, rounding for rounding: `1 - beta1 ** step`
//! in float32 on the device, `lr / bias_correction1` as Python's
//! `Tensor.__rtruediv__` computes it (`reciprocal() * lr`), the denominator
//! divided by `-step_size` so that `addcdiv_` takes no number.

use std::sync::Arc;

use super::ops::{bin, bin_s, full, full_like, s_bin};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// The device types PyTorch captures an optimizer's step on
/// (`_get_capturable_supported_devices`): with XLA for the single-tensor
/// step, without for the multi-tensor one.
pub(super) fn unsupported_device(with_xla: bool) -> Error {
    let xla = if with_xla { ", 'xla'" } else { "" };
    Error::Module {
        class: "AssertionError",
        message: format!(
            "If capturable=True, params and state_steps must be on supported devices: \
             ['cuda', 'xpu', 'hpu', 'privateuseone'{xla}]."
        ),
        help: Some(
            "a capturable optimizer steps parameters on a GPU: move the model to \
             'cuda' first, or leave capturable=False"
                .into(),
        ),
    }
}

/// `step_t += 1` of a capturable step: the count made at the first update as
/// `torch.zeros((), dtype=float32, device=p.device)`, then counted in place
/// on the device. `with_xla`: which of PyTorch's checks of the devices.
pub(super) fn count_on_device(
    rt: &mut Runtime,
    step: &mut Option<Arc<Tensor>>,
    p: &Tensor,
    with_xla: bool,
) -> R<Arc<Tensor>> {
    if step.is_none() {
        *step = Some(full(rt, &[], DType::default_float(), p.device(), 0)?);
    }
    let t = Arc::clone(step.as_ref().expect("made above"));
    if !p.device().is_cuda() || !t.device().is_cuda() {
        return Err(unsupported_device(with_xla));
    }
    rt.binary_(BinaryOp::Add, &t, Operand::weak(&Tensor::scalar(1.0)))?;
    Ok(t)
}

/// One parameter's moments and step, as `optim::State` holds them.
pub(super) struct Moments<'a> {
    pub first: &'a mut Option<Arc<Tensor>>,
    pub second: &'a mut Option<Arc<Tensor>>,
    pub third: &'a mut Option<Arc<Tensor>>,
    pub step: &'a mut Option<Arc<Tensor>>,
}

/// The group's settings.
pub(super) struct Settings {
    pub lr: f64,
    pub betas: (f64, f64),
    pub eps: f64,
    /// Adam's weight decay (added to the gradient); AdamW's is applied to
    /// the parameter by the caller first.
    pub weight_decay: f64,
    pub amsgrad: bool,
}

/// `_single_tensor_adam` with `capturable=True`, for one parameter.
pub(super) fn step(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: Moments<'_>,
    s: Settings,
) -> R<()> {
    let (beta1, beta2) = s.betas;
    if state.first.is_none() {
        *state.first = Some(full_like(rt, p, 0)?);
        *state.second = Some(full_like(rt, p, 0)?);
    }
    if s.amsgrad && state.third.is_none() {
        *state.third = Some(full_like(rt, p, 0)?);
    }
    let m = Arc::clone(state.first.as_ref().expect("made above"));
    let v = Arc::clone(state.second.as_ref().expect("made above"));
    let step = count_on_device(rt, state.step, p, true)?;
    let mut grad = grad;
    if s.weight_decay != 0.0 {
        grad = super::ops::add_scaled(rt, &grad, p, s.weight_decay)?;
    }
    // exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad,
    // grad, value=1 - beta2).
    super::step_ops::lerp_(rt, &m, &grad, 1.0 - beta1)?;
    rt.binary_(BinaryOp::Mul, &v, Operand::weak(&Tensor::scalar(beta2)))?;
    super::step_ops::addcmul_(rt, &v, &grad, &grad, 1.0 - beta2)?;
    drop(grad);
    // bias_correction = 1 - beta ** step, on the device.
    let bias_correction = |rt: &mut Runtime, beta: f64| -> R<Arc<Tensor>> {
        let power = s_bin(rt, BinaryOp::Pow, beta, &step)?;
        s_bin(rt, BinaryOp::Sub, 1.0, &power)
    };
    let bias_correction1 = bias_correction(rt, beta1)?;
    let bias_correction2 = bias_correction(rt, beta2)?;
    // step_size = lr / bias_correction1: `reciprocal() * lr`.
    let step_size = {
        let inverse = rt.unary(UnaryOp::Reciprocal, &bias_correction1)?;
        bin_s(rt, BinaryOp::Mul, &inverse, s.lr)?
    };
    drop(bias_correction1);
    let step_size_neg = rt.unary(UnaryOp::Neg, &step_size)?;
    drop(step_size);
    let bias_correction2_sqrt = rt.unary(UnaryOp::Sqrt, &bias_correction2)?;
    drop(bias_correction2);
    // AMSGrad: `max_exp_avg_sq.copy_(torch.maximum(max_exp_avg_sq, exp_avg_sq))`.
    let v = match (s.amsgrad, state.third.as_ref()) {
        (true, Some(max)) => {
            let larger = bin(rt, BinaryOp::Maximum, max, &v)?;
            rt.assign(max, &larger)?;
            Arc::clone(max)
        }
        _ => v,
    };
    // denom = (sqrt(v) / (bias_correction2_sqrt * step_size_neg))
    //     .add_(eps / step_size_neg)
    let denom = {
        let root = rt.unary(UnaryOp::Sqrt, &v)?;
        let scale = bin(rt, BinaryOp::Mul, &bias_correction2_sqrt, &step_size_neg)?;
        bin(rt, BinaryOp::Div, &root, &scale)?
    };
    let eps_term = {
        let inverse = rt.unary(UnaryOp::Reciprocal, &step_size_neg)?;
        bin_s(rt, BinaryOp::Mul, &inverse, s.eps)?
    };
    rt.binary_(BinaryOp::Add, &denom, Operand::strong(&eps_term))?;
    drop(eps_term);
    // param.addcdiv_(exp_avg, denom)
    let update = bin(rt, BinaryOp::Div, &m, &denom)?;
    drop(denom);
    rt.binary_(BinaryOp::Add, p, Operand::strong(&update))
}

/// `_single_tensor_adamax` with `capturable=True`: the moments as the
/// host-counted step's, then `(beta1 ** step - 1) / lr` on the device and
/// `param.addcdiv_(exp_avg, exp_inf * that)`.
pub(super) fn adamax(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    (exp_avg, exp_inf, step): (&Tensor, &Tensor, &mut Option<Arc<Tensor>>),
    s: Settings,
) -> R<()> {
    let (beta1, beta2) = s.betas;
    let step = count_on_device(rt, step, p, true)?;
    let mut grad = grad;
    if s.weight_decay != 0.0 {
        grad = super::ops::add_scaled(rt, &grad, p, s.weight_decay)?;
    }
    super::step_ops::lerp_(rt, exp_avg, &grad, 1.0 - beta1)?;
    // torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
    rt.binary_(
        BinaryOp::Mul,
        exp_inf,
        Operand::weak(&Tensor::scalar(beta2)),
    )?;
    let magnitude = rt.unary(UnaryOp::Abs, &grad)?;
    rt.binary_(
        BinaryOp::Add,
        &magnitude,
        Operand::weak(&Tensor::scalar(s.eps)),
    )?;
    let top = bin(rt, BinaryOp::Maximum, exp_inf, &magnitude)?;
    drop(magnitude);
    rt.assign(exp_inf, &top)?;
    drop(top);
    drop(grad);
    // neg_bias_correction = beta1 ** step_t - 1; .div_(lr)
    let neg_bias_correction = {
        let power = s_bin(rt, BinaryOp::Pow, beta1, &step)?;
        bin_s(rt, BinaryOp::Sub, &power, 1.0)?
    };
    rt.binary_(
        BinaryOp::Div,
        &neg_bias_correction,
        Operand::weak(&Tensor::scalar(s.lr)),
    )?;
    let denom = bin(rt, BinaryOp::Mul, exp_inf, &neg_bias_correction)?;
    let update = bin(rt, BinaryOp::Div, exp_avg, &denom)?;
    drop(denom);
    rt.binary_(BinaryOp::Add, p, Operand::strong(&update))
}
