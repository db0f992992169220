//! The in-place updates PyTorch's optimizers share, op for op as its CPU
//! kernels order them: `addcmul_`, `lerp_`, and the `step` count each
//! parameter's state keeps (`step_t += 1`, then `_get_value(step_t)`).

use std::sync::Arc;

use super::ops::{bin, bin_s};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `x op= s` in place.
fn inplace_s(rt: &mut Runtime, op: BinaryOp, x: &Tensor, s: f64) -> R<()> {
    rt.binary_(op, x, Operand::weak(&Tensor::scalar(s)))
}

/// `x.addcmul_(a, b, value=v)`: `x + v * a * b`, as PyTorch's CPU kernel
/// orders it (`(v * a) * b`, then the add).
pub fn addcmul_(rt: &mut Runtime, x: &Tensor, a: &Tensor, b: &Tensor, v: f64) -> R<()> {
    let t = bin_s(rt, BinaryOp::Mul, a, v)?;
    rt.binary_(BinaryOp::Mul, &t, Operand::strong(b))?;
    rt.binary_(BinaryOp::Add, x, Operand::strong(&t))
}

/// `x.lerp_(end, w)`, PyTorch's two forms: `x + w * (end - x)` below 0.5,
/// `end - (end - x) * (1 - w)` from 0.5.
pub fn lerp_(rt: &mut Runtime, x: &Tensor, end: &Tensor, w: f64) -> R<()> {
    let diff = bin(rt, BinaryOp::Sub, end, x)?;
    if w < 0.5 {
        inplace_s(rt, BinaryOp::Mul, &diff, w)?;
        rt.binary_(BinaryOp::Add, x, Operand::strong(&diff))
    } else {
        inplace_s(rt, BinaryOp::Mul, &diff, 1.0 - w)?;
        let r = bin(rt, BinaryOp::Sub, end, &diff)?;
        rt.assign(x, &r)
    }
}

/// PyTorch's `step_t += 1`: the parameter's step, a scalar of the default
/// dtype (`_get_scalar_dtype()`, float32 unless the program set another)
/// made on the host at its first update, counted in place (wherever a
/// program moved it: a step on a device counts there).
pub fn count_step(rt: &mut Runtime, step: &mut Option<Arc<Tensor>>) -> R<Arc<Tensor>> {
    let t = Arc::clone(step.get_or_insert_with(|| Arc::new(scalar_step(0.0))));
    inplace_s(rt, BinaryOp::Add, &t, 1.0)?;
    Ok(t)
}

/// PyTorch's `_get_value(step_t)`: the step as a number, read on the host
/// (`.item()`, which waits for a step a program moved to a device).
pub fn step_number(rt: &mut Runtime, step: &Tensor) -> R<f64> {
    rt.read_item(step, || step.to_vec::<f64>()[0])
}

/// `step_t += 1`, then `_get_value(step_t)`: the step counted, as a number.
pub fn counted_step(rt: &mut Runtime, step: &mut Option<Arc<Tensor>>) -> R<f64> {
    let t = count_step(rt, step)?;
    step_number(rt, &t)
}

/// A step count as PyTorch keeps it: a 0-d tensor of the default dtype.
pub fn scalar_step(n: f64) -> Tensor {
    let t = Tensor::scalar(n as f32);
    match crate::runtime::DType::default_float() {
        crate::runtime::DType::F32 => t,
        dtype => Tensor::scalar(n).cast(dtype),
    }
}
