//! Which values are a dict's keys and a set's items, and the key each is:
//! Python's hashable values (`Key` in `value.rs`).

use std::sync::Arc;

use super::dataclass::{field_values, has_option, is_dataclass, HASH};
use super::value::{object_id, Key, Object, Value};
use super::Interp;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

impl Key {
    /// A value as a key, or None where Python's would be unhashable (a
    /// list, a dict, a set, a tuple holding one).
    pub fn of(v: &Value) -> Option<Key> {
        Some(match v {
            Value::Str(s) => Key::Str(s.to_string()),
            Value::Int(i) => Key::Int(*i),
            Value::Bool(b) => Key::Bool(b.get()),
            Value::Float(f) => Key::Float(f.get()),
            Value::None => Key::None,
            Value::List(items) | Value::Size(items) => Key::Tuple(Arc::new(
                items.iter().map(Key::of).collect::<Option<Vec<_>>>()?,
            )),
            Value::DType(t) => Key::DType(t.get()),
            Value::Device(d) => Key::Device(Some(d.get())),
            Value::CurrentCuda => Key::Device(None),
            // A frozenset by its items in an order of their own (by hash,
            // then as written), beside a mark no tuple of a program's
            // holds: equal frozensets are one key, whatever their order.
            Value::Set(s) if s.is_frozen() => {
                use std::hash::BuildHasher;
                let hasher = super::value::KeyHasher::default();
                let mut items: Vec<Key> = s.items().keys().cloned().collect();
                items.sort_by_cached_key(|k| (hasher.hash_one(k), format!("{k:?}")));
                let mark = [Key::Device(None), Key::Str("frozenset".into())];
                let inner = Key::Tuple(Arc::new(
                    mark.into_iter()
                        .chain([Key::Tuple(Arc::new(items))])
                        .collect(),
                ));
                Key::Hashed(Arc::new((inner, v.clone())))
            }
            Value::MutList(_) | Value::Dict(_) | Value::Set(_) | Value::DictView(_) => return None,
            // Bytes by their contents: a key no other value makes (the
            // bytes in hex beside `cuda`, which no tuple of a program's
            // holds as a dict key).
            Value::Bytes(b) => {
                let hex: String = b.iter().map(|c| format!("{c:02x}")).collect();
                let inner = Key::Tuple(Arc::new(vec![Key::Device(None), Key::Str(hex)]));
                Key::Hashed(Arc::new((inner, v.clone())))
            }
            // A named tuple hashes and compares as the tuple of its items.
            Value::Object(o) if o.class.tuple => {
                let items = Value::List(Arc::new(o.tuple_items()));
                Key::Hashed(Arc::new((Key::of(&items)?, v.clone())))
            }
            // `@dataclass(frozen=True)` (or `unsafe_hash=True`): the tuple
            // of its fields, beside its class.
            Value::Object(o) if !has_own_hash(o) && has_option(o, HASH) => {
                let class = Arc::as_ptr(&o.class) as *const u8 as usize as i64;
                let mut keys = vec![Key::Int(class)];
                for v in field_values(o) {
                    keys.push(Key::of(&v)?);
                }
                Key::Hashed(Arc::new((Key::Tuple(Arc::new(keys)), v.clone())))
            }
            // Python sets `__hash__` to None in a class that defines
            // `__eq__` without it, a dataclass's too: not hashable.
            Value::Object(o) if !has_own_hash(o) && (defines(o, "__eq__") || is_dataclass(o)) => {
                return None
            }
            other => Key::Object(object_id(other), other.clone()),
        })
    }

    /// `Key::of`, or Python's TypeError for a value that cannot be one.
    pub fn required(v: &Value) -> Result<Key, Error> {
        Key::of(v).ok_or_else(|| unhashable(v))
    }
}

/// Whether the program's class of `o` defines `name` (itself or a base).
fn defines(o: &Object, name: &str) -> bool {
    matches!(o.class.find(name), Some(Value::Function(_)))
}

/// Whether the class of `o` has a `__hash__` of the program's.
fn has_own_hash(o: &Object) -> bool {
    defines(o, "__hash__")
}

