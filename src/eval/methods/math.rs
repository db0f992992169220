//! More of PyTorch's tensor math as methods (and `torch.X(input, ...)`):
//! `amax`/`amin`, `logsumexp`, `addcmul`/`addcdiv`, `lerp` (and in place),
//! `outer`, `repeat_interleave`, `count_nonzero`, the `isinf` family,
//! `ravel` and `clip`. Each is recorded as PyTorch records it: its own
//! node (`autograd::blends`), or PyTorch's own decomposition (`outer` is a
//! reshape and a product, `MulBackward0`).

use std::sync::Arc;

use super::super::args::{ArgVal, Bound};
use super::super::{Interp, Value};
use crate::autograd::blends::{self, Weight};
use crate::autograd::meta::requires_grad;
use crate::autograd::{record, views, Mode};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

type Out = Result<Value, Diagnostic>;

/// The dims of a reduction's `dim` argument: an int, a list or tuple of
/// them, or none (every dim).
fn dims_arg(b: &Bound) -> Result<Vec<i64>, Diagnostic> {
    match b.given("dim") {
        None => Ok(vec![]),
        Some((Value::Int(d), _)) => Ok(vec![*d]),
        Some((v, s)) => super::shape::int_list(&[(v.clone(), *s)], "a dim"),
    }
}

