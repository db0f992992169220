//! The activations with settings PyTorch computes as one kernel with a
//! node of its own (`EluBackward0`, `SoftplusBackward0`,
//! `HardtanhBackward0`...), written with the op layer's ops in the order
//! of PyTorch's CPU kernels (`aten/src/ATen/native/cpu/Activation.cpp`),
//! with their conditions as PyTorch writes them, so NaN goes where it goes
//! there. Half-precision inputs are computed in float and rounded once, as
//! PyTorch's kernels compute them in their `opmath` type. Also `glu`
//! (`GluBackward0`) and `prelu` (`PreluKernelBackward0`).

use std::sync::Arc;

pub use super::activation::Activation;
use super::create_graph as cg;
use super::jvp::Ops;
use super::node::{Backward, Saved};
use super::ops::{bin, bin_s, pick};
use super::pointwise_grad::Arith;
use super::record::attach_node;
use super::record::Recording;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// x's elements in the type the kernels compute in: float for half
/// precision (rounded back once at the end).
fn opmath(rt: &mut Runtime, x: &Tensor) -> R<Arc<Tensor>> {
    match x.dtype() {
        DType::F16 | DType::BF16 => rt.cast(x, DType::F32),
        _ => Ok(Arc::new(x.alias())),
    }
}

fn unary(rt: &mut Runtime, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>> {
    rt.unary(op, x)
}

/// `where(cond, number, a)`.
fn s_pick(rt: &mut Runtime, cond: &Tensor, s: f64, a: &Tensor) -> R<Arc<Tensor>> {
    rt.ternary(
        TernaryOp::Where,
        Operand::strong(cond),
        Operand::weak(&Tensor::scalar(s)),
        Operand::strong(a),
    )
}

/// `min(max(x + 3, 0), 6)` (hardswish's and hardsigmoid's ramp).
fn ramp(rt: &mut Runtime, x: &Tensor) -> R<Arc<Tensor>> {
    let shifted = bin_s(rt, BinaryOp::Add, x, 3.0)?;
    let low = bin_s(rt, BinaryOp::Maximum, &shifted, 0.0)?;
    bin_s(rt, BinaryOp::Minimum, &low, 6.0)
}

/// `-lambd <= x <= lambd` (the shrinks' dead zone).
fn within(rt: &mut Runtime, x: &Tensor, lambd: f64) -> R<Arc<Tensor>> {
    let above = bin_s(rt, BinaryOp::Ge, x, -lambd)?;
    let below = bin_s(rt, BinaryOp::Le, x, lambd)?;
    bin(rt, BinaryOp::LogicalAnd, &above, &below)
}

/// Refuses what PyTorch's kernel `name` is not compiled for (integers,
/// bool), in its words.
pub fn check_dtype(name: &str, x: &Tensor) -> R<()> {
    if x.dtype().is_float() {
        return Ok(());
    }
    let place = match x.device().is_cuda() {
        true => "cuda",
        false => "cpu",
    };
    Err(Error::Module {
        class: "NotImplementedError",
        message: format!(
            "\"{name}_{place}\" not implemented for '{}'",
            x.dtype().scalar_name()
        ),
        help: Some(format!("{name} takes a floating point tensor: `x.float()`")),
    })
}

/// The activation of `x`'s elements, nothing recorded.
pub fn values(rt: &mut Runtime, kind: &Activation, x: &Tensor) -> R<Arc<Tensor>> {
    check_dtype(kind.op_name(), x)?;
    kind.check()?;
    if let Activation::Softshrink { lambd } = *kind {
        check_lambda(lambd, x.dtype())?;
    }
    let v = opmath(rt, x)?;
    let v = v.as_ref();
    let out = match *kind {
        Activation::Elu {
            alpha,
            scale,
            input_scale,
            ..
        } => {
            let t = bin_s(rt, BinaryOp::Mul, v, input_scale)?;
            let e = unary(rt, UnaryOp::Expm1, &t)?;
            let neg = bin_s(rt, BinaryOp::Mul, &e, alpha * scale)?;
            let pos = bin_s(rt, BinaryOp::Mul, v, scale)?;
            let off = bin_s(rt, BinaryOp::Le, v, 0.0)?;
            pick(rt, &off, &neg, &pos)?
        }
        Activation::Softplus { beta, threshold } => {
            let t = bin_s(rt, BinaryOp::Mul, v, beta)?;
            let e = unary(rt, UnaryOp::Exp, &t)?;
            let l = unary(rt, UnaryOp::Log1p, &e)?;
            let soft = bin_s(rt, BinaryOp::Div, &l, beta)?;
            let linear = bin_s(rt, BinaryOp::Gt, &t, threshold)?;
            pick(rt, &linear, v, &soft)?
        }
        Activation::Hardtanh { min, max } => {
            let low = bin_s(rt, BinaryOp::Maximum, v, min)?;
            bin_s(rt, BinaryOp::Minimum, &low, max)?
        }
        Activation::LeakyRelu { slope } => {
            let on = bin_s(rt, BinaryOp::Gt, v, 0.0)?;
            let scaled = bin_s(rt, BinaryOp::Mul, v, slope)?;
            pick(rt, &on, v, &scaled)?
        }
        Activation::LogSigmoid => {
            let low = bin_s(rt, BinaryOp::Minimum, v, 0.0)?;
            let z = neg_abs_exp(rt, v)?;
            let l = unary(rt, UnaryOp::Log1p, &z)?;
            bin(rt, BinaryOp::Sub, &low, &l)?
        }
        Activation::Hardswish => {
            let r = ramp(rt, v)?;
            let m = bin(rt, BinaryOp::Mul, v, &r)?;
            bin_s(rt, BinaryOp::Div, &m, 6.0)?
        }
        Activation::Hardsigmoid => {
            let r = ramp(rt, v)?;
            bin_s(rt, BinaryOp::Div, &r, 6.0)?
        }
        Activation::Hardshrink { lambd } => {
            let dead = within(rt, v, lambd)?;
            s_pick(rt, &dead, 0.0, v)?
        }
        Activation::Softshrink { lambd } => {
            // `x * 0`, as PyTorch's scalar and CUDA kernels: NaN stays NaN,
            // a negative x gives -0 (its CPU vector loop, for 16 floats and
            // more, gives +0).
            let zero = bin_s(rt, BinaryOp::Mul, v, 0.0)?;
            let up = bin_s(rt, BinaryOp::Add, v, lambd)?;
            let below = bin_s(rt, BinaryOp::Lt, v, -lambd)?;
            let inner = pick(rt, &below, &up, &zero)?;
            let down = bin_s(rt, BinaryOp::Sub, v, lambd)?;
            let above = bin_s(rt, BinaryOp::Gt, v, lambd)?;
            pick(rt, &above, &down, &inner)?
        }
        Activation::Threshold { threshold, value } => {
            let off = bin_s(rt, BinaryOp::Le, v, threshold)?;
            s_pick(rt, &off, value, v)?
        }
    };
    match out.dtype() == x.dtype() {
        true => Ok(out),
        false => rt.cast(&out, x.dtype()),
    }
}

/// PyTorch's refusal of a softshrink `lambd` below 0 or beyond the dtype.
fn check_lambda(lambd: f64, dtype: DType) -> R<()> {
    let (max, shown) = match dtype {
        DType::F64 => (f64::MAX, "1.79769e+308"),
        DType::F16 => (65504.0, "65504"),
        DType::BF16 => (3.389_531_389_251_535_5e38, "3.38953e+38"),
        _ => (f32::MAX as f64, "3.40282e+38"),
    };
    if (0.0..=max).contains(&lambd) {
        return Ok(());
    }
    let found = match lambd.fract() == 0.0 && lambd.abs() < 1e6 {
        true => format!("{}", lambd as i64),
        false => format!("{lambd}"),
    };
    Err(Error::runtime(format!(
        "lambda must be in range [0, {shown}] for input dtype {}, but found {found}",
        dtype.scalar_name()
    )))
}

/// `exp(-|x|)`.
fn neg_abs_exp(rt: &mut Runtime, x: &Tensor) -> R<Arc<Tensor>> {
    let a = unary(rt, UnaryOp::Abs, x)?;
    let n = unary(rt, UnaryOp::Neg, &a)?;
    unary(rt, UnaryOp::Exp, &n)
}

/// `kind(x)`, recorded with its node (which saves x).
pub fn activation(
    rt: &mut Runtime,
    mode: Mode,
    kind: Activation,
    x: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    let out = values(rt, &kind, x)?;
    let backward = Backward::Activation {
        kind,
        x: Saved::new(x),
        result: false,
    };
    let out = attach_node(rt, mode, out, kind.node_name(), backward, &[x]);
    // Forward-mode AD: elementwise, so the tangent is the derivative at x
    // times it, what the backward formula gives for a gradient `t`.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        let t = self::backward(rt, mode, &kind, t, (x, false))?;
        match t.dtype() == out.dtype() {
            true => Ok(t),
            false => cg::cast(rt, mode, &t, out.dtype()),
        }
    })
}

