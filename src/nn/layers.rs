//! The built-in layers: what each holds, how PyTorch initialises it, and
//! its forward on the functional ops (recorded by autograd as PyTorch's).
//! `Sequential`, `ModuleList` and a user's class run their children's
//! forwards in the interpreter, which may call back into user code.

use std::sync::Arc;

pub use super::layer::Layer;
use super::module::Module;
use crate::autograd::losses;
use crate::autograd::{activation_ops, functional, meta, record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::Operand;
use crate::runtime::op::factory::{Distribution, NewTensor};
use crate::runtime::{DType, Device, Tensor};
use crate::vocab::BinaryOp;

/// Where a new layer's tensors are made (`device=`, `dtype=` of PyTorch's
/// factory arguments; cpu and f32 by default).
#[derive(Clone, Copy)]
pub struct Place {
    pub device: Device,
    pub dtype: DType,
}

/// `Linear(in, out, bias)`: PyTorch's `reset_parameters`, a weight
/// [out, in] from `kaiming_uniform_(a=sqrt(5))` (uniform within
/// 1/sqrt(in)) and a bias [out] uniform within 1/sqrt(in), drawn from the
/// device's generator in that order.
pub fn linear(
    rt: &mut Runtime,
    in_features: usize,
    out_features: usize,
    bias: bool,
    at: Place,
) -> Result<Module, Error> {
    let mut m = Module::new(
        "Linear",
        Layer::Linear {
            in_features,
            out_features,
        },
    );
    let bound = match in_features {
        0 => 0.0,
        n => 1.0 / (n as f64).sqrt(),
    };
    let w = uniform(
        rt,
        &[out_features, in_features],
        kaiming_bound(in_features),
        at,
    )?;
    m.set_parameter("weight", Some(w))?;
    let b = match bias {
        true => Some(uniform(rt, &[out_features], bound, at)?),
        false => None,
    };
    m.set_parameter("bias", b)?;
    Ok(m)
}

/// `Bilinear(in1, in2, out, bias)`: a weight [out, in1, in2] and a bias
/// [out], each uniform in ±1/sqrt(in1) (PyTorch's `reset_parameters`,
/// the weight drawn first).
pub fn bilinear(
    rt: &mut Runtime,
    (in1_features, in2_features, out_features): (usize, usize, usize),
    bias: bool,
    at: Place,
) -> Result<Module, Error> {
    let layer = Layer::Bilinear {
        in1_features,
        in2_features,
        out_features,
    };
    let mut m = Module::new("Bilinear", layer);
    let bound = match in1_features {
        0 => 0.0,
        n => 1.0 / (n as f64).sqrt(),
    };
    let shape = [out_features, in1_features, in2_features];
    m.set_parameter("weight", Some(uniform(rt, &shape, bound, at)?))?;
    let b = match bias {
        true => Some(uniform(rt, &[out_features], bound, at)?),
        false => None,
    };
    m.set_parameter("bias", b)?;
    Ok(m)
}

/// `Embedding(num, dim)`: a weight [num, dim] of standard normal numbers
/// (PyTorch's `reset_parameters`: `normal_()`), from the device's generator.
pub fn embedding(
    rt: &mut Runtime,
    num_embeddings: usize,
    embedding_dim: usize,
    padding_idx: Option<i64>,
    at: Place,
) -> Result<Module, Error> {
    let padding_idx = padding_idx
        .map(|p| record::padding_row(p, num_embeddings))
        .transpose()?;
    let mut m = Module::new(
        "Embedding",
        Layer::Embedding {
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm: None,
        },
    );
    let new = NewTensor {
        shape: &[num_embeddings, embedding_dim],
        dtype: at.dtype,
        device: at.device,
        like: None,
    };
    let w = filled(rt.random(new, Distribution::Normal)?);
    // PyTorch zeroes the padding row after drawing.
    if let Some(p) = padding_idx {
        let zero = rt.tensor(&Tensor::scalar(0.0f32), at.dtype, at.device)?;
        let rows = crate::runtime::op::view::unbind(&w, 0)?;
        rt.assign(&rows[p as usize], &zero)?;
    }
    m.set_parameter("weight", Some(Arc::new(meta::parameter(&w, true))))?;
    Ok(m)
}

/// A parameter or buffer PyTorch makes empty and then fills in place
/// (`init.ones_`, `zero_()`, `normal_`): one write, so its `_version` is
/// 1, as PyTorch's (cudash makes it filled).
pub fn filled(t: Arc<Tensor>) -> Arc<Tensor> {
    t.bump_version();
    t
}

/// `LayerNorm(normalized_shape, ...)`: weight ones and bias zeros of that
/// shape (when elementwise_affine), as PyTorch's.
pub fn layer_norm(rt: &mut Runtime, layer: Layer, at: Place) -> Result<Module, Error> {
    let Layer::LayerNorm {
        normalized_shape,
        elementwise_affine,
        bias,
        ..
    } = &layer
    else {
        return Err(Error::value("internal error: not a layer norm"));
    };
    let shape = normalized_shape.clone();
    let (affine, bias) = (*elementwise_affine, *bias);
    let mut m = Module::new("LayerNorm", layer);
    if affine {
        let w = filled(crate::autograd::ops::full(
            rt, &shape, at.dtype, at.device, 1,
        )?);
        m.set_parameter("weight", Some(Arc::new(meta::parameter(&w, true))))?;
        if bias {
            let b = filled(crate::autograd::ops::full(
                rt, &shape, at.dtype, at.device, 0,
            )?);
            m.set_parameter("bias", Some(Arc::new(meta::parameter(&b, true))))?;
        }
    }
    Ok(m)
}

/// `RMSNorm(normalized_shape, ...)`: a weight of ones of that shape (when
/// elementwise_affine), as PyTorch's.
pub fn rms_norm(rt: &mut Runtime, layer: Layer, at: Place) -> Result<Module, Error> {
    let Layer::RmsNorm {
        normalized_shape,
        elementwise_affine,
        ..
    } = &layer
    else {
        return Err(Error::value("internal error: not an RMS norm"));
    };
    let (shape, affine) = (normalized_shape.clone(), *elementwise_affine);
    let mut m = Module::new("RMSNorm", layer);
    if affine {
        let w = filled(crate::autograd::ops::full(
            rt, &shape, at.dtype, at.device, 1,
        )?);
        m.set_parameter("weight", Some(Arc::new(meta::parameter(&w, true))))?;
    }
    Ok(m)
}

/// `BatchNorm1d`/`BatchNorm2d(num_features, ...)`: weight ones and bias
/// zeros (when affine), buffers `running_mean` zeros, `running_var` ones and
/// `num_batches_tracked` 0 (when tracking), as PyTorch's.
pub fn batch_norm(rt: &mut Runtime, layer: Layer, at: Place) -> Result<Module, Error> {
    let Layer::BatchNorm {
        spatial,
        num_features,
        affine,
        bias,
        track_running_stats,
        instance,
        ..
    } = layer
    else {
        return Err(Error::value("internal error: not a batch norm"));
    };
    let class = match instance {
        true => format!("InstanceNorm{spatial}d"),
        false => format!("BatchNorm{spatial}d"),
    };
    let mut m = Module::new(&class, layer);
    let full = |rt: &mut Runtime, v: i64, dtype| {
        crate::autograd::ops::full(rt, &[num_features], dtype, at.device, v).map(filled)
    };
    if affine {
        let w = full(rt, 1, at.dtype)?;
        m.set_parameter("weight", Some(Arc::new(meta::parameter(&w, true))))?;
        if bias {
            let b = full(rt, 0, at.dtype)?;
            m.set_parameter("bias", Some(Arc::new(meta::parameter(&b, true))))?;
        }
    }
    if track_running_stats {
        m.set_buffer("running_mean", Some(full(rt, 0, at.dtype)?), None)?;
        m.set_buffer("running_var", Some(full(rt, 1, at.dtype)?), None)?;
        let count = filled(crate::autograd::ops::full(
            rt,
            &[],
            DType::I64,
            at.device,
            0,
        )?);
        m.set_buffer("num_batches_tracked", Some(count), None)?;
    }
    Ok(m)
}

/// `InstanceNorm1d/2d`'s forward: a batch of [N, C, *spatial] or one
/// sample [C, *spatial] (given a batch of one, as PyTorch's
/// `_handle_no_batch_input`).
fn instance_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    spatial: usize,
    args: crate::autograd::group_norm::InstanceNormArgs,
) -> Result<Arc<Tensor>, Error> {
    use crate::autograd::{group_norm, views};
    match x.ndim() {
        n if n == spatial + 2 => group_norm::instance_norm(rt, mode, x, args),
        n if n == spatial + 1 => {
            let batch = views::unsqueeze(rt, mode, x, 0)?;
            let out = group_norm::instance_norm(rt, mode, &batch, args)?;
            views::squeeze(rt, mode, &out, 0)
        }
        n => Err(Error::value(format!(
            "expected {}D or {}D input (got {n}D input)",
            spatial + 1,
            spatial + 2
        ))),
    }
}

