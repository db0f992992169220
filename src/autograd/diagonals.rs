//! Diagonals as PyTorch computes and records them: `diagonal` (a view,
//! `DiagonalBackward0`), `diag` of a matrix (that view copied,
//! `DiagonalBackward0_copy`), `diag_embed` and `diag` of a vector (zeros
//! with the input laid on a diagonal, `DiagEmbedBackward0`) and `trace`
//! (`TraceBackward0`).

use std::sync::Arc;

use super::node::Backward;
use super::ops::full;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::view;
use crate::runtime::shape::norm_dim;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `x.diagonal(offset, dim1, dim2)`: a view of `x`.
pub fn diagonal(rt: &Runtime, mode: Mode, x: &Tensor, dims: (i64, i64, i64)) -> R<Arc<Tensor>> {
    let (offset, dim1, dim2) = dims;
    let out = Arc::new(view::diagonal(x, offset, dim1, dim2)?);
    let backward = Backward::Diagonal { offset, dim1, dim2 };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "DiagonalBackward0",
        backward,
        &[x],
    ))
}

/// `torch.diag(x, diagonal)`: a vector's square matrix with it on that
/// diagonal, or a matrix's diagonal as a new vector.
pub fn diag(rt: &mut Runtime, mode: Mode, x: &Tensor, offset: i64) -> R<Arc<Tensor>> {
    match x.ndim() {
        1 => diag_embed(rt, mode, x, (offset, 0, 1)),
        2 => {
            let out = rt.copy(&view::diagonal(x, offset, 0, 1)?)?;
            let backward = Backward::Diagonal {
                offset,
                dim1: 0,
                dim2: 1,
            };
            Ok(record::attach_node(
                rt,
                mode,
                out,
                "DiagonalBackward0_copy",
                backward,
                &[x],
            ))
        }
        n => Err(Error::shape(format!(
            "diag(): Supports 1D or 2D tensors. Got {n}D"
        ))),
    }
}

/// `torch.diag_embed(x, offset, dim1, dim2)`: zeros with one more
/// dimension than `x`, `x`'s last dimension laid on the diagonal of the
/// planes of `dim1` and `dim2` (counted in the result's dimensions).
pub fn diag_embed(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    dims: (i64, i64, i64),
) -> R<Arc<Tensor>> {
    let (offset, dim1, dim2) = dims;
    let ndim = x.ndim() + 1;
    let (d1, d2) = (norm_dim(dim1, ndim)?, norm_dim(dim2, ndim)?);
    let Some((&n, batch)) = x.shape().split_last() else {
        return Err(Error::shape(
            "diag_embed() needs at least one dimension, and this tensor has none",
        ));
    };
    if d1 == d2 {
        return Err(Error::shape(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let m = n + offset.unsigned_abs() as usize;
    let mut shape = batch.to_vec();
    shape.insert(d1.min(d2), m);
    shape.insert(d1.max(d2), m);
    let out = full(rt, &shape, x.dtype(), x.device(), 0)?;
    rt.assign(&view::diagonal(&out, offset, dim1, dim2)?, x)?;
    let backward = Backward::DiagEmbed { offset, dim1, dim2 };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "DiagEmbedBackward0",
        backward,
        &[x],
    ))
}

/// `x.trace()`: the sum of a matrix's main diagonal.
pub fn trace(rt: &mut Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    if x.ndim() != 2 {
        return Err(Error::shape(format!(
            "trace: expected a matrix, but got tensor with dim {}",
            x.ndim()
        )));
    }
    let out = rt.reduce(ReduceOp::Sum, &view::diagonal(x, 0, 0, 1)?, None, false)?;
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "TraceBackward0",
        Backward::Trace,
        &[x],
    ))
}

/// The gradient of a diagonal: zeros of the input's `shape` with `g` laid
/// on the diagonal `(offset, dim1, dim2)`.
pub fn laid_on(
    rt: &mut Runtime,
    g: &Tensor,
    shape: &[usize],
    (offset, dim1, dim2): (i64, i64, i64),
) -> R<Arc<Tensor>> {
    let zeros = full(rt, shape, g.dtype(), g.device(), 0)?;
    rt.assign(&view::diagonal(&zeros, offset, dim1, dim2)?, g)?;
    Ok(zeros)
}
