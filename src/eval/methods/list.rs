//! A Python list's methods (`list()` makes one), and a dict's
//! (`keys`, `values`, `items`, `get`).

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

/// `d.keys()`, `d.values()`, `d.items()` (as lists, in order) and
/// `d.get(key, default)`.
pub(super) fn dict_method(
    _: &mut Interp,
    name: &'static str,
    d: &Arc<Vec<(crate::eval::value::Key, Value)>>,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let key = |k: &crate::eval::value::Key| match k {
        crate::eval::value::Key::Str(s) => Value::Str(Arc::new(s.clone())),
        crate::eval::value::Key::Int(i) => Value::Int(*i),
    };
    let list = |items: Vec<Value>| Value::List(Arc::new(items));
    Ok(match name {
        "keys" => list(d.iter().map(|(k, _)| key(k)).collect()),
        "values" => list(d.iter().map(|(_, v)| v.clone()).collect()),
        "items" => list(
            d.iter()
                .map(|(k, v)| list(vec![key(k), v.clone()]))
                .collect(),
        ),
        // A statement on a variable (`d.update(x)`) is `stmt.rs`'s.
        "update" => {
            return Err(Error::value_help(
                "cudash updates a dict through the variable that holds it",
                "write `d.update(...)` as a statement of its own, with `d` the dict's variable",
            )
            .at(b.span))
        }
        _ => {
            let (wanted, _) = b
                .get("key")
                .ok_or_else(|| Error::value("get() needs a key").at(b.span))?;
            let found = d
                .iter()
                .find(|(k, _)| crate::eval::expr::equal(&key(k), wanted));
            match found {
                Some((_, v)) => v.clone(),
                None => b.get("default").map_or(Value::None, |(v, _)| v.clone()),
            }
        }
    })
}