/// `kind(x)` written into x (`F.elu(x, inplace=True)`, `nn.ReLU6(inplace=True)`):
/// computed aside and copied in; when recorded, its node is PyTorch's for
/// the in-place form (`EluBackward1`), saving the result or a copy of x's
/// old elements as that node does.
pub fn activation_(rt: &mut Runtime, mode: Mode, kind: Activation, x: &Tensor) -> R<()> {
    let out = values(rt, &kind, x)?;
    let (name, result) = kind.in_place_node();
    super::inplace::replaced(rt, mode, x, name, &out, !result, |saved| {
        Backward::Activation {
            kind,
            x: saved,
            result,
        }
    })
}

/// The gradient of `kind` at x (PyTorch's `*_backward` kernels); `result`:
/// `x` is the op's result (the in-place forms' nodes save it).
pub fn backward(
    rt: &mut Runtime,
    mode: Mode,
    kind: &Activation,
    g: &Arc<Tensor>,
    (x, result): (&Arc<Tensor>, bool),
) -> R<Arc<Tensor>> {
    if result {
        refuse_negative_slope(kind)?;
    }
    let opmath = |rt: &mut Runtime, x: &Arc<Tensor>| match x.dtype() {
        DType::F16 | DType::BF16 => cg::cast(rt, mode, x, DType::F32),
        _ => Ok(Arc::clone(x)),
    };
    let (gv, v) = (opmath(rt, g)?, opmath(rt, x)?);
    let (g, v) = (gv.as_ref(), v.as_ref());
    let gx = match *kind {
        Activation::Elu {
            alpha,
            scale,
            input_scale,
            ..
        } => {
            // x <= 0: g * input_scale * (alpha * scale) * exp(x * input_scale);
            // from the result y: g * input_scale * (y + alpha * scale).
            let e = match result {
                true => cg::bin_s(rt, mode, BinaryOp::Add, v, alpha * scale)?,
                false => {
                    let t = cg::bin_s(rt, mode, BinaryOp::Mul, v, input_scale)?;
                    cg::unary(rt, mode, UnaryOp::Exp, &t)?
                }
            };
            let a = cg::bin_s(rt, mode, BinaryOp::Mul, g, input_scale)?;
            let a = match result {
                true => a,
                false => cg::bin_s(rt, mode, BinaryOp::Mul, &a, alpha * scale)?,
            };
            let neg = cg::bin(rt, mode, BinaryOp::Mul, &a, &e)?;
            let pos = cg::bin_s(rt, mode, BinaryOp::Mul, g, scale)?;
            let off = cg::bin_s(rt, mode, BinaryOp::Le, v, 0.0)?;
            cg::pick(rt, mode, &off, &neg, &pos)?
        }
        Activation::Softplus { beta, threshold } => {
            // z = exp(x * beta); g where x * beta > threshold, else g * z / (z + 1)
            let t = cg::bin_s(rt, mode, BinaryOp::Mul, v, beta)?;
            let z = cg::unary(rt, mode, UnaryOp::Exp, &t)?;
            let num = cg::bin(rt, mode, BinaryOp::Mul, g, &z)?;
            let den = cg::bin_s(rt, mode, BinaryOp::Add, &z, 1.0)?;
            let soft = cg::bin(rt, mode, BinaryOp::Div, &num, &den)?;
            let linear = cg::bin_s(rt, mode, BinaryOp::Gt, &t, threshold)?;
            cg::pick(rt, mode, &linear, g, &soft)?
        }
        Activation::Hardtanh { min, max } => {
            let low = cg::bin_s(rt, mode, BinaryOp::Le, v, min)?;
            let high = cg::bin_s(rt, mode, BinaryOp::Ge, v, max)?;
            let out = cg::bin(rt, mode, BinaryOp::LogicalOr, &low, &high)?;
            cg::s_pick(rt, mode, &out, 0.0, g)?
        }
        Activation::LeakyRelu { slope } => {
            let on = cg::bin_s(rt, mode, BinaryOp::Gt, v, 0.0)?;
            let scaled = cg::bin_s(rt, mode, BinaryOp::Mul, g, slope)?;
            cg::pick(rt, mode, &on, g, &scaled)?
        }
        Activation::LogSigmoid => {
            // g * (max_deriv - sign * z / (1 + z)), z = exp(-|x|);
            // max_deriv 1 and sign 1 below 0, else 0 and -1.
            let a = cg::unary(rt, mode, UnaryOp::Abs, v)?;
            let n = cg::neg(rt, mode, &a)?;
            let z = cg::unary(rt, mode, UnaryOp::Exp, &n)?;
            let den = cg::bin_s(rt, mode, BinaryOp::Add, &z, 1.0)?;
            let q = cg::bin(rt, mode, BinaryOp::Div, &z, &den)?;
            let neg = cg::bin_s(rt, mode, BinaryOp::Lt, v, 0.0)?;
            let one_minus = cg::s_bin(rt, mode, BinaryOp::Sub, 1.0, &q)?;
            let d = cg::pick(rt, mode, &neg, &one_minus, &q)?;
            cg::bin(rt, mode, BinaryOp::Mul, g, &d)?
        }
        Activation::Hardswish => {
            // 0 up to -3, g * (x / 3 + 0.5) below 3, g from 3.
            let third = cg::bin_s(rt, mode, BinaryOp::Div, v, 3.0)?;
            let slope = cg::bin_s(rt, mode, BinaryOp::Add, &third, 0.5)?;
            let mid = cg::bin(rt, mode, BinaryOp::Mul, g, &slope)?;
            let upto = cg::bin_s(rt, mode, BinaryOp::Lt, v, 3.0)?;
            let inner = cg::pick(rt, mode, &upto, &mid, g)?;
            let below = cg::bin_s(rt, mode, BinaryOp::Le, v, -3.0)?;
            cg::s_pick(rt, mode, &below, 0.0, &inner)?
        }
        Activation::Hardsigmoid => {
            let above = cg::bin_s(rt, mode, BinaryOp::Gt, v, -3.0)?;
            let below = cg::bin_s(rt, mode, BinaryOp::Lt, v, 3.0)?;
            let on = cg::bin(rt, mode, BinaryOp::LogicalAnd, &above, &below)?;
            // PyTorch's kernel multiplies by `1.0f / 6.0f`, a float, in
            // every dtype.
            let sixth = cg::bin_s(rt, mode, BinaryOp::Mul, g, (1.0f32 / 6.0f32) as f64)?;
            cg::pick_s(rt, mode, &on, &sixth, 0.0)?
        }
        Activation::Hardshrink { lambd } | Activation::Softshrink { lambd } => {
            let dead = within(rt, v, lambd)?;
            cg::s_pick(rt, mode, &dead, 0.0, g)?
        }
        Activation::Threshold { threshold, .. } => {
            let off = cg::bin_s(rt, mode, BinaryOp::Le, v, threshold)?;
            cg::s_pick(rt, mode, &off, 0.0, g)?
        }
    };
    let gx = match gx.dtype() == x.dtype() {
        true => gx,
        false => cg::cast(rt, mode, &gx, x.dtype())?,
    };
    // The kinds whose gradient only masks `g` by x are flat in x: PyTorch's
    // `*BackwardBackward0` gives x zeros.
    let flat = match kind {
        Activation::Hardtanh { .. } => "HardtanhBackwardBackward0",
        Activation::LeakyRelu { .. } => "LeakyReluBackwardBackward0",
        Activation::Hardsigmoid => "HardsigmoidBackwardBackward0",
        Activation::Hardshrink { .. } => "HardshrinkBackwardBackward0",
        Activation::Softshrink { .. } => "SoftshrinkBackwardBackward0",
        Activation::Threshold { .. } => "ThresholdBackwardBackward0",
        _ => return Ok(gx),
    };
    Ok(cg::flat(rt, mode, gx, x, flat))
}