/// `x.amax(dim=(), keepdim=false)` and `x.amin(...)`.
pub(super) fn amax(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dims = dims_arg(b)?;
    let keepdim = b.bool("keepdim", false)?;
    if t.numel() == 0 && dims.is_empty() {
        return Err(Error::value(format!(
            "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        ))
        .at(b.span));
    }
    b.result(blends::amax(
        &mut me.rt,
        me.grad,
        t,
        (&dims, keepdim),
        name == "amax",
    ))
}

/// `x.logsumexp(dim, keepdim=false)`.
pub(super) fn logsumexp(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    if b.given("dim").is_none() {
        return Err(Error::value_help(
            "logsumexp() needs `dim`",
            "e.g. `x.logsumexp(1)`; every dim: `x.logsumexp(tuple(range(x.dim())))`",
        )
        .at(b.span));
    }
    let dims = dims_arg(b)?;
    let keepdim = b.bool("keepdim", false)?;
    b.result(blends::logsumexp(&mut me.rt, me.grad, t, (&dims, keepdim)))
}

/// A number argument (`value`, `weight`) as an f64.
fn number(b: &Bound, name: &str, default: f64) -> Result<f64, Diagnostic> {
    match b.given(name) {
        None => Ok(default),
        Some((Value::Int(i), _)) => Ok(*i as f64),
        Some((Value::Float(f), _)) => Ok(f.get()),
        Some((Value::Bool(x), _)) => Ok(f64::from(u8::from(x.get()))),
        // A 0-d tensor that needs no gradient is a number, as in PyTorch.
        Some((Value::Tensor(t), s)) if t.device().is_meta() => Err(super::super::args::no_item(*s)),
        Some((Value::Tensor(t), _))
            if t.ndim() == 0 && !crate::autograd::meta::requires_grad(t) =>
        {
            Ok(t.to_vec::<f64>()[0])
        }
        Some((v, s)) => {
            Err(Error::wrong_type(format!("argument `{name}`"), "a number", v.type_name()).at(*s))
        }
    }
}

/// An in-place op (`addcmul_`, `lerp_`, `scatter_`) on `t`: refused on a
/// leaf that requires grad (PyTorch's error) and in a graph (cudash does
/// not record these in place yet); else the mode to compute it in.
pub(super) fn outside_a_graph(
    me: &mut Interp,
    name: &str,
    t: &Arc<Tensor>,
    others: &[&Tensor],
    b: &Bound,
) -> Result<Mode, Diagnostic> {
    crate::autograd::inplace::check_leaf(me.grad, t).map_err(|e| e.at(b.span))?;
    if me.grad.enabled
        && t.dtype().is_float()
        && (requires_grad(t) || others.iter().any(|o| requires_grad(o)))
    {
        return Err(Error::Autograd {
            message: format!("cudash cannot record `{name}` on a tensor in a graph yet"),
            help: format!(
                "use the out-of-place `x = x.{}(...)`, or write it under `torch.no_grad()` as an optimizer does",
                name.trim_end_matches('_')
            ),
        }
        .at(b.span));
    }
    Ok(Mode {
        enabled: false,
        ..me.grad
    })
}

/// `x.addcmul(tensor1, tensor2, value=1)`, `addcdiv`, and in place.
pub(super) fn addc(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let (t1, t2) = (b.tensor("tensor1")?, b.tensor("tensor2")?);
    let value = number(b, "value", 1.0)?;
    let div = name.starts_with("addcdiv");
    if !name.ends_with('_') {
        return b.result(blends::addc(&mut me.rt, me.grad, (t, &t1, &t2), value, div));
    }
    let mode = outside_a_graph(me, name, t, &[&t1, &t2], b)?;
    let at = |e: Error| e.at(b.span);
    let out = blends::addc(&mut me.rt, mode, (t, &t1, &t2), value, div).map_err(at)?;
    me.rt.assign(t, &out).map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.lerp(end, weight)` (a number or a tensor), and `lerp_`.
pub(super) fn lerp(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let end = b.tensor("end")?;
    let w_tensor = match b.given("weight") {
        Some((Value::Tensor(w), _)) => Some(Arc::clone(w)),
        _ => None,
    };
    let weight = match &w_tensor {
        Some(w) => Weight::Tensor(w),
        None => Weight::Number(number(b, "weight", 0.0)?),
    };
    if !name.ends_with('_') {
        return b.result(blends::lerp(&mut me.rt, me.grad, (t, &end), weight));
    }
    let mut others: Vec<&Tensor> = vec![&end];
    others.extend(w_tensor.as_deref());
    let mode = outside_a_graph(me, name, t, &others, b)?;
    let at = |e: Error| e.at(b.span);
    let out = blends::lerp(&mut me.rt, mode, (t, &end), weight).map_err(at)?;
    me.rt.assign(t, &out).map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.outer(vec2)`: PyTorch's `x.reshape(n, 1) * vec2` (`MulBackward0`).
pub(super) fn outer(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let v = b.tensor("vec2")?;
    for (what, x) in [("self", t), ("vec2", &v)] {
        if x.ndim() != 1 {
            return Err(Error::Shape {
                message: format!(
                    "{name}: Expected 1-D argument {what}, but got {}-D",
                    x.ndim()
                ),
                help: Some("flatten it first: `x.flatten()`".into()),
            }
            .at(b.span));
        }
    }
    let at = |e: Error| e.at(b.span);
    let column = views::reshape(&mut me.rt, me.grad, t, &[t.numel() as i64, 1]).map_err(at)?;
    let product = record::binary(
        &mut me.rt,
        me.grad,
        BinaryOp::Mul,
        Operand::strong(&column),
        Operand::strong(&v),
    );
    b.result(product)
}

/// `x.repeat_interleave(repeats, dim=none)`: each element (slice along
/// `dim`; of the flattened x without one) `repeats` times in a row. A
/// number of repeats is PyTorch's `unsqueeze`, `expand`, `clone`,
/// `flatten` (`ViewBackward0`); a tensor of them an `index_select` of the
/// positions repeated, which the host reads to size the result.
pub(super) fn repeat_interleave(
    me: &mut Interp,
    _: &'static str,
    t: &Arc<Tensor>,
    b: &Bound,
) -> Out {
    let at = |e: Error| e.at(b.span);
    let (x, dim) = match b.int("dim")? {
        Some(d) => (
            Arc::clone(t),
            crate::runtime::shape::norm_dim(d, t.ndim().max(1)).map_err(at)?,
        ),
        None => (
            views::reshape(&mut me.rt, me.grad, t, &[-1]).map_err(at)?,
            0,
        ),
    };
    let x = match x.ndim() {
        0 => views::reshape(&mut me.rt, me.grad, &x, &[1]).map_err(at)?,
        _ => x,
    };
    let (repeats, span) = b
        .get("repeats")
        .cloned()
        .ok_or_else(|| Error::value("repeat_interleave needs `repeats`").at(b.span))?;
    let counts: Vec<i64> = match &repeats {
        Value::Int(n) => {
            if *n < 0 {
                return Err(Error::value("repeats can not be negative").at(span));
            }
            let n = *n;
            let wide = views::unsqueeze(&me.rt, me.grad, &x, dim as i64 + 1).map_err(at)?;
            let mut sizes: Vec<i64> = wide.shape().iter().map(|&s| s as i64).collect();
            sizes[dim + 1] = n;
            let spread = me.call_method(
                Value::Tensor(wide),
                &Name::new("expand".into(), b.span),
                sizes
                    .into_iter()
                    .map(|s| ArgVal::positional(Value::Int(s), b.span))
                    .collect(),
                b.span,
            )?;
            let copied =
                me.call_method(spread, &Name::new("clone".into(), b.span), vec![], b.span)?;
            let flat = [dim as i64, dim as i64 + 1]
                .into_iter()
                .map(|d| ArgVal::positional(Value::Int(d), b.span))
                .collect();
            return me.call_method(copied, &Name::new("flatten".into(), b.span), flat, b.span);
        }
        Value::Tensor(r) if r.dtype().is_int() => {
            let host = me.rt.on_host(r).map_err(at)?;
            let counts = host.cast(DType::I64).to_vec::<i64>();
            let expected = x.shape()[dim];
            if counts.len() != expected && counts.len() != 1 {
                return Err(Error::Module {
                    class: "RuntimeError",
                    message: format!(
                        "repeats must have the same size as input along dim, but got repeats.size(0) = {} and input.size({dim}) = {expected}",
                        counts.len()
                    ),
                    help: Some("one count per slice along `dim`, or a single count".into()),
                }
                .at(span));
            }
            match counts.len() {
                1 => vec![counts[0]; expected],
                _ => counts,
            }
        }
        other => {
            return Err(Error::wrong_type(
                "argument `repeats` of repeat_interleave",
                "an int or an integer tensor",
                other.type_name(),
            )
            .at(span))
        }
    };
    if counts.iter().any(|&c| c < 0) {
        return Err(Error::value("repeats can not be negative").at(span));
    }
    let positions: Vec<i64> = counts
        .iter()
        .enumerate()
        .flat_map(|(k, &c)| std::iter::repeat_n(k as i64, c as usize))
        .collect();
    let n = positions.len();
    // A cpu index, which indexing takes for a tensor on any device.
    let index = Arc::new(Tensor::from_vec(positions, vec![n]));
    b.result(crate::autograd::scatter::index_select(
        &mut me.rt, me.grad, &x, dim, &index,
    ))
}

/// `x.count_nonzero(dim=none)`: how many elements are not zero (i64).
pub(super) fn count_nonzero(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let zero = Tensor::scalar(0i64);
    let nonzero = me
        .rt
        .binary(BinaryOp::Ne, Operand::strong(t), Operand::weak(&zero))
        .map_err(at)?;
    let dims = dims_arg(b)?;
    let out = match dims.is_empty() {
        true => me.rt.reduce(ReduceOp::Sum, &nonzero, None, false),
        false => me.rt.reduce_dims(ReduceOp::Sum, &nonzero, &dims, false),
    };
    b.result(out)
}

/// `x.isinf()`, `isposinf`, `isneginf`, `isfinite`: bool tensors (never
/// for integers, every one finite).
pub(super) fn is_inf(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let x = match t.dtype() {
        DType::Bool => me.rt.cast(t, DType::I64).map_err(at)?,
        _ => Arc::clone(t),
    };
    let rt = &mut me.rt;
    let cmp = |rt: &mut crate::runtime::dispatch::Runtime, op: BinaryOp, a: &Tensor, v: f64| {
        rt.binary(op, Operand::strong(a), Operand::weak(&Tensor::scalar(v)))
    };
    let out = match name {
        "isposinf" => cmp(rt, BinaryOp::Eq, &x, f64::INFINITY),
        "isneginf" => cmp(rt, BinaryOp::Eq, &x, f64::NEG_INFINITY),
        "isinf" => rt
            .unary(UnaryOp::Abs, &x)
            .and_then(|a| cmp(rt, BinaryOp::Eq, &a, f64::INFINITY)),
        _ => (|| {
            let number = rt.binary(BinaryOp::Eq, Operand::strong(&x), Operand::strong(&x))?;
            let size = rt.unary(UnaryOp::Abs, &x)?;
            let bounded = cmp(rt, BinaryOp::Ne, &size, f64::INFINITY)?;
            rt.binary(
                BinaryOp::LogicalAnd,
                Operand::strong(&number),
                Operand::strong(&bounded),
            )
        })(),
    };
    out.map(Value::Tensor).map_err(at)
}
