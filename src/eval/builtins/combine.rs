//! PyTorch functions made of other ops, computed as PyTorch composes them
//! so their graphs have PyTorch's nodes: `hstack`, `vstack`/`row_stack`,
//! `dstack`, `column_stack` (a `cat` of views, `CatBackward0`),
//! `F.one_hot`, `F.normalize` (a norm, `clamp_min`, `expand_as`, a
//! division), `F.cosine_similarity` (each side divided by its norm, the
//! product summed), `F.pad` (`autograd::pad`), `torch.einsum`
//! (`autograd::einsum`) and `torch.is_tensor`.

use std::sync::Arc;

use super::super::args::{ArgVal, Bound};
use super::super::{Interp, Value};
use crate::autograd::{record, views};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::{DType, Tensor};

type Out = Result<Value, Diagnostic>;

/// `t.name(args...)`, as a program's call would make it.
fn method(me: &mut Interp, t: Value, name: &str, args: Vec<Value>, span: Span) -> Out {
    let args = args
        .into_iter()
        .map(|v| ArgVal::positional(v, span))
        .collect();
    me.call_method(t, &Name::new(name.into(), span), args, span)
}

fn tensor_of(v: Value, span: Span) -> Result<Arc<Tensor>, Diagnostic> {
    match v {
        Value::Tensor(t) => Ok(t),
        other => Err(Error::wrong_type("a result", "a tensor", other.type_name()).at(span)),
    }
}

/// `hstack(tensors)`, `vstack`/`row_stack`, `dstack`, `column_stack`:
/// each tensor made at least 1-, 2- or 3-d (`atleast_Nd`; a vector a
/// column for `column_stack`), then one `cat`.
pub(super) fn stack_family(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let ts = super::factories::tensor_list(b, "tensors", name)?;
    if ts.is_empty() {
        return Err(Error::value(format!("{name} expects a non-empty TensorList")).at(b.span));
    }
    let at = |e: Error| e.at(b.span);
    let mut parts = Vec::with_capacity(ts.len());
    for t in &ts {
        let shaped = match (name, t.ndim()) {
            ("hstack", 0) => views::reshape(&mut me.rt, me.grad, t, &[1]).map_err(at)?,
            ("vstack" | "row_stack", 0) => {
                views::reshape(&mut me.rt, me.grad, t, &[1, 1]).map_err(at)?
            }
            ("vstack" | "row_stack", 1) => views::unsqueeze(&me.rt, me.grad, t, 0).map_err(at)?,
            ("dstack", 0) => views::reshape(&mut me.rt, me.grad, t, &[1, 1, 1]).map_err(at)?,
            ("dstack", 1) => {
                let row = views::unsqueeze(&me.rt, me.grad, t, 0).map_err(at)?;
                views::unsqueeze(&me.rt, me.grad, &row, 2).map_err(at)?
            }
            ("dstack", 2) => views::unsqueeze(&me.rt, me.grad, t, 2).map_err(at)?,
            ("column_stack", 0 | 1) => {
                let n = t.numel() as i64;
                views::reshape(&mut me.rt, me.grad, t, &[n, 1]).map_err(at)?
            }
            _ => Arc::clone(t),
        };
        parts.push(shaped);
    }
    // hstack joins vectors along 0, everything else along 1 (2 for dstack).
    let dim = match name {
        "hstack" if parts[0].ndim() == 1 => 0,
        "hstack" | "column_stack" => 1,
        "dstack" => 2,
        _ => 0,
    };
    let refs: Vec<&Tensor> = parts.iter().map(|t| t.as_ref()).collect();
    let out = me.rt.join(&refs, dim, false).map_err(at)?;
    b.result(record::join(&mut me.rt, me.grad, &refs, out, dim, false))
}