/// PyTorch's refusal of the in-place forms' backward with a negative
/// slope (their formula reads the result's sign as the input's).
fn refuse_negative_slope(kind: &Activation) -> R<()> {
    let what = match *kind {
        Activation::LeakyRelu { slope } if slope < 0.0 => {
            "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward calculation with negative slope"
        }
        Activation::Elu { alpha, .. } if alpha < 0.0 => {
            "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead."
        }
        _ => return Ok(()),
    };
    Err(Error::runtime(what))
}

/// `glu(x, dim)`: x's first half along `dim` times the sigmoid of its
/// second (`GluBackward0`).
pub fn glu(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, dim: i64) -> R<Arc<Tensor>> {
    check_dtype("glu", x)?;
    if x.ndim() == 0 {
        return Err(Error::shape(
            "glu does not support scalars because halving size must be even",
        ));
    }
    let d = crate::runtime::shape::norm_dim(dim, x.ndim())?;
    let (a, b) = halves(x, d)?;
    let s = unary(rt, UnaryOp::Sigmoid, &b)?;
    let out = bin(rt, BinaryOp::Mul, &a, &s)?;
    let backward = Backward::Glu {
        x: Saved::new(x),
        dim: d,
    };
    let out = attach_node(rt, mode, out, "GluBackward0", backward, &[x]);
    // Forward-mode AD: `ta * sig(b) + a * sig(b) * (1 - sig(b)) * tb`.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        let (ta, tb) = halves(t, d)?;
        let one_minus = crate::autograd::ops::s_bin(rt, BinaryOp::Sub, 1.0, &s)?;
        let slope = bin(rt, BinaryOp::Mul, &one_minus, &s)?;
        let slope = bin(rt, BinaryOp::Mul, &slope, &a)?;
        let mut o = Recording { rt, mode };
        let first = o.bin(BinaryOp::Mul, &ta, &s)?;
        let second = o.bin(BinaryOp::Mul, &slope, &tb)?;
        o.bin(BinaryOp::Add, &first, &second)
    })
}

