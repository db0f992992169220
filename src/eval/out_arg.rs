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
        op: &str,
        result: Value,
        (out, span): (Value, Span),
    ) -> Result<Value, Diagnostic> {
        if let (Value::Tensor(r), Value::Tensor(o)) = (&result, &out) {
            self.write_one(op, r, o).map_err(|e| e.at(span))?;
            return Ok(out);
        }
        // `torch.max(x, 1, out=(values, indices))`: one tensor per result.
        let (Some(results), Some(outs)) = (result.items(), out.items()) else {
            return Err(match result {
                Value::Tensor(_) => Error::wrong_type("out=", "a tensor", out.type_name()),
                _ => Error::value_help(
                    "this function's result is not a tensor, so it has no out= form",
                    "assign its result instead",
                ),
            }
            .at(span));
        };
        if results.len() != outs.len() {
            return Err(Error::value(format!(
                "out= takes {} tensors here, one per result, not {}",
                results.len(),
                outs.len()
            ))
            .at(span));
        }
        for (r, o) in results.iter().zip(outs.iter()) {
            match (r, o) {
                (Value::Tensor(r), Value::Tensor(o)) => {
                    self.write_one(op, r, o).map_err(|e| e.at(span))?
                }
                (_, o) => return Err(Error::wrong_type("out=", "tensors", o.type_name()).at(span)),
            }
        }
        Ok(out)
    }

    fn write_one(
        &mut self,
        op: &str,
        result: &Arc<Tensor>,
        out: &Arc<Tensor>,
    ) -> Result<(), Error> {
        if self.grad.enabled && (requires_grad(result) || requires_grad(out)) {
            return Err(runtime_error(
                format!(
                    "{op}(): functions with out=... arguments don't support automatic \
                     differentiation, but one of the arguments requires grad."
                ),
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