/// `F.one_hot(tensor, num_classes=-1)`: an i64 tensor with one more
/// dimension, 1 at each element's class. Without `num_classes` the host
/// reads the largest class, as PyTorch's does; a cpu tensor's classes
/// are checked first, a CUDA tensor's by the scatter's assertion.
pub(super) fn one_hot(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let t = b.tensor("tensor")?;
    let at = |e: Error| e.at(b.span);
    if t.dtype() != DType::I64 {
        return Err(Error::Module {
            class: "RuntimeError",
            message: "one_hot is only applicable to index tensor of type LongTensor.".into(),
            help: Some("convert the classes first: `labels.long()`".into()),
        }
        .at(b.span));
    }
    let given = b.int("num_classes")?.unwrap_or(-1);
    let host = match t.device() {
        crate::runtime::Device::Cpu => Some(t.to_vec::<i64>()),
        _ if given < 0 => Some(me.rt.on_host(&t).map_err(at)?.to_vec::<i64>()),
        _ => None,
    };
    let classes = match (given, &host) {
        (n, _) if n >= 0 => n,
        (_, Some(v)) if v.is_empty() => {
            return Err(Error::Module {
                class: "RuntimeError",
                message: "Can not infer total number of classes from empty tensor.".into(),
                help: Some("give `num_classes`".into()),
            }
            .at(b.span))
        }
        (_, Some(v)) => v.iter().copied().max().unwrap_or(0) + 1,
        (_, None) => unreachable!("the host read the classes"),
    };
    // A CUDA tensor's classes are checked by the scatter's device-side
    // assertion, as PyTorch's (no host read for them).
    if let Some(v) = host
        .as_ref()
        .filter(|_| t.device() == crate::runtime::Device::Cpu)
    {
        let problem = match (v.iter().min(), v.iter().max()) {
            (Some(&lo), _) if lo < 0 => Some("Class values must be non-negative."),
            (_, Some(&hi)) if hi >= classes => {
                Some("Class values must be smaller than num_classes.")
            }
            _ => None,
        };
        if let Some(message) = problem {
            return Err(Error::Module {
                class: "RuntimeError",
                message: message.into(),
                help: None,
            }
            .at(b.span));
        }
    }
    let mut shape = t.shape().to_vec();
    shape.push(classes as usize);
    let zeros =
        crate::autograd::ops::full(&mut me.rt, &shape, DType::I64, t.device(), 0).map_err(at)?;
    let index = Arc::new(t.alias());
    let index = views::unsqueeze(&me.rt, me.grad, &index, -1).map_err(at)?;
    let one = Tensor::scalar(1i64);
    crate::autograd::scatter::scatter_(
        &mut me.rt,
        &zeros,
        (shape.len() - 1, &index),
        crate::autograd::scatter::Src::Value(&one),
        false,
    )
    .map_err(at)?;
    Ok(Value::Tensor(zeros))
}

/// A number argument as f64.
fn real(b: &Bound, name: &str, default: f64) -> Result<f64, Diagnostic> {
    match b.given(name) {
        None => Ok(default),
        Some((Value::Int(i), _)) => Ok(*i as f64),
        Some((Value::Float(f), _)) => Ok(f.get()),
        Some((v, s)) => {
            Err(Error::wrong_type(format!("argument `{name}`"), "a number", v.type_name()).at(*s))
        }
    }
}

/// `F.normalize(input, p=2.0, dim=1, eps=1e-12)`: PyTorch's
/// `input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)`.
pub(super) fn normalize(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let p = real(b, "p", 2.0)?;
    let dim = b.int("dim")?.unwrap_or(1);
    let eps = real(b, "eps", 1e-12)?;
    let span = b.span;
    let norm = method(
        me,
        Value::Tensor(Arc::clone(&x)),
        "norm",
        vec![Value::float(p), Value::Int(dim), Value::bool(true)],
        span,
    )?;
    let floor = method(me, norm, "clamp_min", vec![Value::float(eps)], span)?;
    let denom = method(
        me,
        floor,
        "expand_as",
        vec![Value::Tensor(Arc::clone(&x))],
        span,
    )?;
    let denom = tensor_of(denom, span)?;
    b.result(record::binary(
        &mut me.rt,
        me.grad,
        BinaryOp::Div,
        Operand::strong(&x),
        Operand::strong(&denom),
    ))
}

/// `F.cosine_similarity(x1, x2, dim=1, eps=1e-8)`: as PyTorch's (2.x)
/// computes it: x1 and x2 broadcast together, each divided by its norm
/// along `dim` (a clone, raised to `eps` in place without recording), the
/// product summed along `dim`.
pub(super) fn cosine_similarity(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x1, x2) = (b.tensor("x1")?, b.tensor("x2")?);
    let dim = b.int("dim")?.unwrap_or(1);
    let eps = real(b, "eps", 1e-8)?;
    let span = b.span;
    let at = |e: Error| e.at(span);
    let float = |t: &Arc<Tensor>, me: &mut Interp| -> Result<Arc<Tensor>, Diagnostic> {
        match t.dtype().is_float() {
            true => Ok(Arc::clone(t)),
            false => me.rt.cast(t, DType::default_float()).map_err(at),
        }
    };
    let (x1, x2) = (float(&x1, me)?, float(&x2, me)?);
    let shape =
        crate::runtime::shape::broadcast_shapes(x1.shape(), x2.shape()).ok_or_else(|| {
            Error::Broadcast {
                op: "cosine_similarity".into(),
                lhs: crate::runtime::shape::fmt_shape(x1.shape()),
                rhs: crate::runtime::shape::fmt_shape(x2.shape()),
            }
            .at(span)
        })?;
    let sizes: Vec<Value> = shape.iter().map(|&n| Value::Int(n as i64)).collect();
    let mut sides = Vec::with_capacity(2);
    for x in [x1, x2] {
        let x = match x.shape() == shape.as_slice() {
            true => x,
            false => tensor_of(
                method(me, Value::Tensor(x), "expand", sizes.clone(), span)?,
                span,
            )?,
        };
        let norm = method(
            me,
            Value::Tensor(Arc::clone(&x)),
            "norm",
            vec![Value::float(2.0), Value::Int(dim), Value::bool(true)],
            span,
        )?;
        let norm = tensor_of(method(me, norm, "clone", vec![], span)?, span)?;
        // PyTorch's `clamp_min_(eps)` under no_grad: not recorded.
        me.rt
            .binary_(
                BinaryOp::Maximum,
                &norm,
                Operand::weak(&Tensor::scalar(eps)),
            )
            .map_err(at)?;
        let unit = record::binary(
            &mut me.rt,
            me.grad,
            BinaryOp::Div,
            Operand::strong(&x),
            Operand::strong(&norm),
        )
        .map_err(at)?;
        sides.push(unit);
    }
    let product = record::binary(
        &mut me.rt,
        me.grad,
        BinaryOp::Mul,
        Operand::strong(&sides[0]),
        Operand::strong(&sides[1]),
    )
    .map_err(at)?;
    b.result(record::reduce(
        &mut me.rt,
        me.grad,
        ReduceOp::Sum,
        &product,
        Some(dim),
        false,
    ))
}

