//! `rms_norm` as PyTorch composes it (`aten/src/ATen/native/layer_norm.cpp`,
//! `rms_norm_symint`): the input (in float for half precision:
//! `ToCopyBackward0`) times `rsqrt(mean(x ** 2) + eps)` over the normalized
//! dims, cast back, times the weight. Each step is its own node
//! (`PowBackward0`, `MeanBackward1`, `AddBackward1`, `RsqrtBackward0`,
//! `MulBackward0`), as PyTorch records them.

use std::sync::Arc;

use super::node::Backward;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::shape::spaced_shape;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// PyTorch's `eps=None`: the machine epsilon of the dtype it computes in
/// (float's for half precision).
fn epsilon(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => f64::EPSILON,
        _ => f64::from(f32::EPSILON),
    }
}

/// `x.to(dtype)`, recorded as PyTorch's copy (`ToCopyBackward0`).
fn cast(rt: &mut Runtime, mode: Mode, x: &Tensor, to: DType) -> R<Arc<Tensor>> {
    let out = rt.cast(x, to)?;
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "ToCopyBackward0",
        Backward::Identity,
        &[x],
    ))
}

/// `rms_norm(x, normalized_shape, weight, eps)`.
pub fn rms_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    eps: Option<f64>,
) -> R<Arc<Tensor>> {
    let k = normalized_shape.len();
    let shape = x.shape();
    if k == 0 || shape.len() < k || shape[shape.len() - k..] != *normalized_shape {
        return Err(Error::runtime(format!(
            "Given normalized_shape={}, expected input with shape [*{}], but got input of size{}",
            spaced_shape(normalized_shape),
            normalized_shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            spaced_shape(shape)
        )));
    }
    if let Some(w) = weight {
        if w.shape() != normalized_shape {
            return Err(Error::runtime(format!(
                "Expected weight to be of same shape as normalized_shape, but got weight of shape {} and normalized_shape = {}",
                spaced_shape(w.shape()),
                spaced_shape(normalized_shape)
            )));
        }
    }
    if !x.dtype().is_float() {
        return Err(Error::dtype(
            format!("rms_norm takes a floating point input, not {}", x.dtype()),
            Some("convert it first: `x.float()`".into()),
        ));
    }
    let eps = eps.unwrap_or_else(|| epsilon(x.dtype()));
    let half = matches!(x.dtype(), DType::F16 | DType::BF16);
    let up = match half {
        true => cast(rt, mode, x, DType::F32)?,
        false => Arc::clone(x),
    };
    let two = Tensor::scalar(2.0);
    let squared = record::binary(
        rt,
        mode,
        BinaryOp::Pow,
        Operand::strong(&up),
        Operand::weak(&two),
    )?;
    let dims: Vec<i64> = (shape.len() - k..shape.len()).map(|d| d as i64).collect();
    let mean = record::reduce_dims(rt, mode, ReduceOp::Mean, &squared, &dims, true)?;
    drop(squared);
    let shifted = record::binary_scalar(rt, mode, BinaryOp::Add, &mean, eps)?;
    drop(mean);
    let scale = record::unary(rt, mode, UnaryOp::Rsqrt, &shifted)?;
    drop(shifted);
    let normed = record::binary(
        rt,
        mode,
        BinaryOp::Mul,
        Operand::strong(&up),
        Operand::strong(&scale),
    )?;
    let normed = match half {
        true => cast(rt, mode, &normed, x.dtype())?,
        false => normed,
    };
    match weight {
        None => Ok(normed),
        Some(w) => record::binary(
            rt,
            mode,
            BinaryOp::Mul,
            Operand::strong(&normed),
            Operand::strong(w),
        ),
    }
}