/// `GroupNorm(num_groups, num_channels, ...)`: weight ones and bias zeros
/// [num_channels] when affine, as PyTorch's.
pub fn group_norm(rt: &mut Runtime, layer: Layer, at: Place) -> Result<Module, Error> {
    let Layer::GroupNorm {
        groups,
        num_channels,
        affine,
        ..
    } = layer
    else {
        return Err(Error::value("internal error: not a group norm"));
    };
    if groups == 0 || num_channels % groups != 0 {
        return Err(Error::value(format!(
            "num_channels ({num_channels}) must be divisible by num_groups ({groups})"
        )));
    }
    let mut m = Module::new("GroupNorm", layer);
    if affine {
        for (name, v) in [("weight", 1), ("bias", 0)] {
            let t = filled(crate::autograd::ops::full(
                rt,
                &[num_channels],
                at.dtype,
                at.device,
                v,
            )?);
            m.set_parameter(name, Some(Arc::new(meta::parameter(&t, true))))?;
        }
    }
    Ok(m)
}

/// A new parameter of `shape`, uniform in [-bound, bound) (PyTorch's
/// `uniform_(-bound, bound)`: `from + u * (to - from)`).
pub(super) fn uniform(
    rt: &mut Runtime,
    shape: &[usize],
    bound: f64,
    at: Place,
) -> Result<Arc<Tensor>, Error> {
    let new = NewTensor {
        shape,
        dtype: at.dtype,
        device: at.device,
        like: None,
    };
    let u = within(rt, new, bound)?;
    Ok(Arc::new(meta::parameter(&u, true)))
}

