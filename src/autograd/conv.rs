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
use super::record::Recording;
pub use super::window::Geometry;
use super::{forward_ad, jvp, record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::memory_format::{self, MemoryFormat};
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::view;
use crate::runtime::shape::{fmt_shape, spaced_shape};
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

fn check_image(x: &Tensor, what: &str) -> R<()> {
    if x.ndim() != 3 && x.ndim() != 4 {
        return Err(Error::shape(format!(
            "Expected 3D (unbatched) or 4D (batched) input to {what}, but got input of size: {}",
            spaced_shape(x.shape())
        )));
    }
    Ok(())
}

/// An unbatched image [C, H, W] as a batch of one [1, C, H, W] (a view;
/// a pooling's kernels run on batches, as PyTorch's treat N = 1).
fn batched(x: &Arc<Tensor>) -> R<Arc<Tensor>> {
    match x.ndim() {
        3 => Ok(Arc::new(view::unsqueeze(x, 0)?)),
        _ => Ok(Arc::clone(x)),
    }
}

/// A pooling's result `t` [1, C, h, w] back without the batch when its
/// input `like` had none.
fn unbatched(t: Arc<Tensor>, like: &[usize]) -> R<Arc<Tensor>> {
    match like.len() {
        3 => Ok(Arc::new(view::squeeze(&t, Some(0))?)),
        _ => Ok(t),
    }
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

/// A convolution's settings beyond the stride, padding, dilation and
/// groups: whether it is transposed, and a transposed one's extra rows
/// and columns at the end (`output_padding`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transposed {
    pub on: bool,
    pub output_padding: (usize, usize),
}

/// `t` with a height of 1 put in when it is [N, C, L] (a 1-d convolution
/// runs as a 2-d one over a 1 x L image), as it is otherwise.
fn as_image(t: &Arc<Tensor>) -> R<Arc<Tensor>> {
    match t.ndim() {
        3 => Ok(Arc::new(view::unsqueeze(t, 2)?)),
        _ => Ok(Arc::clone(t)),
    }
}

/// `g`, the gradient of a 1 x L image, back in the 1-d input's shape.
fn as_line(rt: &mut Runtime, g: Arc<Tensor>, like: &Tensor) -> R<Arc<Tensor>> {
    match like.ndim() {
        3 => {
            let dims: Vec<i64> = like.shape().iter().map(|&d| d as i64).collect();
            rt.reshape(&g, &dims)
        }
        _ => Ok(g),
    }
}

/// A convolution's input before its windows, and the padding left to the
/// convolution: with a `padding_mode` other than zeros, the input padded
/// by `reversed` (`_reversed_padding_repeated_twice`) with `F.pad`'s mode
/// and no padding left, as PyTorch's `_conv_forward`; with zeros and an
/// uneven `padding="same"` (an even kernel), the extra place on the right
/// (bottom) padded first with zeros and the even part left, as PyTorch's
/// `_convolution_mode` does with `constant_pad_nd`; else `x` as it is.
/// `reversed` is (left, right) of each padded dim, the last dim first.
pub fn padded_first(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    padding: (usize, usize),
    padding_mode: Option<super::pad::Edges>,
    reversed: &[i64],
) -> R<(Arc<Tensor>, (usize, usize))> {
    if let Some(edges) = padding_mode {
        let padded = super::pad::pad_by_edges(rt, mode, x, reversed, edges)?;
        return Ok((padded, (0, 0)));
    }
    let pairs: Vec<(i64, i64)> = reversed.chunks(2).map(|p| (p[0], p[1])).collect();
    if pairs.iter().all(|(l, r)| l == r) {
        return Ok((Arc::clone(x), padding));
    }
    rt.note_once(
        "UserWarning: Using padding='same' with even kernel lengths and odd dilation may \
         require a zero-padded copy of the input be created (Triggered internally at \
         /__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1135.)",
    );
    let extra: Vec<i64> = pairs.iter().flat_map(|&(l, r)| [0, r - l]).collect();
    let padded = super::pad::pad(
        rt,
        mode,
        x,
        &extra,
        crate::runtime::op::factory::Fill::Int(0),
    )?;
    let left = |i: usize| pairs.get(i).map_or(0, |p| p.0 as usize);
    let padding = match pairs.len() {
        1 => (padding.0, left(0)),
        _ => (left(1), left(0)),
    };
    Ok((padded, padding))
}

/// `conv2d(x, w, b, stride, padding, dilation, groups)`: x [N, C, H, W],
/// w [Cout, C / groups, kh, kw], b [Cout]; `conv1d` with x [N, C, L] and
/// w [Cout, C / groups, k]. One node, `ConvolutionBackward0`, keeping the
/// input and the weight.
pub fn conv2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    w: &Arc<Tensor>,
    b: Option<&Arc<Tensor>>,
    settings: super::window::ConvSettings,
) -> R<Arc<Tensor>> {
    convolution(rt, mode, (x, w, b), settings, Transposed::default())
}

