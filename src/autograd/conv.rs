//! Convolution and pooling over images [N, C, H, W], as PyTorch's
//! `conv2d`, `max_pool2d` and `avg_pool2d` compute and record them (one
//! node each: `ConvolutionBackward0`, `MaxPool2DWithIndicesBackward0`,
//! `AvgPool2DBackward0`), written once with the op layer's ops so they run
//! on every backend: an image's windows laid out as columns (`im2col`) and
//! multiplied by the weight with the op layer's matrix product, a chunk of
//! the batch at a time (so the columns stay small, as in PyTorch's own
//! im2col path); a gradient of the columns added back into the input's
//! places (`col2im`); the max pooling and its gradient as the op layer's
//! `max_pool2d` ops, keeping each maximum's place as PyTorch does.

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::ops::bin_s;
pub use super::window::Geometry;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

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

/// How many bytes of columns one chunk of a batch lays out at most: a
/// convolution runs image by image in chunks of this size (as PyTorch's
/// own im2col path does per image), so its columns stay in the cache and
/// no buffer the size of the whole batch's columns is made (and zeroed by
/// the OS page by page) in each pass.
const COLUMNS_BYTES: usize = 2 << 20;

/// The batch `0..n` in chunks `(n0, n1)` whose columns, `per_image`
/// bytes each, fit `COLUMNS_BYTES` (at least one image each; an empty
/// batch is one empty chunk, whose products give the empty result).
fn batch_chunks(n: usize, per_image: usize) -> Vec<(usize, usize)> {
    if n == 0 {
        return vec![(0, 0)];
    }
    let per = (COLUMNS_BYTES / per_image.max(1)).clamp(1, n);
    (0..n)
        .step_by(per)
        .map(|n0| (n0, (n0 + per).min(n)))
        .collect()
}

/// Elements `a..b` along `dim`: a view of `t` (`narrow`).
fn span(t: &Tensor, dim: usize, a: usize, b: usize) -> R<Tensor> {
    index::narrow(t, dim, a, b - a)
}

