//! `torch.nn.functional`'s `linear` and `dropout`, as PyTorch computes
//! and records them: `linear` of a matrix with a bias is one `addmm`
//! (`AddmmBackward0`); `dropout` on a GPU is the fused `native_dropout`
//! (its graph keeps a one-byte mask), on the cpu a multiply by a noise
//! tensor of the input's dtype (`MulBackward0` keeps the noise).

use std::sync::Arc;

use super::meta::requires_grad;
use super::node::{Backward, Saved};
use super::ops::{bin, bin_s};
use super::{forward_ad, jvp, record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Distribution, NewTensor};
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// `linear(x, w, b)`: `x @ w.T + b`, `w` of shape [out, in], `b` [out].
/// `w.t()`, a view recorded as `TBackward0`: how `linear` multiplies by
/// its weight.
fn transposed(rt: &Runtime, mode: Mode, w: &Arc<Tensor>) -> R<Arc<Tensor>> {
    Ok(record::attach_node(
        rt,
        mode,
        Arc::new(view::matrix_transpose(w)?),
        "TBackward0",
        Backward::Transpose { d0: 0, d1: 1 },
        &[w],
    ))
}

pub fn linear(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    w: &Arc<Tensor>,
    b: Option<&Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    let mut xs: Vec<&Tensor> = vec![x, w];
    xs.extend(b.map(|b| &**b));
    let cast = super::autocast::inputs(rt, mode, "linear", &xs)?;
    let (x, w) = (&cast.arc(0, x), &cast.arc(1, w));
    let cast_b = b.map(|b| cast.arc(2, b));
    let b = cast_b.as_ref();
    if w.ndim() != 2 && !(w.ndim() == 1 && b.is_none()) {
        return Err(Error::shape(format!(
            "linear() takes a weight of shape [out_features, in_features], not {}",
            fmt_shape(w.shape())
        )));
    }
    // PyTorch's `_flatten_nd_linear`: a contiguous input of another rank
    // than 2 with a bias is reshaped to rows (`ViewBackward0`), multiplied
    // by one addmm, and given its shape back (`UnsafeViewBackward0`).
    if x.ndim() != 2 && x.ndim() >= 1 && w.ndim() == 2 && b.is_some() && x.is_contiguous() {
        let k = x.shape()[x.ndim() - 1] as i64;
        let rows = super::views::reshape(rt, mode, x, &[-1, k])?;
        let flat = linear(rt, mode, &rows, w, b)?;
        let mut shape: Vec<i64> = x.shape()[..x.ndim() - 1]
            .iter()
            .map(|&d| d as i64)
            .collect();
        shape.push(w.shape()[0] as i64);
        let out = Arc::new(view::view(&flat, &shape)?);
        return Ok(record::unsafe_view(rt, mode, &flat, out));
    }
    let addmm = x.ndim() == 2 && w.ndim() == 2 && b.is_some();
    if !addmm {
        // matmul, then the bias: recorded op by op (TBackward0, MmBackward0, AddBackward0).
        let wt = match w.ndim() {
            1 => Arc::clone(w),
            _ => transposed(rt, mode, w)?,
        };
        let y = record::matmul(rt, mode, x, &wt)?;
        return match b {
            Some(b) => record::binary(
                rt,
                mode,
                BinaryOp::Add,
                Operand::strong(&y),
                Operand::strong(b),
            ),
            None => Ok(y),
        };
    }
    let b = b.expect("addmm has a bias");
    // PyTorch's `addmm(b, x, w.t())`: the transpose is a node of its own
    // (`TBackward0`, a view), the addmm's third input.
    let wt = transposed(rt, mode, w)?;
    let product = rt.matmul(x, &wt)?;
    let out = bin(rt, BinaryOp::Add, &product, b)?;
    drop(product);
    let backward = Backward::Addmm {
        x: requires_grad(&wt).then(|| Saved::new(x)),
        w: requires_grad(x).then(|| Saved::new(&wt)),
    };
    let out = record::attach_node(rt, mode, out, "AddmmBackward0", backward, &[b, x, &wt]);
    // The tangent: `tb + tx @ w.t() + x @ tw.t()` (addmm's forward formula).
    let inputs: [&Tensor; 3] = [b, x, &wt];
    super::forward_ad::carry(rt, Arc::clone(&out), &inputs, true, |rt, ts| {
        use super::jvp::Ops;
        let ops = &mut record::Recording { rt, mode };
        let p1 = ts[1].as_ref().map(|t| ops.matmul(t, &wt)).transpose()?;
        let p2 = ts[2].as_ref().map(|t| ops.matmul(x, t)).transpose()?;
        super::jvp::total(ops, vec![ts[0].clone(), p1, p2], &out)
    })
}