/// `conv_transpose2d(x, w, b, stride, padding, output_padding, groups,
/// dilation)`: x [N, Cin, H, W], w [Cin, Cout / groups, kh, kw]; the
/// gradient of a `conv2d` by its input, as a layer (`ConvTranspose2d`,
/// DCGAN's generator); `conv_transpose1d` on [N, Cin, L]. Its node is
/// `ConvolutionBackward0` too.
pub fn conv_transpose2d(
    rt: &mut Runtime,
    mode: Mode,
    (x, w, b): (&Arc<Tensor>, &Arc<Tensor>, Option<&Arc<Tensor>>),
    settings: super::window::ConvSettings,
    output_padding: (usize, usize),
) -> R<Arc<Tensor>> {
    let transposed = Transposed {
        on: true,
        output_padding,
    };
    convolution(rt, mode, (x, w, b), settings, transposed)
}

/// PyTorch's `convolution`: checks, the product, and the node.
fn convolution(
    rt: &mut Runtime,
    mode: Mode,
    (x, w, b): (&Arc<Tensor>, &Arc<Tensor>, Option<&Arc<Tensor>>),
    (stride, padding, dilation, groups): super::window::ConvSettings,
    transposed: Transposed,
) -> R<Arc<Tensor>> {
    let name = match (transposed.on, w.ndim()) {
        (false, 3) => "conv1d",
        (false, _) => "conv2d",
        (true, 3) => "conv_transpose1d",
        (true, _) => "conv_transpose2d",
    };
    let mut xs: Vec<&Tensor> = vec![x, w];
    xs.extend(b.map(|b| &**b));
    let cast = super::autocast::inputs(rt, mode, name, &xs)?;
    let (x, w) = (&cast.arc(0, x), &cast.arc(1, w));
    let cast_b = b.map(|b| cast.arc(2, b));
    let b = cast_b.as_ref();
    let dims = match name.ends_with("1d") {
        true => 3,
        false => 4,
    };
    if x.ndim() + 1 == dims {
        // One sample: PyTorch's batch of one, unsqueezed and squeezed back
        // (`UnsqueezeBackward0`, `SqueezeBackward1` about the node).
        let batch = super::views::unsqueeze(rt, mode, x, 0)?;
        let settings = (stride, padding, dilation, groups);
        let out = convolution(rt, mode, (&batch, w, b), settings, transposed)?;
        return super::views::squeeze(rt, mode, &out, 0);
    }
    if x.ndim() != dims {
        return Err(Error::shape(format!(
            "Expected {}D (unbatched) or {dims}D (batched) input to {name}, but got input of size: {}",
            dims - 1,
            spaced_shape(x.shape())
        )));
    }
    if w.ndim() != dims {
        let (first, second) = match transposed.on {
            false => ("out_channels", "in_channels / groups"),
            true => ("in_channels", "out_channels / groups"),
        };
        let kernel = match dims {
            3 => "kL",
            _ => "kH, kW",
        };
        return Err(Error::shape(format!(
            "{name}'s weight is [{first}, {second}, {kernel}], not {}",
            fmt_shape(w.shape())
        )));
    }
    // PyTorch's choice (cuDNN's and the CPU's alike): a channels-last
    // input or weight gives a channels-last output.
    let channels_last = dims == 4
        && [&**x, &**w]
            .iter()
            .any(|t| memory_format::suggest(t.shape(), t.strides()) == MemoryFormat::ChannelsLast);
    let (x4, w4) = (as_image(x)?, as_image(w)?);
    let w4 = match w4.is_contiguous() {
        true => w4,
        false => rt.copy(&w4)?,
    };
    let (c, h, wd) = (x4.shape()[1], x4.shape()[2], x4.shape()[3]);
    let (kh, kw) = (w4.shape()[2], w4.shape()[3]);
    // The channels the weight expects: a convolution's C = Cg * groups;
    // a transposed one's input channels are the weight's first dim.
    let expected = match transposed.on {
        false => w4.shape()[1] * groups,
        true => w4.shape()[0],
    };
    let outs = match transposed.on {
        false => w4.shape()[0],
        true => w4.shape()[1] * groups,
    };
    if groups == 0 || c != expected || outs % groups != 0 || expected % groups != 0 {
        let given = match transposed.on {
            true => "transposed=1".to_string(),
            false => format!("groups={groups}"),
        };
        return Err(Error::shape(format!(
            "Given {given}, weight of size {}, expected input{} to have {expected} channels, but got {c} channels instead",
            spaced_shape(w.shape()),
            spaced_shape(x.shape()),
        )));
    }
    let out4 = match transposed.on {
        false => {
            let geom = Geometry::new((h, wd), (kh, kw), stride, padding, dilation, groups)?;
            let out = forward(rt, &x4, &w4, &geom, channels_last)?;
            (out, geom)
        }
        true => {
            let (geom, (oh, ow)) = transposed_geometry(
                (h, wd),
                (kh, kw),
                (stride, padding, dilation, groups),
                transposed.output_padding,
            )?;
            let n = x4.shape()[0];
            let x3 = contiguous(rt, &x4)?;
            let x3 = rt.reshape(&x3, &[n as i64, c as i64, (h * wd) as i64])?;
            let out = input_grad(rt, &x3, &w4, &geom, &[n, outs, oh, ow])?;
            (out, geom)
        }
    };
    let (out4, geom) = out4;
    if let Some(bias) = b {
        let bc = Arc::new(bias.reshape(&[outs as i64, 1, 1])?);
        rt.binary_(BinaryOp::Add, &out4, Operand::strong(&bc))?;
    }
    // A transposed convolution is computed row-major (col2im): channels-last
    // as PyTorch's is by a copy, which `mem` shows for a moment.
    let out4 = match channels_last && transposed.on {
        true => rt.copy_as(&out4, MemoryFormat::ChannelsLast)?,
        false => out4,
    };
    let out = match dims {
        3 => {
            let (n, l) = (out4.shape()[0], out4.shape()[3]);
            rt.reshape(&out4, &[n as i64, outs as i64, l as i64])?
        }
        _ => out4,
    };
    let mut inputs: Vec<&Tensor> = vec![x, w];
    if let Some(b) = b {
        inputs.push(b);
    }
    let backward = Backward::Convolution {
        x: Saved::new(x),
        w: Saved::new(w),
        geom,
        bias: b.is_some(),
        transposed: transposed.on,
    };
    let out = record::attach_node(rt, mode, out, "ConvolutionBackward0", backward, &inputs);
    // The tangent (PyTorch's `convolution_jvp`): conv(tx, w, tb) + conv(x, tw).
    let settings = (stride, padding, dilation, groups);
    super::forward_ad::carry(rt, Arc::clone(&out), &inputs, true, |rt, ts| {
        let (tx, tw) = (&ts[0], &ts[1]);
        let tb = ts.get(2).cloned().flatten();
        let first = match (tx, &tb) {
            (Some(tx), tb) => Some(convolution(
                rt,
                mode,
                (tx, w, tb.as_ref()),
                settings,
                transposed,
            )?),
            (None, Some(tb)) => {
                let mut shape = vec![1i64; out.ndim() - 1];
                shape[0] = outs as i64;
                Some(Arc::new(tb.reshape(&shape)?))
            }
            (None, None) => None,
        };
        let second = match tw {
            Some(tw) => Some(convolution(rt, mode, (x, tw, None), settings, transposed)?),
            None => None,
        };
        super::jvp::total(
            &mut record::Recording { rt, mode },
            vec![first, second],
            &out,
        )
    })
}

