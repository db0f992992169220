//! Views and reshapes recorded as PyTorch records them, for composite
//! forwards written in Rust (`nn::attention`): `view` (`ViewBackward0`),
//! `reshape` (a view, or a copy: `UnsafeViewBackward0`), `transpose`,
//! `permute`, `unsqueeze`, `squeeze`, `contiguous` (`CloneBackward0`, a
//! copy only when the layout is not already contiguous), `select` and
//! `repeat` (`RepeatBackward0`).

use std::sync::Arc;

use super::node::Backward;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::index::Index;
use crate::runtime::op::view as v;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `x.view(dims)`.
pub fn view(rt: &Runtime, mode: Mode, x: &Tensor, dims: &[i64]) -> R<Arc<Tensor>> {
    let out = Arc::new(v::view(x, dims)?);
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "ViewBackward0",
        Backward::Reshape,
        &[x],
    ))
}

/// `x.reshape(dims)`: a view when the layout allows, else a copy.
pub fn reshape(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, dims: &[i64]) -> R<Arc<Tensor>> {
    let out = rt.reshape(x, dims)?;
    reshaped(rt, mode, x, out)
}

/// `out`, a reshape of `x` (made by the op layer): `ViewBackward0` when it
/// is a view, else `UnsafeViewBackward0` (PyTorch's names for the two);
/// its tangent, the tangent reshaped alike.
pub fn reshaped(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, out: Arc<Tensor>) -> R<Arc<Tensor>> {
    let name = match out.shares_storage(x) {
        true => "ViewBackward0",
        false => "UnsafeViewBackward0",
    };
    let out = record::attach_node(rt, mode, out, name, Backward::Reshape, &[x]);
    let dims: Vec<i64> = out.shape().iter().map(|&d| d as i64).collect();
    super::forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| reshape(rt, mode, t, &dims))
}

/// `x.repeat(*sizes)`: a copy of x tiled `sizes` times (`RepeatBackward0`).
pub fn repeat(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, sizes: &[usize]) -> R<Arc<Tensor>> {
    let signed: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
    let (layout, shape) = v::repeated(x, &signed)?;
    let copy = rt.copy(&layout)?;
    let dims: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let out = rt.reshape(&copy, &dims)?;
    let backward = Backward::Repeat {
        sizes: sizes.to_vec(),
    };
    let out = record::attach_node(rt, mode, out, "RepeatBackward0", backward, &[x]);
    // The tangent: the tangent repeated alike.
    super::forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| repeat(rt, mode, t, sizes))
}

/// `x.transpose(d0, d1)`, the dims already in range.
pub fn transpose(rt: &Runtime, mode: Mode, x: &Tensor, d0: usize, d1: usize) -> Arc<Tensor> {
    let out = Arc::new(x.transpose(d0, d1));
    record::attach_node(
        rt,
        mode,
        out,
        "TransposeBackward0",
        Backward::Transpose { d0, d1 },
        &[x],
    )
}

/// `x.permute(dims)`, the dims already in range.
pub fn permute(rt: &Runtime, mode: Mode, x: &Tensor, dims: &[usize]) -> R<Arc<Tensor>> {
    let signed: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let out = Arc::new(v::permute(x, &signed)?);
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "PermuteBackward0",
        Backward::Permute {
            dims: dims.to_vec(),
        },
        &[x],
    ))
}

/// `x.unsqueeze(dim)`.
pub fn unsqueeze(rt: &Runtime, mode: Mode, x: &Tensor, dim: i64) -> R<Arc<Tensor>> {
    let out = Arc::new(v::unsqueeze(x, dim)?);
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "UnsqueezeBackward0",
        Backward::Reshape,
        &[x],
    ))
}

/// `x.squeeze(dim)`.
pub fn squeeze(rt: &Runtime, mode: Mode, x: &Tensor, dim: i64) -> R<Arc<Tensor>> {
    let out = Arc::new(v::squeeze(x, Some(dim))?);
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "SqueezeBackward1",
        Backward::Reshape,
        &[x],
    ))
}

/// `x.contiguous()`: `x` itself when it is laid out contiguously, else a
/// copy (`CloneBackward0`).
pub fn contiguous(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>) -> R<Arc<Tensor>> {
    if x.is_contiguous() {
        return Ok(Arc::clone(x));
    }
    let out = rt.copy(x)?;
    record::copied(rt, mode, x, out, "CloneBackward0")
}

/// `x[i]`: the `i`-th slice along the first dimension (`SelectBackward0`).
pub fn select(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, i: i64) -> R<Arc<Tensor>> {
    let items = [Index::At(i)];
    let out = rt.index(x, &items)?;
    record::index(rt, mode, x, out, &items)
}

/// `x.split(sizes, dim)` (`SplitWithSizesBackward0`) or `x.chunk(n, dim)`
/// (`SplitBackward0`, `sizes` then the chunks' own): the parts as one
/// node's outputs.
pub fn split(
    rt: &Runtime,
    mode: Mode,
    x: &Tensor,
    sizes: &[i64],
    dim: usize,
    name: &'static str,
) -> R<Vec<Arc<Tensor>>> {
    let parts = v::split_sizes(x, sizes, dim as i64)?;
    let backward = Backward::Split {
        dim,
        sizes: sizes.iter().map(|&s| s as usize).collect(),
        stacked: false,
    };
    let parts = parts.into_iter().map(Arc::new).collect();
    Ok(record::attach_parts(rt, mode, x, parts, (name, backward)))
}

