//! Indexing and slicing (views), and writing through them (`x[i] = v`).

use super::super::shape::{broadcast_shapes, broadcast_strides, fmt_shape, for_each_offset2};
use super::super::Tensor;
use crate::error::Error;
use crate::with_dtype;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Index {
    At(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
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

/// `t[items]` as a view sharing `t`'s memory. Missing trailing items take the whole dimension.
pub fn select(t: &Tensor, items: &[Index]) -> Result<Tensor, Error> {
    if items.len() > t.ndim() {
        return Err(Error::Shape {
            message: format!(
                "too many indices: {} given for a tensor with {} dimension(s) (shape {})",
                items.len(),
                t.ndim(),
                fmt_shape(t.shape())
            ),
            help: None,
        });
    }
    let mut shape = Vec::with_capacity(t.ndim());
    let mut strides = Vec::with_capacity(t.ndim());
    let mut offset = t.offset() as isize;
    for (dim, (&size, &stride)) in t.shape().iter().zip(t.strides()).enumerate() {
        match items.get(dim) {
            Some(&Index::At(i)) => {
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
            Some(&Index::Slice(start, stop, step)) => {
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
            None => {
                shape.push(size);
                strides.push(stride);
            }
        }
    }
    Ok(t.view(shape, strides, offset as usize))
}

/// Writes `value` (broadcast and converted to the view's dtype) into the view `dst`.
/// Whether `value` may be written into `dst`: same device (or a host
/// scalar), and a shape that broadcasts to `dst`'s.
pub fn check_assign(dst: &Tensor, value: &Tensor) -> Result<(), Error> {
    let scalar = value.ndim() == 0 && value.device() == crate::runtime::Device::Cpu;
    if dst.device() != value.device() && !scalar {
        return Err(Error::DeviceMismatch {
            a: dst.device(),
            b: value.device(),
        });
    }
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

pub fn assign(dst: &Tensor, value: &Tensor) -> Result<(), Error> {
    check_assign(dst, value)?;
    // Gather the source first: it may share memory with the destination.
    let src = value.cast(dst.dtype());
    let src_strides = broadcast_strides(src.shape(), src.strides(), dst.shape());
    with_dtype!(dst.dtype(), T => {
        let s = src.read();
        let sv = s.as_slice::<T>();
        let mut d = dst.write();
        let dv = d.as_mut_slice::<T>();
        for_each_offset2(dst.shape(), (dst.strides(), dst.offset()), (&src_strides, src.offset()), |i, j| {
            dv[i] = sv[j];
        });
    });
    Ok(())
}

/// Fills every element of the view `dst` with `v` (converted to its dtype).
pub fn fill(dst: &Tensor, v: super::factory::Fill) {
    with_dtype!(dst.dtype(), T => {
        let x: T = v.element::<T>();
        let mut d = dst.write();
        let dv = d.as_mut_slice::<T>();
        super::super::shape::for_each_offset(dst.shape(), dst.strides(), dst.offset(), |i| dv[i] = x);
    });
}
