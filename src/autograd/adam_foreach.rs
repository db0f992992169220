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

use super::ops::{bin, bin_s, full_like};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// One parameter of the group: itself, its gradient and its state's
/// moments (made on the first step), `max_exp_avg_sq` for AMSGrad, and
/// its count of steps.
pub(super) struct Entry<'a> {
    pub param: &'a Tensor,
    pub grad: Arc<Tensor>,
    pub first: &'a mut Option<Arc<Tensor>>,
    pub second: &'a mut Option<Arc<Tensor>>,
    pub third: &'a mut Option<Arc<Tensor>>,
    pub steps: &'a mut u64,
}

/// The group's settings.
pub(super) struct Settings {
    pub lr: f64,
    pub betas: (f64, f64),
    pub eps: f64,
    pub weight_decay: f64,
    pub decoupled: bool,
    pub amsgrad: bool,
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
        *e.steps += 1;
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
    // AMSGrad: `torch._foreach_maximum_(max_exp_avg_sqs, exp_avg_sqs)`.
    if s.amsgrad {
        for e in &entries {
            let (_, v) = moments(e);
            if let Some(max) = e.third.as_ref() {
                rt.binary_(BinaryOp::Maximum, max, Operand::strong(&v))?;
            }
        }
    }
    // Every denominator at once: `sqrt(v) / sqrt(bias2) + eps`.
    let mut denoms = Vec::with_capacity(entries.len());
    for e in &entries {
        let v = match (s.amsgrad, e.third.as_ref()) {
            (true, Some(max)) => Arc::clone(max),
            _ => moments(e).1,
        };
        denoms.push(rt.unary(UnaryOp::Sqrt, &v)?);
    }
    for (e, denom) in entries.iter().zip(&denoms) {
        let bias2 = 1.0 - beta2.powf(*e.steps as f64);
        rt.binary_(
            BinaryOp::Div,
            denom,
            Operand::weak(&Tensor::scalar(bias2.sqrt())),
        )?;
        rt.binary_(BinaryOp::Add, denom, Operand::weak(&Tensor::scalar(s.eps)))?;
    }
    // `torch._foreach_addcdiv_(params, exp_avgs, denoms, -step_size)`.
    for (e, denom) in entries.iter().zip(&denoms) {
        let (m, _) = moments(e);
        let step_size = s.lr / (1.0 - beta1.powf(*e.steps as f64));
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

fn moments(e: &Entry<'_>) -> (Arc<Tensor>, Arc<Tensor>) {
    match (e.first.as_ref(), e.second.as_ref()) {
        (Some(m), Some(v)) => (Arc::clone(m), Arc::clone(v)),
        _ => unreachable!("both moments are made before the update"),
    }
}
