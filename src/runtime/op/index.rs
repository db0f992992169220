//! Indexing as PyTorch reads it: the index items, their checks, and the
//! views basic indexing makes (no element is copied).

use std::sync::Arc;

use crate::error::Error;
use crate::runtime::shape::{broadcast_shapes, fmt_shape};
use crate::runtime::{DType, Tensor};

/// One item of `x[...]`.
#[derive(Debug, Clone)]
pub enum Index {
    At(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `none`: a new dimension of size 1.
    NewAxis,
    /// `...`: as many whole dimensions as the other items leave.
    Ellipsis,
    /// Advanced indexing: an integer tensor picks elements along one
    /// dimension, a bool mask the elements where it holds (a copy).
    Tensor(Arc<Tensor>),
}

impl Index {
    /// How many of the tensor's dimensions the item uses up.
    pub(crate) fn consumes(&self) -> usize {
        match self {
            Index::At(_) | Index::Slice(..) => 1,
            Index::Tensor(t) if t.dtype() == DType::Bool => t.ndim(),
            Index::Tensor(_) => 1,
            Index::NewAxis | Index::Ellipsis => 0,
        }
    }
}

/// `items` with `...` spelled out as whole slices, checked against `ndim`.
pub(crate) fn expand_ellipsis(
    items: &[Index],
    ndim: usize,
    shape: &[usize],
) -> Result<Vec<Index>, Error> {
    let used: usize = items.iter().map(Index::consumes).sum();
    if used > ndim {
        return Err(Error::Shape {
            message: format!(
                "too many indices: {used} given for a tensor with {ndim} dimension(s) (shape {})",
                fmt_shape(shape)
            ),
            help: None,
        });
    }
    let ellipses = items
        .iter()
        .filter(|i| matches!(i, Index::Ellipsis))
        .count();
    if ellipses > 1 {
        return Err(Error::value(
            "an index can only have a single ellipsis (`...`)",
        ));
    }
    let mut out = Vec::with_capacity(items.len() + ndim - used);
    for item in items {
        match item {
            Index::Ellipsis => {
                out.extend((0..ndim - used).map(|_| Index::Slice(None, None, None)));
            }
            other => out.push(other.clone()),
        }
    }
    Ok(out)
}

/// `t.narrow(dim, start, len)`: elements `start..start + len` along `dim`,
/// a view sharing `t`'s memory.
pub fn narrow(t: &Tensor, dim: usize, start: usize, len: usize) -> Result<Tensor, Error> {
    let mut items = vec![Index::Slice(None, None, None); dim];
    items.push(Index::Slice(
        Some(start as i64),
        Some((start + len) as i64),
        None,
    ));
    select(t, &items)
}

/// `t[items]` as a view sharing `t`'s memory (basic indexing: ints, slices,
/// `none` and `...`). Missing trailing items take the whole dimension.
pub fn select(t: &Tensor, items: &[Index]) -> Result<Tensor, Error> {
    let items = expand_ellipsis(items, t.ndim(), t.shape())?;
    let mut shape = Vec::with_capacity(t.ndim());
    let mut strides = Vec::with_capacity(t.ndim());
    let mut offset = t.offset() as isize;
    let mut dim = 0;
    for item in &items {
        if let Index::NewAxis = item {
            shape.push(1);
            strides.push(0);
            continue;
        }
        let (size, stride) = (t.shape()[dim], t.strides()[dim]);
        match *item {
            Index::At(i) => {
                let j = if i < 0 { i + size as i64 } else { i };
                if j < 0 || j >= size as i64 {
                    return Err(Error::IndexOutOfRange {
                        index: i,
                        dim,
                        size,
                    });
                }
                offset += j as isize * stride;
            }
            Index::Slice(start, stop, step) => {
                let step = step.unwrap_or(1);
                if step <= 0 {
                    return Err(Error::value_help(
                        format!("slice step must be positive, not {step}"),
                        "reversed slices are not supported (as in PyTorch)",
                    ));
                }
                let clamp = |v: i64| -> usize {
                    let v = if v < 0 { v + size as i64 } else { v };
                    v.clamp(0, size as i64) as usize
                };
                let lo = start.map_or(0, clamp);
                let hi = stop.map_or(size, clamp).max(lo);
                let len = (hi - lo).div_ceil(step as usize);
                offset += lo as isize * stride;
                shape.push(len);
                strides.push(stride * step as isize);
            }
            _ => {
                return Err(Error::value(
                    "internal error: a tensor index reached basic indexing",
                ))
            }
        }
        dim += 1;
    }
    shape.extend_from_slice(&t.shape()[dim..]);
    strides.extend_from_slice(&t.strides()[dim..]);
    Ok(t.view(shape, strides, offset as usize))
}

/// Whether `items` hold a tensor index (advanced indexing: a copy, not a view).
pub fn is_advanced(items: &[Index]) -> bool {
    items.iter().any(|i| matches!(i, Index::Tensor(_)))
}

/// Writes `value` (broadcast and converted to the view's dtype) into the view `dst`.
/// Whether `value` may be written into `dst`: same device (or a host
/// scalar), and a shape that broadcasts to `dst`'s.
pub fn check_assign(dst: &Tensor, value: &Tensor) -> Result<(), Error> {
    if dst.device() != value.device() && !value.is_cpu_scalar() {
        return Err(Error::DeviceMismatch {
            a: dst.device(),
            b: value.device(),
        });
    }
    check_fits(dst, value)
}

/// Whether `value`'s shape broadcasts to `dst`'s.
pub fn check_fits(dst: &Tensor, value: &Tensor) -> Result<(), Error> {
    let fits = broadcast_shapes(dst.shape(), value.shape()).is_some_and(|s| s == dst.shape());
    if !fits {
        return Err(Error::Shape {
            message: format!(
                "cannot assign a value of shape {} to a selection of shape {}",
                fmt_shape(value.shape()),
                fmt_shape(dst.shape())
            ),
            help: Some("the value must broadcast to the selected shape".into()),
        });
    }
    Ok(())
}
