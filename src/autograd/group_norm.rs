//! `group_norm` (`NativeGroupNormBackward0`): each sample's channels in
//! `G` groups, each group normalized over its channels and places, then a
//! weight and bias per channel; and `instance_norm` as PyTorch composes
//! it: the input viewed as one sample of `N * C` channels, a batch norm
//! over it (`ViewBackward0`, `NativeBatchNormBackward0`, the weight and
//! bias through `RepeatBackward0`).

use std::sync::Arc;

use super::functional::{batch_norm, into, layer_norm_backward, normalized_rows, BatchNormArgs};
use super::node::{Backward, Saved};
use super::{forward_ad, jvp, record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::shape::spaced_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `t` of `x`'s shape as [N, G, rest].
fn grouped(rt: &mut Runtime, mode: Mode, t: &Arc<Tensor>, groups: usize) -> R<Arc<Tensor>> {
    let n = t.shape()[0];
    let t = super::views::contiguous(rt, mode, t)?;
    let rest = t.numel() / (n * groups).max(1);
    super::create_graph::reshape(rt, mode, &t, &[n, groups, rest])
}

/// A per-channel [C] tensor shaped to broadcast against `x` [N, C, *].
fn per_channel(t: &Tensor, x: &Tensor) -> R<Tensor> {
    let mut dims = vec![1i64; x.ndim()];
    dims[1] = t.numel() as i64;
    t.reshape(&dims)
}

/// The dims a per-channel gradient sums over: all but the channels'.
fn all_but_channels(x: &Tensor) -> Vec<i64> {
    (0..x.ndim() as i64).filter(|&d| d != 1).collect()
}

/// `group_norm(x, num_groups, weight, bias, eps)`.
pub fn group_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    groups: usize,
    (weight, bias): (Option<&Arc<Tensor>>, Option<&Arc<Tensor>>),
    eps: f64,
) -> R<Arc<Tensor>> {
    let given: Vec<&Tensor> = [Some(x), weight, bias]
        .into_iter()
        .flatten()
        .map(|t| &**t)
        .collect();
    let cast = super::autocast::inputs(rt, mode, "group_norm", &given)?;
    let x = &cast.arc(0, x);
    if x.ndim() < 2 {
        return Err(Error::runtime(format!(
            "Expected at least 2 dimensions for input tensor but received {}",
            x.ndim()
        )));
    }
    let c = x.shape()[1];
    if groups == 0 || c % groups != 0 {
        return Err(Error::runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {} and num_groups={groups}",
            spaced_shape(x.shape())
        )));
    }
    for (t, what) in [(weight, "weight"), (bias, "bias")] {
        if let Some(t) = t {
            if t.ndim() != 1 || t.numel() != c {
                return Err(Error::runtime(format!(
                    "Expected {what} to be a vector of size equal to the number of channels in input, but got {what} of shape {} and input of shape {}",
                    spaced_shape(t.shape()),
                    spaced_shape(x.shape())
                )));
            }
        }
    }
    let x3 = grouped(rt, Mode::off(), x, groups)?;
    let (mean, rstd, y3) = normalized_rows(rt, &x3, 1, eps)?;
    let dims: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    let mut y = rt.reshape(&y3, &dims)?;
    drop(y3);
    // The weight and bias applied in place: one output buffer, as PyTorch's.
    if let Some(w) = weight {
        y = into(rt, BinaryOp::Mul, y, &per_channel(w, x)?)?;
    }
    if let Some(b) = bias {
        y = into(rt, BinaryOp::Add, y, &per_channel(b, x)?)?;
    }
    let mut inputs: Vec<&Tensor> = vec![x];
    inputs.extend(weight.map(|w| &**w));
    inputs.extend(bias.map(|b| &**b));
    let backward = Backward::GroupNorm {
        x: Saved::new(x),
        weight: weight.map(|w| Saved::new(w)),
        mean: Saved::new(&mean),
        rstd: Saved::new(&rstd),
        groups,
        bias: bias.is_some(),
        eps,
    };
    let y = record::attach_node(rt, mode, y, "NativeGroupNormBackward0", backward, &inputs);
    // Forward-mode AD: each group standardized (PyTorch's `group_norm_jvp`),
    // then the channels' affine map.
    forward_ad::carry(rt, Arc::clone(&y), &inputs, true, |rt, ts| {
        let tw = weight.and(ts.get(1).cloned().flatten());
        let tb = bias.and(ts.get(1 + weight.is_some() as usize).cloned().flatten());
        let x3 = grouped(rt, mode, x, groups)?;
        let tx3 = ts[0]
            .as_ref()
            .map(|t| grouped(rt, mode, t, groups))
            .transpose()?;
        let (x_hat, dx_hat) = jvp::standardized(
            &mut record::Recording { rt, mode },
            (&x3, &tx3),
            (&mean, &rstd),
            Some(&[2]),
        )?;
        let back = |rt: &mut Runtime, t: &Arc<Tensor>| super::views::reshape(rt, mode, t, &dims);
        let x_hat = back(rt, &x_hat)?;
        let dx_hat = dx_hat.map(|d| back(rt, &d)).transpose()?;
        let channels = |rt: &mut Runtime, t: Option<&Arc<Tensor>>| -> R<Option<Arc<Tensor>>> {
            t.map(|t| channel_view(rt, mode, t, x.ndim())).transpose()
        };
        let w = channels(rt, weight)?;
        let tw = channels(rt, tw.as_ref())?;
        let tb = channels(rt, tb.as_ref())?;
        jvp::affine(
            &mut record::Recording { rt, mode },
            (&x_hat, dx_hat),
            (w.as_deref(), &tw, &tb),
            &y,
        )
    })
}