/// `dropout(x, p, training)`: each element zeroed with probability `p`,
/// the others scaled by `1 / (1 - p)`; `x` itself when not training or `p` is 0.
pub fn dropout(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    p: f64,
    training: bool,
) -> R<Arc<Tensor>> {
    check_dropout(x, p)?;
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(Arc::clone(x));
    }
    let zero = Tensor::scalar(0.0f64);
    if p == 1.0 {
        let zero = Operand::weak(&zero);
        return record::binary(rt, mode, BinaryOp::Mul, Operand::strong(x), zero);
    }
    let keep = kept(rt, x, x.shape(), p)?;
    let scale = 1.0 / (1.0 - p);
    if !x.device().is_cuda() {
        // PyTorch's cpu path: noise = bernoulli(1 - p) / (1 - p); x * noise.
        let noise = rt.cast(&keep, x.dtype())?;
        let noise = bin_s(rt, BinaryOp::Div, &noise, 1.0 - p)?;
        return record::binary(
            rt,
            mode,
            BinaryOp::Mul,
            Operand::strong(x),
            Operand::strong(&noise),
        );
    }
    // The fused kernel's result: x * mask * scale; the graph keeps the mask.
    let kept = bin(rt, BinaryOp::Mul, x, &keep)?;
    let out = bin_s(rt, BinaryOp::Mul, &kept, scale)?;
    drop(kept);
    let backward = Backward::NativeDropout {
        mask: Saved::new(&keep),
        scale,
    };
    let out = record::attach_node(rt, mode, out, "NativeDropoutBackward0", backward, &[x]);
    // The tangent: the tangent through the same mask, `t * mask * scale`.
    super::forward_ad::carry(rt, Arc::clone(&out), &[x], true, |rt, ts| {
        use super::pointwise_grad::Arith;
        let ops = &mut record::Recording { rt, mode };
        match &ts[0] {
            Some(t) => {
                let kept = ops.bin(BinaryOp::Mul, t, &keep)?;
                ops.bin_s(BinaryOp::Mul, &kept, scale)
            }
            None => super::ops::full_like(ops.rt, &out, 0),
        }
    })
}

/// `dropout(x, p, training, inplace=True)` (`nn.Dropout(p, inplace=True)`):
/// PyTorch's `dropout_`, which takes no fused kernel on any device: the
/// noise `bernoulli(1 - p) / (1 - p)` in x's dtype, written into x by
/// `x.mul_(noise)` (`MulBackward0`, the noise saved); `p == 1` multiplies
/// by a 0-d zero.
pub fn dropout_(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, p: f64, training: bool) -> R<()> {
    check_dropout(x, p)?;
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(());
    }
    let noise = noise(rt, x, x.shape(), p)?;
    super::inplace::binary_(rt, mode, BinaryOp::Mul, x, Operand::strong(&noise))
}

/// A dropout's noise of `shape` (x's, or one per channel): each element
/// `1 / (1 - p)` or 0, in x's dtype; for `p == 1` a 0-d zero.
fn noise(rt: &mut Runtime, x: &Tensor, shape: &[usize], p: f64) -> R<Arc<Tensor>> {
    if p == 1.0 {
        return super::ops::full(rt, &[], x.dtype(), x.device(), 0);
    }
    let keep = kept(rt, x, shape, p)?;
    let noise = rt.cast(&keep, x.dtype())?;
    drop(keep);
    // `noise.div_(1 - p)`: in place, as PyTorch's.
    rt.binary_(
        BinaryOp::Div,
        &noise,
        Operand::weak(&Tensor::scalar(1.0 - p)),
    )?;
    Ok(noise)
}

/// Which elements a dropout keeps: a bool tensor of `shape` on `x`'s
/// device, each true with probability `1 - p` (a uniform draw below it;
/// on the CPU a double, as PyTorch's `bernoulli_(1 - p)` draws).
fn kept(rt: &mut Runtime, x: &Tensor, shape: &[usize], p: f64) -> R<Arc<Tensor>> {
    let new = NewTensor {
        shape,
        dtype: match x.device().is_cuda() {
            true => x.dtype(),
            false => DType::F64,
        },
        device: x.device(),
        like: None,
    };
    let u = rt.random(new, Distribution::Uniform)?;
    bin_s(rt, BinaryOp::Lt, &u, 1.0 - p)
}

/// PyTorch's checks of a dropout: a probability, a float tensor.
fn check_dropout(x: &Tensor, p: f64) -> R<()> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {p}"
        )));
    }
    if !x.dtype().is_float() {
        return Err(Error::dtype(
            format!("dropout takes a float tensor, not {}", x.dtype()),
            Some("convert it first: `x.to(f32)`".into()),
        ));
    }
    Ok(())
}

/// `dropout2d(x, p, training)`: each channel of each sample (`x[n, c]`)
/// zeroed with probability `p`, the others scaled by `1 / (1 - p)`, as
/// PyTorch's feature dropout: one noise value per channel, `x * noise`
/// (`MulBackward0` on every device). `x`: (N, C, H, W), or (N, C, L).
pub fn dropout2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    p: f64,
    training: bool,
) -> R<Arc<Tensor>> {
    check_feature_dropout(rt, x, p)?;
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(Arc::clone(x));
    }
    let noise = feature_noise(rt, x, p)?;
    record::binary(
        rt,
        mode,
        BinaryOp::Mul,
        Operand::strong(x),
        Operand::strong(&noise),
    )
}

/// `dropout2d(x, p, training, inplace=True)`: the channels' noise written
/// into x (`x.mul_(noise)`, `MulBackward0`), as PyTorch's `feature_dropout_`.
pub fn dropout2d_(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, p: f64, training: bool) -> R<()> {
    check_feature_dropout(rt, x, p)?;
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(());
    }
    let noise = feature_noise(rt, x, p)?;
    super::inplace::binary_(rt, mode, BinaryOp::Mul, x, Operand::strong(&noise))
}

