//! `torch.dist` (`DistBackward0`) and `torch.cdist` (`CdistBackward0`):
//! p-norms of differences, computed as PyTorch defines them, and their
//! gradients as `derivatives.yaml` gives them (a norm's gradient of the
//! difference: `+` for the first operand, `-` for the second, summed to
//! each operand's shape).

use std::sync::Arc;

use super::node::{Backward, Grads, Saved};
use super::ops::{bin, bin_s, full_like};
use super::reductions;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `torch.dist(x, y, p)`: the p-norm of `x - y` (broadcast), one number.
pub fn dist(rt: &mut Runtime, mode: Mode, x: &Tensor, y: &Tensor, p: f64) -> R<Arc<Tensor>> {
    let diff = bin(rt, BinaryOp::Sub, x, y)?;
    let out = rt.along(AlongOp::Norm, p, &diff, None, false)?;
    let backward = Backward::Dist {
        diff: Saved::new(&diff),
        out: Saved::output(&out),
        p,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "DistBackward0",
        backward,
        &[x, y],
    ))
}

/// `torch.cdist(x1, x2, p)`: the p-norm distance of every row of `x1`
/// ([..., r1, m]) to every row of `x2` ([..., r2, m]), [..., r1, r2].
pub fn cdist(rt: &mut Runtime, mode: Mode, x1: &Tensor, x2: &Tensor, p: f64) -> R<Arc<Tensor>> {
    if x1.ndim() < 2 || x2.ndim() < 2 {
        return Err(Error::shape(format!(
            "cdist only supports at least 2D tensors, X{} got: {}D",
            if x1.ndim() < 2 { 1 } else { 2 },
            x1.ndim().min(x2.ndim())
        )));
    }
    let (m1, m2) = (x1.shape()[x1.ndim() - 1], x2.shape()[x2.ndim() - 1]);
    if m1 != m2 {
        return Err(Error::shape(format!(
            "X1 and X2 must have the same number of columns. X1: {m1} X2: {m2}"
        )));
    }
    if p < 0.0 {
        return Err(Error::value("cdist only supports non-negative p values"));
    }
    let (r1, r2) = (x1.shape()[x1.ndim() - 2], x2.shape()[x2.ndim() - 2]);
    if p == 2.0 && (r1 > 25 || r2 > 25) {
        return euclidean(rt, mode, x1, x2);
    }
    let diff = differences(rt, x1, x2)?;
    let out = rt.along(AlongOp::Norm, p, &diff, Some(-1), false)?;
    drop(diff);
    let backward = Backward::Cdist {
        x1: Saved::new(x1),
        x2: Saved::new(x2),
        out: Saved::output(&out),
        p,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "CdistBackward0",
        backward,
        &[x1, x2],
    ))
}

/// PyTorch's `cdist` of more than 25 rows with `p = 2`: through a matrix
/// product (`_euclidean_dist`: `[-2 x1, |x1|², 1] @ [x2, 1, |x2|²]^T`,
/// clamped at 0, square-rooted; `EuclideanDistBackward0`), then viewed in
/// the result's shape (`ViewBackward0`). Batched operands are first
/// expanded to a common batch and viewed as one batch of matrices
/// (`ExpandBackward0`, `CloneBackward0` when that copies, `ViewBackward0`),
/// as PyTorch's `cdist_impl` records them. Its numbers can differ from
/// the direct ones in the last places, as PyTorch's do.
fn euclidean(rt: &mut Runtime, mode: Mode, x1: &Tensor, x2: &Tensor) -> R<Arc<Tensor>> {
    let (r1, r2) = (x1.shape()[x1.ndim() - 2], x2.shape()[x2.ndim() - 2]);
    if x1.ndim() == 2 && x2.ndim() == 2 {
        let out = euclidean_dist(rt, mode, x1, x2)?;
        return super::views::view(rt, mode, &out, &[r1 as i64, r2 as i64]);
    }
    let (b1, b2) = (&x1.shape()[..x1.ndim() - 2], &x2.shape()[..x2.ndim() - 2]);
    let batch = crate::runtime::shape::broadcast_shapes(b1, b2).ok_or_else(|| {
        Error::shape(format!(
            "cdist(): the batch shapes of {} and {} do not broadcast",
            fmt_shape(x1.shape()),
            fmt_shape(x2.shape())
        ))
    })?;
    let n: usize = batch.iter().product();
    let batches = |rt: &mut Runtime, x: &Tensor| -> R<Arc<Tensor>> {
        let (r, m) = (
            x.shape()[x.ndim() - 2] as i64,
            x.shape()[x.ndim() - 1] as i64,
        );
        let mut full: Vec<i64> = batch.iter().map(|&d| d as i64).collect();
        full.extend([r, m]);
        let expanded = Arc::new(view::expand(x, &full)?);
        let expanded = record::attach_node(
            rt,
            mode,
            expanded,
            "ExpandBackward0",
            Backward::Expand,
            &[x],
        );
        let dense = super::views::contiguous(rt, mode, &expanded)?;
        super::views::view(rt, mode, &dense, &[n as i64, r, m])
    };
    let (a, b) = (batches(rt, x1)?, batches(rt, x2)?);
    let out = euclidean_dist(rt, mode, &a, &b)?;
    let mut shape: Vec<i64> = batch.iter().map(|&d| d as i64).collect();
    shape.extend([r1 as i64, r2 as i64]);
    super::views::view(rt, mode, &out, &shape)
}

