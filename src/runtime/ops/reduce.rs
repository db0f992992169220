//! Reductions: sum, mean, max, min, argmax, argmin, prod, over everything or one dimension.

use half::{bf16, f16};

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::element::Element;
use super::super::shape::norm_dims;
use super::super::shape::{for_each_offset2, Lines};
use super::super::{DType, Device, Tensor};
use super::axis::{sum_axis, Layout};
use super::device_sum;
use super::pytorch::cascade::{self, Summand};
use crate::error::Error;
use crate::with_dtype;

pub use crate::runtime::op::reduce::{check_dtype, check_len, reduce_dtype, ReduceOp, Reduction};

/// Reduces `t` over `dim` (all elements when `None`).
pub fn reduce(op: ReduceOp, t: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor, Error> {
    reduce_planned(
        t,
        &Reduction::plan(op, (t.shape(), t.dtype()), dim, keepdim)?,
    )
}

/// The reduction `plan` says (`Reduction::plan`: checked, shaped) of `t`.
pub fn reduce_planned(t: &Tensor, plan: &Reduction) -> Result<Tensor, Error> {
    let (op, dt) = (plan.op, t.dtype());
    let Lines { outer, len, inner } = plan.lines;
    let lay = Layout { outer, len, inner };
    let reduced: Vec<bool> = (0..t.ndim())
        .map(|k| plan.dim.is_none_or(|d| d == k))
        .collect();
    let buf = match op {
        ReduceOp::Sum | ReduceOp::Mean if t.device() != Device::Cpu => {
            device_sum::sum(t, lay, op == ReduceOp::Mean)
        }
        ReduceOp::Sum | ReduceOp::Mean => sum(t, &reduced, op == ReduceOp::Mean),
        ReduceOp::Max => {
            with_dtype!(dt, T => t.with_slice::<T, _>(|s| T::into_buffer(extreme(s, lay, true).0)))
        }
        ReduceOp::Min => {
            with_dtype!(dt, T => t.with_slice::<T, _>(|s| T::into_buffer(extreme(s, lay, false).0)))
        }
        ReduceOp::Argmax => {
            with_dtype!(dt, T => t.with_slice::<T, _>(|s| Buffer::I64(extreme(s, lay, true).1)))
        }
        ReduceOp::Argmin => {
            with_dtype!(dt, T => t.with_slice::<T, _>(|s| Buffer::I64(extreme(s, lay, false).1)))
        }
        ReduceOp::Prod if t.device() == Device::Cpu && dt.is_float() => match dt {
            DType::F16 => float_prod::<f16>(t, &reduced),
            DType::BF16 => float_prod::<bf16>(t, &reduced),
            DType::F32 => float_prod::<f32>(t, &reduced),
            _ => float_prod::<f64>(t, &reduced),
        },
        ReduceOp::Prod => prod(t, lay),
    };
    debug_assert_eq!(
        buf.dtype(),
        reduce_dtype(op, dt),
        "reduce_dtype says what this gives"
    );
    Ok(Tensor::new(buf, plan.shape.clone(), t.device()))
}

/// A sum or mean of a CPU tensor over the dims `dims` (a list: `sum((0,
/// 2))`) in one pass, as PyTorch's. (Device tensors merge the dims first:
/// `Runtime::reduce_dims`.)
pub fn reduce_dims(op: ReduceOp, t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor, Error> {
    if !matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
        return Err(Error::value(format!(
            "internal error: {}() takes one dim",
            op.name()
        )));
    }
    check_dtype(op, t.dtype())?;
    let dims = norm_dims(dims, t.ndim())?;
    let shape = t.shape();
    let reduced: Vec<bool> = (0..shape.len()).map(|k| dims.contains(&k)).collect();
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(&reduced)
        .filter_map(|(&n, &r)| match (r, keepdim) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let buf = sum(t, &reduced, op == ReduceOp::Mean);
    Ok(Tensor::new(buf, out_shape, t.device()))
}

/// `t` summed over the dims marked in `reduced` (mean: divided by their
/// count), contiguous over the dims kept.
///
/// Floats add as PyTorch's CPU sum adds them (`cascade`), in the dtype of
/// `t` (f32 for a mean of f16 or bf16, rounded last, as PyTorch's). The
/// mean divides in that dtype. Integers and bool sum in i64 (wrapping), as
/// in PyTorch; their order does not matter.
fn sum(t: &Tensor, reduced: &[bool], mean: bool) -> Buffer {
    let dt = t.dtype();
    let count: usize = t
        .shape()
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| r)
        .map(|(&n, _)| n)
        .product();
    if !dt.is_float() {
        let kept = t.shape().iter().zip(reduced).filter(|(_, &r)| !r);
        let mut out = vec![0i64; kept.map(|(&n, _)| n).product()];
        let to = cascade::kept_strides(t.shape(), reduced);
        let buf = t.read();
        with_dtype!(dt, T => {
            let s = buf.as_slice::<T>();
            for_each_offset2(t.shape(), (t.strides(), t.offset()), (&to, 0), |i, o| {
                out[o] = out[o].wrapping_add(s[i].to_i64());
            });
        });
        return Buffer::I64(out);
    }
    // f16 and bf16 sum in f32 for a mean, and where an output would take
    // several partial sums, as PyTorch's do; the result is rounded last.
    let half = matches!(dt, DType::F16 | DType::BF16)
        && (mean || cascade::adds_twice(t.shape(), t.strides(), reduced));
    let x = if half {
        dense_cast(t, DType::F32)
    } else {
        t.view(t.shape().to_vec(), t.strides().to_vec(), t.offset())
    };
    let sums = match x.dtype() {
        DType::F16 => float_sum::<f16>(&x, reduced, mean.then_some(count)),
        DType::BF16 => float_sum::<bf16>(&x, reduced, mean.then_some(count)),
        DType::F32 => float_sum::<f32>(&x, reduced, mean.then_some(count)),
        _ => float_sum::<f64>(&x, reduced, mean.then_some(count)),
    };
    if half {
        sums.cast(dt)
    } else {
        sums
    }
}

/// The cascade sum of a float tensor; divided by `count` in its dtype when given.
fn float_sum<T: Summand>(x: &Tensor, reduced: &[bool], count: Option<usize>) -> Buffer {
    let buf = x.read();
    let data = buf.as_slice::<T>();
    let mut v = cascade::sum(data, x.shape(), x.strides(), x.offset(), reduced);
    if let Some(n) = count {
        let n = T::from_f64(n as f64).to_f64();
        for s in &mut v {
            *s = T::from_f64(s.to_f64() / n);
        }
    }
    T::into_buffer(v)
}

/// `t` converted to `dtype` as PyTorch's `.to(dtype)` lays it out: with the
/// same strides where its elements fill their span of memory (a transpose),
/// else contiguous.
fn dense_cast(t: &Tensor, dtype: DType) -> Tensor {
    let mut dims: Vec<usize> = (0..t.ndim()).filter(|&d| t.shape()[d] > 1).collect();
    dims.sort_by_key(|&d| std::cmp::Reverse(t.strides()[d]));
    let mut step = 1isize;
    let dense = dims.iter().rev().all(|&d| {
        let ok = t.strides()[d] == step;
        step *= t.shape()[d] as isize;
        ok
    });
    if !dense || t.numel() == 0 {
        return t.cast(dtype);
    }
    // The span the elements fill, converted element for element.
    let buf = t.read();
    let span = with_dtype!(t.dtype(), T => {
        T::into_buffer(buf.as_slice::<T>()[t.offset()..t.offset() + t.numel()].to_vec())
    });
    let span = Tensor::new(span.cast(dtype), vec![t.numel()], t.device());
    span.view(t.shape().to_vec(), t.strides().to_vec(), 0)
}

/// A CPU tensor's float product, multiplied as PyTorch's CPU `prod` does.
fn float_prod<T: Summand>(x: &Tensor, reduced: &[bool]) -> Buffer {
    let buf = x.read();
    let data = buf.as_slice::<T>();
    T::into_buffer(cascade::prod(
        data,
        x.shape(),
        x.strides(),
        x.offset(),
        reduced,
    ))
}

/// Device tensors' products: floats multiplied in f64 and rounded once, as the kernels do;
/// integers and bool wrap in i64, as PyTorch's.
fn prod(t: &Tensor, lay: Layout) -> Buffer {
    let dt = t.dtype();
    if dt.is_float() {
        let p: Vec<f64> = with_dtype!(dt, T => t.with_slice::<T, _>(|s| sum_axis(s, lay, |x: T| x.to_f64(), 1.0, |a, b| a * b)));
        with_dtype!(dt, T => T::into_buffer(p.into_iter().map(T::from_f64).collect()))
    } else {
        Buffer::I64(with_dtype!(dt, T => t.with_slice::<T, _>(|s| {
            sum_axis(s, lay, |x: T| x.to_i64(), 1i64, i64::wrapping_mul)
        })))
    }
}

/// Max (or min) and its index along the middle axis; NaN wins, as in PyTorch.
fn extreme<T: Stored>(s: &[T], lay: Layout, max: bool) -> (Vec<T>, Vec<i64>) {
    let n = lay.outer * lay.inner;
    let (mut vals, mut idxs) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for o in 0..lay.outer {
        for i in 0..lay.inner {
            let mut best = s[lay.at(o, 0, i)];
            let mut at = 0usize;
            for k in 1..lay.len {
                if best.is_nan() {
                    break;
                }
                let x = s[lay.at(o, k, i)];
                if x.is_nan() || (max && x > best) || (!max && x < best) {
                    best = x;
                    at = k;
                }
            }
            vals.push(best);
            idxs.push(at as i64);
        }
    }
    (vals, idxs)
}
