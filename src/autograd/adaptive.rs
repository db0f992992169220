//! `adaptive_avg_pool2d` and `adaptive_max_pool2d` to an output size that
//! does not divide the input (VGG's `AdaptiveAvgPool2d((7, 7))` of a 32 x
//! 32 image's 1 x 1 features, `interpolate(mode="area")` by an uneven
//! factor): PyTorch's windows, `start = floor(i * in / out)` to `end =
//! ceil((i + 1) * in / out)`. An average is the sum of its window's
//! elements row by row from 0, divided by the window's height and then its
//! width, as PyTorch's CPU kernel computes it (in f32 for halves), recorded
//! as `AdaptiveAvgPool2DBackward0`, whose gradient spreads `g / kh / kw`
//! over each window; a maximum is the window's first largest element (a
//! NaN over any number), recorded as `AdaptiveMaxPool2DBackward0` with its
//! place, where its gradient goes.
//!
//! Built of the op layer's indexing, `where` and arithmetic (one gather
//! per offset in the largest window), so it runs on every backend.

use std::sync::Arc;

use super::node::Backward;
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::window::AdaptiveWindows;
use crate::runtime::{DType, Device, Tensor};

type R<T> = Result<T, Error>;

/// Offset `(a, b)` of each window: the rows [oh, 1] and columns [1, ow]
/// it reads (clamped into the image where the window is shorter) and
/// which outputs it is inside of ([oh, ow]).
fn offset(
    rt: &mut Runtime,
    windows: &AdaptiveWindows,
    (a, b): (usize, usize),
    device: Device,
) -> R<Offset> {
    let (oh, ow) = windows.out();
    let (h, w) = windows.input;
    let row: Vec<i64> = windows
        .rows
        .starts
        .iter()
        .map(|&s| (s + a).min(h - 1) as i64)
        .collect();
    let col: Vec<i64> = windows
        .cols
        .starts
        .iter()
        .map(|&s| (s + b).min(w - 1) as i64)
        .collect();
    let inside: Vec<bool> = (0..oh * ow)
        .map(|k| a < windows.rows.lengths[k / ow] && b < windows.cols.lengths[k % ow])
        .collect();
    Ok(Offset {
        rows: rt.tensor(&Tensor::from_vec(row, vec![oh, 1]), DType::I64, device)?,
        cols: rt.tensor(&Tensor::from_vec(col, vec![1, ow]), DType::I64, device)?,
        inside: rt.tensor(&Tensor::from_vec(inside, vec![oh, ow]), DType::Bool, device)?,
    })
}

/// Each output's window height [oh, 1] and width [1, ow], in `dtype`.
fn extents(
    rt: &mut Runtime,
    windows: &AdaptiveWindows,
    dtype: DType,
    device: Device,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let (oh, ow) = windows.out();
    let kh: Vec<f64> = windows.rows.lengths.iter().map(|&k| k as f64).collect();
    let kw: Vec<f64> = windows.cols.lengths.iter().map(|&k| k as f64).collect();
    Ok((
        rt.tensor(&Tensor::from_vec(kh, vec![oh, 1]), dtype, device)?,
        rt.tensor(&Tensor::from_vec(kw, vec![1, ow]), dtype, device)?,
    ))
}

struct Offset {
    rows: Arc<Tensor>,
    cols: Arc<Tensor>,
    inside: Arc<Tensor>,
}

impl Offset {
    fn items(&self) -> [Index; 4] {
        let all = || Index::Slice(None, None, None);
        [
            all(),
            all(),
            Index::Tensor(Arc::clone(&self.rows)),
            Index::Tensor(Arc::clone(&self.cols)),
        ]
    }
}

/// An unbatched image [C, H, W] as a batch of one (a view).
fn batched(x: &Arc<Tensor>) -> R<Arc<Tensor>> {
    match x.ndim() {
        3 => Ok(Arc::new(crate::runtime::op::view::unsqueeze(x, 0)?)),
        _ => Ok(Arc::clone(x)),
    }
}

/// A batch of one back without the batch when the input (of `ndim`
/// dimensions) had none.
fn unbatched(t: Arc<Tensor>, ndim: usize) -> R<Arc<Tensor>> {
    match ndim {
        3 => Ok(Arc::new(crate::runtime::op::view::squeeze(&t, Some(0))?)),
        _ => Ok(t),
    }
}

/// `t` in `dtype` (itself when it is in it already).
fn in_dtype(rt: &mut Runtime, t: Arc<Tensor>, dtype: DType) -> R<Arc<Tensor>> {
    match t.dtype() == dtype {
        true => Ok(t),
        false => rt.cast(&t, dtype),
    }
}