/// A per-channel `t` ([C]) as [C, 1, ...] for an input of `ndim` dims,
/// recorded (`ViewBackward0`).
fn channel_view(rt: &mut Runtime, mode: Mode, t: &Arc<Tensor>, ndim: usize) -> R<Arc<Tensor>> {
    let mut shape = vec![1i64; ndim - 1];
    shape[0] = t.numel() as i64;
    super::views::reshape(rt, mode, t, &shape)
}

/// What `NativeGroupNormBackward0` kept: the input, the weight, each
/// group's mean and 1/std ([N, G, 1]).
pub type Kept<'a> = (
    &'a Arc<Tensor>,
    Option<&'a Arc<Tensor>>,
    &'a Arc<Tensor>,
    &'a Arc<Tensor>,
);

/// `NativeGroupNormBackward0`: the input's gradient is layer norm's over
/// each group (of `g * weight`), the weight's `g * x_hat` and the bias's
/// `g`, each summed over all but the channels.
pub fn group_norm_backward(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, w, mean, rstd): Kept,
    (groups, has_bias, eps): (usize, bool, f64),
    (want_x, want_w, want_b): (bool, bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    use super::create_graph as cg;
    let shape = x.shape().to_vec();
    let x3 = grouped(rt, mode, x, groups)?;
    // Creating a graph: each group's mean and 1/std again, from x (the
    // gradient depends on x through them too).
    let (mean, rstd) = match mode.enabled {
        true => {
            let st = super::functional::stats(rt, mode, &x3, &[2], eps)?;
            st.mean_invstd()
        }
        false => (Arc::clone(mean), Arc::clone(rstd)),
    };
    let per_channel = |rt: &mut Runtime, t: &Arc<Tensor>| {
        let mut dims = vec![1usize; x.ndim()];
        dims[1] = t.numel();
        cg::reshape(rt, mode, t, &dims)
    };
    let dx = match want_x {
        false => None,
        true => {
            let gw = match w {
                Some(w) => {
                    let w = per_channel(rt, w)?;
                    cg::bin(rt, mode, BinaryOp::Mul, g, &w)?
                }
                None => Arc::clone(g),
            };
            let g3 = grouped(rt, mode, &gw, groups)?;
            let kept = (&x3, None, &mean, &rstd);
            let parts = layer_norm_backward(rt, mode, &g3, kept, (1, false), (true, false, false))?;
            match parts.into_iter().next().flatten() {
                Some(d) => Some(cg::reshape(rt, mode, &d, &shape)?),
                None => None,
            }
        }
    };
    let mut out = vec![dx];
    let sum_dims = all_but_channels(x);
    if w.is_some() {
        out.push(match want_w {
            true => {
                let xm = cg::bin(rt, mode, BinaryOp::Sub, &x3, &mean)?;
                // Nothing recorded: one buffer of x's size, as PyTorch's.
                let t = match mode.enabled {
                    true => {
                        let xhat3 = cg::bin(rt, mode, BinaryOp::Mul, &xm, &rstd)?;
                        let xhat = cg::reshape(rt, mode, &xhat3, &shape)?;
                        cg::bin(rt, mode, BinaryOp::Mul, g, &xhat)?
                    }
                    false => {
                        let xhat3 = into(rt, BinaryOp::Mul, xm, &rstd)?;
                        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                        let xhat = rt.reshape(&xhat3, &dims)?;
                        drop(xhat3);
                        into(rt, BinaryOp::Mul, xhat, g)?
                    }
                };
                Some(record::reduce_dims(
                    rt,
                    mode,
                    ReduceOp::Sum,
                    &t,
                    &sum_dims,
                    false,
                )?)
            }
            false => None,
        });
    }
    if has_bias {
        out.push(match want_b {
            true => Some(record::reduce_dims(
                rt,
                mode,
                ReduceOp::Sum,
                g,
                &sum_dims,
                false,
            )?),
            false => None,
        });
    }
    Ok(out)
}

