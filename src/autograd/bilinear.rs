//! `F.bilinear(x1, x2, weight, bias)` as PyTorch computes and records it:
//! each input viewed as rows (`ViewBackward0`), `_trilinear`
//! (`TrilinearBackward0`: `y[b, o] = Σ_ij x1[b, i] w[o, i, j] x2[b, j]`,
//! the sum over `i` first, then over `j`), viewed in the inputs' shape
//! (`ViewBackward0`), then the bias added (`AddBackward0`).

use std::sync::Arc;

use super::meta::requires_grad;
use super::node::{Backward, Grads, Saved};
use super::ops::bin;
use super::{record, views, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `bilinear(x1, x2, w, b)`: `x1` [..., I], `x2` [..., J], `w` [O, I, J],
/// `b` [O]: [..., O].
pub fn bilinear(
    rt: &mut Runtime,
    mode: Mode,
    (x1, x2): (&Arc<Tensor>, &Arc<Tensor>),
    w: &Arc<Tensor>,
    b: Option<&Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    let [o, i, j] = *w.shape() else {
        return Err(Error::shape(format!(
            "bilinear(): weight must be 3-dimensional, not of shape {}",
            fmt_shape(w.shape())
        )));
    };
    let (n1, n2) = (x1.ndim(), x2.ndim());
    if n1 != n2 || n1 == 0 {
        return Err(Error::runtime(format!(
            "bilinear(): input dimensions do not match: got {n1} and {n2}"
        )));
    }
    if x1.shape()[..n1 - 1] != x2.shape()[..n2 - 1] {
        return Err(Error::shape(format!(
            "bilinear(): input batch dimensions do not match: got {} and {}",
            fmt_shape(&x1.shape()[..n1.max(1) - 1]),
            fmt_shape(&x2.shape()[..n2.max(1) - 1])
        )));
    }
    if x1.shape()[n1 - 1] != i || x2.shape()[n2 - 1] != j {
        return Err(Error::shape(format!(
            "bilinear(): input sizes do not match: the weight takes {i} and {j} features, the inputs have {} and {}",
            x1.shape()[n1 - 1],
            x2.shape()[n2 - 1]
        )));
    }
    let rows1 = views::reshape(rt, mode, x1, &[-1, i as i64])?;
    let rows2 = views::reshape(rt, mode, x2, &[-1, j as i64])?;
    let y = trilinear(rt, mode, &rows1, w, &rows2)?;
    let mut shape: Vec<i64> = x1.shape()[..n1 - 1].iter().map(|&d| d as i64).collect();
    shape.push(o as i64);
    let y = views::reshape(rt, mode, &y, &shape)?;
    match b {
        Some(b) => record::binary(
            rt,
            mode,
            BinaryOp::Add,
            Operand::strong(&y),
            Operand::strong(b),
        ),
        None => Ok(y),
    }
}

/// `_trilinear` of rows `x1` [B, I], `w` [O, I, J], rows `x2` [B, J].
fn trilinear(rt: &mut Runtime, mode: Mode, x1: &Tensor, w: &Tensor, x2: &Tensor) -> R<Arc<Tensor>> {
    let y = forward(rt, x1, w, x2)?;
    let (r1, rw, r2) = (requires_grad(x1), requires_grad(w), requires_grad(x2));
    let backward = Backward::Trilinear {
        x1: (rw || r2).then(|| Saved::new(x1)),
        w: (r1 || r2).then(|| Saved::new(w)),
        x2: (r1 || rw).then(|| Saved::new(x2)),
    };
    Ok(record::attach_node(
        rt,
        mode,
        y,
        "TrilinearBackward0",
        backward,
        &[x1, w, x2],
    ))
}

/// `Σ_j (Σ_i x1[b, i] w[o, i, j]) x2[b, j]`.
fn forward(rt: &mut Runtime, x1: &Tensor, w: &Tensor, x2: &Tensor) -> R<Arc<Tensor>> {
    let t = x1_times_w(rt, x1, w)?;
    let col = view::unsqueeze(x2, -1)?;
    let y = rt.matmul(&t, &col)?;
    Ok(Arc::new(view::squeeze(&y, Some(-1))?))
}

/// `Σ_i x1[b, i] w[o, i, j]`: [B, O, J] (the sum over the first input's
/// features, which the forward makes first and `x2`'s gradient needs).
fn x1_times_w(rt: &mut Runtime, x1: &Tensor, w: &Tensor) -> R<Arc<Tensor>> {
    let [o, i, j] = *w.shape() else {
        return Err(Error::shape("trilinear: weight must be 3-dimensional"));
    };
    let (o, i, j) = (o as i64, i as i64, j as i64);
    // [I, O * J]: w with its input dimension first.
    let wi = rt.copy(&view::permute(w, &[1, 0, 2])?)?;
    let wi = rt.reshape(&wi, &[i, o * j])?;
    let t = rt.matmul(x1, &wi)?;
    rt.reshape(&t, &[-1, o, j])
}

/// `TrilinearBackward0`: the gradients of `x1`, `w` and `x2` (each where
/// wanted) from `g` [B, O].
pub fn backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x1, w, x2): (Option<&Tensor>, Option<&Tensor>, Option<&Tensor>),
    wants: (bool, bool, bool),
) -> R<Grads> {
    let g_row = Arc::new(view::unsqueeze(g, 1)?);
    // x1: Σ_o g[b, o] (Σ_j w[o, i, j] x2[b, j]).
    let g1 = match (wants.0, w, x2) {
        (true, Some(w), Some(x2)) => {
            let [o, i, j] = *w.shape() else {
                return Err(Error::shape("trilinear: weight must be 3-dimensional"));
            };
            let wj = rt.reshape(&Arc::new(w.alias()), &[(o * i) as i64, j as i64])?;
            let a = rt.matmul(x2, &view::matrix_transpose(&wj)?)?;
            let a = rt.reshape(&a, &[-1, o as i64, i as i64])?;
            let r = rt.matmul(&g_row, &a)?;
            Some(Arc::new(view::squeeze(&r, Some(1))?))
        }
        _ => None,
    };
    // w: Σ_b g[b, o] x1[b, i] x2[b, j].
    let gw = match (wants.1, x1, x2) {
        (true, Some(x1), Some(x2)) => {
            let (i, j) = (x1.shape()[1] as i64, x2.shape()[1] as i64);
            let outer = bin(
                rt,
                BinaryOp::Mul,
                &view::unsqueeze(x1, 2)?,
                &view::unsqueeze(x2, 1)?,
            )?;
            let outer = rt.reshape(&outer, &[-1, i * j])?;
            let r = rt.matmul(&view::matrix_transpose(g)?, &outer)?;
            Some(rt.reshape(&r, &[-1, i, j])?)
        }
        _ => None,
    };
    // x2: Σ_o g[b, o] (Σ_i x1[b, i] w[o, i, j]).
    let g2 = match (wants.2, x1, w) {
        (true, Some(x1), Some(w)) => {
            let c = x1_times_w(rt, x1, w)?;
            let r = rt.matmul(&g_row, &c)?;
            Some(Arc::new(view::squeeze(&r, Some(1))?))
        }
        _ => None,
    };
    Ok(vec![g1, gw, g2])
}
