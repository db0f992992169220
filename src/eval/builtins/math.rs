//! Reductions, elementwise functions and matmul (the methods of the same
//! names use `reduce` and `unary_op` too).

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::ops::elementwise::UnaryOp;
use crate::runtime::ops::reduce::ReduceOp;
use crate::runtime::Tensor;

/// `sum`, `mean`, `max`, `min`, `argmax`.
pub(super) fn reduce(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.reduce(name, &t, b)
}

/// `exp`, `log`, `sqrt`, `abs`, `relu`, `sigmoid`, `tanh`.
pub(super) fn unary(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    let op = unary_op(name).map_err(|e| e.at(b.span))?;
    b.result(me.rt.unary(op, &t))
}

pub(super) fn matmul(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (x, y) = (b.tensor("a")?, b.tensor("b")?);
    b.result(me.rt.matmul(&x, &y))
}

impl Interp {
    /// The reduction `name` of `t`, with `dim` and `keepdim` from `b`.
    pub(crate) fn reduce(
        &mut self,
        name: &str,
        t: &Tensor,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let op = ReduceOp::from_name(name).ok_or_else(|| {
            Error::value(format!("internal error: `{name}` is not a reduction")).at(b.span)
        })?;
        let dim = b.int("dim")?;
        let keepdim = b.bool("keepdim", false)?;
        b.result(self.rt.reduce(op, t, dim, keepdim))
    }
}

/// The unary op a builtin or method is named after; an internal error (not a
/// quiet `tanh`) for a name that is routed here but names no op.
pub(crate) fn unary_op(name: &str) -> Result<UnaryOp, Error> {
    UnaryOp::from_name(name)
        .ok_or_else(|| Error::value(format!("internal error: `{name}` is not a unary op")))
}
