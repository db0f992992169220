//! Ops PyTorch computes as one kernel with a node of their own, written
//! here with the op layer's ops in PyTorch's order of operations:
//! `amax`/`amin` (`AmaxBackward0`, `AminBackward0`), `logsumexp`
//! (`LogsumexpBackward0`), `addcmul`/`addcdiv` (`AddcmulBackward0`,
//! `AddcdivBackward0`) and `lerp` (`LerpBackward0` for a number weight,
//! `LerpBackward1` for a tensor) and `nan_to_num` (`NanToNumBackward0`).

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::ops::unsqueeze_back;
use super::ops::{bin, bin_s, s_bin};
use super::record::attach_node;
use super::record::Recording;
use super::{forward_ad, jvp, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// The dims a reduction over `dims` (empty: every one) of `x` covers.
fn covered(x: &Tensor, dims: &[i64]) -> R<Vec<usize>> {
    match dims.is_empty() {
        true => Ok((0..x.ndim()).collect()),
        false => crate::runtime::shape::norm_dims(dims, x.ndim().max(1)),
    }
}

/// `x.amax(dim, keepdim)` (`max`: else `amin`): the largest (smallest)
/// elements over `dim` (every dim when empty), no indices.
pub fn amax(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (dims, keepdim): (&[i64], bool),
    max: bool,
) -> R<Arc<Tensor>> {
    let op = if max { ReduceOp::Max } else { ReduceOp::Min };
    let dims = covered(x, dims)?;
    let out = match x.ndim() {
        0 => rt.copy(x)?,
        _ => extreme(rt, op, x, &dims, keepdim)?,
    };
    let name = if max {
        "AmaxBackward0"
    } else {
        "AminBackward0"
    };
    let backward = Backward::Amax {
        x: Saved::new(x),
        out: Saved::output(&out),
        dims: dims.clone(),
        keepdim,
    };
    let out = attach_node(rt, mode, out, name, backward, &[x]);
    // Forward-mode AD: the tangent's mean where x equals the result.
    forward_ad::carry(rt, Arc::clone(&out), &[x], true, |rt, ts| match &ts[0] {
        Some(t) if x.ndim() == 0 => Ok(Arc::clone(t)),
        Some(t) => {
            let kept = unsqueeze_back(&out, &dims, keepdim)?;
            let all: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            jvp::amax(
                &mut Recording { rt, mode },
                (x, t),
                &kept,
                (Some(&all), keepdim),
            )
        }
        None => super::ops::full_like(rt, &out, 0),
    })
}

/// The largest (smallest) elements over `dims`, one dim at a time (each
/// step exact, so the order does not matter).
fn extreme(
    rt: &mut Runtime,
    op: ReduceOp,
    x: &Tensor,
    dims: &[usize],
    keepdim: bool,
) -> R<Arc<Tensor>> {
    let mut out = Arc::new(x.alias());
    for &d in dims {
        out = rt.reduce(op, &out, Some(d as i64), true)?;
    }
    match keepdim {
        true => Ok(out),
        false => rt.reshape(&out, &shape_without(x, dims)),
    }
}

/// `AmaxBackward0`: the gradient shared evenly by the elements equal to
/// the result (`scale_grad_by_count`).
pub fn amax_backward(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, out): (&Tensor, &Tensor),
    (dims, keepdim): (&[usize], bool),
) -> R<Arc<Tensor>> {
    use super::create_graph as cg;
    let g = cg::unsqueeze_back(rt, mode, g, dims, keepdim)?;
    let out = unsqueeze_back(out, dims, keepdim)?;
    let mask = bin(rt, BinaryOp::Eq, &out, x)?;
    let all: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let count = match all.is_empty() {
        true => rt.cast(&mask, g.dtype())?,
        false => rt.reduce_dims(ReduceOp::Sum, &mask, &all, true)?,
    };
    let share = cg::bin(rt, mode, BinaryOp::Div, &g, &count)?;
    let share = cg::cast(rt, mode, &share, g.dtype())?;
    cg::bin(rt, mode, BinaryOp::Mul, &share, &mask)
}

