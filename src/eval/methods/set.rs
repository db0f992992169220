//! Python's set of hashable values: `set(iterable)`, membership, `add`,
//! `update`, `remove`, `discard`, `union`/`|`, `intersection`/`&`,
//! `difference`/`-`. Shared and changed in place, as a dict is (its items
//! are a `PyDict`'s keys); items keep the order they came in.

use super::super::args::Bound;
use super::super::value::{Key, PyDict};
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::vocab::{BinaryOp, Span};

/// The keys of an iterable's items (each hashable).
fn keys_of(me: &mut Interp, v: &Value, span: Span) -> Result<Vec<Key>, Diagnostic> {
    let items = match v {
        Value::Str(s) => s
            .chars()
            .map(|c| Value::Str(c.to_string().into()))
            .collect(),
        other => match other.elements() {
            Some(items) => items.map_err(|e| e.at(span))?,
            None => {
                return Err(Error::Module {
                    class: "TypeError",
                    message: format!(
                        "'{}' object is not iterable",
                        super::super::format::python_type(other)
                    ),
                    help: None,
                }
                .at(span))
            }
        },
    };
    items.iter().map(|v| key(me, v, span)).collect()
}

/// An item as a set holds it: a hashable value (`Interp::key`).
fn key(me: &mut Interp, v: &Value, span: Span) -> Result<Key, Diagnostic> {
    // In cudash's cells `[1, 2]` is a tensor: its items are 0-d int tensors.
    if let Value::Tensor(t) = v {
        if t.ndim() == 0 && t.dtype().is_int() {
            return Ok(Key::Int(t.to_vec::<i64>()[0]));
        }
    }
    me.key(v, span)
}

/// `keys` as a set of the kind `like` is (a frozenset's union is one).
fn of_keys_like(like: &PyDict, keys: impl IntoIterator<Item = Key>) -> Value {
    match (of_keys(keys), like.is_frozen()) {
        (Value::Set(s), true) => Value::Set(PyDict::frozen((*s.items()).clone())),
        (v, _) => v,
    }
}

/// `frozenset(iterable)`: a set no method changes, and a dict's key.
pub(crate) fn frozenset(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    match set(me, name, b)? {
        Value::Set(s) => Ok(Value::Set(PyDict::frozen((*s.items()).clone()))),
        other => Ok(other),
    }
}

pub(crate) fn of_keys(keys: impl IntoIterator<Item = Key>) -> Value {
    let set = PyDict::new(Vec::new());
    for k in keys {
        set.set(k, Value::None);
    }
    Value::Set(set)
}

/// A set of `items` (a `{a, b}` literal's, a set comprehension's).
pub(crate) fn set_of(me: &mut Interp, items: &[Value], span: Span) -> Result<Value, Diagnostic> {
    Ok(of_keys(
        items
            .iter()
            .map(|v| key(me, v, span))
            .collect::<Result<Vec<_>, _>>()?,
    ))
}

/// `set(iterable=None)`.
pub(crate) fn set(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    match b.get("iterable") {
        None => Ok(of_keys([])),
        Some((v, span)) => keys_of(me, v, *span).map(of_keys),
    }
}

