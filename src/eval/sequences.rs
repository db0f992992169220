//! Python's arithmetic and order on lists and tuples: `xs + ys` joins,
//! `[0] * n` repeats, `(1, 2) < (1, 3)` compares item by item. A list
//! joins only a list and a tuple only a tuple, as in Python.

use std::sync::Arc;

use super::format::python_type;
use super::Value;
use crate::error::Error;
use crate::lang::ast::BinOp;
use crate::vocab::BinaryOp;

/// Items past this many are refused (MemoryError) before the host is asked.
const MOST_ITEMS: usize = 1 << 28;

/// `a op b` when either side is a list or a tuple and Python defines it;
/// None when neither is one (or the op is the tensor's: `==` of lists is
/// answered by `equal`).
pub(super) fn sequence_binary(op: BinOp, a: &Value, b: &Value) -> Option<Result<Value, Error>> {
    // A torch.Size joined with a tuple (either side) or repeated is a
    // torch.Size (`x.shape[:-1] + (-1,)`), as PyTorch's.
    match (a, b, op) {
        (Value::Size(x), Value::Size(y) | Value::List(y), BinOp::Elementwise(BinaryOp::Add))
        | (Value::List(x), Value::Size(y), BinOp::Elementwise(BinaryOp::Add)) => {
            let mut items = x.to_vec();
            items.extend(y.iter().cloned());
            return Some(Ok(Value::Size(std::sync::Arc::new(items))));
        }
        (Value::Size(x), Value::Int(n), BinOp::Elementwise(BinaryOp::Mul))
        | (Value::Int(n), Value::Size(x), BinOp::Elementwise(BinaryOp::Mul)) => {
            return Some(repeat(&Value::List(x.clone()), *n).map(|v| match v {
                Value::List(items) => Value::Size(items),
                other => other,
            }));
        }
        _ => {}
    }
    let is_seq = |v: &Value| matches!(v, Value::List(_) | Value::MutList(_));
    if !is_seq(a) && !is_seq(b) {
        return None;
    }
    let BinOp::Elementwise(op) = op else {
        return None;
    };
    match (a, b, op) {
        (Value::List(_), Value::List(_), BinaryOp::Add)
        | (Value::MutList(_), Value::MutList(_), BinaryOp::Add) => {
            let mut items = a.items().unwrap_or_default().to_vec();
            items.extend(b.items().unwrap_or_default().iter().cloned());
            Some(Ok(same_kind(a, items)))
        }
        (_, _, BinaryOp::Add) if is_seq(a) => Some(Err(Error::Module {
            class: "TypeError",
            message: format!(
                "can only concatenate {} (not \"{}\") to {}",
                python_type(a),
                python_type(b),
                python_type(a)
            ),
            help: None,
        })),
        (seq, Value::Int(n), BinaryOp::Mul) | (Value::Int(n), seq, BinaryOp::Mul)
            if is_seq(seq) =>
        {
            Some(repeat(seq, *n))
        }
        (_, _, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
            if is_seq(a) && is_seq(b) =>
        {
            let order = super::builtins::python::compare(a, b)?;
            Some(Ok(Value::bool(match op {
                BinaryOp::Lt => order.is_lt(),
                BinaryOp::Le => order.is_le(),
                BinaryOp::Gt => order.is_gt(),
                _ => order.is_ge(),
            })))
        }
        _ => None,
    }
}

/// `xs * n`: the items `n` times over (none for `n <= 0`).
fn repeat(seq: &Value, n: i64) -> Result<Value, Error> {
    let items = seq.items().unwrap_or_default();
    let n = n.max(0) as usize;
    match items.len().checked_mul(n) {
        Some(total) if total <= MOST_ITEMS => {
            let mut out = Vec::with_capacity(total);
            for _ in 0..n {
                out.extend(items.iter().cloned());
            }
            Ok(same_kind(seq, out))
        }
        _ => Err(Error::Module {
            class: "MemoryError",
            message: format!(
                "a {} of {} × {n} items is more than cudash makes ({MOST_ITEMS})",
                python_type(seq),
                items.len()
            ),
            help: None,
        }),
    }
}

/// `items` as the kind `like` is: a new list for a list, a tuple for a tuple.
fn same_kind(like: &Value, items: Vec<Value>) -> Value {
    match like {
        Value::MutList(_) => Value::list(items),
        _ => Value::List(Arc::new(items)),
    }
}