/// `x.logsumexp(dim, keepdim)`: `log(sum(exp(x)))` over `dim`, computed
/// as PyTorch does: the largest element taken out first (0 where it is
/// infinite), so nothing overflows.
pub fn logsumexp(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (dims, keepdim): (&[i64], bool),
) -> R<Arc<Tensor>> {
    let x = match x.dtype().is_float() {
        true => Arc::clone(x),
        false => rt.cast(x, crate::runtime::DType::F32)?,
    };
    let dims = covered(&x, dims)?;
    let all: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let out = match x.ndim() {
        0 => rt.copy(&x)?,
        _ => {
            let maxes = extreme(rt, ReduceOp::Max, &x, &dims, true)?;
            let size = rt.unary(UnaryOp::Abs, &maxes)?;
            let finite = bin_s(rt, BinaryOp::Ne, &size, f64::INFINITY)?;
            let zero = Tensor::scalar(0.0f64);
            let maxes = rt.ternary(
                TernaryOp::Where,
                Operand::strong(&finite),
                Operand::strong(&maxes),
                Operand::weak(&zero),
            )?;
            let shifted = bin(rt, BinaryOp::Sub, &x, &maxes)?;
            let e = rt.unary(UnaryOp::Exp, &shifted)?;
            let s = rt.reduce_dims(ReduceOp::Sum, &e, &all, keepdim)?;
            let l = rt.unary(UnaryOp::Log, &s)?;
            let m = match keepdim {
                true => maxes,
                false => rt.reshape(&maxes, &shape_without(&x, &dims))?,
            };
            bin(rt, BinaryOp::Add, &l, &m)?
        }
    };
    let backward = Backward::Logsumexp {
        x: Saved::new(&x),
        out: Saved::output(&out),
        dims: dims.clone(),
        keepdim,
    };
    let out = attach_node(rt, mode, out, "LogsumexpBackward0", backward, &[&x]);
    // Forward-mode AD: `sum(t * exp(x - result))`.
    forward_ad::carry(rt, Arc::clone(&out), &[&x], true, |rt, ts| match &ts[0] {
        Some(t) if x.ndim() == 0 => Ok(Arc::clone(t)),
        Some(t) => {
            let kept = unsqueeze_back(&out, &dims, keepdim)?;
            jvp::logsumexp(&mut Recording { rt, mode }, (&x, t), &kept, (&all, keepdim))
        }
        None => super::ops::full_like(rt, &out, 0),
    })
}

/// x's shape without `dims`, as a reshape takes it.
fn shape_without(x: &Tensor, dims: &[usize]) -> Vec<i64> {
    (0..x.ndim())
        .filter(|d| !dims.contains(d))
        .map(|d| x.shape()[d] as i64)
        .collect()
}

/// `LogsumexpBackward0`: `g * exp(x - result)`.
pub fn logsumexp_backward(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, out): (&Arc<Tensor>, &Arc<Tensor>),
    (dims, keepdim): (&[usize], bool),
) -> R<Arc<Tensor>> {
    use super::create_graph as cg;
    let g = cg::unsqueeze_back(rt, mode, g, dims, keepdim)?;
    let out = cg::unsqueeze_back(rt, mode, out, dims, keepdim)?;
    let d = cg::bin(rt, mode, BinaryOp::Sub, x, &out)?;
    let e = cg::unary(rt, mode, UnaryOp::Exp, &d)?;
    cg::bin(rt, mode, BinaryOp::Mul, &g, &e)
}

/// `addcmul(input, t1, t2, value)` (`div`: `addcdiv`): `input + value *
/// t1 * t2` (`/ t2`), in that order, as PyTorch's kernel.
pub fn addc(
    rt: &mut Runtime,
    mode: Mode,
    (input, t1, t2): (&Arc<Tensor>, &Arc<Tensor>, &Arc<Tensor>),
    value: f64,
    div: bool,
) -> R<Arc<Tensor>> {
    if div && !t1.dtype().is_float() && !t2.dtype().is_float() {
        return Err(Error::dtype(
            "Integer division with addcdiv is no longer supported, and in a future release \
             addcdiv will perform a true division of tensor1 and tensor2",
            Some("convert tensor1 or tensor2 to a floating point dtype first".into()),
        ));
    }
    let scaled = s_bin(rt, BinaryOp::Mul, value, t1)?;
    let op = if div { BinaryOp::Div } else { BinaryOp::Mul };
    let term = bin(rt, op, &scaled, t2)?;
    let out = bin(rt, BinaryOp::Add, input, &term)?;
    let requires = |t: &Tensor| mode.enabled && super::meta::requires_grad(t);
    let backward = Backward::Addc {
        t1: requires(t2).then(|| Saved::new(t1)),
        t2: (requires(t1) || div && requires(t2)).then(|| Saved::new(t2)),
        value,
        div,
    };
    let name = if div {
        "AddcdivBackward0"
    } else {
        "AddcmulBackward0"
    };
    let out = attach_node(rt, mode, out, name, backward, &[input, t1, t2]);
    forward_ad::carry(rt, Arc::clone(&out), &[input, t1, t2], true, |rt, ts| {
        jvp::addc(
            &mut Recording { rt, mode },
            (t1, t2),
            ts,
            (value, div),
            &out,
        )
    })
}