/// One noise value per channel of each sample: [N, C, 1, ...].
fn feature_noise(rt: &mut Runtime, x: &Tensor, p: f64) -> R<Arc<Tensor>> {
    let mut shape = vec![1; x.ndim()];
    shape[..2].copy_from_slice(&x.shape()[..2]);
    noise(rt, x, &shape, p)
}

/// A feature dropout's checks and PyTorch's warnings of its input's rank.
fn check_feature_dropout(rt: &mut Runtime, x: &Tensor, p: f64) -> R<()> {
    check_dropout(x, p)?;
    // PyTorch warns of any other rank but 3 and 4, and of 3 (read as
    // (N, C, L)), and drops features of whatever it is given: on a 2-D
    // input, single elements. Below 2-D its feature noise has no channel.
    let n = x.ndim();
    if n < 2 {
        return Err(Error::runtime(
            "Feature dropout requires at least 2 dimensions in the input",
        ));
    }
    if n != 3 && n != 4 {
        rt.note(format!(
            "UserWarning: dropout2d: Received a {n}-D input to dropout2d, which is deprecated \
             and will result in an error in a future release. To retain the behavior and \
             silence this warning, please use dropout instead. Note that dropout2d exists to \
             provide channel-wise dropout on inputs with 2 spatial dimensions, a channel \
             dimension, and an optional batch dimension (i.e. 3D or 4D inputs)."
        ));
    }
    if n == 3 {
        rt.note(
            "UserWarning: dropout2d: Received a 3D input to dropout2d and assuming that \
             channel-wise 1D dropout behavior is desired - input is interpreted as shape (N, C, \
             L), where C is the channel dim. This behavior will change in a future release to \
             interpret the input as one without a batch dimension, i.e. shape (C, H, W). To \
             maintain the 1D channel-wise dropout behavior, please switch to using dropout1d \
             instead."
                .into(),
        );
    }
    Ok(())
}

/// What `batch_norm` computes with, besides the input: the running
/// statistics (updated in training), the affine weight and bias, the mode,
/// `momentum` (none: the cumulative average, `1 / batches`) and `eps`.
pub struct BatchNormArgs<'a> {
    pub running_mean: Option<&'a Tensor>,
    pub running_var: Option<&'a Tensor>,
    pub weight: Option<&'a Arc<Tensor>>,
    pub bias: Option<&'a Arc<Tensor>>,
    pub training: bool,
    pub momentum: f64,
    pub eps: f64,
}

