//! `cat` and `stack`.

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::shape::{fmt_shape, norm_dim};
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::with_dtype;

/// The tensors a join takes its shape from: as PyTorch still does for
/// old code, 1-D empty tensors (shape `[0]`) are skipped whatever the others'
/// shapes, unless all of them are such.
pub fn skipping_empty<'a>(ts: &[&'a Tensor]) -> Vec<&'a Tensor> {
    let legacy = |t: &&Tensor| t.shape() == [0];
    if ts.iter().all(legacy) {
        return ts.to_vec();
    }
    ts.iter().copied().filter(|t| !legacy(t)).collect()
}

/// What `cat` makes: the dimension joined along, the result's dtype and shape.
#[derive(Debug, Clone, PartialEq)]
pub struct CatPlan {
    pub dim: usize,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

/// Checks `cat`'s operands (one device, one rank, equal shapes but along
/// `dim`) and works out the result.
pub fn cat_plan(ts: &[&Tensor], dim: i64) -> Result<CatPlan, Error> {
    if let Some(first) = ts.first() {
        if let Some(t) = ts.iter().find(|t| t.device() != first.device()) {
            return Err(Error::DeviceMismatch {
                a: first.device(),
                b: t.device(),
            });
        }
    }
    join_plan(ts, dim, "cat()")
}

/// The checks and result of joining `ts` along `dim` wherever they are
/// (`cat`; `gather` joins tensors of several devices): one rank, equal
/// shapes but along `dim`, the promoted dtype.
pub fn join_plan(all: &[&Tensor], dim: i64, what: &str) -> Result<CatPlan, Error> {
    let ts = &skipping_empty(all)[..];
    let first = ts
        .first()
        .ok_or_else(|| Error::value(format!("{what} needs at least one tensor")))?;
    if first.ndim() == 0 {
        return Err(Error::shape(format!(
            "{what} cannot join 0-d tensors; use stack()"
        )));
    }
    let d = norm_dim(dim, first.ndim())?;
    for t in ts {
        let same_rank = t.ndim() == first.ndim();
        let same_other =
            same_rank && (0..t.ndim()).all(|i| i == d || t.shape()[i] == first.shape()[i]);
        if !same_other {
            return Err(Error::Shape {
                message: format!(
                    "{what}: shapes {} and {} differ outside dimension {d}",
                    fmt_shape(first.shape()),
                    fmt_shape(t.shape())
                ),
                help: Some("all tensors must have the same shape except in the dimension they are joined along".into()),
            });
        }
    }
    let dt = all
        .iter()
        .map(|t| t.dtype())
        .reduce(DType::promote)
        .unwrap_or(DType::F32);
    let mut shape = first.shape().to_vec();
    shape[d] = ts.iter().map(|t| t.shape()[d]).sum();
    Ok(CatPlan {
        dim: d,
        dtype: dt,
        shape,
    })
}

pub fn cat(ts: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
    let CatPlan {
        dim: d,
        dtype: dt,
        shape,
    } = cat_plan(ts, dim)?;
    let ts = &skipping_empty(ts)[..];
    let first = ts[0];
    let outer: usize = first.shape()[..d].iter().product();
    let inner: usize = first.shape()[d + 1..].iter().product();
    let parts: Vec<Buffer> = ts.iter().map(|t| t.contiguous_buffer().cast(dt)).collect();
    let total = shape[d];
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
    Ok(Tensor::new(buf, shape, first.device()))
}

/// `stack`'s operands checked (one shape) and given their new dimension,
/// ready for `cat` along it.
pub fn stacked(ts: &[&Tensor], dim: i64) -> Result<Vec<Tensor>, Error> {
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
    Ok(ts.iter().map(|t| unsqueeze(t, d)).collect())
}

/// `t` with a dimension of size 1 inserted at `d`: a view.
fn unsqueeze(t: &Tensor, d: usize) -> Tensor {
    let (mut shape, mut strides) = (t.shape().to_vec(), t.strides().to_vec());
    let stride = strides.get(d).map_or(1, |&s| s * shape[d] as isize);
    shape.insert(d, 1);
    strides.insert(d, stride);
    t.view(shape, strides, t.offset())
}

pub fn stack(ts: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
    let views = stacked(ts, dim)?;
    let refs: Vec<&Tensor> = views.iter().collect();
    cat(&refs, norm_dim(dim, ts[0].ndim() + 1)? as i64)
}
