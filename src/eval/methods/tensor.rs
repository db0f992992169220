//! Tensor methods and properties: moving and copying (`.to`, `.cuda`,
//! `.cpu`, `.copy_to`, `.pin`), shape (`.reshape`, `.contiguous`,
//! `.transpose`), math, `.item`, in-place fills and `.new_full`.

use std::sync::Arc;

use super::super::args::{flatten, Bound};
use super::super::builtins::math::unary_op;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::shape::norm_dim;
use crate::runtime::{DType, Device, Tensor};

type Out = Result<Value, Diagnostic>;

/// `x.to(device | dtype, non_blocking=false)`: `x` itself when nothing changes.
pub(super) fn to(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let non_blocking = b.bool("non_blocking", false)?;
    match b.get("target").map(|(v, s)| (v.clone(), *s)) {
        Some((Value::Device(d), s)) => {
            let d = me.rt.check_device(d).map_err(|e| e.at(s))?;
            let r = me.rt.transfer(t, d, non_blocking);
            me.flush_notes();
            b.result(r)
        }
        Some((Value::DType(d), _)) if d == t.dtype() => Ok(Value::Tensor(Arc::clone(t))),
        Some((Value::DType(d), _)) => b.result(me.rt.cast(t, d)),
        Some((v, s)) => {
            Err(
                Error::wrong_type("the target of .to()", "a device or a dtype", v.type_name())
                    .at(s),
            )
        }
        None => Err(at(Error::value(".to() needs a device or a dtype"))),
    }
}

pub(super) fn cpu(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    b.result(me.rt.move_to(t, Device::Cpu))
}

pub(super) fn cuda(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let i = b.int("index")?;
    let i = i.map(|i| u32::try_from(i).unwrap_or(u32::MAX));
    let d = me.rt.cuda(i).map_err(at)?;
    b.result(me.rt.move_to(t, d))
}

pub(super) fn copy_to(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let d = b.device("device")?.unwrap_or(Device::Cpu);
    b.result(me.rt.copy_to(t, d))
}

pub(super) fn pin(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    b.result(me.rt.pinned_copy(t))
}

pub(super) fn record_stream(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let (s, tspan) = b.stream("stream")?;
    if t.device() != Device::Cuda(s.key.device) {
        return Err(Error::value_help(
            format!(
                "this tensor is on {}, and stream `{}` on cuda:{}",
                t.device(),
                s.name,
                s.key.device
            ),
            "record_stream takes a stream of the tensor's own device",
        )
        .at(tspan));
    }
    t.record_stream(s.key.stream);
    Ok(Value::None)
}

pub(super) fn reshape(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dims = reshape_dims(&b.rest)?;
    b.result(me.rt.reshape(t, &dims))
}

pub(super) fn contiguous(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    if t.is_contiguous() {
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    b.result(me.rt.copy(t))
}

pub(super) fn transpose(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let n = t.ndim();
    let d0 = norm_dim(b.int("dim0")?.unwrap_or(0), n).map_err(at)?;
    let d1 = norm_dim(b.int("dim1")?.unwrap_or(1), n).map_err(at)?;
    if n == 0 {
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    Ok(Value::tensor(t.transpose(d0, d1)))
}

pub(super) fn reduce(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.reduce(name, t, b)
}

pub(super) fn unary(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let op = unary_op(name).map_err(at)?;
    b.result(me.rt.unary(op, t))
}

/// `.item()`: a host read of the one element (it waits for the device).
pub(super) fn item(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.rt.read_item(t).map_err(|e| e.at(b.span))?;
    if t.numel() != 1 {
        return Err(Error::value_help(
            format!(
                "item() needs a tensor with exactly one element, but this one has {}",
                t.numel()
            ),
            "reduce it first, e.g. `x.sum().item()`, or index one element: `x[0].item()`",
        )
        .at(b.span));
    }
    Ok(match t.dtype() {
        DType::Bool => Value::Bool(t.to_vec::<bool>()[0]),
        DType::I32 | DType::I64 => Value::Int(t.to_vec::<i64>()[0]),
        _ => Value::Float(t.to_vec::<f64>()[0]),
    })
}

pub(super) fn numel(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, _: &Bound) -> Out {
    Ok(Value::Int(t.numel() as i64))
}

pub(super) fn fill_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let v = b.float("value")?.unwrap_or(0.0);
    me.rt.fill(t, v).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

pub(super) fn normal_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let mean = b.float("mean")?.unwrap_or(0.0);
    let std = b.float("std")?.unwrap_or(1.0);
    me.rt.normal_(t, mean, std).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

pub(super) fn new_full(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let shape = b.sizes("size")?;
    let v = b.float("value")?.unwrap_or(0.0);
    b.result(me.rt.full(&shape, v, t.dtype(), t.device(), Some(t)))
}

pub(super) fn shape(t: &Tensor) -> Value {
    Value::List(Arc::new(
        t.shape().iter().map(|&d| Value::Int(d as i64)).collect(),
    ))
}

/// `reshape(2, 3)` or `reshape([2, 3])`.
fn reshape_dims(rest: &[(Value, Span)]) -> Result<Vec<i64>, Diagnostic> {
    let flat: Vec<(Value, Span)> = match rest {
        [(v @ (Value::List(_) | Value::Tensor(_)), s)] => flatten(v, *s)?,
        _ => rest.to_vec(),
    };
    flat.iter()
        .map(|(v, s)| match v {
            Value::Int(i) => Ok(*i),
            other => {
                Err(
                    Error::wrong_type("a dimension of reshape()", "an int", other.type_name())
                        .at(*s),
                )
            }
        })
        .collect()
}
