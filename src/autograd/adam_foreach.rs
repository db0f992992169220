//! Adam's and AdamW's multi-tensor step (`foreach`, PyTorch's default when
//! every parameter of a group is on a CUDA device): the same arithmetic as
//! the single-tensor step, parameter by parameter, in PyTorch's phases
//! across the whole group (`_multi_tensor_adam`), so the allocator sees what
//! PyTorch's does: a copy of every gradient while `weight_decay` is applied
//! (`torch._foreach_add(grads, params, alpha=wd)`), then the moments updated
//! in place, then a denominator for every parameter at once
//! (`torch._foreach_sqrt(exp_avg_sqs)`: memory the size of all the
//! parameters, the "optimizer intermediates" of PyTorch's memory tutorial),
//! freed after the parameters' update.

use std::sync::Arc;

use super::ops::{bin, bin_s, full_like, s_bin};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// One parameter of the group: itself, its gradient and its state's
/// moments (made on the first step), `max_exp_avg_sq` for AMSGrad, and
/// its step (PyTorch's float32 scalar on the host, made at the first step).
pub(super) struct Entry<'a> {
    pub param: &'a Tensor,
    pub grad: Arc<Tensor>,
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
    pub weight_decay: f64,
    pub decoupled: bool,
    pub amsgrad: bool,
    /// `capturable=True`: the steps counted and the bias corrections
    /// computed on the devices (`_multi_tensor_adam`'s capturable branch).
    pub capturable: bool,
}

pub(super) fn step(rt: &mut Runtime, entries: Vec<Entry<'_>>, s: Settings) -> R<()> {
    let (beta1, beta2) = s.betas;
    let mut entries = entries;
    for e in entries.iter_mut() {
        if e.first.is_none() {
            *e.first = Some(full_like(rt, e.param, 0)?);
            *e.second = Some(full_like(rt, e.param, 0)?);
        }
        if s.amsgrad && e.third.is_none() {
            *e.third = Some(full_like(rt, e.param, 0)?);
        }
    }
    // `torch._foreach_add_(state_steps, 1)`: on the host, each then read
    // there; capturable, on each parameter's device, never read.
    let mut counts = Vec::with_capacity(entries.len());
    for e in entries.iter_mut() {
        counts.push(match s.capturable {
            true => super::adam_capturable::count_on_device(rt, e.step, e.param, false)?,
            false => super::step_ops::count_step(rt, e.step)?,
        });
    }
    // AdamW: `torch._foreach_mul_(params, 1 - lr * wd)`.
    if s.decoupled && s.weight_decay != 0.0 {
        for e in &entries {
            rt.binary_(
                BinaryOp::Mul,
                e.param,
                Operand::weak(&Tensor::scalar(1.0 - s.lr * s.weight_decay)),
            )?;
        }
    }
    // Adam's `weight_decay`: every gradient copied at once.
    let grads: Vec<Arc<Tensor>> = match !s.decoupled && s.weight_decay != 0.0 {
        true => entries
            .iter()
            .map(|e| super::ops::add_scaled(rt, &e.grad, e.param, s.weight_decay))
            .collect::<R<_>>()?,
        false => entries.iter().map(|e| Arc::clone(&e.grad)).collect(),
    };
    // The moments, in place (PyTorch's `_foreach_lerp_`, `_foreach_mul_`,
    // `_foreach_addcmul_`); each temporary freed as it is used.
    for (e, grad) in entries.iter().zip(&grads) {
        let (m, v) = moments(e);
        let diff = bin(rt, BinaryOp::Sub, grad, &m)?;
        let scaled = bin_s(rt, BinaryOp::Mul, &diff, 1.0 - beta1)?;
        drop(diff);
        rt.binary_(BinaryOp::Add, &m, Operand::strong(&scaled))?;
        drop(scaled);
        rt.binary_(BinaryOp::Mul, &v, Operand::weak(&Tensor::scalar(beta2)))?;
        let gg = bin(rt, BinaryOp::Mul, grad, grad)?;
        rt.binary_(
            BinaryOp::Mul,
            &gg,
            Operand::weak(&Tensor::scalar(1.0 - beta2)),
        )?;
        rt.binary_(BinaryOp::Add, &v, Operand::strong(&gg))?;
    }
    drop(grads);
    // Capturable: the bias corrections on the devices, before the
    // denominators.
    let corrections = match s.capturable {
        true => Some(bias_corrections(rt, &counts, &s)?),
        false => None,
    };
    // AMSGrad: `torch._foreach_maximum_(max_exp_avg_sqs, exp_avg_sqs)`.
    if s.amsgrad {
        for e in &entries {
            let (_, v) = moments(e);
            if let Some(max) = e.third.as_ref() {
                rt.binary_(BinaryOp::Maximum, max, Operand::strong(&v))?;
            }
        }
    }
    // Every denominator at once: `torch._foreach_sqrt(exp_avg_sqs)`.
    let mut denoms = Vec::with_capacity(entries.len());
    for e in &entries {
        let v = match (s.amsgrad, e.third.as_ref()) {
            (true, Some(max)) => Arc::clone(max),
            _ => moments(e).1,
        };
        denoms.push(rt.unary(UnaryOp::Sqrt, &v)?);
    }
    if let Some(corrections) = corrections {
        return finish_capturable(rt, &entries, denoms, corrections, &s);
    }
    let mut steps = Vec::with_capacity(counts.len());
    for t in &counts {
        steps.push(super::step_ops::step_number(rt, t)?);
    }
    // `sqrt(v) / sqrt(bias2) + eps`.
    for (denom, step) in denoms.iter().zip(&steps) {
        let bias2 = 1.0 - beta2.powf(*step);
        rt.binary_(
            BinaryOp::Div,
            denom,
            Operand::weak(&Tensor::scalar(bias2.sqrt())),
        )?;
        rt.binary_(BinaryOp::Add, denom, Operand::weak(&Tensor::scalar(s.eps)))?;
    }
    // `torch._foreach_addcdiv_(params, exp_avgs, denoms, -step_size)`.
    for ((e, denom), step) in entries.iter().zip(&denoms).zip(&steps) {
        let (m, _) = moments(e);
        let step_size = s.lr / (1.0 - beta1.powf(*step));
        let update = bin(rt, BinaryOp::Div, &m, denom)?;
        rt.binary_(
            BinaryOp::Mul,
            &update,
            Operand::weak(&Tensor::scalar(step_size)),
        )?;
        rt.binary_(BinaryOp::Sub, e.param, Operand::strong(&update))?;
    }
    Ok(())
}