/// The bound of a weight's `kaiming_uniform_(w, a=math.sqrt(5))` (what
/// `Linear` and the convolutions draw their weights with), computed as
/// PyTorch's `init.py` computes it in double: mathematically
/// `1 / sqrt(fan_in)`, the bias's bound, but not always to the last bit.
fn kaiming_bound(fan_in: usize) -> f64 {
    if fan_in == 0 {
        return 0.0;
    }
    let slope = 5f64.sqrt();
    let gain = (2.0 / (1.0 + slope.powi(2))).sqrt();
    3f64.sqrt() * (gain / (fan_in as f64).sqrt())
}

/// A new tensor of numbers uniform within `bound` of 0 (PyTorch's
/// `uniform_(-bound, bound)`), from the device's generator: on the CPU
/// PyTorch's own numbers for the seed.
pub(super) fn within(rt: &mut Runtime, new: NewTensor, bound: f64) -> Result<Arc<Tensor>, Error> {
    if new.device == crate::runtime::Device::Cpu {
        let u = rt.empty(new)?;
        rt.uniform_(&u, -bound, bound)?;
        return Ok(u);
    }
    let u = rt.random(new, Distribution::Uniform)?;
    rt.binary_(
        BinaryOp::Mul,
        &u,
        Operand::weak(&Tensor::scalar(2.0 * bound)),
    )?;
    rt.binary_(BinaryOp::Sub, &u, Operand::weak(&Tensor::scalar(bound)))?;
    Ok(u)
}

/// A class-weighted loss's `weight` buffer (PyTorch registers it, so it
/// moves with `.to(device)` and shows in `state_dict`).
fn class_weight(m: &Module) -> Option<Arc<Tensor>> {
    m.buffers
        .iter()
        .find(|b| b.name == "weight")
        .and_then(|b| b.tensor.clone())
}