/// `torch.is_tensor(obj)`: whether `obj` is a tensor.
pub(super) fn is_tensor(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    Ok(Value::bool(matches!(
        b.get("obj"),
        Some((Value::Tensor(_) | Value::Sparse(_), _))
    )))
}

/// `F.pad(input, pad, mode="constant", value=none)`: constant padding
/// (`ConstantPadNdBackward0`); a negative pad crops.
pub(super) fn pad(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let mode = b.str("mode")?.unwrap_or_else(|| "constant".into());
    let edges = crate::autograd::pad::Edges::named(&mode);
    if edges.is_none() && mode != "constant" {
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!("Unrecognised padding mode {mode}"),
            help: Some(
                "the modes are \"constant\" (the default), \"reflect\", \"replicate\" and \"circular\"".into(),
            ),
        }
        .at(b.span_of("mode")));
    }
    let (v, span) = b
        .get("pad")
        .cloned()
        .ok_or_else(|| Error::value("pad() needs `pad`").at(b.span))?;
    let items = v.items().ok_or_else(|| {
        Error::wrong_type("argument `pad` of pad", "a tuple of ints", v.type_name()).at(span)
    })?;
    let pads = items
        .iter()
        .map(|p| match p {
            Value::Int(i) => Ok(*i),
            other => Err(Error::wrong_type("a pad", "an int", other.type_name()).at(span)),
        })
        .collect::<Result<Vec<i64>, Diagnostic>>()?;
    let value = match b.given("value") {
        None => crate::runtime::op::factory::Fill::Int(0),
        Some((Value::Int(i), _)) => crate::runtime::op::factory::Fill::Int(*i),
        Some((Value::Float(f), _)) => crate::runtime::op::factory::Fill::Float(f.get()),
        Some((Value::Bool(x), _)) => crate::runtime::op::factory::Fill::Bool(x.get()),
        Some((other, s)) => {
            return Err(
                Error::wrong_type("argument `value` of pad", "a number", other.type_name()).at(*s),
            )
        }
    };
    if let Some(edges) = edges {
        let zero = match &value {
            crate::runtime::op::factory::Fill::Int(i) => *i == 0,
            crate::runtime::op::factory::Fill::Float(f) => *f == 0.0,
            crate::runtime::op::factory::Fill::Bool(x) => !*x,
        };
        if !zero {
            return Err(Error::runtime(format!(
                "Padding mode \"{mode}\" doesn't take in value argument"
            ))
            .at(b.span_of("value")));
        }
        let (rt, grad) = (&mut me.rt, me.grad);
        return b.result(crate::autograd::pad::pad_by_edges(
            rt, grad, &x, &pads, edges,
        ));
    }
    b.result(crate::autograd::pad::pad(
        &mut me.rt, me.grad, &x, &pads, value,
    ))
}

/// `torch.einsum(equation, *operands)` (or the operands as one list).
pub(super) fn einsum(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let equation = b
        .str("equation")?
        .ok_or_else(|| Error::value("einsum() needs an equation").at(b.span))?;
    let mut operands = Vec::new();
    for (v, span) in &b.rest {
        match v {
            Value::Tensor(t) => operands.push(Arc::clone(t)),
            other => match other.items() {
                Some(items) if b.rest.len() == 1 => {
                    for item in items.iter() {
                        operands.push(tensor_of(item.clone(), *span)?);
                    }
                }
                _ => {
                    return Err(Error::wrong_type(
                        "an operand of einsum",
                        "a tensor",
                        other.type_name(),
                    )
                    .at(*span))
                }
            },
        }
    }
    b.result(crate::autograd::einsum::einsum(
        &mut me.rt, me.grad, &equation, &operands,
    ))
}