/// The capturable step's bias corrections, each a float32 scalar on its
/// parameter's device, as `_multi_tensor_adam` computes them in place:
/// `-step_size = 1 / ((beta1 ** step - 1) / lr)` and
/// `sqrt(-(beta2 ** step - 1))`.
fn bias_corrections(rt: &mut Runtime, counts: &[Arc<Tensor>], s: &Settings) -> R<Corrections> {
    let (beta1, beta2) = s.betas;
    let powers = |rt: &mut Runtime, beta: f64| -> R<Vec<Arc<Tensor>>> {
        counts
            .iter()
            .map(|t| s_bin(rt, BinaryOp::Pow, beta, t))
            .collect()
    };
    let first = powers(rt, beta1)?;
    let second = powers(rt, beta2)?;
    let number = |x: f64| Tensor::scalar(x);
    for t in first.iter().chain(&second) {
        rt.binary_(BinaryOp::Sub, t, Operand::weak(&number(1.0)))?;
    }
    for t in &second {
        rt.unary_(UnaryOp::Neg, t)?;
    }
    for t in &first {
        rt.binary_(BinaryOp::Div, t, Operand::weak(&number(s.lr)))?;
    }
    for t in &first {
        rt.unary_(UnaryOp::Reciprocal, t)?;
    }
    for t in &second {
        rt.unary_(UnaryOp::Sqrt, t)?;
    }
    Ok(Corrections {
        step_sizes: first,
        bias_correction2_sqrts: second,
    })
}

/// A capturable step's bias corrections, one per parameter: `-step_size`
/// and `sqrt(bias_correction2)`.
struct Corrections {
    step_sizes: Vec<Arc<Tensor>>,
    bias_correction2_sqrts: Vec<Arc<Tensor>>,
}

/// The rest of the capturable step: each denominator divided by
/// `sqrt(bias_correction2)`, `eps` added, divided by the (negative) step
/// size, then `torch._foreach_addcdiv_(params, exp_avgs, denoms)`.
fn finish_capturable(
    rt: &mut Runtime,
    entries: &[Entry<'_>],
    denoms: Vec<Arc<Tensor>>,
    corrections: Corrections,
    s: &Settings,
) -> R<()> {
    let Corrections {
        step_sizes,
        bias_correction2_sqrts,
    } = corrections;
    for (denom, b) in denoms.iter().zip(&bias_correction2_sqrts) {
        rt.binary_(BinaryOp::Div, denom, Operand::strong(b))?;
    }
    for denom in &denoms {
        rt.binary_(BinaryOp::Add, denom, Operand::weak(&Tensor::scalar(s.eps)))?;
    }
    for (denom, step_size) in denoms.iter().zip(&step_sizes) {
        rt.binary_(BinaryOp::Div, denom, Operand::strong(step_size))?;
    }
    for (e, denom) in entries.iter().zip(&denoms) {
        let (m, _) = moments(e);
        let update = bin(rt, BinaryOp::Div, &m, denom)?;
        rt.binary_(BinaryOp::Add, e.param, Operand::strong(&update))?;
    }
    Ok(())
}

fn moments(e: &Entry<'_>) -> (Arc<Tensor>, Arc<Tensor>) {
    match (e.first.as_ref(), e.second.as_ref()) {
        (Some(m), Some(v)) => (Arc::clone(m), Arc::clone(v)),
        _ => unreachable!("both moments are made before the update"),
    }
}