/// `AddcmulBackward0` / `AddcdivBackward0`: input's gradient is g; t1's
/// `g * t2 * value` (`g * value / t2`); t2's `g * t1 * value`
/// (`-g * value * t1 / t2^2`).
pub fn addc_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (t1, t2): (Option<&Tensor>, Option<&Tensor>),
    (value, div): (f64, bool),
    wants: [bool; 2],
) -> R<[Option<Arc<Tensor>>; 2]> {
    let mut grads = [None, None];
    if wants[0] {
        let t2 = t2.ok_or_else(|| Error::value("internal error: addc saved no tensor2"))?;
        grads[0] = Some(match div {
            false => {
                let a = bin(rt, BinaryOp::Mul, g, t2)?;
                bin_s(rt, BinaryOp::Mul, &a, value)?
            }
            true => {
                let a = bin_s(rt, BinaryOp::Mul, g, value)?;
                bin(rt, BinaryOp::Div, &a, t2)?
            }
        });
    }
    if wants[1] {
        let t1 = t1.ok_or_else(|| Error::value("internal error: addc saved no tensor1"))?;
        grads[1] = Some(match div {
            false => {
                let a = bin(rt, BinaryOp::Mul, g, t1)?;
                bin_s(rt, BinaryOp::Mul, &a, value)?
            }
            true => {
                let t2 =
                    t2.ok_or_else(|| Error::value("internal error: addcdiv saved no tensor2"))?;
                let minus = rt.unary(UnaryOp::Neg, g)?;
                let a = bin_s(rt, BinaryOp::Mul, &minus, value)?;
                let b = bin(rt, BinaryOp::Mul, &a, t1)?;
                let sq = bin(rt, BinaryOp::Mul, t2, t2)?;
                bin(rt, BinaryOp::Div, &b, &sq)?
            }
        });
    }
    Ok(grads)
}

/// `lerp`'s weight: a number or a tensor.
pub enum Weight<'a> {
    Number(f64),
    Tensor(&'a Arc<Tensor>),
}

/// `lerp(start, end, weight)`: `start + weight * (end - start)` where
/// `|weight| < 0.5`, else `end - (end - start) * (1 - weight)`, as
/// PyTorch's kernel (exact at both ends).
pub fn lerp(
    rt: &mut Runtime,
    mode: Mode,
    (start, end): (&Arc<Tensor>, &Arc<Tensor>),
    weight: Weight,
) -> R<Arc<Tensor>> {
    let diff = bin(rt, BinaryOp::Sub, end, start)?;
    let out = match &weight {
        Weight::Number(w) if w.abs() < 0.5 => {
            let step = s_bin(rt, BinaryOp::Mul, *w, &diff)?;
            bin(rt, BinaryOp::Add, start, &step)?
        }
        Weight::Number(w) => {
            let step = bin_s(rt, BinaryOp::Mul, &diff, 1.0 - w)?;
            bin(rt, BinaryOp::Sub, end, &step)?
        }
        Weight::Tensor(w) => {
            let size = rt.unary(UnaryOp::Abs, w)?;
            let low = bin_s(rt, BinaryOp::Lt, &size, 0.5)?;
            let step = bin(rt, BinaryOp::Mul, w, &diff)?;
            let near_start = bin(rt, BinaryOp::Add, start, &step)?;
            let rest = s_bin(rt, BinaryOp::Sub, 1.0, w)?;
            let back = bin(rt, BinaryOp::Mul, &diff, &rest)?;
            let near_end = bin(rt, BinaryOp::Sub, end, &back)?;
            rt.ternary(
                TernaryOp::Where,
                Operand::strong(&low),
                Operand::strong(&near_start),
                Operand::strong(&near_end),
            )?
        }
    };
    let out = match weight {
        Weight::Number(w) => attach_node(
            rt,
            mode,
            out,
            "LerpBackward0",
            Backward::Lerp {
                weight: None,
                number: w,
                ends: None,
            },
            &[start, end],
        ),
        Weight::Tensor(w) => {
            let wants_weight = mode.enabled && super::meta::requires_grad(w);
            let backward = Backward::Lerp {
                weight: Some(Saved::new(w)),
                number: 0.0,
                ends: wants_weight.then(|| (Saved::new(start), Saved::new(end))),
            };
            attach_node(rt, mode, out, "LerpBackward1", backward, &[start, end, w])
        }
    };
    // Forward-mode AD: `ts + w * (te - ts)` (`+ tw * (end - start)`).
    let (inputs, w): (Vec<&Tensor>, Result<f64, &Tensor>) = match weight {
        Weight::Number(w) => (vec![start, end], Ok(w)),
        Weight::Tensor(w) => (vec![start, end, w], Err(w)),
    };
    forward_ad::carry(rt, Arc::clone(&out), &inputs, true, |rt, ts| {
        jvp::lerp(&mut Recording { rt, mode }, (start, end), w, ts, &out)
    })
}