/// What a gradient is accumulated in (`index_put_add` takes f32 and f64).
fn grad_dtype(dtype: DType) -> DType {
    match dtype {
        DType::F64 => DType::F64,
        _ => DType::F32,
    }
}

/// What PyTorch computes a half's windows in.
fn opmath(dtype: DType) -> DType {
    match dtype {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    }
}

fn bin(rt: &mut Runtime, op: BinaryOp, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    rt.binary(op, Operand::strong(a), Operand::strong(b))
}

/// `x` [N, C, H, W] (or [C, H, W]) pooled to `out`, recorded.
pub fn adaptive_avg_pool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    out: (usize, usize),
) -> R<Arc<Tensor>> {
    let y = pool_node(rt, mode, x, out)?;
    // Forward-mode AD: linear in x, so the tangent pooled alike.
    forward_ad::carry_one(rt, Arc::clone(&y), x, |rt, t| pool_node(rt, mode, t, out))
}

fn pool_node(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, out: (usize, usize)) -> R<Arc<Tensor>> {
    let nd = x.ndim();
    let windows = AdaptiveWindows::new((x.shape()[nd - 2], x.shape()[nd - 1]), out);
    let y = pooled(rt, x, &windows)?;
    let y = super::conv::in_format_of(rt, x, y)?;
    let backward = Backward::AdaptiveAvg {
        windows,
        input: x.shape().to_vec(),
    };
    Ok(attach_node(
        rt,
        mode,
        y,
        "AdaptiveAvgPool2DBackward0",
        backward,
        &[x],
    ))
}

/// The pooling alone, nothing recorded.
fn pooled(rt: &mut Runtime, x: &Arc<Tensor>, windows: &AdaptiveWindows) -> R<Arc<Tensor>> {
    let acc = opmath(x.dtype());
    let x4 = in_dtype(rt, batched(x)?, acc)?;
    let (n, c) = (x4.shape()[0], x4.shape()[1]);
    let (oh, ow) = windows.out();
    let zero = Tensor::scalar(0.0f64);
    let mut sum = super::ops::full(rt, &[n, c, oh, ow], acc, x.device(), 0)?;
    for at in windows.offsets() {
        let offset = offset(rt, windows, at, x.device())?;
        let plane = rt.index(&x4, &offset.items())?;
        let kept = rt.ternary(
            TernaryOp::Where,
            Operand::strong(&offset.inside),
            Operand::strong(&plane),
            Operand::weak(&zero),
        )?;
        sum = bin(rt, BinaryOp::Add, &sum, &kept)?;
    }
    let (kh, kw) = extents(rt, windows, acc, x.device())?;
    let mean = bin(rt, BinaryOp::Div, &sum, &kh)?;
    let mean = bin(rt, BinaryOp::Div, &mean, &kw)?;
    let mean = in_dtype(rt, mean, x.dtype())?;
    unbatched(mean, x.ndim())
}

/// `adaptive_max_pool2d` of `x` to `out` over uneven or overlapping
/// windows: each window's largest element (the first of equal ones, a NaN
/// over any number, as PyTorch's kernel), recorded as
/// `AdaptiveMaxPool2DBackward0` keeping where each came from.
pub fn adaptive_max_pool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    out: (usize, usize),
) -> R<Arc<Tensor>> {
    let nd = x.ndim();
    let windows = AdaptiveWindows::new((x.shape()[nd - 2], x.shape()[nd - 1]), out);
    let (y, places) = maxima(rt, x, &windows)?;
    let y = super::conv::in_format_of(rt, x, y)?;
    let backward = Backward::AdaptiveMax {
        which: super::node::Saved::new(&places),
        input: x.shape().to_vec(),
    };
    let y = attach_node(rt, mode, y, "AdaptiveMaxPool2DBackward0", backward, &[x]);
    // Forward-mode AD: the tangent read at the maxima's places.
    forward_ad::carry_one(rt, Arc::clone(&y), x, |rt, t| {
        super::conv::at_places(rt, mode, t, &places)
    })
}