/// `conv2d(x, w, b, stride, padding, dilation, groups)`: x [N, C, H, W],
/// w [Cout, C / groups, kh, kw], b [Cout]. One node, `ConvolutionBackward0`,
/// keeping the input and the weight. Per chunk of the batch and per group,
/// `W [Cout/g, Cg*kh*kw] @ columns [s, Cg*kh*kw, Ho*Wo]`: each image's
/// output [Cout, Ho*Wo] in place.
pub fn conv2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    w: &Arc<Tensor>,
    b: Option<&Arc<Tensor>>,
    (stride, padding, dilation, groups): super::window::ConvSettings,
) -> R<Arc<Tensor>> {
    let mut xs: Vec<&Tensor> = vec![x, w];
    xs.extend(b.map(|b| &**b));
    let cast = super::autocast::inputs(rt, mode, "conv2d", &xs)?;
    let (x, w) = (&cast.arc(0, x), &cast.arc(1, w));
    let cast_b = b.map(|b| cast.arc(2, b));
    let b = cast_b.as_ref();
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
    let w = match w.is_contiguous() {
        true => Arc::clone(w),
        false => rt.copy(w)?,
    };
    let ck = cg * kh * kw;
    let wmat = Arc::new(w.reshape(&[cout as i64, ck as i64])?);
    let bias = match b {
        Some(b) => Some(Arc::new(b.reshape(&[cout as i64, 1])?)),
        None => None,
    };
    let per_out = cout / groups;
    let mut chunks = Vec::new();
    for (n0, n1) in batch_chunks(n, c * kh * kw * oh * ow * x.dtype().size()) {
        let cols = rt.im2col(&span(x, 0, n0, n1)?, &geom)?;
        // [s, Cout, Ho * Wo]: W @ columns, each image's product laid out
        // as its output (NCHW), group by group.
        let mut parts = Vec::with_capacity(groups);
        for g in 0..groups {
            let wg = span(&wmat, 0, g * per_out, (g + 1) * per_out)?;
            parts.push(rt.matmul(&wg, &span(&cols, 1, g * ck, (g + 1) * ck)?)?);
        }
        drop(cols);
        let part = match groups {
            1 => parts.pop().expect("one group"),
            _ => {
                let refs: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
                rt.join(&refs, 1, false)?
            }
        };
        drop(parts);
        if let Some(bc) = &bias {
            rt.binary_(BinaryOp::Add, &part, Operand::strong(bc))?;
        }
        chunks.push(part);
    }
    let outt = match chunks.len() {
        1 => chunks.pop().expect("one chunk"),
        _ => {
            let refs: Vec<&Tensor> = chunks.iter().map(|p| &**p).collect();
            rt.join(&refs, 0, false)?
        }
    };
    drop(chunks);
    let out = rt.reshape(&outt, &[n as i64, cout as i64, oh as i64, ow as i64])?;
    drop(outt);
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
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (cout, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    let (oh, ow) = geom.out;
    let l = oh * ow;
    let groups = geom.groups;
    let per_out = cout / groups;
    let ck = cg * kh * kw;
    let g = match g.is_contiguous() {
        true => Arc::clone(g),
        false => rt.copy(g)?,
    };
    let g3 = rt.reshape(&g, &[n as i64, cout as i64, l as i64])?;
    let wmat = Arc::new(w.reshape(&[cout as i64, ck as i64])?);
    // Chunk by chunk of the batch: the weight's gradient summed over the
    // images (`columns @ g.T` per image, transposed at the end), the
    // input's laid back from the columns' gradient (`W.T @ g`, col2im).
    // The transposed operands are laid out once, contiguous: the host's
    // products ran 1.7x slower reading them strided.
    let g_t = match want_w {
        true => Some(rt.copy(&view::permute(&g3, &[0, 2, 1])?)?),
        false => None,
    };
    let w_t = match want_x {
        true => Some(rt.copy(&view::matrix_transpose(&wmat)?)?),
        false => None,
    };
    let mut gw: Vec<Option<Arc<Tensor>>> = vec![None; groups];
    let mut gx = Vec::new();
    for (n0, n1) in batch_chunks(n, c * kh * kw * l * g.dtype().size()) {
        let g_chunk = span(&g3, 0, n0, n1)?;
        if let Some(g_t) = &g_t {
            let cols = rt.im2col(&span(x, 0, n0, n1)?, geom)?;
            let g_chunk_t = span(g_t, 0, n0, n1)?;
            for (k, acc) in gw.iter_mut().enumerate() {
                let gk = span(&g_chunk_t, 2, k * per_out, (k + 1) * per_out)?;
                // [s, Cg * kh * kw, Cout / g], summed over the images
                let per_image = rt.matmul(&span(&cols, 1, k * ck, (k + 1) * ck)?, &gk)?;
                let part = rt.reduce(ReduceOp::Sum, &per_image, Some(0), false)?;
                match acc {
                    Some(sum) => rt.binary_(BinaryOp::Add, sum, Operand::strong(&part))?,
                    None => *acc = Some(part),
                }
            }
        }
        if let Some(w_t) = &w_t {
            let mut parts = Vec::with_capacity(groups);
            for k in 0..groups {
                let wg_t = span(w_t, 1, k * per_out, (k + 1) * per_out)?;
                let gk = span(&g_chunk, 1, k * per_out, (k + 1) * per_out)?;
                // [s, Cg * kh * kw, Ho * Wo]
                parts.push(rt.matmul(&wg_t, &gk)?);
            }
            let gcols = match groups {
                1 => parts.pop().expect("one group"),
                _ => {
                    let refs: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
                    rt.join(&refs, 1, false)?
                }
            };
            let mut shape = x.shape().to_vec();
            shape[0] = n1 - n0;
            gx.push(rt.col2im(&gcols, geom, &shape)?);
        }
    }
    let gw = match want_w {
        true => {
            let mut parts = Vec::with_capacity(groups);
            for sum in gw.into_iter().flatten() {
                parts.push(rt.copy(&view::matrix_transpose(&sum)?)?);
            }
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
    let gx = match gx.len() {
        0 => None,
        1 => gx.pop(),
        _ => {
            let refs: Vec<&Tensor> = gx.iter().map(|p| &**p).collect();
            Some(rt.join(&refs, 0, false)?)
        }
    };
    let mut out = vec![gx, gw];
    if bias {
        out.push(match want_b {
            true => Some(rt.reduce_dims(ReduceOp::Sum, &g, &[0, 2, 3], false)?),
            false => None,
        });
    }
    Ok(out)
}

/// `max_pool2d(x, kernel, stride, padding, dilation)`: each window's
/// largest element (padding never counts), as PyTorch's; one node,
/// `MaxPool2DWithIndicesBackward0`, keeping where each maximum was (its
/// place in the plane, as `return_indices=True` gives it).
pub fn max_pool2d(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, geom: Geometry) -> R<Arc<Tensor>> {
    Ok(max_pool2d_with_indices(rt, mode, x, geom)?.0)
}

/// `max_pool2d(..., return_indices=True)`: the maxima and their places
/// (i64, `h * W + w` within each plane).
pub fn max_pool2d_with_indices(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    geom: Geometry,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    check_image(x, "max_pool2d")?;
    let (kh, kw) = geom.kernel;
    if geom.padding.0 * 2 > kh || geom.padding.1 * 2 > kw {
        return Err(Error::value(format!(
            "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
            geom.padding.0, kh, geom.dilation.0
        )));
    }
    let (out, places) = rt.max_pool2d(x, &geom)?;
    let backward = Backward::MaxPool {
        which: Saved::new(&places),
        geom,
        input: x.shape().to_vec(),
    };
    let out = record::attach_node(
        rt,
        mode,
        out,
        "MaxPool2DWithIndicesBackward0",
        backward,
        &[x],
    );
    Ok((out, places))
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

/// Each window's sum over its kernel offsets, in order, divided by their
/// count: the columns [N, C * k, L] summed as [N, C, k, L] over k.
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
    let k = geom.kernel.0 * geom.kernel.1;
    let cols = rt.im2col(x, &geom)?;
    let per_offset = rt.reshape(&cols, &[n as i64, c as i64, k as i64, (oh * ow) as i64])?;
    drop(cols);
    let sum = rt.reduce(ReduceOp::Sum, &per_offset, Some(2), false)?;
    let mean = bin_s(rt, BinaryOp::Div, &sum, k as f64)?;
    let out = rt.reshape(&mean, &[n as i64, c as i64, oh as i64, ow as i64])?;
    let backward = Backward::AvgPool {
        geom,
        input: x.shape().to_vec(),
    };
    Ok(record::attach_node(rt, mode, out, node, backward, &[x]))
}

/// The gradient of a pooling's input: for a max, each window's `g` added
/// at its maximum's place; for a mean, `g / (kh * kw)` at every place of
/// the window (the columns' gradient laid back, col2im).
pub fn pool_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    which: Option<&Arc<Tensor>>,
    geom: &Geometry,
    input: &[usize],
) -> R<Arc<Tensor>> {
    if let Some(places) = which {
        return rt.max_pool2d_backward(g, places, geom, input);
    }
    let (n, c) = (input[0], input[1]);
    let (oh, ow) = geom.out;
    let k = (geom.kernel.0 * geom.kernel.1) as i64;
    let g4 = rt.reshape(g, &[n as i64, c as i64, 1, (oh * ow) as i64])?;
    let share = bin_s(rt, BinaryOp::Div, &g4, k as f64)?;
    let dims = [n as i64, c as i64, k, (oh * ow) as i64];
    let shares = rt.copy(&view::expand(&share, &dims)?)?;
    let cols = rt.reshape(&shares, &[n as i64, c as i64 * k, (oh * ow) as i64])?;
    rt.col2im(&cols, geom, input)
}
