//! `F.unfold(x, kernel_size, dilation, padding, stride)`: an image's
//! sliding windows laid out as columns [N, C * kh * kw, L] (im2col), one
//! copy recorded as `Im2ColBackward0`; and `F.fold`, its adjoint: columns
//! added back into the places of an image their windows cover (col2im),
//! `Col2ImBackward0`. Each one's gradient is the other of `g`. An
//! unbatched input (3-D for unfold, 2-D for fold) is one image.

use std::sync::Arc;

use super::node::Backward;
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
pub use crate::runtime::op::window::Windows;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

fn pair((a, b): (usize, usize)) -> String {
    format!("({a}, {b})")
}

fn contiguous(rt: &mut Runtime, t: &Arc<Tensor>) -> R<Arc<Tensor>> {
    match t.is_contiguous() {
        true => Ok(Arc::clone(t)),
        false => rt.copy(t),
    }
}

/// `x` [N, C, H, W] (or [C, H, W]) as columns, nothing recorded.
pub fn im2col(rt: &mut Runtime, x: &Arc<Tensor>, win: Windows) -> R<Arc<Tensor>> {
    if !matches!(x.ndim(), 3 | 4) {
        // PyTorch 2.15 reads dim 2 of the input first.
        crate::runtime::shape::norm_dim(2, x.ndim())?;
        return Err(Error::runtime(format!(
            "Input Error: Only 3D or 4D input Tensors are supported (got {}D)",
            x.ndim()
        )));
    }
    win.check()?;
    let nd = x.ndim();
    let (h, w) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let (oh, ow) = win.blocks((h, w));
    if oh < 1 || ow < 1 {
        return Err(Error::runtime(format!(
            "Given input with spatial size {}, kernel_size={}, dilation={}, padding={}, calculated shape of the array of sliding blocks as ({oh}, {ow}), but its components must be at least one.",
            pair((h, w)),
            pair(win.kernel),
            pair(win.dilation),
            pair(win.padding)
        )));
    }
    let batched = match nd {
        4 => contiguous(rt, x)?,
        _ => contiguous(rt, &Arc::new(crate::runtime::op::view::unsqueeze(x, 0)?))?,
    };
    let cols = rt.im2col(&batched, &win.geometry((oh, ow)))?;
    match nd {
        4 => Ok(cols),
        _ => Ok(Arc::new(crate::runtime::op::view::squeeze(&cols, Some(0))?)),
    }
}

/// Columns [N, C * kh * kw, L] (or [C * kh * kw, L]) added into an image
/// of `size` (height, width), nothing recorded.
pub fn col2im(
    rt: &mut Runtime,
    cols: &Arc<Tensor>,
    size: (usize, usize),
    win: Windows,
) -> R<Arc<Tensor>> {
    let nd = cols.ndim();
    let nonempty = cols
        .shape()
        .iter()
        .skip(nd.saturating_sub(2))
        .all(|&n| n > 0);
    if !matches!(nd, 2 | 3) || !nonempty {
        return Err(Error::runtime(format!(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: {}",
            crate::runtime::shape::spaced_shape(cols.shape())
        )));
    }
    win.check()?;
    let per = win.kernel.0 * win.kernel.1;
    let rows = cols.shape()[nd - 2];
    if !rows.is_multiple_of(per) {
        return Err(Error::runtime(format!(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)={rows} and kernel_size={}.",
            pair(win.kernel)
        )));
    }
    let (oh, ow) = win.blocks(size);
    let l = cols.shape()[nd - 1];
    if oh < 1 || ow < 1 || (oh * ow) as usize != l {
        return Err(Error::runtime(format!(
            "Given output_size={}, kernel_size={}, dilation={}, padding={}, stride={}, expected size of input's dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = {}, but got input.size(2)={l}.",
            pair(size),
            pair(win.kernel),
            pair(win.dilation),
            pair(win.padding),
            pair(win.stride),
            oh * ow
        )));
    }
    let batched = match nd {
        3 => contiguous(rt, cols)?,
        _ => contiguous(rt, &Arc::new(crate::runtime::op::view::unsqueeze(cols, 0)?))?,
    };
    let n = batched.shape()[0];
    let image = rt.col2im(
        &batched,
        &win.geometry((oh, ow)),
        &[n, rows / per, size.0, size.1],
    )?;
    match nd {
        3 => Ok(image),
        _ => Ok(Arc::new(crate::runtime::op::view::squeeze(
            &image,
            Some(0),
        )?)),
    }
}

/// `F.unfold(x, ...)`, recorded (`Im2ColBackward0`).
pub fn unfold(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, win: Windows) -> R<Arc<Tensor>> {
    let out = unfold_node(rt, mode, x, win)?;
    // Forward-mode AD: linear, so the same op of the tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        unfold_node(rt, mode, t, win)
    })
}

fn unfold_node(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, win: Windows) -> R<Arc<Tensor>> {
    let out = im2col(rt, x, win)?;
    let nd = x.ndim();
    let size = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let backward = Backward::Im2Col { size, win };
    Ok(attach_node(
        rt,
        mode,
        out,
        "Im2ColBackward0",
        backward,
        &[x],
    ))
}

/// `F.fold(cols, output_size, ...)`, recorded (`Col2ImBackward0`).
pub fn fold(
    rt: &mut Runtime,
    mode: Mode,
    cols: &Arc<Tensor>,
    size: (usize, usize),
    win: Windows,
) -> R<Arc<Tensor>> {
    let out = fold_node(rt, mode, cols, size, win)?;
    forward_ad::carry_one(rt, Arc::clone(&out), cols, |rt, t| {
        fold_node(rt, mode, t, size, win)
    })
}

fn fold_node(
    rt: &mut Runtime,
    mode: Mode,
    cols: &Arc<Tensor>,
    size: (usize, usize),
    win: Windows,
) -> R<Arc<Tensor>> {
    let out = col2im(rt, cols, size, win)?;
    let backward = Backward::Col2Im { win };
    Ok(attach_node(
        rt,
        mode,
        out,
        "Col2ImBackward0",
        backward,
        &[cols],
    ))
}