/// A transposed convolution's geometry and output size: the geometry of
/// the convolution whose input gradient it is, over the output's size
/// `(h - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding +
/// 1`, with the input's size as that convolution's output (the rows
/// `output_padding` adds get no window, so only the bias).
fn transposed_geometry(
    (h, w): (usize, usize),
    kernel: (usize, usize),
    (stride, padding, dilation, groups): super::window::ConvSettings,
    output_padding: (usize, usize),
) -> R<(Geometry, (usize, usize))> {
    if [
        kernel.0, kernel.1, stride.0, stride.1, dilation.0, dilation.1,
    ]
    .contains(&0)
    {
        return Err(Error::value(
            "kernel size, stride and dilation must be greater than zero",
        ));
    }
    if output_padding.0 >= stride.0.max(dilation.0) || output_padding.1 >= stride.1.max(dilation.1)
    {
        return Err(Error::runtime(format!(
            "output padding must be smaller than either stride or dilation, but got \
             output_padding_height: {} output_padding_width: {} stride_height: {} \
             stride_width: {} dilation_height: {} dilation_width: {}",
            output_padding.0, output_padding.1, stride.0, stride.1, dilation.0, dilation.1
        )));
    }
    let size = |n: usize, k: usize, s: usize, p: usize, d: usize, op: usize| {
        (n as i64 - 1) * s as i64 - 2 * p as i64 + (d * (k - 1) + op + 1) as i64
    };
    let (oh, ow) = (
        size(
            h,
            kernel.0,
            stride.0,
            padding.0,
            dilation.0,
            output_padding.0,
        ),
        size(
            w,
            kernel.1,
            stride.1,
            padding.1,
            dilation.1,
            output_padding.1,
        ),
    );
    if oh <= 0 || ow <= 0 {
        return Err(Error::runtime(format!(
            "Given input size per channel: ({h} x {w}). Calculated output size per channel: ({oh} x {ow}). Output size is too small"
        )));
    }
    let (oh, ow) = (oh as usize, ow as usize);
    let geom = Geometry {
        kernel,
        stride,
        padding,
        dilation,
        groups,
        out: (h, w),
    };
    Ok((geom, (oh, ow)))
}

