//! A Python list's methods (`[]` and `list()` make one): each changes the
//! list in place, so every name for it sees the change.

use std::sync::{Arc, Mutex};

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::lock::lock;

/// A Python list: one vector every name for it shares.
pub(super) type List = Arc<Mutex<Arc<Vec<Value>>>>;

/// `xs.append(v)`: `v` at the end of `xs` (every name for `xs` sees it).
pub(super) fn append(
    _: &mut Interp,
    _: &'static str,
    xs: &List,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let (v, _) = b
        .get("value")
        .ok_or_else(|| Error::value("append() needs a value").at(b.span))?;
    // Copied only while a reading of the list as it was is still alive.
    Arc::make_mut(&mut lock(xs)).push(v.clone());
    Ok(Value::None)
}

/// `xs.extend(items)`, `xs.insert(i, v)`, `xs.pop(i=-1)`, `xs.remove(v)`,
/// `xs.index(v)`, `xs.count(v)`, `xs.reverse()`, `xs.sort(key=None,
/// reverse=False)`, `xs.clear()` and `xs.copy()`, as Python's.
pub(super) fn list_method(
    me: &mut Interp,
    name: &'static str,
    xs: &List,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let value = || {
        b.get("value")
            .map(|(v, _)| v.clone())
            .ok_or_else(|| Error::value(format!("{name}() needs a value")).at(b.span))
    };
    let position =
        |v: &Value, items: &[Value]| items.iter().position(|x| crate::eval::expr::equal(x, v));
    let index_error = |message: &str| {
        Error::Module {
            class: "IndexError",
            message: message.into(),
            help: None,
        }
        .at(b.span)
    };
    match name {
        "extend" => {
            let (v, span) = b
                .get("iterable")
                .ok_or_else(|| Error::value("extend() needs a list").at(b.span))?;
            let more = crate::eval::builtins::python::items_of(me, v, *span, "extend()")?;
            Arc::make_mut(&mut lock(xs)).extend(more);
            Ok(Value::None)
        }
        "insert" => {
            let i = b.int("index")?.unwrap_or(0);
            let v = value()?;
            let mut items = lock(xs);
            let n = items.len() as i64;
            // Python clamps: before the start, or after the end.
            let at = if i < 0 { (i + n).max(0) } else { i.min(n) };
            Arc::make_mut(&mut items).insert(at as usize, v);
            Ok(Value::None)
        }
        "pop" => {
            let mut items = lock(xs);
            if items.is_empty() {
                return Err(index_error("pop from empty list"));
            }
            let n = items.len() as i64;
            let i = b.int("index")?.unwrap_or(-1);
            let at = if i < 0 { i + n } else { i };
            if !(0..n).contains(&at) {
                return Err(index_error("pop index out of range"));
            }
            Ok(Arc::make_mut(&mut items).remove(at as usize))
        }
        "remove" => {
            let v = value()?;
            let mut items = lock(xs);
            let Some(at) = position(&v, &items) else {
                return Err(Error::value("list.remove(x): x not in list").at(b.span));
            };
            Arc::make_mut(&mut items).remove(at);
            Ok(Value::None)
        }
        "index" => {
            let v = value()?;
            let items = Arc::clone(&lock(xs));
            match position(&v, &items) {
                Some(at) => Ok(Value::Int(at as i64)),
                None => Err(Error::value(format!(
                    "{} is not in list",
                    crate::eval::format::repr_of(&v)
                ))
                .at(b.span)),
            }
        }
        "count" => {
            let v = value()?;
            let items = Arc::clone(&lock(xs));
            let n = items
                .iter()
                .filter(|x| crate::eval::expr::equal(x, &v))
                .count();
            Ok(Value::Int(n as i64))
        }
        "reverse" => {
            Arc::make_mut(&mut lock(xs)).reverse();
            Ok(Value::None)
        }
        "sort" => {
            let items = lock(xs).to_vec();
            let key = b
                .get("key")
                .map(|(k, _)| k.clone())
                .filter(|k| !matches!(k, Value::None));
            let reverse = b.bool("reverse", false)?;
            // The key function runs with the list unlocked (it may read it).
            let sorted =
                crate::eval::builtins::python::sort_values(me, items, key, reverse, b.span)?;
            *lock(xs) = Arc::new(sorted);
            Ok(Value::None)
        }
        "clear" => {
            *lock(xs) = Arc::new(Vec::new());
            Ok(Value::None)
        }
        _ => Ok(Value::list(lock(xs).to_vec())),
    }
}