impl Interp {
    /// `v` as a dict's key or a set's item: `Key::of`, and an instance
    /// whose class defines `__hash__` by its class and what that gives
    /// (two instances of a class with equal hashes are one key: their
    /// `__eq__` is not asked).
    pub(crate) fn key(&mut self, v: &Value, span: Span) -> Result<Key, Diagnostic> {
        if let Value::Object(o) = v {
            // `{Mode.TRAIN: 1}["train"]`: one key with its value.
            if let Some(value) = o.mixed_enum_value() {
                let key = self.key(&value, span)?;
                return Ok(Key::Hashed(Arc::new((key, v.clone()))));
            }
            if let (false, Some(Value::Function(f))) = (o.class.tuple, o.class.find("__hash__")) {
                let h = self.call_bound(v, f, Vec::new(), span)?;
                let Value::Int(h) = h else {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: "__hash__ method should return an integer".into(),
                        help: None,
                    }
                    .at(span));
                };
                let class = Arc::as_ptr(&o.class) as *const u8 as usize as i64;
                let key = Key::Tuple(Arc::new(vec![Key::Int(class), Key::Int(h)]));
                return Ok(Key::Hashed(Arc::new((key, v.clone()))));
            }
        }
        Key::required(v).map_err(|e| e.at(span))
    }

    /// Python's `hash(v)`: an int's own value (modulo 2**61 - 1, as
    /// Python's), equal numbers alike (`hash(1.0) == hash(1)`), equal keys
    /// alike; a class's `__hash__`.
    pub(crate) fn hash_of(&mut self, v: &Value, span: Span) -> Result<i64, Diagnostic> {
        let key = self.key(v, span)?;
        if let Some(i) = key.as_integer() {
            const MODULUS: i128 = (1 << 61) - 1;
            let r = (i as i128).rem_euclid(MODULUS) as i64;
            let h = if i < 0 && r != 0 {
                r - MODULUS as i64
            } else {
                r
            };
            return Ok(if h == -1 { -2 } else { h });
        }
        if let Key::Hashed(h) = &key {
            if let Key::Tuple(parts) = &h.0 {
                if let [Key::Int(_), Key::Int(h)] = parts.as_slice() {
                    return Ok(*h);
                }
            }
        }
        use std::hash::BuildHasher;
        let h = super::value::KeyHasher::default().hash_one(&key) as i64 >> 1;
        Ok(if h == -1 { -2 } else { h })
    }
}

/// `TypeError: unhashable type: 'list'`, naming the first unhashable part.
fn unhashable(v: &Value) -> Error {
    let part = match v {
        Value::List(items) | Value::Size(items) => items.iter().find(|i| Key::of(i).is_none()),
        _ => None,
    };
    let part = part.unwrap_or(v);
    let name = match part {
        Value::Object(o) => o.class.name.clone(),
        other => super::format::python_type(other).to_string(),
    };
    let help = match part {
        Value::Object(_) => Some(
            "a class that defines `__eq__` (a dataclass too) is hashable once it defines `__hash__`"
                .into(),
        ),
        _ => None,
    };
    Error::Module {
        class: "TypeError",
        message: format!("unhashable type: '{name}'"),
        help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::value::PyDict;

    #[test]
    fn numbers_equal_as_python_are_one_key() {
        let d = PyDict::new(vec![
            (Key::Int(1), Value::Int(10)),
            (Key::Bool(true), Value::Int(11)),
            (Key::Float(1.0), Value::Int(12)),
            (Key::Float(0.5), Value::Int(13)),
        ]);
        assert_eq!(d.len(), 2);
        assert!(matches!(d.get(&Key::Int(1)), Some(Value::Int(12))));
        assert!(matches!(d.items().keys().next(), Some(Key::Int(1))));
        assert!(matches!(d.get(&Key::Float(0.5)), Some(Value::Int(13))));
        assert!(d.get(&Key::Int(0)).is_none());
    }

    #[test]
    fn tuples_are_keys_lists_are_not() {
        let t = Value::List(Arc::new(vec![
            Value::Int(1),
            Value::Str(Arc::new("a".into())),
        ]));
        let k = Key::required(&t).unwrap();
        assert_eq!(k, Key::Tuple(Arc::new(vec![Key::Int(1), Key::from("a")])));
        let inner = Value::list(vec![Value::Int(1)]);
        let e = Key::required(&Value::List(Arc::new(vec![Value::Int(1), inner]))).unwrap_err();
        assert!(e.to_string().contains("unhashable type: 'list'"), "{e}");
    }
}