/// The forward of a layer that computes on its own (not `Custom`,
/// `Sequential` or `ModuleList`) on `inputs`.
pub fn forward(
    rt: &mut Runtime,
    mode: Mode,
    m: &Module,
    inputs: &[Arc<Tensor>],
) -> Result<Arc<Tensor>, Error> {
    let x = &inputs[0];
    let param = |name: &str| -> Option<Arc<Tensor>> { m.tensor_named(name) };
    match &m.layer {
        Layer::Linear { in_features, .. } => {
            let w = param("weight").ok_or_else(|| Error::value("Linear has no weight"))?;
            if x.ndim() == 0 {
                return Err(Error::shape(
                    "both arguments to linear need to be at least 1D, but they are 0D and 2D",
                ));
            }
            let last = x.shape()[x.ndim() - 1];
            if last != *in_features {
                // PyTorch 2.15's words, the op named as it runs (checked).
                let rows: usize = x.shape()[..x.ndim() - 1].iter().product();
                let op = match param("bias") {
                    Some(_) => "addmm",
                    None => "mm",
                };
                return Err(Error::shape(format!(
                    "{op}: mat1 and mat2 shapes cannot be multiplied ({}x{last} and {}x{})",
                    rows.max(1),
                    w.shape()[1],
                    w.shape()[0]
                )));
            }
            functional::linear(rt, mode, x, &w, param("bias").as_ref())
        }
        Layer::Flatten { start_dim, end_dim } => flatten(rt, mode, x, *start_dim, *end_dim),
        Layer::BatchNorm {
            spatial,
            eps,
            momentum,
            instance: true,
            ..
        } => {
            let buffer = |name: &str| {
                m.buffers
                    .iter()
                    .find(|b| b.name == name)
                    .and_then(|b| b.tensor.clone())
            };
            let (rm, rv) = (buffer("running_mean"), buffer("running_var"));
            let (w, b) = (param("weight"), param("bias"));
            let args = crate::autograd::group_norm::InstanceNormArgs {
                weight: w.as_ref(),
                bias: b.as_ref(),
                running_mean: rm.as_ref(),
                running_var: rv.as_ref(),
                use_input_stats: m.training || rm.is_none(),
                momentum: momentum.unwrap_or(0.0),
                eps: *eps,
            };
            instance_norm(rt, mode, x, *spatial, args)
        }
        Layer::GroupNorm { groups, eps, .. } => {
            let (w, b) = (param("weight"), param("bias"));
            let wb = (w.as_ref(), b.as_ref());
            crate::autograd::group_norm::group_norm(rt, mode, x, *groups, wb, *eps)
        }
        Layer::BatchNorm {
            spatial,
            eps,
            momentum,
            ..
        } => {
            let ok = match spatial {
                1 => matches!(x.ndim(), 2 | 3),
                _ => x.ndim() == spatial + 2,
            };
            if !ok {
                let expected = match spatial {
                    1 => "2D or 3D".to_string(),
                    s => format!("{}D", s + 2),
                };
                return Err(Error::value(format!(
                    "expected {expected} input (got {}D input)",
                    x.ndim()
                )));
            }
            let buffer = |name: &str| {
                m.buffers
                    .iter()
                    .find(|b| b.name == name)
                    .and_then(|b| b.tensor.clone())
            };
            let (rm, rv, count) = (
                buffer("running_mean"),
                buffer("running_var"),
                buffer("num_batches_tracked"),
            );
            // PyTorch's `exponential_average_factor`, counting batches in training.
            let mut factor = momentum.unwrap_or(0.0);
            if m.training {
                if let Some(count) = &count {
                    rt.binary_(BinaryOp::Add, count, Operand::weak(&Tensor::scalar(1i64)))?;
                    if momentum.is_none() {
                        let n = count.to_vec::<i64>().first().copied().unwrap_or(1);
                        factor = 1.0 / n as f64;
                    }
                }
            }
            let (w, b) = (param("weight"), param("bias"));
            let args = functional::BatchNormArgs {
                running_mean: rm.as_deref(),
                running_var: rv.as_deref(),
                weight: w.as_ref(),
                bias: b.as_ref(),
                training: m.training,
                momentum: factor,
                eps: *eps,
            };
            functional::batch_norm(rt, mode, x, args)
        }
        Layer::Conv {
            transposed,
            stride,
            padding,
            dilation,
            output_padding,
            groups,
            padding_mode,
            reversed_padding,
            ..
        } => {
            let w = param("weight").ok_or_else(|| Error::value("a convolution has no weight"))?;
            let b = param("bias");
            let (padded, padding) = crate::autograd::conv::padded_first(
                rt,
                mode,
                x,
                *padding,
                *padding_mode,
                reversed_padding,
            )?;
            let x = &padded;
            let settings = (*stride, padding, *dilation, *groups);
            match transposed {
                false => crate::autograd::conv::conv2d(rt, mode, x, &w, b.as_ref(), settings),
                true => crate::autograd::conv::conv_transpose2d(
                    rt,
                    mode,
                    (x, &w, b.as_ref()),
                    settings,
                    *output_padding,
                ),
            }
        }
        Layer::Pool {
            max,
            one_d,
            kernel,
            stride,
            padding,
            dilation,
            ceil_mode,
            ..
        } => {
            let settings = (*kernel, *stride, *padding, *dilation);
            pool(rt, mode, x, (*max, *one_d), settings, *ceil_mode)
        }
        Layer::AdaptivePool {
            max, one_d, out, ..
        } => adaptive_pool(rt, mode, x, (*max, *one_d), *out),
        Layer::MaxUnpool {
            one_d,
            kernel,
            stride,
            padding,
            ..
        } => {
            let indices = inputs.get(1).ok_or_else(|| {
                Error::value("MaxUnpool2d needs the pool's indices: unpool(x, indices)")
            })?;
            let settings = (*kernel, *stride, *padding);
            max_unpool(rt, mode, (x, indices), *one_d, settings, None)
        }
        Layer::RmsNorm {
            normalized_shape,
            eps,
            ..
        } => {
            let w = param("weight");
            crate::autograd::rms_norm::rms_norm(rt, mode, x, normalized_shape, w.as_deref(), *eps)
        }
        Layer::LayerNorm {
            normalized_shape,
            eps,
            ..
        } => {
            let (w, b) = (param("weight"), param("bias"));
            functional::layer_norm(
                rt,
                mode,
                x,
                normalized_shape,
                (w.as_ref(), b.as_ref()),
                *eps,
            )
        }
        Layer::Embedding { padding_idx, .. } => {
            let w = param("weight").ok_or_else(|| Error::value("Embedding has no weight"))?;
            record::embedding(rt, mode, &w, x, *padding_idx)
        }
        Layer::Dropout {
            p,
            channels,
            inplace: true,
        } => {
            match channels {
                false => functional::dropout_(rt, mode, x, *p, m.training)?,
                true => functional::dropout2d_(rt, mode, x, *p, m.training)?,
            }
            Ok(Arc::clone(x))
        }
        Layer::Dropout {
            p, channels: false, ..
        } => functional::dropout(rt, mode, x, *p, m.training),
        Layer::Dropout {
            p, channels: true, ..
        } => functional::dropout2d(rt, mode, x, *p, m.training),
        Layer::Activation { op, inplace: true } => {
            crate::autograd::inplace::unary_(rt, mode, *op, x)?;
            Ok(Arc::clone(x))
        }
        Layer::Activation { op, .. } => crate::autograd::autocast::unary(rt, mode, *op, x),
        Layer::Pointwise {
            kind,
            inplace: true,
            ..
        } => {
            activation_ops::activation_(rt, mode, *kind, x)?;
            Ok(Arc::clone(x))
        }
        Layer::Pointwise { kind, .. } => activation_ops::activation(rt, mode, *kind, x),
        Layer::Softsign => activation_ops::softsign(rt, mode, x),
        Layer::Tanhshrink => activation_ops::tanhshrink(rt, mode, x),
        Layer::Softmin { dim } => softmin(rt, mode, x, *dim),
        Layer::Glu { dim } => activation_ops::glu(rt, mode, x, *dim),
        Layer::Prelu { .. } => {
            let w = param("weight").ok_or_else(|| Error::value("PReLU has no weight"))?;
            activation_ops::prelu(rt, mode, x, &w)
        }
        Layer::Upsample {
            size,
            scale,
            how,
            recompute_scale_factor,
            mode: name,
            ..
        } => {
            crate::autograd::upsample::check_mode_dims(name, x)?;
            crate::autograd::upsample::interpolate(
                rt,
                mode,
                x,
                (size.as_deref(), scale.as_deref()),
                *how,
                *recompute_scale_factor,
            )
        }
        Layer::PixelShuffle { factor, inverse } => {
            crate::autograd::pixel_shuffle::pixel_shuffle(rt, mode, x, *factor, *inverse)
        }
        Layer::Unflatten { dim, sizes, .. } => unflatten(rt, mode, x, *dim, sizes),
        Layer::Unfold { win, .. } => crate::autograd::fold::unfold(rt, mode, x, *win),
        Layer::Fold { size, win, .. } => crate::autograd::fold::fold(rt, mode, x, *size, *win),
        Layer::Pad {
            pads, edges, value, ..
        } => match edges {
            None => {
                let fill = crate::runtime::op::factory::Fill::Float(*value);
                crate::autograd::pad::pad(rt, mode, x, pads, fill)
            }
            Some(edges) => crate::autograd::pad::pad_by_edges(rt, mode, x, pads, *edges),
        },
        Layer::Identity => Ok(Arc::clone(x)),
        Layer::Softmax { dim, log } => {
            let name = if *log { "log_softmax" } else { "softmax" };
            let dim = dim.unwrap_or_else(|| implicit_dim(rt, name, x.ndim()));
            softmax(rt, mode, x, dim, *log)
        }
        Layer::Bilinear { .. } => {
            let w = param("weight").ok_or_else(|| Error::value("Bilinear has no weight"))?;
            let x2 = &inputs[1];
            let b = param("bias");
            crate::autograd::bilinear::bilinear(rt, mode, (x, x2), &w, b.as_ref())
        }
        Layer::EmbeddingBag {
            mean,
            include_last_offset,
            ..
        } => {
            let w = param("weight").ok_or_else(|| Error::value("EmbeddingBag has no weight"))?;
            let offsets = inputs.get(1);
            let how = (*mean, *include_last_offset);
            crate::autograd::embedding_bag::embedding_bag(rt, mode, (x, offsets), &w, how)
        }
        Layer::Softmax2d => match x.ndim() {
            3 | 4 => softmax(rt, mode, x, -3, false),
            n => Err(Error::value(format!(
                "Softmax2d: expected input to be 3D or 4D, got {n}D instead"
            ))),
        },
        Layer::MseLoss(r) => losses::mse_loss(rt, mode, x, &inputs[1], *r),
        Layer::PointwiseLoss { kind, reduction } => {
            use crate::autograd::pointwise_losses::{pointwise_loss, Weights};
            let buffer = |name: &str| {
                m.buffers
                    .iter()
                    .find(|b| b.name == name)
                    .and_then(|b| b.tensor.clone())
            };
            let (weight, pos_weight) = (buffer("weight"), buffer("pos_weight"));
            let weights = Weights {
                weight: weight.as_deref(),
                pos_weight: pos_weight.as_deref(),
            };
            pointwise_loss(rt, mode, *kind, (x, &inputs[1]), weights, *reduction)
        }
        Layer::L1Loss(r) => losses::l1_loss(rt, mode, x, &inputs[1], *r),
        Layer::CrossEntropyLoss {
            ignore_index,
            reduction,
            label_smoothing,
        } => {
            let w = class_weight(m);
            let how = losses::CrossEntropy {
                ignore_index: *ignore_index,
                reduction: *reduction,
                label_smoothing: *label_smoothing,
                weight: w.as_deref(),
            };
            losses::cross_entropy_smoothed(rt, mode, x, &inputs[1], how)
        }
        Layer::NllLoss {
            ignore_index,
            reduction,
        } => {
            let w = class_weight(m);
            losses::nll_loss(
                rt,
                mode,
                x,
                &inputs[1],
                *ignore_index,
                *reduction,
                w.as_deref(),
            )
        }
        Layer::Custom
        | Layer::ComposedLoss(_)
        | Layer::Sequential
        | Layer::ModuleList
        | Layer::ModuleDict
        | Layer::ParameterList
        | Layer::ParameterDict
        | Layer::DataParallel { .. }
        | Layer::DistributedDataParallel { .. }
        | Layer::Recurrent(_)
        | Layer::RecurrentCell(_)
        | Layer::MultiheadAttention(_)
        | Layer::TransformerLayer { .. }
        | Layer::TransformerStack { .. }
        | Layer::Transformer { .. } => Err(Error::value(format!(
            "internal error: {} has no built-in forward",
            m.type_name
        ))),
    }
}