/// `batch_norm(x, ...)` as PyTorch's CPU `native_batch_norm`: per channel
/// (dim 1) the batch's mean and biased variance in training (the running
/// statistics updated in place: `momentum * batch + (1 - momentum) *
/// running`, the variance unbiased), the running ones in eval; then
/// `x * alpha + beta` with `alpha = invstd * weight`, `beta = bias - mean *
/// alpha`. One node, `NativeBatchNormBackward0`.
pub fn batch_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    a: BatchNormArgs,
) -> R<Arc<Tensor>> {
    let n = x.ndim();
    if n < 2 {
        return Err(Error::shape(format!(
            "batch_norm takes an input of shape [N, C, ...], not {}",
            fmt_shape(x.shape())
        )));
    }
    let c = x.shape()[1];
    let dims: Vec<usize> = std::iter::once(0).chain(2..n).collect();
    let dims_i: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let per_channel = x.numel() / c.max(1);
    // [1, C, 1, ...]: a channel's value against every element of it.
    let mut bshape = vec![1i64; n];
    bshape[1] = c as i64;
    let chan = |rt: &mut Runtime, t: &Tensor| rt.reshape(&Arc::new(t.alias()), &bshape);
    let use_batch = a.training || a.running_mean.is_none();
    let (mean, invstd) = if use_batch {
        if a.training && per_channel <= 1 {
            return Err(Error::value(format!(
                "Expected more than 1 value per channel when training, got input size torch.Size([{}])",
                x.shape().iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
            )));
        }
        let st = stats(rt, Mode::off(), x, &dims_i, a.eps)?;
        let (mean, var_sum) = (&st.mean, &st.var_sum);
        if a.training {
            if let (Some(rm), Some(rv)) = (a.running_mean, a.running_var) {
                let m = a.momentum;
                let flat = |rt: &mut Runtime, t: &Arc<Tensor>| rt.reshape(t, &[c as i64]);
                let mean_c = flat(rt, mean)?;
                let unbiased = bin_s(
                    rt,
                    BinaryOp::Div,
                    var_sum,
                    (per_channel as f64 - 1.0).max(1.0),
                )?;
                let unbiased = flat(rt, &unbiased)?;
                // In f64, as PyTorch's CPU kernel (its accumulate type),
                // then stored in the buffer's dtype.
                for (running, batch) in [(rm, &mean_c), (rv, &unbiased)] {
                    let batch = rt.cast(batch, DType::F64)?;
                    let old = rt.cast(running, DType::F64)?;
                    let scaled = bin_s(rt, BinaryOp::Mul, &batch, m)?;
                    let kept = bin_s(rt, BinaryOp::Mul, &old, 1.0 - m)?;
                    let new = bin(rt, BinaryOp::Add, &scaled, &kept)?;
                    let new = rt.cast(&new, running.dtype())?;
                    rt.assign(running, &new)?;
                }
            }
        }
        st.mean_invstd()
    } else {
        let (rm, rv) = (
            a.running_mean.expect("checked"),
            a.running_var.expect("checked"),
        );
        let mean = chan(rt, rm)?;
        let var = chan(rt, rv)?;
        let mean = rt.cast(&mean, x.dtype())?;
        let var = rt.cast(&var, x.dtype())?;
        (mean, inverse_std(rt, &var, a.eps)?)
    };
    // y = x * alpha + beta
    let alpha = match a.weight {
        Some(w) => {
            let w = chan(rt, w)?;
            bin(rt, BinaryOp::Mul, &invstd, &w)?
        }
        None => Arc::clone(&invstd),
    };
    let ma = bin(rt, BinaryOp::Mul, &mean, &alpha)?;
    let beta = match a.bias {
        Some(b) => {
            let b = chan(rt, b)?;
            bin(rt, BinaryOp::Sub, &b, &ma)?
        }
        None => rt.unary(crate::runtime::op::unary::UnaryOp::Neg, &ma)?,
    };
    drop(ma);
    // One buffer of x's size, the output (PyTorch's kernel writes it once):
    // `x * alpha`, then `+ beta` in place.
    let out = bin(rt, BinaryOp::Mul, x, &alpha)?;
    drop(alpha);
    let out = into(rt, BinaryOp::Add, out, &beta)?;
    drop(beta);
    // A 16-bit input with float32 weights and statistics (what autocast
    // gives a BatchNorm after a convolution): computed in float32, given
    // back in the input's dtype, as PyTorch's mixed-type batch norm.
    let out = match x.dtype() {
        DType::F16 | DType::BF16 if out.dtype() != x.dtype() => rt.cast(&out, x.dtype())?,
        _ => out,
    };
    let mut inputs: Vec<&Tensor> = vec![x];
    if let Some(w) = a.weight {
        inputs.push(w);
    }
    if let Some(b) = a.bias {
        inputs.push(b);
    }
    let backward = Backward::BatchNorm {
        x: Saved::new(x),
        weight: a.weight.map(|w| Saved::new(w)),
        mean: Saved::new(&mean),
        invstd: Saved::new(&invstd),
        dims,
        train: use_batch,
        eps: a.eps,
    };
    let out = record::attach_node(rt, mode, out, "NativeBatchNormBackward0", backward, &inputs);
    // Forward-mode AD: PyTorch's `batch_norm_jvp`; in eval the running
    // statistics are constants.
    forward_ad::carry(rt, Arc::clone(&out), &inputs, true, |rt, ts| {
        let (tw, tb) = tangents_of_affine(ts, a.weight.is_some(), a.bias.is_some());
        let per_channel = |rt: &mut Runtime, t: Option<&Arc<Tensor>>| -> R<Option<Arc<Tensor>>> {
            t.map(|t| super::views::reshape(rt, mode, t, &bshape))
                .transpose()
        };
        let w = per_channel(rt, a.weight)?;
        let tw = per_channel(rt, tw.as_ref())?;
        let tb = per_channel(rt, tb.as_ref())?;
        let dims = use_batch.then_some(dims_i.as_slice());
        jvp::normalized(
            &mut record::Recording { rt, mode },
            (x, &ts[0]),
            (&mean, &invstd),
            dims,
            (w.as_deref(), &tw, &tb),
            &out,
        )
    })
}

/// `1 / sqrt(var + eps)`.
fn inverse_std(rt: &mut Runtime, var: &Tensor, eps: f64) -> R<Arc<Tensor>> {
    let v = bin_s(rt, BinaryOp::Add, var, eps)?;
    let s = rt.unary(crate::runtime::op::unary::UnaryOp::Sqrt, &v)?;
    super::ops::s_bin(rt, BinaryOp::Div, 1.0, &s)
}

/// What a normalization computes of x over `dims` (kept dims): the sum,
/// the mean, the sum of squared deviations, the biased variance and
/// `1 / sqrt(var + eps)`.
pub struct Stats {
    pub sum: Arc<Tensor>,
    pub mean: Arc<Tensor>,
    pub var_sum: Arc<Tensor>,
    pub var: Arc<Tensor>,
    pub invstd: Arc<Tensor>,
}

impl Stats {
    /// The mean and 1/std, the rest freed (the variance, then the sum of
    /// squares, then the sum: the order the forward's caching allocator
    /// timeline has always shown).
    pub fn mean_invstd(self) -> (Arc<Tensor>, Arc<Tensor>) {
        let Stats {
            sum,
            mean,
            var_sum,
            var,
            invstd,
        } = self;
        drop((var, var_sum, sum));
        (mean, invstd)
    }
}