/// `t` laid out contiguous (itself when it is).
fn contiguous(rt: &mut Runtime, t: &Arc<Tensor>) -> R<Arc<Tensor>> {
    match t.is_contiguous() {
        true => Ok(Arc::clone(t)),
        false => rt.copy(t),
    }
}

/// The convolution of images `x` [N, C, H, W] by `w` [Cout, C / groups,
/// kh, kw] over `geom`, nothing recorded: per chunk of the batch and per
/// group, `W [Cout/g, Cg*kh*kw] @ columns [s, Cg*kh*kw, Ho*Wo]`, each
/// image's output [Cout, Ho*Wo] in place.
fn forward(
    rt: &mut Runtime,
    x: &Tensor,
    w: &Tensor,
    geom: &Geometry,
    channels_last: bool,
) -> R<Arc<Tensor>> {
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (cout, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    let groups = geom.groups;
    let (oh, ow) = geom.out;
    let ck = cg * kh * kw;
    let wmat = Arc::new(w.reshape(&[cout as i64, ck as i64])?);
    let per_out = cout / groups;
    let mut chunks = Vec::new();
    for (n0, n1) in batch_chunks(n, c * kh * kw * oh * ow * x.dtype().size()) {
        let cols = rt.im2col(&span(x, 0, n0, n1)?, geom)?;
        // [s, Cout, Ho * Wo]: W @ columns, each image's product laid out
        // as its output (NCHW), group by group; channels-last, [s, Ho *
        // Wo, Cout]: columns.T @ W.T, pixel by pixel.
        let mut parts = Vec::with_capacity(groups);
        for g in 0..groups {
            let wg = span(&wmat, 0, g * per_out, (g + 1) * per_out)?;
            let cg = span(&cols, 1, g * ck, (g + 1) * ck)?;
            parts.push(match channels_last {
                false => rt.matmul(&wg, &cg)?,
                true => rt.matmul(&cg.transpose(1, 2), &view::matrix_transpose(&wg)?)?,
            });
        }
        drop(cols);
        chunks.push(join_or_one(rt, parts, if channels_last { 2 } else { 1 })?);
    }
    let outt = join_or_one(rt, chunks, 0)?;
    let (n, cout, oh, ow) = (n as i64, cout as i64, oh as i64, ow as i64);
    match channels_last {
        false => rt.reshape(&outt, &[n, cout, oh, ow]),
        true => {
            let nhwc = rt.reshape(&outt, &[n, oh, ow, cout])?;
            Ok(Arc::new(view::permute(&nhwc, &[0, 3, 1, 2])?))
        }
    }
}

/// The parts joined along `dim`, or the one part as it is.
fn join_or_one(rt: &mut Runtime, mut parts: Vec<Arc<Tensor>>, dim: i64) -> R<Arc<Tensor>> {
    match parts.len() {
        1 => Ok(parts.pop().expect("one part")),
        _ => {
            let refs: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
            rt.join(&refs, dim, false)
        }
    }
}

/// The gradient of a convolution's input of `shape` [N, C, H, W] from
/// its output's `g3` [N, Cout, Ho * Wo]: the columns' gradient `W.T @ g`
/// per group, added back into the windows' places (col2im), chunk by
/// chunk of the batch. Also a transposed convolution's forward.
fn input_grad(
    rt: &mut Runtime,
    g3: &Tensor,
    w: &Tensor,
    geom: &Geometry,
    shape: &[usize],
) -> R<Arc<Tensor>> {
    let (n, c) = (shape[0], shape[1]);
    let (cout, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    let groups = geom.groups;
    let per_out = cout / groups;
    let l = geom.out.0 * geom.out.1;
    let wmat = Arc::new(w.reshape(&[cout as i64, (cg * kh * kw) as i64])?);
    // The transposed operand laid out once, contiguous: the host's
    // products ran 1.7x slower reading it strided.
    let w_t = rt.copy(&view::matrix_transpose(&wmat)?)?;
    let mut gx = Vec::new();
    for (n0, n1) in batch_chunks(n, c * kh * kw * l * g3.dtype().size()) {
        let g_chunk = span(g3, 0, n0, n1)?;
        let mut parts = Vec::with_capacity(groups);
        for k in 0..groups {
            let wg_t = span(&w_t, 1, k * per_out, (k + 1) * per_out)?;
            let gk = span(&g_chunk, 1, k * per_out, (k + 1) * per_out)?;
            // [s, Cg * kh * kw, Ho * Wo]
            parts.push(rt.matmul(&wg_t, &gk)?);
        }
        let gcols = join_or_one(rt, parts, 1)?;
        let mut chunk_shape = shape.to_vec();
        chunk_shape[0] = n1 - n0;
        gx.push(rt.col2im(&gcols, geom, &chunk_shape)?);
    }
    join_or_one(rt, gx, 0)
}

/// The gradient of a convolution's weight of `shape` [Cout, Cg, kh, kw]
/// from its output's `g3` [N, Cout, Ho * Wo] and its input `x`: `g @
/// columns.T` summed over the images (`columns @ g.T` per image, chunk by
/// chunk, transposed at the end).
fn weight_grad(
    rt: &mut Runtime,
    g3: &Tensor,
    x: &Tensor,
    geom: &Geometry,
    shape: &[usize],
) -> R<Arc<Tensor>> {
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (cout, cg, kh, kw) = (shape[0], shape[1], shape[2], shape[3]);
    let groups = geom.groups;
    let per_out = cout / groups;
    let ck = cg * kh * kw;
    let l = geom.out.0 * geom.out.1;
    let g_t = rt.copy(&view::permute(g3, &[0, 2, 1])?)?;
    let mut gw: Vec<Option<Arc<Tensor>>> = vec![None; groups];
    for (n0, n1) in batch_chunks(n, c * kh * kw * l * g3.dtype().size()) {
        let cols = rt.im2col(&span(x, 0, n0, n1)?, geom)?;
        let g_chunk_t = span(&g_t, 0, n0, n1)?;
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
    let mut parts = Vec::with_capacity(groups);
    for sum in gw.into_iter().flatten() {
        parts.push(rt.copy(&view::matrix_transpose(&sum)?)?);
    }
    let all = join_or_one(rt, parts, 0)?;
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    rt.reshape(&all, &dims)
}

/// `ConvolutionBackward0`: the input's, the weight's and the bias's
/// gradients (a 1-d convolution's computed over 1 x L images and given
/// back in its shapes). A convolution's input gradient is its transposed
/// convolution of g and its weight's gradient pairs g with the input's
/// windows; a transposed convolution's swaps the two roles: its input's
/// gradient is the convolution of g, its weight's pairs x with g's windows.
pub fn conv2d_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x, w): (&Arc<Tensor>, &Arc<Tensor>),
    (geom, bias, transposed): (&Geometry, bool, bool),
    (want_x, want_w, want_b): (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    let (x4, w4) = (as_image(x)?, contiguous(rt, &as_image(w)?)?);
    let g4 = contiguous(rt, &as_image(g)?)?;
    let flat = |rt: &mut Runtime, t: &Arc<Tensor>| -> R<Arc<Tensor>> {
        let s = t.shape();
        rt.reshape(t, &[s[0] as i64, s[1] as i64, (s[2] * s[3]) as i64])
    };
    let gx = match (want_x, transposed) {
        (false, _) => None,
        (true, false) => {
            let g3 = flat(rt, &g4)?;
            Some(input_grad(rt, &g3, &w4, geom, x4.shape())?)
        }
        (true, true) => Some(forward(rt, &g4, &w4, geom, false)?),
    };
    let gw = match (want_w, transposed) {
        (false, _) => None,
        (true, false) => {
            let g3 = flat(rt, &g4)?;
            Some(weight_grad(rt, &g3, &x4, geom, w4.shape())?)
        }
        (true, true) => {
            let x4c = contiguous(rt, &x4)?;
            let x3 = flat(rt, &x4c)?;
            Some(weight_grad(rt, &x3, &g4, geom, w4.shape())?)
        }
    };
    let gx = match gx {
        Some(t) => Some(as_line(rt, t, x)?),
        None => None,
    };
    let gw = match gw {
        Some(t) => Some(as_line(rt, t, w)?),
        None => None,
    };
    let mut out = vec![gx, gw];
    if bias {
        out.push(match want_b {
            true => Some(rt.reduce_dims(ReduceOp::Sum, &g4, &[0, 2, 3], false)?),
            false => None,
        });
    }
    Ok(out)
}

/// A convolution's gradients as a backward that creates a graph computes
/// them: each a recorded convolution, so it can be differentiated again
/// (a gradient penalty through a convolutional critic). The input's is
/// the transposed convolution of `g` by the weight (its output padding
/// chosen to give back the input's size); the weight's pairs the input's
/// windows with `g`: the convolution of the input, batch and channels
/// swapped, by `g`, likewise swapped, stride and dilation exchanged, cut
/// to the kernel's size and swapped back. Plain convolutions with one
/// group (`Backward::creates_graph` refuses the others).
pub fn conv2d_backward_recorded(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, w): (&Arc<Tensor>, &Arc<Tensor>),
    (geom, bias): (&Geometry, bool),
    (want_x, want_w, want_b): (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    use super::create_graph as cg;
    use index::Index;
    let settings = (geom.stride, geom.padding, geom.dilation, 1);
    let (kh, kw) = geom.kernel;
    let x4 = as_image(x)?;
    let (h, wd) = (x4.shape()[2], x4.shape()[3]);
    let extra = |n: usize, o: usize, s: usize, p: usize, d: usize, k: usize| {
        n + 2 * p - ((o - 1) * s + d * (k - 1) + 1)
    };
    let gx = match want_x {
        false => None,
        true => {
            let (s, p, d, (oh, ow)) = (geom.stride, geom.padding, geom.dilation, geom.out);
            let output_padding = (
                extra(h, oh, s.0, p.0, d.0, kh),
                extra(wd, ow, s.1, p.1, d.1, kw),
            );
            Some(conv_transpose2d(
                rt,
                mode,
                (g, w, None),
                settings,
                output_padding,
            )?)
        }
    };
    let gw = match want_w {
        false => None,
        true => {
            let xt = super::views::transpose(rt, mode, x, 0, 1);
            let gt = super::views::transpose(rt, mode, g, 0, 1);
            let swapped = (geom.dilation, geom.padding, geom.stride, 1);
            let full = conv2d(rt, mode, &xt, &gt, None, swapped)?;
            let all = || Index::Slice(None, None, None);
            let mut items = vec![all(), all()];
            if w.ndim() == 4 {
                items.push(Index::Slice(None, Some(kh as i64), None));
            }
            items.push(Index::Slice(None, Some(kw as i64), None));
            let cut = cg::select(rt, mode, &full, &items)?;
            Some(super::views::transpose(rt, mode, &cut, 0, 1))
        }
    };
    let mut out = vec![gx, gw];
    if bias {
        let dims: Vec<i64> = (0..g.ndim() as i64).filter(|&d| d != 1).collect();
        out.push(match want_b {
            true => Some(record::reduce_dims(
                rt,
                mode,
                ReduceOp::Sum,
                g,
                &dims,
                false,
            )?),
            false => None,
        });
    }
    Ok(out)
}

/// A pooling's input gradient `gx` (made from `g`) as a backward that
/// creates a graph records it: a node whose own gradient pools again
/// (`Backward::Pooled`), named as PyTorch's (`AvgPool2DBackwardBackward0`,
/// `MaxPool2DWithIndicesBackwardBackward0`); `gx` itself otherwise.
pub fn pooled(
    rt: &Runtime,
    mode: Mode,
    gx: Arc<Tensor>,
    (g, which): (&Arc<Tensor>, Option<&Arc<Tensor>>),
    (geom, of): (&Geometry, &str),
) -> Arc<Tensor> {
    if !mode.enabled {
        return gx;
    }
    let name = match of {
        "AdaptiveMaxPool2DBackward0" => "AdaptiveMaxPool2DBackwardBackward0",
        "AdaptiveAvgPool2DBackward0" => "AdaptiveAvgPool2DBackwardBackward0",
        _ if which.is_some() => "MaxPool2DWithIndicesBackwardBackward0",
        _ => "AvgPool2DBackwardBackward0",
    };
    let backward = Backward::Pooled {
        which: which.map(|w| Saved::new(w)),
        geom: geom.clone(),
    };
    record::attach_node(rt, mode, gx, name, backward, &[g])
}

/// The gradient of a pooling's gradient: `g` pooled again, an average of
/// each window, or for a max pooling `g` at each window's maximum's place
/// (`which`, within its plane).
pub fn pool_again(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    which: Option<&Arc<Tensor>>,
    geom: &Geometry,
) -> R<Arc<Tensor>> {
    let Some(which) = which else {
        return average(rt, mode, g, geom.clone(), "AvgPool2DBackward0");
    };
    at_places(rt, mode, g, which)
}

/// `g` [..., H, W] read at `which` (each element's place `h * W + w` in
/// its plane), in `which`'s shape: the gradient of a max pool's gradient,
/// and of `max_unpool2d`. Recorded when `mode` is on.
pub fn at_places(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    which: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    use super::create_graph as cg;
    let nd = g.ndim();
    let plane = |t: &Tensor| -> Vec<usize> {
        let s = t.shape();
        [&s[..nd - 2], &[s[nd - 2] * s[nd - 1]]].concat()
    };
    let flat = cg::reshape(rt, mode, g, &plane(g))?;
    let places: Vec<i64> = plane(which).iter().map(|&d| d as i64).collect();
    let places = rt.reshape(which, &places)?;
    let picked = super::scatter::gather(rt, mode, &flat, nd - 2, &places)?;
    cg::reshape(rt, mode, &picked, which.shape())
}

/// `max_pool2d(x, kernel, stride, padding, dilation)`: each window's
/// largest element (padding never counts), as PyTorch's; one node,
/// `MaxPool2DWithIndicesBackward0`, keeping where each maximum was (its
/// place in the plane, as `return_indices=True` gives it).
pub fn max_pool2d(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, geom: Geometry) -> R<Arc<Tensor>> {
    Ok(max_pool2d_with_indices(rt, mode, x, geom)?.0)
}

/// `adaptive_max_pool2d` whose windows tile the input evenly: the same
/// maxima and places, recorded as PyTorch's `AdaptiveMaxPool2DBackward0`.
pub fn adaptive_max_pool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    geom: Geometry,
) -> R<Arc<Tensor>> {
    Ok(maxima(rt, mode, x, geom, "AdaptiveMaxPool2DBackward0")?.0)
}

/// `max_pool2d(..., return_indices=True)`: the maxima and their places
/// (i64, `h * W + w` within each plane).
pub fn max_pool2d_with_indices(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    geom: Geometry,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    maxima(rt, mode, x, geom, "MaxPool2DWithIndicesBackward0")
}

/// Each window's largest element and its place, recorded as `node`.
fn maxima(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    geom: Geometry,
    node: &'static str,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    check_image(x, "max_pool2d")?;
    let (kh, kw) = geom.kernel;
    if geom.padding.0 * 2 > kh || geom.padding.1 * 2 > kw {
        return Err(Error::value(format!(
            "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
            geom.padding.0, kh, geom.dilation.0
        )));
    }
    let (out, places) = rt.max_pool2d(&*batched(x)?, &geom)?;
    let (out, places) = (unbatched(out, x.shape())?, unbatched(places, x.shape())?);
    let (out, places) = (in_format_of(rt, x, out)?, in_format_of(rt, x, places)?);
    let backward = Backward::MaxPool {
        which: Saved::new(&places),
        geom,
        input: x.shape().to_vec(),
    };
    let out = record::attach_node(rt, mode, out, node, backward, &[x]);
    // Forward-mode AD: the tangent where each maximum was.
    let out = forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::pooled_max(&mut Recording { rt, mode }, t, &places)
    })?;
    Ok((out, places))
}

