//! Convolution and pooling over images [N, C, H, W], as PyTorch's
//! `conv2d`, `max_pool2d` and `avg_pool2d` compute and record them (one
//! node each: `ConvolutionBackward0`, `MaxPool2DWithIndicesBackward0`,
//! `AvgPool2DBackward0`), written once with the op layer's ops so they run
//! on every backend: the windows of the (padded) input are a strided view,
//! laid out as columns (im2col) and multiplied by the weight with the op
//! layer's matrix product; a gradient of the columns is added back into
//! the input's places, one kernel offset at a time (col2im).

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::ops::{bin, bin_s};
pub use super::window::Geometry;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `x` [N, C, H, W] padded by `geom.padding` with `fill`, laid out
/// contiguously (itself when nothing is padded and it is contiguous).
fn padded(rt: &mut Runtime, x: &Arc<Tensor>, geom: &Geometry, fill: Fill) -> R<Arc<Tensor>> {
    let (ph, pw) = geom.padding;
    if ph == 0 && pw == 0 {
        return match x.is_contiguous() {
            true => Ok(Arc::clone(x)),
            false => rt.copy(x),
        };
    }
    let s = x.shape();
    let shape = [s[0], s[1], s[2] + 2 * ph, s[3] + 2 * pw];
    let new = NewTensor {
        shape: &shape,
        dtype: x.dtype(),
        device: x.device(),
        like: None,
    };
    let out = rt.full(new, fill)?;
    let inner = interior(&out, s, (ph, pw));
    rt.assign(&inner, x)?;
    Ok(out)
}

/// Zeros of `like`'s dtype and device shaped as an image of `shape` [N,
/// C, H, W] padded by `geom.padding`: where a gradient's windows are added.
fn padded_zeros(
    rt: &mut Runtime,
    shape: &[usize],
    geom: &Geometry,
    like: &Tensor,
) -> R<Arc<Tensor>> {
    let padded = [
        shape[0],
        shape[1],
        shape[2] + 2 * geom.padding.0,
        shape[3] + 2 * geom.padding.1,
    ];
    let new = NewTensor {
        shape: &padded,
        dtype: like.dtype(),
        device: like.device(),
        like: None,
    };
    rt.full(new, Fill::Int(0))
}

/// The view of a padded contiguous `p` where the unpadded `shape` lies.
fn interior(p: &Tensor, shape: &[usize], (ph, pw): (usize, usize)) -> Tensor {
    let st = p.strides();
    let offset = p.offset() + ph * st[2] as usize + pw * st[3] as usize;
    p.view(shape.to_vec(), st.to_vec(), offset)
}

/// The windows of a padded contiguous `p`: a view [N, C, Ho, Wo, kh, kw].
fn windows(p: &Tensor, geom: &Geometry) -> Tensor {
    let s = p.shape();
    let st = p.strides();
    let (oh, ow) = geom.out;
    let (kh, kw) = geom.kernel;
    p.view(
        vec![s[0], s[1], oh, ow, kh, kw],
        vec![
            st[0],
            st[1],
            st[2] * geom.stride.0 as isize,
            st[3] * geom.stride.1 as isize,
            st[2] * geom.dilation.0 as isize,
            st[3] * geom.dilation.1 as isize,
        ],
        p.offset(),
    )
}

/// Channels `c0..c1` of a [N, C, ...] view.
fn channels(t: &Tensor, c0: usize, c1: usize) -> Tensor {
    let mut shape = t.shape().to_vec();
    shape[1] = c1 - c0;
    let offset = t.offset() + c0 * t.strides()[1] as usize;
    t.view(shape, t.strides().to_vec(), offset)
}