/// `softmax(x, dim)` (`log`: `log_softmax`), under autocast as PyTorch's.
pub fn softmax(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    dim: i64,
    log: bool,
) -> Result<Arc<Tensor>, Error> {
    let op = match log {
        true => crate::runtime::op::along::AlongOp::LogSoftmax,
        false => crate::runtime::op::along::AlongOp::Softmax,
    };
    let name = if log { "log_softmax" } else { "softmax" };
    let cast = crate::autograd::autocast::inputs(rt, mode, name, &[x])?;
    let x = &cast.arc(0, x);
    let out = rt.along(op, 0.0, x, Some(dim), false)?;
    record::softmax(rt, mode, x, out, dim, log)
}

/// `softmin(x, dim)`: the softmax of `-x` (`NegBackward0`, then
/// `SoftmaxBackward0`); no dim: PyTorch's implicit one (0 for 0, 1 and 3
/// dims, else 1).
pub fn softmin(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    dim: Option<i64>,
) -> Result<Arc<Tensor>, Error> {
    let dim = dim.unwrap_or_else(|| implicit_dim(rt, "softmin", x.ndim()));
    let neg =
        crate::autograd::autocast::unary(rt, mode, crate::runtime::op::unary::UnaryOp::Neg, x)?;
    softmax(rt, mode, &neg, dim, false)
}