/// x's two halves along `d`, views (PyTorch's refusal of an odd size).
fn halves(x: &Tensor, d: usize) -> R<(Tensor, Tensor)> {
    let n = x.shape()[d];
    if !n.is_multiple_of(2) {
        return Err(Error::shape(format!(
            "Halving dimension must be even, but dimension {d} is size {n}"
        )));
    }
    let parts = crate::runtime::op::view::chunk(x, 2, d as i64)?;
    let mut it = parts.into_iter();
    match (it.next(), it.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(Error::shape("glu needs a dimension of at least 2 elements")),
    }
}

/// `GluBackward0`: the first half's gradient `sig(b) * g`, the second's
/// `(1 - sig(b)) * sig(b) * a * g`, joined along `dim`.
pub fn glu_backward(rt: &mut Runtime, g: &Tensor, x: &Tensor, dim: usize) -> R<Arc<Tensor>> {
    let (a, b) = halves(x, dim)?;
    let s = unary(rt, UnaryOp::Sigmoid, &b)?;
    let ga = bin(rt, BinaryOp::Mul, &s, g)?;
    let one_minus = crate::autograd::ops::s_bin(rt, BinaryOp::Sub, 1.0, &s)?;
    let p = bin(rt, BinaryOp::Mul, &one_minus, &s)?;
    let p = bin(rt, BinaryOp::Mul, &p, &a)?;
    let gb = bin(rt, BinaryOp::Mul, &p, g)?;
    rt.join(&[&ga, &gb], dim as i64, false)
}

