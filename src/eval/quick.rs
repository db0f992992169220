//! The arithmetic loops do most, done before anything else is looked at:
//! int with int and float with float, giving what the general path
//! (`expr::scalar_binary`) gives, or None to leave the rest to it.

use super::Value;
use crate::lang::ast::BinOp;
use crate::runtime::op::binary::BinaryOp;

/// `a op b` when `op` compares.
#[inline]
pub(super) fn compare<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> Option<bool> {
    Some(match op {
        BinaryOp::Eq => a == b,
        BinaryOp::Ne => a != b,
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        BinaryOp::Ge => a >= b,
        _ => return None,
    })
}

/// The arithmetic loops do most, int with int and float with float, done
/// at once: the same result `scalar_binary` gives, or None for the rest
/// (other ops, mixed types, an overflow to report).
#[inline]
pub(super) fn quick_scalar(op: BinOp, a: &Value, b: &Value) -> Option<Value> {
    let BinOp::Elementwise(op) = op else {
        return None;
    };
    match (a, b) {
        (&Value::Int(i), &Value::Int(j)) => Some(match op {
            BinaryOp::Add => Value::Int(i.checked_add(j)?),
            BinaryOp::Sub => Value::Int(i.checked_sub(j)?),
            BinaryOp::Mul => Value::Int(i.checked_mul(j)?),
            _ => Value::bool(compare(op, i, j)?),
        }),
        (&Value::Float(x), &Value::Float(y)) => {
            let (x, y) = (x.get(), y.get());
            Some(match op {
                BinaryOp::Add => Value::float(x + y),
                BinaryOp::Sub => Value::float(x - y),
                BinaryOp::Mul => Value::float(x * y),
                // By zero: Python's ZeroDivisionError, the general path's.
                BinaryOp::Div if y != 0.0 => Value::float(x / y),
                _ => Value::bool(compare(op, x, y)?),
            })
        }
        _ => None,
    }
}