/// x's statistics over `dims`, as layer, group and batch norm's forward
/// compute them (the deviations and their squares freed as soon as they
/// are summed); recorded in `mode`: a backward that creates a graph
/// computes them again from the saved input, so that its gradient depends
/// on the input through them too.
pub fn stats(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, dims: &[i64], eps: f64) -> R<Stats> {
    use super::create_graph as cg;
    use crate::runtime::op::reduce::ReduceOp;
    let n = dims
        .iter()
        .map(|&d| x.shape()[d as usize])
        .product::<usize>() as f64;
    let sum = record::reduce_dims(rt, mode, ReduceOp::Sum, x, dims, true)?;
    let mean = cg::bin_s(rt, mode, BinaryOp::Div, &sum, n)?;
    let diff = cg::bin(rt, mode, BinaryOp::Sub, x, &mean)?;
    // Nothing recorded: squared in place, one buffer of x's size.
    let sq = match mode.enabled {
        true => cg::bin(rt, mode, BinaryOp::Mul, &diff, &diff)?,
        false => {
            let same = Arc::clone(&diff);
            into(rt, BinaryOp::Mul, diff, &same)?
        }
    };
    let var_sum = record::reduce_dims(rt, mode, ReduceOp::Sum, &sq, dims, true)?;
    drop(sq);
    let var = cg::bin_s(rt, mode, BinaryOp::Div, &var_sum, n)?;
    let v = cg::bin_s(rt, mode, BinaryOp::Add, &var, eps)?;
    let s = cg::unary(rt, mode, crate::runtime::op::unary::UnaryOp::Sqrt, &v)?;
    let invstd = cg::s_bin(rt, mode, BinaryOp::Div, 1.0, &s)?;
    Ok(Stats {
        sum,
        mean,
        var_sum,
        var,
        invstd,
    })
}

/// x's rows over its last `k` dims normalized: each row's mean and 1/std
/// (biased variance, `eps` added; kept dims) and `x * rstd - mean * rstd`
/// (layer norm's and group norm's core).
pub fn normalized_rows(
    rt: &mut Runtime,
    x: &Arc<Tensor>,
    k: usize,
    eps: f64,
) -> R<(Arc<Tensor>, Arc<Tensor>, Arc<Tensor>)> {
    let dims: Vec<i64> = (x.ndim() - k..x.ndim()).map(|d| d as i64).collect();
    let st = stats(rt, Mode::off(), x, &dims, eps)?;
    // y = x * rstd + (-mean * rstd)
    let shift = bin(rt, BinaryOp::Mul, &st.mean, &st.invstd)?;
    // One buffer of x's size, the output: `x * rstd`, then `- shift` in place.
    let y = bin(rt, BinaryOp::Mul, x, &st.invstd)?;
    let y = into(rt, BinaryOp::Sub, y, &shift)?;
    drop(shift);
    let (mean, invstd) = st.mean_invstd();
    Ok((mean, invstd, y))
}

/// What `NativeBatchNormBackward0` kept: the input, the weight, each
/// channel's mean and 1/std.
type Kept<'a> = (
    &'a Arc<Tensor>,
    Option<&'a Arc<Tensor>>,
    &'a Arc<Tensor>,
    &'a Arc<Tensor>,
);

/// `NativeBatchNormBackward0`: PyTorch's `batch_norm_backward_cpu`. With
/// `sum` the channel's sum of `g` and `dotp` its sum of `g * (x - mean)`:
/// in training `dx = (g - sum / N - (x - mean) * dotp * invstd^2 / N) *
/// invstd * w`, in eval `g * invstd * w`; `dw = dotp * invstd`, `db = sum`.
pub fn batch_norm_backward(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, w, mean, invstd): Kept,
    (dims, train): (&[usize], bool),
    wanted: (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    use super::create_graph as cg;
    use crate::runtime::op::reduce::ReduceOp;
    let c = x.shape()[1];
    let dims_i: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let n = (x.numel() / c.max(1)) as f64;
    if !mode.enabled {
        return batch_norm_backward_in_place(rt, g, (x, w, mean, invstd), (dims, train), wanted);
    }
    let (want_x, want_w, want_b) = wanted;
    let sum = record::reduce_dims(rt, mode, ReduceOp::Sum, g, &dims_i, true)?;
    let xm = cg::bin(rt, mode, BinaryOp::Sub, x, mean)?;
    let gx = cg::bin(rt, mode, BinaryOp::Mul, &xm, g)?;
    let dotp = record::reduce_dims(rt, mode, ReduceOp::Sum, &gx, &dims_i, true)?;
    drop(gx);
    let mut bshape = vec![1usize; x.ndim()];
    bshape[1] = c;
    let scale = match w {
        Some(w) => {
            let w = cg::reshape(rt, mode, w, &bshape)?;
            cg::bin(rt, mode, BinaryOp::Mul, invstd, &w)?
        }
        None => Arc::clone(invstd),
    };
    let dx = match (want_x, train) {
        (false, _) => None,
        (true, true) => {
            let k = cg::bin(rt, mode, BinaryOp::Mul, &dotp, invstd)?;
            let k = cg::bin(rt, mode, BinaryOp::Mul, &k, invstd)?;
            let k = cg::bin_s(rt, mode, BinaryOp::Div, &k, n)?;
            let proj = cg::bin(rt, mode, BinaryOp::Mul, &xm, &k)?;
            let grad_mean = cg::bin_s(rt, mode, BinaryOp::Div, &sum, n)?;
            let centred = cg::bin(rt, mode, BinaryOp::Sub, g, &grad_mean)?;
            let d = cg::bin(rt, mode, BinaryOp::Sub, &centred, &proj)?;
            Some(cg::bin(rt, mode, BinaryOp::Mul, &d, &scale)?)
        }
        (true, false) => Some(cg::bin(rt, mode, BinaryOp::Mul, g, &scale)?),
    };
    let mut out = vec![dx];
    if w.is_some() {
        out.extend(batch_norm_param_grads(
            rt,
            mode,
            (&dotp, &sum, invstd),
            (want_w, want_b),
        )?);
    }
    Ok(out)
}