/// `prelu(x, weight)`: x above 0, `weight * x` elsewhere, one weight per
/// channel (dim 1) or one for all (`PreluKernelBackward0`, on the weight
/// viewed to broadcast, as PyTorch's: `ViewBackward0` to the parameter).
pub fn prelu(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, w: &Arc<Tensor>) -> R<Arc<Tensor>> {
    check_dtype("prelu", x)?;
    if w.ndim() > 1 {
        return Err(Error::shape(format!(
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}",
            w.ndim()
        )));
    }
    let channels = match x.ndim() {
        0 | 1 => 1,
        _ => x.shape()[1],
    };
    let n = w.numel();
    if n != 1 && n != channels {
        return Err(Error::shape(format!(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} and channel size = {channels}."
        )));
    }
    let mut dims = vec![1i64; x.ndim()];
    if x.ndim() >= 2 {
        dims[1] = n as i64;
    }
    let wv = super::views::reshape(rt, mode, w, &dims)?;
    let on = bin_s(rt, BinaryOp::Gt, x, 0.0)?;
    let scaled = bin(rt, BinaryOp::Mul, &wv, x)?;
    let out = pick(rt, &on, x, &scaled)?;
    let backward = Backward::Prelu {
        x: Saved::new(x),
        w: Saved::new(&wv),
    };
    let out = attach_node(rt, mode, out, "PreluKernelBackward0", backward, &[x, &wv]);
    // Forward-mode AD: `tx` above 0, `w * tx + tw * x` elsewhere.
    forward_ad::carry(rt, Arc::clone(&out), &[x, &wv], true, |rt, ts| {
        let mut o = Recording { rt, mode };
        let below = match &ts[0] {
            Some(tx) => Some(o.bin(BinaryOp::Mul, &wv, tx)?),
            None => None,
        };
        let by_weight = match &ts[1] {
            Some(tw) => Some(o.bin(BinaryOp::Mul, tw, x)?),
            None => None,
        };
        let below = super::jvp::total(&mut o, vec![below, by_weight], &out)?;
        let above = match &ts[0] {
            Some(tx) => Arc::clone(tx),
            None => o.zeros_like(&out)?,
        };
        o.pick(&on, &above, &below)
    })
}

