//! What a tensor says of itself, as PyTorch's methods give it: `dim()`,
//! `ndimension()`, `nelement()`, `element_size()`, `is_floating_point()`,
//! `is_contiguous()`, `stride(dim=None)`, `storage_offset()` (the layout a
//! view shares with its base, in elements); and the methods PyTorch has
//! under another name for one cudash has (`swapaxes` is `transpose`,
//! `movedim` a `permute`, `unflatten` a `view`, `square` is `pow(2)`,
//! `clamp_min` a `clamp`, `type_as` a `to`), each called as that one, so
//! it is recorded as PyTorch records it.

use std::sync::Arc;

use super::super::args::{ArgVal, Bound};
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::runtime::memory_format::{self, MemoryFormat};
use crate::runtime::shape::norm_dim;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// `x.dim()`, `x.ndimension()`, `x.nelement()`, `x.element_size()`,
/// `x.is_floating_point()`, `x.is_signed()`, `x.is_contiguous()`, `x.get_device()`,
/// `x.storage_offset()`.
pub(super) fn fact(_: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    Ok(match name {
        "dim" | "ndimension" => Value::Int(t.ndim() as i64),
        "nelement" => Value::Int(t.numel() as i64),
        "element_size" => Value::Int(t.dtype().size() as i64),
        "is_floating_point" => Value::bool(t.dtype().is_float()),
        "is_signed" => Value::bool(t.dtype().is_signed()),
        "is_inference" => Value::bool(t.is_inference()),
        "is_contiguous" => Value::bool(match b.memory_format("memory_format")? {
            None | Some(MemoryFormat::Contiguous) => t.is_contiguous(),
            Some(MemoryFormat::Preserve) => {
                return Err(Error::runtime(
                    "is_contiguous with memory_format Preserve is not supported",
                )
                .at(b.span_of("memory_format")))
            }
            Some(f) => memory_format::is_contiguous_as(f, t.shape(), t.strides()),
        }),
        "get_device" => Value::Int(match t.device() {
            crate::runtime::Device::Cuda(i) => i64::from(i),
            crate::runtime::Device::Cpu | crate::runtime::Device::Meta => -1,
        }),
        _ => Value::Int(t.offset() as i64),
    })
}

/// `x.stride()`: each dimension's step in elements (a tuple); `x.stride(d)`
/// one of them.
pub(super) fn stride(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let steps: Vec<Value> = t.strides().iter().map(|&s| Value::Int(s as i64)).collect();
    match b.int("dim")? {
        None => Ok(Value::List(Arc::new(steps))),
        Some(d) => {
            let d = norm_dim(d, t.ndim()).map_err(|e| e.at(b.span_of("dim")))?;
            Ok(steps[d].clone())
        }
    }
}

