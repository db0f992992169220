//! `nn.init.trunc_normal_(tensor, mean, std, a, b)` as PyTorch 2.15's
//! `init.py` draws it: normal numbers, those outside `[a, b]` drawn again
//! (a fresh normal tensor each round, taken where they fell outside) when
//! more than 0.3 of the distribution lies inside; else uniform candidates
//! in `[a, b]` kept by rejection against the normal's density. Each draw
//! comes from the tensor's device's generator, so a seeded program fills
//! PyTorch's numbers on the host.

use std::sync::Arc;

use super::super::Interp;
use crate::error::Error;
use crate::runtime::libm::erf;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::NewTensor;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

/// Fills `t` in place; `(mean, std, a, b)` as PyTorch's arguments.
pub(super) fn trunc_normal_(
    me: &mut Interp,
    t: &Arc<Tensor>,
    (mean, std, a, b): (f64, f64, f64, f64),
) -> Result<(), Error> {
    let norm_cdf = |x: f64| (1.0 + erf(x / 2f64.sqrt())) / 2.0;
    if mean < a - 2.0 * std || mean > b + 2.0 * std {
        me.warn_once(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. \
             The distribution of values may be incorrect."
                .to_string(),
        );
    }
    if t.numel() == 0 {
        return Ok(());
    }
    let p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std);
    match p > 0.3 {
        true => redrawn_normals(me, t, (mean, std, a, b)),
        false => uniform_rejection(me, t, (mean, std, a, b)),
    }
}

/// A number as a weak operand (a Python float beside a tensor).
fn number(v: f64) -> Tensor {
    Tensor::scalar(v)
}

/// Whether any element of the bool `mask` holds (a host read, as
/// PyTorch's `if not mask.any()`).
fn any(me: &mut Interp, mask: &Tensor) -> Result<bool, Error> {
    let count = me.rt.reduce(ReduceOp::Sum, mask, None, false)?;
    me.rt.read_item(&count, || count.to_vec::<i64>()[0] > 0)
}

/// An uninitialised tensor shaped and placed as `t`.
fn empty_like(me: &mut Interp, t: &Tensor) -> Result<Arc<Tensor>, Error> {
    me.rt.empty(NewTensor {
        shape: t.shape(),
        dtype: t.dtype(),
        device: t.device(),
        like: Some(t),
    })
}

/// `a` and `b` rounded to the tensor's dtype (PyTorch's
/// `tensor.new_tensor(a, device="cpu").item()`), so the mask agrees with
/// the numbers the tensor can hold.
fn bounds(dt: DType, a: f64, b: f64) -> (f64, f64) {
    let round = |v: f64| match dt {
        DType::F32 => v as f32 as f64,
        DType::F16 => half::f16::from_f64(v).to_f64(),
        DType::BF16 => half::bf16::from_f64(v).to_f64(),
        _ => v,
    };
    (round(a), round(b))
}

/// `normal_(mean, std)`, then every element outside `[a, b]` taken from a
/// fresh normal tensor, until none is.
fn redrawn_normals(
    me: &mut Interp,
    t: &Arc<Tensor>,
    (mean, std, a, b): (f64, f64, f64, f64),
) -> Result<(), Error> {
    let (lo, hi) = bounds(t.dtype(), a, b);
    let (lo, hi) = (number(lo), number(hi));
    me.rt.normal_(t, mean, std)?;
    let mut result = Arc::clone(t);
    loop {
        let below = me
            .rt
            .binary(BinaryOp::Lt, Operand::strong(&result), Operand::weak(&lo))?;
        let above = me
            .rt
            .binary(BinaryOp::Gt, Operand::strong(&result), Operand::weak(&hi))?;
        let mask = me.rt.binary(
            BinaryOp::BitOr,
            Operand::strong(&below),
            Operand::strong(&above),
        )?;
        drop((below, above));
        if !any(me, &mask)? {
            break;
        }
        let fresh = empty_like(me, t)?;
        me.rt.normal_(&fresh, mean, std)?;
        let (m, f, r) = (
            Operand::strong(&mask),
            Operand::strong(&fresh),
            Operand::strong(&result),
        );
        result = me.rt.ternary(TernaryOp::Where, m, f, r)?;
    }
    if !Arc::ptr_eq(&result, t) {
        me.rt.assign(t, &result)?;
    }
    Ok(())
}

/// `log(u) > -0.5 ((x - mean) / std)^2 - log_peak` for each candidate `x`
/// in place of its log density (`candidates` overwritten), `accept` a
/// buffer for the uniform `u`: the candidates still to be drawn again.
fn rejected(
    me: &mut Interp,
    candidates: &Tensor,
    accept: &Tensor,
    (mean, std, log_peak): (f64, f64, f64),
) -> Result<Arc<Tensor>, Error> {
    let steps = [
        (BinaryOp::Sub, mean),
        (BinaryOp::Div, std),
        (BinaryOp::Pow, 2.0),
        (BinaryOp::Mul, -0.5),
        (BinaryOp::Sub, log_peak),
    ];
    for (op, v) in steps {
        me.rt.binary_(op, candidates, Operand::weak(&number(v)))?;
    }
    me.rt.uniform_(accept, 0.0, 1.0)?;
    me.rt.unary_(UnaryOp::Log, accept)?;
    me.rt.binary(
        BinaryOp::Gt,
        Operand::strong(accept),
        Operand::strong(candidates),
    )
}

/// Uniform candidates in `[a, b]`, each kept with probability its normal
/// density over the density's peak in `[a, b]`; those not kept drawn
/// again, until none is left.
fn uniform_rejection(
    me: &mut Interp,
    t: &Arc<Tensor>,
    (mean, std, a, b): (f64, f64, f64, f64),
) -> Result<(), Error> {
    let mode = a.max(mean.min(b));
    let log_peak = -0.5 * ((mode - mean) / std).powi(2);
    let density = (mean, std, log_peak);
    let candidates = empty_like(me, t)?;
    let accept = empty_like(me, t)?;
    me.rt.uniform_(t, a, b)?;
    me.rt.assign(&candidates, t)?;
    let mut pending = rejected(me, &candidates, &accept, density)?;
    if !any(me, &pending)? {
        return Ok(());
    }
    let mut result = Arc::clone(t);
    loop {
        me.rt.uniform_(&candidates, a, b)?;
        let (p, c, r) = (
            Operand::strong(&pending),
            Operand::strong(&candidates),
            Operand::strong(&result),
        );
        result = me.rt.ternary(TernaryOp::Where, p, c, r)?;
        let still = rejected(me, &candidates, &accept, density)?;
        let (p, s) = (Operand::strong(&pending), Operand::strong(&still));
        let (on, off) = (p, Operand::strong(&pending));
        pending = me.rt.ternary(TernaryOp::Where, on, s, off)?;
        if !any(me, &pending)? {
            break;
        }
    }
    me.rt.assign(t, &result)
}
