//! Elementwise functions beyond the operators: `maximum`, `minimum`, the
//! logical ops, `floor_divide`, `remainder`, `isnan`, `bitwise_not`,
//! `where` and `clamp`. The tensor methods of the same names call the same
//! helpers, so a function and its method cannot disagree.

use std::sync::Arc;

use super::super::args::{operand_value, Bound};
use super::super::{Interp, Value};
use crate::autograd::record;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::op::binary;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

/// `maximum(input, other)` and the other binary functions.
pub(super) fn binary(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.pointwise_binary(name, &t, b)
}

/// `logical_not(input)`, `isnan(input)`, `bitwise_not(input)`.
pub(super) fn unary(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.pointwise_unary(name, &t, b.span)
}

/// `nan_to_num(input, nan=0.0, posinf=none, neginf=none)`.
pub(super) fn nan_to_num(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    nan_to_num_of(me, name, &t, b)
}

/// `x.nan_to_num(...)`: NaN and the infinities replaced (`autograd::blends`).
pub(crate) fn nan_to_num_of(
    me: &mut Interp,
    _: &'static str,
    t: &std::sync::Arc<crate::runtime::Tensor>,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let values = (
        b.float("nan")?.unwrap_or(0.0),
        b.float("posinf")?,
        b.float("neginf")?,
    );
    b.result(crate::autograd::blends::nan_to_num(
        &mut me.rt, me.grad, t, values,
    ))
}

/// `where(condition, input, other)`.
pub(super) fn where_(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let cond = b.tensor("condition")?;
    if b.get("input").is_none() && b.get("other").is_none() {
        // `torch.where(condition)`: PyTorch's `nonzero(condition, as_tuple=True)`.
        let as_tuple = super::super::args::ArgVal {
            keyword: Some(crate::lang::ast::Name::new("as_tuple".into(), b.span)),
            value: Value::bool(true),
            span: b.span,
        };
        let name = crate::lang::ast::Name::new("nonzero".into(), b.span);
        return me.call_method(Value::Tensor(cond), &name, vec![as_tuple], b.span);
    }
    let x = me.operand_arg(b, "input")?;
    me.where_of(&cond, x, b)
}

/// `clamp(input, min=none, max=none)`.
pub(super) fn clamp(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.clamp_of(&t, b).map(Value::Tensor)
}

impl Interp {
    /// `name(t, other)` for the binary functions and methods; `maximum`,
    /// `minimum` and the logical ops take tensors only, as PyTorch's.
    pub(crate) fn pointwise_binary(
        &mut self,
        name: &str,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let op = binary_op(name).map_err(|e| e.at(b.span))?;
        let (other, weak) = self.operand_arg(b, "other")?;
        if weak && !op.divides() && !op.is_bitwise() && !op.is_shift() {
            let span = b.span_of("other");
            let hint = match op {
                BinaryOp::Maximum => " (for a number, `clamp(x, min=n)`)",
                BinaryOp::Minimum => " (for a number, `clamp(x, max=n)`)",
                _ => "",
            };
            return Err(Error::wrong_type(
                format!("argument `other` of {name}()"),
                format!("a tensor{hint}"),
                "a number",
            )
            .at(span));
        }
        b.result(crate::autograd::autocast::binary(
            &mut self.rt,
            self.grad,
            op,
            Operand::strong(t),
            Operand {
                tensor: &other,
                weak,
            },
        ))
    }

    /// `logical_not`, `isnan` (both comparisons, one kernel) and `bitwise_not`.
    pub(crate) fn pointwise_unary(
        &mut self,
        name: &str,
        t: &Arc<Tensor>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let r = match name {
            // x == 0 in x's own dtype: NaN is true, as PyTorch's.
            "logical_not" => {
                let zero = Tensor::scalar(0i64).cast(t.dtype());
                self.rt
                    .binary(BinaryOp::Eq, Operand::strong(t), Operand::strong(&zero))
            }
            "isnan" => self
                .rt
                .binary(BinaryOp::Ne, Operand::strong(t), Operand::strong(t)),
            _ => self.rt.unary(UnaryOp::BitNot, t),
        };
        r.map(Value::Tensor).map_err(|e| e.at(span))
    }

