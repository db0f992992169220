//! Python's views of a dict: `d.keys()`, `d.values()`, `d.items()`. A view
//! reads its dict as it is when used (a key added after `k = d.keys()` is
//! in `k`), shows as `dict_keys(['a', 'b'])` (`odict_keys(...)` of an
//! OrderedDict, a `state_dict()`), and a keys or items view is set-like:
//! `in` by hash, `==` a set, and `-`, `&`, `|`, `^` with any iterable give
//! a set. A view is not a sequence: `d.keys()[0]` is Python's TypeError.

use std::sync::Arc;

use super::value::{DictView, Key, PyDict, ViewOf};
use super::Value;
use crate::error::Error;
use crate::vocab::BinaryOp;

/// `d.keys()`, `d.values()` or `d.items()` of `dict`.
pub(crate) fn view(dict: &PyDict, of: ViewOf) -> Value {
    Value::DictView(Arc::new(DictView {
        dict: dict.clone(),
        of,
    }))
}

/// Whether `item` is in `view` (`equal`: Python's `==` of two values): a
/// key by hash, an item by its key and then its value.
pub(crate) fn contains(
    view: &DictView,
    item: &Value,
    equal: &dyn Fn(&Value, &Value) -> bool,
) -> bool {
    match view.of {
        ViewOf::Keys => Key::of(item).is_some_and(|k| view.dict.contains(&k)),
        ViewOf::Values => view.dict.items().values().any(|v| equal(item, v)),
        ViewOf::Items => match item.elements() {
            Some(Ok(kv)) if kv.len() == 2 => Key::of(&kv[0])
                .and_then(|k| view.dict.get(&k))
                .is_some_and(|v| equal(&kv[1], &v)),
            _ => false,
        },
    }
}

/// A keys or an items view as a set of its items, or Python's TypeError
/// when an item's value cannot be hashed; None for a values view (not
/// set-like).
fn as_set(view: &DictView) -> Option<Result<Value, Error>> {
    if view.of == ViewOf::Values {
        return None;
    }
    Some(set_of(&view.elements()))
}

/// A set of `items`, or Python's TypeError for one that cannot be hashed.
fn set_of(items: &[Value]) -> Result<Value, Error> {
    let keys = items
        .iter()
        .map(Key::required)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(super::methods::set::of_keys(keys))
}

/// A set-like view as a set, any other iterable as the set of its items,
/// for `d.keys() - other` (None: not iterable).
fn operand(v: &Value) -> Option<Result<Value, Error>> {
    match v {
        Value::Set(_) => Some(Ok(v.clone())),
        Value::DictView(view) => as_set(view),
        other => other.elements().map(|items| items.and_then(|i| set_of(&i))),
    }
}

/// `a - b`, `a & b`, `a | b`, `a ^ b` where either is a keys or an items
/// view, the other any iterable: a set, as Python's; `==` of a set-like
/// view and a set (or another) compares their items. None: not a view's.
pub(crate) fn view_binary(op: BinaryOp, a: &Value, b: &Value) -> Option<Result<Value, Error>> {
    let set_like = |v: &Value| matches!(v, Value::DictView(view) if view.of != ViewOf::Values);
    if !(set_like(a) || set_like(b)) {
        return None;
    }
    let sets = || -> Option<Result<(Value, Value), Error>> {
        match (operand(a)?, operand(b)?) {
            (Ok(x), Ok(y)) => Some(Ok((x, y))),
            (Err(e), _) | (_, Err(e)) => Some(Err(e)),
        }
    };
    match op {
        BinaryOp::Sub | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
            Some(sets()?.and_then(|(x, y)| {
                super::methods::set::set_binary(op, &x, &y).unwrap_or_else(|| {
                    Err(Error::value("a set operation of two sets gave nothing"))
                })
            }))
        }
        // A view equals only a set or a set-like view.
        BinaryOp::Eq | BinaryOp::Ne => {
            let comparable = |v: &Value| set_like(v) || matches!(v, Value::Set(_));
            let same = comparable(a)
                && comparable(b)
                && match sets()? {
                    Ok((Value::Set(x), Value::Set(y))) => {
                        let (xs, ys) = (x.items(), y.items());
                        xs.len() == ys.len() && xs.keys().all(|k| ys.contains_key(k))
                    }
                    // An items view whose values cannot be hashed.
                    _ => false,
                };
            Some(Ok(Value::bool(same == (op == BinaryOp::Eq))))
        }
        _ => None,
    }
}

/// `d.keys()[0]`: Python's TypeError, with the list to index as help.
pub(crate) fn not_subscriptable(view: &DictView) -> Error {
    let what = match view.of {
        ViewOf::Keys => "keys",
        ViewOf::Values => "values",
        ViewOf::Items => "items",
    };
    Error::Module {
        class: "TypeError",
        message: format!("'{}' object is not subscriptable", view.python_type()),
        help: Some(format!(
            "a view is not a sequence: index a list of it, `list(d.{what}())[0]`, or take the first with `next(iter(d.{what}()))`"
        )),
    }
}