/// The dim `softmax`, `log_softmax` and `softmin` take when none is given
/// (PyTorch's `_get_softmax_dim`: 0 for 0, 1 and 3 dims, else 1), with
/// PyTorch's deprecation warning.
pub fn implicit_dim(rt: &mut Runtime, name: &str, ndim: usize) -> i64 {
    rt.note(format!(
        "UserWarning: Implicit dimension choice for {name} has been deprecated. Change the call \
         to include dim=X as an argument."
    ));
    match ndim {
        0 | 1 | 3 => 0,
        _ => 1,
    }
}

/// `x.unflatten(dim, sizes)`: dim `dim` as the dims `sizes` (one may be
/// -1), a view (`ViewBackward0`).
pub fn unflatten(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    dim: i64,
    sizes: &[i64],
) -> Result<Arc<Tensor>, Error> {
    let n = x.ndim().max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if !(0..n).contains(&d) || x.ndim() == 0 {
        return Err(Error::IndexOutOfRange {
            index: dim,
            dim: 0,
            size: x.ndim(),
        });
    }
    if sizes.is_empty() {
        return Err(Error::runtime("unflatten: sizes must be non-empty"));
    }
    let d = d as usize;
    let shape = x.shape();
    let mut dims: Vec<i64> = shape[..d].iter().map(|&s| s as i64).collect();
    let known: i64 = sizes.iter().filter(|&&s| s != -1).product();
    let inferred = sizes.iter().filter(|&&s| s == -1).count();
    let fits = match inferred {
        0 => known == shape[d] as i64,
        1 => known != 0 && shape[d] as i64 % known == 0,
        _ => false,
    };
    if !fits {
        let given: Vec<String> = sizes.iter().map(i64::to_string).collect();
        return Err(Error::runtime(format!(
            "unflatten: Provided sizes [{}] don't multiply up to the size of dim {dim} ({}) in the input tensor",
            given.join(", "),
            shape[d]
        )));
    }
    dims.extend(sizes);
    dims.extend(shape[d + 1..].iter().map(|&s| s as i64));
    crate::autograd::views::reshape(rt, mode, x, &dims)
}

/// `flatten(x, start_dim, end_dim)`: the dimensions from `start_dim` to
/// `end_dim` as one (a view where the layout allows).
pub fn flatten(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    start_dim: i64,
    end_dim: i64,
) -> Result<Arc<Tensor>, Error> {
    let n = x.ndim().max(1) as i64;
    let norm = |d: i64| if d < 0 { d + n } else { d };
    let (s, e) = (norm(start_dim), norm(end_dim));
    if !(0..n).contains(&s) || !(0..n).contains(&e) {
        return Err(Error::IndexOutOfRange {
            index: if (0..n).contains(&s) {
                end_dim
            } else {
                start_dim
            },
            dim: 0,
            size: n as usize,
        });
    }
    if x.ndim() == 0 || s >= e {
        return Ok(Arc::clone(x));
    }
    let shape = x.shape();
    let (s, e) = (s as usize, e as usize);
    let mut dims: Vec<i64> = shape[..s].iter().map(|&d| d as i64).collect();
    dims.push(shape[s..=e].iter().product::<usize>() as i64);
    dims.extend(shape[e + 1..].iter().map(|&d| d as i64));
    crate::autograd::views::reshape(rt, mode, x, &dims)
}

/// `Conv2d(in, out, kernel, ...)` (`class`: also `Conv1d`, and the
/// transposed ones): a weight [out, in / groups, kh, kw] ([in, out /
/// groups, ...] when transposed; [.., k] for 1-d) and a bias [out], each
/// uniform within 1/sqrt(fan_in) (PyTorch's `reset_parameters`:
/// `kaiming_uniform_(a=sqrt(5))`), fan_in the weight's dim 1 times the
/// kernel's size, as PyTorch computes it (for a transposed one too).
pub fn conv(
    rt: &mut Runtime,
    class: &str,
    (in_channels, out_channels): (usize, usize),
    kernel: (usize, usize),
    layer: Layer,
    bias: bool,
    at: Place,
) -> Result<Module, Error> {
    let Layer::Conv {
        groups,
        transposed,
        one_d,
        ..
    } = layer
    else {
        return Err(Error::value("internal error: not a convolution"));
    };
    if groups == 0 || in_channels % groups != 0 {
        return Err(Error::value("in_channels must be divisible by groups"));
    }
    if out_channels % groups != 0 {
        return Err(Error::value("out_channels must be divisible by groups"));
    }
    let (first, second) = match transposed {
        false => (out_channels, in_channels / groups),
        true => (in_channels, out_channels / groups),
    };
    let fan_in = second * kernel.0 * kernel.1;
    let bound = match fan_in {
        0 => 0.0,
        f => 1.0 / (f as f64).sqrt(),
    };
    let mut m = Module::new(class, layer);
    let shape = match one_d {
        true => vec![first, second, kernel.1],
        false => vec![first, second, kernel.0, kernel.1],
    };
    let w = uniform(rt, &shape, kaiming_bound(fan_in), at)?;
    m.set_parameter("weight", Some(w))?;
    let b = match bias {
        true => Some(uniform(rt, &[out_channels], bound, at)?),
        false => None,
    };
    m.set_parameter("bias", b)?;
    Ok(m)
}

