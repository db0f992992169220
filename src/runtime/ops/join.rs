//! `cat` and `stack`.

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::shape::{fmt_shape, norm_dim};
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::with_dtype;

pub fn cat(ts: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
    let first = ts
        .first()
        .ok_or_else(|| Error::value("cat() needs at least one tensor"))?;
    if first.ndim() == 0 {
        return Err(Error::shape("cat() cannot join 0-d tensors; use stack()"));
    }
    let d = norm_dim(dim, first.ndim())?;
    for t in ts {
        if t.device() != first.device() {
            return Err(Error::DeviceMismatch {
                a: first.device(),
                b: t.device(),
            });
        }
        let same_rank = t.ndim() == first.ndim();
        let same_other =
            same_rank && (0..t.ndim()).all(|i| i == d || t.shape()[i] == first.shape()[i]);
        if !same_other {
            return Err(Error::Shape {
                message: format!(
                    "cat(): shapes {} and {} differ outside dimension {d}",
                    fmt_shape(first.shape()),
                    fmt_shape(t.shape())
                ),
                help: Some("all tensors must have the same shape except in the dimension they are joined along".into()),
            });
        }
    }
    let dt = ts
        .iter()
        .map(|t| t.dtype())
        .reduce(DType::promote)
        .unwrap_or(DType::F32);
    let outer: usize = first.shape()[..d].iter().product();
    let inner: usize = first.shape()[d + 1..].iter().product();
    let parts: Vec<Buffer> = ts.iter().map(|t| t.contiguous_buffer().cast(dt)).collect();
    let total: usize = ts.iter().map(|t| t.shape()[d]).sum();
    let buf = with_dtype!(dt, T => {
        let mut out: Vec<T> = Vec::with_capacity(outer * total * inner);
        for o in 0..outer {
            for (p, t) in parts.iter().zip(ts) {
                let block = t.shape()[d] * inner;
                out.extend_from_slice(&p.as_slice::<T>()[o * block..(o + 1) * block]);
            }
        }
        T::into_buffer(out)
    });
    let mut shape = first.shape().to_vec();
    shape[d] = total;
    Ok(Tensor::new(buf, shape, first.device()))
}

pub fn stack(ts: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
    let first = ts
        .first()
        .ok_or_else(|| Error::value("stack() needs at least one tensor"))?;
    for t in ts {
        if t.shape() != first.shape() {
            return Err(Error::Shape {
                message: format!(
                    "stack(): all tensors must have the same shape, but found {} and {}",
                    fmt_shape(first.shape()),
                    fmt_shape(t.shape())
                ),
                help: None,
            });
        }
    }
    let d = norm_dim(dim, first.ndim() + 1)?;
    let mut dims: Vec<i64> = first.shape().iter().map(|&s| s as i64).collect();
    dims.insert(d, 1);
    let expanded: Vec<Tensor> = ts
        .iter()
        .map(|t| t.reshape(&dims))
        .collect::<Result<_, _>>()?;
    let refs: Vec<&Tensor> = expanded.iter().collect();
    cat(&refs, d as i64)
}