    /// `where(cond, x, other)`: x where cond holds, else other.
    pub(crate) fn where_of(
        &mut self,
        cond: &Arc<Tensor>,
        (x, wx): (Arc<Tensor>, bool),
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let (y, wy) = self.operand_arg(b, "other")?;
        let (xo, yo) = (
            Operand {
                tensor: &x,
                weak: wx,
            },
            Operand {
                tensor: &y,
                weak: wy,
            },
        );
        // A number the result's integer dtype cannot hold is PyTorch's
        // overflow error (`where(c, int8_x, 300)`), not a wrapped value.
        let dtype = binary::result_dtype(xo, yo);
        for o in [xo, yo] {
            if o.weak && o.tensor.dtype().is_int() {
                super::masked::number_fits(dtype, o.tensor.to_vec::<f64>()[0], true, false)
                    .map_err(|e| e.at(b.span))?;
            }
        }
        b.result(record::ternary(
            &mut self.rt,
            self.grad,
            TernaryOp::Where,
            Operand::strong(cond),
            xo,
            yo,
        ))
    }

    /// `clamp(t, min, max)`: one kernel with both bounds; with one, that
    /// bound's `maximum` or `minimum` (as PyTorch's clamp_min, clamp_max).
    pub(crate) fn clamp_of(
        &mut self,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let lo = self.bound_arg(b, "min")?;
        let hi = self.bound_arg(b, "max")?;
        let x = Operand::strong(t);
        if let (Some((_, lw)), Some((_, hw))) = (&lo, &hi) {
            if lw != hw {
                return Err(Error::wrong_type(
                    "the bounds of clamp",
                    "two numbers or two tensors (as PyTorch's overloads)",
                    "a number and a tensor",
                )
                .at(b.span));
            }
        }
        let r = match (&lo, &hi) {
            (Some((l, lw)), Some((h, hw))) => record::ternary(
                &mut self.rt,
                self.grad,
                TernaryOp::Clamp,
                x,
                Operand {
                    tensor: l,
                    weak: *lw,
                },
                Operand {
                    tensor: h,
                    weak: *hw,
                },
            ),
            (Some((bound, weak)), None) | (None, Some((bound, weak))) => {
                let op = if lo.is_some() {
                    BinaryOp::Maximum
                } else {
                    BinaryOp::Minimum
                };
                // A number past an integer tensor's range bounds nothing
                // (`clamp(max=1000)` of int8 keeps every value, as PyTorch's
                // clamp_max compares with the number itself): the
                // dtype's own end stands for it, where converting it would wrap.
                let saturated = match (x.tensor.dtype().int_bounds(), *weak) {
                    (Some((lo, hi)), true) if bound.dtype().is_int() => {
                        let v = bound.to_vec::<i64>()[0];
                        Some(Arc::new(Tensor::scalar(v.clamp(lo, hi))))
                    }
                    _ => None,
                };
                let y = Operand {
                    tensor: saturated.as_ref().unwrap_or(bound),
                    weak: *weak,
                };
                // A tensor bound is PyTorch's maximum/minimum, which takes
                // bool; a number is clamp_min/clamp_max, which does not.
                if *weak && binary::result_dtype(x, y) == DType::Bool {
                    Err(Error::dtype(
                        "`clamp` is not implemented for bool",
                        Some("convert first, e.g. `x.to(i64)`".into()),
                    ))
                } else {
                    crate::autograd::autocast::binary(&mut self.rt, self.grad, op, x, y)
                }
            }
            (None, None) => Err(Error::value_help(
                "clamp needs `min` or `max` (or both)",
                "e.g. `clamp(x, min=0)`, `clamp(x, -1, 1)`",
            )),
        };
        r.map_err(|e| e.at(b.span))
    }

    /// A required operand: a tensor, or a number (weak).
    pub(crate) fn operand_arg(
        &self,
        b: &Bound,
        name: &str,
    ) -> Result<(Arc<Tensor>, bool), Diagnostic> {
        let (v, span) = b
            .get(name)
            .ok_or_else(|| Error::value(format!("{}() needs `{name}`", b.func)).at(b.span))?;
        operand_value(v).ok_or_else(|| {
            Error::wrong_type(
                format!("argument `{name}` of {}()", b.func),
                "a number or a tensor",
                v.type_name(),
            )
            .at(*span)
        })
    }

    /// An optional bound (`min=`, `max=`): none when left out.
    fn bound_arg(&self, b: &Bound, name: &str) -> Result<Option<(Arc<Tensor>, bool)>, Diagnostic> {
        match b.given(name) {
            None => Ok(None),
            Some(_) => self.operand_arg(b, name).map(Some),
        }
    }
}

/// The binary op a function or method is named after.
pub(crate) fn binary_op(name: &str) -> Result<BinaryOp, Error> {
    BinaryOp::from_name(name.trim_end_matches('_'))
        .ok_or_else(|| Error::value(format!("internal error: `{name}` is not a binary op")))
}