/// Each window's maximum and its place `h * W + w` in its plane.
fn maxima(
    rt: &mut Runtime,
    x: &Arc<Tensor>,
    windows: &AdaptiveWindows,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let x4 = batched(x)?;
    let w = windows.input.1 as i64;
    let mut best: Option<(Arc<Tensor>, Arc<Tensor>)> = None;
    for at in windows.offsets() {
        let offset = offset(rt, windows, at, x.device())?;
        let plane = rt.index(&x4, &offset.items())?;
        // This offset's places in the plane: row * W + column.
        let width = Tensor::scalar(w);
        let rows = rt.binary(
            BinaryOp::Mul,
            Operand::strong(&offset.rows),
            Operand::weak(&width),
        )?;
        let place = bin(rt, BinaryOp::Add, &rows, &offset.cols)?;
        let Some((top, where_)) = best.take() else {
            // Offset (0, 0) is inside every window.
            let place = rt.copy(&crate::runtime::op::view::expand(
                &place,
                plane
                    .shape()
                    .iter()
                    .map(|&n| n as i64)
                    .collect::<Vec<_>>()
                    .as_slice(),
            )?)?;
            best = Some((plane, place));
            continue;
        };
        let larger = bin(rt, BinaryOp::Gt, &plane, &top)?;
        let nan = rt.binary(
            BinaryOp::Ne,
            Operand::strong(&plane),
            Operand::strong(&plane),
        )?;
        let either = bin(rt, BinaryOp::BitOr, &larger, &nan)?;
        let take = bin(rt, BinaryOp::BitAnd, &either, &offset.inside)?;
        let top = rt.ternary(
            TernaryOp::Where,
            Operand::strong(&take),
            Operand::strong(&plane),
            Operand::strong(&top),
        )?;
        let where_ = rt.ternary(
            TernaryOp::Where,
            Operand::strong(&take),
            Operand::strong(&place),
            Operand::strong(&where_),
        )?;
        best = Some((top, where_));
    }
    let (top, places) = best.ok_or_else(|| Error::value("adaptive_max_pool2d: an empty output"))?;
    Ok((unbatched(top, x.ndim())?, unbatched(places, x.ndim())?))
}

/// The gradient of an adaptive max pool's input (of shape `input`): each
/// output's `g` added at its maximum's place.
pub fn adaptive_max_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    places: &Arc<Tensor>,
    input: &[usize],
) -> R<Arc<Tensor>> {
    let nd = input.len();
    let planes: usize = input[..nd - 2].iter().product();
    let per = input[nd - 2] * input[nd - 1];
    let dtype = g.dtype();
    let g = in_dtype(rt, Arc::clone(g), grad_dtype(dtype))?;
    let gx = super::ops::full(rt, &[planes * per], g.dtype(), g.device(), 0)?;
    let out = g.numel() / planes.max(1);
    let base = super::ops::positions(rt, planes, 0, 2, g.device())?;
    let step = Tensor::scalar(per as i64);
    let base = rt.binary(BinaryOp::Mul, Operand::strong(&base), Operand::weak(&step))?;
    let at = rt.reshape(places, &[planes as i64, out as i64])?;
    let at = bin(rt, BinaryOp::Add, &at, &base)?;
    let at = rt.reshape(&at, &[-1])?;
    let values = rt.reshape(&g, &[-1])?;
    rt.index_put_add(&gx, &[Index::Tensor(at)], &values)?;
    let gx = in_dtype(rt, gx, dtype)?;
    let shape: Vec<i64> = input.iter().map(|&n| n as i64).collect();
    rt.reshape(&gx, &shape)
}

/// The gradient of the input (of shape `input`): `g / kh / kw` added at
/// every place of each output's window.
pub fn adaptive_avg_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    windows: &AdaptiveWindows,
    input: &[usize],
) -> R<Arc<Tensor>> {
    let acc = grad_dtype(g.dtype());
    let g4 = in_dtype(rt, batched(g)?, acc)?;
    let (kh, kw) = extents(rt, windows, acc, g.device())?;
    let share = bin(rt, BinaryOp::Div, &g4, &kh)?;
    let share = bin(rt, BinaryOp::Div, &share, &kw)?;
    let (h, w) = windows.input;
    let (n, c) = (g4.shape()[0], g4.shape()[1]);
    let gx = super::ops::full(rt, &[n, c, h, w], acc, g.device(), 0)?;
    let zero = Tensor::scalar(0.0f64);
    for at in windows.offsets() {
        let offset = offset(rt, windows, at, g.device())?;
        let kept = rt.ternary(
            TernaryOp::Where,
            Operand::strong(&offset.inside),
            Operand::strong(&share),
            Operand::weak(&zero),
        )?;
        rt.index_put_add(&gx, &offset.items(), &kept)?;
    }
    let gx = in_dtype(rt, gx, g.dtype())?;
    unbatched(gx, input.len())
}

#[cfg(test)]
mod tests {
    use crate::runtime::op::window::Spans;

    /// PyTorch's windows: down by an uneven factor they overlap, up they
    /// repeat the input's places.
    #[test]
    fn windows_are_pytorchs() {
        let down = Spans::new(5, 3);
        assert_eq!(down.starts, [0, 1, 3]);
        assert_eq!(down.lengths, [2, 3, 2]);
        let up = Spans::new(1, 7);
        assert_eq!(up.starts, [0; 7]);
        assert_eq!(up.lengths, [1; 7]);
        let up = Spans::new(2, 3);
        assert_eq!(up.starts, [0, 0, 1]);
        assert_eq!(up.lengths, [1, 2, 1]);
    }
}