/// A pooling's result laid out as its input suggests (PyTorch's
/// `suggest_memory_format`): channels-last for a channels-last x. The
/// pooling computes it row-major, so it is copied: `mem` holds the
/// row-major result for a moment, where PyTorch's kernel writes it once.
pub fn in_format_of(rt: &mut Runtime, x: &Tensor, out: Arc<Tensor>) -> R<Arc<Tensor>> {
    let cl = MemoryFormat::ChannelsLast;
    if out.ndim() != 4 || memory_format::suggest(x.shape(), x.strides()) != cl {
        return Ok(out);
    }
    if !memory_format::is_contiguous_as(cl, out.shape(), out.strides()) {
        return rt.copy_as(&out, cl);
    }
    // In that order already ([N, C, 1, 1]): PyTorch's strides, no copy.
    let strides = memory_format::strides_for(cl, out.shape())?;
    Ok(Arc::new(out.view(
        out.shape().to_vec(),
        strides,
        out.offset(),
    )))
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
    let x4 = batched(x)?;
    let (n, c) = (x4.shape()[0], x4.shape()[1]);
    let (oh, ow) = geom.out;
    let k = geom.kernel.0 * geom.kernel.1;
    let cols = rt.im2col(&x4, &geom)?;
    let per_offset = rt.reshape(&cols, &[n as i64, c as i64, k as i64, (oh * ow) as i64])?;
    drop(cols);
    let sum = rt.reduce(ReduceOp::Sum, &per_offset, Some(2), false)?;
    let mean = bin_s(rt, BinaryOp::Div, &sum, k as f64)?;
    let out = unbatched(
        rt.reshape(&mean, &[n as i64, c as i64, oh as i64, ow as i64])?,
        x.shape(),
    )?;
    let out = in_format_of(rt, x, out)?;
    let backward = Backward::AvgPool {
        geom: geom.clone(),
        input: x.shape().to_vec(),
    };
    let out = record::attach_node(rt, mode, out, node, backward, &[x]);
    // Forward-mode AD: a mean is linear, so the tangent's the same pooling
    // of the input's tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        average(rt, mode, t, geom, node)
    })
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
    let input4: Vec<usize> = match input.len() {
        3 => [&[1], input].concat(),
        _ => input.to_vec(),
    };
    let gx = match which {
        Some(places) => {
            let (g, places) = (batched(g)?, batched(places)?);
            rt.max_pool2d_backward(&g, &places, geom, &input4)?
        }
        None => average_backward(rt, &batched(g)?, geom, &input4)?,
    };
    unbatched(gx, input)
}

/// The gradient of an average pool's input [N, C, H, W]: `g / (kh * kw)`
/// at every place of each window.
fn average_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    geom: &Geometry,
    input: &[usize],
) -> R<Arc<Tensor>> {
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