/// `s.add(x)`, `s.update(*others)`, `s.remove(x)`, `s.discard(x)`,
/// `s.union(*others)`, `s.intersection(*others)`, `s.difference(*others)`.
pub(super) fn set_method(
    me: &mut Interp,
    name: &'static str,
    s: &PyDict,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let at = |e: Error| e.at(b.span);
    let one = |me: &mut Interp| -> Result<Key, Diagnostic> {
        let (v, span) = b
            .rest
            .first()
            .cloned()
            .or_else(|| b.get("x").cloned())
            .ok_or_else(|| at(Error::value(format!("{name}() takes the item"))))?;
        key(me, &v, span)
    };
    let others = |me: &mut Interp| -> Result<Vec<Vec<Key>>, Diagnostic> {
        b.rest
            .iter()
            .map(|(v, span)| keys_of(me, v, *span))
            .collect()
    };
    let mine = || -> Vec<Key> { s.items().iter().map(|(k, _)| k.clone()).collect() };
    let changes = matches!(
        name,
        "add" | "update" | "remove" | "discard" | "pop" | "clear"
    );
    if changes && s.is_frozen() {
        return Err(at(Error::Module {
            class: "AttributeError",
            message: format!("'frozenset' object has no attribute '{name}'"),
            help: Some("a frozenset never changes: `set(f)` is a set of its items".into()),
        }));
    }
    match name {
        "add" => {
            s.set(one(me)?, Value::None);
            Ok(Value::None)
        }
        "update" => {
            for keys in others(me)? {
                for k in keys {
                    s.set(k, Value::None);
                }
            }
            Ok(Value::None)
        }
        "remove" => {
            let k = one(me)?;
            match s.remove(&k) {
                Some(_) => Ok(Value::None),
                None => Err(at(Error::Module {
                    class: "KeyError",
                    message: super::super::format::repr_of(&k.value()),
                    help: None,
                })),
            }
        }
        "discard" => {
            s.remove(&one(me)?);
            Ok(Value::None)
        }
        // `s.pop()`: an item taken out (the first in cudash's order).
        "pop" => {
            let first = s.items().keys().next().cloned();
            match first {
                Some(k) => {
                    s.remove(&k);
                    Ok(k.value())
                }
                None => Err(at(Error::Module {
                    class: "KeyError",
                    message: "'pop from an empty set'".into(),
                    help: None,
                })),
            }
        }
        "clear" => {
            for k in mine() {
                s.remove(&k);
            }
            Ok(Value::None)
        }
        "copy" => Ok(of_keys_like(s, mine())),
        "issubset" | "issuperset" | "isdisjoint" => {
            let other: Vec<Key> = others(me)?.into_iter().flatten().collect();
            let own = mine();
            Ok(Value::bool(match name {
                "issubset" => own.iter().all(|k| other.contains(k)),
                "issuperset" => other.iter().all(|k| own.contains(k)),
                _ => !own.iter().any(|k| other.contains(k)),
            }))
        }
        "symmetric_difference" => {
            let other: Vec<Key> = others(me)?.into_iter().flatten().collect();
            let own = mine();
            let keys: Vec<Key> = own
                .iter()
                .filter(|k| !other.contains(k))
                .chain(other.iter().filter(|k| !own.contains(k)))
                .cloned()
                .collect();
            Ok(of_keys_like(s, keys))
        }
        "union" => {
            let mut keys = mine();
            keys.extend(others(me)?.into_iter().flatten());
            Ok(of_keys_like(s, keys))
        }
        "intersection" | "difference" => {
            let others: Vec<foldhash::HashSet<Key>> = others(me)?
                .into_iter()
                .map(|o| o.into_iter().collect())
                .collect();
            let keep = |k: &Key| {
                let inside = others.iter().all(|o| o.contains(k));
                let outside = others.iter().all(|o| !o.contains(k));
                match name {
                    "intersection" => inside,
                    _ => outside,
                }
            };
            Ok(of_keys_like(s, mine().into_iter().filter(|k| keep(k))))
        }
        _ => Err(at(Error::value(format!("a set has no method {name}")))),
    }
}

/// `a | b`, `a & b`, `a - b` of two sets; None when either is not a set.
pub(crate) fn set_binary(op: BinaryOp, a: &Value, b: &Value) -> Option<Result<Value, Error>> {
    let (Value::Set(x), Value::Set(y)) = (a, b) else {
        return None;
    };
    let (x_map, y_map) = (x.items(), y.items());
    let (mut xs, mut ys) = (x_map.keys(), y_map.keys());
    let (x_has, y_has) = (
        |k: &Key| x_map.contains_key(k),
        |k: &Key| y_map.contains_key(k),
    );
    Some(Ok(match op {
        BinaryOp::BitOr => of_keys_like(x, xs.chain(ys).cloned()),
        BinaryOp::BitAnd => of_keys_like(x, xs.filter(|k| y_has(k)).cloned()),
        BinaryOp::Sub => of_keys_like(x, xs.filter(|k| !y_has(k)).cloned()),
        BinaryOp::BitXor => of_keys_like(
            x,
            xs.filter(|k| !y_has(k))
                .chain(ys.filter(|k| !x_has(k)))
                .cloned(),
        ),
        // `==` and `!=`: the same items (`expr::equal`); `<=`, `<`:
        // subsets, `>=`, `>`: supersets, as Python's.
        BinaryOp::Eq | BinaryOp::Ne => return None,
        BinaryOp::Le => Value::bool(xs.all(y_has)),
        BinaryOp::Lt => Value::bool(x_map.len() < y_map.len() && xs.all(y_has)),
        BinaryOp::Ge => Value::bool(ys.all(x_has)),
        BinaryOp::Gt => Value::bool(y_map.len() < x_map.len() && ys.all(x_has)),
        _ => {
            return Some(Err(Error::Module {
                class: "TypeError",
                message: "unsupported operand type(s) for this operator: 'set' and 'set'".into(),
                help: Some("sets take `|`, `&`, `-`, `^` and comparisons".into()),
            }))
        }
    }))
}