/// `instance_norm`'s settings: its affine parameters, its running
/// statistics (when it tracks them), whether it uses the input's
/// statistics, and batch norm's momentum and eps.
pub struct InstanceNormArgs<'a> {
    pub weight: Option<&'a Arc<Tensor>>,
    pub bias: Option<&'a Arc<Tensor>>,
    pub running_mean: Option<&'a Arc<Tensor>>,
    pub running_var: Option<&'a Arc<Tensor>>,
    pub use_input_stats: bool,
    pub momentum: f64,
    pub eps: f64,
}

/// `instance_norm(x, ...)` as PyTorch's `_instance_norm`: x [N, C, *]
/// viewed as [1, N * C, *], batch-normed with the weight, bias and running
/// statistics repeated N times; the running statistics then get the mean
/// over the samples of what batch norm left in the repeated ones.
pub fn instance_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    a: InstanceNormArgs,
) -> R<Arc<Tensor>> {
    if x.ndim() < 2 {
        return Err(Error::runtime(format!(
            "instance_norm expects an input [N, C, *], not {}",
            spaced_shape(x.shape())
        )));
    }
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let mut flat: Vec<i64> = vec![1, (n * c) as i64];
    flat.extend(x.shape()[2..].iter().map(|&d| d as i64));
    let xv = super::views::reshape(rt, mode, x, &flat)?;
    let repeat = |rt: &mut Runtime, t: &Arc<Tensor>| super::views::repeat(rt, mode, t, &[n]);
    let weight = a.weight.map(|w| repeat(rt, w)).transpose()?;
    let bias = a.bias.map(|b| repeat(rt, b)).transpose()?;
    let rm = a.running_mean.map(|t| repeat(rt, t)).transpose()?;
    let rv = a.running_var.map(|t| repeat(rt, t)).transpose()?;
    let args = BatchNormArgs {
        running_mean: rm.as_deref(),
        running_var: rv.as_deref(),
        weight: weight.as_ref(),
        bias: bias.as_ref(),
        training: a.use_input_stats,
        momentum: a.momentum,
        eps: a.eps,
    };
    let out = batch_norm(rt, mode, &xv, args)?;
    // Each running statistic: the mean over the samples of its copies.
    for (kept, copies) in [(a.running_mean, &rm), (a.running_var, &rv)] {
        if let (Some(kept), Some(copies), true) = (kept, copies, a.use_input_stats) {
            let per = rt.reshape(copies, &[n as i64, c as i64])?;
            let mean = rt.reduce(ReduceOp::Mean, &per, Some(0), false)?;
            rt.assign(kept, &mean)?;
        }
    }
    let dims: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    super::views::reshape(rt, mode, &out, &dims)
}