/// A method PyTorch has under another name: called as cudash's own.
pub(super) fn alias(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let span = b.span;
    let arg = |v: Value| ArgVal::positional(v, span);
    let given = |k: &str| b.get(k).map(|(v, _)| v.clone()).unwrap_or(Value::None);
    let keyword = |k: &str, v: Value| ArgVal {
        keyword: Some(Name::new(k.into(), span)),
        value: v,
        span,
    };
    // `x.clamp_min(0.)` with a number: its own node (`ClampMinBackward0`).
    if let ("clamp_min" | "clamp_max", Some((v @ (Value::Int(_) | Value::Float(_)), _))) =
        (name, b.get(if name == "clamp_min" { "min" } else { "max" }))
    {
        let bound = v.as_number().unwrap_or(0.0);
        let op = match name {
            "clamp_min" => crate::vocab::BinaryOp::Maximum,
            _ => crate::vocab::BinaryOp::Minimum,
        };
        // An integer tensor with an int bound stays integer (and records nothing).
        if let (Value::Int(i), false) = (v, t.dtype().is_float()) {
            let s = crate::runtime::Tensor::scalar(*i);
            let r = me.rt.binary(
                op,
                crate::runtime::op::binary::Operand::strong(t),
                crate::runtime::op::binary::Operand::weak(&s),
            );
            return b.result(r);
        }
        let r = crate::autograd::record::binary_scalar(&mut me.rt, me.grad, op, t, bound);
        return b.result(r);
    }
    let (target, args) = match name {
        "swapaxes" | "swapdims" => ("transpose", vec![arg(given("dim0")), arg(given("dim1"))]),
        "square" => ("pow", vec![arg(Value::Int(2))]),
        "square_" => ("pow_", vec![arg(Value::Int(2))]),
        "clamp_min" => ("clamp", vec![keyword("min", given("min"))]),
        "clip" | "clip_" => (
            if name == "clip" { "clamp" } else { "clamp_" },
            vec![keyword("min", given("min")), keyword("max", given("max"))],
        ),
        // PyTorch's `contiguous().view(-1)`: reshape's `ViewBackward0`.
        "ravel" => ("reshape", vec![arg(Value::Int(-1))]),
        "clamp_max" => ("clamp", vec![keyword("max", given("max"))]),
        "type_as" => {
            let other = b.tensor("other")?;
            (
                "to",
                vec![
                    keyword("device", Value::device(other.device())),
                    keyword("dtype", Value::dtype(other.dtype())),
                ],
            )
        }
        "unflatten" => ("view", unflattened(t, b)?.into_iter().map(arg).collect()),
        _ => ("permute", moved(t, b)?.into_iter().map(arg).collect()),
    };
    let method = Name::new(target.into(), span);
    me.call_method(Value::Tensor(Arc::clone(t)), &method, args, span)
}

/// `x.unflatten(dim, sizes)`: the sizes of the view, `dim` split into `sizes`.
fn unflattened(t: &Tensor, b: &Bound) -> Result<Vec<Value>, Diagnostic> {
    let dim = b.int("dim")?.unwrap_or(0);
    let d = norm_dim(dim, t.ndim()).map_err(|e| e.at(b.span_of("dim")))?;
    let (v, span) = b
        .get("sizes")
        .cloned()
        .ok_or_else(|| Error::value("unflatten needs `sizes`").at(b.span))?;
    let sizes = super::shape::int_list(&[(v, span)], "a size of unflatten()")?;
    let mut out: Vec<Value> = t.shape()[..d]
        .iter()
        .map(|&s| Value::Int(s as i64))
        .collect();
    out.extend(sizes.into_iter().map(Value::Int));
    out.extend(t.shape()[d + 1..].iter().map(|&s| Value::Int(s as i64)));
    Ok(out)
}

/// `x.movedim(source, destination)` as the `permute` PyTorch makes of it.
fn moved(t: &Tensor, b: &Bound) -> Result<Vec<Value>, Diagnostic> {
    let n = t.ndim();
    let list = |k: &str| -> Result<Vec<usize>, Diagnostic> {
        let (v, span) = b
            .get(k)
            .cloned()
            .ok_or_else(|| Error::value(format!("movedim needs `{k}`")).at(b.span))?;
        super::shape::int_list(&[(v, span)], "a dimension of movedim()")?
            .into_iter()
            .map(|d| norm_dim(d, n).map_err(|e| e.at(span)))
            .collect()
    };
    let (src, dst) = (list("source")?, list("destination")?);
    if src.len() != dst.len() {
        return Err(Error::value(format!(
            "movedim: Invalid source or destination dims: source ({} dims) should contain the \
             same number of dims as destination ({} dims)",
            src.len(),
            dst.len()
        ))
        .at(b.span));
    }
    let mut order: Vec<Option<usize>> = vec![None; n];
    for (&s, &d) in src.iter().zip(&dst) {
        if order[d].is_some() || src.iter().filter(|&&x| x == s).count() > 1 {
            return Err(
                Error::value("movedim: repeated dim in `source` or `destination`").at(b.span),
            );
        }
        order[d] = Some(s);
    }
    let mut rest = (0..n).filter(|d| !src.contains(d));
    let order: Vec<Value> = order
        .into_iter()
        .map(|o| Value::Int(o.or_else(|| rest.next()).unwrap_or(0) as i64))
        .collect();
    Ok(order)
}