/// `LerpBackward0/1`: start's gradient `g * (1 - weight)`, end's `g *
/// weight`, a tensor weight's `g * (end - start)`.
pub fn lerp_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    weight: Option<&Tensor>,
    number: f64,
    ends: Option<(&Tensor, &Tensor)>,
    wants: [bool; 3],
) -> R<Vec<Option<Arc<Tensor>>>> {
    let mut grads = vec![None, None];
    if wants[0] {
        grads[0] = Some(match weight {
            Some(w) => {
                let rest = s_bin(rt, BinaryOp::Sub, 1.0, w)?;
                bin(rt, BinaryOp::Mul, g, &rest)?
            }
            None => bin_s(rt, BinaryOp::Mul, g, 1.0 - number)?,
        });
    }
    if wants[1] {
        grads[1] = Some(match weight {
            Some(w) => bin(rt, BinaryOp::Mul, g, w)?,
            None => bin_s(rt, BinaryOp::Mul, g, number)?,
        });
    }
    if let Some((start, end)) = ends.filter(|_| wants[2]) {
        let diff = bin(rt, BinaryOp::Sub, end, start)?;
        grads.push(Some(bin(rt, BinaryOp::Mul, g, &diff)?));
    }
    Ok(grads)
}

/// `nan_to_num(x, nan, posinf, neginf)`: NaN, +inf and -inf replaced
/// (the infinities by the dtype's largest and lowest finite values unless
/// given); its gradient passes where `x` is finite (`derivatives.yaml`:
/// `grad * isfinite(self)`), so it keeps `x`.
pub fn nan_to_num(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    (nan, posinf, neginf): (f64, Option<f64>, Option<f64>),
) -> R<Arc<Tensor>> {
    if !x.dtype().is_float() {
        return rt.copy(x);
    }
    let max = x.dtype().max_finite();
    let swap = |rt: &mut Runtime, t: &Tensor, hit: Arc<Tensor>, v: f64| {
        let v = Tensor::scalar(v);
        rt.ternary(
            TernaryOp::Where,
            Operand::strong(&hit),
            Operand::weak(&v),
            Operand::strong(t),
        )
    };
    let is_nan = bin(rt, BinaryOp::Ne, x, x)?;
    let out = swap(rt, x, is_nan, nan)?;
    let up = bin_s(rt, BinaryOp::Eq, &out, f64::INFINITY)?;
    let out = swap(rt, &out, up, posinf.unwrap_or(max))?;
    let down = bin_s(rt, BinaryOp::Eq, &out, f64::NEG_INFINITY)?;
    let out = swap(rt, &out, down, neginf.unwrap_or(-max))?;
    let backward = Backward::NanToNum { x: Saved::new(x) };
    Ok(attach_node(
        rt,
        mode,
        out,
        "NanToNumBackward0",
        backward,
        &[x],
    ))
}

/// `NanToNumBackward0`: `g` where `x` is finite, 0 elsewhere.
pub fn nan_to_num_backward(rt: &mut Runtime, g: &Tensor, x: &Tensor) -> R<Arc<Tensor>> {
    let real = bin(rt, BinaryOp::Eq, x, x)?;
    let size = rt.unary(UnaryOp::Abs, x)?;
    let bounded = bin_s(rt, BinaryOp::Ne, &size, f64::INFINITY)?;
    let finite = bin(rt, BinaryOp::LogicalAnd, &real, &bounded)?;
    super::ops::masked(rt, &finite, g)
}
