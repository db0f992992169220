//! A Python dict's methods: reading (`keys`, `values`, `items`, `get`)
//! and changing it in place (`update`, `pop`, `setdefault`, `clear`), as
//! Python's: every name for the dict sees the change.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::format::repr_of;
use super::super::value::{DictMap, Key, PyDict};
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};

/// The variables torchrun (`cudash launch`) sets in each process.
const TORCHRUN: &[&str] = &[
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
];

/// More keys than this are counted, not listed, in a `KeyError`'s help.
const MANY: usize = 12;

/// Python's `KeyError` for `key`, missing from a dict of `keys`: its repr
/// as the message, and the nearest key (or the keys) as help.
pub fn key_error(key: &Key, keys: &DictMap) -> Error {
    let suggestion = key.as_str().and_then(|key| {
        super::super::suggest::closest(key, keys.iter().filter_map(|(k, _)| k.as_str()))
    });
    let environ = keys.iter().any(|(k, _)| k.as_str() == Some("PATH"));
    let help = match (suggestion, key.as_str()) {
        // `os.environ["LOCAL_RANK"]` of a script run without torchrun.
        (_, Some(k)) if environ && TORCHRUN.contains(&k) => format!(
            "torchrun sets {k} in each process it starts: run the script with `cudash launch \
             --nproc-per-node N FILE.py` (os.environ then holds {})",
            TORCHRUN.join(", ")
        ),
        (Some(s), _) => format!("did you mean {}?", repr_of(&Key::from(s).value())),
        (None, _) if keys.is_empty() => "the dict is empty".into(),
        (None, _) if keys.len() > MANY => {
            format!("it has {} keys: `d.keys()` lists them", keys.len())
        }
        (None, _) => format!(
            "the keys are {}",
            keys.iter()
                .map(|(k, _)| repr_of(&k.value()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Error::Module {
        class: "KeyError",
        message: repr_of(&key.value()),
        help: Some(help),
    }
}

/// `d.keys()`, `d.values()`, `d.items()` (as lists, in order), `d.get`,
/// `d.update`, `d.pop`, `d.popitem`, `d.setdefault`, `d.move_to_end`
/// (an OrderedDict's), `d.clear` and `d.copy`.
pub(super) fn dict_method(
    me: &mut Interp,
    name: &'static str,
    d: &PyDict,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    use super::super::dict_view::view;
    use super::super::value::ViewOf;
    let list = |items: Vec<Value>| Value::List(Arc::new(items));
    let key = |me: &mut Interp| -> Result<(Key, crate::lang::Span), Diagnostic> {
        let (k, span) = b
            .get("key")
            .ok_or_else(|| Error::value(format!("{name}() needs a key")).at(b.span))?;
        Ok((me.key(k, *span)?, *span))
    };
    let items = d.items();
    Ok(match name {
        "keys" => view(d, ViewOf::Keys),
        "values" => view(d, ViewOf::Values),
        "items" => view(d, ViewOf::Items),
        "get" => {
            let (k, _) = key(me)?;
            match d.get(&k) {
                Some(v) => v,
                None => b.get("default").map_or(Value::None, |(v, _)| v.clone()),
            }
        }
        // A Counter's: counts added.
        "update" if matches!(d.missing(), Some(crate::eval::value::Missing::Count)) => {
            if let Some((other, span)) = b.get("other") {
                me.count_into(d, other.clone(), *span)?;
            }
            Value::None
        }
        "most_common" => d.most_common(b.int("n")?),
        // A Counter's keys, each repeated by its count (none below 1).
        "elements" => {
            let mut out = Vec::new();
            for (k, v) in d.items().iter() {
                if let Value::Int(n) = v {
                    out.extend(std::iter::repeat_n(k.value(), (*n).max(0) as usize));
                }
            }
            Value::Iterator(std::sync::Arc::new(std::sync::Mutex::new(
                super::super::value::PyIterator::Items(out.into()),
            )))
        }
        "update" => {
            if let Some((other, span)) = b.get("other") {
                for (k, v) in pairs_of(other).map_err(|e| e.at(*span))? {
                    d.set(k, v);
                }
            }
            for (k, (v, _)) in &b.kwargs {
                d.set(Key::Str(k.clone()), v.clone());
            }
            Value::None
        }
        "pop" => {
            let (k, span) = key(me)?;
            match (d.remove(&k), b.get("default")) {
                (Some(v), _) => v,
                (None, Some((v, _))) => v.clone(),
                (None, None) => return Err(key_error(&k, &items).at(span)),
            }
        }
        "setdefault" => {
            let (k, _) = key(me)?;
            match d.get(&k) {
                Some(v) => v,
                None => {
                    let v = b.get("default").map_or(Value::None, |(v, _)| v.clone());
                    d.set(k, v.clone());
                    v
                }
            }
        }
        "popitem" => {
            let last = b.bool("last", true)?;
            match d.pop_end(last) {
                Some((k, v)) => list(vec![k.value(), v]),
                None => {
                    return Err(Error::Module {
                        class: "KeyError",
                        message: "'popitem(): dictionary is empty'".into(),
                        help: None,
                    }
                    .at(b.span))
                }
            }
        }
        "move_to_end" => {
            let (k, span) = key(me)?;
            if !d.move_to_end(&k, b.bool("last", true)?) {
                return Err(key_error(&k, &items).at(span));
            }
            Value::None
        }
        "clear" => {
            d.clear();
            Value::None
        }
        // A new dict of the same items (the values themselves shared).
        _ => Value::Dict(d.copy_with((*items).clone())),
    })
}

/// What `update` and `dict()` take: a dict's items, or a sequence of
/// (key, value) pairs.
pub fn pairs_of(v: &Value) -> Result<Vec<(Key, Value)>, Error> {
    if let Value::Dict(other) = v {
        return Ok(other
            .items()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect());
    }
    let seq = v
        .elements()
        .ok_or_else(|| Error::wrong_type("what a dict is made from", "a dict", v.type_name()))??;
    seq.iter()
        .enumerate()
        .map(|(i, pair)| {
            let kv = pair.items().filter(|kv| kv.len() == 2).ok_or_else(|| {
                Error::value(format!(
                    "dictionary update sequence element #{i} has not length 2"
                ))
            })?;
            Ok((Key::required(&kv[0])?, kv[1].clone()))
        })
        .collect()
}
