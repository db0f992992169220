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
    let name = match out.shares_storage(x) {
        true => "ViewBackward0",
        false => "UnsafeViewBackward0",
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        name,
        Backward::Reshape,
        &[x],
    ))
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
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "RepeatBackward0",
        backward,
        &[x],
    ))
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
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "CloneBackward0",
        Backward::Identity,
        &[x],
    ))
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