/// `max_pool2d` / `avg_pool2d` of `x`: a batch of images [N, C, H, W] or
/// one image [C, H, W]; `ceil_mode` (a max pool's): the last windows may
/// run past the edge.
fn pool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    max: bool,
    (kernel, stride, padding, dilation): crate::autograd::window::PoolSettings,
    ceil_mode: bool,
) -> Result<Arc<Tensor>, Error> {
    let hw = image_size(x, "pooling")?;
    let mut geom = crate::autograd::conv::Geometry::new(hw, kernel, stride, padding, dilation, 1)?;
    if ceil_mode {
        geom = geom.ceil(hw);
    }
    match max {
        true => crate::autograd::conv::max_pool2d(rt, mode, x, geom),
        false => crate::autograd::conv::avg_pool2d(rt, mode, x, geom),
    }
}

/// An image's height and width: the last two dims of [N, C, H, W] or
/// [C, H, W].
fn image_size(x: &Tensor, what: &str) -> Result<(usize, usize), Error> {
    match x.shape() {
        [.., h, w] if x.ndim() == 3 || x.ndim() == 4 => Ok((*h, *w)),
        _ => Err(Error::shape(format!(
            "{what} takes an image [C, H, W] or a batch of them [N, C, H, W], not {}",
            crate::runtime::shape::fmt_shape(x.shape())
        ))),
    }
}

/// A max or average pool (`kind`: max, 1-d) of `x`: [N, C, H, W] or [C, H,
/// W], or [N, C, L] or [C, L] in 1-d.
pub fn pool(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (max, one_d): (bool, bool),
    settings: crate::autograd::window::PoolSettings,
    ceil_mode: bool,
) -> Result<Arc<Tensor>, Error> {
    match one_d {
        false => pool2d(rt, mode, x, max, settings, ceil_mode),
        true => pool1d(rt, mode, x, pool1d_name(max, false), |rt, image| {
            pool2d(rt, mode, image, max, settings, ceil_mode)
        }),
    }
}

/// An adaptive max or average pool (`kind`: max, 1-d) of `x` to `out`.
pub fn adaptive_pool(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (max, one_d): (bool, bool),
    out: (usize, usize),
) -> Result<Arc<Tensor>, Error> {
    match one_d {
        false => adaptive_pool2d(rt, mode, x, max, out),
        true => pool1d(rt, mode, x, pool1d_name(max, true), |rt, image| {
            adaptive_pool2d(rt, mode, image, max, out)
        }),
    }
}

/// A max pool of `x` and where each maximum was (`return_indices=True`):
/// for a 2-d pool its place `h * W + w` in its plane, for a 1-d one its
/// position along L (the 2-d pool's of a 1 x L image).
pub fn max_pool_with_indices(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    one_d: bool,
    (kernel, stride, padding, dilation): crate::autograd::window::PoolSettings,
    ceil_mode: bool,
) -> Result<(Arc<Tensor>, Arc<Tensor>), Error> {
    let image = match one_d {
        false => Arc::clone(x),
        true => {
            if x.ndim() != 2 && x.ndim() != 3 {
                return Err(Error::shape(format!(
                    "max_pool1d() Expected 2D or 3D input tensor, but got {}",
                    crate::runtime::shape::fmt_shape(x.shape())
                )));
            }
            crate::autograd::views::unsqueeze(rt, mode, x, -2)?
        }
    };
    let hw = image_size(&image, "pooling")?;
    let mut geom = crate::autograd::conv::Geometry::new(hw, kernel, stride, padding, dilation, 1)?;
    if ceil_mode {
        geom = geom.ceil(hw);
    }
    let (out, places) = crate::autograd::conv::max_pool2d_with_indices(rt, mode, &image, geom)?;
    match one_d {
        false => Ok((out, places)),
        true => {
            let out = crate::autograd::views::squeeze(rt, mode, &out, -2)?;
            let places = Arc::new(crate::runtime::op::view::squeeze(&places, Some(-2))?);
            Ok((out, places))
        }
    }
}