/// Batch norm's weight and bias gradients, each channel's: `dotp * invstd`
/// and `sum` (of `g * (x - mean)` and of `g`), flat.
fn batch_norm_param_grads(
    rt: &mut Runtime,
    mode: Mode,
    (dotp, sum, invstd): (&Arc<Tensor>, &Arc<Tensor>, &Arc<Tensor>),
    (want_w, want_b): (bool, bool),
) -> R<[Option<Arc<Tensor>>; 2]> {
    use super::create_graph as cg;
    let c = sum.numel() as i64;
    let dw = match want_w {
        true => {
            let dw = cg::bin(rt, mode, BinaryOp::Mul, dotp, invstd)?;
            Some(cg::reshape(rt, mode, &dw, &[c as usize])?)
        }
        false => None,
    };
    let db = match want_b {
        true => Some(cg::reshape(rt, mode, sum, &[c as usize])?),
        false => None,
    };
    Ok([dw, db])
}

/// `t op other` written into `t` (a fresh buffer of the caller's) when the
/// result keeps t's dtype, as the out-of-place op would round it; else a
/// new tensor. The norms' backwards use it to hold as few buffers of the
/// input's size as PyTorch's kernels.
pub(super) fn into(
    rt: &mut Runtime,
    op: BinaryOp,
    t: Arc<Tensor>,
    other: &Tensor,
) -> R<Arc<Tensor>> {
    let keeps =
        crate::runtime::op::binary::result_dtype(Operand::strong(&t), Operand::strong(other))
            == t.dtype();
    match keeps {
        true => {
            rt.binary_(op, &t, Operand::strong(other))?;
            Ok(t)
        }
        false => bin(rt, op, &t, other),
    }
}

/// `NativeBatchNormBackward0` with nothing recorded, in the same order of
/// roundings as `batch_norm_backward` but written into two buffers of x's
/// size at most (PyTorch's kernel allocates one, `grad_input`, and keeps
/// the rest in registers): `(x - mean) * g` is summed in place, then
/// `(x - mean) * k` and `g - sum / N` are made and the second takes the
/// first off, and the scale, in place.
fn batch_norm_backward_in_place(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x, w, mean, invstd): Kept,
    (dims, train): (&[usize], bool),
    (want_x, want_w, want_b): (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    use crate::runtime::op::reduce::ReduceOp;
    let c = x.shape()[1];
    let dims_i: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let n = (x.numel() / c.max(1)) as f64;
    let sum = rt.reduce_dims(ReduceOp::Sum, g, &dims_i, true)?;
    let gx = bin(rt, BinaryOp::Sub, x, mean)?;
    let gx = into(rt, BinaryOp::Mul, gx, g)?;
    let dotp = rt.reduce_dims(ReduceOp::Sum, &gx, &dims_i, true)?;
    drop(gx);
    let mut bshape = vec![1i64; x.ndim()];
    bshape[1] = c as i64;
    let scale = match w {
        Some(w) => {
            let w = rt.reshape(w, &bshape)?;
            bin(rt, BinaryOp::Mul, invstd, &w)?
        }
        None => Arc::clone(invstd),
    };
    let dx = match (want_x, train) {
        (false, _) => None,
        (true, true) => {
            let k = bin(rt, BinaryOp::Mul, &dotp, invstd)?;
            let k = bin(rt, BinaryOp::Mul, &k, invstd)?;
            let k = bin_s(rt, BinaryOp::Div, &k, n)?;
            let proj = bin(rt, BinaryOp::Sub, x, mean)?;
            let proj = into(rt, BinaryOp::Mul, proj, &k)?;
            let grad_mean = bin_s(rt, BinaryOp::Div, &sum, n)?;
            let d = bin(rt, BinaryOp::Sub, g, &grad_mean)?;
            let d = into(rt, BinaryOp::Sub, d, &proj)?;
            drop(proj);
            Some(into(rt, BinaryOp::Mul, d, &scale)?)
        }
        (true, false) => Some(bin(rt, BinaryOp::Mul, g, &scale)?),
    };
    let mut out = vec![dx];
    if w.is_some() {
        let mode = Mode::off();
        out.extend(batch_norm_param_grads(
            rt,
            mode,
            (&dotp, &sum, invstd),
            (want_w, want_b),
        )?);
    }
    Ok(out)
}

