//! Which values are a dict's keys and a set's items, and the key each is:
//! Python's hashable values (`Key` in `value.rs`).

use std::sync::Arc;

use super::value::{object_id, Key, Value};
use crate::error::Error;

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
            Value::MutList(_) | Value::Dict(_) | Value::Set(_) => return None,
            other => Key::Object(object_id(other), other.clone()),
        })
    }

    /// `Key::of`, or Python's TypeError for a value that cannot be one.
    pub fn required(v: &Value) -> Result<Key, Error> {
        Key::of(v).ok_or_else(|| unhashable(v))
    }
}

/// `TypeError: unhashable type: 'list'`, naming the first unhashable part.
fn unhashable(v: &Value) -> Error {
    let part = match v {
        Value::List(items) | Value::Size(items) => items.iter().find(|i| Key::of(i).is_none()),
        _ => None,
    };
    Error::Module {
        class: "TypeError",
        message: format!(
            "unhashable type: '{}'",
            super::format::python_type(part.unwrap_or(v))
        ),
        help: None,
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