/// `max_unpool2d(x, indices, kernel, stride, padding, output_size)` (and
/// `max_unpool1d`, `one_d`, as PyTorch's: over [.., L, 1] images): the
/// output's size PyTorch's `_unpool_output_size` gives, that is
/// `(in - 1) * stride - 2 * padding + kernel`, unless `output_size` (its
/// last one or two sizes) says another within a stride of it.
pub fn max_unpool(
    rt: &mut Runtime,
    mode: Mode,
    (x, indices): (&Arc<Tensor>, &Arc<Tensor>),
    one_d: bool,
    (kernel, stride, padding): ((usize, usize), (usize, usize), (usize, usize)),
    output_size: Option<&[usize]>,
) -> Result<Arc<Tensor>, Error> {
    let k = if one_d { 1 } else { 2 };
    if x.ndim() < k {
        return Err(Error::runtime(format!(
            "Input to max_unpooling{k}d should be a {}d or {}d Tensor, but got a tensor with {} dimensions.",
            k + 1,
            k + 2,
            x.ndim()
        )));
    }
    // (size, kernel, stride, padding) of each unpooled dim.
    let dims: Vec<(usize, usize, usize, usize)> = match one_d {
        true => vec![(x.shape()[x.ndim() - 1], kernel.1, stride.1, padding.1)],
        false => vec![
            (x.shape()[x.ndim() - 2], kernel.0, stride.0, padding.0),
            (x.shape()[x.ndim() - 1], kernel.1, stride.1, padding.1),
        ],
    };
    let default: Vec<i64> = dims
        .iter()
        .map(|&(n, k, s, p)| (n as i64 - 1) * s as i64 - 2 * p as i64 + k as i64)
        .collect();
    let size: Vec<i64> = match output_size {
        None => default.clone(),
        Some(given) => {
            let given = match given.len() {
                n if n == k + 2 || n == k + 1 => &given[n - k..],
                n if n == k => given,
                n => {
                    return Err(Error::value(format!(
                        "output_size should be a sequence containing {k} or {} elements, but it has a length of '{n}'",
                        k + 2
                    )))
                }
            };
            for (d, (&g, (&want, &(_, _, s, _)))) in
                given.iter().zip(default.iter().zip(&dims)).enumerate()
            {
                let (lo, hi) = (want - s as i64, want + s as i64);
                if (g as i64) <= lo || (g as i64) >= hi {
                    let parts: Vec<String> = given.iter().map(|n| n.to_string()).collect();
                    let shown = match parts.len() {
                        1 => format!("({},)", parts[0]),
                        _ => format!("({})", parts.join(", ")),
                    };
                    return Err(Error::value(format!(
                        "invalid output_size \"{shown}\" (dim {d} must be between {lo} and {hi})"
                    )));
                }
            }
            given.iter().map(|&g| g as i64).collect()
        }
    };
    let size: Vec<usize> = size.iter().map(|&n| n.max(0) as usize).collect();
    match one_d {
        false => crate::autograd::unpool::max_unpool2d(rt, mode, x, indices, (size[0], size[1])),
        true => {
            let image = crate::autograd::views::unsqueeze(rt, mode, x, -1)?;
            let places = Arc::new(crate::runtime::op::view::unsqueeze(indices, -1)?);
            let out =
                crate::autograd::unpool::max_unpool2d(rt, mode, &image, &places, (size[0], 1))?;
            crate::autograd::views::squeeze(rt, mode, &out, -1)
        }
    }
}

/// The functional name of a 1-d pool.
fn pool1d_name(max: bool, adaptive: bool) -> &'static str {
    match (max, adaptive) {
        (true, false) => "max_pool1d",
        (false, false) => "avg_pool1d",
        (true, true) => "adaptive_max_pool1d",
        (false, true) => "adaptive_avg_pool1d",
    }
}

/// `max_pool1d` / `avg_pool1d` / `adaptive_*_pool1d` of `x` [N, C, L] or
/// [C, L], as PyTorch computes them: the 2-d pool `pool` of `x.unsqueeze(-2)`
/// (a 1 x L image), squeezed back — recorded as `UnsqueezeBackward0`, the
/// 2-d pool's node and `SqueezeBackward1`.
fn pool1d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    what: &str,
    pool: impl FnOnce(&mut Runtime, &Arc<Tensor>) -> Result<Arc<Tensor>, Error>,
) -> Result<Arc<Tensor>, Error> {
    if x.ndim() != 2 && x.ndim() != 3 {
        return Err(Error::shape(format!(
            "{what}() Expected 2D or 3D input tensor, but got {}",
            crate::runtime::shape::fmt_shape(x.shape())
        )));
    }
    let image = crate::autograd::views::unsqueeze(rt, mode, x, -2)?;
    let out = pool(rt, &image)?;
    crate::autograd::views::squeeze(rt, mode, &out, -2)
}

/// `adaptive_avg_pool2d(x, out)` / `adaptive_max_pool2d`: the pool whose
/// windows tile the input into `out`; over uneven or overlapping windows
/// `autograd::adaptive`'s. An average to 1 x 1 is a mean over the plane
/// (`MeanBackward1`), as PyTorch computes it.
fn adaptive_pool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    max: bool,
    (oh, ow): (usize, usize),
) -> Result<Arc<Tensor>, Error> {
    let name = match max {
        true => "adaptive_max_pool2d",
        false => "adaptive_avg_pool2d",
    };
    let (h, w) = image_size(x, name)?;
    // Windows of different sizes (or overlapping): PyTorch's window by window.
    if oh > 0 && ow > 0 && (h % oh != 0 || w % ow != 0) {
        return match max {
            true => crate::autograd::adaptive::adaptive_max_pool2d(rt, mode, x, (oh, ow)),
            false => crate::autograd::adaptive::adaptive_avg_pool2d(rt, mode, x, (oh, ow)),
        };
    }
    if oh == 0 || ow == 0 {
        return Err(Error::value_help(
            format!("{name} to ({oh}, {ow}) of a {h}x{w} image: cudash pools to output sizes of at least 1"),
            "give an output size of 1 or more in each dimension",
        ));
    }
    if !max && (oh, ow) == (1, 1) {
        // Channels-last x: PyTorch restrides the mean to (C, 1, C, C).
        let mean = crate::runtime::op::reduce::ReduceOp::Mean;
        let lay_out = |rt: &mut Runtime, out| crate::autograd::conv::in_format_of(rt, x, out);
        let what = (mean, x, &[-1i64, -2][..], true);
        return crate::autograd::record::reduce_dims_laid_out(rt, mode, what, lay_out);
    }
    let k = (h / oh, w / ow);
    let geom = crate::autograd::conv::Geometry::new((h, w), k, k, (0, 0), (1, 1), 1)?;
    match max {
        true => crate::autograd::conv::adaptive_max_pool2d(rt, mode, x, geom),
        false => crate::autograd::conv::adaptive_avg_pool2d(rt, mode, x, geom),
    }
}
