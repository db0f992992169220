//! `median` and `nanmedian`, as PyTorch's CPU kernel picks them: the
//! lower of the two middle elements (`(n - 1) / 2` of the sorted line);
//! a line holding a NaN has median NaN (its first), while `nanmedian`
//! takes the middle of the rest. Among equal elements the one first in
//! the line is picked (PyTorch's tie order: a stable sort's). The whole
//! computation stays on the tensor's device: a stable sort, a count of
//! the NaNs, a gather at each line's place.

use std::sync::Arc;

use super::ops::bin;
use super::scatter;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::view;
use crate::runtime::shape::norm_dim;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// `x.median()` / `x.nanmedian()` (`nan`): one element.
pub fn median_all(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, nan: bool) -> R<Arc<Tensor>> {
    let values = match x.numel() {
        // PyTorch's median of nothing: NaN (an integer type's lowest value).
        0 => {
            let lowest = match x.dtype().is_float() {
                true => Tensor::scalar(f64::NAN),
                false => Tensor::scalar(i64::MIN),
            };
            let lowest = rt.copy_to(&lowest, x.device())?;
            rt.cast(&lowest, x.dtype())?
        }
        _ => {
            let flat = rt.reshape(x, &[-1])?;
            let (values, _) = pick(rt, &flat, 0, nan)?;
            Arc::new(view::squeeze(&values, Some(0))?)
        }
    };
    let recorded = record::recording(mode, &[x]);
    if !values.dtype().is_float() {
        return Ok(values);
    }
    let node = if nan {
        "NanmedianBackward0"
    } else {
        "MedianBackward0"
    };
    let values = match recorded {
        true => record::evenly_picked(rt, x, values, node),
        false => values,
    };
    record::evenly_tangent(rt, mode, x, values)
}

/// `x.median(dim, keepdim)` / `x.nanmedian(dim, keepdim)`: (values, indices).
pub fn median_dim(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (dim, keepdim): (i64, bool),
    nan: bool,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let name = if nan { "nanmedian" } else { "median" };
    let d = norm_dim(dim, x.ndim().max(1))?;
    // A 0-d tensor is its own median.
    let line = match x.ndim() {
        0 => Arc::new(view::unsqueeze(x, 0)?),
        _ => Arc::clone(x),
    };
    if line.shape()[d] == 0 {
        return Err(Error::Module {
            class: "IndexError",
            message: format!("{name}(): Expected reduction dim {d} to have non-zero size."),
            help: None,
        });
    }
    let (values, indices) = pick(rt, &line, d, nan)?;
    let squeeze = |t: Arc<Tensor>| -> R<Arc<Tensor>> {
        match keepdim && x.ndim() > 0 {
            true => Ok(t),
            false => Ok(Arc::new(view::squeeze(&t, Some(d as i64))?)),
        }
    };
    let (values, indices) = (squeeze(values)?, squeeze(indices)?);
    let recorded = record::recording(mode, &[x]);
    if !values.dtype().is_float() {
        return Ok((values, indices));
    }
    let node = if nan {
        "NanmedianBackward1"
    } else {
        "MedianBackward1"
    };
    let keep = keepdim || x.ndim() == 0;
    let values = match recorded {
        true => record::picked(rt, x, (values, &indices), d, keep, node),
        false => values,
    };
    let values = record::picked_tangent(rt, mode, x, values, (d, &indices), keep)?;
    Ok((values, indices))
}

/// `a op s` of integers.
fn bin_i(rt: &mut Runtime, op: BinaryOp, a: &Tensor, s: i64) -> R<Arc<Tensor>> {
    rt.binary(op, Operand::strong(a), Operand::weak(&Tensor::scalar(s)))
}

/// Each line's median along `d` and its index, `d` kept (size 1).
fn pick(rt: &mut Runtime, x: &Tensor, d: usize, nan: bool) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let n = x.shape()[d] as i64;
    let (sorted, order) = rt.sort(x, d as i64, false)?;
    // How many elements of each line are not NaN (NaNs sort last).
    let real = bin(rt, BinaryOp::Eq, x, x)?;
    let count = rt.reduce_dims(ReduceOp::Sum, &real, &[d as i64], true)?;
    let count = rt.cast(&count, DType::I64)?;
    let at = match nan {
        // The middle of the real elements (0 for a line of NaNs).
        true => {
            let less = bin_i(rt, BinaryOp::Sub, &count, 1)?;
            let less = bin_i(rt, BinaryOp::Maximum, &less, 0)?;
            bin_i(rt, BinaryOp::FloorDiv, &less, 2)?
        }
        // The middle, or the first NaN when there is one.
        false => {
            let has_nan = bin_i(rt, BinaryOp::Lt, &count, n)?;
            let middle = super::ops::full_like(rt, &count, (n - 1) / 2)?;
            rt.ternary(
                crate::runtime::op::ternary::TernaryOp::Where,
                Operand::strong(&has_nan),
                Operand::strong(&count),
                Operand::strong(&middle),
            )?
        }
    };
    let values = scatter::gather(rt, Mode::default(), &sorted, d, &at)?;
    let indices = scatter::gather(rt, Mode::default(), &order, d, &at)?;
    Ok((values, indices))
}
