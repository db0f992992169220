//! Python's operator methods on a class of the program's: `a + b` is
//! `a.__add__(b)`, else `b.__radd__(a)`; `a < b` is `a.__lt__(b)`, else
//! `b.__gt__(a)`; `a != b` without `__ne__` is `not a.__eq__(b)`; `a += b`
//! is `a.__iadd__(b)` where the class has it, else `a = a + b`.

use super::args::ArgVal;
use super::dataclass::{field_values, has_option, ORDER};
use super::value::class_of;
use super::{Interp, Value};
use crate::error::Diagnostic;
use crate::lang::ast::BinOp;
use crate::lang::Span;
use crate::vocab::BinaryOp;

/// The method of `op`, and the one of the right operand when the left has
/// none (the reflected one; a comparison's mirror).
fn methods(op: BinOp) -> Option<(&'static str, &'static str)> {
    use BinaryOp::*;
    Some(match op {
        BinOp::MatMul => ("__matmul__", "__rmatmul__"),
        BinOp::Elementwise(op) => match op {
            Add => ("__add__", "__radd__"),
            Sub => ("__sub__", "__rsub__"),
            Mul => ("__mul__", "__rmul__"),
            Div => ("__truediv__", "__rtruediv__"),
            FloorDiv => ("__floordiv__", "__rfloordiv__"),
            Rem => ("__mod__", "__rmod__"),
            Pow => ("__pow__", "__rpow__"),
            BitAnd => ("__and__", "__rand__"),
            BitOr => ("__or__", "__ror__"),
            BitXor => ("__xor__", "__rxor__"),
            Shl => ("__lshift__", "__rlshift__"),
            Shr => ("__rshift__", "__rrshift__"),
            Eq => ("__eq__", "__eq__"),
            Ne => ("__ne__", "__ne__"),
            Lt => ("__lt__", "__gt__"),
            Le => ("__le__", "__ge__"),
            Gt => ("__gt__", "__lt__"),
            Ge => ("__ge__", "__le__"),
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether `v` is an instance of a program's class that defines `name`.
fn defines(v: &Value, name: &str) -> bool {
    matches!(v, Value::Object(_)) && class_of(v).is_some_and(|c| c.find(name).is_some())
}

/// Whether `v` is a map-style dataset: cudash's, or an instance of a
/// class derived from `Dataset`.
fn is_dataset(v: &Value) -> bool {
    match v {
        Value::Dataset(_) => true,
        Value::Object(o) => o.class.is_dataset(),
        _ => false,
    }
}

impl Interp {
    /// `a + b` of datasets: `torch.utils.data.ConcatDataset([a, b])`.
    fn concat_datasets(&mut self, a: &Value, b: &Value, span: Span) -> Result<Value, Diagnostic> {
        let data = super::imports::module("torch.utils.data").map_err(|e| e.at(span))?;
        let class = self.namespace_member(data, "ConcatDataset", span)?;
        let pair = Value::List(std::sync::Arc::new(vec![a.clone(), b.clone()]));
        let arg = ArgVal {
            keyword: None,
            value: pair,
            span,
        };
        self.call_value(class, vec![arg], span)
    }

    /// `a op b` by an operand's method, when one of them is an instance of
    /// a program's class that has it; None otherwise.
    pub(crate) fn operator_method(
        &mut self,
        op: BinOp,
        a: &Value,
        b: &Value,
        span: Span,
    ) -> Option<Result<Value, Diagnostic>> {
        use BinaryOp::{Ge, Gt, Le, Lt};
        let (name, reflected) = methods(op)?;
        if defines(a, name) {
            return Some(self.call_operator(a, name, b, span));
        }
        if defines(b, reflected) {
            return Some(self.call_operator(b, reflected, a, span));
        }
        // PyTorch's `Dataset.__add__`: `ConcatDataset([a, b])`.
        if op == BinOp::Elementwise(BinaryOp::Add) && is_dataset(a) {
            return Some(self.concat_datasets(a, b, span));
        }
        // `@dataclass(order=True)`: instances of one class compare as the
        // tuples of their fields.
        let ordered = |v: &Value| matches!(v, Value::Object(o) if has_option(o, ORDER));
        if matches!(op, BinOp::Elementwise(Lt | Le | Gt | Ge)) && (ordered(a) || ordered(b)) {
            if let (Value::Object(x), Value::Object(y)) = (a, b) {
                if std::sync::Arc::ptr_eq(&x.class, &y.class) {
                    let fields = |o| Value::List(std::sync::Arc::new(field_values(o)));
                    return Some(self.arith(op, fields(x), fields(y), span));
                }
            }
            let symbol = match op {
                BinOp::Elementwise(Lt) => "<",
                BinOp::Elementwise(Le) => "<=",
                BinOp::Elementwise(Gt) => ">",
                _ => ">=",
            };
            return Some(Err(crate::error::Error::Module {
                class: "TypeError",
                message: format!(
                    "'{symbol}' not supported between instances of '{}' and '{}'",
                    super::format::python_type(a),
                    super::format::python_type(b)
                ),
                help: None,
            }
            .at(span)));
        }
        // Python's default `__ne__`: the opposite of `__eq__`.
        if op == BinOp::Elementwise(BinaryOp::Ne) && defines(a, "__eq__") {
            let eq = self.call_operator(a, "__eq__", b, span);
            return Some(eq.and_then(|v| Ok(Value::bool(!self.truth(&v, span)?))));
        }
        None
    }

    /// `a op= b`: `a.__iop__(b)` where `a`'s class has it.
    pub(crate) fn in_place_operator_method(
        &mut self,
        op: BinaryOp,
        a: &Value,
        b: &Value,
        span: Span,
    ) -> Option<Result<Value, Diagnostic>> {
        let (name, _) = methods(BinOp::Elementwise(op))?;
        let in_place = format!("__i{}", &name[2..]);
        if defines(a, &in_place) {
            return Some(self.call_operator(a, &in_place, b, span));
        }
        self.operator_method(BinOp::Elementwise(op), a, b, span)
    }

    /// `-x`, `+x`, `abs(x)` of an instance of a program's class with the
    /// method (`__neg__`, `__pos__`, `__abs__`); None otherwise.
    pub(crate) fn unary_method(
        &mut self,
        v: &Value,
        name: &str,
        span: Span,
    ) -> Option<Result<Value, Diagnostic>> {
        if !defines(v, name) {
            return None;
        }
        Some(match self.call_object_method(v, name, Vec::new(), span) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(crate::error::Error::value(format!(
                "internal error: `{name}` was not found to call"
            ))
            .at(span)),
            Err(e) => Err(e),
        })
    }

    fn call_operator(
        &mut self,
        recv: &Value,
        name: &str,
        other: &Value,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let args = vec![ArgVal::positional(other.clone(), span)];
        match self.call_object_method(recv, name, args, span)? {
            Ok(v) => Ok(v),
            Err(_) => Err(crate::error::Error::value(format!(
                "internal error: `{name}` was not found to call"
            ))
            .at(span)),
        }
    }
}