/// PyTorch's `_euclidean_dist(x1, x2)` of matrices or one batch of them.
fn euclidean_dist(rt: &mut Runtime, mode: Mode, x1: &Tensor, x2: &Tensor) -> R<Arc<Tensor>> {
    let squares = |rt: &mut Runtime, x: &Tensor| -> R<Arc<Tensor>> {
        let sq = bin(rt, BinaryOp::Mul, x, x)?;
        rt.reduce_dims(ReduceOp::Sum, &sq, &[-1], true)
    };
    let (n1, n2) = (squares(rt, x1)?, squares(rt, x2)?);
    let (one1, one2) = (full_like(rt, &n1, 1)?, full_like(rt, &n2, 1)?);
    let m1 = bin_s(rt, BinaryOp::Mul, x1, -2.0)?;
    let a = rt.join(&[&m1, &n1, &one1], -1, false)?;
    let b = rt.join(&[x2, &one2, &n2], -1, false)?;
    drop((m1, n1, n2, one1, one2));
    let product = rt.matmul(&a, &view::matrix_transpose(&b)?)?;
    drop((a, b));
    let clamped = bin_s(rt, BinaryOp::Maximum, &product, 0.0)?;
    let out = rt.unary(UnaryOp::Sqrt, &clamped)?;
    let backward = Backward::EuclideanDist {
        x1: Saved::new(x1),
        x2: Saved::new(x2),
        out: Saved::output(&out),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "EuclideanDistBackward0",
        backward,
        &[x1, x2],
    ))
}

/// `EuclideanDistBackward0` (PyTorch's `_euclidean_dist_backward`):
/// `ratio = g / d` (0 where `d` is 0); `x1 * ratio.sum(-1) - ratio @ x2`
/// and `x2 * ratio.sum(-2) - ratio^T @ x1`.
pub fn euclidean_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x1, x2, out): (&Tensor, &Tensor, &Tensor),
) -> R<Grads> {
    let ratio = bin(rt, BinaryOp::Div, g, out)?;
    let on = bin_s(rt, BinaryOp::Ne, out, 0.0)?;
    let ratio = super::ops::masked(rt, &on, &ratio)?;
    let rows = rt.reduce_dims(ReduceOp::Sum, &ratio, &[-1], true)?;
    let a = bin(rt, BinaryOp::Mul, x1, &rows)?;
    let b = rt.matmul(&ratio, x2)?;
    let g1 = bin(rt, BinaryOp::Sub, &a, &b)?;
    let cols = rt.reduce_dims(ReduceOp::Sum, &ratio, &[-2], false)?;
    let cols = view::unsqueeze(&cols, -1)?;
    let a = bin(rt, BinaryOp::Mul, x2, &cols)?;
    let b = rt.matmul(&view::matrix_transpose(&ratio)?, x1)?;
    let g2 = bin(rt, BinaryOp::Sub, &a, &b)?;
    Ok(vec![Some(g1), Some(g2)])
}

/// `x1[..., :, None, :] - x2[..., None, :, :]`: [..., r1, r2, m].
fn differences(rt: &mut Runtime, x1: &Tensor, x2: &Tensor) -> R<Arc<Tensor>> {
    let a = view::unsqueeze(x1, -2)?;
    let b = view::unsqueeze(x2, -3)?;
    bin(rt, BinaryOp::Sub, &a, &b).map_err(|e| match e {
        Error::Shape { .. } => Error::shape(format!(
            "cdist(): the batch shapes of {} and {} do not broadcast",
            fmt_shape(x1.shape()),
            fmt_shape(x2.shape())
        )),
        other => other,
    })
}

/// `DistBackward0`: the norm's gradient of the difference, for `x` and
/// (negated) for `y`.
pub fn dist_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (diff, out, p): (&Tensor, &Tensor, f64),
) -> R<Grads> {
    let dims: Vec<usize> = (0..diff.ndim()).collect();
    let (diff, out) = (Arc::new(diff.alias()), Arc::new(out.alias()));
    let gx = reductions::norm(rt, Mode::off(), g, (&diff, &out), (p, &dims, false))?;
    let gy = rt.unary(UnaryOp::Neg, &gx)?;
    Ok(vec![Some(gx), Some(gy)])
}

/// `CdistBackward0`: the norm's gradient of each difference, summed over
/// the other operand's rows.
pub fn cdist_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x1, x2, out, p): (&Tensor, &Tensor, &Tensor, f64),
) -> R<Grads> {
    let diff = differences(rt, x1, x2)?;
    let last = diff.ndim() - 1;
    let out = Arc::new(out.alias());
    let each = reductions::norm(rt, Mode::off(), g, (&diff, &out), (p, &[last], false))?;
    drop(diff);
    let g1 = rt.reduce_dims(ReduceOp::Sum, &each, &[-2], false)?;
    let g2 = rt.reduce_dims(ReduceOp::Sum, &each, &[-3], false)?;
    let g2 = rt.unary(UnaryOp::Neg, &g2)?;
    Ok(vec![Some(g1), Some(g2)])
}