/// `layer_norm(x, normalized_shape, weight, bias, eps)` as PyTorch's CPU
/// `native_layer_norm`: each row (the last `normalized_shape` dims) by its
/// own mean and biased variance, `(x * rstd - mean * rstd) * weight + bias`.
/// One node, `NativeLayerNormBackward0`.
pub fn layer_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    normalized: &[usize],
    (weight, bias): (Option<&Arc<Tensor>>, Option<&Arc<Tensor>>),
    eps: f64,
) -> R<Arc<Tensor>> {
    // Autocast: float32 for every input given.
    let given: Vec<&Arc<Tensor>> = [Some(x), weight, bias].into_iter().flatten().collect();
    let refs: Vec<&Tensor> = given.iter().map(|t| &***t).collect();
    let cast = super::autocast::inputs(rt, mode, "layer_norm", &refs)?;
    let x = &cast.arc(0, x);
    let (weight, bias) = {
        let mut k = 0;
        let mut next = |t: Option<&Arc<Tensor>>| {
            t.map(|t| {
                k += 1;
                cast.arc(k, t)
            })
        };
        (next(weight), next(bias))
    };
    let (weight, bias) = (weight.as_ref(), bias.as_ref());
    let k = normalized.len();
    if k == 0 || x.ndim() < k || x.shape()[x.ndim() - k..] != *normalized {
        return Err(Error::shape(format!(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
            fmt_shape(normalized),
            normalized
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            fmt_shape(x.shape())
        )));
    }
    // The weight and bias applied in place: one output buffer, as PyTorch's.
    let (mean, rstd, mut y) = normalized_rows(rt, x, k, eps)?;
    if let Some(w) = weight {
        y = into(rt, BinaryOp::Mul, y, w)?;
    }
    if let Some(b) = bias {
        y = into(rt, BinaryOp::Add, y, b)?;
    }
    let mut inputs: Vec<&Tensor> = vec![x];
    if let Some(w) = weight {
        inputs.push(w);
    }
    if let Some(b) = bias {
        inputs.push(b);
    }
    let backward = Backward::LayerNorm {
        x: Saved::new(x),
        weight: weight.map(|w| Saved::new(w)),
        mean: Saved::new(&mean),
        rstd: Saved::new(&rstd),
        dims: k,
        bias: bias.is_some(),
        eps,
    };
    let y = record::attach_node(rt, mode, y, "NativeLayerNormBackward0", backward, &inputs);
    // Forward-mode AD: PyTorch's `layer_norm_jvp` over each row.
    let dims: Vec<i64> = (x.ndim() - k..x.ndim()).map(|d| d as i64).collect();
    forward_ad::carry(rt, Arc::clone(&y), &inputs, true, |rt, ts| {
        let (tw, tb) = tangents_of_affine(ts, weight.is_some(), bias.is_some());
        jvp::normalized(
            &mut record::Recording { rt, mode },
            (x, &ts[0]),
            (&mean, &rstd),
            Some(&dims),
            (weight.map(|w| &**w), &tw, &tb),
            &y,
        )
    })
}

/// The tangents of an affine normalization's weight and bias (after the
/// input's, for those given).
fn tangents_of_affine(
    ts: &[Option<Arc<Tensor>>],
    weight: bool,
    bias: bool,
) -> (Option<Arc<Tensor>>, Option<Arc<Tensor>>) {
    let tw = weight.then(|| ts[1].clone()).flatten();
    let tb = bias.then(|| ts[1 + weight as usize].clone()).flatten();
    (tw, tb)
}

/// `NativeLayerNormBackward0`: PyTorch's `layer_norm_backward`. Per row of
/// N elements, with `gw = g * weight`: `ds = sum(gw * x)`, `db = sum(gw)`,
/// `b = (db * mean - ds) * rstd^3 / N`, `c = -b * mean - db * rstd / N`,
/// `dx = rstd * gw + b * x + c`; the weight's gradient sums `g * (x -
/// mean) * rstd` over the rows, the bias's `g`.
pub fn layer_norm_backward(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, w, mean, rstd): Kept,
    (k, has_bias): (usize, bool),
    wanted: (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    use super::create_graph as cg;
    use crate::runtime::op::reduce::ReduceOp;
    if !mode.enabled {
        return layer_norm_backward_in_place(rt, g, (x, w, mean, rstd), (k, has_bias), wanted);
    }
    let (want_x, want_w, want_b) = wanted;
    let sum = |rt: &mut Runtime, t: &Arc<Tensor>, dims: &[i64], keep: bool| {
        record::reduce_dims(rt, mode, ReduceOp::Sum, t, dims, keep)
    };
    let nd = x.ndim();
    let row_dims: Vec<i64> = (nd - k..nd).map(|d| d as i64).collect();
    let batch_dims: Vec<i64> = (0..nd - k).map(|d| d as i64).collect();
    let n: usize = x.shape()[nd - k..].iter().product();
    let gw = match w {
        Some(w) => cg::bin(rt, mode, BinaryOp::Mul, g, w)?,
        None => Arc::clone(g),
    };
    let dx = match want_x {
        false => None,
        true => {
            let gwx = cg::bin(rt, mode, BinaryOp::Mul, &gw, x)?;
            let ds = sum(rt, &gwx, &row_dims, true)?;
            drop(gwx);
            let db = sum(rt, &gw, &row_dims, true)?;
            let r3 = cg::bin(rt, mode, BinaryOp::Mul, rstd, rstd)?;
            let r3 = cg::bin(rt, mode, BinaryOp::Mul, &r3, rstd)?;
            let dbm = cg::bin(rt, mode, BinaryOp::Mul, &db, mean)?;
            let diff = cg::bin(rt, mode, BinaryOp::Sub, &dbm, &ds)?;
            let bcoef = cg::bin(rt, mode, BinaryOp::Mul, &diff, &r3)?;
            let bcoef = cg::bin_s(rt, mode, BinaryOp::Div, &bcoef, n as f64)?;
            let bm = cg::bin(rt, mode, BinaryOp::Mul, &bcoef, mean)?;
            let dbr = cg::bin(rt, mode, BinaryOp::Mul, &db, rstd)?;
            let dbr = cg::bin_s(rt, mode, BinaryOp::Div, &dbr, n as f64)?;
            let neg_bm = cg::neg(rt, mode, &bm)?;
            let c = cg::bin(rt, mode, BinaryOp::Sub, &neg_bm, &dbr)?;
            let a = cg::bin(rt, mode, BinaryOp::Mul, &gw, rstd)?;
            let bx = cg::bin(rt, mode, BinaryOp::Mul, &bcoef, x)?;
            let s = cg::bin(rt, mode, BinaryOp::Add, &a, &bx)?;
            Some(cg::bin(rt, mode, BinaryOp::Add, &s, &c)?)
        }
    };
    let mut out = vec![dx];
    if w.is_some() {
        out.push(match want_w {
            true => {
                let xm = cg::bin(rt, mode, BinaryOp::Sub, x, mean)?;
                let xhat = cg::bin(rt, mode, BinaryOp::Mul, &xm, rstd)?;
                let t = cg::bin(rt, mode, BinaryOp::Mul, g, &xhat)?;
                Some(match batch_dims.is_empty() {
                    true => t,
                    false => sum(rt, &t, &batch_dims, false)?,
                })
            }
            false => None,
        });
    }
    if has_bias {
        out.push(match want_b {
            true => Some(match batch_dims.is_empty() {
                true => Arc::clone(g),
                false => sum(rt, g, &batch_dims, false)?,
            }),
            false => None,
        });
    }
    Ok(out)
}

