//! Python's three-argument `type(name, bases, dict)`: a class made by a
//! call rather than a `class` statement (`Config = type("Config", (),
//! {"lr": 0.1})`, a namespace made on the fly), as Python's `type.__new__`
//! makes it.

use std::sync::{Arc, Mutex};

use super::value::{object_class, Base, Class};
use super::{Interp, Value};
use crate::error::Error;

/// Python's TypeError for argument `n` of `type.__new__`.
fn argument(n: usize, want: &str, got: &Value) -> Error {
    Error::Module {
        class: "TypeError",
        message: format!(
            "type.__new__() argument {n} must be {want}, not {}",
            super::format::python_type(got)
        ),
        help: Some("`type(name, bases, dict)`: a str, a tuple of classes, a dict".into()),
    }
}

impl Interp {
    /// The class `type(name, bases, dict)` makes: `dict`'s items its
    /// attributes (functions its methods), `bases` the program's classes
    /// (or `object`), and `__module__` the caller's module, as Python's.
    pub(crate) fn class_from_parts(
        &mut self,
        name: &Value,
        bases: &Value,
        dict: &Value,
    ) -> Result<Value, Error> {
        let Value::Str(name) = name else {
            return Err(argument(1, "str", name));
        };
        let Value::List(written) = bases else {
            return Err(argument(2, "tuple", bases));
        };
        let Value::Dict(items) = dict else {
            return Err(argument(3, "dict", dict));
        };
        let mut above = Vec::new();
        for base in written.iter() {
            match base {
                Value::Class(c) if Arc::ptr_eq(c, &object_class()) => {}
                Value::Class(c) => above.push(Arc::clone(c)),
                other => {
                    return Err(Error::wrong_type(
                        "a base of type(name, bases, dict)",
                        "a class of the program's (or `object`); a layer or `Module` is \
                         a base in a `class` statement",
                        other.type_name(),
                    ))
                }
            }
        }
        let mro = super::mro::linearize(&above).map_err(|()| Error::Module {
            class: "TypeError",
            message: "Cannot create a consistent method resolution order (MRO) for these bases"
                .into(),
            help: Some("a class comes before its own bases: list the derived class first".into()),
        })?;
        let mut attrs = Vec::new();
        for (key, value) in items.items().iter() {
            let Value::Str(attr) = key.value() else {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "type.__new__(): the dict's keys must be str".into(),
                    help: None,
                });
            };
            attrs.push((attr.to_string(), value.clone()));
        }
        if !attrs.iter().any(|(n, _)| n == "__module__") {
            if let Some(Value::Str(m)) = self.vars.get("__name__") {
                attrs.push(("__module__".into(), Value::Str(Arc::clone(m))));
            }
        }
        Ok(Value::Class(Arc::new(Class {
            name: name.to_string(),
            bases: above.iter().map(|c| Base::Class(Arc::clone(c))).collect(),
            mro,
            attrs: Mutex::new(attrs),
            fields: Vec::new(),
            dataclass: Default::default(),
            dataclass_options: Default::default(),
            tuple: false,
        })))
    }
}