/// `x.as_strided(size, stride, storage_offset)`: a view of x's storage,
/// checked against the storage's size with PyTorch's message, recorded as
/// `AsStridedBackward0`. Its gradient is written back where the view lies
/// in x, which cudash does for a contiguous x the view stays within (PyTorch
/// also for other layouts: refused with a message).
pub fn as_strided(
    rt: &Runtime,
    mode: Mode,
    x: &Tensor,
    (size, stride, offset): (&[i64], &[i64], i64),
) -> R<Arc<Tensor>> {
    if size.len() != stride.len() {
        return Err(Error::runtime(format!(
            "mismatch in length of strides and shape: {} strides for {} sizes",
            stride.len(),
            size.len()
        )));
    }
    if size.iter().any(|&n| n < 0) {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={size:?} and strides={stride:?}"
        )));
    }
    if stride.iter().any(|&s| s < 0) {
        return Err(Error::runtime(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: {stride:?}"
        )));
    }
    if offset < 0 {
        return Err(Error::runtime(format!(
            "Tensor: invalid storage offset {offset}"
        )));
    }
    let shape: Vec<usize> = size.iter().map(|&n| n as usize).collect();
    let strides: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
    let offset = offset as usize;
    let numel: usize = shape.iter().product();
    // How far past its first element the view's last one lies.
    let last: usize = shape
        .iter()
        .zip(&strides)
        .map(|(&n, &s)| n.saturating_sub(1) * s as usize)
        .sum();
    if numel > 0 {
        let item = x.dtype().size();
        let needed = (offset + last + 1) * item;
        let has = x.storage_len() * item;
        if needed > has {
            return Err(Error::runtime(format!(
                "setStorage: sizes {size:?}, strides {stride:?}, storage offset {offset}, and \
                 itemsize {item} requiring a storage size of {needed} are out of bounds for \
                 storage of size {has}"
            )));
        }
    }
    let out = Arc::new(x.view(shape.clone(), strides.clone(), offset));
    // The view's place in x, for the gradient: x contiguous, the view
    // within it.
    let start = offset.checked_sub(x.offset());
    let end = start.map(|s| s + last);
    let within = x.is_contiguous() && matches!(end, Some(e) if numel == 0 || e < x.numel());
    if !within && record::recording(mode, &[x]) && x.dtype().is_float() {
        return Err(Error::not_implemented(
            "cudash differentiates as_strided() of a contiguous tensor the view stays within",
            "take the view of a tensor that requires no grad, or of x.contiguous()",
        ));
    }
    let view = super::node::Geometry {
        shape: shape.iter().copied().collect(),
        strides: strides.iter().copied().collect(),
        offset: start.unwrap_or(0),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "AsStridedBackward0",
        Backward::AsStrided { view },
        &[x],
    ))
}

/// `x.unfold(dim, size, step)`: a view of x's windows of `size` elements
/// along `dim`, `step` apart: `dim` counts the windows and a last dim of
/// `size` runs through each (a 0-d x gives one window of its element).
/// Recorded as `UnfoldBackward0`, whose gradient adds each window's back
/// into its places (overlapping windows add up), whatever x's layout.
pub fn unfold(
    rt: &Runtime,
    mode: Mode,
    x: &Tensor,
    dim: i64,
    size: i64,
    step: i64,
) -> R<Arc<Tensor>> {
    let nd = x.ndim();
    let d = crate::runtime::shape::norm_dim(dim, nd.max(1))?;
    let n = x.shape().get(d).copied().unwrap_or(1) as i64;
    if size > n {
        return Err(Error::runtime(format!(
            "maximum size for tensor at dimension {d} is {n} but size is {size}"
        )));
    }
    if size < 0 {
        return Err(Error::runtime(format!("size is {size} but must be >= 0")));
    }
    if step <= 0 {
        return Err(Error::runtime(format!("step is {step} but must be > 0")));
    }
    let (size, step) = (size as usize, step as usize);
    // The windows over a layout: x's own (the view) or a contiguous one of
    // x's shape (where the gradient is written back).
    let windows = |strides: &[isize]| -> (Vec<usize>, Vec<isize>) {
        let (mut shape, mut st) = (x.shape().to_vec(), strides.to_vec());
        if nd == 0 {
            return (vec![size], vec![1]);
        }
        let along = st[d];
        shape[d] = (shape[d] - size) / step + 1;
        st[d] = along * step as isize;
        shape.push(size);
        st.push(along);
        (shape, st)
    };
    let (shape, strides) = windows(x.strides());
    let out = Arc::new(x.view(shape, strides, x.offset()));
    let (shape, strides) = windows(&crate::runtime::shape::contiguous_strides(x.shape()));
    let view = super::node::Geometry {
        shape: shape.into_iter().collect(),
        strides: strides.into_iter().collect(),
        offset: 0,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "UnfoldBackward0",
        Backward::AsStrided { view },
        &[x],
    ))
}