/// Adds `cols` [N, C, Ho, Wo, kh, kw] into the places of the padded
/// contiguous `dst` its windows came from (col2im), one kernel offset at a
/// time (the places of one offset never overlap).
fn add_windows(rt: &mut Runtime, dst: &Tensor, cols: &Tensor, geom: &Geometry) -> R<()> {
    let (oh, ow) = geom.out;
    let cs = cols.strides();
    let (n, c) = (dst.shape()[0], dst.shape()[1]);
    for i in 0..geom.kernel.0 {
        for j in 0..geom.kernel.1 {
            // The offset's places, batch-major as `cols` lays them out.
            let places = view::permute(&offset_places(dst, geom, (i, j)), &[1, 0, 2, 3])?;
            let part = cols.view(
                vec![n, c, oh, ow],
                vec![cs[0], cs[1], cs[2], cs[3]],
                cols.offset() + i * cs[4] as usize + j * cs[5] as usize,
            );
            rt.binary_(BinaryOp::Add, &places, Operand::strong(&part))?;
        }
    }
    Ok(())
}

fn check_image(x: &Tensor, what: &str) -> R<()> {
    if x.ndim() != 4 {
        return Err(Error::shape(format!(
            "Expected 3D (unbatched) or 4D (batched) input to {what}, but got input of size: [{}]",
            x.shape()
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// The columns of a padded contiguous `p`'s windows, channel-major:
/// [C * kh * kw, N * Ho * Wo], row `(c, i, j)` holding kernel offset
/// `(i, j)` of channel `c` at every output place. Made as one `stack` of
/// the kernel offsets' 4-D views (each with the width innermost) along a
/// new second dimension: each element written once, no zeroed buffer first.
fn columns_t(rt: &mut Runtime, p: &Arc<Tensor>, geom: &Geometry) -> R<Arc<Tensor>> {
    let (n, c) = (p.shape()[0], p.shape()[1]);
    let (oh, ow) = geom.out;
    let (kh, kw) = geom.kernel;
    let views: Vec<Tensor> = (0..kh)
        .flat_map(|i| (0..kw).map(move |j| (i, j)))
        .map(|ij| offset_places(p, geom, ij))
        .collect();
    let refs: Vec<&Tensor> = views.iter().collect();
    // [C, kh * kw, N, Ho, Wo]
    let cols = rt.join(&refs, 1, true)?;
    rt.reshape(&cols, &[(c * kh * kw) as i64, (n * oh * ow) as i64])
}

/// The places kernel offset `(i, j)` reads in a padded contiguous `p`
/// [N, C, Hp, Wp], channel-major: a view [C, N, Ho, Wo] (the width
/// innermost, so a copy or an add runs a row at a time).
fn offset_places(p: &Tensor, geom: &Geometry, (i, j): (usize, usize)) -> Tensor {
    let (n, c) = (p.shape()[0], p.shape()[1]);
    let (oh, ow) = geom.out;
    let st = p.strides();
    p.view(
        vec![c, n, oh, ow],
        vec![
            st[1],
            st[0],
            st[2] * geom.stride.0 as isize,
            st[3] * geom.stride.1 as isize,
        ],
        p.offset() + i * geom.dilation.0 * st[2] as usize + j * geom.dilation.1 * st[3] as usize,
    )
}

/// Adds channel-major columns `cols` [C * kh * kw, N * Ho * Wo] (as
/// `columns_t` lays them out) into the places of the padded contiguous
/// `dst` [N, C, Hp, Wp] their windows came from (col2im): one 4-D add per
/// kernel offset (the places of one offset never overlap).
fn add_columns_t(rt: &mut Runtime, dst: &Tensor, cols: &Tensor, geom: &Geometry) -> R<()> {
    let (n, c) = (dst.shape()[0], dst.shape()[1]);
    let (oh, ow) = geom.out;
    let (kh, kw) = geom.kernel;
    // cols as [C, kh, kw, N, Ho, Wo]
    let row = cols.strides()[0];
    let cs = [
        row * (kh * kw) as isize,
        row * kw as isize,
        row,
        (oh * ow) as isize,
        ow as isize,
        1,
    ];
    for i in 0..kh {
        for j in 0..kw {
            let places = offset_places(dst, geom, (i, j));
            let part = cols.view(
                vec![c, n, oh, ow],
                vec![cs[0], cs[3], cs[4], cs[5]],
                cols.offset() + i * cs[1] as usize + j * cs[2] as usize,
            );
            rt.binary_(BinaryOp::Add, &places, Operand::strong(&part))?;
        }
    }
    Ok(())
}

/// Rows `r0..r1` of a matrix.
fn rows(m: &Tensor, r0: usize, r1: usize) -> Tensor {
    let mut shape = m.shape().to_vec();
    shape[0] = r1 - r0;
    m.view(
        shape,
        m.strides().to_vec(),
        m.offset() + r0 * m.strides()[0] as usize,
    )
}

/// `conv2d(x, w, b, stride, padding, dilation, groups)`: x [N, C, H, W],
/// w [Cout, C / groups, kh, kw], b [Cout]. One node, `ConvolutionBackward0`,
/// keeping the input and the weight. Per group, `W [Cout/g, Cg*kh*kw] @
/// columns [Cg*kh*kw, N*Ho*Wo]`, then laid out as [N, Cout, Ho, Wo].
pub fn conv2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    w: &Arc<Tensor>,
    b: Option<&Arc<Tensor>>,
    (stride, padding, dilation, groups): super::window::ConvSettings,
) -> R<Arc<Tensor>> {
    check_image(x, "conv2d")?;
    if w.ndim() != 4 {
        return Err(Error::shape(format!(
            "conv2d's weight is [out_channels, in_channels / groups, kH, kW], not {}",
            fmt_shape(w.shape())
        )));
    }
    let (n, c, h, wd) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
    let (cout, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    if groups == 0 || c % groups != 0 || cout % groups != 0 || cg * groups != c {
        return Err(Error::shape(format!(
            "Given groups={groups}, weight of size [{}], expected input{} to have {} channels, but got {c} channels instead",
            w.shape().iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            fmt_shape(x.shape()),
            cg * groups
        )));
    }
    let geom = Geometry::new((h, wd), (kh, kw), stride, padding, dilation, groups)?;
    let (oh, ow) = geom.out;
    let xp = padded(rt, x, &geom, Fill::Int(0))?;
    let cols = columns_t(rt, &xp, &geom)?;
    drop(xp);
    let per_out = cout / groups;
    let w = match w.is_contiguous() {
        true => Arc::clone(w),
        false => rt.copy(w)?,
    };
    let wmat = Arc::new(w.reshape(&[cout as i64, (cg * kh * kw) as i64])?);
    let ck = cg * kh * kw;
    let mut parts = Vec::with_capacity(groups);
    for g in 0..groups {
        let wg = rows(&wmat, g * per_out, (g + 1) * per_out);
        let cg_rows = rows(&cols, g * ck, (g + 1) * ck);
        parts.push(rt.matmul(&wg, &cg_rows)?);
    }
    drop(cols);
    let refs: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
    let mut outt = match groups {
        1 => Arc::clone(&parts[0]),
        _ => rt.join(&refs, 0, false)?,
    };
    drop(parts);
    if let Some(b) = b {
        let bc = Arc::new(b.reshape(&[cout as i64, 1])?);
        outt = bin(rt, BinaryOp::Add, &outt, &bc)?;
    }
    // [Cout, N, Ho, Wo] -> [N, Cout, Ho, Wo]
    let four = Arc::new(outt.reshape(&[cout as i64, n as i64, oh as i64, ow as i64])?);
    let nchw = Arc::new(view::permute(&four, &[1, 0, 2, 3])?);
    let out = rt.copy(&nchw)?;
    let mut inputs: Vec<&Tensor> = vec![x, &w];
    if let Some(b) = b {
        inputs.push(b);
    }
    let backward = Backward::Convolution {
        x: Saved::new(x),
        w: Saved::new(&w),
        geom,
        bias: b.is_some(),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "ConvolutionBackward0",
        backward,
        &inputs,
    ))
}

/// `ConvolutionBackward0`: the input's gradient (the columns' gradient
/// `W.T @ g` added back into the windows' places), the weight's (`g @
/// columns.T`, the columns made again from the kept input), the bias's
/// (`g` summed over all but the channels).
pub fn conv2d_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x, w): (&Arc<Tensor>, &Arc<Tensor>),
    geom: &Geometry,
    bias: bool,
    (want_x, want_w, want_b): (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    let n = x.shape()[0];
    let (cout, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    let (oh, ow) = geom.out;
    let groups = geom.groups;
    let per_out = cout / groups;
    let ck = cg * kh * kw;
    // g as [Cout, N * Ho * Wo]
    let g_c = Arc::new(view::permute(g, &[1, 0, 2, 3])?);
    let g_t = rt.reshape(&g_c, &[cout as i64, (n * oh * ow) as i64])?;
    let wmat = Arc::new(w.reshape(&[cout as i64, ck as i64])?);
    let gw = match want_w {
        true => {
            let xp = padded(rt, x, geom, Fill::Int(0))?;
            let cols = columns_t(rt, &xp, geom)?;
            drop(xp);
            // The weight's gradient transposed, `columns @ g` with g as
            // [N * Ho * Wo, Cout] rows: both operands row-major, where
            // `g @ columns.T` (a transposed right operand with N * Ho * Wo
            // rows) ran 4x slower than PyTorch's product.
            let g_nlc = rt.reshape(g, &[n as i64, cout as i64, (oh * ow) as i64])?;
            let g_rows = rt.copy(&view::permute(&g_nlc, &[0, 2, 1])?)?;
            let g_rows = Arc::new(g_rows.reshape(&[(n * oh * ow) as i64, cout as i64])?);
            let mut parts = Vec::with_capacity(groups);
            for k in 0..groups {
                let gk = view::permute(&g_rows, &[1, 0])?;
                let gk = view::matrix_transpose(&rows(&gk, k * per_out, (k + 1) * per_out))?;
                let ck_rows = rows(&cols, k * ck, (k + 1) * ck);
                let gw_t = rt.matmul(&ck_rows, &gk)?;
                parts.push(rt.copy(&view::matrix_transpose(&gw_t)?)?);
            }
            drop(cols);
            let refs: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
            let all = match groups {
                1 => Arc::clone(&parts[0]),
                _ => rt.join(&refs, 0, false)?,
            };
            let dims: Vec<i64> = w.shape().iter().map(|&d| d as i64).collect();
            Some(rt.reshape(&all, &dims)?)
        }
        false => None,
    };
    let gx = match want_x {
        true => {
            let dst = padded_zeros(rt, x.shape(), geom, g)?;
            for k in 0..groups {
                let wg = rows(&wmat, k * per_out, (k + 1) * per_out);
                let gk = rows(&g_t, k * per_out, (k + 1) * per_out);
                let gcols = rt.matmul(&view::matrix_transpose(&wg)?, &gk)?;
                add_columns_t(rt, &channels(&dst, k * cg, (k + 1) * cg), &gcols, geom)?;
            }
            Some(match geom.padding {
                (0, 0) => dst,
                _ => rt.copy(&interior(&dst, x.shape(), geom.padding))?,
            })
        }
        false => None,
    };
    let mut out = vec![gx, gw];
    if bias {
        out.push(match want_b {
            true => Some(rt.reduce_dims(ReduceOp::Sum, g, &[0, 2, 3], false)?),
            false => None,
        });
    }
    Ok(out)
}

/// `max_pool2d(x, kernel, stride, padding, dilation)`: each window's
/// largest element (padding counts as -inf), as PyTorch's; one node,
/// `MaxPool2DWithIndicesBackward0`, keeping the input and where each
/// maximum was.
pub fn max_pool2d(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, geom: Geometry) -> R<Arc<Tensor>> {
    check_image(x, "max_pool2d")?;
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (oh, ow) = geom.out;
    let (kh, kw) = geom.kernel;
    if geom.padding.0 * 2 > kh || geom.padding.1 * 2 > kw {
        return Err(Error::value(format!(
            "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
            geom.padding.0, kh, geom.dilation.0
        )));
    }
    let xp = padded(rt, x, &geom, Fill::Float(f64::NEG_INFINITY))?;
    let win = Arc::new(windows(&xp, &geom));
    let flat = rt.reshape(
        &win,
        &[n as i64, c as i64, oh as i64, ow as i64, (kh * kw) as i64],
    )?;
    drop(win);
    drop(xp);
    let out = rt.reduce(ReduceOp::Max, &flat, Some(4), false)?;
    let which = rt.reduce(ReduceOp::Argmax, &flat, Some(4), false)?;
    drop(flat);
    let backward = Backward::MaxPool {
        which: Saved::new(&which),
        geom,
        input: x.shape().to_vec(),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "MaxPool2DWithIndicesBackward0",
        backward,
        &[x],
    ))
}

/// `avg_pool2d(x, kernel, stride, padding)`: each window's mean, padding
/// counted (`count_include_pad=True`); one node, `AvgPool2DBackward0`.
pub fn avg_pool2d(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, geom: Geometry) -> R<Arc<Tensor>> {
    average(rt, mode, x, geom, "AvgPool2DBackward0")
}

/// `adaptive_avg_pool2d` whose windows tile the input evenly: the same
/// means, recorded as PyTorch's `AdaptiveAvgPool2DBackward0`.
pub fn adaptive_avg_pool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    geom: Geometry,
) -> R<Arc<Tensor>> {
    average(rt, mode, x, geom, "AdaptiveAvgPool2DBackward0")
}

fn average(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    geom: Geometry,
    node: &'static str,
) -> R<Arc<Tensor>> {
    check_image(x, "avg_pool2d")?;
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (oh, ow) = geom.out;
    let (kh, kw) = geom.kernel;
    let xp = padded(rt, x, &geom, Fill::Int(0))?;
    let win = Arc::new(windows(&xp, &geom));
    let flat = rt.reshape(
        &win,
        &[n as i64, c as i64, oh as i64, ow as i64, (kh * kw) as i64],
    )?;
    drop(win);
    drop(xp);
    let sum = rt.reduce(ReduceOp::Sum, &flat, Some(4), false)?;
    let out = bin_s(rt, BinaryOp::Div, &sum, (kh * kw) as f64)?;
    let backward = Backward::AvgPool {
        geom,
        input: x.shape().to_vec(),
    };
    Ok(record::attach_node(rt, mode, out, node, backward, &[x]))
}

/// The gradient of a pooling's input: each window's share of `g` (for a
/// max, all of it at the maximum's place; for a mean, `g / (kh * kw)` at
/// every place) added back into the window's places.
pub fn pool_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    which: Option<&Arc<Tensor>>,
    geom: &Geometry,
    input: &[usize],
) -> R<Arc<Tensor>> {
    let (kh, kw) = geom.kernel;
    let (n, c) = (input[0], input[1]);
    let (oh, ow) = geom.out;
    let k = (kh * kw) as i64;
    let gk = Arc::new(g.reshape(&[n as i64, c as i64, oh as i64, ow as i64, 1])?);
    let shares = match which {
        Some(which) => {
            // one-hot of the maximum's place, times g
            let places = rt.arange(0.0, k as f64, 1.0, which.dtype(), which.device())?;
            let which = Arc::new(which.reshape(&[n as i64, c as i64, oh as i64, ow as i64, 1])?);
            let hit = rt.binary(
                BinaryOp::Eq,
                Operand::strong(&which),
                Operand::strong(&places),
            )?;
            let hit = rt.cast(&hit, g.dtype())?;
            bin(rt, BinaryOp::Mul, &hit, &gk)?
        }
        None => {
            let share = bin_s(rt, BinaryOp::Div, &gk, k as f64)?;
            let dims = [n as i64, c as i64, oh as i64, ow as i64, k];
            let e = Arc::new(view::expand(&share, &dims)?);
            rt.copy(&e)?
        }
    };
    let six = Arc::new(shares.reshape(&[
        n as i64, c as i64, oh as i64, ow as i64, kh as i64, kw as i64,
    ])?);
    let dst = padded_zeros(rt, input, geom, g)?;
    add_windows(rt, &dst, &six, geom)?;
    match geom.padding {
        (0, 0) => Ok(dst),
        _ => rt.copy(&interior(&dst, input, geom.padding)),
    }
}
