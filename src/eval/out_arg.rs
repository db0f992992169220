//! `out=`: a torch function's result written into a tensor the program
//! gives (`torch.matmul(a, b, out=y)`, `torch.max(x, 1, out=(v, i))`), as
//! PyTorch's `out=` overloads do: the same tensor back, its elements
//! replaced, under PyTorch's rules (no autograd through it, a result type
//! that can be cast to it, its device). cudash computes the result aside
//! and copies it in, where PyTorch's kernel writes `out` directly: `mem`
//! shows the result's block for the moment it lives.

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::autograd::meta::requires_grad;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

fn runtime_error(message: String, help: &str) -> Error {
    Error::Module {
        class: "RuntimeError",
        message,
        help: Some(help.into()),
    }
}

/// The `out=` argument, taken out of `args` (none: the call has none).
pub(super) fn take_out(args: &mut Vec<ArgVal>) -> Option<(Value, Span)> {
    let at = args
        .iter()
        .position(|a| a.keyword.as_ref().is_some_and(|k| k.name == "out"))?;
    let a = args.remove(at);
    Some((a.value, a.span))
}

impl Interp {
    /// `result` written into `out` (a tensor, or a tuple of them for a
    /// function of several results); `out` itself is the call's value.
    pub(super) fn write_out(
        &mut self,
        result: Value,
        (out, span): (Value, Span),
    ) -> Result<Value, Diagnostic> {
        match (&result, &out) {
            (Value::Tensor(r), Value::Tensor(o)) => {
                self.write_one(r, o).map_err(|e| e.at(span))?;
                Ok(out)
            }
            (Value::List(rs), Value::List(_) | Value::MutList(_)) => {
                let os: Vec<Value> = match &out {
                    Value::MutList(l) => crate::runtime::lock::lock(l).to_vec(),
                    Value::List(l) => l.to_vec(),
                    _ => Vec::new(),
                };
                if rs.len() != os.len() {
                    return Err(Error::value(format!(
                        "out= takes {} tensors here, one per result, not {}",
                        rs.len(),
                        os.len()
                    ))
                    .at(span));
                }
                for (r, o) in rs.iter().zip(&os) {
                    match (r, o) {
                        (Value::Tensor(r), Value::Tensor(o)) => {
                            self.write_one(r, o).map_err(|e| e.at(span))?
                        }
                        (_, o) => {
                            return Err(Error::wrong_type("out=", "tensors", o.type_name()).at(span))
                        }
                    }
                }
                Ok(out)
            }
            (Value::Tensor(_), other) => {
                Err(Error::wrong_type("out=", "a tensor", other.type_name()).at(span))
            }
            _ => Err(Error::value_help(
                "this function's result is not a tensor, so it has no out= form",
                "assign its result instead",
            )
            .at(span)),
        }
    }

    fn write_one(&mut self, result: &Arc<Tensor>, out: &Arc<Tensor>) -> Result<(), Error> {
        if self.grad.enabled && (requires_grad(result) || requires_grad(out)) {
            return Err(runtime_error(
                "out=... arguments don't support automatic differentiation, but one of the \
                 arguments requires grad."
                    .into(),
                "compute under `torch.no_grad()`, or assign the result (`y = torch.matmul(a, b)`)",
            ));
        }
        let (from, to) = (result.dtype(), out.dtype());
        let narrowing = (from.is_float() && !to.is_float())
            || (from != crate::runtime::DType::Bool && to == crate::runtime::DType::Bool);
        if narrowing {
            return Err(runtime_error(
                format!(
                    "result type {} can't be cast to the desired output type {}",
                    from.scalar_name(),
                    to.scalar_name()
                ),
                "give out= a tensor of the result's dtype",
            ));
        }
        if out.device() != result.device() {
            return Err(runtime_error(
                format!(
                    "Expected out tensor to have device {}, but got {} instead",
                    result.device(),
                    out.device()
                ),
                "give out= a tensor on the inputs' device",
            ));
        }
        if out.shape() != result.shape() {
            return Err(runtime_error(
                format!(
                    "out= has shape {} and the result shape {}: cudash does not resize an \
                     out= tensor (PyTorch resizes it, with a warning when it had elements)",
                    fmt_shape(out.shape()),
                    fmt_shape(result.shape())
                ),
                "give out= a tensor of the result's shape",
            ));
        }
        self.rt.copy_(out, result, false)
    }
}