/// `PreluKernelBackward0`: x's gradient `g` above 0, `w * g` elsewhere;
/// the weight's `x * g` where x is not above 0, summed to its shape.
pub fn prelu_backward(
    rt: &mut Runtime,
    g: &Tensor,
    (x, w): (&Tensor, &Tensor),
    (want_x, want_w): (bool, bool),
) -> R<[Option<Arc<Tensor>>; 2]> {
    let on = bin_s(rt, BinaryOp::Gt, x, 0.0)?;
    let gx = match want_x {
        true => {
            let scaled = bin(rt, BinaryOp::Mul, w, g)?;
            Some(pick(rt, &on, g, &scaled)?)
        }
        false => None,
    };
    let gw = match want_w {
        true => {
            let xg = bin(rt, BinaryOp::Mul, x, g)?;
            let off = s_pick(rt, &on, 0.0, &xg)?;
            Some(super::create_graph::sum_to(
                rt,
                Mode::off(),
                &off,
                w.shape(),
            )?)
        }
        false => None,
    };
    Ok([gx, gw])
}

/// `softsign(x)`: `x / (1 + |x|)`, recorded as PyTorch's composition
/// (`AbsBackward0`, `AddBackward0`, `DivBackward0`).
pub fn softsign(rt: &mut Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    let a = super::autocast::unary(rt, mode, UnaryOp::Abs, x)?;
    let one = Tensor::scalar(1.0);
    let d = super::record::binary(
        rt,
        mode,
        BinaryOp::Add,
        Operand::strong(&a),
        Operand::weak(&one),
    )?;
    super::record::binary(
        rt,
        mode,
        BinaryOp::Div,
        Operand::strong(x),
        Operand::strong(&d),
    )
}

/// `tanhshrink(x)`: `x - tanh(x)` (`TanhBackward0`, `SubBackward0`).
pub fn tanhshrink(rt: &mut Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    let t = super::autocast::unary(rt, mode, UnaryOp::Tanh, x)?;
    super::record::binary(
        rt,
        mode,
        BinaryOp::Sub,
        Operand::strong(x),
        Operand::strong(&t),
    )
}