/// `NativeLayerNormBackward0` with nothing recorded: the same roundings in
/// the same order as `layer_norm_backward`, written into two buffers of
/// x's size at most (PyTorch's kernel allocates `grad_input` alone): `gw`
/// becomes `rstd * gw`, then `+ b * x` and `+ c` in place; the weight's
/// `g * (x - mean) * rstd` in one buffer.
fn layer_norm_backward_in_place(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (x, w, mean, rstd): Kept,
    (k, has_bias): (usize, bool),
    (want_x, want_w, want_b): (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    use crate::runtime::op::reduce::ReduceOp;
    let nd = x.ndim();
    let row_dims: Vec<i64> = (nd - k..nd).map(|d| d as i64).collect();
    let batch_dims: Vec<i64> = (0..nd - k).map(|d| d as i64).collect();
    let n = x.shape()[nd - k..].iter().product::<usize>() as f64;
    let dx = match want_x {
        false => None,
        true => {
            let gw = match w {
                Some(w) => bin(rt, BinaryOp::Mul, g, w)?,
                None => Arc::clone(g),
            };
            let gwx = bin(rt, BinaryOp::Mul, &gw, x)?;
            let ds = rt.reduce_dims(ReduceOp::Sum, &gwx, &row_dims, true)?;
            drop(gwx);
            let db = rt.reduce_dims(ReduceOp::Sum, &gw, &row_dims, true)?;
            let r3 = bin(rt, BinaryOp::Mul, rstd, rstd)?;
            let r3 = bin(rt, BinaryOp::Mul, &r3, rstd)?;
            let dbm = bin(rt, BinaryOp::Mul, &db, mean)?;
            let diff = bin(rt, BinaryOp::Sub, &dbm, &ds)?;
            let bcoef = bin(rt, BinaryOp::Mul, &diff, &r3)?;
            let bcoef = bin_s(rt, BinaryOp::Div, &bcoef, n)?;
            let bm = bin(rt, BinaryOp::Mul, &bcoef, mean)?;
            let dbr = bin(rt, BinaryOp::Mul, &db, rstd)?;
            let dbr = bin_s(rt, BinaryOp::Div, &dbr, n)?;
            let neg_bm = rt.unary(crate::runtime::op::unary::UnaryOp::Neg, &bm)?;
            let c = bin(rt, BinaryOp::Sub, &neg_bm, &dbr)?;
            // `gw * rstd` into gw's own buffer when it is one of its own.
            let a = match w {
                Some(_) => into(rt, BinaryOp::Mul, gw, rstd)?,
                None => bin(rt, BinaryOp::Mul, &gw, rstd)?,
            };
            let bx = bin(rt, BinaryOp::Mul, &bcoef, x)?;
            let a = into(rt, BinaryOp::Add, a, &bx)?;
            drop(bx);
            Some(into(rt, BinaryOp::Add, a, &c)?)
        }
    };
    let mut out = vec![dx];
    if w.is_some() {
        out.push(match want_w {
            true => {
                let t = bin(rt, BinaryOp::Sub, x, mean)?;
                let t = into(rt, BinaryOp::Mul, t, rstd)?;
                let t = into(rt, BinaryOp::Mul, t, g)?;
                Some(match batch_dims.is_empty() {
                    true => t,
                    false => rt.reduce_dims(ReduceOp::Sum, &t, &batch_dims, false)?,
                })
            }
            false => None,
        });
    }
    if has_bias {
        out.push(match want_b {
            true => Some(match batch_dims.is_empty() {
                true => Arc::clone(g),
                false => rt.reduce_dims(ReduceOp::Sum, g, &batch_dims, false)?,
            }),
            false => None,
        });
    }
    Ok(out)
}
