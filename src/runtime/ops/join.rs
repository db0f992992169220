//! `cat` and `stack`.

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::shape::{fmt_shape, for_each_offset, norm_dim};
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
    // PyTorch's check, in its words, naming the first 0-d one.
    if let Some(at) = all.iter().position(|t| t.ndim() == 0) {
        return Err(Error::Shape {
            message: format!("zero-dimensional tensor (at position {at}) cannot be concatenated"),
            help: Some(format!(
                "{what} joins along an existing dimension: stack() makes one (a 1-d tensor of \
                 0-d ones), or give each a dimension with `.view(1)`"
            )),
        });
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
        .unwrap_or_else(DType::default_float);
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
    if ts.iter().all(|t| t.dtype() == dt) {
        let buf =
            with_dtype!(dt, T => T::into_buffer(cat_same_dtype::<T>(ts, d, shape[d] * inner)));
        return Ok(Tensor::new(buf, shape, first.device()));
    }
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

/// `cat` of parts of the result's dtype, each read in place (strided views
/// row by row) straight into the result: no contiguous copy of a part
/// first (convolution's columns are a stack of nine strided views).
fn cat_same_dtype<T: Stored>(ts: &[&Tensor], d: usize, row: usize) -> Vec<T> {
    let first = ts[0];
    let outer: usize = first.shape()[..d].iter().product();
    let inner: usize = first.shape()[d + 1..].iter().product();
    let total = outer * row;
    let mut out: Vec<T> = Vec::with_capacity(total);
    let spare = &mut out.spare_capacity_mut()[..total];
    let mut start = 0;
    for t in ts {
        let block = t.shape()[d] * inner;
        if block == 0 {
            // No element to copy (and none to index: a part of shape [2, 0]).
            continue;
        }
        let buf = t.read();
        let src = buf.as_slice::<T>();
        let (shape, strides) = (t.shape(), t.strides());
        let mut o = 0;
        for_each_offset(&shape[..d], &strides[..d], t.offset(), |at| {
            let dst = &mut spare[o * row + start..][..block];
            let mut k = 0;
            // The part's block for this outer index, a row at a time.
            let rows = &shape[d..];
            let (last, lead) = match rows.split_last() {
                Some((&last, lead)) => (last, lead),
                None => (1, &rows[..0]),
            };
            let step = strides.last().copied().unwrap_or(1);
            let lead_strides = &strides[d..(d + lead.len())];
            for_each_offset(lead, lead_strides, at, |r| {
                if step == 1 {
                    for (slot, &x) in dst[k..k + last].iter_mut().zip(&src[r..r + last]) {
                        slot.write(x);
                    }
                } else {
                    for (j, slot) in dst[k..k + last].iter_mut().enumerate() {
                        slot.write(src[(r as isize + j as isize * step) as usize]);
                    }
                }
                k += last;
            });
            o += 1;
        });
        start += block;
    }
    // SAFETY: each outer index's row of `row` elements is written in full,
    // part after part (the parts' blocks add up to `row`).
    unsafe { out.set_len(total) };
    out
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
