//! `torch.nn.utils.parameters_to_vector` and `vector_to_parameters`:
//! every parameter flattened into one vector (each `view(-1)`, then
//! `cat`, so gradients flow back to each), and a vector's slices written
//! back into the parameters.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::op::index::{select, Index};
use crate::runtime::op::view;
use crate::runtime::{Device, Tensor};

type Out = Result<Value, Diagnostic>;

/// The tensors of `parameters` (a tensor, a list, a generator's items),
/// all on one device, as PyTorch's `_check_param_device` asks.
fn parameters(b: &Bound) -> Result<Vec<Arc<Tensor>>, Diagnostic> {
    let span = b.span_of("parameters");
    let mut device: Option<Device> = None;
    let ts = parameter_tensors(b)?;
    for t in &ts {
        same_device(&mut device, t, span)?;
    }
    Ok(ts)
}

/// The tensors of the argument `parameters`: a tensor, or an iterable of
/// them (`model.parameters()`; clipping's too).
pub(crate) fn parameter_tensors(b: &Bound) -> Result<Vec<Arc<Tensor>>, Diagnostic> {
    let (v, span) = b
        .get("parameters")
        .cloned()
        .ok_or_else(|| Error::value("the parameters are needed").at(b.span))?;
    let items = match &v {
        Value::Tensor(_) => vec![v.clone()],
        other => match other.elements() {
            Some(items) => items.map_err(|e| e.at(span))?,
            None => {
                return Err(Error::wrong_type(
                    "parameters",
                    "an iterable of tensors (`model.parameters()`)",
                    other.type_name(),
                )
                .at(span))
            }
        },
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Value::Tensor(t) = item else {
            return Err(Error::wrong_type("a parameter", "a tensor", item.type_name()).at(span));
        };
        out.push(t);
    }
    Ok(out)
}

fn same_device(first: &mut Option<Device>, t: &Tensor, span: Span) -> Result<(), Diagnostic> {
    match first {
        Some(d) if *d != t.device() => Err(Error::Module {
            class: "TypeError",
            message: "Found two parameters on different devices, this is currently not supported."
                .into(),
            help: Some("move the model to one device first: `model.to(device)`".into()),
        }
        .at(span)),
        Some(_) => Ok(()),
        None => {
            *first = Some(t.device());
            Ok(())
        }
    }
}

/// `parameters_to_vector(parameters)`: `cat([p.view(-1) for p in
/// parameters])`, recorded as PyTorch records it (`ViewBackward0` of
/// each, `CatBackward0`).
pub(super) fn parameters_to_vector(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let ps = parameters(b)?;
    if ps.is_empty() {
        return Err(Error::value("torch.cat(): expected a non-empty list of Tensors").at(b.span));
    }
    let mut flat = Vec::with_capacity(ps.len());
    for p in &ps {
        flat.push(crate::autograd::views::view(&me.rt, me.grad, p, &[-1]).map_err(at)?);
    }
    let refs: Vec<&Tensor> = flat.iter().map(|t| &**t).collect();
    let out = me.rt.join(&refs, 0, false).map_err(at)?;
    let out =
        crate::autograd::record::join(&mut me.rt, me.grad, &refs, out, 0, false).map_err(at)?;
    Ok(Value::Tensor(out))
}

/// `vector_to_parameters(vec, parameters)`: each parameter takes the next
/// `numel` elements of `vec`, in its shape. PyTorch sets `param.data` to
/// that slice (the parameter then shares `vec`'s memory); cudash copies
/// the slice into the parameter's own memory, outside autograd, as
/// `.data` is.
pub(super) fn vector_to_parameters(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (v, span) = b
        .get("vec")
        .cloned()
        .ok_or_else(|| Error::value("vector_to_parameters() needs `vec`").at(b.span))?;
    let Value::Tensor(vec) = v else {
        return Err(Error::Module {
            class: "TypeError",
            message: format!(
                "expected torch.Tensor, but got: {}",
                match v {
                    // A list reaches a builtin as cudash's one sequence kind.
                    Value::List(_) | Value::MutList(_) => "list".into(),
                    ref other => super::super::format::python_type(other),
                }
            ),
            help: Some("give the vector `parameters_to_vector` made".into()),
        }
        .at(span));
    };
    if vec.ndim() != 1 {
        return Err(Error::shape(format!(
            "vector_to_parameters() takes a vector (1-d), not a tensor of shape {}",
            crate::runtime::shape::fmt_shape(vec.shape())
        ))
        .at(span));
    }
    let ps = parameters(b)?;
    let mut pointer = 0usize;
    for p in &ps {
        let n = p.numel();
        if pointer + n > vec.numel() {
            let left = vec.numel().saturating_sub(pointer);
            return Err(Error::shape(format!(
                "shape '{}' is invalid for input of size {left}",
                crate::runtime::shape::fmt_shape(p.shape())
            ))
            .at(span));
        }
        let dims: Vec<i64> = p.shape().iter().map(|&d| d as i64).collect();
        let (start, stop) = (pointer as i64, (pointer + n) as i64);
        let part = select(&vec, &[Index::Slice(Some(start), Some(stop), None)])
            .and_then(|part| view::view(&part, &dims))
            .map_err(|e| e.at(span))?;
        let part = match part.dtype() == p.dtype() {
            true => Arc::new(part),
            false => me.rt.cast(&part, p.dtype()).map_err(|e| e.at(span))?,
        };
        me.rt.assign(p, &part).map_err(|e| e.at(span))?;
        pointer += n;
    }
    Ok(Value::None)
}
